/* SPDX-License-Identifier: MIT */
/* cuda_backend.cu -- the CUDA backend (backend.h): one lane = one device,
 * one stream, and everything a scan needs around the kernel.
 *
 * A lane owns: the device copies of the targets (uploaded once per
 * set_targets) and of each batch of reads (grown, never shrunk), the hit
 * buffer with its counter, grow-only scratch slots the kernels share, and
 * each kernel's per-lane state (registry.h's free_state frees it).  A scan:
 *   1. refuses what no backend may take (a sequence past 2^31 bases, a
 *      pattern longer than the kernel's row allows: the CPU twins' refusal,
 *      with the same read and target in err);
 *   2. copies the reads to the device (pinned source memory when the
 *      pipeline used host_alloc: asynchronous);
 *   3. runs the kernel's launcher (cuda_kit.cuh) and, when partial
 *      occurrences are asked for, the ends pass (partial_cuda.cu), timed
 *      by two CUDA events (kernel_s), reads the hit counter back, and if the counter passed
 *      the buffer's capacity grows the buffer and runs the launcher again
 *      (the hit set is deterministic: nothing is ever dropped);
 *   4. copies the hits back, keeps strand 0 only when the read is searched
 *      as sequenced only (kernels that search both strands anyway), and
 *      sorts them (gpuasm_hits_sort).
 * No device allocation once warm.  Not thread-safe: one host thread at a
 * time per lane; lanes (also on one device) run side by side.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <new>
#include <vector>

#include "engine/backend.h"
#include "util/clock.h"
#include "walk/cpu_scan.h"
#include "kernels/cuda_kit.cuh"
#include "engine/plan_upload.cuh"
#include "walk/filter_plan.h"
#include "walk/ends_plan.h"
#include "walk/pieces_cuda.cuh"
#include "kernels/ends/ends_word.h"
#include "engine/keep_cuda.cuh"

/* Sequences of 2^31 bases or more are refused (scores and positions are
 * 32-bit on the device; end hits are 32-bit anyway). */
#define CUDA_MAX_LEN ((uint64_t)INT32_MAX)

enum { DEFAULT_HIT_CAP = 1 << 20 };
/* Under the keep rule, end hits a scan may return per hit of its budget
 * before the rule runs (a period-8 pair keeps ~1 in 25). */
enum { KEEP_RAW = 64 };
/* Filtered targets from which the ends pass runs over the host's list
 * (GPUASM_CUDA_ENDS_PLAN=1; ends_listed). */
enum { ENDS_LIST_MIN_TARGETS = 1000 };

namespace {

struct cuda_lane {
    int device, sm_count;
    size_t smem_optin;
    char desc[320];
    cudaStream_t stream;
    cudaEvent_t ev0, ev1;
    /* The ends pass runs on a stream of its own beside the search kernels
     * (it needs only the batch's uploads: ev_up), joined back by ev_ends_end;
     * ev_ends .. ev_ends_end is its span (gpuasm_scan_stats.ends_kernel_s). */
    cudaStream_t ends_stream;
    cudaEvent_t ev_up, ev_ends, ev_ends_end;
    const gpuasm_settings *settings;
    /* targets */
    const gpuasm_seqset *targets;   /* host view, kept by the caller */
    uint64_t targets_version;
    const gpuasm_sigset *sig_targets; /* signal mode: the references (host, kept by the caller) */
    uint64_t sig_version;
    uint8_t *d_tcode;    size_t tcode_cap;
    uint64_t *d_toff;    size_t toff_cap;
    /* the batch */
    uint8_t *d_rcode;    size_t rcode_cap;
    uint64_t *d_roff;    size_t roff_cap;
    /* hits */
    gpuasm_endhit *d_hit; size_t hit_cap;    /* bytes */
    unsigned long long *d_count;             /* [1] hit counter */
    unsigned long long *h_count;             /* pinned [1] */
    kit_scratch scratch[KIT_SCRATCH_SLOTS];       /* the search kernels' (cuda_kit.cuh) */
    kit_scratch ends_scratch[KIT_SCRATCH_SLOTS];  /* the ends pass's */
    kit_scratch keep_scratch[KIT_SCRATCH_SLOTS];  /* the keep rule's (keep_cuda.cuh) */
    void *state[GPUASM_N_KERNELS];
    void *ballast;       /* GPUASM_CUDA_MEM_LIMIT: device memory held back, or NULL */
    /* --filter (filter_plan.h): the targets' filters (built on the host
     * by the first planned scan), the batch's windows and their copies */
    gpuasm_cpu_prep *prep;
    int n_threads;       /* host threads building prep's index and planning (-@) */
    gpuasm_plan_upload up;   /* plans in pinned memory and their copies (plan_upload.cuh) */
    gpuasm_pieces_cuda pc;   /* the pieces filter's windows planned on the GPU (pieces_cuda.cuh) */
    char filter_desc[300];
    /* the ends pass over the ends filter's items (walk/ends_plan.h): the
     * filter (built on the host by the first scan that uses it, for the
     * targets and options in ef_opt), the batch's items and their copy */
    gpuasm_efilter ef;
    int ef_built;
    const gpuasm_seqset *ef_targets;
    uint64_t ef_version;
    gpuasm_search_opt ef_opt;
    gpuasm_ends_plan eplan;
    int eplan_reads;     /* this batch's items: reads as the pattern (prep's ends index) */
    uint64_t *d_eitem;
    size_t eitem_cap;    /* bytes */
    /* the targets' ends_word tables on the device (kernels/ends/ends_word.h), for
     * the options in ew_opt: d_ew[d_ew_slot[t]] of n_ew slots, slot -1 for none */
    ends_word *d_ew;
    int32_t *d_ew_slot;
    uint32_t n_ew;
    int ew_built;
    const gpuasm_seqset *ew_targets;
    uint64_t ew_version;
    gpuasm_search_opt ew_opt;
};

#define CK KIT_CK

/* More end hits than out may hold (search.h): GPUASM_ERR_HIT_LIMIT. */
int hit_limit(const gpuasm_hits *out, unsigned long long nhit, gpuasm_err *err)
{
    gpuasm_err_set(err, GPUASM_ERR_HIT_LIMIT, "more than %zu end hits", out->limit);
    return gpuasm_err_about(err, GPUASM_NO_INDEX, GPUASM_NO_INDEX, (uint64_t)nhit, (uint64_t)out->limit);
}

int device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();   /* clear it: no GPU is not an error */
        return 0;
    }
    return n;
}

