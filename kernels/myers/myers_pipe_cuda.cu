/* SPDX-License-Identifier: MIT */
/* myers_pipe_cuda.cu -- the LONG path's strips on many warps (issue #28,
 * "a single huge pair uses the whole machine"): k_long_pipe, the GPU twin
 * of kernels/bands.c's wavefront over threads.
 *
 * k_long (myers_long_cuda.cu) runs an item's strips one after the other on
 * one group of lanes.  Where a chunk has few LONG items that is the whole
 * GPU waiting on a few chains of dependent steps: a 1 Mb read against its
 * 1 Mb target is two items (one a strand), and each ran its 163 strips of
 * 6,144 rows over 1 M columns on one warp (issue #28: 29.3 s on an H100).
 * Here each strip of an item is a task of its own, on its own warp, and
 * follows the strip above through global memory, as bands.c's threads
 * follow the band above:
 *
 *   - one RECORD an item (a byte a column, myers_long_core.cuh's io of the
 *     bottom row), rewritten in place: strip s reads column c (the strip
 *     above's bottom row) a block of lp columns before its bottom lane
 *     writes its own there, and strip s + 1 reads it only after strip s
 *     said it was final;
 *   - per strip: info (its entry column and D above it there, or "never
 *     entered"), done (columns < done of its record are final), fin (its
 *     stores are all visible);
 *   - strip s's warp finds its own entry from the record of strip s - 1
 *     (strip_entry_warp_by, the same rule as k_long's strip_entry_warp),
 *     waiting for done[s - 1] as it reads; its pass waits at every block
 *     of lp columns it loads, and its bottom lane publishes done every
 *     PIPE_PUBLISH columns (a fence, then the word);
 *   - the strip with the pattern's last row reports the hits, as in
 *     k_long (it may leave and enter again); the text-end partial's walk
 *     runs on the warp of the last strip entered (or of the first strip
 *     never entered) once every strip above has set fin.
 *
 * Deadlock-free on any number of resident warps: tasks leave the queue in
 * order (item by item, strip 0 first), and a task waits only on tasks of
 * its item with a smaller strip, which left the queue earlier, so they run
 * on warps that hold them, or are finished; the first strip waits on
 * nothing.
 *
 * The same bytes as k_long: every strip's cells are computed from the same
 * inputs by the same steps (long_pass with a loader and a hook that only
 * wait and publish), and the strips' size does not change the hits
 * (myers_long_core.cuh's cut-off argument holds for any strip size, as
 * bands.h says of the CPU's bands): PIPE_R words a lane, 32 lanes, 1,024
 * rows a strip by default, so a 1 Mb pattern is ~1,000 strips on as many
 * warps.  The strips trail each other by at least the strip's rows on the
 * diagonal anyway (strip s is entered no earlier than column 1,024 s - k),
 * so the publication's lag of PIPE_PUBLISH columns adds nothing there.
 */
#include <cuda_runtime.h>

#include <stdint.h>

#include "kernels/myers/myers_launch.cuh"
#include "kernels/myers/myers_long_pass.cuh"
#include "kernels/pipe_sync.cuh"

