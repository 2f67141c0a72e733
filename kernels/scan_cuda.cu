/* PLACEHOLDER until the scan CUDA kernel lands (issue #4). */
#include "cuda_kit.cuh"
int gpuasm_scan_cuda_launch(const kit_batch &b, dev_out out, char *err, size_t errlen)
{ (void)b; (void)out; snprintf(err, errlen, "scan: not built"); return -1; }
