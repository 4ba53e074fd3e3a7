// The fp32 reference: attention computed in plain fp32 on CUDA cores, from the same inputs.
//
// Written to be obviously right rather than fast, and independent of the seed (no shared code):
// one block of 128 threads owns 16 query rows of one query head of one sequence. For each tile of
// 32 keys it computes the 16 x 32 scores into shared memory, applies softcap and the mask exactly
// as attention.h states them, updates a running max and sum per row, and accumulates P V in fp32.
// Key tiles that no row of the block can see are skipped; within a tile every pair is tested.
// Outputs are fp32: o [total_q, Hq, D] and lse [Hq, total_q] (the evaluator hands fp32 buffers).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <float.h>
#include <math.h>
#include <math_constants.h>

#include "attention.h"

namespace {

constexpr int kRows = 16;     // query rows per block
constexpr int kKeys = 32;     // keys per tile
constexpr int kThreads = 128;
constexpr int kMaxD = 256;

__device__ __forceinline__ float to_float(const void* base, size_t i, int dtype) {
    if (dtype == KS_DTYPE_BF16) return __bfloat162float(static_cast<const __nv_bfloat16*>(base)[i]);
    return __half2float(static_cast<const __half*>(base)[i]);
}

__global__ void __launch_bounds__(kThreads) attention_reference_kernel(const AttnParams p) {
    const int D = p.head_dim;
    extern __shared__ __align__(16) float smem[];
    float* sQ = smem;                      // [kRows][D]
    float* sK = sQ + kRows * D;            // [kKeys][D + 1] (padded: column reads hit distinct banks)
    float* sV = sK + kKeys * (D + 1);      // [kKeys][D]
    float* sP = sV + kKeys * D;            // [kRows][kKeys] scores, then probabilities
    float* sMax = sP + kRows * kKeys;      // [kRows] running max
    float* sSum = sMax + kRows;            // [kRows] running sum
    float* sScale = sSum + kRows;          // [kRows] rescale of the old accumulator this tile

    const int b = blockIdx.z, head = blockIdx.y, row0 = blockIdx.x * kRows;
    const int q_start = p.cu_seqlens_q[b];
    const int q_len = p.cu_seqlens_q[b + 1] - q_start;
    if (row0 >= q_len) return;
    const int k_len = p.paged ? p.seqused_k[b] : p.cu_seqlens_k[b + 1] - p.cu_seqlens_k[b];
    const int kv_head = head / (p.num_heads_q / p.num_heads_kv);
    const int rows = min(kRows, q_len - row0);
    const int tid = threadIdx.x;

    for (int i = tid; i < kRows * D; i += kThreads) {
        int r = i / D, d = i % D;
        sQ[i] = r < rows ? to_float(p.q, ((size_t)(q_start + row0 + r) * p.num_heads_q + head) * D + d, p.dtype)
                         : 0.f;
    }
    if (tid < kRows) {
        sMax[tid] = -CUDART_INF_F;
        sSum[tid] = 0.f;
    }

    // Each thread accumulates output columns d = tid + 128 * c of all 16 rows.
    float acc[kRows][kMaxD / kThreads];
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int c = 0; c < kMaxD / kThreads; ++c) acc[r][c] = 0.f;

    // Key positions: query i sits at key position i + k_len - q_len (bottom-right alignment).
    const int offset = k_len - q_len;
    const int pos_lo = row0 + offset, pos_hi = row0 + rows - 1 + offset;
    int key_lo = 0, key_hi = k_len;  // a superset of what any row here can attend
    if (p.window_left >= 0) key_lo = max(0, pos_lo - p.window_left);
    if (p.causal) key_hi = min(key_hi, pos_hi + 1);
    if (p.window_right >= 0) key_hi = min(key_hi, pos_hi + p.window_right + 1);

