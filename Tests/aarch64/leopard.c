// The Leopard code over pf_fec.h's kernels; see leopard.h. Each block below names the Swift file
// whose steps it repeats, so a change there is easy to carry over.
#include "leopard.h"

#include <stdlib.h>
#include <string.h>

#include "pf_fec.h"

#define MODULUS 65535u

// ---- tables (GF16Tables.swift) -------------------------------------------------------------

static const uint16_t cantor_basis[16] = {
    0x0001, 0xACCA, 0x3C0E, 0x163E, 0xC582, 0xED2E, 0x914C, 0x4012,
    0x6C98, 0x10D8, 0x6A72, 0xB900, 0xFDB8, 0xFB34, 0xFF38, 0x991E,
};

/// a + b mod 65535, result in 0…65535 (65535 ≡ 0).
static inline uint16_t add_mod(uint16_t a, uint16_t b) {
    uint32_t s = (uint32_t)a + b;
    return (uint16_t)(s + (s >> 16));
}

/// a − b mod 65535, result in 0…65535.
static inline uint16_t sub_mod(uint16_t a, uint16_t b) {
    uint32_t d = (uint32_t)a - b;
    return (uint16_t)(d + (d >> 16));
}

/// a · b mod 65535 for representatives in 0…65535.
static inline uint16_t mul_mod(uint16_t a, uint16_t b) {
    uint32_t p = (uint32_t)a * b;
    return add_mod((uint16_t)p, (uint16_t)(p >> 16));
}

static inline uint16_t field_mul(const leo_tables *t, uint16_t x, uint16_t log_m) {
    return x == 0 ? 0 : t->exp[add_mod(t->log[x], log_m)];
}

void leo_tables_build(leo_tables *t) {
    uint16_t *exp = t->exp, *log = t->log;
    unsigned state = 1;
    for (unsigned i = 0; i < 65535; i++) {
        exp[state] = (uint16_t)i;
        state <<= 1;
        if (state >= 65536) state ^= 0x1002D;
    }
    exp[0] = MODULUS;
    log[0] = 0;
    for (int i = 0; i < 16; i++) {
        unsigned width = 1u << i;
        for (unsigned j = 0; j < width; j++) log[j + width] = log[j] ^ cantor_basis[i];
    }
    for (unsigned x = 0; x < 65536; x++) log[x] = exp[log[x]];
    for (unsigned x = 0; x < 65536; x++) exp[log[x]] = (uint16_t)x;
    exp[65535] = exp[0];

    uint16_t *skew = t->skew;
    memset(skew, 0, sizeof t->skew);
    uint16_t temp[15];
    for (int i = 1; i < 16; i++) temp[i - 1] = (uint16_t)(1u << i);
    for (int m = 0; m < 15; m++) {
        unsigned step = 1u << (m + 1);
        skew[(1u << m) - 1] = 0;
        for (int i = m; i < 15; i++) {
            unsigned s = 1u << (i + 1);
            for (unsigned j = (1u << m) - 1; j < s; j += step) skew[j + s] = skew[j] ^ temp[i];
        }
        temp[m] = (uint16_t)(MODULUS - log[field_mul(t, temp[m], log[temp[m] ^ 1])]);
        for (int i = m + 1; i < 15; i++) {
            uint16_t sum = add_mod(log[temp[i] ^ 1], temp[m]);
            temp[i] = field_mul(t, temp[i], sum);
        }
    }
    for (unsigned i = 0; i < 65535; i++) skew[i] = log[skew[i]];
}

// ---- the coder's scratch (ShardWork.swift, ErasureLocator.swift) ---------------------------

struct leo_coder {
    const leo_tables *t;
    int kernel;
    uint8_t *work;          // `count` shards of `shard_bytes` (a multiple of 64), 64-byte aligned
    size_t capacity;
    size_t shard_bytes;
    int count;
    uint16_t *values;       // erasure-locator indicator → logs
    uint16_t *factors;      // F for `factors_n` points
    int locator_capacity;
    int factors_n;
    pf_fec_lut lut;
};

leo_coder *leo_coder_new(const leo_tables *t, int kernel) {
    leo_coder *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->t = t;
    c->kernel = kernel;
    return c;
}

