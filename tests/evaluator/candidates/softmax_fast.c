/* Planted faster candidate: one exp per element (kept in y), a reciprocal instead of a divide. */
#include <math.h>
#include <stddef.h>
#include "softmax.h"

int ks_softmax(const SoftmaxParams* p, void* stream) {
    (void)stream;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < p->rows; ++r) {
        const float* x = p->x + (size_t)r * p->cols;
        float* y = p->y + (size_t)r * p->cols;
        float m = -INFINITY;
        for (int c = 0; c < p->cols; ++c) m = fmaxf(m, x[c]);
        float sum = 0.0f;
        for (int c = 0; c < p->cols; ++c) {
            y[c] = expf(x[c] - m);
            sum += y[c];
        }
        const float inv = 1.0f / sum;
        for (int c = 0; c < p->cols; ++c) y[c] *= inv;
    }
    return 0;
}
