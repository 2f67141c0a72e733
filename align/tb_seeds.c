/* SPDX-License-Identifier: MIT */
/* tb_seeds.c -- missing seeds as a lower bound of an alignment's rest
 * (tb_seeds.h). */
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "walk/qkey.h"
#include "align/tb_seeds.h"

#define L GPUASM_TB_SEED_LEN
#define KEY_MASK ((uint32_t)(((uint64_t)1 << (2 * L)) - 1))

/* Sort v[0..n) by the high 32 bits (the key), stably: two passes of 16
 * bits (LSD), so entries of one key stay in increasing position. */
static void sort_by_key(uint64_t *v, uint64_t *w, size_t n, uint32_t *count)
{
    for (int pass = 0; pass < 2; pass++) {
        const int sh = 32 + 16 * pass;
        memset(count, 0, 65537 * sizeof *count);
        for (size_t i = 0; i < n; i++) count[((v[i] >> sh) & 0xffff) + 1]++;
        for (size_t c = 0; c < 65536; c++) count[c + 1] += count[c];
        for (size_t i = 0; i < n; i++) w[count[(v[i] >> sh) & 0xffff]++] = v[i];
        uint64_t *t = v;
        v = w;
        w = t;
    }
}

/* First entry of v[0..n) at or after (key, pos). */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

int gpuasm_tb_seeds(const uint8_t *pattern, uint32_t m, const uint8_t *text, uint64_t x0,
                    uint64_t e1, int64_t d, uint32_t **cnt, size_t *m_cnt, void **tmp, size_t *m_tmp)
{
    const size_t ns = m / L;
    if (ns == 0 || e1 < x0 + L || e1 - x0 > UINT32_MAX) return 1;
    /* the text's 16-mers at x0 .. e1 - 16: (key << 32 | position - x0) */
    const size_t nt = (size_t)(e1 - x0 - L + 1);
    const size_t bytes = 2 * nt * sizeof(uint64_t) + 65537 * sizeof(uint32_t);
    if (gpuasm_grow(tmp, m_tmp, bytes, 1) < 0) return -1;
    uint64_t *v = *tmp, *w = v + nt;
    uint32_t *count = (uint32_t *)(w + nt);
    uint32_t key = 0;
    for (uint64_t p = x0; p < e1; p++) {
        const int b = gpuasm_base2[text[p] & 15];
        if (b < 0) return 1;   /* an IUPAC code or N could match a seed */
        key = ((key << 2) | (uint32_t)b) & KEY_MASK;
        if (p >= x0 + L - 1) v[p - (x0 + L - 1)] = (uint64_t)key << 32 | (uint64_t)(p + 1 - L - x0);
    }
    sort_by_key(v, w, nt, count);
    if (gpuasm_grow((void **)cnt, m_cnt, ns + 1, sizeof(uint32_t)) < 0) return -1;
    uint32_t *c = *cnt;
    const int64_t e = (int64_t)e1 - (int64_t)m;
    c[ns] = 0;
    for (size_t j = ns; j-- > 0;) {
        uint32_t k = 0;
        int single = 1;
        for (int y = 0; y < L && single; y++) {
            const int b = gpuasm_base2[pattern[j * L + (size_t)y] & 15];
            single = b >= 0;
            k = (k << 2) | (uint32_t)(b & 3);
        }
        int present = !single;
        if (!present) {
            int64_t lo = (int64_t)(j * L) + e - d, hi = (int64_t)(j * L) + e + d;
            if (lo < (int64_t)x0) lo = (int64_t)x0;
            if (hi > (int64_t)(e1 - L)) hi = (int64_t)(e1 - L);
            if (lo <= hi) {
                const size_t at = lower_bound(v, nt, (uint64_t)k << 32 | (uint64_t)(lo - (int64_t)x0));
                present = at < nt && (uint32_t)(v[at] >> 32) == k &&
                          (int64_t)(uint32_t)v[at] + (int64_t)x0 <= hi;
            }
        }
        c[j] = c[j + 1] + !present;
    }
    return 0;
}
