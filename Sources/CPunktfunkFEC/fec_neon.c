// NEON (AArch64 Advanced SIMD) kernels: one whole 64-byte chunk (32 symbols) per step, as two
// halves of 16 symbols: (low bytes [0,16), high bytes [32,48)) and (low [16,32), high [48,64)).
// Each product is 4 nibble extractions and 8 `tbl` lookups into the 16-entry tables of
// `pf_fec_lut`; every nibble is < 16, so `tbl` (which yields 0 for indices ≥ 16) never sees an
// out-of-range index and gives the same bytes as `pshufb`.
#include "fec_internal.h"

#if PF_FEC_AARCH64
#include <arm_neon.h>

/// The eight 16-byte tables of one multiplier.
typedef struct {
    uint8x16_t lo[4], hi[4];
} tables_neon;

static inline tables_neon load_tables(const pf_fec_lut *lut) {
    tables_neon t;
    for (int i = 0; i < 4; i++) {
        t.lo[i] = vld1q_u8(lut->lo[i]);
        t.hi[i] = vld1q_u8(lut->hi[i]);
    }
    return t;
}

/// (*plo, *phi) = m·(xlo, xhi) for 16 symbols given as low-byte and high-byte vectors.
static inline void mul_neon(const tables_neon *t, uint8x16_t xlo, uint8x16_t xhi, uint8x16_t *plo,
                            uint8x16_t *phi) {
    const uint8x16_t mask = vdupq_n_u8(0x0f);
    uint8x16_t n0 = vandq_u8(xlo, mask);
    uint8x16_t n1 = vshrq_n_u8(xlo, 4);
    uint8x16_t n2 = vandq_u8(xhi, mask);
    uint8x16_t n3 = vshrq_n_u8(xhi, 4);
    uint8x16_t lo = veorq_u8(vqtbl1q_u8(t->lo[0], n0), vqtbl1q_u8(t->lo[1], n1));
    uint8x16_t hi = veorq_u8(vqtbl1q_u8(t->hi[0], n0), vqtbl1q_u8(t->hi[1], n1));
    lo = veorq_u8(lo, veorq_u8(vqtbl1q_u8(t->lo[2], n2), vqtbl1q_u8(t->lo[3], n3)));
    hi = veorq_u8(hi, veorq_u8(vqtbl1q_u8(t->hi[2], n2), vqtbl1q_u8(t->hi[3], n3)));
    *plo = lo;
    *phi = hi;
}

#define LD(p, off) vld1q_u8((const uint8_t *)(p) + (off))
#define ST(p, off, v) vst1q_u8((uint8_t *)(p) + (off), (v))

void pf_fec_neon_xor(void *x, const void *y, size_t bytes) {
    for (size_t c = 0; c < bytes; c += 64) {
        for (int o = 0; o < 64; o += 16) ST(x, c + o, veorq_u8(LD(x, c + o), LD(y, c + o)));
    }
}

void pf_fec_neon_mul_add(void *x, const void *y, size_t bytes, const pf_fec_lut *lut) {
    const tables_neon t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        for (int h = 0; h < 32; h += 16) {
            uint8x16_t plo, phi;
            mul_neon(&t, LD(y, c + h), LD(y, c + 32 + h), &plo, &phi);
            ST(x, c + h, veorq_u8(LD(x, c + h), plo));
            ST(x, c + 32 + h, veorq_u8(LD(x, c + 32 + h), phi));
        }
    }
}

void pf_fec_neon_mul(void *x, size_t bytes, const pf_fec_lut *lut) {
    const tables_neon t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        for (int h = 0; h < 32; h += 16) {
            uint8x16_t plo, phi;
            mul_neon(&t, LD(x, c + h), LD(x, c + 32 + h), &plo, &phi);
            ST(x, c + h, plo);
            ST(x, c + 32 + h, phi);
        }
    }
}

void pf_fec_neon_fft(void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    const tables_neon t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        for (int h = 0; h < 32; h += 16) {
            uint8x16_t blo = LD(b, c + h), bhi = LD(b, c + 32 + h), plo, phi;
            mul_neon(&t, blo, bhi, &plo, &phi);
            uint8x16_t alo = veorq_u8(LD(a, c + h), plo);         // a ^= m·b
            uint8x16_t ahi = veorq_u8(LD(a, c + 32 + h), phi);
            ST(a, c + h, alo);
            ST(a, c + 32 + h, ahi);
            ST(b, c + h, veorq_u8(blo, alo));                     // b ^= a
            ST(b, c + 32 + h, veorq_u8(bhi, ahi));
        }
    }
}

void pf_fec_neon_ifft(void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    const tables_neon t = load_tables(lut);
    for (size_t c = 0; c < bytes; c += 64) {
        for (int h = 0; h < 32; h += 16) {
            uint8x16_t alo = LD(a, c + h), ahi = LD(a, c + 32 + h), plo, phi;
            uint8x16_t blo = veorq_u8(LD(b, c + h), alo);         // b ^= a
            uint8x16_t bhi = veorq_u8(LD(b, c + 32 + h), ahi);
            ST(b, c + h, blo);
            ST(b, c + 32 + h, bhi);
            mul_neon(&t, blo, bhi, &plo, &phi);
            ST(a, c + h, veorq_u8(alo, plo));                     // a ^= m·b
            ST(a, c + 32 + h, veorq_u8(ahi, phi));
        }
    }
}

#endif
