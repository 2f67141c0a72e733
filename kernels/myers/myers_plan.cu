/* SPDX-License-Identifier: MIT */
/* myers_plan.cu -- the host planner of the CUDA Myers kernels (see
 * myers_plan.h and myers_cuda.cu's header for the paths).  Host code only. */
#include <stdint.h>

#include <algorithm>
#include <vector>

#include "kernels/myers/myers_plan.h"

namespace myers {

knobs knobs_of(const gpuasm_settings &s)
{
    knobs K;
    K.kn.simple = gpuasm_knob(s.cuda_simple, 0) != 0;
    K.kn.force_global = gpuasm_knob(s.cuda_force_global, 0) != 0;
    K.kn.force_warp = gpuasm_knob(s.cuda_force_warp, 0) != 0;
    K.kn.no_warp = gpuasm_knob(s.cuda_no_warp, 0) != 0;
    K.kn.long_mode = (int32_t)gpuasm_knob(s.cuda_long, 1);
    K.kn.long_rmax = (int32_t)gpuasm_knob(s.cuda_long_rmax, 6);
    K.kn.long_ends = gpuasm_knob(s.cuda_long_ends, 1) != 0;
    K.kn.long_pad = (int32_t)gpuasm_knob(s.cuda_long_pad, LONG_BAND_PAD);
    const uint64_t lanes = (uint64_t)gpuasm_knob(s.cuda_warp_lanes, 32);
    uint32_t lp = 1;
    while (lp * 2 <= lanes && lp < 32) lp *= 2;   /* largest power of 2 <= lanes */
    K.kn.warp_lanes = (int32_t)lp;
    const uint64_t seg = (uint64_t)gpuasm_knob(s.cuda_seg_min, 0);   /* 0: defaults */
    const uint64_t cap32 = (uint64_t)INT32_MAX;
    K.seg_simple = (uint32_t)(seg ? std::min(seg, cap32) : DEFAULT_SEG_SIMPLE);
    K.seg_warp = (uint32_t)(seg ? std::min(seg, cap32) : DEFAULT_SEG_WARP);
    K.seg_long = (uint32_t)(seg ? std::min(seg, cap32) : 0);   /* 0: from m + k */
    K.seg_rp = (uint32_t)(seg ? std::min<uint64_t>(seg, MAX_SEG_RP) : DEFAULT_SEG_RP);
    K.seg_tp = (uint32_t)(seg ? std::min<uint64_t>(seg, MAX_SEG_TP) : DEFAULT_SEG_TP);
    K.group_reads = (uint32_t)std::min<int64_t>(gpuasm_knob(s.cuda_group, RP_GROUP_MAX), RP_GROUP_MAX);
    K.pair_chunk = (uint64_t)gpuasm_knob(s.cuda_pair_chunk, DEFAULT_PAIR_CHUNK);
    K.long_pipe = (int32_t)gpuasm_knob(s.cuda_long_pipe, PIPE_DEFAULT);
    K.pipe_r = (uint32_t)gpuasm_knob(s.cuda_pipe_r, 1);
    return K;
}

void build_target_info(const gpuasm_seqset *tg, target_info &ti)
{
    ti.len.assign(tg->n, 0);
    ti.small_of.assign(tg->n, UINT32_MAX);
    ti.eq16.clear();
    ti.maxlen = 0;
    for (uint32_t t = 0; t < tg->n; ++t) {
        const uint64_t len = tg->off[t + 1] - tg->off[t];
        ti.len[t] = len;
        if (len > ti.maxlen) ti.maxlen = len;
        if (len == 0 || len > gcore::TP_MAX_M) continue;
        uint64_t b[4] = { 0, 0, 0, 0 };
        for (uint64_t i = 0; i < len; ++i) {
            const uint32_t c = tg->code[tg->off[t] + i];
            for (int x = 0; x < 4; ++x)
                if (c & (1u << x)) b[x] |= (uint64_t)1 << i;
        }
        ti.small_of[t] = (uint32_t)(ti.eq16.size() / 16);
        for (uint32_t c = 0; c < 16; ++c)
            ti.eq16.push_back(((c & 1u) ? b[0] : 0) | ((c & 2u) ? b[1] : 0) |
                              ((c & 4u) ? b[2] : 0) | ((c & 8u) ? b[3] : 0));
    }
}

void plan_scan(const gpuasm_seqset *reads, const target_info &ti, const gpuasm_search_opt *opt,
                      const knobs &K, host_plan &hp)
{
    const uint32_t nr = reads->n, nt = (uint32_t)ti.len.size();
    const int32_t side = opt->pattern_side;
    const bool fast = !K.kn.simple && !K.kn.force_warp;
    for (int c = 0; c < gcore::NCLS; ++c) hp.cls_possible[c] = false;

    uint64_t maxt = 0;
    for (uint32_t t = 0; t < nt; ++t) maxt = std::max(maxt, ti.len[t]);

    /* Reads: RP candidates, classes of RP pairs. */
    uint64_t maxr = 0;
    std::vector<uint32_t> bucket(gcore::RP_MAX_M + 2, 0);
    for (uint32_t r = 0; r < nr; ++r) {
        const uint64_t rlen = reads->off[r + 1] - reads->off[r];
        if (rlen > maxr) maxr = rlen;
        if (rlen == 0) continue;
        const bool rp_ok = gpuasm_pair_searched(rlen, gpuasm_pair_k(opt, rlen), 1);
        /* RP pairs: targets with read_is_pattern (and n = tlen >= 1). */
        const bool rp_any = side == GPUASM_PATTERN_READ ? maxt >= 1
                          : side == GPUASM_PATTERN_SHORTER ? maxt >= rlen : false;
        if (rp_ok && rp_any) {
            const int cls = gcore::route(K.kn, 1, (uint32_t)rlen, gpuasm_pair_k(opt, rlen));
            if (cls >= 0) hp.cls_possible[cls] = true;
            else if (cls == gcore::ROUTE_RP) bucket[rlen]++;
        }
    }
    /* Targets: classes of TP pairs. */
    for (uint32_t t = 0; t < nt; ++t) {
        const uint64_t m = ti.len[t];
        if (!gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1)) continue;
        bool any = false;
        if (side == GPUASM_PATTERN_TARGET) any = maxr >= 1;
        else if (side == GPUASM_PATTERN_SHORTER) any = maxr > m;
        if (!any) continue;
        const int cls = gcore::route(K.kn, 0, (uint32_t)m, gpuasm_pair_k(opt, m));
        if (cls >= 0) hp.cls_possible[cls] = true;
    }

