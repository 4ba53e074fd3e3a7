/* Seed for attention-cpu: correct and plainly written. One query row at a time: scores against
 * every visible key, a max-subtracted softmax, then the weighted sum of values. OpenMP over
 * (batch, head, query row); each thread keeps one row of scores. */
#include <math.h>
#include <stdlib.h>

#include "attention.h"

int ks_attention(const AttentionParams* p, void* stream) {
    (void)stream;
    const int B = p->batch, H = p->heads_q, HK = p->heads_kv, SQ = p->seq_q, SK = p->seq_k, D = p->head_dim;
    const int group = H / HK;
    const long rows = (long)B * H * SQ;
    int failed = 0;
#pragma omp parallel
    {
        float* s = malloc(sizeof(float) * (size_t)SK);
        if (!s) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (long row = 0; row < rows; ++row) {
            if (!s) continue;
            const int i = (int)(row % SQ);
            const int h = (int)((row / SQ) % H);
            const int b = (int)(row / ((long)SQ * H));
            const int hk = h / group;
            const float* q = p->q + row * D;
            const float* k = p->k + ((long)b * HK + hk) * SK * D;
            const float* v = p->v + ((long)b * HK + hk) * SK * D;
            float* o = p->o + row * D;
            const int last = p->causal ? i + (SK - SQ) : SK - 1; /* last visible key */
            float m = -INFINITY;
            for (int j = 0; j <= last; ++j) {
                float dot = 0.0f;
#pragma omp simd reduction(+:dot)
                for (int d = 0; d < D; ++d) dot += q[d] * k[(long)j * D + d];
                s[j] = dot * p->scale;
                if (s[j] > m) m = s[j];
            }
            float sum = 0.0f;
            for (int j = 0; j <= last; ++j) {
                s[j] = expf(s[j] - m);
                sum += s[j];
            }
            for (int d = 0; d < D; ++d) o[d] = 0.0f;
            const float inv = 1.0f / sum;
            for (int j = 0; j <= last; ++j) {
                const float w = s[j] * inv;
                for (int d = 0; d < D; ++d) o[d] += w * v[(long)j * D + d];
            }
        }
        free(s);
    }
    return failed ? 1 : 0;
}
