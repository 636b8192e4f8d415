/* Reads the database the Python tests build (test_cross.py) through the C
 * API and checks every row: int64 table "nums" (0..999, value "v<k>", json
 * codec recorded in metadata), composite(string,int64) table "pairs", index
 * "parity" (int64 0/1 -> key). Exit status 0 when everything matches. */
#include <stdio.h>
#include <string.h>

#include "drydb.h"

#define CHECK(cond) do { if (!(cond)) { fprintf(stderr, "line %d: %s (%s)\n", __LINE__, #cond, drydb_errmsg()); return 1; } } while (0)

int main(int argc, char **argv) {
    drydb_db *db;
    drydb_table *t;
    drydb_index *ix;
    const uint8_t *v;
    size_t vl;
    CHECK(argc == 2);
    CHECK(drydb_open(argv[1], DRYDB_OPEN_VERIFY, 0, &db) == DRYDB_OK);
    CHECK(drydb_meta_get(db, (const uint8_t *)"drydb.codec.nums", 16, &v, &vl) == DRYDB_OK);
    CHECK(vl == 4 && memcmp(v, "json", 4) == 0);
    CHECK(drydb_table_open(db, "nums", &t) == DRYDB_OK);
    const char *codec;
    CHECK(drydb_table_codec(t, &codec) == DRYDB_OK && strcmp(codec, "json") == 0);
    for (int64_t k = 0; k < 1000; k++) {
        uint8_t key[8];
        char want[32];
        int n = snprintf(want, sizeof want, "\"v%lld\"", (long long)k);
        drydb_key_int64(k, key);
        CHECK(drydb_get(t, key, 8, &v, &vl) == DRYDB_OK);
        CHECK(vl == (size_t)n && memcmp(v, want, vl) == 0);
    }
    uint8_t key[8];
    drydb_key_int64(1000, key);
    CHECK(drydb_get(t, key, 8, &v, &vl) == DRYDB_NOTFOUND);
    uint64_t cnt;
    CHECK(drydb_index_open(t, "parity", &ix) == DRYDB_OK);
    drydb_key_int64(1, key);
    CHECK(drydb_index_count(ix, key, 8, DRYDB_INCLUSIVE, key, 8, DRYDB_INCLUSIVE, &cnt) == DRYDB_OK);
    CHECK(cnt == 500);
    CHECK(drydb_table_open(db, "pairs", &t) == DRYDB_OK);
    for (char s = 'a'; s <= 'c'; s++) {
        for (int64_t n = -5; n < 5; n++) {
            uint8_t k[32];
            char str[2] = {s, 0}, want[16];
            size_t kl = drydb_key_append_string(k, sizeof k, 0, str);
            kl = drydb_key_append_int64(k, sizeof k, kl, n);
            int wl = snprintf(want, sizeof want, "%s%lld", str, (long long)n);
            CHECK(drydb_get(t, k, kl, &v, &vl) == DRYDB_OK);
            CHECK(vl == (size_t)wl && memcmp(v, want, vl) == 0);
        }
    }
    CHECK(drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &cnt) == DRYDB_OK && cnt == 30);
    CHECK(drydb_close(db) == DRYDB_OK);
    printf("ok\n");
    return 0;
}
