/* SPDX-License-Identifier: MIT */
/* chance.h -- how many occurrences a run expects by chance: the significance
 * floor of partial occurrences and the XE:f tag of every record (issue #26).
 *
 * SCORE.  An occurrence with a aligned pattern bases and search distance d
 * has score S = a - 2d (a = m for a whole occurrence, the aligned length p
 * for a partial one): one point per aligned pattern base, two off per
 * difference, as cutadapt scores (match +1, mismatch -1; here an indel
 * costs the same as a mismatch).  It is SAM's AS:i, it ranks a read's
 * records (align/report.h), and it is what "at least as good" means below.
 *
 * CHANCE MODEL.  The random side of a comparison (the read) has independent
 * bases, each A, C, G or T with probability 1/4; the fixed side (the
 * target) is as given, an IUPAC code of c bases matching a random base with
 * probability c/4.  A SOURCE is one place where an occurrence can appear by
 * chance: one text position where a whole occurrence may end, or one
 * (target, strand, text end) where a partial one may run off.
 *
 * ONE SOURCE.  Let X be q pattern bases aligned with one end anchored (the
 * pattern's end at a given text position, or a prefix at the text's last
 * base) and the other end free.  The probability that some alignment of X
 * with at most d differences exists is at most
 *     pi(q, d) = min(1, rho(q) x N(q, d))
 * where rho(q) = prod over the q fixed bases of c/4 (4^-q for A/C/G/T) and
 * N(q, d) counts the edit transcripts that could make it, weighted by what
 * they leave to chance:
 *     edit:     N(q, d) = sum over s + t + i <= d of
 *                         C(q, s) 3^s x C(q - s, t) 4^t x C(q - 1 + i, i)
 *               (s substitutions, each a base that must differ: 3/4 instead
 *               of 1/4; t pattern bases deleted, each one base fewer to
 *               match: x4; i text bases inserted in the q gaps that are not
 *               the free end, which cost nothing to chance)
 *     hamming:  N(q, d) = sum over s <= d of C(q, s) 3^s   (exact)
 * This is the union bound over transcripts: an upper bound for every
 * pattern, tight for d = 0 (pi = rho exactly), and within a small factor
 * above (for d = 1 the distinct neighbours of a random pattern number about
 * 6.75q + 1 against the bound's 8q + 1; tests/c/test_chance.c measures the
 * bound against exhaustive enumeration and tests/bats/chance.bats against
 * random reads).  IUPAC codes weaken substitutions and deletions (3 and 4
 * are the largest factors a code can give), so the bound holds for them.
 *
 * EXPECTATION.  E(S) = sum over sources of the probability of a chance
 * occurrence with score >= S there:
 *     partial:  sum over (target, strand, end taken) of
 *               sum over p >= max(omin, S), p < m of pi(p, d_p(S)),
 *               d_p(S) = min(k_p, floor((p - S) / 2))   (k_p of search.h)
 *     whole:    sum over targets that are the pattern, strands and text
 *               end positions (n - m + 1 + d of them) of pi(m, d(S)),
 *               d(S) = min(k, floor((m - S) / 2))
 * per read: the expected number of chance occurrences at least as good,
 * over everything the run searches.  For targets as patterns every target
 * is counted as a source (a target longer than the reads never is the
 * pattern: counting it makes E larger, never smaller), with the rho of its
 * own prefix (an end where the pattern runs off the text's end) or suffix
 * (the text's start).  Partial sources are counted per distinct sequence:
 * targets whose first (last) p bases are the same, with the same k_p, are
 * one source for aligned length p (a read end that matches one of them
 * matches all; adapter files repeat prefixes, e.g. 48 indexed primers that
 * share their first 20 bases), so E bounds the chance of a read having
 * such an occurrence, not the number of records it makes.  For reads as patterns the read is the random side
 * and the fixed side is the target's end; its length is not known in
 * advance, so every p >= S counts and, with an absolute -k, k_p = k.
 * Aligned lengths over GPUASM_CHANCE_QMAX bases are left out: at e <= 0.25
 * their terms are below 4^-100 of rho(q) 4^q.
 *
 * FLOOR.  With a floor, a partial occurrence is reported only when its
 * score S has E_partial(S) <= alpha (--max-chance): the floor is the least
 * such S (search.h: gpuasm_search_opt.partial_floor).  Every reported chance
 * partial occurrence then has score >= the floor, so the expected number of
 * chance partial records per read is at most alpha.  Whole occurrences are
 * reported as -k asks; their E is in XE:f, and a run where a random read
 * expects more than alpha of them is told so on stderr.
 */
#ifndef GPUASM_CHANCE_H
#define GPUASM_CHANCE_H

#include <stdint.h>
#include "search/search.h"

#define GPUASM_CHANCE_QMAX 512

typedef struct gpuasm_chance gpuasm_chance;

/* The chance model of a run: targets (nt16 codes, file order) searched with
 * opt (k or e, mode, strands, partial ends, omin; its floors are ignored:
 * the model is what sets them).  alpha > 0: the floors' bound.  targets
 * must outlive the model (gpuasm_chance_set_floors reads them).  Returns 0
 * and *out, or -1 out of memory.  The byte alphabet has no model: *out is
 * then a model whose every E is NaN and whose floors are 0 (none). */
int gpuasm_chance_build(gpuasm_chance **out, const gpuasm_seqset *targets,
                        const gpuasm_search_opt *opt, double alpha);
void gpuasm_chance_free(gpuasm_chance *c);

/* The floor of partial occurrences of targets as patterns (read_is_pattern
 * 0) or reads as patterns (1): the least score S >= 1 with
 * E_partial(S) <= alpha; 0 when the model does not apply. */
int32_t gpuasm_chance_floor(const gpuasm_chance *c, int read_is_pattern);

/* E_partial(S) of the role (see above); NaN without a model. */
double gpuasm_chance_partial(const gpuasm_chance *c, int read_is_pattern, int64_t score);

/* E_whole(S) for a read of read_len bases: the whole occurrences of the
 * role at least as good as score S that a random read of that length
 * expects; NaN without a model. */
double gpuasm_chance_whole(const gpuasm_chance *c, int read_is_pattern, int64_t score,
                           uint64_t read_len);

/* The chance hits target t expects in one random read of read_len bases:
 * its whole occurrences with at most k differences plus its partial ones
 * at or above the floor in effect (opt.partial_floor / read_partial_floor
 * as gpuasm_chance_set_floors left them), in the role the pair rule gives
 * (search.h).  For --report's reads_expected.  NaN without a model. */
double gpuasm_chance_target(const gpuasm_chance *c, uint32_t t, uint64_t read_len);

/* Record in the model the floors a run uses (0: none), so that
 * gpuasm_chance_target counts what is reported (gpuasm_chance_build sets
 * the floors it found).  0, or -1 out of memory. */
int gpuasm_chance_set_floors(gpuasm_chance *c, int32_t target_floor, int32_t read_floor);

/* pi(q, d) of one source with rho = 1 (the transcript count N(q, d) of the
 * mode; log of it: natural log).  For tests and the README's table. */
double gpuasm_chance_log_transcripts(int hamming, uint32_t q, int32_t d);

#endif
