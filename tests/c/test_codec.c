/* Value codec names (docs/API.md): drydb_builder_table_codec records one per
 * table as the metadata pair "drydb.codec.<table>"; drydb_table_codec reads
 * it back ("" when none) and the name stays valid until drydb_close;
 * drydb_meta_key lists metadata keys. */
#include "testutil.h"

int main(void) {
    drydb_builder *b;
    drydb_tbuilder *tj, *tn;
    OK(drydb_builder_new(0, 0, &b));
    OK(drydb_builder_table(b, "j", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_ZSTD, 0, 0, &tj));
    OK(drydb_builder_table(b, "none", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tn));
    OK(drydb_builder_table_codec(tj, "json"));
    CHECK_RC(drydb_builder_table_codec(tj, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table_codec(tn, "two\nlines"), DRYDB_INVALID);
    uint8_t k[8];
    drydb_key_int64(1, k);
    OK(drydb_builder_append(tj, k, 8, (const uint8_t *)"{}", 2));
    OK(drydb_builder_append(tn, k, 8, (const uint8_t *)"x", 1));
    uint8_t *img;
    size_t n;
    OK(drydb_builder_build_memory(b, &img, &n));
    OK(drydb_builder_free(b));

    drydb_db *db;
    drydb_table *t;
    const char *name = NULL, *none = NULL;
    OK(drydb_open_memory(img, n, 0, 0, &db));
    OK(drydb_table_open(db, "j", &t));
    OK(drydb_table_codec(t, &name));
    CHECK(name && strcmp(name, "json") == 0);
    CHECK_RC(drydb_table_codec(t, NULL), DRYDB_INVALID);
    const uint8_t *mv;
    size_t ml;
    OK(drydb_meta_get(db, (const uint8_t *)"drydb.codec.j", 13, &mv, &ml));
    CHECK(ml == 4 && memcmp(mv, "json", 4) == 0);
    /* other calls in between leave the name alone (it is not in the per-thread buffer) */
    const uint8_t *v;
    size_t vl;
    OK(drydb_get(t, k, 8, &v, &vl));
    CHECK(strcmp(name, "json") == 0);
    OK(drydb_table_open(db, "none", &t));
    OK(drydb_table_codec(t, &none));
    CHECK(none && none[0] == 0);
    CHECK(strcmp(name, "json") == 0);
    /* drydb_meta_key lists the keys in byte order, then NOTFOUND */
    const uint8_t *mk;
    size_t mkl;
    OK(drydb_meta_key(db, 0, &mk, &mkl));
    CHECK(mkl == 13 && memcmp(mk, "drydb.codec.j", 13) == 0);
    CHECK_RC(drydb_meta_key(db, 1, &mk, &mkl), DRYDB_NOTFOUND);
    CHECK_RC(drydb_meta_key(db, 0, NULL, &mkl), DRYDB_INVALID);
    OK(drydb_close(db));
    drydb_free(img);
    puts("test_codec: ok");
    return 0;
}
