/* myers_cuda.h -- the C face of the CUDA Myers kernel (kernels/myers_cuda.cu).
 *
 * Host C never sees device code: it calls these extern "C" launchers on the
 * plain structs of search.h.  Every function returns 0 on success and -1 on
 * failure, with a one-line reason (CUDA's error string included) in err.
 * Only built when configure found CUDA (HAVE_CUDA).  One handle is one
 * device and one CUDA stream; a handle is used by one host thread at a time,
 * and several handles (on one device or several) may run at once.
 */
#ifndef GPUASM_MYERS_CUDA_H
#define GPUASM_MYERS_CUDA_H

#include <stddef.h>
#include "search.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpuasm_cuda gpuasm_cuda;

/* Number of usable CUDA devices (0 when there is no GPU or no driver). */
int gpuasm_cuda_device_count(void);

/* Open device `device` (0-based).  *out is set on success. */
int gpuasm_cuda_open(int device, gpuasm_cuda **out, char *err, size_t errlen);

/* One-line name of the opened device, e.g. "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)". */
const char *gpuasm_cuda_describe(const gpuasm_cuda *g);

/* Upload the target set once (codes and offsets are copied to the device). */
int gpuasm_cuda_set_targets(gpuasm_cuda *g, const gpuasm_seqset *targets,
                            char *err, size_t errlen);

/* Scan a batch of reads against the uploaded targets: exactly the end hits
 * of gpuasm_myers_cpu_scan() (same set, any order), appended to out.
 * reads->code and reads->off should live in memory from
 * gpuasm_cuda_host_alloc() (pinned) for fast copies; any host memory works. */
int gpuasm_cuda_scan(gpuasm_cuda *g, const gpuasm_seqset *reads,
                     const gpuasm_search_opt *opt, gpuasm_hits *out,
                     char *err, size_t errlen);

/* What the last gpuasm_cuda_scan on this handle did (kernel_s from CUDA
 * events around the search kernels; cells = sum of m x n over searched
 * pairs and strands, not counting segment overlaps). */
void gpuasm_cuda_last_stats(const gpuasm_cuda *g, gpuasm_scan_stats *out);

/* Read bases per batch that keep this handle's device buffers within a
 * comfortable share of free device memory for these targets (> 0). */
uint64_t gpuasm_cuda_suggest_batch_bases(const gpuasm_cuda *g);

void gpuasm_cuda_close(gpuasm_cuda *g);

/* Pinned host memory (cudaHostAlloc); NULL on failure. */
void *gpuasm_cuda_host_alloc(size_t bytes);
void gpuasm_cuda_host_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
