/* SQLite through its C API: WITHOUT ROWID table with a BLOB primary key,
 * opened read-only as a `file:...?immutable=1` URI with mmap on; one prepared
 * statement per query kind, reused (reset + rebind). Build: one transaction,
 * one prepared INSERT, default journal, synchronous=FULL at commit. */
#include "store.h"
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct h { sqlite3 *db; sqlite3_stmt *get, *scan, *count; };

static const char *ver(void) { return sqlite3_libversion(); }

static int build(const char *path, enum bench_kind kind, size_t n, const uint8_t *keys,
                 size_t klen, const uint8_t *vals, const size_t *voff) {
    (void)kind;
    sqlite3 *db; sqlite3_stmt *st = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK) return -1;
    int rc = sqlite3_exec(db, "PRAGMA page_size=4096;"
                              "CREATE TABLE bench(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;"
                              "BEGIN", NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(db, "INSERT INTO bench(k,v) VALUES(?1,?2)", -1, &st, NULL);
    for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
        sqlite3_bind_blob(st, 1, keys + i * klen, (int)klen, SQLITE_STATIC);
        sqlite3_bind_blob(st, 2, vals + voff[i], (int)(voff[i + 1] - voff[i]), SQLITE_STATIC);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) fprintf(stderr, "sqlite build: %s\n", sqlite3_errmsg(db));
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

static void *open_(const char *path) {
    struct h *h = calloc(1, sizeof *h);
    char uri[4200];
    snprintf(uri, sizeof uri, "file:%s?immutable=1", path);
    if (sqlite3_open_v2(uri, &h->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) goto fail;
    sqlite3_exec(h->db, "PRAGMA mmap_size=1073741824", NULL, NULL, NULL);
    if (sqlite3_prepare_v3(h->db, "SELECT v FROM bench WHERE k=?1", -1, SQLITE_PREPARE_PERSISTENT, &h->get, NULL))
        goto fail;
    return h;
fail:
    sqlite3_finalize(h->get); sqlite3_finalize(h->scan); sqlite3_finalize(h->count);
    sqlite3_close(h->db);
    free(h);
    return NULL;
}

static void close_(void *p) {
    struct h *h = p;
    sqlite3_finalize(h->get); sqlite3_finalize(h->scan); sqlite3_finalize(h->count);
    sqlite3_close(h->db);
    free(h);
}

/* the value pointer stays valid until the statement is reset by the next call */
static int get(void *p, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen) {
    struct h *h = p;
    sqlite3_reset(h->get);
    sqlite3_bind_blob(h->get, 1, key, (int)klen, SQLITE_STATIC);
    int rc = sqlite3_step(h->get);
    if (rc == SQLITE_DONE) return 0;
    if (rc != SQLITE_ROW) return -1;
    *val = sqlite3_column_blob(h->get, 0);
    *vlen = (size_t)sqlite3_column_bytes(h->get, 0);
    return 1;
}

/* scan and count statements are prepared on first use, then reused */
static int prep(struct h *h, sqlite3_stmt **st, const char *sql) {
    return *st ? SQLITE_OK : sqlite3_prepare_v3(h->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
}

static long scan(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum) {
    struct h *h = p;
    long n = 0;
    if (prep(h, &h->scan, "SELECT v FROM bench WHERE k>=?1 AND k<=?2 ORDER BY k")) return -1;
    sqlite3_bind_blob(h->scan, 1, lo, (int)klen, SQLITE_STATIC);
    sqlite3_bind_blob(h->scan, 2, hi, (int)klen, SQLITE_STATIC);
    while (sqlite3_step(h->scan) == SQLITE_ROW) {
        const uint8_t *v = sqlite3_column_blob(h->scan, 0);
        int vl = sqlite3_column_bytes(h->scan, 0);
        *sum += (uint64_t)vl + v[vl - 1];
        n++;
    }
    sqlite3_reset(h->scan);
    return n;
}

static long count(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen) {
    struct h *h = p;
    long n = -1;
    if (prep(h, &h->count, "SELECT COUNT(*) FROM bench WHERE k>=?1 AND k<=?2")) return -1;
    sqlite3_bind_blob(h->count, 1, lo, (int)klen, SQLITE_STATIC);
    sqlite3_bind_blob(h->count, 2, hi, (int)klen, SQLITE_STATIC);
    if (sqlite3_step(h->count) == SQLITE_ROW) n = (long)sqlite3_column_int64(h->count, 0);
    sqlite3_reset(h->count);
    return n;
}

const struct bench_store bench_store_impl = {
    .name = "sqlite",
    .config = "WITHOUT ROWID, BLOB key; file:?immutable=1 read-only, mmap_size=1GiB, prepared statements reused; build: one txn",
    .version = ver, .build = build, .open = open_, .close = close_, .get = get,
    .get_many = NULL, .scan = scan, .count = count,
};
