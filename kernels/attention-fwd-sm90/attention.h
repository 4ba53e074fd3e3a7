/* Attention forward on Hopper: the C ABI a candidate implements.
 *
 * O = softmax(mask(softcap(scale * Q K^T))) V, per sequence and query head, with the softmax
 * log-sum-exp stored beside it. One call covers a batch of sequences of different lengths.
 *
 * Layouts (row-major, innermost last; dtype is bf16 or fp16 as `dtype` says, for q, k, v and o):
 *   q    [total_q, num_heads_q, head_dim]      rows of sequence b: cu_seqlens_q[b] .. cu_seqlens_q[b+1]-1
 *   k, v contiguous (paged == 0): [total_k, num_heads_kv, head_dim]
 *                                 keys of sequence b: rows cu_seqlens_k[b] .. cu_seqlens_k[b+1]-1
 *        paged (paged == 1): [num_blocks, page_size, num_heads_kv, head_dim]
 *                            sequence b has seqused_k[b] keys; key j lives in physical block
 *                            block_table[b * max_blocks_per_seq + j / page_size], slot j % page_size
 *   o    [total_q, num_heads_q, head_dim]
 *   lse  [num_heads_q, total_q] fp32, natural log: lse = log(sum_j exp(s_j)) over the attended keys
 *
 * Semantics, for query row i (0-based within its sequence) of a sequence with Lq queries and
 * Lk keys, and key j (0-based, j < Lk):
 *   s_ij = softmax_scale * <q_i, k_j>;  if softcap > 0: s_ij = softcap * tanh(s_ij / softcap)
 *   Queries are aligned to the END of the keys (bottom-right): query i sits at key position
 *   p_i = i + Lk - Lq. Key j is attended iff
 *     (!causal || j <= p_i) && (window_left < 0 || j >= p_i - window_left)
 *                            && (window_right < 0 || j <= p_i + window_right)
 *   (-1 = unbounded side; causal together with a window applies both.)
 *   A row with no attended key: o = 0, lse = -inf (as FlashAttention).
 *   GQA / MQA: num_heads_q % num_heads_kv == 0, contiguous groups: query head h reads kv head
 *   h / (num_heads_q / num_heads_kv).
 *
 * The fields a mode does not use (cu_seqlens_k when paged; seqused_k and block_table when
 * contiguous) still point to valid, small buffers; never dereference them.
 * max_seqlen_q / max_seqlen_k are the largest Lq / Lk in the batch (for grid sizing).
 * head_dim is one of 64, 96, 128, 192, 256.
 */
#ifndef KS_ATTENTION_H
#define KS_ATTENTION_H

#ifdef __cplusplus
extern "C" {
#endif

enum { KS_DTYPE_BF16 = 0, KS_DTYPE_FP16 = 1 };

typedef struct {
    const void* q;
    const void* k;
    const void* v;
    const int* cu_seqlens_q;   /* [batch + 1] */
    const int* cu_seqlens_k;   /* [batch + 1], contiguous K/V */
    const int* seqused_k;      /* [batch], paged K/V */
    const int* block_table;    /* [batch, max_blocks_per_seq], paged K/V */
    void* o;
    float* lse;
    int batch;
    int total_q;
    int max_seqlen_q;
    int max_seqlen_k;
    int num_heads_q;
    int num_heads_kv;
    int head_dim;
    int dtype;                 /* KS_DTYPE_BF16 or KS_DTYPE_FP16 */
    int paged;                 /* 0 = contiguous K/V, 1 = paged K/V */
    int page_size;             /* paged: keys per block */
    int num_blocks;            /* paged: blocks in k and v */
    int max_blocks_per_seq;    /* paged: row length of block_table */
    int causal;                /* 0 or 1 */
    int window_left;           /* -1 = unbounded */
    int window_right;          /* -1 = unbounded */
    float softmax_scale;
    float softcap;             /* 0 = off */
} AttnParams;

/* 0 = success; otherwise a CUDA error code (unsupported head_dim or dtype: cudaErrorInvalidValue).
 * All work is enqueued on `stream` (a CUstream / cudaStream_t). */
int ks_attention_fwd(const AttnParams* p, void* stream);

#ifdef __cplusplus
}
#endif

#endif
