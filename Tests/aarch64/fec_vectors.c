// See fec_vectors.h. Line formats:
//   "## …"                                   section header ("e2e", "extra" switch the format)
//   "k=K m=M shard_bytes=P"                   a pattern case; "parity[j] = HEX" lines follow
//   "k=K m=M shard=P parity[j][..32]=HEX …"  pattern case, parity prefixes on one line
//   "blockB data[i] = HEX" / "blockB parity[j] = HEX"   (e2e) explicit data and parity
//   "K M P HEX,HEX,…"                         (extra) pattern case, every parity shard
#include "fec_vectors.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CASES = 64, MAX_BLOCKS = 8, MAX_BLOCK_SHARDS = 16 };

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// Decodes the hex digits at s (up to the first non-hex character) into a new buffer.
static uint8_t *hex_decode(const char *s, size_t *len) {
    size_t n = 0;
    while (hexval(s[n]) >= 0) n++;
    if (n == 0 || n % 2) return NULL;
    uint8_t *out = malloc(n / 2);
    if (!out) return NULL;
    for (size_t i = 0; i < n / 2; i++) out[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
    *len = n / 2;
    return out;
}

static uint8_t *pattern(int k, size_t p) {
    uint8_t *d = malloc((size_t)k * p);
    if (!d) return NULL;
    for (int i = 0; i < k; i++)
        for (size_t b = 0; b < p; b++) d[(size_t)i * p + b] = (uint8_t)((i * 31 + b * 7) % 256);
    return d;
}

static bool add_expected(fec_vector *v, int index, const char *hex) {
    size_t len;
    uint8_t *bytes = hex_decode(hex, &len);
    if (!bytes) return false;
    fec_expected *grown = realloc(v->expected, (size_t)(v->expected_count + 1) * sizeof *grown);
    if (!grown) return false;
    v->expected = grown;
    v->expected[v->expected_count++] = (fec_expected){index, bytes, len};
    return true;
}

static bool new_pattern_case(fec_vector *v, const char *suffix, int k, int m, size_t p) {
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "k=%d m=%d P=%zu%s", k, m, p, suffix);
    v->k = k, v->m = m, v->p = p;
    v->data = pattern(k, p);
    return v->data != NULL;
}

int fec_vectors_load(const char *path, fec_vector **out) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return -1; }
    fec_vector *cases = calloc(MAX_CASES, sizeof *cases);
    struct { char *hex[2][MAX_BLOCK_SHARDS]; } blocks[MAX_BLOCKS] = {0};   // [data|parity][index]
    int count = 0, current = -1;
    bool e2e = false, extra = false, ok = cases != NULL;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (ok && getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = line;
        while (*s == ' ') s++;
        s[strcspn(s, "\r\n")] = 0;
        int k, m, idx, b, used = 0;
        size_t p;
        if (*s == 0) continue;
        if (strncmp(s, "## ", 3) == 0) {
            e2e = strstr(s, "e2e") != NULL;
            extra = strstr(s, "extra") != NULL;
            current = -1;
        } else if (sscanf(s, "k=%d m=%d shard=%zu%n", &k, &m, &p, &used) == 3) {
            ok = count < MAX_CASES && new_pattern_case(&cases[count], " (prefixes)", k, m, p);
            for (char *q = strstr(s + used, "parity["); ok && q; q = strstr(q + 1, "parity[")) {
                char *eq = strchr(q, '=');
                ok = eq && sscanf(q, "parity[%d]", &idx) == 1 && add_expected(&cases[count], idx, eq + 1);
            }
            count++;
            current = -1;
            e2e = false;
        } else if (sscanf(s, "k=%d m=%d shard_bytes=%zu", &k, &m, &p) == 3) {
            ok = count < MAX_CASES && new_pattern_case(&cases[count], "", k, m, p);
            current = count++;
        } else if (current >= 0 && sscanf(s, "parity[%d] = %n", &idx, &used) == 1 && used > 0) {
            ok = add_expected(&cases[current], idx, s + used);
        } else if (e2e && sscanf(s, "block%d", &b) == 1) {
            char kind[8];
            if (sscanf(s, "block%d %7[a-z][%d] = %n", &b, kind, &idx, &used) != 3 || used == 0 ||
                b < 0 || b >= MAX_BLOCKS || idx < 0 || idx >= MAX_BLOCK_SHARDS) { ok = false; break; }
            blocks[b].hex[strcmp(kind, "data") == 0 ? 0 : 1][idx] = strdup(s + used);
        } else if (extra && sscanf(s, "%d %d %zu %n", &k, &m, &p, &used) == 3 && used > 0) {
            ok = count < MAX_CASES && new_pattern_case(&cases[count], " (extra)", k, m, p);
            int j = 0;
            for (char *q = s + used; ok && *q; j++) {
                ok = add_expected(&cases[count], j, q);
                q += strcspn(q, ",");
                if (*q == ',') q++;
            }
            count++;
        } else if (strncmp(s, "decode ok", 9) != 0) {
            fprintf(stderr, "%s:%d: unrecognised line\n", path, lineno);
            ok = false;
        }
    }
    free(line);
    fclose(f);
    for (int bi = 0; ok && bi < MAX_BLOCKS; bi++) {
        int k = 0, m = 0;
        while (k < MAX_BLOCK_SHARDS && blocks[bi].hex[0][k]) k++;
        while (m < MAX_BLOCK_SHARDS && blocks[bi].hex[1][m]) m++;
        if (k == 0) continue;
        fec_vector *v = &cases[count++];
        memset(v, 0, sizeof *v);
        snprintf(v->name, sizeof v->name, "e2e AU block %d", bi);
        size_t p;
        uint8_t *first = hex_decode(blocks[bi].hex[0][0], &p);
        ok = first && (v->data = malloc((size_t)k * p));
        free(first);
        v->k = k, v->m = m, v->p = p;
        for (int i = 0; ok && i < k; i++) {
            size_t len;
            uint8_t *d = hex_decode(blocks[bi].hex[0][i], &len);
            ok = d && len == p;
            if (ok) memcpy(v->data + (size_t)i * p, d, p);
            free(d);
        }
        for (int j = 0; ok && j < m; j++) ok = add_expected(v, j, blocks[bi].hex[1][j]);
    }
    for (int bi = 0; bi < MAX_BLOCKS; bi++)
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < MAX_BLOCK_SHARDS; i++) free(blocks[bi].hex[h][i]);
    if (!ok) {
        fprintf(stderr, "%s: malformed vector file\n", path);
        return -1;
    }
    *out = cases;
    return count;
}
