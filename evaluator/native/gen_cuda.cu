/* The evaluator's input generator on the GPU (ks_gen.h): the candidate host refreshes its inputs
 * with it each timed round, and the verdict regenerates a sampled round's inputs in its own CUDA
 * context with the very same code. */
#include <cuda_runtime.h>

#include "ks_gen.h"

__global__ void ks_refresh_kernel(void* dst, const void* base, long long n, int kind, unsigned long long seed) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        ks_refresh_one(dst, base, (uint64_t)i, kind, seed);
}

/* n: elements (bytes for KS_KIND_COPY); 0 = launched */
extern "C" int ks_refresh_async(void* dst, const void* base, long long n, int kind, unsigned long long seed, void* stream) {
    if (n <= 0) return 0;
    long long blocks = (n + 255) / 256;
    if (blocks > 65535LL * 8) blocks = 65535LL * 8;
    ks_refresh_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(dst, base, n, kind, seed);
    return (int)cudaGetLastError();
}
