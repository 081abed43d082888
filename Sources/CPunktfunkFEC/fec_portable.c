// Portable scalar kernels: one GF(2^16) symbol at a time through the 16-bit nibble tables
// `lut->prod` (4 lookups per product). Reference for the SIMD kernels; used on CPUs without
// SSSE3 or NEON.
#include <string.h>
#include "fec_internal.h"

/// m·s for one symbol s, by XOR-linearity: sum of the four nibble partial products.
static inline uint16_t mul_symbol(const pf_fec_lut *lut, uint16_t s) {
    return lut->prod[0][s & 15] ^ lut->prod[1][(s >> 4) & 15] ^ lut->prod[2][(s >> 8) & 15] ^
           lut->prod[3][s >> 12];
}

void pf_fec_portable_xor(void *x, const void *y, size_t bytes) {
    uint8_t *restrict xp = x;
    const uint8_t *restrict yp = y;
    for (size_t i = 0; i < bytes; i++) xp[i] ^= yp[i];
}

void pf_fec_portable_mul_add(void *x, const void *y, size_t bytes, const pf_fec_lut *lut) {
    uint8_t *restrict xp = x;
    const uint8_t *restrict yp = y;
    for (size_t c = 0; c < bytes; c += 64) {
        for (int j = 0; j < 32; j++) {
            uint16_t p = mul_symbol(lut, (uint16_t)(yp[c + j] | (yp[c + 32 + j] << 8)));
            xp[c + j] ^= (uint8_t)p;
            xp[c + 32 + j] ^= (uint8_t)(p >> 8);
        }
    }
}

void pf_fec_portable_mul(void *x, size_t bytes, const pf_fec_lut *lut) {
    uint8_t *xp = x;
    for (size_t c = 0; c < bytes; c += 64) {
        for (int j = 0; j < 32; j++) {
            uint16_t p = mul_symbol(lut, (uint16_t)(xp[c + j] | (xp[c + 32 + j] << 8)));
            xp[c + j] = (uint8_t)p;
            xp[c + 32 + j] = (uint8_t)(p >> 8);
        }
    }
}

void pf_fec_portable_fft(void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    // a ^= m·b, then b ^= a (new a).
    pf_fec_portable_mul_add(a, b, bytes, lut);
    pf_fec_portable_xor(b, a, bytes);
}

void pf_fec_portable_ifft(void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    // b ^= a, then a ^= m·b (new b).
    pf_fec_portable_xor(b, a, bytes);
    pf_fec_portable_mul_add(a, b, bytes, lut);
}
