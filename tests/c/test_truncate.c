/* A database file truncated while it is open and mapped: touching the lost
 * pages raises SIGBUS in plain C; the library must turn it into a status
 * (DRYDB_CORRUPT or DRYDB_IO) and keep the process alive. */
#include <unistd.h>

#include "testutil.h"

int main(void) {
    char *path = tu_path("trunc.drydb");
    tu_sample_file(path);
    drydb_db *db;
    drydb_table *t, *z;
    OK(drydb_open(path, 0, 0, &db));
    OK(drydb_table_open(db, "ints", &t));
    OK(drydb_table_open(db, "zstd", &z));
    CHECK(truncate(path, 4096) == 0); /* everything past the header page is gone */

    int faults = 0;
    uint8_t k[8];
    const uint8_t *v;
    size_t vl;
    for (int64_t i = 0; i < TU_ROWS; i += 97) {
        drydb_key_int64(2 * i, k);
        int rc = drydb_get(t, k, 8, &v, &vl);
        CHECK(rc == DRYDB_CORRUPT || rc == DRYDB_IO);
        faults++;
        rc = drydb_get(z, k, 8, &v, &vl);
        CHECK(rc == DRYDB_CORRUPT || rc == DRYDB_IO);
    }
    CHECK(strstr(drydb_errmsg(), "truncated") != NULL || strstr(drydb_errmsg(), "fault") != NULL);
    drydb_cursor *c;
    OK(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c));
    int rc = drydb_cursor_next(c);
    CHECK(rc == DRYDB_CORRUPT || rc == DRYDB_IO);
    uint64_t n;
    rc = drydb_count(t, NULL, 0, 0, NULL, 0, 0, &n);
    CHECK(rc == DRYDB_OK || rc == DRYDB_CORRUPT || rc == DRYDB_IO); /* may need no page */
    rc = drydb_verify(db);
    CHECK(rc == DRYDB_CORRUPT || rc == DRYDB_IO);
    OK(drydb_cursor_close(c));
    OK(drydb_close(db));
    CHECK(faults > 0);

    /* a fresh open of the truncated file is refused cleanly */
    CHECK_RC(drydb_open(path, 0, 0, &db), DRYDB_CORRUPT);

    /* Warm first: once every page has been read (and checked), drydb_get
     * and drydb_get_many answer in C without entering Go; a lost page must
     * still give a status there, single and batched. */
    tu_sample_file(path);
    OK(drydb_open(path, 0, 0, &db));
    OK(drydb_table_open(db, "ints", &t));
    enum { N = 64 };
    uint8_t keys[N * 8];
    size_t klens[N];
    const uint8_t *vals[N];
    size_t vlens[N];
    uint8_t found[N];
    for (int64_t i = 0; i < TU_ROWS; i++) {
        drydb_key_int64(2 * i, k);
        OK(drydb_get(t, k, 8, &v, &vl));
    }
    CHECK(truncate(path, 4096) == 0);
    for (int64_t i = 0; i < TU_ROWS; i += 97) {
        drydb_key_int64(2 * i, k);
        int rc = drydb_get(t, k, 8, &v, &vl);
        CHECK(rc == DRYDB_CORRUPT || rc == DRYDB_IO);
    }
    for (int i = 0; i < N; i++) {
        drydb_key_int64(2 * (int64_t)i * 7, keys + 8 * i);
        klens[i] = 8;
    }
    rc = drydb_get_many(t, N, keys, klens, vals, vlens, found);
    CHECK(rc == DRYDB_CORRUPT || rc == DRYDB_IO);
    OK(drydb_close(db));
    free(path);
    printf("test_truncate: ok\n");
    return 0;
}
