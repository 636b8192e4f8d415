/* The Unicode demo through the C API: point lookups by code point, a count
 * over a secondary index, and a prefix walk over the by_name index. */
#include <stdio.h>
#include <string.h>
#include "drydb.h"

static int check(int rc, const char *what) {
    if (rc != DRYDB_OK && rc != DRYDB_NOTFOUND) {
        fprintf(stderr, "%s: %s (%s)\n", what, drydb_strerror(rc), drydb_errmsg());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "unicode.drydb";
    drydb_db *db = NULL;
    drydb_table *t = NULL;
    if (check(drydb_open(path, 0, 0, &db), "open") || check(drydb_table_open(db, "unicode", &t), "table"))
        return 1;

    int64_t cps[] = {0x41, 0x3B1, 0x1F600, 0x10FFFF};
    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
        uint8_t key[8];
        const uint8_t *val;
        size_t vlen;
        drydb_key_int64(cps[i], key);
        int rc = drydb_get(t, key, 8, &val, &vlen);
        if (check(rc, "get")) return 1;
        if (rc == DRYDB_NOTFOUND) printf("C: U+%04llX -> (not assigned)\n", (unsigned long long)cps[i]);
        else printf("C: U+%04llX -> %.*s\n", (unsigned long long)cps[i], (int)vlen, (const char *)val);
    }

    drydb_index *cat = NULL;
    uint64_t n = 0;
    if (check(drydb_index_open(t, "by_category", &cat), "index") ||
        check(drydb_index_count(cat, (const uint8_t *)"Lu", 2, DRYDB_INCLUSIVE, (const uint8_t *)"Lu", 2, DRYDB_INCLUSIVE, &n), "count"))
        return 1;
    printf("C: %llu code points in category Lu (uppercase letters), counted in O(log n)\n", (unsigned long long)n);

    drydb_index *byname = NULL;
    drydb_cursor *c = NULL;
    const char *prefix = "GREEK SMALL LETTER AL";
    if (check(drydb_index_open(t, "by_name", &byname), "index") ||
        check(drydb_index_cursor_open_prefix(byname, (const uint8_t *)prefix, strlen(prefix), &c), "cursor"))
        return 1;
    for (int rc = drydb_cursor_first(c); rc == DRYDB_OK; rc = drydb_cursor_next(c)) {
        const uint8_t *k, *v;
        size_t kl, vl;
        drydb_cursor_get(c, &k, &kl, &v, &vl);
        printf("C: %.*s\n", (int)kl, (const char *)k);
    }
    drydb_cursor_close(c);
    drydb_close(db);
    return 0;
}
