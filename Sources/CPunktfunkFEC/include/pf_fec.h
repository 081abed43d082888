// GF(2^16) shard kernels for the Leopard Reed–Solomon code (data-plane.md §2.5).
//
// The Leopard algorithm itself (tables, FFT/IFFT loops, rates, decoding) lives in Swift
// (Sources/PunktfunkWire/FEC). This C target only holds the per-shard hot loops, with an AVX2,
// an SSSE3 (x86-64), a NEON (AArch64) and a portable scalar implementation chosen at run time.
//
// Shard layout ("work layout", identical to reed-solomon-simd 3.1.0's internal one):
//   a shard is `bytes` bytes, `bytes` a positive multiple of 64, made of 64-byte chunks;
//   chunk c holds 32 GF(2^16) symbols: symbol j = byte[64c + j] | byte[64c + 32 + j] << 8
//   (32 low bytes, then 32 high bytes). Every kernel treats each symbol position
//   independently, so the caller is free to put anything into unused symbol positions
//   (e.g. the zero padding of a shard whose wire length is not a multiple of 64).
//
// Multipliers are given as a `pf_fec_lut` built by `pf_fec_lut_build` from the logarithm
// `log_m` of the field element (log_m in 0...65535; 65535 acts like 0, i.e. multiply by 1).
// Callers implement the Leopard rule "log_m == 65535 ⇒ skip the multiply" themselves by calling
// `pf_fec_xor` instead of a butterfly.
//
// Thread safety: every function is re-entrant; the only global state is the kernel selection
// (`pf_fec_kernel_active` / `pf_fec_kernel_force`), which is an atomic int.
#ifndef PF_FEC_H
#define PF_FEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Kernel sets, in increasing order of preference. SSSE3/AVX2 exist only on x86, NEON only on
/// AArch64, so a CPU supports the portable set plus those of its own architecture.
enum {
    PF_FEC_KERNEL_PORTABLE = 0,
    PF_FEC_KERNEL_SSSE3 = 1,
    PF_FEC_KERNEL_AVX2 = 2,
    PF_FEC_KERNEL_NEON = 3,
    PF_FEC_KERNEL_COUNT = 4
};

/// Multiply-by-constant table for one multiplier m.
/// `lo[i][v]` / `hi[i][v]`: low / high byte of m·(v << 4i), i = nibble position 0…3, v = 0…15.
/// `prod[i][v]`: the same products as 16-bit values (used by the portable kernel).
/// Valid because multiplication by m is XOR-linear in the Cantor-basis representation.
typedef struct pf_fec_lut {
    uint8_t lo[4][16];
    uint8_t hi[4][16];
    uint16_t prod[4][16];
} pf_fec_lut;

/// Fills `lut` for the multiplier whose logarithm is `log_m`.
/// `exp` and `log` are the 65536-entry tables of data-plane.md §2.5 (exp[65535] == exp[0]).
void pf_fec_lut_build(pf_fec_lut *lut, const uint16_t *exp, const uint16_t *log, uint16_t log_m);

/// 1 if this CPU (and OS) can run kernel set `kernel`, else 0. The portable set always runs.
int pf_fec_kernel_supported(int kernel);
/// The fastest supported kernel set.
int pf_fec_kernel_best(void);
/// The process-wide kernel set used by default: the best one unless forced.
int pf_fec_kernel_active(void);
/// Makes `kernel` the process-wide default. Returns 1 on success, 0 if unsupported/unknown.
int pf_fec_kernel_force(int kernel);
/// "portable", "ssse3", "avx2", "neon" (or "unknown").
const char *pf_fec_kernel_name(int kernel);

// Shard kernels. `bytes` must be a multiple of 64 (0 is allowed and does nothing); the two
// shards must not overlap. `kernel` must be one `pf_fec_kernel_supported` accepts.

/// x ^= y  (x and y must not overlap).
void pf_fec_xor(int kernel, void *x, const void *y, size_t bytes);
/// x ^= m·y.
void pf_fec_mul_add(int kernel, void *x, const void *y, size_t bytes, const pf_fec_lut *lut);
/// x = m·x  (in place).
void pf_fec_mul(int kernel, void *x, size_t bytes, const pf_fec_lut *lut);
/// FFT butterfly: a ^= m·b; b ^= a.
void pf_fec_fft_butterfly(int kernel, void *a, void *b, size_t bytes, const pf_fec_lut *lut);
/// IFFT butterfly: b ^= a; a ^= m·b.
void pf_fec_ifft_butterfly(int kernel, void *a, void *b, size_t bytes, const pf_fec_lut *lut);

#ifdef __cplusplus
}
#endif

#endif
