/* PLACEHOLDER until the myers_byte CUDA kernel lands (issue #4). */
#include "cuda_kit.cuh"
int gpuasm_myers_byte_cuda_launch(const kit_batch &b, dev_out out, char *err, size_t errlen)
{ (void)b; (void)out; snprintf(err, errlen, "myers_byte: not built"); return -1; }
