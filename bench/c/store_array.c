/* The floor: a sorted int64 array with binary search, in C.
 * File: uint64 n, n int64 keys (host order), n values of BENCH_VLEN bytes.
 * open reads the file into memory; get decodes the 8-byte key and bisects. */
#include "bench.h"
#include "store.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct h { size_t n; int64_t *keys; uint8_t *vals; };

static const char *ver(void) { return "C, branchy lower_bound"; }

static int build(const char *path, size_t n, const uint8_t *keys, size_t klen,
                 const uint8_t *vals, size_t vlen) {
    if (klen != 8 || vlen != BENCH_VLEN) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    uint64_t nn = n;
    fwrite(&nn, 8, 1, f);
    for (size_t i = 0; i < n; i++) { int64_t k = bench_key_decode(keys + 8 * i); fwrite(&k, 8, 1, f); }
    fwrite(vals, vlen, n, f);
    fflush(f); fsync(fileno(f));
    return fclose(f);
}

static void *open_(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct h *h = calloc(1, sizeof *h);
    uint64_t n;
    if (fread(&n, 8, 1, f) != 1) goto fail;
    h->n = n;
    h->keys = malloc(n * 8); h->vals = malloc(n * BENCH_VLEN);
    if (fread(h->keys, 8, n, f) != n || fread(h->vals, BENCH_VLEN, n, f) != n) goto fail;
    fclose(f);
    return h;
fail:
    fclose(f); free(h->keys); free(h->vals); free(h);
    return NULL;
}

static void close_(void *p) { struct h *h = p; free(h->keys); free(h->vals); free(h); }

static inline size_t lower_bound(const struct h *h, int64_t k) {
    size_t lo = 0, hi = h->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->keys[mid] < k) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static int get(void *p, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen) {
    struct h *h = p;
    if (klen != 8) return 0;
    int64_t k = bench_key_decode(key);
    size_t i = lower_bound(h, k);
    if (i == h->n || h->keys[i] != k) return 0;
    *val = h->vals + i * BENCH_VLEN; *vlen = BENCH_VLEN;
    return 1;
}

static long scan(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum) {
    struct h *h = p; (void)klen;
    int64_t l = bench_key_decode(lo), u = bench_key_decode(hi);
    long n = 0;
    for (size_t i = lower_bound(h, l); i < h->n && h->keys[i] <= u; i++, n++)
        *sum += BENCH_VLEN + h->vals[i * BENCH_VLEN + BENCH_VLEN - 1];
    return n;
}

static long count(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen) {
    struct h *h = p; (void)klen;
    int64_t l = bench_key_decode(lo), u = bench_key_decode(hi);
    if (u < l) return 0;
    return (long)(lower_bound(h, u == INT64_MAX ? u : u + 1) - lower_bound(h, l));
}

const struct bench_store bench_store_impl = {
    .name = "array",
    .config = "sorted int64[] in RAM + fixed 13-byte values, binary search (the floor)",
    .version = ver, .build = build, .open = open_, .close = close_, .get = get,
    .get_many = NULL, .scan = scan, .count = count,
};
