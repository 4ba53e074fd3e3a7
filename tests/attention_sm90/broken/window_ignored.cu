// BROKEN on purpose (window_ignored): the sliding window is neither used to skip tiles nor to mask.
// Generated from seed.cu by tests/attention_sm90/attention_broken.py; do not edit.
// The seed: a plain FlashAttention-2 style forward kernel on tensor cores (mma.sync m16n8k16).
//
// It is the baseline every candidate is measured against, written for clarity: one thread block
// of 4 warps owns 64 "packed" query rows of one sequence and one KV head, walks the key range
// those rows may attend in tiles of kBlockN keys (shared memory, cp.async, one stage), and keeps
// a running (online) softmax in registers. No wgmma, no TMA, no warp specialisation, no split-KV:
// those are the candidate's to find.
//
// Packed rows: for GQA the query heads of one KV group share K and V, so a block packs them into
// its rows: packed row r of sequence b and KV head g is query token r / G of head g * G + r % G,
// where G = num_heads_q / num_heads_kv. For MHA (G = 1) a packed row is a query token.
//
// Scores are kept in log2 units (scaled by log2(e)) so the exponentials are exp2f.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

#include "attention.h"

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kBlockM = 16 * kWarps;  // packed query rows per block: 16 per warp
constexpr int kPad = 8;               // elements of padding per smem row: ldmatrix without bank conflicts
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

template <int D>
struct Tile {
    static constexpr int kBlockN = D <= 128 ? 64 : 32;  // keys per tile; smaller for big heads (registers)
    static constexpr int kStride = D + kPad;            // smem row stride in elements
    static constexpr int kSmemElems = (kBlockM + 2 * kBlockN) * kStride;  // Q, K, V tiles
};

// ---- small PTX helpers -------------------------------------------------------------------------

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte async copy global -> shared; bytes past src_bytes (0 or 16) are zero-filled.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
                 "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr(p)));
}