void leo_coder_free(leo_coder *c) {
    if (!c) return;
    free(c->work);
    free(c->values);
    free(c->factors);
    free(c);
}

static int work_reset(leo_coder *c, int count, size_t wire_bytes) {
    c->shard_bytes = (wire_bytes + 63) & ~(size_t)63;
    c->count = count;
    size_t need = (size_t)count * c->shard_bytes;
    if (need > c->capacity) {
        free(c->work);
        c->work = aligned_alloc(64, need);
        c->capacity = c->work ? need : 0;
        if (!c->work) return -1;
    }
    return 0;
}

static inline uint8_t *shard(leo_coder *c, int i) { return c->work + (size_t)i * c->shard_bytes; }

/// Wire shard → work shard: full chunks as is, a tail of T bytes split into T/2 low bytes at
/// chunk offset 0 and T/2 high bytes at offset 32, the rest of that chunk zero.
static void work_load(leo_coder *c, int i, const uint8_t *src, size_t wire_bytes) {
    uint8_t *dst = shard(c, i);
    size_t full = wire_bytes & ~(size_t)63, tail = wire_bytes - full;
    memcpy(dst, src, full);
    if (tail == 0) return;
    memset(dst + full, 0, 64);
    memcpy(dst + full, src + full, tail / 2);
    memcpy(dst + full + 32, src + full + tail / 2, tail / 2);
}

static void work_store(leo_coder *c, int i, uint8_t *dst, size_t wire_bytes) {
    const uint8_t *src = shard(c, i);
    size_t full = wire_bytes & ~(size_t)63, tail = wire_bytes - full;
    memcpy(dst, src, full);
    if (tail == 0) return;
    memcpy(dst + full, src + full, tail / 2);
    memcpy(dst + full + tail / 2, src + full + 32, tail / 2);
}

static void work_zero(leo_coder *c, int from, int to) {
    if (to > from) memset(shard(c, from), 0, (size_t)(to - from) * c->shard_bytes);
}

static void work_xor(leo_coder *c, int x, int y, int n) {
    pf_fec_xor(c->kernel, shard(c, x), shard(c, y), (size_t)n * c->shard_bytes);
}

static void work_mul(leo_coder *c, int i, uint16_t log_m) {
    pf_fec_lut_build(&c->lut, c->t->exp, c->t->log, log_m);
    pf_fec_mul(c->kernel, shard(c, i), c->shard_bytes, &c->lut);
}

/// One butterfly group of an FFT (or, `inverse`, IFFT) pass: a-shards [pos+r, pos+r+dist),
/// b-shards [pos+r+dist, pos+r+2·dist), twiddle skew[r + dist + skew_delta − 1].
static void work_group(leo_coder *c, int pos, int r, int dist, int skew_delta, bool inverse) {
    uint16_t log_m = c->t->skew[r + dist + skew_delta - 1];
    int a = pos + r, b = pos + r + dist;
    size_t bytes = (size_t)dist * c->shard_bytes;
    if (log_m == MODULUS) {
        work_xor(c, b, a, dist);
        return;
    }
    pf_fec_lut_build(&c->lut, c->t->exp, c->t->log, log_m);
    if (inverse) pf_fec_ifft_butterfly(c->kernel, shard(c, a), shard(c, b), bytes, &c->lut);
    else pf_fec_fft_butterfly(c->kernel, shard(c, a), shard(c, b), bytes, &c->lut);
}

static void work_fft(leo_coder *c, int pos, int size, int truncated, int skew_delta) {
    for (int dist = size >> 1; dist > 0; dist >>= 1)
        for (int r = 0; r < truncated; r += 2 * dist) work_group(c, pos, r, dist, skew_delta, false);
}

static void work_ifft(leo_coder *c, int pos, int size, int truncated, int skew_delta) {
    for (int dist = 1; dist < size; dist <<= 1)
        for (int r = 0; r < truncated; r += 2 * dist) work_group(c, pos, r, dist, skew_delta, true);
}

static void work_formal_derivative(leo_coder *c) {
    for (int i = 1; i < c->count; i++) {
        int width = i & -i;
        work_xor(c, i - width, i, width);
    }
}

// ---- geometry (LeopardFEC.swift) -----------------------------------------------------------

