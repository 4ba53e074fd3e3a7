// fp32 reference for rmsnorm-cuda: the same arithmetic in fp32 with an fp32 output (no bf16
// rounding of y), one block per row, Kahan-compensated partial sums so long rows stay accurate.
#include <cuda_runtime.h>

#include "rmsnorm.h"

namespace {

constexpr int kThreads = 256;

__global__ void rmsnorm_reference_kernel(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                                         float* __restrict__ y, int cols, float eps) {
    __shared__ float partial[kThreads];
    const size_t row = blockIdx.x;
    const __nv_bfloat16* xr = x + row * cols;
    float sum = 0.0f, carry = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = __bfloat162float(xr[c]);
        const float term = v * v - carry;
        const float next = sum + term;
        carry = (next - sum) - term;
        sum = next;
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) partial[threadIdx.x] += partial[threadIdx.x + step];
        __syncthreads();
    }
    const float inv_rms = 1.0f / sqrtf(partial[0] / cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        y[row * cols + c] = __bfloat162float(xr[c]) * inv_rms * __bfloat162float(w[c]);
    }
}

}  // namespace

extern "C" int ks_rmsnorm_reference(const RmsnormParams* p, void* stream) {
    if (p->rows <= 0 || p->cols <= 0) return 0;
    rmsnorm_reference_kernel<<<p->rows, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        p->x, p->w, reinterpret_cast<float*>(p->y), p->cols, p->eps);
    return static_cast<int>(cudaGetLastError());
}