// D(16x8, f32) += A(16x16) * B(16x8), A row-major, B column-major.
template <typename T>
__device__ __forceinline__ void mma_16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1);
template <>
__device__ __forceinline__ void mma_16816<__nv_bfloat16>(float c[4], const uint32_t a[4], uint32_t b0,
                                                         uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void mma_16816<__half>(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two floats -> one register holding two 16-bit values (low = first).
template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
}
template <>
__device__ __forceinline__ uint32_t pack2<__half>(float lo, float hi) {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
}

// ---- the problem, as one block sees it -----------------------------------------------------------

struct Sequence {
    int q_start, q_len;  // rows of q / o
    int k_len;
    int k_start;         // contiguous K/V: first row
    const int* pages;    // paged K/V: this sequence's row of the block table
};

__device__ __forceinline__ Sequence load_sequence(const AttnParams& p, int b) {
    Sequence s;
    s.q_start = p.cu_seqlens_q[b];
    s.q_len = p.cu_seqlens_q[b + 1] - s.q_start;
    if (p.paged) {
        s.k_start = 0;
        s.k_len = p.seqused_k[b];
        s.pages = p.block_table + (size_t)b * p.max_blocks_per_seq;
    } else {
        s.k_start = p.cu_seqlens_k[b];
        s.k_len = p.cu_seqlens_k[b + 1] - s.k_start;
        s.pages = nullptr;
    }
    return s;
}

// Element offset of key j of KV head g in k / v.
template <int D>
__device__ __forceinline__ size_t kv_offset(const AttnParams& p, const Sequence& s, int j, int g) {
    size_t row;
    if (p.paged) {
        int block = s.pages[j / p.page_size];
        row = (size_t)block * p.page_size + j % p.page_size;
    } else {
        row = (size_t)s.k_start + j;
    }
    return (row * p.num_heads_kv + g) * D;
}

// Is key j visible to the query at key position pos (= i + Lk - Lq)?
__device__ __forceinline__ bool attended(const AttnParams& p, int pos, int j, int k_len) {
    if (j >= k_len) return false;
    if (p.causal && j > pos) return false;
    return true;
}

// Copy rows [row0, row0 + rows) of a tile into smem (stride kStride), zero-filling rows >= valid.
// src_of(r) gives the global element offset of tile row r.
template <int D, typename T, typename SrcOf>
__device__ __forceinline__ void load_tile(T* dst, const T* base, int rows, int valid, SrcOf src_of) {
    constexpr int kChunks = D / 8;  // 16-byte chunks per row
    for (int c = threadIdx.x; c < rows * kChunks; c += kThreads) {
        int r = c / kChunks, col = (c % kChunks) * 8;
        bool ok = r < valid;
        const T* src = ok ? base + src_of(r) + col : base;
        cp_async_16(dst + r * Tile<D>::kStride + col, src, ok ? 16 : 0);
    }
}

// ---- the kernel ----------------------------------------------------------------------------------

template <int D, typename T>
__global__ void __launch_bounds__(kThreads) attention_fwd_kernel(const AttnParams p) {
    constexpr int kBlockN = Tile<D>::kBlockN;
    constexpr int kStride = Tile<D>::kStride;
    constexpr int kNTiles = kBlockN / 8;  // n8 tiles of S per warp
    constexpr int kDTiles = D / 8;        // n8 tiles of O per warp

    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* sQ = reinterpret_cast<T*>(smem_raw);
    T* sK = sQ + kBlockM * kStride;
    T* sV = sK + kBlockN * kStride;

    const int m_block = blockIdx.x, g = blockIdx.y, b = blockIdx.z;
    const int group = p.num_heads_q / p.num_heads_kv;
    const Sequence seq = load_sequence(p, b);
    const int rows_total = seq.q_len * group;  // packed rows of this (sequence, kv head)
    const int row0 = m_block * kBlockM;
    if (row0 >= rows_total) return;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int offset = seq.k_len - seq.q_len;  // bottom-right alignment: query i sits at key i + offset
    const T* q = static_cast<const T*>(p.q);
    const T* k = static_cast<const T*>(p.k);
    const T* v = static_cast<const T*>(p.v);

    // Packed row r -> element offset of its query row in q (and o).
    auto q_offset = [&](int r) -> size_t {
        int packed = row0 + r;
        int token = packed / group, head = g * group + packed % group;
        return ((size_t)(seq.q_start + token) * p.num_heads_q + head) * D;
    };

    // The key range any row of this block may attend: [n_begin, n_end).
    const int pos_first = row0 / group + offset;
    const int pos_last = min(row0 + kBlockM, rows_total) - 1;
    const int pos_last_tok = pos_last / group + offset;
    int n_begin = 0, n_end = seq.k_len;
    if (p.causal) n_end = min(n_end, pos_last_tok + 1);
    n_begin = n_begin / kBlockN * kBlockN;

    // Q tile -> smem.
    load_tile<D>(sQ, q, kBlockM, rows_total - row0, q_offset);
    cp_async_commit();

    // Per thread: rows lane/4 and lane/4 + 8 of the warp's 16; O accumulators; running max and sum.
    float o_acc[kDTiles][4];
#pragma unroll
    for (int t = 0; t < kDTiles; ++t)
#pragma unroll
        for (int e = 0; e < 4; ++e) o_acc[t][e] = 0.f;
    float row_max[2] = {-CUDART_INF_F, -CUDART_INF_F};
    float row_sum[2] = {0.f, 0.f};  // this thread's partial sums; reduced over the quad at the end

    const int warp_row0 = warp * 16;
    const bool warp_active = row0 + warp_row0 < rows_total;  // decode: most warps hold no rows
    int my_pos[2];  // key position of this thread's two rows
#pragma unroll
    for (int h = 0; h < 2; ++h) my_pos[h] = (row0 + warp_row0 + lane / 4 + 8 * h) / group + offset;

    const float scale_log2 = p.softmax_scale * kLog2e;

    for (int n0 = n_begin; n0 < n_end; n0 += kBlockN) {
        const int valid = min(kBlockN, seq.k_len - n0);
        auto key_offset = [&](int r) { return kv_offset<D>(p, seq, n0 + r, g); };
        load_tile<D>(sK, k, kBlockN, valid, key_offset);
        cp_async_commit();
        load_tile<D>(sV, v, kBlockN, valid, key_offset);
        cp_async_commit();
        cp_async_wait<1>();  // Q and K are in
        __syncthreads();

        // S = Q K^T for the warp's 16 rows and kBlockN keys (warps without rows skip the math but
        // still load tiles and meet every barrier).
        float s[kNTiles][4];
#pragma unroll
        for (int t = 0; t < kNTiles; ++t)
#pragma unroll
            for (int e = 0; e < 4; ++e) s[t][e] = 0.f;
        if (warp_active) {
#pragma unroll
            for (int kk = 0; kk < D / 16; ++kk) {
                uint32_t a[4];
                ldmatrix_x4(a, sQ + (warp_row0 + lane % 16) * kStride + kk * 16 + (lane / 16) * 8);
#pragma unroll
                for (int t = 0; t < kNTiles; t += 2) {
                    uint32_t bk[4];  // keys 8t..8t+15: b0,b1 of tile t, then of tile t+1
                    ldmatrix_x4(bk, sK + (t * 8 + lane % 8 + (lane / 16) * 8) * kStride + kk * 16 +
                                        ((lane / 8) % 2) * 8);
                    mma_16816<T>(s[t], a, bk[0], bk[1]);
                    mma_16816<T>(s[t + 1], a, bk[2], bk[3]);
                }
            }

            // Scale (and softcap) into log2 units; mask only tiles some row does not fully see.
            const int last = n0 + kBlockN - 1;
            const bool need_mask = last >= seq.k_len || (p.causal && last > pos_first) ||
                                   (p.window_left >= 0 && n0 < pos_last_tok - p.window_left) ||
                                   (p.window_right >= 0 && last > pos_first + p.window_right);
#pragma unroll
            for (int t = 0; t < kNTiles; ++t)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    float x = s[t][e];
                    if (p.softcap > 0.f) {
                        x = p.softcap * tanhf(x * p.softmax_scale / p.softcap) * kLog2e;
                    } else {
                        x *= scale_log2;
                    }
                    if (need_mask) {
                        int j = n0 + t * 8 + (lane % 4) * 2 + (e % 2);
                        if (!attended(p, my_pos[e / 2], j, seq.k_len)) x = -CUDART_INF_F;
                    }
                    s[t][e] = x;
                }

            // Online softmax: new running max per row (over the quad that shares the row).
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float m = row_max[h];
#pragma unroll
                for (int t = 0; t < kNTiles; ++t) m = fmaxf(m, fmaxf(s[t][2 * h], s[t][2 * h + 1]));
                m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, 1));
                m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, 2));
                // A row that has seen no key yet keeps max -inf: subtract 0 instead (exp2(-inf) = 0).
                const float base = m == -CUDART_INF_F ? 0.f : m;
                const float rescale = exp2f(row_max[h] - base);
                row_max[h] = m;
                row_sum[h] *= rescale;
