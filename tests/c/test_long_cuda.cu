/* SPDX-License-Identifier: MIT */
/* test_long_cuda.cu -- the host harness of the CUDA Myers LONG path: the
 * very per-lane code of kernels/myers/myers_long_core.cuh (what k_long of
 * myers_cuda.cu calls between its shuffles), run on the CPU as one group of
 * LP lanes in lockstep (step t of every lane, then each lane's return value
 * handed to the next: __shfl_up_sync; lane 0 reads the record of the strip
 * above), strip after strip, segment after segment, against the naive DP
 * (tests/c/naive_dp.c): the end hits (local minima of D[m][j] <= k,
 * search.h) must be the same list.
 *
 * Cases (issue #11): m in {4097, 5000, 10000, 30000} and k from 0 to
 * 0.15 m, random and repetitive texts holding mutated copies of the
 * pattern (substitutions and indels), IUPAC and N codes in pattern and
 * text, both strands of the text, every strip shape (LP x R =
 * 8x1 .. 32x6), the shape the router picks and a one-word strip (most
 * strip passes); short patterns (100, 1024) through the same code.  Also
 * how often deeper strips are entered on unrelated text (the reason for
 * long_band_rows(): printed, not a pass/fail).  Built by nvcc as host code
 * in CUDA builds (no GPU needed); output is TAP.  GPUASM_TEST_SEED varies
 * the random cases.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "kernels/myers/myers_long_core.cuh"
extern "C" {
#include "naive_dp.h"
}
#include "tap.h"

using namespace gcore;

static uint32_t rnd32(void) { return (uint32_t)(rnd() >> 32); }

static const uint8_t BASES[4] = { 1, 2, 4, 8 };

/* A random base; with probability iupac/1000 an IUPAC set or N (15) or 0. */
static uint8_t rnd_code(uint32_t iupac)
{
    if (iupac && rnd32() % 1000 < iupac) {
        static const uint8_t odd[] = { 15, 15, 0, 3, 5, 6, 9, 10, 12, 7, 11, 13, 14 };
        return odd[rnd32() % sizeof odd];
    }
    return BASES[rnd32() & 3];
}

/* Append a copy of p with about rate/1000 edits (substitution, insertion,
 * deletion in equal parts). */
static void mutate_into(std::vector<uint8_t> &t, const std::vector<uint8_t> &p, uint32_t rate)
{
    for (size_t i = 0; i < p.size(); ++i) {
        if (rnd32() % 1000 < rate) {
            switch (rnd32() % 3) {
            case 0: t.push_back(BASES[rnd32() & 3]); break;            /* substitution */
            case 1: t.push_back(p[i]); t.push_back(BASES[rnd32() & 3]); break;   /* insertion */
            default: break;                                            /* deletion */
            }
        } else {
            t.push_back(p[i]);
        }
    }
}

struct hit {
    uint32_t j;
    int32_t d;
};

/* The emit of the core: hits into a plain array (at most one per text
 * position of a window, so ncols + 1 entries suffice per item). */
struct collect {
    hit *buf;
    size_t n, cap;
    HD void operator()(uint32_t j, int32_t d)
    {
        if (n < cap) buf[n] = hit{ j, d };
        ++n;
    }
};

