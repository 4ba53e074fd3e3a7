/* The evaluator's input generator: fresh values for a timed round, bit-identical on the CPU (C)
 * and on the GPU (CUDA), so the verdict can regenerate exactly the inputs a candidate saw.
 *
 * Each float element of a base input is multiplied by a factor drawn from a counter-based hash
 * of (round seed, element index): a random sign times 1 + k * 2^-18 with |k| <= 32768, i.e. a
 * magnitude in [0.875, 1.125). The factor is exact in fp32, so the product is one IEEE rounding
 * (then one rounding to bf16 / f16 for those storage types, done with integer code rather than
 * compiler intrinsics so both sides round the same way). Symmetric distributions (every shipped
 * harness draws normals) keep their distribution; the contents change unpredictably each round.
 */
#ifndef KS_GEN_H
#define KS_GEN_H

#include <stdint.h>

#ifdef __CUDACC__
#define KS_HD __host__ __device__ __forceinline__
#else
#define KS_HD static inline
#endif

enum { KS_KIND_F32 = 0, KS_KIND_F64 = 1, KS_KIND_F16 = 2, KS_KIND_BF16 = 3, KS_KIND_COPY = 4 };

KS_HD uint64_t ks_mix(uint64_t seed, uint64_t i) {
    uint64_t z = seed + i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

KS_HD float ks_factor(uint64_t seed, uint64_t i) {
    uint64_t h = ks_mix(seed, i);
    float m = 1.0f + (float)((int32_t)(h & 0xFFFFu) - 32768) * 3.814697265625e-06f; /* 2^-18 */
    return ((h >> 16) & 1u) ? -m : m;
}

KS_HD uint32_t ks_f32_bits(float f) {
    union { float f; uint32_t u; } v;
    v.f = f;
    return v.u;
}

KS_HD float ks_bits_f32(uint32_t u) {
    union { float f; uint32_t u; } v;
    v.u = u;
    return v.f;
}

KS_HD uint16_t ks_f32_to_bf16(float f) {
    uint32_t u = ks_f32_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0u; /* NaN */
    return (uint16_t)((u + ((u >> 16) & 1u) + 0x7FFFu) >> 16);
}

KS_HD float ks_bf16_to_f32(uint16_t b) { return ks_bits_f32((uint32_t)b << 16); }

KS_HD uint16_t ks_f32_to_f16(float f) {
    uint32_t x = ks_f32_bits(f);
    uint32_t sign = (x >> 16) & 0x8000u, mant = x & 0x7FFFFFu;
    int32_t exp = (int32_t)((x >> 23) & 0xFFu);
    if (exp == 0xFF) return (uint16_t)(sign | 0x7C00u | (mant ? 0x200u | (mant >> 13) : 0u));
    int32_t e = exp - 112; /* rebias 127 -> 15 */
    if (e >= 0x1F) return (uint16_t)(sign | 0x7C00u);
    if (e <= 0) { /* a subnormal half (or zero) */
        if (e < -10) return (uint16_t)sign;
        uint32_t m = mant | 0x800000u;
        int shift = 14 - e;
        uint32_t half = m >> shift, rem = m & ((1u << shift) - 1u), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u))) ++half;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((uint32_t)e << 10) | (mant >> 13), rem = mant & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half; /* a carry rounds up to inf */
    return (uint16_t)(sign | half);
}

KS_HD float ks_f16_to_f32(uint16_t h) {
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16, exp = ((uint32_t)h >> 10) & 0x1Fu, mant = (uint32_t)h & 0x3FFu;
    if (exp == 0x1F) return ks_bits_f32(sign | 0x7F800000u | (mant << 13));
    if (exp == 0) {
        if (mant == 0) return ks_bits_f32(sign);
        int e = -1; /* normalise the subnormal */
        do { ++e; mant <<= 1; } while (!(mant & 0x400u));
        return ks_bits_f32(sign | ((uint32_t)(112 - e) << 23) | ((mant & 0x3FFu) << 13));
    }
    return ks_bits_f32(sign | ((exp + 112u) << 23) | (mant << 13));
}

#ifdef __CUDA_ARCH__ /* device code: no contraction, round to nearest */
#define KS_MUL(a, b) __fmul_rn((a), (b))
#define KS_DMUL(a, b) __dmul_rn((a), (b))
#else
#define KS_MUL(a, b) ((a) * (b))
#define KS_DMUL(a, b) ((a) * (b))
#endif

/* element i of a refreshed input: dst[i] = base[i] * factor(seed, i), in the storage type */
KS_HD void ks_refresh_one(void* dst, const void* base, uint64_t i, int kind, uint64_t seed) {
    switch (kind) {
    case KS_KIND_F32:
        ((float*)dst)[i] = KS_MUL(((const float*)base)[i], ks_factor(seed, i));
        break;
    case KS_KIND_F64:
        ((double*)dst)[i] = KS_DMUL(((const double*)base)[i], (double)ks_factor(seed, i));
        break;
    case KS_KIND_F16:
        ((uint16_t*)dst)[i] = ks_f32_to_f16(KS_MUL(ks_f16_to_f32(((const uint16_t*)base)[i]), ks_factor(seed, i)));
        break;
    case KS_KIND_BF16:
        ((uint16_t*)dst)[i] = ks_f32_to_bf16(KS_MUL(ks_bf16_to_f32(((const uint16_t*)base)[i]), ks_factor(seed, i)));
        break;
    default:
        ((unsigned char*)dst)[i] = ((const unsigned char*)base)[i];
    }
}

#endif
