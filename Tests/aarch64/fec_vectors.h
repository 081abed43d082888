// Reader of Tests/Fixtures/fec-vectors.txt (parity from reed-solomon-simd 3.1.0; see
// /work/shared/protocol/vectors/README.md): the same four line formats and the same 16 cases as
// Tests/PunktfunkWireTests/FECTestSupport.swift's parser, for the AArch64 check.
#ifndef PF_FEC_VECTORS_H
#define PF_FEC_VECTORS_H

#include <stddef.h>
#include <stdint.h>

/// Parity shard `index` must equal `bytes` (or begin with them, for the abbreviated k = 200 line).
typedef struct fec_expected {
    int index;
    uint8_t *bytes;
    size_t len;
} fec_expected;

typedef struct fec_vector {
    char name[48];
    int k, m;
    size_t p;            // shard bytes
    uint8_t *data;       // k shards of p bytes, contiguous
    fec_expected *expected;
    int expected_count;
} fec_vector;

/// Parses the file; returns the number of cases (with *out malloc'd) or -1 with a message on stderr.
int fec_vectors_load(const char *path, fec_vector **out);

#endif