/* The oracle: local minima of last[] (= D[m][j+1]) that are <= k. */
static std::vector<hit> naive_hits(const std::vector<uint8_t> &p, const std::vector<uint8_t> &t, int32_t k)
{
    std::vector<int32_t> last(t.size());
    if (gpuasm_naive_dp(p.data(), (uint32_t)p.size(), t.data(), t.size(), last.data()) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    std::vector<hit> h;
    const size_t n = t.size();
    for (size_t j = 0; j < n; ++j) {
        const int32_t d = last[j];
        if (d > k) continue;
        if (j > 0 && last[j - 1] <= d) continue;
        if (j + 1 < n && last[j + 1] < d) continue;
        h.push_back(hit{ (uint32_t)j, d });
    }
    return h;
}

/* Statistics of the strip passes of one run. */
struct pass_stats {
    uint64_t items, passes, deep_cols, strip0_cols, leaves, reentries;
};

/* The text-end partial of a run (myers_long_core.cuh: k_long takes it from
 * column n - 2 of the item whose segment ends the text): the options and
 * omin it is asked with, what the lanes found, and how often a strip was
 * entered at column n - 1 (its stored column n - 2 is the start column). */
struct end_check {
    const gpuasm_search_opt *o;
    uint32_t omin;
    int32_t sfloor;     /* the reads' significance floor (gpuasm_partial_kf) */
    gpuasm_partial got;
    int done;
    uint64_t begin_dumps;
};

/* k_long's walk of the stored column, by a group of lp lanes: lane g takes
 * a run of the words of the strips entered, starting from the sum of the
 * runs above it (the kernel's scan), and the lanes' bests are merged. */
static gpuasm_partial end_walk(const std::vector<uint32_t> &col, uint32_t cs, uint32_t wend, uint32_t lp,
                               const witem &it, const end_check &ec)
{
    const uint32_t per = (wend + lp - 1u) / lp;
    int32_t above = 0;
    gpuasm_partial best;
    best.plen = 0;
    best.dist = 0;
    for (uint32_t g = 0; g < lp; ++g) {
        const uint32_t w0 = std::min(wend, g * per), w1 = std::min(wend, w0 + per);
        gpuasm_partial mine;
        mine.plen = 0;
        mine.dist = 0;
        long_end_rows(col.data(), cs, w0, w1, above, it.pat, it.m, ec.omin, ec.sfloor, it.txt.at(it.n - 1u), *ec.o,
                      mine);
        above += long_end_sum(col.data(), cs, w0, w1, it.m);
        if (mine.plen) gpuasm_partial_keep(&best, mine.plen, mine.dist);
    }
    return best;
}

/* One work item through the LONG path: a group of lp lanes in lockstep. */
template <int R>
static void run_item(const witem &it, uint32_t lp, std::vector<hit> &out, pass_stats &st, end_check *ec)
{
    /* The text-end partial: the segment that ends the text stores its
     * column n - 2 (poisoned first: a word never stored shows). */
    const bool ends = ec && it.ncols && it.win.s1 == it.n;
    const uint32_t cs = it.w32;
    std::vector<uint32_t> col(ends ? 2 * (size_t)cs : 0, 0xa5a5a5a5u);
    std::vector<uint32_t> td(lp);
    uint32_t wend = 0;
    std::vector<uint32_t> peq((size_t)16 * R * 32);
    std::vector<llane<R> > L(lp);
    std::vector<uint32_t> hprev(lp), hnew(lp);
    std::vector<uint8_t> rec[2];
    rec[0].assign(it.ncols + 1, 0x55);
    rec[1].assign(it.ncols + 1, 0x55);
    std::vector<hit> buf(it.ncols + 1);
    collect e;
    e.buf = buf.data();
    e.n = 0;
    e.cap = buf.size();
    uint32_t c0 = 0;
    int32_t base = 0;
    ++st.items;
    for (uint32_t s = 0;; ++s) {
        const lstrip sp = long_strip(it, R, lp, s, c0, base);
        if (sp.steps == 0) break;
        ++st.passes;
        if (s == 0) st.strip0_cols += it.ncols - sp.c0;
        else st.deep_cols += it.ncols - sp.c0;
        const uint8_t *rin = s ? rec[(s - 1) & 1].data() : NULL;
        uint8_t *rout = rec[s & 1].data();
        for (uint32_t g = 0; g < lp; ++g) {
            long_build_peq<R>(peq.data(), g, g, it, sp);
            long_begin<R>(L[g], g, it, sp);
            hprev[g] = 0;
            td[g] = ends ? long_dump_step(it, sp, g) : UINT32_MAX;
            if (ends && td[g] == UINT32_MAX) {
                long_dump<R>(L[g], g, sp, col.data(), cs);
                if (g == 0) ec->begin_dumps++;
            }
        }
        /* k_long runs a strip that is not the last LEAN (long_step_lean,
         * the entry from the record) when no group of the warp is in its
         * last strip, else with long_step: every other item here takes
         * each way, so both agree with the naive DP. */
        const bool lean = !sp.last && (st.items & 1u);
        /* The last strip below the first leaves where every lane is out
         * at the steps 32 j - 1 and 32 j, before any lane stored column
         * n - 2 (k_long's long_pass with lp = 32). */
        const bool may_leave = !lean && lp == 32u && s > 0 && sp.last;
        uint32_t split = sp.steps, left = UINT32_MAX;
        for (uint32_t g = 0; g < lp; ++g) split = std::min(split, td[g]);
        bool prev = false;
        for (uint32_t t = 0; t < sp.steps; ++t) {
            for (uint32_t g = 0; g < lp; ++g) {
                const uint32_t in = g == 0 ? long_in0(it, rin, sp.c0 + t) : hprev[g - 1];
                hnew[g] = lean ? long_step_lean<R>(L[g], peq.data(), g, g, it, sp, t, in, rout)
                               : long_step<R>(L[g], peq.data(), g, g, it, sp, t, in, rout, e);
                if (t == td[g]) long_dump<R>(L[g], g, sp, col.data(), cs);
            }
            hprev = hnew;
            const uint32_t tl = t & 31u;
            if (may_leave && t < split && (tl == 31u || (tl == 0u && t)) && t >= lp && sp.c0 + t < it.ncols) {
                bool out = true;
                for (uint32_t g = 0; g < lp; ++g) out = out && long_lane_out<R>(L[g], g, it, sp);
                if (tl == 31u) {
                    prev = out;
                } else if (prev && out) {
                    left = t;
                    break;
                }
            }
        }
        if (left != UINT32_MAX) {
            /* Entered again from the row above's record (k_long). */
            ++st.leaves;
            uint32_t first;
            int32_t first_d;
            strip_entry_seq(rin, sp.c0 + left + 1u, it.ncols, L[0].top, it.k, STRIP_NO_SLOPE, first, first_d);
            if (first != UINT32_MAX) {
                ++st.reentries;
                c0 = first;
                base = first_d;
                --s;
                continue;
            }
        } else {
            wend = sp.w0 + sp.nw;   /* in at column n - 2 */
        }
        if (!lean)
            for (uint32_t g = 0; g < lp; ++g) long_finish<R>(L[g], g, it, sp, e);
        if (sp.last) break;
        uint32_t first;
        int32_t first_d;
        if (lean) {
            strip_entry_seq(rout, sp.c0, it.ncols, long_entry_d0(it, sp), it.k, STRIP_NO_SLOPE, first, first_d);
        } else {
            const llane<R> &B = L[(sp.nw - 1u) / R];
            first = B.first;
            first_d = B.first_d;
        }
        if (first == UINT32_MAX) break;   /* no row of the strip below can be <= k */
        c0 = first;
        base = first_d;
    }
    if (ends) {
        ec->got = end_walk(col, cs, wend, lp, it, *ec);
        ec->done++;
    }
    if (e.n > e.cap) {
        fprintf(stderr, "more hits than text positions\n");
        exit(2);
    }
    out.insert(out.end(), buf.begin(), buf.begin() + (ptrdiff_t)e.n);
}

/* Every segment of the text (seglen columns, overlap m + k) and both text
 * strands: the hits of each strand, in order. */
static void run_long(const std::vector<uint8_t> &p, const std::vector<uint8_t> &t, int32_t k, int shape,
                     uint32_t seglen, int rc, std::vector<hit> &out, pass_stats &st, end_check *ec = NULL)
{
    uint32_t R, lp;
    long_shape(shape, &R, &lp);
    witem it;
    it.pat.p = p.data();
    it.pat.len = (uint32_t)p.size();
    it.pat.rc = 0;
    it.txt.p = t.data();
    it.txt.len = (uint32_t)t.size();
    it.txt.rc = rc;
    it.m = (uint32_t)p.size();
    it.n = (uint32_t)t.size();
    it.k = k;
    it.w32 = (it.m + 31u) / 32u;
    const uint64_t seg = std::max<uint64_t>((uint64_t)it.m + (uint64_t)k, seglen);
    const uint64_t nseg = (it.n + seg - 1) / seg;
    for (uint64_t s = 0; s < nseg; ++s) {
        it.win = make_window(s, seg, it.n, (uint64_t)it.m + (uint64_t)k);
        it.ncols = it.win.jend - it.win.j0;
        switch (R) {
        case 1: run_item<1>(it, lp, out, st, ec); break;
        case 2: run_item<2>(it, lp, out, st, ec); break;
        case 3: run_item<3>(it, lp, out, st, ec); break;
        case 4: run_item<4>(it, lp, out, st, ec); break;
        case 5: run_item<5>(it, lp, out, st, ec); break;
        default: run_item<6>(it, lp, out, st, ec); break;
        }
    }
}

static std::vector<uint8_t> revcomp(const std::vector<uint8_t> &t)
{
    std::vector<uint8_t> r(t.size());
    for (size_t i = 0; i < t.size(); ++i) r[i] = gpuasm_nt16_comp(t[t.size() - 1 - i]);
    return r;
}

static bool same_hits(const std::vector<hit> &a, const std::vector<hit> &b)
{
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].j != b[i].j || a[i].d != b[i].d) return false;
    return true;
}