#pragma unroll
                for (int t = 0; t < kDTiles; ++t) {
                    o_acc[t][2 * h] *= rescale;
                    o_acc[t][2 * h + 1] *= rescale;
                }
#pragma unroll
                for (int t = 0; t < kNTiles; ++t) {
                    s[t][2 * h] = exp2f(s[t][2 * h] - base);
                    s[t][2 * h + 1] = exp2f(s[t][2 * h + 1] - base);
                    row_sum[h] += s[t][2 * h] + s[t][2 * h + 1];
                }
            }
        }

        cp_async_wait<0>();  // V is in
        __syncthreads();

        if (warp_active) {
            // O += P V. The S accumulators of two adjacent n8 tiles form one A fragment (16 keys).
#pragma unroll
            for (int kt = 0; kt < kBlockN / 16; ++kt) {
                uint32_t a[4];
                a[0] = pack2<T>(s[2 * kt][0], s[2 * kt][1]);
                a[1] = pack2<T>(s[2 * kt][2], s[2 * kt][3]);
                a[2] = pack2<T>(s[2 * kt + 1][0], s[2 * kt + 1][1]);
                a[3] = pack2<T>(s[2 * kt + 1][2], s[2 * kt + 1][3]);
#pragma unroll
                for (int t = 0; t < kDTiles; t += 2) {
                    uint32_t bv[4];  // d columns 8t..8t+15, transposed: b0,b1 of tile t, then t+1
                    ldmatrix_x4_trans(bv, sV + (kt * 16 + lane % 8 + ((lane / 8) % 2) * 8) * kStride +
                                              t * 8 + (lane / 16) * 8);
                    mma_16816<T>(o_acc[t], a, bv[0], bv[1]);
                    mma_16816<T>(o_acc[t + 1], a, bv[2], bv[3]);
                }
            }
        }
        __syncthreads();  // everyone is done with sK / sV before the next tile overwrites them
    }
    cp_async_wait<0>();  // the Q copy, when there was no key tile at all

    if (!warp_active) return;

    // Finish: full row sums, O / sum, LSE. Rows that attended nothing get O = 0, LSE = -inf.
    T* o = static_cast<T*>(p.o);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        float sum = row_sum[h];
        sum += __shfl_xor_sync(0xffffffff, sum, 1);
        sum += __shfl_xor_sync(0xffffffff, sum, 2);
        const int r = warp_row0 + lane / 4 + 8 * h;
        if (row0 + r >= rows_total) continue;
        const float inv = sum > 0.f ? 1.f / sum : 0.f;
        const size_t base = q_offset(r);
