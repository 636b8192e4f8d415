/* Every error path that must give a status, never a crash: NULL arguments,
 * closed and double-closed handles, handles of the wrong kind, forged
 * handles, absurd lengths, missing tables and indexes, bad files. */
#include "testutil.h"

#define HUGE ((size_t)1 << 40)

int main(void) {
    char *path = tu_path("sample.drydb");
    tu_sample_file(path);
    drydb_db *db;
    drydb_table *t, *ct;
    drydb_index *ix;
    drydb_cursor *c;
    const uint8_t *v, *k;
    const char *name;
    size_t vl, kl, n;
    uint64_t cnt;
    uint8_t key[8];
    drydb_key_int64(2, key);

    /* open failures */
    CHECK_RC(drydb_open(NULL, 0, 0, &db), DRYDB_INVALID);
    CHECK_RC(drydb_open(path, 0, 0, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_open("/nonexistent/x.drydb", 0, 0, &db), DRYDB_IO);
    CHECK(strstr(drydb_errmsg(), "nonexistent") != NULL);
    CHECK_RC(drydb_open("/tmp", 0, 0, &db), DRYDB_IO); /* a directory */
    CHECK(strstr(drydb_errmsg(), "is a directory") != NULL);
    CHECK_RC(drydb_open(path, 0x100, 0, &db), DRYDB_INVALID);
    CHECK_RC(drydb_open(path, 0, -5, &db), DRYDB_INVALID);
    char *junk = tu_path("junk.drydb");
    FILE *f = fopen(junk, "wb");
    for (int i = 0; i < 10000; i++) fputc(i & 0xff, f);
    fclose(f);
    CHECK_RC(drydb_open(junk, 0, 0, &db), DRYDB_CORRUPT);
    f = fopen(junk, "wb"); /* empty file */
    fclose(f);
    CHECK_RC(drydb_open(junk, 0, 0, &db), DRYDB_CORRUPT);
    CHECK_RC(drydb_open_memory(NULL, 10, 0, 0, &db), DRYDB_INVALID);
    CHECK_RC(drydb_open_memory("x", HUGE, 0, 0, &db), DRYDB_INVALID);
    CHECK_RC(drydb_open_memory("short", 5, 0, 0, &db), DRYDB_CORRUPT);
    /* a file with a flipped byte inside a page: verify finds it */
    size_t len;
    char *img = tu_read_file(path, &len);
    img[4096 * 3 + 100] ^= 0x55;
    OK(drydb_open_memory(img, len, 0, 0, &db));
    CHECK_RC(drydb_verify(db), DRYDB_CORRUPT);
    CHECK(strstr(drydb_errmsg(), "corrupt") != NULL);
    OK(drydb_close(db));
    CHECK_RC(drydb_open_memory(img, len, DRYDB_OPEN_VERIFY, 0, &db), DRYDB_CORRUPT);
    free(img);

    OK(drydb_open(path, 0, 0, &db));
    OK(drydb_table_open(db, "ints", &t));
    OK(drydb_table_open(db, "zstd", &ct));
    OK(drydb_index_open(t, "mod7", &ix));
    OK(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));

    /* NULL handles */
    CHECK_RC(drydb_get(NULL, key, 8, &v, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_info(NULL, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_next(NULL), DRYDB_INVALID);
    CHECK_RC(drydb_index_get(NULL, key, 8, &k, &kl, &v, &vl), DRYDB_INVALID);
    OK(drydb_cursor_close(NULL));
    OK(drydb_builder_free(NULL));

    /* NULL out-pointers and data */
    CHECK_RC(drydb_info(db, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_table_count(db, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_table_name(db, 0, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_cache_stats(db, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_meta_get(db, (const uint8_t *)"creator", 7, NULL, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_table_open(db, NULL, &t), DRYDB_INVALID);
    CHECK_RC(drydb_table_open(db, "ints", NULL), DRYDB_INVALID);
    CHECK_RC(drydb_table_info(t, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_get(t, key, 8, NULL, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_get(t, key, 8, &v, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_get(t, NULL, 8, &v, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_get_many(t, 1, key, NULL, NULL, NULL, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_count(t, NULL, 0, 0, NULL, 0, 0, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_count(t, NULL, 8, DRYDB_INCLUSIVE, NULL, 0, 0, &cnt), DRYDB_INVALID);
    CHECK_RC(drydb_rank(t, key, 8, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_at(t, 0, NULL, &kl, &v, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_open(t, NULL, 0, 5, NULL, 0, 0, &c), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_open(t, NULL, 0, -1, NULL, 0, 0, &c), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_open_prefix(t, NULL, 3, &c), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_open_prefix(t, NULL, 0, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_index_open(t, NULL, &ix), DRYDB_INVALID);
    CHECK_RC(drydb_index_info(ix, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_index_get(ix, key, 8, NULL, &kl, &v, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_index_count(ix, NULL, 0, 0, NULL, 0, 0, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_index_cursor_open(ix, NULL, 0, 0, NULL, 0, 0, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_index_cursor_open_prefix(ix, NULL, 1, &c), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_next_batch(c, 0, 4, NULL, NULL, NULL, NULL, &n), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_primary_key(c, NULL, NULL), DRYDB_BADHANDLE); /* table cursor */
    CHECK_RC(drydb_cursor_seek(c, NULL, 4), DRYDB_INVALID);

    /* absurd lengths */
    CHECK_RC(drydb_get(t, key, HUGE, &v, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_get(t, key, (size_t)-1, &v, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_rank(t, key, HUGE, &cnt), DRYDB_INVALID);
    CHECK_RC(drydb_count(t, key, HUGE, DRYDB_INCLUSIVE, NULL, 0, 0, &cnt), DRYDB_INVALID);
    CHECK_RC(drydb_meta_get(db, key, HUGE, &v, &vl), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_seek(c, key, HUGE), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_open_prefix(t, key, HUGE, &c), DRYDB_INVALID);
    size_t bigl[2] = {8, HUGE};
    const uint8_t *vals[2];
    size_t vlens[2];
    uint8_t found[2];
    CHECK_RC(drydb_get_many(t, 2, key, bigl, vals, vlens, found), DRYDB_INVALID);
    CHECK_RC(drydb_get_many(t, HUGE, key, bigl, vals, vlens, found), DRYDB_INVALID);
    const uint8_t *ks[4];
    size_t kls[4];
    CHECK_RC(drydb_cursor_next_batch(c, 0, HUGE, ks, kls, NULL, NULL, &n), DRYDB_INVALID);

    /* missing names */
    drydb_table *t2;
    drydb_index *ix2;
    CHECK_RC(drydb_table_open(db, "", &t2), DRYDB_NOTABLE);
    CHECK_RC(drydb_table_open(db, "INTS", &t2), DRYDB_NOTABLE);
    CHECK_RC(drydb_index_open(t, "MOD7", &ix2), DRYDB_NOINDEX);
    CHECK_RC(drydb_index_open(ct, "mod7", &ix2), DRYDB_NOINDEX);

    /* wrong kinds: every handle passed where another kind is expected */
    CHECK_RC(drydb_get((drydb_table *)db, key, 8, &v, &vl), DRYDB_BADHANDLE);
    CHECK_RC(drydb_get((drydb_table *)ix, key, 8, &v, &vl), DRYDB_BADHANDLE);
    CHECK_RC(drydb_get((drydb_table *)c, key, 8, &v, &vl), DRYDB_BADHANDLE);
    CHECK_RC(drydb_info((drydb_db *)t, NULL), DRYDB_BADHANDLE);
    CHECK_RC(drydb_close((drydb_db *)t), DRYDB_BADHANDLE);
    CHECK_RC(drydb_cursor_close((drydb_cursor *)t), DRYDB_BADHANDLE);
    CHECK_RC(drydb_cursor_next((drydb_cursor *)ix), DRYDB_BADHANDLE);
    CHECK_RC(drydb_index_count((drydb_index *)t, NULL, 0, 0, NULL, 0, 0, &cnt), DRYDB_BADHANDLE);
    CHECK_RC(drydb_builder_free((drydb_builder *)db), DRYDB_BADHANDLE);
    CHECK_RC(drydb_builder_append((drydb_tbuilder *)t, key, 8, key, 8), DRYDB_BADHANDLE);

    /* forged handles: real pointers, small integers, garbage */
    int local;
    CHECK_RC(drydb_get((drydb_table *)&local, key, 8, &v, &vl), DRYDB_BADHANDLE);
    CHECK_RC(drydb_get((drydb_table *)path, key, 8, &v, &vl), DRYDB_BADHANDLE);
    CHECK_RC(drydb_get((drydb_table *)(uintptr_t)1, key, 8, &v, &vl), DRYDB_BADHANDLE);
    CHECK_RC(drydb_get((drydb_table *)(uintptr_t)0xD000000ffffffff2ull, key, 8, &v, &vl), DRYDB_BADHANDLE);
    CHECK_RC(drydb_close((drydb_db *)(uintptr_t)0xdeadbeef), DRYDB_BADHANDLE);
    CHECK_RC(drydb_cursor_close((drydb_cursor *)&local), DRYDB_BADHANDLE);

    /* closing the database invalidates everything that came from it */
    drydb_cursor *ic;
    OK(drydb_index_cursor_open(ix, NULL, 0, 0, NULL, 0, 0, &ic));
    OK(drydb_cursor_next(c));
    OK(drydb_close(db));
    CHECK_RC(drydb_get(t, key, 8, &v, &vl), DRYDB_CLOSED);
    CHECK_RC(drydb_get(ct, key, 8, &v, &vl), DRYDB_CLOSED);
    CHECK_RC(drydb_table_info(t, NULL), DRYDB_CLOSED);
    CHECK_RC(drydb_index_get(ix, key, 8, &k, &kl, &v, &vl), DRYDB_CLOSED);
    CHECK_RC(drydb_cursor_next(c), DRYDB_CLOSED);
    CHECK_RC(drydb_cursor_get(ic, &k, &kl, &v, &vl), DRYDB_CLOSED);
    CHECK_RC(drydb_table_count(db, &n), DRYDB_CLOSED);
    CHECK_RC(drydb_table_name(db, 0, &name), DRYDB_CLOSED);
    CHECK_RC(drydb_verify(db), DRYDB_CLOSED);
    OK(drydb_cursor_close(c)); /* freed with the database: accepted */
    OK(drydb_cursor_close(ic));
    OK(drydb_close(db)); /* double close */

    /* a closed handle stays closed after its slot is reused */
    drydb_db *db2;
    OK(drydb_open(path, 0, 0, &db2));
    CHECK(db2 != db);
    CHECK_RC(drydb_table_count(db, &n), DRYDB_CLOSED);
    OK(drydb_table_count(db2, &n));
    /* cursor closed, then used */
    OK(drydb_table_open(db2, "ints", &t));
    OK(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c));
    OK(drydb_cursor_close(c));
    CHECK_RC(drydb_cursor_first(c), DRYDB_CLOSED);
    CHECK_RC(drydb_cursor_get(c, &k, &kl, &v, &vl), DRYDB_CLOSED);
    CHECK_RC(drydb_cursor_next_batch(c, 0, 4, ks, kls, NULL, NULL, &n), DRYDB_CLOSED);
    OK(drydb_close(db2));

    /* builder misuse */
    drydb_builder *b;
    drydb_tbuilder *tb;
    drydb_ibuilder *ib;
    uint8_t *mem;
    CHECK_RC(drydb_builder_new(0, 0, NULL), DRYDB_INVALID);
    OK(drydb_builder_new(0, 0, &b));
    CHECK_RC(drydb_builder_table(b, NULL, DRYDB_KEY_INT64, NULL, 0, 0, 0, 0, &tb), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table(b, "x", DRYDB_KEY_COMPOSITE, NULL, 2, 0, 0, 0, &tb), DRYDB_INVALID);
    uint8_t parts[17] = {0};
    CHECK_RC(drydb_builder_table(b, "x", DRYDB_KEY_COMPOSITE, parts, 17, 0, 0, 0, &tb), DRYDB_INVALID);
    OK(drydb_builder_table(b, "x", DRYDB_KEY_BYTES, NULL, 0, 0, 0, 0, &tb));
    CHECK_RC(drydb_builder_index(tb, NULL, 0, DRYDB_KEY_BYTES, NULL, 0, &ib), DRYDB_INVALID);
    OK(drydb_builder_index(tb, "i", 0, DRYDB_KEY_BYTES, NULL, 0, &ib));
    CHECK_RC(drydb_builder_append(tb, NULL, 3, NULL, 0), DRYDB_INVALID);
    CHECK_RC(drydb_builder_append(tb, key, HUGE, NULL, 0), DRYDB_INVALID);
    CHECK_RC(drydb_builder_append_many(tb, 1, key, NULL, key, NULL), DRYDB_INVALID);
    size_t one[1] = {HUGE};
    CHECK_RC(drydb_builder_append_many(tb, 1, key, one, key, one), DRYDB_INVALID);
    CHECK_RC(drydb_builder_index_add(ib, NULL, 1, key, 8), DRYDB_INVALID);
    CHECK_RC(drydb_builder_index_add_many(ib, HUGE, key, one, key, one), DRYDB_INVALID);
    CHECK_RC(drydb_builder_set_meta(b, NULL, 2, NULL, 0), DRYDB_INVALID);
    CHECK_RC(drydb_builder_build_file(b, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_builder_build_memory(b, NULL, &len), DRYDB_INVALID);
    CHECK_RC(drydb_builder_build_file(b, "/nonexistent/dir/x.drydb"), DRYDB_IO);
    CHECK_RC(drydb_builder_build_memory(b, &mem, &len), DRYDB_CLOSED); /* spent by the failed build */
    CHECK_RC(drydb_builder_append(tb, key, 8, NULL, 0), DRYDB_CLOSED);
    CHECK_RC(drydb_builder_table((drydb_builder *)tb, "y", 0, NULL, 0, 0, 0, 0, &tb), DRYDB_BADHANDLE);
    OK(drydb_builder_free(b));
    CHECK_RC(drydb_builder_build_memory(b, &mem, &len), DRYDB_CLOSED);
    CHECK_RC(drydb_builder_index_add(ib, key, 1, key, 8), DRYDB_CLOSED);
    OK(drydb_builder_free(b));

    /* failures leave a message; NOTFOUND does not touch it */
    CHECK_RC(drydb_open(NULL, 0, 0, &db), DRYDB_INVALID);
    const char *m = drydb_errmsg();
    CHECK(strncmp(m, "drydb: ", 7) == 0);
    free(junk);
    free(path);
    printf("test_errors: ok\n");
    return 0;
}