static int next_pow2(int n) {
    int p = 1;
    while (p < n) p <<= 1;
    return p;
}

static bool supported(int k, int m, size_t bytes) {
    if (k < 1 || m < 1 || k > 65536 || m > 65536 || bytes == 0 || bytes % 2) return false;
    int kp = next_pow2(k), mp = next_pow2(m);
    return (kp < mp ? kp : mp) + (k > m ? k : m) <= 65536;
}

static bool high_rate(int k, int m) {
    int kp = next_pow2(k), mp = next_pow2(m);
    return kp != mp ? kp > mp : k <= m;
}

// ---- encode (LeopardFEC+Encode.swift) ------------------------------------------------------

int leo_encode(leo_coder *c, int k, int m, size_t bytes, const uint8_t *data, size_t stride,
               uint8_t *parity) {
    if (!supported(k, m, bytes)) return -1;
    if (high_rate(k, m)) {
        int chunk = next_pow2(m), count = (k + chunk - 1) / chunk * chunk;
        if (work_reset(c, count, bytes)) return -1;
        for (int i = 0; i < k; i++) work_load(c, i, data + (size_t)i * stride, bytes);
        work_zero(c, k, count);
        work_ifft(c, 0, chunk, k < chunk ? k : chunk, chunk);
        for (int start = chunk; start < k; start += chunk) {
            work_ifft(c, start, chunk, k - start < chunk ? k - start : chunk, start + chunk);
            work_xor(c, 0, start, chunk);
        }
        work_fft(c, 0, chunk, m, 0);
    } else {
        int chunk = next_pow2(k), count = (m + chunk - 1) / chunk * chunk;
        if (work_reset(c, count, bytes)) return -1;
        for (int i = 0; i < k; i++) work_load(c, i, data + (size_t)i * stride, bytes);
        work_zero(c, k, chunk);
        work_ifft(c, 0, chunk, k, 0);
        for (int start = chunk; start < m; start += chunk)
            memcpy(shard(c, start), shard(c, 0), (size_t)chunk * c->shard_bytes);
        for (int start = 0; start < m; start += chunk)
            work_fft(c, start, chunk, m - start < chunk ? m - start : chunk, start + chunk);
    }
    for (int j = 0; j < m; j++) work_store(c, j, parity + (size_t)j * stride, bytes);
    return 0;
}

// ---- erasure locator (ErasureLocator.swift) ------------------------------------------------

static void walsh_hadamard(uint16_t *v, int n) {
    for (int dist = 1; dist < n; dist <<= 1) {
        for (int r = 0; r < n; r += 2 * dist) {
            for (int i = r; i < r + dist; i++) {
                uint16_t a = v[i], b = v[i + dist];
                v[i] = add_mod(a, b);
                v[i + dist] = sub_mod(a, b);
            }
        }
    }
}

static uint16_t *locator_begin(leo_coder *c, int n) {
    if (n > c->locator_capacity) {
        free(c->values);
        free(c->factors);
        c->values = malloc((size_t)n * sizeof(uint16_t));
        c->factors = malloc((size_t)n * sizeof(uint16_t));
        c->locator_capacity = (c->values && c->factors) ? n : 0;
        c->factors_n = 0;
        if (!c->locator_capacity) return NULL;
    }
    memset(c->values, 0, (size_t)n * sizeof(uint16_t));
    return c->values;
}

static uint16_t *locator_evaluate(leo_coder *c, int n) {
    if (c->factors_n != n) {
        c->factors[0] = 0;
        for (int i = 1; i < n; i++) c->factors[i] = c->t->log[i];
        walsh_hadamard(c->factors, n);
        uint16_t scale = (uint16_t)((65536 / n) % 65535);
        for (int i = 0; i < n; i++) c->factors[i] = mul_mod(c->factors[i], scale);
        c->factors_n = n;
    }
    walsh_hadamard(c->values, n);
    for (int i = 0; i < n; i++) c->values[i] = mul_mod(c->values[i], c->factors[i]);
    walsh_hadamard(c->values, n);
    return c->values;
}

// ---- decode (LeopardFEC+Decode.swift) ------------------------------------------------------