    /* RP groups: reads by length (counting sort), cut at W changes and at
     * group_reads reads. */
    hp.perm.clear();
    hp.groups.clear();
    for (int w = 0; w <= 4; ++w) {
        hp.g_lo[w] = hp.g_hi[w] = 0;
        hp.blk_off[w].assign(nt + 1, 0);
        hp.ng[w].assign(nt, 0);
    }
    if (fast) {
        std::vector<uint32_t> start(gcore::RP_MAX_M + 2, 0);
        for (uint32_t l = 1; l <= gcore::RP_MAX_M; ++l) start[l + 1] = start[l] + bucket[l];
        hp.perm.resize(start[gcore::RP_MAX_M + 1]);
        for (uint32_t r = 0; r < nr; ++r) {
            const uint64_t rlen = reads->off[r + 1] - reads->off[r];
            if (rlen >= 1 && rlen <= gcore::RP_MAX_M && bucket[rlen]) hp.perm[start[rlen]++] = r;
        }
        /* bucket[l] > 0 marks lengths that were counted (RP candidates);
         * start[l] now is the end of bucket l. */
        uint32_t i = 0;
        for (int w = 1; w <= 4; ++w) {
            hp.g_lo[w] = (uint32_t)hp.groups.size();
            while (i < hp.perm.size()) {
                const uint64_t len0 = reads->off[hp.perm[i] + 1] - reads->off[hp.perm[i]];
                if ((len0 + 63) / 64 != (uint64_t)w) break;
                gcore::rp_group g;
                g.first = i;
                g.count = 0;
                g.ov = 0;
                g.minlen = (uint32_t)len0;
                while (i < hp.perm.size() && g.count < K.group_reads) {
                    const uint64_t len = reads->off[hp.perm[i] + 1] - reads->off[hp.perm[i]];
                    if ((len + 63) / 64 != (uint64_t)w) break;
                    const uint64_t ov = len + (uint64_t)gpuasm_pair_k(opt, len);
                    if (ov > g.ov) g.ov = (uint32_t)ov;
                    ++g.count;
                    ++i;
                }
                hp.groups.push_back(g);
            }
            hp.g_hi[w] = (uint32_t)hp.groups.size();
            /* Blocks per target: segments x eligible groups (a prefix of
             * this W's groups, which are sorted by length). */
            for (uint32_t t = 0; t < nt; ++t) {
                const uint64_t n = ti.len[t];
                uint32_t ng = 0;
                if (n >= 1 && side == GPUASM_PATTERN_READ) {
                    ng = hp.g_hi[w] - hp.g_lo[w];
                } else if (n >= 1 && side == GPUASM_PATTERN_SHORTER) {
                    uint32_t lo = hp.g_lo[w], hi = hp.g_hi[w];   /* first group with minlen > n */
                    while (lo < hi) {
                        const uint32_t mid = lo + (hi - lo) / 2;
                        if (hp.groups[mid].minlen <= n) lo = mid + 1;
                        else hi = mid;
                    }
                    ng = lo - hp.g_lo[w];
                }
                hp.ng[w][t] = ng;
                const uint64_t nseg = ng ? (n + K.seg_rp - 1) / K.seg_rp : 0;
                hp.blk_off[w][t + 1] = hp.blk_off[w][t] + nseg * ng;
            }
        }
    }

    /* TP: eligible small targets by length. */
    hp.tps.clear();
    hp.tp_ov = 0;
    hp.tp_minlen = UINT32_MAX;
    if (fast && side != GPUASM_PATTERN_READ) {
        for (uint32_t t = 0; t < nt; ++t) {
            if (ti.small_of[t] == UINT32_MAX) continue;
            const uint32_t m = (uint32_t)ti.len[t];
            const int32_t k = gpuasm_pair_k(opt, m);
            if (!gpuasm_pair_searched(m, k, 1)) continue;
            gcore::tp_tgt x;
            x.t = t;
            x.m = m;
            x.k = k;
            x.small = ti.small_of[t];
            hp.tps.push_back(x);
            if (m + (uint32_t)k > hp.tp_ov) hp.tp_ov = m + (uint32_t)k;
            if (m < hp.tp_minlen) hp.tp_minlen = m;
        }
        std::stable_sort(hp.tps.begin(), hp.tps.end(),
                         [](const gcore::tp_tgt &a, const gcore::tp_tgt &b) { return a.m < b.m; });
    }
}

}  /* namespace myers */