    for (int n0 = key_lo; n0 < key_hi; n0 += kKeys) {
        __syncthreads();  // the previous tile's sK, sV, sP are no longer read
        for (int i = tid; i < kKeys * D; i += kThreads) {
            int c = i / D, d = i % D, j = n0 + c;
            float kval = 0.f, vval = 0.f;
            if (j < k_len) {
                size_t row;
                if (p.paged) {
                    int block = p.block_table[(size_t)b * p.max_blocks_per_seq + j / p.page_size];
                    row = (size_t)block * p.page_size + j % p.page_size;
                } else {
                    row = (size_t)p.cu_seqlens_k[b] + j;
                }
                size_t idx = (row * p.num_heads_kv + kv_head) * D + d;
                kval = to_float(p.k, idx, p.dtype);
                vval = to_float(p.v, idx, p.dtype);
            }
            sK[c * (D + 1) + d] = kval;
            sV[c * D + d] = vval;
        }
        __syncthreads();

        // Scores: thread -> key c = tid % 32, rows tid / 32 + 4 * i.
        {
            const int c = tid % kKeys, j = n0 + c;
            float dot[kRows / 4] = {0.f, 0.f, 0.f, 0.f};
            for (int d = 0; d < D; d += 4) {
                const float* kc = sK + c * (D + 1) + d;
#pragma unroll
                for (int i = 0; i < kRows / 4; ++i) {
                    const float4 qv = *reinterpret_cast<const float4*>(sQ + (tid / kKeys + 4 * i) * D + d);
                    dot[i] += qv.x * kc[0] + qv.y * kc[1] + qv.z * kc[2] + qv.w * kc[3];
                }
            }
            for (int i = 0; i < kRows / 4; ++i) {
                const int r = tid / kKeys + 4 * i;
                const int pos = row0 + r + offset;
                float s = dot[i] * p.softmax_scale;
                if (p.softcap > 0.f) s = p.softcap * tanhf(s / p.softcap);
                bool visible = j < k_len && r < rows;
                if (p.causal && j > pos) visible = false;
                if (p.window_left >= 0 && j < pos - p.window_left) visible = false;
                if (p.window_right >= 0 && j > pos + p.window_right) visible = false;
                sP[r * kKeys + c] = visible ? s : -CUDART_INF_F;
            }
        }
        __syncthreads();

        // Running max and sum per row: warp w handles rows w, w + 4, ...; lane = key.
        {
            const int warp = tid / 32, lane = tid % 32;
            for (int r = warp; r < kRows; r += 4) {
                float s = sP[r * kKeys + lane];
                float m = s;
                for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
                const float old_max = sMax[r];
                const float new_max = fmaxf(old_max, m);
                float pr = new_max == -CUDART_INF_F ? 0.f : expf(s - new_max);
                float sum = pr;
                for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffff, sum, o);
                sP[r * kKeys + lane] = pr;
                __syncwarp();
                if (lane == 0) {
                    const float scale = old_max == -CUDART_INF_F ? 0.f : expf(old_max - new_max);
                    sScale[r] = scale;
                    sSum[r] = sSum[r] * scale + sum;
                    sMax[r] = new_max;
                }
            }
        }
        __syncthreads();

        // acc = acc * scale + P V.
#pragma unroll
        for (int cI = 0; cI < kMaxD / kThreads; ++cI) {
            const int d = tid + kThreads * cI;
            if (d < D) {
#pragma unroll
                for (int r = 0; r < kRows; ++r) acc[r][cI] *= sScale[r];
                for (int c = 0; c < kKeys; c += 4) {
                    const float v0 = sV[c * D + d], v1 = sV[(c + 1) * D + d];
                    const float v2 = sV[(c + 2) * D + d], v3 = sV[(c + 3) * D + d];
#pragma unroll
                    for (int r = 0; r < kRows; ++r) {
                        const float4 pr = *reinterpret_cast<const float4*>(sP + r * kKeys + c);
                        acc[r][cI] += pr.x * v0 + pr.y * v1 + pr.z * v2 + pr.w * v3;
                    }
                }
            }
        }
    }
    __syncthreads();

    float* o = static_cast<float*>(p.o);
#pragma unroll
    for (int cI = 0; cI < kMaxD / kThreads; ++cI) {
        const int d = tid + kThreads * cI;
        if (d < D) {
#pragma unroll
            for (int r = 0; r < kRows; ++r) {
                const float sum = sSum[r];
                if (r < rows)
                    o[((size_t)(q_start + row0 + r) * p.num_heads_q + head) * D + d] = sum > 0.f ? acc[r][cI] / sum : 0.f;
            }
        }
    }
    if (tid < rows) {
        // A row with no key has lse = -inf by the task's definition. The evaluator wants finite
        // reference values, and harness.py masks these elements out of every comparison, so the
        // reference stores the most negative finite float there instead.
        const float sum = sSum[tid];
        p.lse[(size_t)head * p.total_q + q_start + row0 + tid] = sum > 0.f ? sMax[tid] + logf(sum) : -FLT_MAX;
    }
}

}  // namespace

extern "C" int ks_attention_fwd_reference(const AttnParams* p, void* stream) {
    const int D = p->head_dim;
    if (D <= 0 || D > kMaxD || p->num_heads_kv <= 0 || p->num_heads_q % p->num_heads_kv != 0)
        return cudaErrorInvalidValue;
    if (p->dtype != KS_DTYPE_BF16 && p->dtype != KS_DTYPE_FP16) return cudaErrorInvalidValue;
    if (p->batch <= 0 || p->max_seqlen_q <= 0) return cudaSuccess;
    const size_t smem = sizeof(float) * (kRows * D + kKeys * (D + 1) + kKeys * D + kRows * kKeys + 3 * kRows);
    cudaError_t err = cudaFuncSetAttribute(attention_reference_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (err != cudaSuccess) return err;
    dim3 grid((p->max_seqlen_q + kRows - 1) / kRows, p->num_heads_q, p->batch);
    attention_reference_kernel<<<grid, kThreads, smem, static_cast<cudaStream_t>(stream)>>>(*p);
    return cudaGetLastError();
}
