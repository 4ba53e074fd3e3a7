/* rmsnorm-cuda: RMSNorm over the last dimension, bf16 in and out, fp32 arithmetic.
 *
 *   y[r, c] = bf16( x[r, c] * rsqrt(mean_c(x[r, :]^2) + eps) * w[c] )
 * x, y: row-major [rows, cols] (distinct buffers); w: [cols]. Device pointers.
 * All work goes on `stream` (a CUstream / cudaStream_t the evaluator owns). x and w must not be
 * modified. The reference kernel takes the same struct with y pointing to fp32 storage.
 */
#ifndef KS_RMSNORM_H
#define KS_RMSNORM_H

#ifdef __CUDACC__
#include <cuda_bf16.h>
typedef __nv_bfloat16 ks_bf16;
#else
#include <stdint.h>
typedef uint16_t ks_bf16; /* the same 2 bytes, for C code that only passes pointers */
#endif

typedef struct {
    const ks_bf16* x; /* [rows, cols] */
    const ks_bf16* w; /* [cols] */
    ks_bf16* y;       /* [rows, cols]; float* for the reference kernel */
    int rows;
    int cols;
    float eps;
} RmsnormParams;

#ifdef __cplusplus
extern "C" {
#endif
int ks_rmsnorm(const RmsnormParams* p, void* stream);           /* 0 = success */
int ks_rmsnorm_reference(const RmsnormParams* p, void* stream); /* fp32 output */
#ifdef __cplusplus
}
#endif

#endif
