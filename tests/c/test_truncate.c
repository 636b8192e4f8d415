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
    free(path);
    printf("test_truncate: ok\n");
    return 0;
}