/* A text of about n bases holding `copies` mutated copies of p; repetitive
 * texts repeat a short unit (with rare changes) around the copies. */
static std::vector<uint8_t> make_text(const std::vector<uint8_t> &p, size_t n, int copies, uint32_t rate,
                                      int repetitive, uint32_t iupac)
{
    std::vector<uint8_t> t;
    std::vector<uint8_t> unit;
    for (int i = 0; i < 7; ++i) unit.push_back(BASES[rnd32() & 3]);
    const size_t filler = n > (size_t)copies * p.size() ? (n - (size_t)copies * p.size()) / (size_t)(copies + 1) : 64;
    for (int c = 0; c <= copies; ++c) {
        for (size_t i = 0; i < filler; ++i)
            t.push_back(repetitive ? (rnd32() % 500 ? unit[i % unit.size()] : BASES[rnd32() & 3]) : rnd_code(iupac));
        if (c < copies && (c & 1)) {
            /* odd copies on the other strand */
            std::vector<uint8_t> x;
            mutate_into(x, p, rate);
            for (size_t i = x.size(); i-- > 0;) t.push_back(gpuasm_nt16_comp(x[i]));
        } else if (c < copies) {
            mutate_into(t, p, rate);
        }
    }
    return t;
}

static std::vector<uint8_t> make_pattern(uint32_t m, int repetitive, uint32_t iupac)
{
    std::vector<uint8_t> p;
    std::vector<uint8_t> unit;
    for (int i = 0; i < 11; ++i) unit.push_back(BASES[rnd32() & 3]);
    for (uint32_t i = 0; i < m; ++i)
        p.push_back(repetitive ? (rnd32() % 200 ? unit[i % unit.size()] : BASES[rnd32() & 3]) : rnd_code(iupac));
    return p;
}

