// A C driver of the GF(2^16) Leopard code over CPunktfunkFEC's kernels, for the AArch64 check
// (Tests/aarch64/run.sh), where no Swift toolchain runs the package's own coder. It follows
// Sources/PunktfunkWire/FEC step for step (tables, work layout, rates, erasure locator,
// transforms) so the same kernel calls happen in the same order; its output is judged only
// against the reed-solomon-simd vectors (Tests/Fixtures/fec-vectors.txt), never against Swift.
#ifndef PF_LEOPARD_CHECK_H
#define PF_LEOPARD_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// data-plane.md §2.5 tables: exp/log in the Cantor basis (65536 entries, exp[65535] == exp[0],
/// log[0] == 65535) and the FFT skew logs (65535 entries, 65535 = skip the multiply).
typedef struct leo_tables {
    uint16_t exp[65536];
    uint16_t log[65536];
    uint16_t skew[65535];
} leo_tables;

/// Fills `t` exactly as GF16Tables.swift does.
void leo_tables_build(leo_tables *t);

/// One coder pinned to kernel set `kernel` (pf_fec.h PF_FEC_KERNEL_*). Scratch grows only.
typedef struct leo_coder leo_coder;

leo_coder *leo_coder_new(const leo_tables *t, int kernel);
void leo_coder_free(leo_coder *c);

/// m parity shards of k data shards of `bytes` (even) bytes; data i at data + i·stride,
/// parity j written to parity + j·stride. 0, or -1 for an unsupported geometry.
int leo_encode(leo_coder *c, int k, int m, size_t bytes, const uint8_t *data, size_t stride,
               uint8_t *parity);

/// Rebuilds the data shards whose `present` flag is false (flags: k data, then m parity).
/// 0, or -1 for an unsupported geometry or fewer than k shards present.
int leo_reconstruct(leo_coder *c, int k, int m, size_t bytes, uint8_t *data, size_t stride,
                    const uint8_t *parity, const bool *present);

#endif
