/* DryDB 1.4 files through the C API: drydb_open recognises the format and every fixture of
 * tests/drydb14/fixtures (written by the Rust crate drydb 0.1.0+drydb1.4) reads back as its
 * .expected.json: drydb_get and drydb_get_many of every row, a cursor over the table in both
 * directions, counts, every index entry with its primary key and value, drydb_index_get and
 * drydb_index_count per index key (where DryDB's C# reader is wrong on non-unique indexes), and
 * drydb_verify. Keys are compared in drydb's encodings: 1.4 i64 (little-endian) becomes drydb's
 * int64 (big-endian, sign bit flipped), a .NET-layout uuidv7 becomes RFC 4122 bytes. */
#include "minijson.h"
#include "testutil.h"

static const char *fixtures[] = {
    "tiny_p4096", "multi_p4096", "zstd_p4096", /* the first three: the valgrind run's share */
    "ascii_p4096", "ascii_p512", "i64_p4096", "i64_p256", "eytzinger_p4096", "classic_p65536",
};

/* The native form of a 1.4 key given in hex, in a zeroed, padded buffer (Go's vectorised
 * compares may read a few bytes past a key). */
static uint8_t *native(const char *enc, const char *hex, size_t *n) {
    uint8_t *p = calloc(1, strlen(hex) / 2 + 64), t[16];
    *n = unhex(hex, p);
    if (strcmp(enc, "i64") == 0) {
        CHECK(*n == 8);
        for (int i = 0; i < 8; i++) t[i] = p[7 - i];
        t[0] ^= 0x80;
        memcpy(p, t, 8);
    } else if (strcmp(enc, "uuidv7") == 0) {
        static const int from[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
        CHECK(*n == 16);
        for (int i = 0; i < 16; i++) t[i] = p[from[i]];
        memcpy(p, t, 16);
    }
    return p;
}

static void same(const uint8_t *got, size_t gl, const uint8_t *want, size_t wl, const char *what, size_t i) {
    if (gl != wl || (wl && memcmp(got, want, wl) != 0)) {
        fprintf(stderr, "%s %zu: got %zu bytes, want %zu\n", what, i, gl, wl);
        exit(1);
    }
}

static void same_hex(const uint8_t *got, size_t gl, const char *hex, const char *what, size_t i) {
    size_t wl;
    uint8_t *want = native("ascii", hex, &wl);
    same(got, gl, want, wl, what, i);
    free(want);
}

static void check_index(drydb_table *t, const char *pkenc, jv *id) {
    const char *name = jget(id, "name")->s, *enc = jget(id, "encoding")->s;
    drydb_index *ix;
    struct drydb_index_info ii;
    OK(drydb_index_open(t, name, &ix));
    OK(drydb_index_info(ix, &ii));
    jv *es = jget(id, "entries");
    CHECK(ii.unique == (jget(id, "is_unique")->type == J_BOOL && jget(id, "is_unique")->n));
    CHECK(ii.entries == es->n);
    drydb_cursor *c;
    OK(drydb_index_cursor_open(ix, NULL, 0, 0, NULL, 0, 0, &c));
    size_t run = 0; /* entries so far with the current index key */
    for (size_t j = 0; j < es->n; j++) {
        jv *e = es->items[j];
        const uint8_t *k, *pk, *v;
        size_t kl, pkl, vl, wkl, wpkl;
        uint8_t *wk = native(enc, e->items[0]->s, &wkl), *wpk = native(pkenc, e->items[3]->s, &wpkl);
        OK(drydb_cursor_next(c));
        OK(drydb_cursor_get(c, &k, &kl, &v, &vl));
        same(k, kl, wk, wkl, name, j);
        same_hex(v, vl, e->items[2]->s, name, j);
        OK(drydb_cursor_primary_key(c, &pk, &pkl));
        same(pk, pkl, wpk, wpkl, name, j);
        run = (j > 0 && strcmp(es->items[j - 1]->items[0]->s, e->items[0]->s) == 0) ? run + 1 : 1;
        int last = j + 1 == es->n || strcmp(es->items[j + 1]->items[0]->s, e->items[0]->s) != 0;
        if (last) { /* the run of this index key ends here */
            uint64_t n, after;
            OK(drydb_index_count(ix, wk, wkl, DRYDB_INCLUSIVE, wk, wkl, DRYDB_INCLUSIVE, &n));
            CHECK(n == run);
            OK(drydb_index_count(ix, wk, wkl, DRYDB_EXCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &after));
            CHECK(after == es->n - j - 1);
            OK(drydb_index_get(ix, wk, wkl, &pk, &pkl, &v, &vl));
            jv *first = es->items[j + 1 - run];
            size_t fpkl;
            uint8_t *fpk = native(pkenc, first->items[3]->s, &fpkl);
            same(pk, pkl, fpk, fpkl, "index_get pk", j);
            same_hex(v, vl, first->items[2]->s, "index_get value", j);
            free(fpk);
        }
        free(wk);
        free(wpk);
    }
    CHECK_RC(drydb_cursor_next(c), DRYDB_NOTFOUND);
    OK(drydb_cursor_close(c));
}

static void check_table(drydb_db *db, jv *td) {
    const char *name = jget(td, "name")->s, *enc = jget(jget(td, "primary_index"), "encoding")->s;
    drydb_table *t;
    struct drydb_table_info ti;
    OK(drydb_table_open(db, name, &t));
    OK(drydb_table_info(t, &ti));
    jv *rows = jget(td, "rows");
    CHECK(ti.rows == rows->n);
    size_t n = rows->n, total = 0;
    uint8_t **keys = calloc(n + 1, sizeof *keys);
    size_t *klens = calloc(n + 1, sizeof *klens);
    for (size_t i = 0; i < n; i++) {
        keys[i] = native(enc, rows->items[i]->items[0]->s, &klens[i]);
        total += klens[i];
    }
    const uint8_t *first = NULL;
    size_t firstlen = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *v;
        size_t vl;
        OK(drydb_get(t, keys[i], klens[i], &v, &vl));
        same_hex(v, vl, rows->items[i]->items[1]->s, name, i);
        if (i == 0) first = v, firstlen = vl;
    }
    /* Values stay valid until drydb_close (they lie in the image, not in a thread buffer). */
    if (n) same_hex(first, firstlen, rows->items[0]->items[1]->s, "first value after other gets", 0);
    /* get_many over every key at once */
    uint8_t *cat = calloc(1, total + 64), *o = cat, *found = calloc(n + 1, 1);
    const uint8_t **vals = calloc(n + 1, sizeof *vals);
    size_t *vlens = calloc(n + 1, sizeof *vlens);
    for (size_t i = 0; i < n; i++) memcpy(o, keys[i], klens[i]), o += klens[i];
    OK(drydb_get_many(t, n, cat, klens, vals, vlens, found));
    for (size_t i = 0; i < n; i++) {
        CHECK(found[i]);
        same_hex(vals[i], vlens[i], rows->items[i]->items[1]->s, "get_many", i);
    }
    /* the whole table backwards, then a count of every range [i, end) */
    drydb_cursor *c;
    OK(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c));
    for (size_t i = n; i-- > 0;) {
        const uint8_t *k, *v;
        size_t kl, vl;
        OK(i == n - 1 ? drydb_cursor_last(c) : drydb_cursor_prev(c));
        OK(drydb_cursor_get(c, &k, &kl, &v, &vl));
        same(k, kl, keys[i], klens[i], name, i);
        same_hex(v, vl, rows->items[i]->items[1]->s, name, i);
    }
    OK(drydb_cursor_close(c));
    for (size_t i = 0; i < n; i += 1 + n / 16) {
        uint64_t got;
        OK(drydb_count(t, keys[i], klens[i], DRYDB_EXCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &got));
        CHECK(got == n - i - 1);
        OK(drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, keys[i], klens[i], DRYDB_INCLUSIVE, &got));
        CHECK(got == i + 1);
    }
    jv *ixs = jget(td, "indexes");
    CHECK(ti.index_count == ixs->n);
    for (size_t i = 0; i < ixs->n; i++) check_index(t, enc, ixs->items[i]);
    for (size_t i = 0; i < n; i++) free(keys[i]);
    free(keys), free(klens), free(cat), free(found), free(vals), free(vlens);
}

