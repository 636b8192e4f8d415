/* LMDB through its C API: read-only env, one long-lived read txn, one reused
 * cursor; build with MDB_APPEND in one write txn (synced at commit). */
#include "store.h"
#include <lmdb.h>
#include <stdlib.h>
#include <string.h>

struct h { MDB_env *env; MDB_txn *txn; MDB_dbi dbi; MDB_cursor *cur; };

static const char *ver(void) { return mdb_version(NULL, NULL, NULL); }

static int build(const char *path, enum bench_kind kind, size_t n, const uint8_t *keys,
                 size_t klen, const uint8_t *vals, const size_t *voff) {
    (void)kind;
    MDB_env *env; MDB_txn *txn; MDB_dbi dbi; int rc;
    if (mdb_env_create(&env)) return -1;
    mdb_env_set_mapsize(env, (size_t)64 << 30);
    if ((rc = mdb_env_open(env, path, MDB_NOSUBDIR, 0644))) goto fail;
    if ((rc = mdb_txn_begin(env, NULL, 0, &txn))) goto fail;
    if ((rc = mdb_dbi_open(txn, NULL, 0, &dbi))) goto fail;
    for (size_t i = 0; i < n; i++) {
        MDB_val k = { klen, (void *)(keys + i * klen) }, v = { voff[i + 1] - voff[i], (void *)(vals + voff[i]) };
        if ((rc = mdb_put(txn, dbi, &k, &v, MDB_APPEND))) { mdb_txn_abort(txn); goto fail; }
    }
    if ((rc = mdb_txn_commit(txn))) goto fail;
    mdb_env_close(env);
    return 0;
fail:
    mdb_env_close(env);
    return rc ? rc : -1;
}

static void *open_(const char *path) {
    struct h *h = calloc(1, sizeof *h);
    if (mdb_env_create(&h->env)) goto fail;
    if (mdb_env_open(h->env, path, MDB_RDONLY | MDB_NOSUBDIR, 0644)) goto fail;
    if (mdb_txn_begin(h->env, NULL, MDB_RDONLY, &h->txn)) goto fail;
    if (mdb_dbi_open(h->txn, NULL, 0, &h->dbi)) goto fail;
    if (mdb_cursor_open(h->txn, h->dbi, &h->cur)) goto fail;
    return h;
fail:
    if (h->env) mdb_env_close(h->env);
    free(h);
    return NULL;
}

static void close_(void *p) {
    struct h *h = p;
    mdb_cursor_close(h->cur);
    mdb_txn_abort(h->txn);
    mdb_env_close(h->env);
    free(h);
}

static int get(void *p, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen) {
    struct h *h = p;
    MDB_val k = { klen, (void *)key }, v;
    int rc = mdb_get(h->txn, h->dbi, &k, &v);
    if (rc == MDB_NOTFOUND) return 0;
    if (rc) return -1;
    *val = v.mv_data; *vlen = v.mv_size;
    return 1;
}

static long walk(struct h *h, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum) {
    MDB_val k = { klen, (void *)lo }, v;
    long n = 0;
    int rc = mdb_cursor_get(h->cur, &k, &v, MDB_SET_RANGE);
    while (rc == 0) {
        size_t m = k.mv_size < klen ? k.mv_size : klen;
        int c = memcmp(k.mv_data, hi, m);
        if (c > 0 || (c == 0 && k.mv_size > klen)) break;
        n++;
        if (sum) *sum += v.mv_size + ((const uint8_t *)v.mv_data)[v.mv_size - 1];
        rc = mdb_cursor_get(h->cur, &k, &v, MDB_NEXT);
    }
    return n;
}

static long scan(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum) {
    return walk(p, lo, hi, klen, sum);
}

/* LMDB keeps no subtree counts: a range count walks the cursor */
static long count(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen) {
    return walk(p, lo, hi, klen, NULL);
}

const struct bench_store bench_store_impl = {
    .name = "lmdb",
    .config = "MDB_RDONLY env, one long-lived read txn, reused cursor; build MDB_APPEND, one txn",
    .version = ver, .build = build, .open = open_, .close = close_, .get = get,
    .get_many = NULL, .scan = scan, .count = count,
};