namespace {

template <int R>
__global__ void __launch_bounds__(THREADS)
k_long_pipe(myers::pipe_args A, dev_out out)
{
    __shared__ uint32_t peq_all[WARPS][16 * R * 32];
    const pair_launch &L = A.L;
    const uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    uint32_t *peq_w = peq_all[warp];
    const uint32_t lp = 32u, g = lane, srows = 32u * (uint32_t)R;   /* srows: words a strip */
    const uint64_t total = L.off[L.np], tasks = total * A.smax;
    for (;;) {
        unsigned long long q = 0;
        if (lane == 0) q = atomicAdd(A.queue, 1ull);
        q = __shfl_sync(0xffffffffu, q, 0);
        if (q >= tasks) break;
        const uint64_t ii = q / A.smax;          /* the item's place in the queue's order */
        const uint32_t s = (uint32_t)(q % A.smax);
        pitem p;
        group_item(L, A.order ? (uint64_t)A.order[ii] : ii, total, p);
        if (p.it.ncols == 0 || s >= (p.it.w32 + srows - 1u) / srows) continue;
        unsigned long long *info = A.info + ii * A.smax;
        uint32_t *done = A.done + ii * A.smax, *fin = A.fin + ii * A.smax;
        uint8_t *rec = A.rec + ii * (uint64_t)A.rec_cols;
        uint32_t *col = A.col ? A.col + ii * 2 * (uint64_t)A.cs : NULL;
        emitter<dev_out> e;
        e.out = &out;
        e.r = p.r;
        e.t = p.t;
        e.s = p.strand;
        const uint32_t eomin = col && p.it.win.s1 == p.it.n
                                   ? gcore::long_end_omin(L.sp.kn, L.sp.v.opt, p.rip, p.it.m, p.it.k, p.it.n, p.strand)
                                   : 0u;
        const auto rd = [&](uint32_t c) { return (uint32_t)__ldcg(rec + c); };
        uint32_t seen = 0;   /* done[s - 1] as last seen */
        const auto gate = [&](uint32_t need) { pipe_wait(done + s - 1u, need, seen); };
        /* The entry: strip 0 at column 0 from row 0; strip s from the
         * record of strip s - 1, as k_long's strip_entry_warp finds it. */
        uint32_t c0;
        int32_t base;
        bool above;
        const bool entered = pipe_enter(info, s, &c0, &base, &above,
                                        [&](uint32_t c0a, int32_t basea, uint32_t &first, int32_t &first_d) {
            const gcore::lstrip sa = gcore::long_strip(p.it, R, lp, s - 1u, c0a, basea);
            gcore::strip_entry_warp_by(rd, gate, sa.c0, p.it.ncols, gcore::long_entry_d0(p.it, sa), p.it.k,
                                       gcore::STRIP_NO_SLOPE, 1, g, 0, lp, first, first_d);
        });
        pipe_publish_info(info + s, entered, c0, base, lane);
        uint32_t wend = s * srows;   /* words of the strips in at column n - 2 */
        bool walk = eomin && above && !entered;   /* the first strip never entered walks */
        if (entered) {
            const uint8_t *rin = s ? rec : NULL;
            for (;;) {
                const gcore::lstrip sp = gcore::long_strip(p.it, R, lp, s, c0, base);
                const uint32_t steps = sp.steps;
                __syncwarp();   /* the previous pass's Peq reads are done */
                gcore::long_build_peq<R>(peq_w, lane, g, p.it, sp);
                gcore::llane<R> st;
                gcore::long_begin<R>(st, g, p.it, sp);
                __syncwarp();
                const auto load = [&](uint32_t x) {
                    const uint32_t c = sp.c0 + x;
                    if (!steps || c >= p.it.ncols) return 0u;
                    return rin ? (uint32_t)__ldcg(rin + c) : gcore::io_pack(0, p.it.txt.at(p.it.win.j0 + c));
                };
                const uint32_t gb = (sp.nw - 1u) / (uint32_t)R;
                uint32_t published = 0;
                const auto hook = [&](uint32_t t_done, uint32_t t_next) {
                    if (!sp.last && g == gb && t_done > gb) {
                        const uint32_t c = sp.c0 + t_done - gb;   /* columns < c of the record final */
                        if (c >= published + PIPE_PUBLISH) {
                            __threadfence();
                            *(volatile uint32_t *)(done + s) = c;
                            published = c;
                        }
                    }
                    if (rin) gate(min(sp.c0 + t_next + lp, p.it.ncols));
                };
                const auto dump = [&]() { gcore::long_dump<R>(st, g, sp, col, A.cs); };
                if (!sp.last) {
                    long_pass<R, true>(st, peq_w, lane, g, lp, p.it, sp, steps, load, hook, PIPE_CHUNK, rec, e,
                                       eomin != 0, dump, false);
                    if (g == gb) {
                        __threadfence();
                        *(volatile uint32_t *)(done + s) = p.it.ncols;
                    }
                    break;
                }
                const uint32_t left = long_pass<R, false>(st, peq_w, lane, g, lp, p.it, sp, steps, load, hook,
                                                          PIPE_CHUNK, NULL, e, eomin != 0, dump, s > 0);
                if (left != UINT32_MAX) {
                    /* Entered again at 1 + the first f >= c with D[b][f]
                     * <= k, c = c0 + left (k_long's rule). */
                    const int32_t dc = __shfl_sync(0xffffffffu, st.top, 0);
                    uint32_t first;
                    int32_t first_d;
                    gcore::strip_entry_warp_by(rd, gate, sp.c0 + left + 1u, p.it.ncols, dc, p.it.k,
                                               gcore::STRIP_NO_SLOPE, 1, g, 0, lp, first, first_d);
                    if (first != UINT32_MAX) {
                        c0 = first;
                        base = first_d;
                        continue;
                    }
                } else {
                    wend = sp.w0 + sp.nw;
                }
                gcore::long_finish<R>(st, g, p.it, sp, e);
                walk = eomin != 0;
                break;
            }
        }
        /* Every lane's stores (record, column n - 2) visible, then fin. */
        __threadfence();
        __syncwarp();
        if (lane == 0) *(volatile uint32_t *)(fin + s) = 1u;
        if (walk) {
            pipe_wait_fin(fin, s, lane);
            long_end_walk(col, A.cs, wend, eomin, p, g, lp, L.sp.v.opt, out);
        }
        __syncwarp();
    }
}

template <int R>
uint64_t pipe_resident_r(const gpuasm_cuda_batch &b)
{
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_long_pipe<R>, THREADS, 0) != cudaSuccess ||
        per_sm < 1)
        per_sm = 1;
    return (uint64_t)per_sm * (uint64_t)b.sm_count;
}

}  /* namespace */