int main(void) {
    const char *dir = getenv("DRYDB14_FIXTURES");
    if (!dir) dir = "tests/drydb14/fixtures";
    /* Under valgrind every call costs ~100 times more: the smallest three fixtures still cover
     * every layout but classic, zstd, blobs, uuidv7/ulid and both index kinds. */
    size_t nf = getenv("DRYDB_UNDER_VALGRIND") ? 3 : sizeof fixtures / sizeof *fixtures;
    for (size_t f = 0; f < nf; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.expected.json", dir, fixtures[f]);
        char *text = tu_read_file(path, NULL);
        if (!text) {
            fprintf(stderr, "cannot read %s (set DRYDB14_FIXTURES)\n", path);
            return 1;
        }
        jv *root = jparse(text);
        snprintf(path, sizeof path, "%s/%s.drydb", dir, fixtures[f]);
        drydb_db *db;
        OK(drydb_open(path, DRYDB_OPEN_VERIFY, 0, &db));
        jv *tables = jget(root, "tables");
        size_t nt;
        OK(drydb_table_count(db, &nt));
        CHECK(nt == tables->n);
        for (size_t i = 0; i < tables->n; i++) {
            const char *tn;
            OK(drydb_table_name(db, i, &tn));
            CHECK(strcmp(tn, jget(tables->items[i], "name")->s) == 0);
            check_table(db, tables->items[i]);
        }
        OK(drydb_verify(db));
        OK(drydb_close(db));
        printf("%s: %zu tables ok\n", fixtures[f], tables->n);
        jfree(root);
        free(text);
    }
    /* Another DryDB version is refused with a clear error, not read. */
    char path[1024];
    snprintf(path, sizeof path, "%s/tiny_p4096.drydb", dir);
    size_t len;
    char *bytes = tu_read_file(path, &len);
    CHECK(bytes && len > 6);
    bytes[5] = 3; /* minor 3 */
    drydb_db *db;
    CHECK_RC(drydb_open_memory(bytes, len, 0, 0, &db), DRYDB_VERSION);
    free(bytes);
    printf("test_drydb14: ok\n");
    return 0;
}
