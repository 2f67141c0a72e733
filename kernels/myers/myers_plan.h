/* SPDX-License-Identifier: MIT */
/* myers_plan.h -- the host planner of the CUDA Myers kernels
 * (myers_plan.cu): from the lengths alone, which pairs take which path,
 * the read-as-pattern groups and their blocks, the small targets of the
 * target-as-pattern path.  Plain C++ (no device code), so a host harness
 * can run it; myers_cuda.cu uploads what it plans and launches.
 */
#ifndef GPUASM_MYERS_PLAN_H
#define GPUASM_MYERS_PLAN_H

#include <stdint.h>

#include <vector>

#include "kernels/myers/myers_cuda_core.cuh"
#include "search/search.h"
#include "search/settings.h"

namespace myers {

enum {
    DEFAULT_SEG_SIMPLE = 2048,
    DEFAULT_SEG_RP = 4096,
    DEFAULT_SEG_TP = 256,
    MAX_SEG_TP = 384,          /* shared-memory bound of the TP window */
    MAX_SEG_RP = 16384,        /* shared-memory bound of the RP text */
    DEFAULT_SEG_WARP = 4096,
    DEFAULT_PAIR_CHUNK = 1 << 22,
    /* GPUASM_CUDA_LONG_PIPE's default (search/settings.h): 1, the piped
     * strips where a chunk has few long items (a 1 Mb pair on an H200:
     * 25.4 s of kernels -> 0.28 s, NOTES.md). */
    PIPE_DEFAULT = 1,
    RP_NT = 128,               /* threads of an RP block: 64 reads x 2 strands */
    RP_GROUP_MAX = RP_NT / 2
};

/* The knobs of settings.h that the Myers paths read, with their defaults. */
struct knobs {
    gcore::route_knobs kn;
    uint32_t seg_simple, seg_rp, seg_tp, seg_warp, seg_long;
    uint32_t group_reads;
    uint64_t pair_chunk;
    int32_t long_pipe;         /* myers_pipe_cuda.cu: 0 never, 1 few items, 2 always */
    uint32_t pipe_r;           /* the piped strips' words per lane (1 or 2) */
};

knobs knobs_of(const gpuasm_settings &s);

/* Per target set (set_targets): lengths and the small targets' Eq tables. */
struct target_info {
    std::vector<uint64_t> len;        /* [ntargets] */
    std::vector<uint32_t> small_of;   /* [ntargets] index into eq16, or UINT32_MAX */
    std::vector<uint64_t> eq16;       /* [small][16] */
    uint64_t maxlen;
};

void build_target_info(const gpuasm_seqset *tg, target_info &ti);

/* Everything one scan call plans on the host from the lengths alone. */
struct host_plan {
    /* RP */
    std::vector<uint32_t> perm;
    std::vector<gcore::rp_group> groups;
    uint32_t g_lo[5], g_hi[5];
    std::vector<uint64_t> blk_off[5];   /* [W][ntargets + 1] */
    std::vector<uint32_t> ng[5];        /* [W][ntargets] */
    /* TP */
    std::vector<gcore::tp_tgt> tps;
    uint32_t tp_ov, tp_minlen;
    /* per-pair classes that may have work */
    bool cls_possible[gcore::NCLS];
    /* per class: exclusive scan of items per pair when the launcher
     * planned them on the host (few pairs), else empty */
    std::vector<uint64_t> pair_off[gcore::NCLS];
};

/* Plan one scan of reads against the targets of ti.  May throw
 * std::bad_alloc. */
void plan_scan(const gpuasm_seqset *reads, const target_info &ti, const gpuasm_search_opt *opt,
               const knobs &K, host_plan &hp);

}  /* namespace myers */

#endif
