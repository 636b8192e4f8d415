/* DryDB 1.4 output through the C API: a builder with drydb_builder_set_format(DRYDB_FORMAT_DRYDB14)
 * writes a 1.4 file (header "DRY\0" 1 4) that opens with the same rows and index entries as the
 * native build of the same input (plain and zstd, to a file and to memory); drydb_convert turns it
 * into a native file and back with the same contents; what 1.4 cannot hold is refused with
 * DRYDB_INVALID. (engine/drydb14's Go tests check such files with the Rust crate as well.) */
#include "testutil.h"

#define N (tu_under_valgrind() ? 300 : 2500) /* valgrind runs ~50x slower */

static void fill(drydb_builder *b, int compression) {
    drydb_tbuilder *t, *s;
    drydb_ibuilder *grp, *name;
    OK(drydb_builder_table(b, "items", DRYDB_KEY_INT64, NULL, 0, compression, 0, 0, &t));
    OK(drydb_builder_index(t, "grp", 0, DRYDB_KEY_INT64, NULL, 0, &grp));
    OK(drydb_builder_index(t, "name", 1, DRYDB_KEY_STRING, NULL, 0, &name));
    uint8_t k[8], g[8], v[128];
    char nm[32];
    for (int64_t i = -N / 2; i < N / 2; i++) {
        drydb_key_int64(i * 7, k);
        drydb_key_int64(i % 5, g);
        size_t vl = tu_val(i + N, v); /* tu_val wants i >= 0 */
        OK(drydb_builder_append(t, k, 8, v, vl));
        OK(drydb_builder_index_add(grp, g, 8, k, 8));
        snprintf(nm, sizeof nm, "n%06lld", (long long)(i + N));
        OK(drydb_builder_index_add(name, (const uint8_t *)nm, strlen(nm), k, 8));
    }
    OK(drydb_builder_table(b, "strs", DRYDB_KEY_BYTES, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &s));
    static uint8_t big[70000];
    memset(big, 'b', sizeof big);
    OK(drydb_builder_append(s, (const uint8_t *)"", 0, (const uint8_t *)"empty", 5));
    OK(drydb_builder_append(s, (const uint8_t *)"\xff", 1, big, sizeof big));
    OK(drydb_builder_append(s, (const uint8_t *)"a", 1, NULL, 0));
}

/* Walks two cursors side by side: same keys and values (and primary keys for index cursors). */
static void same_cursor(drydb_cursor *a, drydb_cursor *b, int index) {
    int ra = drydb_cursor_first(a), rb = drydb_cursor_first(b);
    size_t n = 0;
    while (ra == DRYDB_OK && rb == DRYDB_OK) {
        const uint8_t *ka, *va, *kb, *vb;
        size_t kal, val, kbl, vbl;
        OK(drydb_cursor_get(a, &ka, &kal, &va, &val));
        OK(drydb_cursor_get(b, &kb, &kbl, &vb, &vbl));
        CHECK(kal == kbl && memcmp(ka, kb, kal) == 0);
        CHECK(val == vbl && (val == 0 || memcmp(va, vb, val) == 0));
        if (index) {
            OK(drydb_cursor_primary_key(a, &ka, &kal));
            OK(drydb_cursor_primary_key(b, &kb, &kbl));
            CHECK(kal == kbl && memcmp(ka, kb, kal) == 0);
        }
        ra = drydb_cursor_next(a);
        rb = drydb_cursor_next(b);
        n++;
    }
    CHECK(ra == DRYDB_NOTFOUND && rb == DRYDB_NOTFOUND);
    CHECK(n > 0);
}

static void same_contents(drydb_db *a, drydb_db *b) {
    static const char *tables[] = {"items", "strs"};
    for (int i = 0; i < 2; i++) {
        drydb_table *ta, *tb;
        drydb_cursor *ca, *cb;
        OK(drydb_table_open(a, tables[i], &ta));
        OK(drydb_table_open(b, tables[i], &tb));
        OK(drydb_cursor_open(ta, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &ca));
        OK(drydb_cursor_open(tb, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &cb));
        same_cursor(ca, cb, 0);
        OK(drydb_cursor_close(ca));
        OK(drydb_cursor_close(cb));
    }
    static const char *indexes[] = {"grp", "name"};
    drydb_table *ta, *tb;
    OK(drydb_table_open(a, "items", &ta));
    OK(drydb_table_open(b, "items", &tb));
    for (int i = 0; i < 2; i++) {
        drydb_index *ia, *ib;
        drydb_cursor *ca, *cb;
        OK(drydb_index_open(ta, indexes[i], &ia));
        OK(drydb_index_open(tb, indexes[i], &ib));
        OK(drydb_index_cursor_open(ia, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &ca));
        OK(drydb_index_cursor_open(ib, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &cb));
        same_cursor(ca, cb, 1);
        OK(drydb_cursor_close(ca));
        OK(drydb_cursor_close(cb));
    }
}

