// AVX2 kernels: one whole 64-byte chunk (32 symbols) per step — the 32 low bytes and the
// 32 high bytes are one ymm register each. Each 16-byte nibble table is broadcast to both
// 128-bit lanes because `vpshufb` looks up within a lane.
#include "fec_internal.h"

#if PF_FEC_X86
#include <immintrin.h>

#define PF_AVX2 __attribute__((target("avx2")))

/// The eight lane-broadcast tables of one multiplier.
typedef struct {
    __m256i lo[4], hi[4];
} tables256;

PF_AVX2 static inline tables256 load_tables(const pf_fec_lut *lut) {
    tables256 t;
    for (int i = 0; i < 4; i++) {
        t.lo[i] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lut->lo[i]));
        t.hi[i] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lut->hi[i]));
    }
    return t;
}

/// (*plo, *phi) = m·(xlo, xhi) for the 32 symbols of one chunk.
PF_AVX2 static inline void mul256(const tables256 *t, __m256i xlo, __m256i xhi, __m256i *plo,
                                  __m256i *phi) {
    const __m256i mask = _mm256_set1_epi8(0x0f);
    __m256i n0 = _mm256_and_si256(xlo, mask);
    __m256i n1 = _mm256_and_si256(_mm256_srli_epi64(xlo, 4), mask);
    __m256i n2 = _mm256_and_si256(xhi, mask);
    __m256i n3 = _mm256_and_si256(_mm256_srli_epi64(xhi, 4), mask);
    __m256i lo = _mm256_xor_si256(_mm256_shuffle_epi8(t->lo[0], n0), _mm256_shuffle_epi8(t->lo[1], n1));
    __m256i hi = _mm256_xor_si256(_mm256_shuffle_epi8(t->hi[0], n0), _mm256_shuffle_epi8(t->hi[1], n1));
    lo = _mm256_xor_si256(lo, _mm256_xor_si256(_mm256_shuffle_epi8(t->lo[2], n2), _mm256_shuffle_epi8(t->lo[3], n3)));
    hi = _mm256_xor_si256(hi, _mm256_xor_si256(_mm256_shuffle_epi8(t->hi[2], n2), _mm256_shuffle_epi8(t->hi[3], n3)));
    *plo = lo;
    *phi = hi;
}

#define LD(p, off) _mm256_loadu_si256((const __m256i *)((const uint8_t *)(p) + (off)))
#define ST(p, off, v) _mm256_storeu_si256((__m256i *)((uint8_t *)(p) + (off)), (v))

PF_AVX2 void pf_fec_avx2_xor(void *x, const void *y, size_t bytes) {
    for (size_t c = 0; c < bytes; c += 64) {
        ST(x, c, _mm256_xor_si256(LD(x, c), LD(y, c)));
        ST(x, c + 32, _mm256_xor_si256(LD(x, c + 32), LD(y, c + 32)));
    }
}

PF_AVX2 void pf_fec_avx2_mul_add(void *x, const void *y, size_t bytes, const pf_fec_lut *lut) {
    const tables256 t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        __m256i plo, phi;
        mul256(&t, LD(y, c), LD(y, c + 32), &plo, &phi);
        ST(x, c, _mm256_xor_si256(LD(x, c), plo));
        ST(x, c + 32, _mm256_xor_si256(LD(x, c + 32), phi));
    }
}

PF_AVX2 void pf_fec_avx2_mul(void *x, size_t bytes, const pf_fec_lut *lut) {
    const tables256 t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        __m256i plo, phi;
        mul256(&t, LD(x, c), LD(x, c + 32), &plo, &phi);
        ST(x, c, plo);
        ST(x, c + 32, phi);
    }
}

PF_AVX2 void pf_fec_avx2_fft(void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    const tables256 t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        __m256i blo = LD(b, c), bhi = LD(b, c + 32), plo, phi;
        mul256(&t, blo, bhi, &plo, &phi);
        __m256i alo = _mm256_xor_si256(LD(a, c), plo);          // a ^= m·b
        __m256i ahi = _mm256_xor_si256(LD(a, c + 32), phi);
        ST(a, c, alo);
        ST(a, c + 32, ahi);
        ST(b, c, _mm256_xor_si256(blo, alo));                   // b ^= a
        ST(b, c + 32, _mm256_xor_si256(bhi, ahi));
    }
}

PF_AVX2 void pf_fec_avx2_ifft(void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    const tables256 t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        __m256i alo = LD(a, c), ahi = LD(a, c + 32), plo, phi;
        __m256i blo = _mm256_xor_si256(LD(b, c), alo);          // b ^= a
        __m256i bhi = _mm256_xor_si256(LD(b, c + 32), ahi);
        ST(b, c, blo);
        ST(b, c + 32, bhi);
        mul256(&t, blo, bhi, &plo, &phi);
        ST(a, c, _mm256_xor_si256(alo, plo));                   // a ^= m·b
        ST(a, c + 32, _mm256_xor_si256(ahi, phi));
    }
}

#endif
