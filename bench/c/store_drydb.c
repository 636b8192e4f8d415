/* drydb through its C ABI (include/drydb.h + libdrydb.so): table "bench"
 * whose key kind follows the shape (INT64, STRING or UUID: the bytes are the
 * same as the other stores'), uncompressed; built with -DBENCH_ZSTD it is the
 * store "drydb_zstd", the same table with zstd pages (and with -DBENCH_HASH
 * too the store "drydb_zstd_hash", with a hash index as well, which a
 * compressed table gets only when asked: drydb_builder_table's DRYDB_HASH).
 * Gets are zero-copy
 * (compressed: the thread's buffer), get_many is the batch call, scans use
 * drydb_range (128 rows per call, no cursor), count is drydb_count. */
#include "store.h"
#include <drydb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCAN_BATCH 128
#define MANY_MAX 1024

#if defined(BENCH_ZSTD) && defined(BENCH_HASH)
#define NAME "drydb_zstd_hash"
#define COMPRESS DRYDB_COMPRESS_ZSTD
#define COMPRESS_CFG "zstd pages (default level, no dictionary) and a hash index (DRYDB_HASH); get copies into the thread buffer"
#elif defined(BENCH_ZSTD)
#define NAME "drydb_zstd"
#define COMPRESS DRYDB_COMPRESS_ZSTD
#define COMPRESS_CFG "zstd pages (default level, no dictionary); get copies into the thread buffer"
#else
#define NAME "drydb"
#define COMPRESS DRYDB_COMPRESS_NONE
#define COMPRESS_CFG "uncompressed; zero-copy get"
#endif

struct h { drydb_db *db; drydb_table *t; size_t klen; size_t klens[MANY_MAX]; uint8_t found[MANY_MAX]; };

static const char *ver(void) { return drydb_version_string(); }

static int fail(const char *what, int rc) {
    fprintf(stderr, "drydb %s: %s (%s)\n", what, drydb_strerror(rc), drydb_errmsg());
    return -1;
}

static int build(const char *path, enum bench_kind kind, size_t n, const uint8_t *keys,
                 size_t klen, const uint8_t *vals, const size_t *voff) {
    static const int kinds[] = { [BENCH_INT64] = DRYDB_KEY_INT64, [BENCH_STRING] = DRYDB_KEY_STRING,
                                 [BENCH_UUID] = DRYDB_KEY_UUID };
    drydb_builder *b; drydb_tbuilder *tb; int rc;
    if ((rc = drydb_builder_new(0, 0, &b))) return fail("builder_new", rc);
#ifdef BENCH_HASH
    rc = drydb_builder_table(b, "bench", kinds[kind], NULL, 0, COMPRESS, 0, DRYDB_HASH, &tb);
#else
    rc = drydb_builder_table(b, "bench", kinds[kind], NULL, 0, COMPRESS, 0, 0, &tb);
#endif
    /* rows go in through drydb_builder_append_many, 1024 per call */
    size_t kls[1024], vls[1024];
    for (size_t i = 0; i < 1024; i++) kls[i] = klen;
    for (size_t i = 0; rc == DRYDB_OK && i < n; i += 1024) {
        size_t m = n - i < 1024 ? n - i : 1024;
        for (size_t j = 0; j < m; j++) vls[j] = voff[i + j + 1] - voff[i + j];
        rc = drydb_builder_append_many(tb, m, keys + i * klen, kls, vals + voff[i], vls);
    }
    if (rc == DRYDB_OK) rc = drydb_builder_build_file(b, path);
    if (rc != DRYDB_OK) fail("build", rc);
    drydb_builder_free(b);
    return rc == DRYDB_OK ? 0 : -1;
}

static void *open_(const char *path) {
    struct h *h = calloc(1, sizeof *h);
    int rc = drydb_open(path, 0, 0, &h->db);
    if (rc == DRYDB_OK) rc = drydb_table_open(h->db, "bench", &h->t);
    if (rc != DRYDB_OK) { fail("open", rc); drydb_close(h->db); free(h); return NULL; }
    return h;
}

static void close_(void *p) { struct h *h = p; drydb_close(h->db); free(h); }

static int get(void *p, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen) {
    struct h *h = p;
    int rc = drydb_get(h->t, key, klen, val, vlen);
    return rc == DRYDB_OK ? 1 : rc == DRYDB_NOTFOUND ? 0 : -1;
}

static long get_many(void *p, size_t n, const uint8_t *keys, size_t klen,
                     const uint8_t **vals, size_t *vlens) {
    struct h *h = p;
    if (n > MANY_MAX) return -1;
    if (klen != h->klen) { /* every key of a run has one width */
        for (size_t i = 0; i < MANY_MAX; i++) h->klens[i] = klen;
        h->klen = klen;
    }
    if (drydb_get_many(h->t, n, keys, h->klens, vals, vlens, h->found) != DRYDB_OK) return -1;
    long f = 0;
    for (size_t i = 0; i < n; i++) f += h->found[i];
    return f;
}

static long scan(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum) {
    struct h *h = p;
    const uint8_t *ks[SCAN_BATCH], *vs[SCAN_BATCH];
    size_t kls[SCAN_BATCH], vls[SCAN_BATCH], got;
    long rows = 0;
    int kind = DRYDB_INCLUSIVE;
    uint8_t from[16];
    if (klen > sizeof from) return -1;
    memcpy(from, lo, klen);
    /* one drydb_range call per SCAN_BATCH rows; a full batch continues
     * after its last key */
    for (;;) {
        if (drydb_range(h->t, from, klen, kind, hi, klen, DRYDB_INCLUSIVE, 0, SCAN_BATCH, ks, kls, vs, vls, &got))
            return -1;
        for (size_t i = 0; i < got; i++) *sum += vls[i] + vs[i][vls[i] - 1];
        rows += (long)got;
        if (got < SCAN_BATCH) return rows;
        memcpy(from, ks[got - 1], klen); /* copied: a compressed table's key lives in the thread buffer */
        kind = DRYDB_EXCLUSIVE;
    }
}

static long count(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen) {
    struct h *h = p;
    uint64_t n;
    if (drydb_count(h->t, lo, klen, DRYDB_INCLUSIVE, hi, klen, DRYDB_INCLUSIVE, &n)) return -1;
    return (long)n;
}

const struct bench_store bench_store_impl = {
    .name = NAME,
    .config = "KEY_INT64 / KEY_STRING / KEY_UUID table by shape, " COMPRESS_CFG ", 4 KiB pages; get_many batch 256; drydb_range 128 rows per call; drydb_count",
    .version = ver, .build = build, .open = open_, .close = close_, .get = get,
    .get_many = get_many, .scan = scan, .count = count,
};
