/* attention-cpu: fp32 attention forward with grouped-query heads and an optional causal mask.
 *
 * Layouts are row-major, batch-major:
 *   q, o: [batch, heads_q,  seq_q, head_dim]
 *   k, v: [batch, heads_kv, seq_k, head_dim]
 * Query head h reads key/value head h / (heads_q / heads_kv) (heads_q is a multiple of heads_kv).
 * o[b,h,i,:] = sum_j softmax_j(scale * q[b,h,i,:] . k[b,hk,j,:]) v[b,hk,j,:]
 * With causal != 0, query i sees keys j <= i + (seq_k - seq_q) (aligned to the bottom right, as
 * when the queries are the last seq_q positions of the sequence); seq_q <= seq_k then, so every
 * query sees at least one key. q, k, v must not be modified.
 */
#ifndef KS_ATTENTION_H
#define KS_ATTENTION_H

typedef struct {
    const float* q;
    const float* k;
    const float* v;
    float* o;
    int batch;
    int heads_q;
    int heads_kv;
    int seq_q;
    int seq_k;
    int head_dim; /* 32 .. 128 */
    int causal;   /* 0 or 1 */
    float scale;  /* usually 1 / sqrt(head_dim) */
} AttentionParams;

#ifdef __cplusplus
extern "C"
#endif
int ks_attention(const AttentionParams* p, void* stream); /* stream is NULL on cpu; 0 = success */

#endif