namespace myers {

uint64_t pipe_resident(uint32_t R, const gpuasm_cuda_batch &b)
{
    return R == 1 ? pipe_resident_r<1>(b) : pipe_resident_r<2>(b);
}

uint64_t pipe_bytes(uint64_t items, uint32_t smax, uint64_t rec_cols, uint64_t cs)
{
    /* info (8), done (4), fin (4) a strip; the records; the columns */
    const uint64_t sync = items * smax * 16u, recs = (items * rec_cols + 15u) & ~(uint64_t)15u;
    return sync + recs + items * 2 * cs * sizeof(uint32_t);
}

int launch_pipe(pipe_args A, uint32_t R, uint64_t items, void *region, unsigned blocks, cudaStream_t st,
                dev_out out, gpuasm_err *err)
{
    /* The region: info, done, fin (zeroed: nothing known), the records,
     * the columns. */
    const uint64_t nsync = items * A.smax;
    A.info = (unsigned long long *)region;
    A.done = (uint32_t *)(A.info + nsync);
    A.fin = A.done + nsync;
    A.rec = (uint8_t *)(A.fin + nsync);
    A.col = A.cs ? (uint32_t *)(A.rec + ((items * (uint64_t)A.rec_cols + 15u) & ~(uint64_t)15u)) : NULL;
    KIT_CK(cudaMemsetAsync(region, 0, nsync * 16u, st));
    KIT_CLEAR_ERR();
    if (R == 1)
        k_long_pipe<1><<<blocks, THREADS, 0, st>>>(A, out);
    else
        k_long_pipe<2><<<blocks, THREADS, 0, st>>>(A, out);
    KIT_CK_LAUNCH("k_long_pipe");
    return 0;
}

}  /* namespace myers */
