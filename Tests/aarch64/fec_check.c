// The FEC kernels on this machine's architecture, judged bit for bit (Tests/aarch64/run.sh runs
// it under qemu-aarch64-static; it also runs natively anywhere):
//   1. kernel selection: on AArch64 the NEON set is supported and chosen by default;
//   2. the portable multiply equals the field's definition (exp/log) for all 65536 multipliers;
//   3. every SIMD set this CPU runs gives the portable set's bytes for all five operations, for all
//      65536 multipliers and for random lengths, offsets and contents;
//   4. with every set, the Leopard code (leopard.c) reproduces the reed-solomon-simd parity of
//      Tests/Fixtures/fec-vectors.txt and rebuilds lost data shards;
//   5. with --bench: encode k=200 m=30 and decode 30 lost of k=200 (P = 1408), each set's median
//      thread CPU time and its ratio against the portable set in the same run.
// Usage: fec_check VECTORS [--bench]. Exit status 0 only if every check passed.
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fec_vectors.h"
#include "leopard.h"
#include "pf_fec.h"

static int failures;

#define CHECK(cond, ...)                                        \
    do {                                                        \
        if (!(cond)) {                                          \
            failures++;                                         \
            fprintf(stderr, "fec-check: FAIL: " __VA_ARGS__);   \
            fputc('\n', stderr);                                \
        }                                                       \
    } while (0)

/// SplitMix64: reproducible random bytes.
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static void fill(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rng();
}

static int simd_kernels[PF_FEC_KERNEL_COUNT], simd_count;

// ---- 1. selection --------------------------------------------------------------------------

static void check_selection(void) {
    CHECK(pf_fec_kernel_supported(PF_FEC_KERNEL_PORTABLE), "portable kernel not supported");
    for (int k = 1; k < PF_FEC_KERNEL_COUNT; k++)
        if (pf_fec_kernel_supported(k)) simd_kernels[simd_count++] = k;
    int best = pf_fec_kernel_best();
#if defined(__aarch64__)
    CHECK(pf_fec_kernel_supported(PF_FEC_KERNEL_NEON), "AArch64 without the NEON kernel");
    CHECK(!pf_fec_kernel_supported(PF_FEC_KERNEL_SSSE3) && !pf_fec_kernel_supported(PF_FEC_KERNEL_AVX2),
          "x86 kernels reported on AArch64");
    CHECK(best == PF_FEC_KERNEL_NEON, "best kernel on AArch64 is %s, not neon", pf_fec_kernel_name(best));
#endif
    CHECK(pf_fec_kernel_active() == best, "active kernel differs from the best one");
    CHECK(!pf_fec_kernel_force(PF_FEC_KERNEL_COUNT), "an unknown kernel id was accepted");
    CHECK(pf_fec_kernel_force(PF_FEC_KERNEL_PORTABLE) && pf_fec_kernel_active() == PF_FEC_KERNEL_PORTABLE,
          "cannot force the portable kernel");
    CHECK(pf_fec_kernel_force(best) && pf_fec_kernel_active() == best, "cannot force the best kernel back");
    CHECK(strcmp(pf_fec_kernel_name(PF_FEC_KERNEL_NEON), "neon") == 0, "NEON kernel name");
    printf("fec-check: kernels here:");
    for (int k = 0; k < PF_FEC_KERNEL_COUNT; k++)
        if (pf_fec_kernel_supported(k)) printf(" %s", pf_fec_kernel_name(k));
    printf("; default %s\n", pf_fec_kernel_name(pf_fec_kernel_active()));
}

// ---- 2. portable multiply against the field's definition -----------------------------------