void lane_close(void *self)
{
    cuda_lane *g = (cuda_lane *)self;
    if (!g) return;
    /* Best effort: errors while freeing have nowhere to go. */
    (void)cudaSetDevice(g->device);
    if (g->stream) (void)cudaStreamSynchronize(g->stream);
    for (int k = 0; k < GPUASM_N_KERNELS; ++k) {
        const gpuasm_kernel_desc *d = gpuasm_kernel_get(k);
        if (g->state[k] && d->cuda.free_state) d->cuda.free_state(g->state[k]);
        if (g->state[k] && d->signal && d->signal->cuda.free_state)
            d->signal->cuda.free_state(g->state[k]);
    }
    gpuasm_cpu_prep_free(g->prep);
    gpuasm_plan_upload_close(&g->up);
    gpuasm_pieces_cuda_close(&g->pc);
    if (g->ef_built) gpuasm_efilter_free(&g->ef);
    gpuasm_ends_plan_free(&g->eplan);
    if (g->d_eitem) (void)cudaFree(g->d_eitem);
    if (g->d_ew) (void)cudaFree(g->d_ew);
    if (g->d_ew_slot) (void)cudaFree(g->d_ew_slot);
    void *dev[] = { g->d_tcode, g->d_toff, g->d_rcode, g->d_roff, g->d_hit, g->d_count, g->ballast };
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) (void)cudaFree(dev[i]);
    for (int i = 0; i < KIT_SCRATCH_SLOTS; i++) {
        if (g->scratch[i].p) (void)cudaFree(g->scratch[i].p);
        if (g->ends_scratch[i].p) (void)cudaFree(g->ends_scratch[i].p);
        if (g->keep_scratch[i].p) (void)cudaFree(g->keep_scratch[i].p);
    }
    if (g->h_count) (void)cudaFreeHost(g->h_count);
    for (cudaEvent_t ev : { g->ev0, g->ev1, g->ev_up, g->ev_ends, g->ev_ends_end })
        if (ev) (void)cudaEventDestroy(ev);
    if (g->ends_stream) (void)cudaStreamDestroy(g->ends_stream);
    if (g->stream) (void)cudaStreamDestroy(g->stream);
    (void)cudaGetLastError();
    delete g;
}

int lane_open_impl(cuda_lane *g, gpuasm_err *err)
{
    cudaDeviceProp prop;
    int optin = 0;
    CK(cudaSetDevice(g->device));
    CK(cudaGetDeviceProperties(&prop, g->device));
    CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, g->device));
    g->smem_optin = (size_t)optin;
    g->sm_count = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    snprintf(g->desc, sizeof g->desc, "%s (sm_%d%d, %d SMs, %.0f GiB)", prop.name, prop.major,
             prop.minor, prop.multiProcessorCount, (double)prop.totalGlobalMem / (double)(1ULL << 30));
    CK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&g->ev0));
    CK(cudaEventCreate(&g->ev1));
    CK(cudaStreamCreateWithFlags(&g->ends_stream, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&g->ev_up, cudaEventDisableTiming));
    CK(cudaEventCreate(&g->ev_ends));
    CK(cudaEventCreate(&g->ev_ends_end));
    int rc = gpuasm_plan_upload_open(&g->up, (int)gpuasm_knob(g->settings->cuda_plan_pinned, 1), err);
    if (rc < 0) return rc;
    /* GPUASM_CUDA_MEM_LIMIT=N (settings.h): hold back all but N bytes of
     * the free device memory, so that a test runs as on a small GPU and
     * meets cudaMalloc's "out of memory" (GPUASM_ERR_NOMEM, which the
     * pipeline answers by scanning fewer reads at a time). */
    if (g->settings->cuda_mem_limit >= 0) {
        size_t free_b = 0, total_b = 0;
        CK(cudaMemGetInfo(&free_b, &total_b));
        const size_t keep = (size_t)g->settings->cuda_mem_limit;
        if (free_b > keep) CK(cudaMalloc(&g->ballast, free_b - keep));
    }
    CK(cudaMalloc((void **)&g->d_count, sizeof(unsigned long long)));
    CK(cudaHostAlloc((void **)&g->h_count, sizeof(unsigned long long), cudaHostAllocDefault));
    const uint64_t hit_cap = (uint64_t)gpuasm_knob(g->settings->cuda_hit_cap, DEFAULT_HIT_CAP);
    return kit_grow_buf(g->stream, (void **)&g->d_hit, &g->hit_cap,
                        (size_t)hit_cap * sizeof(gpuasm_endhit), err);
}

