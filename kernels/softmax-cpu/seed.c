/* Seed for softmax-cpu: correct and plainly written. Three passes per row (max, sum of exps,
 * normalise), exp computed twice, one OpenMP thread per block of rows. */
#include <math.h>
#include <stddef.h>

#include "softmax.h"

int ks_softmax(const SoftmaxParams* p, void* stream) {
    (void)stream;
    const int rows = p->rows, cols = p->cols;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < rows; ++r) {
        const float* x = p->x + (size_t)r * cols;
        float* y = p->y + (size_t)r * cols;
        float m = -INFINITY;
        for (int c = 0; c < cols; ++c) m = fmaxf(m, x[c]);
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) sum += expf(x[c] - m);
        for (int c = 0; c < cols; ++c) y[c] = expf(x[c] - m) / sum;
    }
    return 0;
}