/// IFFT, formal derivative, FFT over the whole N-shard work array.
static void transform_erasures(leo_coder *c, int n, int truncated) {
    work_ifft(c, 0, n, truncated, 0);
    work_formal_derivative(c);
    work_fft(c, 0, n, truncated, 0);
}

/// Loads shard `src` (or zeroes position p when it is missing) and scales it by e[p].
static void load_scaled(leo_coder *c, int p, const uint8_t *src, bool here, size_t bytes, const uint16_t *e) {
    if (here) {
        work_load(c, p, src, bytes);
        work_mul(c, p, e[p]);
    } else {
        work_zero(c, p, p + 1);
    }
}

/// High rate: parity j at position j, data i at mp + i; [m, mp) are virtual erased parity,
/// [mp + k, N) are zero.
static int decode_high(leo_coder *c, int k, int m, size_t bytes, uint8_t *data, size_t stride,
                       const uint8_t *parity, const bool *present) {
    int chunk = next_pow2(m), end = chunk + k, n = next_pow2(end);
    uint16_t *x = locator_begin(c, n);
    if (!x) return -1;
    for (int j = 0; j < m; j++) if (!present[k + j]) x[j] = 1;
    for (int j = m; j < chunk; j++) x[j] = 1;
    for (int i = 0; i < k; i++) if (!present[i]) x[chunk + i] = 1;
    const uint16_t *e = locator_evaluate(c, n);

    if (work_reset(c, n, bytes)) return -1;
    for (int j = 0; j < m; j++) load_scaled(c, j, parity + (size_t)j * stride, present[k + j], bytes, e);
    work_zero(c, m, chunk);
    for (int i = 0; i < k; i++) load_scaled(c, chunk + i, data + (size_t)i * stride, present[i], bytes, e);
    work_zero(c, end, n);

    transform_erasures(c, n, end);

    for (int i = 0; i < k; i++) {
        if (present[i]) continue;
        work_mul(c, chunk + i, (uint16_t)(MODULUS - e[chunk + i]));
        work_store(c, chunk + i, data + (size_t)i * stride, bytes);
    }
    return 0;
}

/// Low rate: data i at position i, parity j at kp + j; [k, kp) are known-zero data,
/// [kp + m, 65536) count as erased, so the indicator is written as x − 1 (ErasureLocator.swift).
static int decode_low(leo_coder *c, int k, int m, size_t bytes, uint8_t *data, size_t stride,
                      const uint8_t *parity, const bool *present) {
    int chunk = next_pow2(k), end = chunk + m, n = next_pow2(end);
    const uint16_t erased = 0, kept = 65534;
    uint16_t *x = locator_begin(c, n);
    if (!x) return -1;
    for (int i = 0; i < k; i++) x[i] = present[i] ? kept : erased;
    for (int i = k; i < chunk; i++) x[i] = kept;
    for (int j = 0; j < m; j++) x[chunk + j] = present[k + j] ? kept : erased;
    for (int i = end; i < n; i++) x[i] = erased;
    const uint16_t *e = locator_evaluate(c, n);

    if (work_reset(c, n, bytes)) return -1;
    for (int i = 0; i < k; i++) load_scaled(c, i, data + (size_t)i * stride, present[i], bytes, e);
    work_zero(c, k, chunk);
    for (int j = 0; j < m; j++) load_scaled(c, chunk + j, parity + (size_t)j * stride, present[k + j], bytes, e);
    work_zero(c, end, n);

    transform_erasures(c, n, end);

    for (int i = 0; i < k; i++) {
        if (present[i]) continue;
        work_mul(c, i, (uint16_t)(MODULUS - e[i]));
        work_store(c, i, data + (size_t)i * stride, bytes);
    }
    return 0;
}

int leo_reconstruct(leo_coder *c, int k, int m, size_t bytes, uint8_t *data, size_t stride,
                    const uint8_t *parity, const bool *present) {
    if (!supported(k, m, bytes)) return -1;
    int data_have = 0;
    for (int i = 0; i < k; i++) data_have += present[i];
    if (data_have == k) return 0;
    int have = data_have;
    for (int j = 0; j < m; j++) have += present[k + j];
    if (have < k) return -1;
    return high_rate(k, m) ? decode_high(c, k, m, bytes, data, stride, parity, present)
                           : decode_low(c, k, m, bytes, data, stride, parity, present);
}
