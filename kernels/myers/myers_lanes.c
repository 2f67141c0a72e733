/* SPDX-License-Identifier: MIT */
/* myers_lanes.c -- what the lane kernels of every SIMD level share: the
 * segment plan of text lanes, the per-lane hit buffers, scratch, and the
 * dispatch on the level (see myers_lanes.h).
 */
#include <stdlib.h>
#include <string.h>

#include "search/cpu_simd.h"
#include "util/grow.h"
#include "kernels/myers/myers_lanes.h"

void gpuasm_lanes_ws_free(gpuasm_lanes_ws *ws)
{
    free(ws->hit);
    for (int l = 0; l < 16; l++) free(ws->lane_hit[l]);
    free(ws->seg);
    free(ws->blk);
    free(ws->tab);
    memset(ws, 0, sizeof *ws);
}

int gpuasm_lanes_plan(gpuasm_lanes_ws *ws, int L, const gpuasm_lane_text *texts, uint32_t n_texts,
                      uint64_t ov, gpuasm_lane_seg **seg_out, uint32_t first[9])
{
    uint64_t total = 0;
    for (uint32_t t = 0; t < n_texts; t++) total += texts[t].n;
    const uint64_t share = total / (uint64_t)L + (total % (uint64_t)L != 0);
    /* Every lane boundary inside a text splits one segment in two. */
    if (gpuasm_grow(&ws->seg, &ws->seg_cap, (size_t)n_texts + (size_t)L, sizeof(gpuasm_lane_seg)) < 0)
        return -1;
    gpuasm_lane_seg *seg = ws->seg;
    uint32_t ns = 0;
    int lane = 0;
    first[0] = 0;
    uint64_t g = 0;   /* global position of text t's first base */
    for (uint32_t t = 0; t < n_texts; t++) {
        const uint64_t n = texts[t].n;
        uint64_t s = 0;
        while (s < n) {
            /* The lane owning global position g + s, and where its piece ends. */
            const int l = (int)((g + s) / share);
            while (lane < l) first[++lane] = ns;
            const uint64_t lane_end = (uint64_t)(l + 1) * share - g;   /* in this text's positions */
            const uint64_t e = lane_end < n ? lane_end : n;
            seg[ns].id = t;
            seg[ns].s = s;
            seg[ns].e = e;
            seg[ns].w = s > ov ? s - ov : 0;
            ns++;
            s = e;
        }
        g += n;
    }
    while (lane < L) first[++lane] = ns;
    *seg_out = seg;
    return 0;
}

int gpuasm_lanes_push(gpuasm_lanes_ws *ws, int l, uint32_t id, uint64_t j, int32_t d)
{
    if (ws->lane_n[l] == ws->lane_cap[l] &&
        gpuasm_grow((void **)&ws->lane_hit[l], &ws->lane_cap[l], ws->lane_n[l] + 1,
                    sizeof(gpuasm_lane_hit)) < 0)
        return -1;
    gpuasm_lane_hit *h = &ws->lane_hit[l][ws->lane_n[l]++];
    h->j = j;
    h->id = id;
    h->d = d;
    return 0;
}

int gpuasm_lanes_join(gpuasm_lanes_ws *ws, int L)
{
    size_t add = 0;
    for (int l = 0; l < L; l++) add += ws->lane_n[l];
    if (gpuasm_grow((void **)&ws->hit, &ws->cap_hit, ws->n_hit + add, sizeof(gpuasm_lane_hit)) < 0)
        return -1;
    for (int l = 0; l < L; l++) {
        if (ws->lane_n[l])
            memcpy(ws->hit + ws->n_hit, ws->lane_hit[l], ws->lane_n[l] * sizeof(gpuasm_lane_hit));
        ws->n_hit += ws->lane_n[l];
        ws->lane_n[l] = 0;
    }
    return 0;
}

uint64_t *gpuasm_lanes_blk(gpuasm_lanes_ws *ws, size_t words)
{
    if (gpuasm_grow((void **)&ws->blk, &ws->blk_cap, words, sizeof(uint64_t)) < 0) return NULL;
    return ws->blk;
}

void *gpuasm_lanes_tab(gpuasm_lanes_ws *ws, size_t bytes)
{
    /* 64 bytes of slack so the caller can align the table to a cache line
     * (vector loads of 64-byte lanes). */
    if (bytes + 64 > ws->tab_cap) {
        free(ws->tab);
        ws->tab = malloc(bytes + 64);
        ws->tab_cap = ws->tab ? bytes + 64 : 0;
        if (!ws->tab) return NULL;
    }
    return (void *)(((uintptr_t)ws->tab + 63) & ~(uintptr_t)63);
}

int gpuasm_text_lanes(int level, gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                      const gpuasm_lane_text *texts, uint32_t n_texts)
{
    ws->n_hit = 0;
    switch (level) {
#if defined(__x86_64__) && defined(__GNUC__)
    case GPUASM_SIMD_AVX512: return gpuasm_text_lanes_avx512(ws, peq, m, k, texts, n_texts);
    case GPUASM_SIMD_AVX2: return gpuasm_text_lanes_avx2(ws, peq, m, k, texts, n_texts);
    case GPUASM_SIMD_SSE41: return gpuasm_text_lanes_sse41(ws, peq, m, k, texts, n_texts);
#endif
    default: return -1;   /* the scalar level has no lanes: cpu_scan.c never asks */
    }
}

int gpuasm_text_lanes_full(int level, gpuasm_lanes_ws *ws, const uint64_t *peq, uint32_t m, int32_t k,
                           const gpuasm_lane_text *texts, uint32_t n_texts, int minima)
{
    ws->n_hit = 0;
    if (m == 0 || m > GPUASM_LANES_FULL_M || k < 0 || (uint32_t)k >= m) return -1;
    switch (level) {
#if defined(__x86_64__) && defined(__GNUC__)
    case GPUASM_SIMD_AVX512: return gpuasm_text_lanes_full_avx512(ws, peq, m, k, texts, n_texts, minima);
    case GPUASM_SIMD_AVX2: return gpuasm_text_lanes_full_avx2(ws, peq, m, k, texts, n_texts, minima);
    case GPUASM_SIMD_SSE41: return gpuasm_text_lanes_full_sse41(ws, peq, m, k, texts, n_texts, minima);
#endif
    default: return -1;
    }
}

int gpuasm_pattern_lanes(int level, gpuasm_lanes_ws *ws, const gpuasm_lane_pattern *patterns,
                         uint32_t n_pat, const uint8_t *text, uint64_t n)
{
    ws->n_hit = 0;
    switch (level) {
#if defined(__x86_64__) && defined(__GNUC__)
    case GPUASM_SIMD_AVX512: return gpuasm_pattern_lanes_avx512(ws, patterns, n_pat, text, n);
    case GPUASM_SIMD_AVX2: return gpuasm_pattern_lanes_avx2(ws, patterns, n_pat, text, n);
    case GPUASM_SIMD_SSE41: return gpuasm_pattern_lanes_sse41(ws, patterns, n_pat, text, n);
#endif
    default: return -1;
    }
}