static void check_definition(const leo_tables *t) {
    uint8_t x[128];
    pf_fec_lut lut;
    int bad = 0;
    for (unsigned log_m = 0; log_m < 65536; log_m++) {
        fill(x, sizeof x);
        if (log_m == 1) memset(x, 0, sizeof x);
        if (log_m == 2) memset(x, 0xff, sizeof x);
        uint8_t y[128];
        memcpy(y, x, sizeof x);
        pf_fec_lut_build(&lut, t->exp, t->log, (uint16_t)log_m);
        pf_fec_mul(PF_FEC_KERNEL_PORTABLE, y, sizeof y, &lut);
        for (int c = 0; c < 128; c += 64)
            for (int j = 0; j < 32; j++) {
                uint16_t s = (uint16_t)(x[c + j] | x[c + 32 + j] << 8);
                uint32_t l = (uint32_t)t->log[s] + log_m;
                uint16_t want = s == 0 ? 0 : t->exp[(uint16_t)(l + (l >> 16))];
                uint16_t got = (uint16_t)(y[c + j] | y[c + 32 + j] << 8);
                if (got != want && bad++ < 5) CHECK(0, "portable: log_m %u, symbol %04x → %04x, field says %04x", log_m, s, got, want);
            }
    }
    if (bad > 5) CHECK(0, "portable: %d more symbols differ from the field", bad - 5);
    printf("fec-check: portable multiply == exp/log definition, all 65536 multipliers × 64 symbols: %s\n",
           bad ? "FAILED" : "ok");
}

// ---- 3. SIMD kernels against the portable kernel -------------------------------------------

enum { OP_XOR, OP_MUL_ADD, OP_MUL, OP_FFT, OP_IFFT, OP_COUNT };
static const char *op_names[OP_COUNT] = {"xor", "mul_add", "mul", "fft_butterfly", "ifft_butterfly"};

static void run_op(int kernel, int op, uint8_t *a, uint8_t *b, size_t n, const pf_fec_lut *lut) {
    switch (op) {
    case OP_XOR: pf_fec_xor(kernel, a, b, n); break;
    case OP_MUL_ADD: pf_fec_mul_add(kernel, a, b, n, lut); break;
    case OP_MUL: pf_fec_mul(kernel, a, n, lut); break;
    case OP_FFT: pf_fec_fft_butterfly(kernel, a, b, n, lut); break;
    default: pf_fec_ifft_butterfly(kernel, a, b, n, lut); break;
    }
}

/// Runs `op` on copies of (a, b) with the portable set and with `kernel` at byte offsets
/// (oa, ob) from 64-byte alignment; true if both shards come out identical.
static bool same_bytes(int kernel, int op, const uint8_t *a, const uint8_t *b, size_t n, size_t oa, size_t ob,
                       const pf_fec_lut *lut) {
    static _Alignas(64) uint8_t buf[4][64 * 32 + 128];
    uint8_t *pa = buf[0] + oa, *pb = buf[1] + ob, *sa = buf[2] + oa, *sb = buf[3] + ob;
    memcpy(pa, a, n); memcpy(pb, b, n); memcpy(sa, a, n); memcpy(sb, b, n);
    run_op(PF_FEC_KERNEL_PORTABLE, op, pa, pb, n, lut);
    run_op(kernel, op, sa, sb, n, lut);
    return memcmp(pa, sa, n) == 0 && memcmp(pb, sb, n) == 0;
}

