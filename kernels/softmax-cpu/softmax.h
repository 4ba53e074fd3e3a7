/* softmax-cpu: row softmax over the last dimension, fp32.
 *
 * y[r, c] = exp(x[r, c] - max_c x[r, :]) / sum_c exp(x[r, c] - max_c x[r, :])
 * x and y are row-major [rows, cols], distinct buffers. x must not be modified.
 */
#ifndef KS_SOFTMAX_H
#define KS_SOFTMAX_H

typedef struct {
    const float* x; /* [rows, cols] input */
    float* y;       /* [rows, cols] output: every element written */
    int rows;
    int cols;
} SoftmaxParams;

#ifdef __cplusplus
extern "C"
#endif
int ks_softmax(const SoftmaxParams* p, void* stream); /* stream is NULL on cpu; 0 = success */

#endif