int lane_open(const gpuasm_backend_cfg *cfg, void **self, gpuasm_err *err)
{
    *self = NULL;
    const int n = device_count();
    if (cfg->device < 0 || cfg->device >= n)
        return gpuasm_err_set(err, GPUASM_ERR_NO_DEVICE, "no CUDA device %d (%d device%s found)",
                              cfg->device, n, n == 1 ? "" : "s");
    cuda_lane *g = new (std::nothrow) cuda_lane();
    if (!g) return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
    g->device = cfg->device;
    g->settings = cfg->settings;
    g->n_threads = cfg->n_threads < 1 ? 1 : cfg->n_threads;
    int rc = lane_open_impl(g, err);
    if (rc < 0) {
        /* Device memory short already at open: the device is unusable (a
         * CUDA error, so that --device auto falls back to the CPU); out of
         * memory later, in a scan, asks for smaller rounds instead. */
        if (rc == GPUASM_ERR_NOMEM) rc = err->status = GPUASM_ERR_CUDA;
        lane_close(g);
        return rc;
    }
    *self = g;
    return 0;
}

const char *lane_describe(const void *self) { return ((const cuda_lane *)self)->desc; }

const char *lane_filter_desc(const void *self)
{
    const cuda_lane *g = (const cuda_lane *)self;
    return g->filter_desc[0] ? g->filter_desc : NULL;
}