static drydb_db *open_file(const char *path) {
    drydb_db *db;
    OK(drydb_open(path, DRYDB_OPEN_VERIFY, 0, &db));
    return db;
}

static void is_14(const uint8_t *p, size_t n) {
    CHECK(n > 6 && memcmp(p, "DRY\0\x01\x04", 6) == 0);
}

static void roundtrip(int compression) {
    char *native = tu_path("native.drydb"), *v14 = tu_path("v14.drydb"), *back = tu_path("back.drydb"),
         *again = tu_path("again.drydb");
    drydb_builder *b;
    OK(drydb_builder_new(1024, 0, &b));
    fill(b, compression);
    OK(drydb_builder_build_file(b, native));
    OK(drydb_builder_free(b));

    OK(drydb_builder_new(1024, 0, &b));
    OK(drydb_builder_set_format(b, DRYDB_FORMAT_DRYDB14));
    fill(b, compression);
    OK(drydb_builder_build_file(b, v14));
    OK(drydb_builder_free(b));
    size_t n;
    char *data = tu_read_file(v14, &n);
    is_14((const uint8_t *)data, n);
    CHECK(data[6] == (compression == DRYDB_COMPRESS_ZSTD)); /* filter count: zstd covers the file */

    /* to memory: the same bytes as the file */
    uint8_t *mem;
    size_t mlen;
    OK(drydb_builder_new(1024, 0, &b));
    OK(drydb_builder_set_format(b, DRYDB_FORMAT_DRYDB14));
    fill(b, compression);
    OK(drydb_builder_build_memory(b, &mem, &mlen));
    OK(drydb_builder_free(b));
    CHECK(mlen == n && memcmp(mem, data, n) == 0);
    drydb_free(mem);
    free(data);

    drydb_db *dn = open_file(native), *d14 = open_file(v14);
    same_contents(dn, d14);
    OK(drydb_close(d14));

    OK(drydb_convert(v14, back, DRYDB_FORMAT_NATIVE, 0, NULL));
    data = tu_read_file(back, &n);
    CHECK(memcmp(data, "DRY\0", 4) != 0);
    free(data);
    OK(drydb_convert(back, again, DRYDB_FORMAT_DRYDB14, 4096, "zstd"));
    data = tu_read_file(again, &n);
    is_14((const uint8_t *)data, n);
    CHECK(data[6] == 1);
    free(data);
    drydb_db *db = open_file(back), *da = open_file(again);
    same_contents(dn, db);
    same_contents(dn, da);
    OK(drydb_close(db));
    OK(drydb_close(da));
    OK(drydb_close(dn));
    free(native), free(v14), free(back), free(again);
}

static void refusals(void) {
    drydb_builder *b;
    drydb_tbuilder *t;
    drydb_ibuilder *ix;
    uint8_t parts[2] = {DRYDB_KEY_INT64, DRYDB_KEY_STRING};
    OK(drydb_builder_new(0, 0, &b));
    CHECK_RC(drydb_builder_set_format(b, "drydb-9"), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "drydb-9") != NULL);
    CHECK_RC(drydb_builder_set_format(b, NULL), DRYDB_INVALID);
    OK(drydb_builder_set_format(b, DRYDB_FORMAT_DRYDB14));
    CHECK_RC(drydb_builder_table(b, "pairs", DRYDB_KEY_COMPOSITE, parts, 2, DRYDB_COMPRESS_NONE, 0, 0, &t), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "\"pairs\"") && strstr(drydb_errmsg(), "composite"));
    CHECK_RC(drydb_builder_table(b, "f", DRYDB_KEY_FLOAT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &t), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table(b, "s2", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_S2, 0, 0, &t), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "S2") != NULL);
    OK(drydb_builder_table(b, "ok", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &t));
    CHECK_RC(drydb_builder_index(t, "u", 0, DRYDB_KEY_UINT64, NULL, 0, &ix), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "uint64") != NULL);
    CHECK_RC(drydb_builder_set_format(b, DRYDB_FORMAT_NATIVE), DRYDB_INVALID); /* after a table */
    OK(drydb_builder_free(b));

    char *out = tu_path("x.drydb"), *in = tu_path("sample.drydb");
    tu_sample_file(in); /* has uint64 keys ("big"): 1.4 cannot hold them */
    CHECK_RC(drydb_convert(in, out, DRYDB_FORMAT_DRYDB14, 0, NULL), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "uint64") != NULL);
    CHECK_RC(drydb_convert(in, out, "csv", 0, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_convert(in, out, DRYDB_FORMAT_NATIVE, 0, "lz4"), DRYDB_INVALID);
    CHECK_RC(drydb_convert(NULL, out, DRYDB_FORMAT_NATIVE, 0, NULL), DRYDB_INVALID);
    FILE *f = fopen(out, "rb");
    CHECK(f == NULL); /* nothing written */
    free(out), free(in);
}

int main(void) {
    roundtrip(DRYDB_COMPRESS_NONE);
    roundtrip(DRYDB_COMPRESS_ZSTD);
    refusals();
    printf("test_write14: ok\n");
    return 0;
}