/* One case: every listed shape and both strands against the oracle. */
/* Options of a text-end partial check: k_p from the item's k, as an
 * absolute k (floor(k p / m)) or as a rate (floor(k / m x p), whose
 * k_{m-1} may fall one short of k), omin, and the significance floor (none,
 * a third of the read, or all but k + 1 bases: search.h's
 * gpuasm_partial_kf); v picks the variant. */
static gpuasm_search_opt end_opt(uint32_t m, int32_t k, uint32_t v, uint32_t *omin)
{
    gpuasm_search_opt o;
    memset(&o, 0, sizeof o);
    o.alphabet = GPUASM_ALPHABET_NT16;
    o.pattern_side = GPUASM_PATTERN_READ;
    o.max_diffs = v & 1u ? -1 : k;
    o.error_rate = v & 1u ? (double)k / (double)m : 0.0;
    const uint32_t om[3] = { (m + 1u) / 2u, 1u + m / 50u, m - 1u };
    *omin = std::max<uint32_t>(1u, std::min<uint32_t>(m - 1u, om[(v >> 1) % 3u]));
    const uint32_t fl[3] = { 0u, m / 3u, m > (uint32_t)k + 2u ? m - 1u - (uint32_t)k : 0u };
    o.read_partial_floor = (int32_t)fl[(v >> 3) % 3u];
    return o;
}

/* Totals of the text-end checks and of the last strip's leaves (printed,
 * and tested to be non-trivial). */
static uint64_t end_runs, end_found, end_begin_dumps, all_leaves, all_reentries;

/* One run's text-end partial against partial.h's gpuasm_partial_best() on
 * the same pattern and text strand. */