int lane_set_targets(void *self, const gpuasm_seqset *targets, gpuasm_err *err)
{
    cuda_lane *g = (cuda_lane *)self;
    CK(cudaSetDevice(g->device));
    for (uint32_t t = 0; t < targets->n; t++) {
        const uint64_t len = targets->off[t + 1] - targets->off[t];
        if (len > CUDA_MAX_LEN) {
            gpuasm_err_set(err, GPUASM_ERR_SEQ_TOO_LONG, "target %u is longer than %llu bases", t + 1,
                           (unsigned long long)CUDA_MAX_LEN);
            return gpuasm_err_about(err, GPUASM_NO_INDEX, t, len, CUDA_MAX_LEN);
        }
    }
    g->targets = NULL;
    const size_t nbytes = (size_t)targets->off[targets->n];
    const size_t obytes = ((size_t)targets->n + 1) * sizeof(uint64_t);
    int rc;
    if ((rc = kit_grow_buf(g->stream, (void **)&g->d_tcode, &g->tcode_cap, nbytes, err)) < 0) return rc;
    if ((rc = kit_grow_buf(g->stream, (void **)&g->d_toff, &g->toff_cap, obytes, err)) < 0) return rc;
    if (nbytes) CK(cudaMemcpyAsync(g->d_tcode, targets->code, nbytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaMemcpyAsync(g->d_toff, targets->off, obytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaStreamSynchronize(g->stream));
    g->targets = targets;
    g->targets_version++;
    gpuasm_cpu_prep_free(g->prep);   /* built again by the next planned scan */
    g->prep = NULL;
    g->pc.prep = NULL;               /* its tables uploaded again */
    return 0;
}

/* Reads planned at a time: PLAN_CHUNK_PER_THREAD per planning thread (a
 * thread's start is then a small part of its share), at least
 * PLAN_CHUNK_MIN and at most PLAN_CHUNK_MAX, so that the windows of a chunk
 * stay bounded (a read strand the filter cannot cut takes up to 256
 * windows of 32 bytes a target; one the index cuts, a few: about 6 a read
 * at e = 0.1 against 20 Mb). */
enum { PLAN_CHUNK_PER_THREAD = 256, PLAN_CHUNK_MIN = 1024, PLAN_CHUNK_MAX = 8192 };

/* --filter on the GPU (filter_plan.h): does the batch go through the
 * planned windows (*planned = 1; the filters built for these targets) or
 * the kernel's own launcher (*planned = 0: another kernel, --filter off,
 * long patterns, or no filter built)?  The index's build time (when built
 * here) goes to st.  0 or a status. */
int plan_batch(cuda_lane *g, const gpuasm_seqset *reads, const gpuasm_search_opt *opt, int *planned,
               gpuasm_scan_stats *st, gpuasm_err *err)
{
    *planned = 0;
    const char *name = gpuasm_filter_name(opt->filter);
    if (!gpuasm_plan_applies(reads, g->targets, opt)) {
        /* the kernels filtered on the GPU, from the table (GPUASM_CAP_GPU_FILTER) */
        char names[128];
        const int n = gpuasm_kernel_names(GPUASM_CAP_GPU_FILTER, 1, names, sizeof names);
        char why[200];
        if (opt->filter == GPUASM_FILTER_OFF)
            snprintf(why, sizeof why, "--filter off");
        else if (!(gpuasm_kernel_get(opt->kernel)->caps & GPUASM_CAP_GPU_FILTER) ||
                 opt->alphabet != GPUASM_ALPHABET_NT16)
            snprintf(why, sizeof why, "only the %s kernel%s on nt16 %s filtered on the GPU", names,
                     n == 1 ? "" : "s", n == 1 ? "is" : "are");
        else
            snprintf(why, sizeof why, "patterns longer than 256 bases");
        snprintf(g->filter_desc, sizeof g->filter_desc, "%s: exhaustive on the GPU (%s)", name, why);
        return 0;
    }
    /* --filter auto on small targets: the exhaustive kernel.  On a GPU the
     * planned windows come in launches of a few dozen blocks (under one wave)
     * behind the host's planning, while the exhaustive kernel runs near its
     * ceiling: against the four genomes and the adapters the filter was
     * slower, against 20 Mb much faster (BENCHMARKS.md, "Measurements behind
     * the code").  Targets that are the patterns of every pair (primers)
     * plan from 100,000 bases: 10,000 primers of 25 bases, 200,000 reads,
     * H200: 0.96 s planned against 2.24 s exhaustive (issue #26). */
    const uint64_t tbases = g->targets->off[g->targets->n];
    const int64_t min_bases = gpuasm_knob(g->settings->cuda_filter_min_bases,
                                          gpuasm_targets_are_patterns(reads, g->targets, opt) ? 100000 : 1000000);
    if (opt->filter == GPUASM_FILTER_AUTO && tbases < (uint64_t)min_bases) {
        snprintf(g->filter_desc, sizeof g->filter_desc,
                 "%s: exhaustive on the GPU (targets of %llu bases, under GPUASM_CUDA_FILTER_MIN_BASES "
                 "= %lld)", name, (unsigned long long)tbases, (long long)min_bases);
        return 0;
    }
    if (!gpuasm_cpu_prep_fits(g->prep, g->targets, opt)) {
        gpuasm_cpu_prep_free(g->prep);
        g->prep = NULL;
        g->pc.prep = NULL;
        gpuasm_cpu_cfg cfg;
        gpuasm_cpu_cfg_default(&cfg);
        cfg.prefilter = (int)gpuasm_knob(g->settings->cpu_prefilter, 1);
        cfg.index_max = g->settings->cpu_index_max;
        cfg.threads = g->n_threads;
        cfg.ends_filter = 0;   /* partial_cuda.cu runs every ends item (ends_filter.h) */
        int rc = gpuasm_cpu_prep_build(g->targets, opt, &cfg, &g->prep, err);
        if (rc < 0) return rc;
        st->index_build_s += gpuasm_cpu_prep_index_s(g->prep);
        st->tables_bytes += gpuasm_cpu_prep_bytes(g->prep);
    }
    if (!gpuasm_cpu_prep_pieces(g->prep) && !gpuasm_cpu_prep_index(g->prep, NULL)) {
        snprintf(g->filter_desc, sizeof g->filter_desc, "%s; exhaustive on the GPU",
                 gpuasm_cpu_prep_describe(g->prep));
        return 0;
    }
    *planned = 1;
    return 0;
}

/* The planned batch: chunk by chunk of reads, the windows planned on host
 * threads (the GPU verifies the previous chunk meanwhile), copied and
 * verified (verify_cuda.cu).  The filters' counts go to st when count is
 * set (the first pass; an overflow re-run plans again).  0 or a status. */
int run_planned(cuda_lane *g, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
                const gpuasm_cuda_batch *b, int count, gpuasm_scan_stats *st, gpuasm_err *err)
{
    /* Targets the patterns of every pair (primers): the pieces filter on
     * the GPU (pieces_cuda.cuh), its kernels timed with the verifier's;
     * the host plans what it declines. */
    const gpuasm_qfilter *qf = gpuasm_cpu_prep_pieces(g->prep);
    if (gpuasm_knob(g->settings->cuda_pieces_gpu, 1) && gpuasm_pieces_cuda_applies(qf, reads, g->targets, opt)) {
        gpuasm_vwin *d_win[4];
        size_t n[4];
        uint64_t kept = 0, dropped = 0;
        const double t0 = gpuasm_now_s();
        int rc = kit_begin_kernels(*b, err);
        if (rc == 0) rc = gpuasm_pieces_cuda_plan(&g->pc, g->prep, qf, b, d_win, n, &kept, &dropped, err);
        st->plan_s += gpuasm_now_s() - t0;
        if (rc == 0 && (rc = gpuasm_verify_cuda_launch(b, d_win, n, err)) == 0) {
            st->pieces_kept += count ? kept : 0;
            st->pieces_dropped += count ? dropped : 0;
            snprintf(g->filter_desc, sizeof g->filter_desc, "%s; windows planned and verified on the GPU",
                     gpuasm_cpu_prep_describe(g->prep));
        }
        if (rc <= 0) return rc;   /* 1: declined, the host plans it below */
    }
    uint32_t chunk_reads = PLAN_CHUNK_PER_THREAD * (uint32_t)g->n_threads;
    if (chunk_reads < PLAN_CHUNK_MIN) chunk_reads = PLAN_CHUNK_MIN;
    if (chunk_reads > PLAN_CHUNK_MAX) chunk_reads = PLAN_CHUNK_MAX;
    chunk_reads = (uint32_t)gpuasm_knob(g->settings->cuda_plan_chunk, chunk_reads);
    for (uint32_t first = 0; first < reads->n; first += chunk_reads) {
        const uint32_t n = reads->n - first < chunk_reads ? reads->n - first : chunk_reads;
        const gpuasm_plan *plan = NULL;
        int rc = gpuasm_plan_upload_chunk(&g->up, g->stream, g->prep, reads, first, n, g->targets, opt,
                                          g->n_threads, &plan, &st->plan_s, err);
        if (rc < 0) return rc;
        if ((rc = gpuasm_verify_cuda_launch(b, g->up.d_win, plan->n, err)) < 0) return rc;
        if (count) {
            st->index_strands += plan->counts.index_strands;
            st->index_declined += plan->counts.index_declined;
            st->pieces_kept += plan->counts.pieces_kept;
            st->pieces_dropped += plan->counts.pieces_dropped;
        }
    }
    snprintf(g->filter_desc, sizeof g->filter_desc, "%s; windows planned on %d host thread%s, verified on the GPU",
             gpuasm_cpu_prep_describe(g->prep), g->n_threads, g->n_threads > 1 ? "s" : "");
    return 0;
}

/* Were the ends tables (the filter, the ends_word tables) built with
 * `built` for the lane's targets and opt?  They depend on the targets and
 * on k, k_p and the floor as the options give them (gpuasm_cpu_prep_fits'
 * fields). */
int ends_fits(const cuda_lane *g, int built, const gpuasm_seqset *targets, uint64_t version,
              const gpuasm_search_opt *was, const gpuasm_search_opt *opt)
{
    return built && targets == g->targets && version == g->targets_version && was->kernel == opt->kernel &&
           was->max_diffs == opt->max_diffs && was->error_rate == opt->error_rate &&
           was->overlap_min == opt->overlap_min && was->partial_ends == opt->partial_ends &&
           was->partial_floor == opt->partial_floor && was->alphabet == opt->alphabet &&
           was->pattern_side == opt->pattern_side;
}

/* The targets' ends_word tables on the device (kernels/ends/ends_word.h) for opt:
 * edit mode on nt16, every target of at most EW_GPU_MAX bases that takes
 * partial occurrences as the pattern (one and two words, the steps the GPU
 * suite has run; longer ones take the generic per-item code).  0 or a status. */
enum { EW_GPU_MAX = 128 };
int ends_words(cuda_lane *g, const gpuasm_search_opt *opt, gpuasm_err *err)
{
    if (ends_fits(g, g->ew_built, g->ew_targets, g->ew_version, &g->ew_opt, opt)) return 0;
    g->ew_built = 0;
    const uint32_t nt = g->targets->n;
    std::vector<int32_t> slot(nt ? nt : 1, -1);
    std::vector<ends_word> ew;
    for (uint32_t t = 0; t < nt; t++) {
        const uint64_t m = g->targets->off[t + 1] - g->targets->off[t];
        if (m == 0 || m > EW_GPU_MAX || !gpuasm_pair_searched(m, gpuasm_pair_k(opt, m), 1)) continue;
        const uint32_t omin = gpuasm_pair_overlap_min(opt, 0, m);
        if (!omin) continue;
        slot[t] = (int32_t)ew.size();
        ew.emplace_back();
        gpuasm_ends_word_build(&ew.back(), opt, g->targets->code + g->targets->off[t], (uint32_t)m, omin, 0);
    }
    if (g->d_ew) CK(cudaFree(g->d_ew));
    if (g->d_ew_slot) CK(cudaFree(g->d_ew_slot));
    g->d_ew = NULL;
    g->d_ew_slot = NULL;
    g->n_ew = (uint32_t)ew.size();
    if (!ew.empty()) {
        CK(cudaMalloc((void **)&g->d_ew, ew.size() * sizeof(ends_word)));
        CK(cudaMalloc((void **)&g->d_ew_slot, slot.size() * sizeof(int32_t)));
        CK(cudaMemcpy(g->d_ew, ew.data(), ew.size() * sizeof(ends_word), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(g->d_ew_slot, slot.data(), slot.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    }
    g->ew_built = 1;
    g->ew_targets = g->targets;
    g->ew_version = g->targets_version;
    g->ew_opt = *opt;
    return 0;
}

/* Does the ends pass of this batch run over the ends filter's items
 * (walk/ends_plan.h)?  Builds the filter for the lane's targets and opt
 * when it has none that fits.  1 yes, 0 no (the dense pass), or < 0. */
int ends_listed(cuda_lane *g, const gpuasm_seqset *reads, const gpuasm_search_opt *opt, int planned,
                gpuasm_err *err)
{
    const int64_t mode = gpuasm_knob(g->settings->cuda_ends_plan, 1);
    g->eplan_reads = 0;
    if (opt->filter == GPUASM_FILTER_OFF || mode == 0) return 0;
    /* Reads as the pattern against the planned targets' index (a virus
     * database: thousands of genomes, every (read, genome end) an item of
     * the dense pass; issue #28): the CPU walk's marks list the few. */
    if (planned && gpuasm_ends_plan_reads_applies(reads, g->targets, opt, g->prep)) {
        g->eplan_reads = 1;
        return 1;
    }
    if (!gpuasm_ends_plan_applies(reads, g->targets, opt)) return 0;
    if (!ends_fits(g, g->ef_built, g->ef_targets, g->ef_version, &g->ef_opt, opt)) {
        if (g->ef_built) gpuasm_efilter_free(&g->ef);
        g->ef_built = 0;
        if (gpuasm_efilter_build(&g->ef, g->targets, opt) < 0)
            return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        g->ef_built = 1;
        g->ef_targets = g->targets;
        g->ef_version = g->targets_version;
        g->ef_opt = *opt;
    }
    /* The list costs the host a filter pass per read strand whatever the
     * targets; the dense pass costs the GPU an item per target.  Few
     * targets: the dense pass (158 adapters, 5 M reads, H200 with 16 host
     * threads: listing 4.8 s of host time against 3.7 s of dense pass
     * before the ends_word tables made the dense pass cheaper); many: the
     * list (10,000 primers: 2.45 s against 4.96 s for the run,
     * BENCHMARKS.md). */
    return g->ef.n_filtered > 0 && (mode == 2 || g->ef.n_filtered >= ENDS_LIST_MIN_TARGETS);
}

/* The batch's ends items (ends_listed said so), listed on the host while
 * the search kernel runs and copied to the device on the ends stream:
 * once per batch (a rerun for a grown hit buffer reuses them).  0 or a
 * status. */
int list_ends(cuda_lane *g, const gpuasm_seqset *reads, const gpuasm_search_opt *opt, gpuasm_scan_stats *st,
              gpuasm_err *err)
{
    const double t0 = gpuasm_now_s();
    int rc = g->eplan_reads
                 ? gpuasm_ends_plan_build_reads(&g->eplan, g->prep, reads, g->targets, opt, g->n_threads, err)
                 : gpuasm_ends_plan_build(&g->eplan, &g->ef, reads, g->targets, opt, g->n_threads, err);
    if (rc < 0) return rc;
    st->plan_s += gpuasm_now_s() - t0;
    const size_t bytes = g->eplan.n * sizeof(uint64_t);
    if (!bytes) return 0;
    if ((rc = kit_grow_buf(g->ends_stream, (void **)&g->d_eitem, &g->eitem_cap, bytes, err)) < 0) return rc;
    /* pageable source: the call returns once the list may be reused */
    CK(cudaMemcpyAsync(g->d_eitem, g->eplan.item, bytes, cudaMemcpyHostToDevice, g->ends_stream));
    return 0;
}

/* What no backend may take (the CPU twins refuse the same pairs). */
int check_batch(const cuda_lane *g, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
                gpuasm_err *err)
{
    const uint64_t limit = gpuasm_kernel_max_pattern(opt);
    for (uint32_t r = 0; r < reads->n; r++) {
        const uint64_t rlen = reads->off[r + 1] - reads->off[r];
        if (rlen > CUDA_MAX_LEN) {
            gpuasm_err_set(err, GPUASM_ERR_SEQ_TOO_LONG, "read longer than %llu bases",
                           (unsigned long long)CUDA_MAX_LEN);
            return gpuasm_err_about(err, r, GPUASM_NO_INDEX, rlen, CUDA_MAX_LEN);
        }
        for (uint32_t t = 0; limit && t < g->targets->n; t++) {
            const gpuasm_pair p = gpuasm_pair_of(opt, rlen, g->targets->off[t + 1] - g->targets->off[t]);
            if (p.searched && p.m > limit) {
                gpuasm_err_set(err, GPUASM_ERR_TOO_LONG,
                               "kernel %s takes patterns of at most %llu bases; this pair has one of %llu",
                               gpuasm_kernel_get(opt->kernel)->name, (unsigned long long)limit,
                               (unsigned long long)p.m);
                return gpuasm_err_about(err, r, t, p.m, limit);
            }
        }
    }
    return 0;
}

/* What every launcher gets from the lane (cuda_kit.cuh): stream, device,
 * scratch, the kernel's state, knobs, the begin event; sequence views
 * empty (the caller fills them for a sequence scan). */
void lane_batch(cuda_lane *g, int32_t kernel, uint64_t version, int *began, gpuasm_cuda_batch *b)
{
    memset(b, 0, sizeof(*b));
    b->stream = g->stream;
    b->device = g->device;
    b->sm_count = g->sm_count;
    b->smem_optin = g->smem_optin;
    b->settings = g->settings;
    b->scratch = g->scratch;
    b->state = &g->state[kernel];
    b->targets_version = version;
    b->ev_begin = g->ev0;
    b->began = began;
}

int scan_impl(cuda_lane *g, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
              gpuasm_hits *out, gpuasm_scan_stats *st, gpuasm_err *err)
{
    const gpuasm_kernel_desc *kd = gpuasm_kernel_get(opt->kernel);
    if (!kd->cuda.launch)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "kernel %s has no CUDA launcher", kd->name);
    CK(cudaSetDevice(g->device));

    /* The batch: codes and offsets (reads are indexed by absolute offsets). */
    const size_t nbytes = (size_t)reads->off[reads->n];
    const size_t obytes = ((size_t)reads->n + 1) * sizeof(uint64_t);
    int rc;
    if ((rc = kit_grow_buf(g->stream, (void **)&g->d_rcode, &g->rcode_cap, nbytes, err)) < 0) return rc;
    if ((rc = kit_grow_buf(g->stream, (void **)&g->d_roff, &g->roff_cap, obytes, err)) < 0) return rc;
    if (nbytes) CK(cudaMemcpyAsync(g->d_rcode, reads->code, nbytes, cudaMemcpyHostToDevice, g->stream));
    CK(cudaMemcpyAsync(g->d_roff, reads->off, obytes, cudaMemcpyHostToDevice, g->stream));

    gpuasm_cuda_batch b;
    int began = 0;
    lane_batch(g, opt->kernel, g->targets_version, &began, &b);
    b.host.reads = *reads;
    b.host.targets = *g->targets;
    b.host.opt = *opt;
    b.dev.reads.n = reads->n;
    b.dev.reads.off = g->d_roff;
    b.dev.reads.code = g->d_rcode;
    b.dev.targets.n = g->targets->n;
    b.dev.targets.off = g->d_toff;
    b.dev.targets.code = g->d_tcode;
    b.dev.opt = *opt;
    int planned = 0, first_pass = 1;
    if ((rc = plan_batch(g, reads, opt, &planned, st, err)) < 0) return rc;
    const int listed = gpuasm_partial_on(opt) ? ends_listed(g, reads, opt, planned, err) : 0;
    if (listed < 0) return listed;
    const int ew_on = gpuasm_partial_on(opt) && kd->mode != GPUASM_MODE_HAMMING &&
                      opt->alphabet == GPUASM_ALPHABET_NT16;
    if (ew_on && (rc = ends_words(g, opt, err)) < 0) return rc;
    const ends_word *d_ew = ew_on ? g->d_ew : NULL;
    int items_up = 0;   /* the batch's ends items listed and on the device */

    for (;;) {
        const unsigned long long cap = g->hit_cap / sizeof(gpuasm_endhit);
        b.out.hit = g->d_hit;
        b.out.count = g->d_count;
        b.out.cap = cap;
        CK(cudaMemsetAsync(g->d_count, 0, sizeof(unsigned long long), g->stream));
        began = 0;
        const int ends = gpuasm_partial_on(opt);
        if (ends) {
            /* The ends pass's stream starts after the uploads and the
             * counter's reset, not after the search kernels. */
            CK(cudaEventRecord(g->ev_up, g->stream));
            CK(cudaStreamWaitEvent(g->ends_stream, g->ev_up, 0));
        }
        if (planned) {
            rc = run_planned(g, reads, opt, &b, first_pass, st, err);
            first_pass = 0;
            if (rc < 0) return rc;
        } else if ((rc = kd->cuda.launch(&b, err)) < 0) {
            return rc;
        }
        /* The ends pass on its own stream, beside the search kernels: the
         * two share the hit buffer (atomic counter) and nothing else, and
         * their blocks fill the SMs that the other's last items leave idle
         * (a 10 kb read's LONG items and its genome-end items each ran at
         * about a third of the SMs' warp slots at their ends).  Its span
         * is timed apart (inside kernel_s, overlapping the search). */
        double ends_cells = 0;
        if (ends) {
            gpuasm_cuda_batch eb = b;
            eb.stream = g->ends_stream;
            eb.scratch = g->ends_scratch;
            CK(cudaEventRecord(g->ev_ends, g->ends_stream));
            const int long_ends = !planned && (kd->caps & GPUASM_CAP_LONG_ENDS);
            if (listed) {
                if (!items_up && (rc = list_ends(g, reads, opt, st, err)) < 0) return rc;
                items_up = 1;
                if ((rc = gpuasm_partial_cuda_launch_list(&eb, kd->mode == GPUASM_MODE_HAMMING, long_ends, d_ew,
                                                          g->d_ew_slot, g->d_eitem, g->eplan.n, err)) < 0)
                    return rc;
            } else if ((rc = gpuasm_partial_cuda_launch(&eb, kd->mode == GPUASM_MODE_HAMMING, long_ends, d_ew,
                                                        g->d_ew_slot, g->n_ew, &ends_cells, err)) < 0) {
                return rc;
            }
            CK(cudaEventRecord(g->ev_ends_end, g->ends_stream));
            CK(cudaStreamWaitEvent(g->stream, g->ev_ends_end, 0));
        }
        if (began) CK(cudaEventRecord(g->ev1, g->stream));
        CK(cudaMemcpyAsync(g->h_count, g->d_count, sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                           g->stream));
        CK(cudaStreamSynchronize(g->stream));
        float ms = 0, ends_ms = 0;
        if (began) CK(cudaEventElapsedTime(&ms, g->ev0, g->ev1));
        if (ends && began) CK(cudaEventElapsedTime(&ends_ms, g->ev_ends, g->ev_ends_end));
        st->kernel_s += 1e-3 * (double)ms;
        st->ends_kernel_s += 1e-3 * (double)ends_ms;
        st->ends_cells += ends_cells;
        unsigned long long nhit = *g->h_count;
        /* More hits than the caller may hold (search.h): it scans fewer
         * reads at a time, and the buffer never grows past its limit
         * (counted before a strand-0-only filter: on the safe side).  Under
         * the keep rule the limit counts the kept hits (below), and the
         * buffer holds up to KEEP_RAW times more before the rule runs. */
        const int keep = opt->keep == GPUASM_KEEP_REPORTED;
        if (out->limit && nhit > (keep ? KEEP_RAW : 1) * (unsigned long long)out->limit)
            return hit_limit(out, nhit, err);
        if (nhit > cap) {
            /* Some hits were not stored: make room for all and run again. */
            if (nhit > SIZE_MAX / sizeof(gpuasm_endhit) / 2)
                return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "too many hits (%llu)", nhit);
            if ((rc = kit_grow_buf(g->stream, (void **)&g->d_hit, &g->hit_cap,
                                   (size_t)nhit * sizeof(gpuasm_endhit), err)) < 0)
                return rc;
            continue;
        }
        int kept_here = 0;   /* the rule ran on the device (keep_cuda.cuh) */
        if (keep && nhit) {
            size_t k = 0;
            if ((rc = gpuasm_keep_cuda(g->keep_scratch, g->stream, &b.dev, g->d_hit, (size_t)nhit, &k, err)) < 0)
                return rc;
            kept_here = rc == 0;
            nhit = k;
            if (out->limit && nhit > out->limit) return hit_limit(out, nhit, err);
        }
        if (nhit) {
            if (gpuasm_hits_reserve(out, (size_t)nhit) < 0)
                return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
            CK(cudaMemcpyAsync(out->hit + out->n, g->d_hit, (size_t)nhit * sizeof(gpuasm_endhit),
                               cudaMemcpyDeviceToHost, g->stream));
            CK(cudaStreamSynchronize(g->stream));
            out->n += (size_t)nhit;
            /* Strand 0 only: drop what kernels that always search both
             * strands (myers, scan on nt16) found on strand 1. */
            if (gpuasm_strands(opt) == 1) gpuasm_hits_drop_strand1(out, out->n - (size_t)nhit);
        }
        gpuasm_hits_sort(out);
        /* Where the device could not (keys past 64 bits), the host twin. */
        if (keep && !kept_here && gpuasm_hits_keep_reported(out, 0, reads, opt) < 0)
            return gpuasm_err_set(err, GPUASM_ERR_NOMEM, "out of memory");
        return 0;
    }
}

int lane_scan(void *self, const gpuasm_seqset *reads, const gpuasm_search_opt *opt,
              gpuasm_hits *out, gpuasm_scan_stats *st, gpuasm_err *err)
{
    cuda_lane *g = (cuda_lane *)self;
    if (!g->targets) return gpuasm_err_set(err, GPUASM_ERR_INTERNAL, "CUDA backend: no targets set");
    if (reads->n == 0 || g->targets->n == 0) return 0;
    int rc = check_batch(g, reads, opt, err);
    if (rc < 0) return rc;
    st->cells = gpuasm_scan_cells(reads, 0, reads->n, g->targets, opt);
    /* CUB and the planners are C++ and may throw; nothing may unwind into C. */
    try {
        rc = scan_impl(g, reads, opt, out, st, err);
    } catch (...) {
        rc = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "CUDA backend: out of memory or unexpected C++ exception");
    }
    return rc;
}

int lane_set_signal_targets(void *self, const gpuasm_sigset *targets, gpuasm_err *err)
{
    (void)err;
    cuda_lane *g = (cuda_lane *)self;
    g->sig_targets = targets;
    g->sig_version++;   /* the launcher uploads on the next scan */
    return 0;
}

/* The signal mode: the row's signal launcher (registry.h) on the lane. */
int lane_scan_signals(void *self, const gpuasm_sigset *reads, const gpuasm_signal_opt *opt,
                      gpuasm_adsm_hit *out, gpuasm_scan_stats *st, gpuasm_err *err)
{
    cuda_lane *g = (cuda_lane *)self;
    if (!g->sig_targets)
        return gpuasm_err_set(err, GPUASM_ERR_INTERNAL, "CUDA backend: no signal targets set");
    const gpuasm_kernel_desc *kd = gpuasm_kernel_get(opt->kernel);
    if (!kd || !kd->signal || !kd->signal->cuda.launch)
        return gpuasm_err_set(err, GPUASM_ERR_BAD_OPTION, "kernel %s has no CUDA signal launcher",
                              kd ? kd->name : "(none)");
    CK(cudaSetDevice(g->device));
    gpuasm_cuda_batch b;
    int began = 0;
    lane_batch(g, opt->kernel, g->sig_version, &began, &b);
    gpuasm_signal_batch s;
    s.reads = *reads;
    s.targets = *g->sig_targets;
    s.opt = *opt;
    s.out = out;
    s.ev_end = g->ev1;
    s.kernel_ms = 0;
    int rc;
    try {
        rc = kd->signal->cuda.launch(&b, &s, err);
    } catch (...) {
        rc = gpuasm_err_set(err, GPUASM_ERR_NOMEM, "CUDA backend: out of memory or unexpected C++ exception");
    }
    if (rc < 0) return rc;
    st->kernel_s = 1e-3 * (double)s.kernel_ms;
    st->cells = gpuasm_signal_cells(reads, g->sig_targets);
    return 0;
}

uint64_t lane_suggest(const void *self)
{
    /* Per read base the device holds its code (1 byte), a share of the
     * offsets, permutation and scan arrays (~28 bytes per read, i.e. ~0.2
     * byte per base for 150-bp reads) and the hits; 4 bytes per base is a
     * generous bound for short reads.  At most 1/8 of the free memory per
     * lane (set when two lanes per device were the default; one is now,
     * engine.c, so one lane leaves room to spare), between 16 Mi and 256 Mi
     * bases. */
    const cuda_lane *g = (const cuda_lane *)self;
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(g->device) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        return (uint64_t)64 << 20;
    }
    uint64_t bases = (uint64_t)free_b / 8 / 4;
    const uint64_t lo = (uint64_t)16 << 20, hi = (uint64_t)256 << 20;
    if (bases < lo) bases = lo;
    if (bases > hi) bases = hi;
    return bases;
}

}  /* namespace */

extern "C" const gpuasm_backend_ops gpuasm_backend_cuda = {
    "cuda",
    device_count,
    lane_open,
    lane_describe,
    lane_set_targets,
    lane_scan,
    lane_set_signal_targets,
    lane_scan_signals,
    lane_filter_desc,
    lane_suggest,
    kit_host_alloc,
    kit_host_free,
    lane_close,
};
