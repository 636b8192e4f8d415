/* store.h - the store interface every C benchmark program implements.
 *
 * One program per store: driver.c (the shapes, timing, JSON output) linked with
 * one store_<name>.c that defines `const struct bench_store bench_store_impl`.
 * Adding a store (drydb: store_drydb.c against include/drydb.h + libdrydb.so)
 * is one more such file plus one line in bench/run.
 *
 * Rows come from a bench/shapes.py file: every key of a run has the same
 * width klen (8: int64 shapes, 16: str16 and uuid7), values vary in length;
 * build input is sorted ascending by key (memcmp). Pointers returned by
 * get/get_many/scan stay valid until the next call on the same handle
 * (zero-copy where the store allows it).
 */
#ifndef DRYDB_BENCH_STORE_H
#define DRYDB_BENCH_STORE_H

#include <stddef.h>
#include <stdint.h>

/* What the keys are (bench/shapes.py's key kind): stores with typed keys
 * (drydb) pick their key kind from it; the others see bytes. */
enum bench_kind { BENCH_INT64 = 0, BENCH_STRING = 1, BENCH_UUID = 2 };

struct bench_store {
    const char *name;    /* "lmdb", "sqlite", ... : the "store" field of the JSON lines */
    const char *config;  /* one line: how it is configured (goes into the report) */
    const char *(*version)(void);

    /* Write a new database file/dir at path from n sorted rows (keys: n*klen
     * bytes back to back; row i's value: vals[voff[i] .. voff[i+1])).
     * Durable: synced when it returns. Returns 0 on success. */
    int (*build)(const char *path, enum bench_kind kind, size_t n, const uint8_t *keys,
                 size_t klen, const uint8_t *vals, const size_t *voff);

    /* Open read-only; NULL on failure. close releases everything. */
    void *(*open)(const char *path);
    void (*close)(void *h);

    /* Point lookup. Returns 1 found (val, vlen set), 0 absent, <0 error. */
    int (*get)(void *h, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen);

    /* Optional (NULL if the store has no batch call): n keys of klen bytes back
     * to back; fills vals[i], vlens[i] (NULL/0 when absent). Returns #found. */
    long (*get_many)(void *h, size_t n, const uint8_t *keys, size_t klen,
                     const uint8_t **vals, size_t *vlens);

    /* Optional: visit rows with lo <= key <= hi in order, touching each value;
     * returns the number of rows and adds vlen + val[vlen-1] of each row to
     * *sum (so the value is really read). */
    long (*scan)(void *h, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum);

    /* Optional: number of rows with lo <= key <= hi. */
    long (*count)(void *h, const uint8_t *lo, const uint8_t *hi, size_t klen);
};

extern const struct bench_store bench_store_impl;

#endif