static void check_equivalence(const leo_tables *t) {
    static uint8_t a[64 * 32], b[64 * 32];
    pf_fec_lut lut;
    for (int s = 0; s < simd_count; s++) {
        int kernel = simd_kernels[s], bad = 0;
        for (unsigned log_m = 0; log_m < 65536; log_m++) {
            fill(a, 128);
            fill(b, 128);
            pf_fec_lut_build(&lut, t->exp, t->log, (uint16_t)log_m);
            for (int op = 0; op < OP_COUNT; op++)
                if (!same_bytes(kernel, op, a, b, 128, 0, 0, &lut) && bad++ < 5)
                    CHECK(0, "%s %s differs from portable at log_m %u", pf_fec_kernel_name(kernel), op_names[op], log_m);
        }
        // Lengths 0…32 chunks, any byte offsets (the kernels load unaligned), contents that
        // include all-zero and all-one shards.
        enum { SHAPES = 3000 };
        for (int i = 0; i < SHAPES; i++) {
            size_t n = 64 * (size_t)(rng() % 33), oa = rng() % 64, ob = rng() % 64;
            fill(a, n);
            fill(b, n);
            if (i % 50 == 1) memset(a, 0, n);
            if (i % 50 == 2) memset(b, 0xff, n);
            pf_fec_lut_build(&lut, t->exp, t->log, (uint16_t)rng());
            int op = (int)(rng() % OP_COUNT);
            if (!same_bytes(kernel, op, a, b, n, oa, ob, &lut) && bad++ < 5)
                CHECK(0, "%s %s differs from portable (%zu bytes, offsets %zu/%zu)", pf_fec_kernel_name(kernel),
                      op_names[op], n, oa, ob);
        }
        printf("fec-check: %s == portable, 5 operations × all 65536 multipliers + %d random lengths/offsets: %s\n",
               pf_fec_kernel_name(kernel), SHAPES, bad ? "FAILED" : "ok");
    }
}

// ---- 4. reed-solomon-simd vectors ----------------------------------------------------------

static void check_vectors(const leo_tables *t, const fec_vector *cases, int count) {
    int entries = 0;
    for (int i = 0; i < count; i++) entries += cases[i].expected_count;
    // The fixture's shape, as FECVectorTests.fixtureParsesEveryCase counts it.
    CHECK(count == 16 && entries == 63, "fixture: %d cases, %d parity entries (want 16, 63)", count, entries);
    int kernels[PF_FEC_KERNEL_COUNT] = {PF_FEC_KERNEL_PORTABLE}, nk = 1;
    for (int s = 0; s < simd_count; s++) kernels[nk++] = simd_kernels[s];
    for (int ki = 0; ki < nk; ki++) {
        leo_coder *coder = leo_coder_new(t, kernels[ki]);
        const char *name = pf_fec_kernel_name(kernels[ki]);
        int bad = 0, matched = 0, rebuilt = 0;
        for (int i = 0; i < count; i++) {
            const fec_vector *v = &cases[i];
            uint8_t *parity = malloc((size_t)v->m * v->p), *data = malloc((size_t)v->k * v->p);
            bool *present = malloc((size_t)(v->k + v->m) * sizeof *present);
            if (leo_encode(coder, v->k, v->m, v->p, v->data, v->p, parity)) {
                CHECK(0, "%s %s: encode refused", name, v->name);
                bad++;
            }
            for (int e = 0; e < v->expected_count; e++) {
                const fec_expected *x = &v->expected[e];
                if (x->index >= v->m || x->len > v->p || memcmp(parity + (size_t)x->index * v->p, x->bytes, x->len)) {
                    CHECK(0, "%s %s: parity[%d] differs from reed-solomon-simd", name, v->name, x->index);
                    bad++;
                } else {
                    matched++;
                }
            }
            // Lose the first min(k, m) data shards (the losses the file's "decode ok" lines name).
            int lost = v->k < v->m ? v->k : v->m;
            memcpy(data, v->data, (size_t)v->k * v->p);
            for (int s = 0; s < v->k + v->m; s++) present[s] = s >= lost;
            memset(data, 0xA5, (size_t)lost * v->p);
            if (leo_reconstruct(coder, v->k, v->m, v->p, data, v->p, parity, present) ||
                memcmp(data, v->data, (size_t)v->k * v->p)) {
                CHECK(0, "%s %s: decode after losing data [0, %d) did not restore the data", name, v->name, lost);
                bad++;
            } else {
                rebuilt += lost;
            }
            free(parity);
            free(data);
            free(present);
        }
        printf("fec-check: %s: %d reed-solomon-simd cases, %d of %d parity shards/prefixes match, %d lost data shards rebuilt: %s\n",
               name, count, matched, entries, rebuilt, bad ? "FAILED" : "ok");
        leo_coder_free(coder);
    }
}