static bool end_same(const std::vector<uint8_t> &p, const std::vector<uint8_t> &t, int rc, const end_check &ec,
                     gpuasm_partial *want)
{
    const gpuasm_seqview pv = { p.data(), (uint32_t)p.size(), 0 }, tv = { t.data(), (uint32_t)t.size(), rc };
    std::vector<uint64_t> ws(gpuasm_partial_ws_words((uint32_t)p.size()));
    *want = gpuasm_partial_best(ec.o, ec.omin, ec.sfloor, &pv, &tv, 0, 0, ws.data());
    end_runs++;
    end_found += want->plen != 0;
    end_begin_dumps += ec.begin_dumps;
    return ec.done == 1 && ec.got.plen == want->plen && (want->plen == 0 || ec.got.dist == want->dist);
}

/* One case on pattern p and text t: every listed shape and both strands
 * against the oracles (the naive DP's end hits; partial.h's text-end
 * partial). */
static void check_on(const char *what, const std::vector<uint8_t> &p, const std::vector<uint8_t> &t, int32_t k,
                     uint32_t seglen, bool all_shapes)
{
    const uint32_t m = (uint32_t)p.size();
    const std::vector<uint8_t> trc = revcomp(t);
    const std::vector<hit> want0 = naive_hits(p, t, k), want1 = naive_hits(p, trc, k);
    int shapes[LONG_SHAPES + 1];
    int ns = 0;
    shapes[ns++] = long_shape_of(m, k);
    if (all_shapes)
        for (int s = 0; s < LONG_SHAPES; ++s)
            if (s != shapes[0]) shapes[ns++] = s;
    for (int i = 0; i < ns; ++i) {
        uint32_t R, lp;
        long_shape(shapes[i], &R, &lp);
        for (int rc = 0; rc < 2; ++rc) {
            std::vector<hit> got;
            pass_stats st = { 0, 0, 0, 0, 0, 0 };
            end_check ec;
            const gpuasm_search_opt o = end_opt(m, k, rnd32(), &ec.omin);
            ec.sfloor = gpuasm_pair_partial_floor(&o, 1);
            ec.o = &o;
            ec.done = 0;
            ec.begin_dumps = 0;
            run_long(p, t, k, shapes[i], seglen, rc, got, st, &ec);
            all_leaves += st.leaves;
            all_reentries += st.reentries;
            const std::vector<hit> &want = rc ? want1 : want0;
            const bool ok = same_hits(got, want);
            tap(ok, "%s m=%u k=%d n=%zu strand %d, %ux%u strip%s: %zu hits, %llu passes of %llu items, "
                    "%llu leaves",
                   what, m, k, t.size(), rc, lp, R, i == 0 ? " (routed)" : "", want.size(),
                   (unsigned long long)st.passes, (unsigned long long)st.items, (unsigned long long)st.leaves);
            if (!ok) {
                diag("got %zu hits, want %zu", got.size(), want.size());
                for (size_t x = 0; x < got.size() && x < want.size(); ++x)
                    if (got[x].j != want[x].j || got[x].d != want[x].d) {
                        diag("first difference at %zu: got (%u, %d), want (%u, %d)", x, got[x].j,
                                 got[x].d, want[x].j, want[x].d);
                        break;
                    }
            }
            gpuasm_partial wp;
            const bool eok = end_same(p, t, rc, ec, &wp);
            tap(eok, "%s m=%u k=%d strand %d, %ux%u: text-end partial (omin %u, floor %d, %s) = partial.h's (%u, %d)",
                what, m, k, rc, lp, R, ec.omin, ec.sfloor, o.max_diffs >= 0 ? "absolute k" : "rate", wp.plen, wp.dist);
            if (!eok) diag("got (%u, %d) from %d walks", ec.got.plen, ec.got.dist, ec.done);
        }
    }
}

static void check_case(const char *what, uint32_t m, int32_t k, size_t n, int copies, uint32_t rate,
                       int repetitive, uint32_t iupac, uint32_t seglen, bool all_shapes)
{
    const std::vector<uint8_t> p = make_pattern(m, repetitive, iupac);
    check_on(what, p, make_text(p, n, copies, rate, repetitive, iupac), k, seglen, all_shapes);
}