#pragma unroll
        for (int t = 0; t < kDTiles; ++t) {
            const int col = t * 8 + (lane % 4) * 2;
            *reinterpret_cast<uint32_t*>(o + base + col) =
                pack2<T>(o_acc[t][2 * h] * inv, o_acc[t][2 * h + 1] * inv);
        }
        if (lane % 4 == 0) {
            const int packed = row0 + r;
            const int token = packed / group, head = g * group + packed % group;
            p.lse[(size_t)head * p.total_q + seq.q_start + token] =
                sum > 0.f ? (row_max[h] + log2f(sum)) * kLn2 : -CUDART_INF_F;
        }
    }
}

template <int D, typename T>
int launch(const AttnParams& p, cudaStream_t stream) {
    const size_t smem = Tile<D>::kSmemElems * sizeof(T);
    static bool configured = false;  // raise the dynamic smem limit once per instantiation
    if (!configured) {
        cudaError_t err = cudaFuncSetAttribute(attention_fwd_kernel<D, T>,
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (err != cudaSuccess) return err;
        configured = true;
    }
    const int group = p.num_heads_q / p.num_heads_kv;
    const int m_blocks = (p.max_seqlen_q * group + kBlockM - 1) / kBlockM;
    dim3 grid(m_blocks, p.num_heads_kv, p.batch);
    attention_fwd_kernel<D, T><<<grid, kThreads, smem, stream>>>(p);
    return cudaGetLastError();
}

template <typename T>
int dispatch_head_dim(const AttnParams& p, cudaStream_t stream) {
    switch (p.head_dim) {
        case 64: return launch<64, T>(p, stream);
        case 96: return launch<96, T>(p, stream);
        case 128: return launch<128, T>(p, stream);
        case 192: return launch<192, T>(p, stream);
        case 256: return launch<256, T>(p, stream);
        default: return cudaErrorInvalidValue;
    }
}

}  // namespace

extern "C" int ks_attention_fwd(const AttnParams* p, void* stream) {
    if (p->num_heads_kv <= 0 || p->num_heads_q % p->num_heads_kv != 0) return cudaErrorInvalidValue;
    if (p->batch <= 0 || p->max_seqlen_q <= 0) return cudaSuccess;
    cudaStream_t s = static_cast<cudaStream_t>(stream);
    if (p->dtype == KS_DTYPE_BF16) return dispatch_head_dim<__nv_bfloat16>(*p, s);
    if (p->dtype == KS_DTYPE_FP16) return dispatch_head_dim<__half>(*p, s);
    return cudaErrorInvalidValue;
}
