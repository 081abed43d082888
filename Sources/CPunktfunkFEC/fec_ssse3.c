// SSSE3 kernels: 16 symbols per step. A 64-byte chunk is processed as two halves,
// (low bytes [0,16), high bytes [32,48)) and (low [16,32), high [48,64)); each product is
// 4 nibble extractions and 8 `pshufb` lookups into the 16-entry tables of `pf_fec_lut`.
#include "fec_internal.h"

#if PF_FEC_X86
#include <immintrin.h>

#define PF_SSSE3 __attribute__((target("ssse3")))

/// The eight 16-byte tables of one multiplier.
typedef struct {
    __m128i lo[4], hi[4];
} tables128;

PF_SSSE3 static inline tables128 load_tables(const pf_fec_lut *lut) {
    tables128 t;
    for (int i = 0; i < 4; i++) {
        t.lo[i] = _mm_loadu_si128((const __m128i *)lut->lo[i]);
        t.hi[i] = _mm_loadu_si128((const __m128i *)lut->hi[i]);
    }
    return t;
}

/// (*plo, *phi) = m·(xlo, xhi) for 16 symbols given as low-byte and high-byte vectors.
PF_SSSE3 static inline void mul128(const tables128 *t, __m128i xlo, __m128i xhi, __m128i *plo,
                                   __m128i *phi) {
    const __m128i mask = _mm_set1_epi8(0x0f);
    __m128i n0 = _mm_and_si128(xlo, mask);
    __m128i n1 = _mm_and_si128(_mm_srli_epi64(xlo, 4), mask);
    __m128i n2 = _mm_and_si128(xhi, mask);
    __m128i n3 = _mm_and_si128(_mm_srli_epi64(xhi, 4), mask);
    __m128i lo = _mm_xor_si128(_mm_shuffle_epi8(t->lo[0], n0), _mm_shuffle_epi8(t->lo[1], n1));
    __m128i hi = _mm_xor_si128(_mm_shuffle_epi8(t->hi[0], n0), _mm_shuffle_epi8(t->hi[1], n1));
    lo = _mm_xor_si128(lo, _mm_xor_si128(_mm_shuffle_epi8(t->lo[2], n2), _mm_shuffle_epi8(t->lo[3], n3)));
    hi = _mm_xor_si128(hi, _mm_xor_si128(_mm_shuffle_epi8(t->hi[2], n2), _mm_shuffle_epi8(t->hi[3], n3)));
    *plo = lo;
    *phi = hi;
}

#define LD(p, off) _mm_loadu_si128((const __m128i *)((const uint8_t *)(p) + (off)))
#define ST(p, off, v) _mm_storeu_si128((__m128i *)((uint8_t *)(p) + (off)), (v))

PF_SSSE3 void pf_fec_ssse3_xor(void *x, const void *y, size_t bytes) {
    for (size_t c = 0; c < bytes; c += 64) {
        for (int o = 0; o < 64; o += 16) ST(x, c + o, _mm_xor_si128(LD(x, c + o), LD(y, c + o)));
    }
}

PF_SSSE3 void pf_fec_ssse3_mul_add(void *x, const void *y, size_t bytes, const pf_fec_lut *lut) {
    const tables128 t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        for (int h = 0; h < 32; h += 16) {
            __m128i plo, phi;
            mul128(&t, LD(y, c + h), LD(y, c + 32 + h), &plo, &phi);
            ST(x, c + h, _mm_xor_si128(LD(x, c + h), plo));
            ST(x, c + 32 + h, _mm_xor_si128(LD(x, c + 32 + h), phi));
        }
    }
}

PF_SSSE3 void pf_fec_ssse3_mul(void *x, size_t bytes, const pf_fec_lut *lut) {
    const tables128 t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        for (int h = 0; h < 32; h += 16) {
            __m128i plo, phi;
            mul128(&t, LD(x, c + h), LD(x, c + 32 + h), &plo, &phi);
            ST(x, c + h, plo);
            ST(x, c + 32 + h, phi);
        }
    }
}

PF_SSSE3 void pf_fec_ssse3_fft(void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    const tables128 t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        for (int h = 0; h < 32; h += 16) {
            __m128i blo = LD(b, c + h), bhi = LD(b, c + 32 + h), plo, phi;
            mul128(&t, blo, bhi, &plo, &phi);
            __m128i alo = _mm_xor_si128(LD(a, c + h), plo);       // a ^= m·b
            __m128i ahi = _mm_xor_si128(LD(a, c + 32 + h), phi);
            ST(a, c + h, alo);
            ST(a, c + 32 + h, ahi);
            ST(b, c + h, _mm_xor_si128(blo, alo));                // b ^= a
            ST(b, c + 32 + h, _mm_xor_si128(bhi, ahi));
        }
    }
}

PF_SSSE3 void pf_fec_ssse3_ifft(void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    const tables128 t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        for (int h = 0; h < 32; h += 16) {
            __m128i alo = LD(a, c + h), ahi = LD(a, c + 32 + h), plo, phi;
            __m128i blo = _mm_xor_si128(LD(b, c + h), alo);       // b ^= a
            __m128i bhi = _mm_xor_si128(LD(b, c + 32 + h), ahi);
            ST(b, c + h, blo);
            ST(b, c + 32 + h, bhi);
            mul128(&t, blo, bhi, &plo, &phi);
            ST(a, c + h, _mm_xor_si128(alo, plo));                // a ^= m·b
            ST(a, c + 32 + h, _mm_xor_si128(ahi, phi));
        }
    }
}

#endif
