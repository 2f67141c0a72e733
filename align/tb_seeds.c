/* SPDX-License-Identifier: MIT */
/* tb_seeds.c -- missing seeds as a lower bound of an alignment's rest
 * (tb_seeds.h). */
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/lower_bound.h"
#include "kernels/myers/myers_block.h"
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

/* Has text[a .. b) a substring within edit distance 1 of the seed (its
 * 2-bit codes s2[0..16))?  Myers 1999 on one word, free start, the least
 * D of the last row over the ends.  The text's codes are single bases. */
static int within_one(const uint8_t *s2, const uint8_t *text, uint64_t a, uint64_t b)
{
    uint64_t peq[4] = { 0, 0, 0, 0 };
    for (int i = 0; i < L; i++) peq[s2[i]] |= (uint64_t)1 << i;
    const uint64_t top = (uint64_t)1 << (L - 1);
    uint64_t pv = ~(uint64_t)0, mv = 0, ph, mh;
    int score = L;
    for (uint64_t x = a; x < b; x++) {
        score += gpuasm_myers_block_step(&pv, &mv, peq[gpuasm_base2[text[x] & 15]], 0, top, &ph, &mh);
        if (score <= 1) return 1;
    }
    return 0;
}

/* A missing seed (16 bases, key k) costs 1 when some substring of the
 * text within edit distance 1 of it can be on the alignment, else 2.  Such
 * a substring keeps one half of the seed exact (an edit falls in one
 * half), at a text position q whose diagonal (q - the half's first row)
 * is within 1 of the seed's e0 - d .. e0 + d (e0: diagonal 0 of its first
 * row, an insertion or deletion in the other half moving it by one); the
 * seed's alignment then lies in text[q - 9 .. q + 17).  The halves' exact
 * occurrences come from the sorted 16-mers (their first 8 bases are a
 * range of keys), or, within 16 bases of the text's end (no 16-mer
 * there), from the text.  A lower bound either way: 1 whenever one of
 * those windows holds a substring within 1. */
static int near_one(const uint8_t *seed, uint32_t k, const uint8_t *text, const uint64_t *v, size_t nt,
                    uint64_t x0, uint64_t e1, int64_t e0, int64_t d)
{
    uint8_t s2[L];
    for (int y = 0; y < L; y++) s2[y] = (uint8_t)gpuasm_base2[seed[y] & 15];
    for (int h = 0; h < 2; h++) {
        const uint32_t half = h ? k & 0xffffu : k >> 16;
        int64_t qlo = e0 + 8 * h - d - 1, qhi = e0 + 8 * h + d + 1;
        if (qlo < (int64_t)x0) qlo = (int64_t)x0;
        if (qhi > (int64_t)e1 - 8) qhi = (int64_t)e1 - 8;
        for (size_t i = gpuasm_lower_bound_u64(v, nt, (uint64_t)half << 48); i < nt && (v[i] >> 48) == half; i++) {
            const int64_t q = (int64_t)(uint32_t)v[i] + (int64_t)x0;
            if (q < qlo || q > qhi) continue;
            const uint64_t a = q - 9 > (int64_t)x0 ? (uint64_t)(q - 9) : x0;
            const uint64_t b = (uint64_t)q + 17 < e1 ? (uint64_t)q + 17 : e1;
            if (within_one(s2, text, a, b)) return 1;
        }
        /* the last 15 positions start no 16-mer */
        for (int64_t q = qlo > (int64_t)e1 - L + 1 ? qlo : (int64_t)e1 - L + 1; q <= qhi; q++) {
            int same = 1;
            for (int y = 0; y < 8 && same; y++) same = gpuasm_base2[text[q + y] & 15] == s2[8 * h + y];
            if (!same) continue;
            const uint64_t a = q - 9 > (int64_t)x0 ? (uint64_t)(q - 9) : x0;
            if (within_one(s2, text, a, e1)) return 1;
        }
    }
    return 0;
}

/* The counts into c[0 .. ns] from the text's sorted 16-mers v[0 .. nt). */
static void seed_costs(const uint8_t *pattern, uint32_t m, const uint8_t *text, uint64_t x0, uint64_t e1,
                       int64_t d, const uint64_t *v, size_t nt, uint32_t *c)
{
    const size_t ns = m / L;
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
                const size_t at = gpuasm_lower_bound_u64(v, nt, (uint64_t)k << 32 | (uint64_t)(lo - (int64_t)x0));
                present = at < nt && (uint32_t)(v[at] >> 32) == k &&
                          (int64_t)(uint32_t)v[at] + (int64_t)x0 <= hi;
            }
        }
        c[j] = c[j + 1] + (present ? 0 : near_one(pattern + j * L, k, text, v, nt, x0, e1,
                                                  (int64_t)(j * L) + e, d) ? 1 : 2);
    }
}

int gpuasm_tb_seeds(const uint8_t *pattern, uint32_t m, const uint8_t *text, uint64_t x0,
                    uint64_t e1, int64_t d, uint32_t **cnt, size_t *m_cnt)
{
    const size_t ns = m / L;
    if (ns == 0 || e1 < x0 + L || e1 - x0 > UINT32_MAX) return 1;
    for (uint64_t p = x0; p < e1; p++)
        if (gpuasm_base2[text[p] & 15] < 0) return 1;   /* an IUPAC code or N could match a seed */
    if (gpuasm_grow((void **)cnt, m_cnt, ns + 1, sizeof(uint32_t)) < 0) return -1;
    /* the text's 16-mers at x0 .. e1 - 16: (key << 32 | position - x0),
     * sorted; scratch of 16 bytes a text base, not kept */
    const size_t nt = (size_t)(e1 - x0 - L + 1);
    uint64_t *v = malloc(2 * nt * sizeof(uint64_t) + 65537 * sizeof(uint32_t));
    if (!v) return -1;
    uint64_t *w = v + nt;
    uint32_t key = 0;
    for (uint64_t p = x0; p < e1; p++) {
        key = ((key << 2) | (uint32_t)gpuasm_base2[text[p] & 15]) & KEY_MASK;
        if (p >= x0 + L - 1) v[p - (x0 + L - 1)] = (uint64_t)key << 32 | (uint64_t)(p + 1 - L - x0);
    }
    sort_by_key(v, w, nt, (uint32_t *)(w + nt));
    seed_costs(pattern, m, text, x0, e1, d, v, nt, *cnt);
    free(v);
    return 0;
}