// ---- 5. bench ------------------------------------------------------------------------------

/// This thread's CPU time: a shared build machine's other jobs preempt the bench, and wall time
/// would count that (under qemu-user the guest thread is a host thread, so this is its host time).
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/// Seconds per call of encode (lost == 0) or decode (30 lost data shards) for each of `nk` coders:
/// the median of `runs` rounds after 2 warm-up rounds; every round times each coder once, in
/// rotating order, so load that comes and goes falls on every kernel alike.
static void median_seconds(leo_coder **coders, int nk, int k, int m, size_t p, uint8_t *data, uint8_t *parity,
                           int lost, int runs, double *out) {
    bool present[230];
    for (int s = 0; s < k + m; s++) present[s] = true;
    for (int i = 0; i < lost; i++) present[(i * 37) % k] = false;  // 30 distinct data slots
    double times[PF_FEC_KERNEL_COUNT][64];
    for (int r = 0; r < runs + 2; r++) {
        for (int j = 0; j < nk; j++) {
            int ki = (r + j) % nk;
            double t0 = now_s();
            if (lost) leo_reconstruct(coders[ki], k, m, p, data, p, parity, present);
            else leo_encode(coders[ki], k, m, p, data, p, parity);
            if (r >= 2) times[ki][r - 2] = now_s() - t0;
        }
    }
    for (int ki = 0; ki < nk; ki++) {
        qsort(times[ki], (size_t)runs, sizeof times[ki][0], cmp_double);
        out[ki] = times[ki][runs / 2];
    }
}

static void bench(const leo_tables *t) {
    enum { K = 200, M = 30, P = 1408, RUNS = 21 };
    uint8_t *data = malloc(K * P), *parity = malloc(M * P);
    for (size_t i = 0; i < (size_t)K * P; i++) data[i] = (uint8_t)(i * 7 + i / P * 31);
    int kernels[PF_FEC_KERNEL_COUNT] = {PF_FEC_KERNEL_PORTABLE}, nk = 1;
    for (int s = 0; s < simd_count; s++) kernels[nk++] = simd_kernels[s];
    leo_coder *coders[PF_FEC_KERNEL_COUNT];
    for (int ki = 0; ki < nk; ki++) coders[ki] = leo_coder_new(t, kernels[ki]);
    double enc[PF_FEC_KERNEL_COUNT], dec[PF_FEC_KERNEL_COUNT];
    median_seconds(coders, nk, K, M, P, data, parity, 0, RUNS, enc);
    median_seconds(coders, nk, K, M, P, data, parity, 30, RUNS, dec);
    for (int ki = 0; ki < nk; ki++) {
        printf("fec-bench: %-8s encode k=200 m=30 P=1408: %8.3f ms/block   decode 30 lost of k=200: %8.3f ms\n",
               pf_fec_kernel_name(kernels[ki]), enc[ki] * 1e3, dec[ki] * 1e3);
        leo_coder_free(coders[ki]);
    }
    for (int ki = 1; ki < nk; ki++)
        printf("fec-bench: %s/portable, same run: encode ×%.1f, decode ×%.1f\n", pf_fec_kernel_name(kernels[ki]),
               enc[0] / enc[ki], dec[0] / dec[ki]);
    free(data);
    free(parity);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s fec-vectors.txt [--bench]\n", argv[0]);
        return 2;
    }
    static leo_tables tables;
    leo_tables_build(&tables);
    fec_vector *cases;
    int count = fec_vectors_load(argv[1], &cases);
    if (count < 0) return 1;

    check_selection();
    check_definition(&tables);
    check_equivalence(&tables);
    check_vectors(&tables, cases, count);
    if (argc > 2 && strcmp(argv[2], "--bench") == 0) bench(&tables);
    if (failures) {
        fprintf(stderr, "fec-check: %d check(s) failed\n", failures);
        return 1;
    }
    printf("fec-check: all checks passed\n");
    return 0;
}