/* A pattern hanging over both ends of the text: a mutated prefix of l3
 * bases at the text's end (strand 0's text end) and the reverse complement
 * of a mutated prefix of l5 bases at its start (strand 1's text end),
 * around `mid` unrelated bases. */
static void check_overhang(uint32_t m, int32_t k, uint32_t l3, uint32_t l5, size_t mid, uint32_t rate,
                           bool all_shapes)
{
    const std::vector<uint8_t> p = make_pattern(m, 0, 0);
    std::vector<uint8_t> head, t;
    mutate_into(head, std::vector<uint8_t>(p.begin(), p.begin() + l5), rate);
    t = revcomp(head);
    for (size_t i = 0; i < mid; ++i) t.push_back(BASES[rnd32() & 3]);
    mutate_into(t, std::vector<uint8_t>(p.begin(), p.begin() + l3), rate);
    char what[64];
    snprintf(what, sizeof what, "overhang %u/%u", l3, l5);
    check_on(what, p, t, k, 4096, all_shapes);
}

/* Unrelated random text: how many columns deeper strips ran (the cut-off's
 * saving), for shape `shape` (-1: the routed one).  Printed as a
 * diagnostic. */
static void band_report(uint32_t m, int32_t k, size_t n, int shape = -1)
{
    const std::vector<uint8_t> p = make_pattern(m, 0, 0);
    const std::vector<uint8_t> t = make_text(p, n, 0, 0, 0, 0);
    std::vector<hit> got;
    pass_stats st = { 0, 0, 0, 0, 0, 0 };
    if (shape < 0) shape = long_shape_of(m, k);
    uint32_t R, lp;
    long_shape(shape, &R, &lp);
    run_long(p, t, k, shape, 4096, 0, got, st);
    const uint32_t w32 = (m + 31) / 32, sw = R * lp;
    const uint32_t nstrips = (w32 + sw - 1) / sw;
    diag("unrelated text, m=%u k=%d: strip of %u rows (%ux%u), %u strips; columns of deeper strips "
             "%llu of %llu strip-0 columns; words computed per column %.1f of %u",
             m, k, 32 * sw, lp, R, nstrips, (unsigned long long)st.deep_cols,
             (unsigned long long)st.strip0_cols,
             st.strip0_cols ? (double)(st.strip0_cols * sw + st.deep_cols * sw) / (double)st.strip0_cols : 0.0,
             w32);
}

