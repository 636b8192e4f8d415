/* The floor: a sorted array in memory with binary search, in C.
 * Keys are held as big-endian words (one uint64 for 8-byte keys, two for
 * 16-byte keys) compared as unsigned integers, which orders them as memcmp
 * does, at the cost of one or two integer compares per step.
 * File: uint64 n, uint64 klen, n*klen/8 words (host order), n+1 uint32 value
 * offsets, the values; open reads it whole. */
#include "bench.h"
#include "store.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct h { size_t n, w; uint64_t *k; uint32_t *voff; uint8_t *vals; };

static const char *ver(void) { return "C, branchy lower_bound"; }

static int build(const char *path, enum bench_kind kind, size_t n, const uint8_t *keys,
                 size_t klen, const uint8_t *vals, const size_t *voff) {
    (void)kind;
    if ((klen != 8 && klen != 16) || voff[n] > UINT32_MAX) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    uint64_t hdr[2] = { n, klen };
    fwrite(hdr, 8, 2, f);
    for (size_t i = 0; i < n * klen / 8; i++) { uint64_t u = bench_be64(keys + 8 * i); fwrite(&u, 8, 1, f); }
    for (size_t i = 0; i <= n; i++) { uint32_t o = (uint32_t)voff[i]; fwrite(&o, 4, 1, f); }
    fwrite(vals, 1, voff[n], f);
    fflush(f); fsync(fileno(f));
    return fclose(f);
}

static void close_(void *p) { struct h *h = p; free(h->k); free(h->voff); free(h->vals); free(h); }

static void *open_(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    struct h *h = calloc(1, sizeof *h);
    uint64_t hdr[2];
    if (fread(hdr, 8, 2, f) != 2 || (hdr[1] != 8 && hdr[1] != 16)) goto fail;
    h->n = hdr[0]; h->w = hdr[1] / 8;
    h->k = malloc(h->n * h->w * 8); h->voff = malloc((h->n + 1) * 4);
    if (!h->k || !h->voff || fread(h->k, 8 * h->w, h->n, f) != h->n || fread(h->voff, 4, h->n + 1, f) != h->n + 1)
        goto fail;
    h->vals = malloc(h->voff[h->n] + 1);
    if (!h->vals || fread(h->vals, 1, h->voff[h->n], f) != h->voff[h->n]) goto fail;
    fclose(f);
    return h;
fail:
    fclose(f); close_(h);
    return NULL;
}

/* first row whose key is >= the key at kb (klen = 8 * h->w bytes) */
static inline size_t lower_bound(const struct h *h, const uint8_t *kb) {
    size_t lo = 0, hi = h->n;
    uint64_t a = bench_be64(kb);
    if (h->w == 1) {
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (h->k[mid] < a) lo = mid + 1; else hi = mid;
        }
        return lo;
    }
    uint64_t b = bench_be64(kb + 8);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const uint64_t *m = h->k + 2 * mid;
        if (m[0] < a || (m[0] == a && m[1] < b)) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static inline int equal_at(const struct h *h, size_t i, const uint8_t *kb) {
    return h->k[h->w * i] == bench_be64(kb) && (h->w == 1 || h->k[2 * i + 1] == bench_be64(kb + 8));
}

static int get(void *p, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen) {
    struct h *h = p;
    if (klen != 8 * h->w) return 0;
    size_t i = lower_bound(h, key);
    if (i == h->n || !equal_at(h, i, key)) return 0;
    *val = h->vals + h->voff[i]; *vlen = h->voff[i + 1] - h->voff[i];
    return 1;
}

/* first row after the key at kb (upper bound) */
static inline size_t upper_bound(const struct h *h, const uint8_t *kb) {
    size_t i = lower_bound(h, kb);
    return i < h->n && equal_at(h, i, kb) ? i + 1 : i;
}

static long scan(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum) {
    struct h *h = p; (void)klen;
    size_t end = upper_bound(h, hi);
    long n = 0;
    for (size_t i = lower_bound(h, lo); i < end; i++, n++)
        *sum += h->voff[i + 1] - h->voff[i] + h->vals[h->voff[i + 1] - 1];
    return n;
}

static long count(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen) {
    struct h *h = p; (void)klen;
    size_t a = lower_bound(h, lo), b = upper_bound(h, hi);
    return b > a ? (long)(b - a) : 0;
}

const struct bench_store bench_store_impl = {
    .name = "array",
    .config = "sorted keys in RAM as big-endian uint64 words (1 for 8-byte keys, 2 for 16-byte) + value offsets, binary search (the floor)",
    .version = ver, .build = build, .open = open_, .close = close_, .get = get,
    .get_many = NULL, .scan = scan, .count = count,
};
