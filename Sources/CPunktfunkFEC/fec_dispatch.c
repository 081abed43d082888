// Multiplier tables, CPU detection / kernel selection, and the public entry points of pf_fec.h,
// which dispatch to the portable, SSSE3, AVX2 or NEON kernel files.
#include <pthread.h>
#include <stdatomic.h>
#include "fec_internal.h"

#if PF_FEC_AARCH64
#include <sys/auxv.h>   // getauxval; glibc's bits/hwcap.h brings HWCAP_ASIMD
#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1ul << 1)   // arch/arm64/include/uapi/asm/hwcap.h
#endif
#endif

// ---- multiplier tables ---------------------------------------------------------------------

/// a + b modulo 65535 in one's-complement form (data-plane.md §2.5 `add_mod`); result in 0…65535.
static inline uint16_t add_mod(uint16_t a, uint16_t b) {
    uint32_t s = (uint32_t)a + b;
    return (uint16_t)(s + (s >> 16));
}

void pf_fec_lut_build(pf_fec_lut *lut, const uint16_t *exp, const uint16_t *log, uint16_t log_m) {
    // m·2^b for the 16 basis bits; every other product is an XOR of these (linearity).
    uint16_t basis[16];
    for (int b = 0; b < 16; b++) basis[b] = exp[add_mod(log[1u << b], log_m)];
    for (int i = 0; i < 4; i++) {
        lut->prod[i][0] = 0;
        for (unsigned v = 1; v < 16; v++) {
            unsigned low = v & (0u - v);  // lowest set bit of v
            lut->prod[i][v] = lut->prod[i][v ^ low] ^ basis[4 * i + __builtin_ctz(v)];
        }
        for (int v = 0; v < 16; v++) {
            lut->lo[i][v] = (uint8_t)lut->prod[i][v];
            lut->hi[i][v] = (uint8_t)(lut->prod[i][v] >> 8);
        }
    }
}

// ---- kernel selection ----------------------------------------------------------------------

static pthread_once_t detect_once = PTHREAD_ONCE_INIT;
static int supported_mask;          // bit k set ⇔ kernel k runs here; written once in detect()
static int best_kernel;             // highest set bit of supported_mask
static atomic_int active_kernel;    // process-wide default, best_kernel unless forced

static void detect(void) {
    int mask = 1 << PF_FEC_KERNEL_PORTABLE;
#if PF_FEC_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("ssse3")) mask |= 1 << PF_FEC_KERNEL_SSSE3;
    // Also implies OS support for the YMM state (the runtime checks XGETBV).
    if (__builtin_cpu_supports("avx2")) mask |= 1 << PF_FEC_KERNEL_AVX2;
#endif
#if PF_FEC_AARCH64
    // Advanced SIMD is part of every ARMv8-A application core, but the OS says whether it may
    // be used (HWCAP_ASIMD in the auxiliary vector).
    if (getauxval(AT_HWCAP) & HWCAP_ASIMD) mask |= 1 << PF_FEC_KERNEL_NEON;
#endif
    supported_mask = mask;
    best_kernel = 31 - __builtin_clz((unsigned)mask);
    atomic_store(&active_kernel, best_kernel);
}

int pf_fec_kernel_supported(int kernel) {
    pthread_once(&detect_once, detect);
    return kernel >= 0 && kernel < PF_FEC_KERNEL_COUNT && ((supported_mask >> kernel) & 1);
}

int pf_fec_kernel_best(void) {
    pthread_once(&detect_once, detect);
    return best_kernel;
}

int pf_fec_kernel_active(void) {
    pthread_once(&detect_once, detect);
    return atomic_load(&active_kernel);
}

int pf_fec_kernel_force(int kernel) {
    if (!pf_fec_kernel_supported(kernel)) return 0;
    atomic_store(&active_kernel, kernel);
    return 1;
}

const char *pf_fec_kernel_name(int kernel) {
    switch (kernel) {
    case PF_FEC_KERNEL_PORTABLE: return "portable";
    case PF_FEC_KERNEL_SSSE3: return "ssse3";
    case PF_FEC_KERNEL_AVX2: return "avx2";
    case PF_FEC_KERNEL_NEON: return "neon";
    default: return "unknown";
    }
}

// ---- dispatch ------------------------------------------------------------------------------

#if PF_FEC_X86
#define DISPATCH(kernel, op, ...)                                                   \
    switch (kernel) {                                                               \
    case PF_FEC_KERNEL_AVX2: pf_fec_avx2_##op(__VA_ARGS__); break;                  \
    case PF_FEC_KERNEL_SSSE3: pf_fec_ssse3_##op(__VA_ARGS__); break;                \
    default: pf_fec_portable_##op(__VA_ARGS__); break;                              \
    }
#elif PF_FEC_AARCH64
#define DISPATCH(kernel, op, ...)                                                   \
    switch (kernel) {                                                               \
    case PF_FEC_KERNEL_NEON: pf_fec_neon_##op(__VA_ARGS__); break;                  \
    default: pf_fec_portable_##op(__VA_ARGS__); break;                              \
    }
#else
#define DISPATCH(kernel, op, ...) ((void)(kernel), pf_fec_portable_##op(__VA_ARGS__))
#endif

void pf_fec_xor(int kernel, void *x, const void *y, size_t bytes) {
    DISPATCH(kernel, xor, x, y, bytes);
}

void pf_fec_mul_add(int kernel, void *x, const void *y, size_t bytes, const pf_fec_lut *lut) {
    DISPATCH(kernel, mul_add, x, y, bytes, lut);
}

void pf_fec_mul(int kernel, void *x, size_t bytes, const pf_fec_lut *lut) {
    DISPATCH(kernel, mul, x, bytes, lut);
}

void pf_fec_fft_butterfly(int kernel, void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    DISPATCH(kernel, fft, a, b, bytes, lut);
}

void pf_fec_ifft_butterfly(int kernel, void *a, void *b, size_t bytes, const pf_fec_lut *lut) {
    DISPATCH(kernel, ifft, a, b, bytes, lut);
}
