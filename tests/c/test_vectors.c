/* The shared vectors: go_built.drydb (built by the Go engine) and
 * c_built.drydb (built through this C API by make_vectors.c), checked
 * against tests/vectors/expected.json: every row by drydb_get, by cursor and
 * by batch, absent keys, range counts, index entries. */
#include "minijson.h"
/* the hash index's key hash (internal to the library: its header) */
#include "../../capi/hash.h"
#include "testutil.h"

static uint8_t *unhex_alloc(const char *h, size_t *n) {
    /* Padded and zeroed: Go's vectorised compares read whole 16- or
     * 32-byte blocks that may pass the end of a key (never its page), and
     * memcheck would report the padding's bytes as uninitialised. */
    uint8_t *p = calloc(1, strlen(h) / 2 + 64);
    *n = unhex(h, p);
    return p;
}

static void same(const uint8_t *got, size_t gl, const char *hex, const char *what, size_t i) {
    size_t wl;
    uint8_t *want = unhex_alloc(hex, &wl);
    if (gl != wl || memcmp(got, want, wl) != 0) {
        fprintf(stderr, "%s %zu: got %zu bytes, want %s\n", what, i, gl, hex);
        exit(1);
    }
    free(want);
}

static void check_table(drydb_db *db, jv *td) {
    const char *name = jget(td, "name")->s;
    drydb_table *t;
    struct drydb_table_info ti;
    OK(drydb_table_open(db, name, &t));
    OK(drydb_table_info(t, &ti));
    CHECK(ti.key_kind == atoi(jget(td, "key_kind")->s));
    CHECK(ti.compression == atoi(jget(td, "compression")->s));
    CHECK(ti.rows == strtoull(jget(td, "rows")->s, NULL, 10));
    jv *parts = jget(td, "parts");
    CHECK(ti.nparts == parts->n);
    for (size_t i = 0; i < parts->n; i++) CHECK(ti.parts[i] == atoi(parts->items[i]->s));

    jv *entries = jget(td, "entries");
    CHECK(entries->n == ti.rows);
    drydb_cursor *c;
    OK(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c));
    for (size_t i = 0; i < entries->n; i++) {
        size_t kl, vl;
        const uint8_t *v, *ck, *cv;
        size_t ckl, cvl;
        uint8_t *k = unhex_alloc(entries->items[i]->items[0]->s, &kl);
        OK(drydb_get(t, k, kl, &v, &vl));
        same(v, vl, entries->items[i]->items[1]->s, name, i);
        OK(drydb_cursor_next(c));
        OK(drydb_cursor_get(c, &ck, &ckl, &cv, &cvl));
        same(ck, ckl, entries->items[i]->items[0]->s, name, i);
        same(cv, cvl, entries->items[i]->items[1]->s, name, i);
        uint64_t r;
        OK(drydb_rank(t, k, kl, &r));
        CHECK(r == i);
        free(k);
    }
    CHECK_RC(drydb_cursor_next(c), DRYDB_NOTFOUND);
    /* the same rows backward in batches of 7 */
    OK(drydb_cursor_close(c));
    OK(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c));
    size_t i = entries->n, n;
    const uint8_t *ks[7], *vs[7];
    size_t kls[7], vls[7];
    while (drydb_cursor_next_batch(c, 1, 7, ks, kls, vs, vls, &n) == DRYDB_OK)
        for (size_t j = 0; j < n; j++) {
            i--;
            same(ks[j], kls[j], entries->items[i]->items[0]->s, name, i);
            same(vs[j], vls[j], entries->items[i]->items[1]->s, name, i);
        }
    CHECK(i == 0);
    OK(drydb_cursor_close(c));

    jv *missing = jget(td, "missing");
    for (i = 0; missing && missing->type == J_ARR && i < missing->n; i++) {
        size_t kl, vl;
        const uint8_t *v;
        uint8_t *k = unhex_alloc(missing->items[i]->s, &kl);
        int rc = drydb_get(t, k, kl, &v, &vl);
        CHECK(rc == DRYDB_NOTFOUND || rc == DRYDB_BADKEY); /* e.g. a 9-byte int64 key */
        free(k);
    }
    jv *counts = jget(td, "counts");
    for (i = 0; i < counts->n; i++) {
        jv *cc = counts->items[i];
        size_t lol = 0, hil = 0;
        uint8_t *lo = NULL, *hi = NULL;
        if (jget(cc, "lo")->type == J_STR) lo = unhex_alloc(jget(cc, "lo")->s, &lol);
        if (jget(cc, "hi")->type == J_STR) hi = unhex_alloc(jget(cc, "hi")->s, &hil);
        uint64_t got;
        OK(drydb_count(t, lo, lol, atoi(jget(cc, "lo_kind")->s), hi, hil, atoi(jget(cc, "hi_kind")->s), &got));
        if (got != strtoull(jget(cc, "count")->s, NULL, 10)) {
            fprintf(stderr, "%s: count case %zu: got %llu, want %s\n", name, i, (unsigned long long)got, jget(cc, "count")->s);
            exit(1);
        }
        free(lo);
        free(hi);
    }
    jv *ixs = jget(td, "indexes");
    for (i = 0; ixs && ixs->type == J_ARR && i < ixs->n; i++) {
        jv *id = ixs->items[i];
        drydb_index *ix;
        struct drydb_index_info ii;
        OK(drydb_index_open(t, jget(id, "name")->s, &ix));
        OK(drydb_index_info(ix, &ii));
        CHECK(ii.unique == (uint32_t)jget(id, "unique")->n);
        jv *ie = jget(id, "entries");
        CHECK(ii.entries == ie->n);
        OK(drydb_index_cursor_open(ix, NULL, 0, 0, NULL, 0, 0, &c));
        for (size_t j = 0; j < ie->n; j++) {
            const uint8_t *k, *pk;
            size_t kl, pkl;
            OK(drydb_cursor_next(c));
            OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
            OK(drydb_cursor_primary_key(c, &pk, &pkl));
            same(k, kl, ie->items[j]->items[0]->s, jget(id, "name")->s, j);
            same(pk, pkl, ie->items[j]->items[1]->s, jget(id, "name")->s, j);
        }
        CHECK_RC(drydb_cursor_next(c), DRYDB_NOTFOUND);
        OK(drydb_cursor_close(c));
    }
}