int main(void)
{
    rng_seed_from_env();

    /* Short patterns through the same code (every shape; GPUASM_CUDA_LONG=2
     * with FORCE_WARP routes every length here): word and strip edges. */
    const uint32_t edges[] = { 1, 2, 31, 32, 33, 64, 65, 255, 256, 257, 511, 513 };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; ++i) {
        const uint32_t m = edges[i];
        for (int32_t k = 0; k < (int32_t)m && k <= (int32_t)(m / 4) + 1; k += 1 + (int32_t)m / 8)
            check_case("edge", m, k, 600 + 3 * m, 2, m > 8 ? 1000u * (uint32_t)k / m / 2 : 0, (int)(i & 1),
                       i % 3 == 0 ? 50 : 0, 97 + m, true);
    }
    check_case("short", 100, 10, 3000, 3, 60, 0, 0, 700, true);
    check_case("P1-like", 1024, 102, 9000, 2, 70, 0, 0, 2000, true);
    check_case("P1-like, k=0", 1024, 0, 6000, 2, 0, 0, 0, 2000, false);
    /* Issue #11's lengths, k from 0 to 0.15 m. */
    const uint32_t ms[] = { 4097, 5000, 10000, 30000 };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; ++i) {
        const uint32_t m = ms[i];
        const bool big = m > 10000;
        const int32_t ks[] = { 0, (int32_t)(m / 20), (int32_t)(m / 10), (int32_t)(m * 3 / 20) };
        for (size_t j = 0; j < 4; ++j) {
            const int32_t k = ks[j];
            if (big && (j == 0 || j == 2)) continue;   /* the naive DP's time */
            const uint32_t rate = k ? (uint32_t)(1000.0 * k / m * 0.7) : 0;
            const size_t n = big ? 2 * ((size_t)m + (size_t)k) + 1000 : 2 * ((size_t)m + (size_t)k) + 2000;
            check_case("random", m, k, n, 2, rate, 0, j == 1 ? 20 : 0, 4096, !big && j == 2);
        }
        if (!big) {
            check_case("repetitive", m, (int32_t)(m / 10), 2 * (size_t)m + 3000, 1, 40, 1, 0, 4096, false);
            check_case("IUPAC and N", m, (int32_t)(m / 10), 2 * (size_t)m + 3000, 2, 50, 0, 80, 4096, false);
        }
    }
    /* Text-end partials: prefixes of the pattern over the text's ends,
     * around strip edges of the routed shape (R = 5: 5,120 rows; R = 4:
     * 4,096) and of the rows the cut-off enters, with 0 and 5% edits.  At
     * k = 0 an exact prefix of b + 1 bases (b a strip's bottom row) enters
     * the strip below at the text's last column (the stored column n - 2
     * is then the strip's start column), one of b + 2 at column n - 2 (its
     * first column is the one stored). */
    end_runs = end_found = 0;
    check_overhang(2000, 0, 1025, 513, 3000, 0, true);
    check_overhang(2000, 0, 1026, 514, 3000, 0, true);    /* entered at n - 2 */
    check_overhang(10000, 0, 5121, 6145, 6000, 0, true);
    check_overhang(1024, 102, 700, 300, 3000, 50, true);
    check_overhang(1024, 0, 1023, 512, 2000, 0, false);
    const uint32_t ls[] = { 600, 4090, 4097, 5119, 5121, 6000, 9999 };
    for (size_t i = 0; i < sizeof ls / sizeof ls[0]; ++i)
        check_overhang(10000, 2000, ls[i], ls[(i + 3) % 7], 12000, i & 1 ? 50 : 10, false);
    check_overhang(10000, 1000, 4097, 3073, 11000, 30, false);
    check_overhang(5000, 0, 4999, 2500, 6000, 0, false);
    /* A third of the runs ask for a significance floor (end_opt) that the
     * planted overhangs may not reach: a third of the runs with a
     * text-end partial still exercise the walk (35 of 84 on the H200,
     * 2026-11-28). */
    tap(end_found >= end_runs / 3 && end_begin_dumps > 0,
        "overhangs: %llu of %llu runs have a text-end partial, %llu strips entered at the last column",
        (unsigned long long)end_found, (unsigned long long)end_runs, (unsigned long long)end_begin_dumps);

    /* Two copies far apart in one segment: the last strip, entered at the
     * first, leaves after it and is entered again at the second. */
    for (int i = 0; i < 5; ++i) {
        /* i = 3, 4: k = 0 and 2 with exact copies, where entering one
         * column late loses the hit */
        const uint32_t m = i == 0 ? 5000u : i == 1 ? 10000u : i == 2 ? 6000u : 3000u;
        const int32_t k = i == 1 ? 2000 : i == 3 ? 0 : i == 4 ? 2 : (int32_t)(m / 10u);
        const std::vector<uint8_t> p = make_pattern(m, 0, i == 2 ? 20u : 0u);
        std::vector<uint8_t> t;
        for (uint32_t j = 0; j < 3000u; ++j) t.push_back(BASES[rnd32() & 3]);
        mutate_into(t, p, i >= 3 ? 0 : 40);
        for (uint32_t j = 0; j < 2u * m; ++j) t.push_back(BASES[rnd32() & 3]);
        mutate_into(t, p, i >= 3 ? 0 : 60);
        for (uint32_t j = 0; j < 2000u; ++j) t.push_back(BASES[rnd32() & 3]);
        check_on("two copies, one segment", p, t, k, 1u << 20, i == 0 || i >= 3);
    }
    tap(all_leaves > 0 && all_reentries > 0, "the last strip left %llu times and was entered again %llu times",
        (unsigned long long)all_leaves, (unsigned long long)all_reentries);

    band_report(1024, 102, 100000);
    band_report(10000, 1000, 60000);
    /* tests/bench/long's reads at -e 0.2: the routed strip of R = 5 and
     * R = 4's two strips, the widest before. */
    band_report(10000, 2000, 60000);
    band_report(10000, 2000, 60000, 5);
    return tap_done();
}
