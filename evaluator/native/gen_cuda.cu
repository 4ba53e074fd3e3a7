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

/* how many bytes differ between two device buffers (the host's checks that inputs were left alone
 * and that outputs did not change after their snapshot, without copying them to the host) */
__global__ void ks_count_diff_kernel(const unsigned char* a, const unsigned char* b, long long n,
                                     unsigned long long* count) {
    unsigned long long local = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        local += a[i] != b[i];
    if (local) atomicAdd(count, local);
}

/* count must point to device memory holding 0; 0 = launched */
extern "C" int ks_count_diff_async(const void* a, const void* b, long long n, void* count, void* stream) {
    if (n <= 0) return 0;
    long long blocks = (n + 255) / 256;
    if (blocks > 65535LL * 8) blocks = 65535LL * 8;
    ks_count_diff_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(
        (const unsigned char*)a, (const unsigned char*)b, n, (unsigned long long*)count);
    return (int)cudaGetLastError();
}
