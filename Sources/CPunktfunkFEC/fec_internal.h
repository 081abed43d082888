// Internal declarations shared by the kernel files of CPunktfunkFEC (not part of the module API).
// Each kernel set implements the five shard operations of pf_fec.h with identical results;
// `bytes` is always a multiple of 64 (see the layout note in pf_fec.h).
#ifndef PF_FEC_INTERNAL_H
#define PF_FEC_INTERNAL_H

#include "pf_fec.h"

#if defined(__x86_64__) || defined(__i386__)
#define PF_FEC_X86 1
#else
#define PF_FEC_X86 0
#endif

// AArch64 only: its Advanced SIMD has the 16-byte table lookup (`tbl`) the kernel needs; 32-bit
// ARM's `vtbl` looks up 8-byte tables and is not implemented.
#if defined(__aarch64__)
#define PF_FEC_AARCH64 1
#else
#define PF_FEC_AARCH64 0
#endif

#define PF_FEC_KERNEL_DECLS(name)                                                               \
    void pf_fec_##name##_xor(void *x, const void *y, size_t bytes);                             \
    void pf_fec_##name##_mul_add(void *x, const void *y, size_t bytes, const pf_fec_lut *lut);  \
    void pf_fec_##name##_mul(void *x, size_t bytes, const pf_fec_lut *lut);                     \
    void pf_fec_##name##_fft(void *a, void *b, size_t bytes, const pf_fec_lut *lut);            \
    void pf_fec_##name##_ifft(void *a, void *b, size_t bytes, const pf_fec_lut *lut);

PF_FEC_KERNEL_DECLS(portable)
#if PF_FEC_X86
PF_FEC_KERNEL_DECLS(ssse3)
PF_FEC_KERNEL_DECLS(avx2)
#endif
#if PF_FEC_AARCH64
PF_FEC_KERNEL_DECLS(neon)
#endif

#endif