static void check_file(const char *dir, jv *fd) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, jget(fd, "file")->s);
    drydb_db *db;
    OK(drydb_open(path, DRYDB_OPEN_VERIFY, 0, &db));
    jv *meta = jget(fd, "meta");
    for (size_t i = 0; i < meta->n; i++) {
        const uint8_t *v;
        size_t vl;
        OK(drydb_meta_get(db, (const uint8_t *)meta->keys[i], strlen(meta->keys[i]), &v, &vl));
        same(v, vl, meta->items[i]->s, "meta", i);
    }
    jv *tables = jget(fd, "tables");
    size_t n;
    OK(drydb_table_count(db, &n));
    CHECK(n == tables->n);
    for (size_t i = 0; i < tables->n; i++) check_table(db, tables->items[i]);
    OK(drydb_close(db));
    printf("%s: %zu tables ok\n", path, tables->n);
}

/* capi/hash.h's hash against tests/vectors/hash.json (format.HashKey's
 * values, which the engine's TestHashKeyGolden checks too). */
static void check_hash(void) {
    char *text = tu_read_vector("hash.json");
    jv *root = jparse(text);
    jv *keys = jget(root, "keys");
    CHECK(keys != NULL && keys->n >= 40);
    for (size_t i = 0; i < keys->n; i++) {
        uint8_t k[256];
        size_t n = unhex(jget(keys->items[i], "key")->s, k);
        unsigned long long want = strtoull(jget(keys->items[i], "hash")->s, NULL, 16);
        CHECK(drydb__hash_key(k, n) == want);
    }
    printf("hash.json: %zu keys ok\n", keys->n);
    jfree(root);
    free(text);
}

int main(void) {
    check_hash();
    const char *dir = getenv("DRYDB_VECTORS");
    if (!dir) dir = "tests/vectors";
    char *text = tu_read_vector("expected.json");
    jv *root = jparse(text);
    check_file(dir, jget(root, "go_built"));
    jv *c = jget(root, "c_built");
    CHECK(c != NULL);
    check_file(dir, c);
    jfree(root);
    free(text);
    printf("test_vectors: ok\n");
    return 0;
}
