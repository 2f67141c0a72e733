/* SPDX-License-Identifier: MIT */
/* myers_launch.cuh -- what the myers kernel's two launcher files share
 * (internal to kernels/myers): myers_cuda.cu (the plan, the RP, TP, WARP
 * and SIMPLE paths, the launcher) and myers_long_cuda.cu (the LONG path's
 * kernel and launches).  C++ for .cu files only.
 */
#ifndef GPUASM_MYERS_LAUNCH_CUH
#define GPUASM_MYERS_LAUNCH_CUH

#include <stdint.h>

#include <vector>

#include "kernels/cuda_kit.cuh"
#include "kernels/myers/myers_cuda_core.cuh"
#include "kernels/myers/myers_long_core.cuh"
#include "kernels/myers/myers_plan.h"
#include "kernels/myers/myers_slots.h"

enum {
    THREADS = 128,
    TP_NT = 128,
    TP_CHUNK = 32,             /* small targets per shared-memory chunk */
    WARPS = THREADS / 32,
};

/* Global scratch for long patterns (SIMPLE, LONG): at most this much, but
 * at least 1 slot. */
static const size_t SCRATCH_BUDGET = (size_t)512 << 20;

/* ---- per-pair enumeration (WARP and SIMPLE): decode -------------------------- */

struct pair_launch {
    gcore::pair_params sp;
    const uint64_t *off;       /* [np + 1] exclusive scan of items of this class */
    uint64_t np;
    int32_t cls;
    uint32_t R, lp;            /* warp classes */
};

struct pitem {
    uint32_t r, t, strand;
    int32_t rip;               /* the read is the pattern */
    gcore::witem it;
};

HD pitem pair_item(const pair_launch &L, uint64_t w)
{
    pitem p;
    const uint64_t slot = gcore::find_slot(L.off, L.np, w);
    const gcore::pair_info pi = gcore::get_pair(L.sp, L.sp.pair0 + slot);
    gcore::item_views(pi, w - L.off[slot], &p.strand, &p.it.pat, &p.it.txt, &p.it.win);
    p.r = pi.r;
    p.t = pi.t;
    p.rip = pi.rip;
    p.it.m = pi.m;
    p.it.n = pi.n;
    p.it.k = pi.k;
    p.it.w32 = (pi.m + 31u) / 32u;
    p.it.ncols = p.it.win.jend - p.it.win.j0;
    return p;
}

/* The item of a warp group (WARP and LONG): item < total, else an empty
 * slot (no columns) whose lanes only join the warp's shuffles. */
HD void group_item(const pair_launch &L, uint64_t item, uint64_t total, pitem &p)
{
    p.it.ncols = 0;
    p.it.m = 1;
    p.it.n = 0;
    p.it.w32 = 1;
    p.r = p.t = p.strand = 0;
    p.rip = 0;
    if (item < total) p = pair_item(L, item);
}

/* ---- the launcher's state ---------------------------------------------------- */

/* What a lane keeps between scans: the small targets' Eq tables (built at
 * the first scan after the targets change) and the planner's buffers. */
struct myers_state {
    uint64_t targets_version;
    myers::target_info ti;
    uint64_t *d_eq16;
    size_t eq16_cap;
    myers::host_plan hp;
    std::vector<uint8_t> plan_buf;
};

/* Device copies of the host plan, carved out of one buffer (one upload). */
struct dev_plan {
    uint32_t *perm;
    gcore::rp_group *groups;
    uint64_t *blk_off[5];
    uint32_t *ng[5];
    gcore::tp_tgt *tps;
    uint64_t *pair_off[gcore::NCLS];   /* host-planned item offsets (NULL: count on the device) */
};

/* Everything one launch sequence needs. */
struct scan_ctx {
    const gpuasm_cuda_batch *b;
    const myers_state *S;
    myers::knobs K;
    dev_plan dp;
    uint64_t npairs, chunk;
    unsigned grid;        /* blocks of the grid-stride kernels */
    uint64_t *d_cnt, *d_off;
    void *d_cub;
    size_t cub_cap;
};

namespace myers {

/* Item offsets of class cls in a chunk of np pairs: the host's plan, else
 * counted and scanned on the batch's stream into d_off ([np + 1])
 * (myers_cuda.cu). */
int class_offsets(const scan_ctx &sc, const gcore::pair_params &sp, uint64_t np, int cls, uint64_t *d_off,
                  const uint64_t **off, gpuasm_err *err);

/* The LONG classes of a chunk of np pairs, launched at once
 * (myers_long_cuda.cu).  0 or a status. */
int launch_long(const scan_ctx &sc, gcore::pair_params sp, uint64_t np, const std::vector<int> &classes,
                gpuasm_err *err);

/* The piped LONG kernel (myers_pipe_cuda.cu): a class's items with each
 * strip of PIPE_R words a lane on its own warp.  launch_long fills L,
 * order (NULL: item q), queue (zeroed), smax (strips of the class's
 * longest pattern), rec_cols and cs (0: no text-end partials);
 * launch_pipe carves the rest out of `region` (pipe_bytes() of them) and
 * zeroes what must start at 0. */
struct pipe_args {
    pair_launch L;
    const uint32_t *order;
    unsigned long long *queue;
    uint32_t smax, rec_cols, cs;
    unsigned long long *info;
    uint32_t *done, *fin;
    uint8_t *rec;
    uint32_t *col;
};

/* Blocks of the piped kernel with R words a lane that the SMs hold at once. */
uint64_t pipe_resident(uint32_t R, const gpuasm_cuda_batch &b);

/* Bytes of a launch's region: items, strips a item at most, record bytes
 * an item, words a stored column (0: none). */
uint64_t pipe_bytes(uint64_t items, uint32_t smax, uint64_t rec_cols, uint64_t cs);

/* Launch it on stream st with `blocks` blocks.  0 or a status. */
int launch_pipe(pipe_args A, uint32_t R, uint64_t items, void *region, unsigned blocks, cudaStream_t st,
                dev_out out, gpuasm_err *err);

}  /* namespace myers */

#endif
