/* Reads a database (a sharded one: test_spark.py) through the C API and
 * checks it against a dump of the rows it was built from, written by
 * Python from the DataFrame itself:
 *   row <key hex> <value hex>        every row, in key order
 *   index <name> <index key hex> <n> entries of an index under one key
 * Every row by get and by a cursor walk in both directions, the count, and
 * the index counts. Prints "ok <rows>"; exit status 1 on a difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drydb.h"

#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fprintf(stderr, " (%s)\n", drydb_errmsg()); exit(1); } while (0)

typedef struct { uint8_t *b; size_t n; } bytes;

static bytes unhex(const char *s) {
    bytes r = {malloc(strlen(s) / 2 + 1), strlen(s) / 2};
    for (size_t i = 0; i < r.n; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) FAIL("bad hex %s", s);
        r.b[i] = (uint8_t)v;
    }
    return r;
}

static int same(bytes a, const uint8_t *b, size_t n) { return a.n == n && (n == 0 || memcmp(a.b, b, n) == 0); }

int main(int argc, char **argv) {
    if (argc != 4) FAIL("usage: read_dump DB TABLE DUMP");
    drydb_db *db;
    drydb_table *t;
    if (drydb_open(argv[1], 0, 0, &db) != DRYDB_OK) FAIL("open %s", argv[1]);
    if (drydb_table_open(db, argv[2], &t) != DRYDB_OK) FAIL("table %s", argv[2]);
    FILE *f = fopen(argv[3], "r");
    if (!f) FAIL("no dump %s", argv[3]);
    size_t cap = 1024, n = 0;
    bytes *keys = malloc(cap * sizeof *keys), *vals = malloc(cap * sizeof *vals);
    static char line[1 << 16], a[1 << 15], b[1 << 15], c[256];
    while (fgets(line, sizeof line, f)) {
        unsigned long long want;
        if (sscanf(line, "row %32767s %32767s", a, b) == 2) {
            if (n == cap) {
                cap *= 2;
                keys = realloc(keys, cap * sizeof *keys);
                vals = realloc(vals, cap * sizeof *vals);
            }
            keys[n] = unhex(a);
            vals[n] = unhex(b);
            const uint8_t *v;
            size_t vl;
            if (drydb_get(t, keys[n].b, keys[n].n, &v, &vl) != DRYDB_OK || !same(vals[n], v, vl)) FAIL("get row %zu (%s)", n, a);
            n++;
        } else if (sscanf(line, "index %255s %32767s %llu", c, a, &want) == 3) {
            drydb_index *ix;
            uint64_t got;
            bytes k = unhex(a);
            if (drydb_index_open(t, c, &ix) != DRYDB_OK ||
                drydb_index_count(ix, k.b, k.n, DRYDB_INCLUSIVE, k.b, k.n, DRYDB_INCLUSIVE, &got) != DRYDB_OK || got != want)
                FAIL("index %s count of %s: %llu, want %llu", c, a, (unsigned long long)got, want);
            free(k.b);
        } else {
            FAIL("bad dump line %.60s", line);
        }
    }
    fclose(f);
    uint64_t cnt;
    if (drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &cnt) != DRYDB_OK || cnt != n)
        FAIL("count %llu, want %zu", (unsigned long long)cnt, n);
    for (int rev = 0; rev < 2; rev++) {
        drydb_cursor *cur;
        if (drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &cur) != DRYDB_OK) FAIL("cursor");
        size_t i = 0;
        for (int rc = rev ? drydb_cursor_last(cur) : drydb_cursor_first(cur); rc == DRYDB_OK;
             rc = rev ? drydb_cursor_prev(cur) : drydb_cursor_next(cur), i++) {
            const uint8_t *k, *v;
            size_t kl, vl;
            size_t at = rev ? n - 1 - i : i;
            if (i >= n || drydb_cursor_get(cur, &k, &kl, &v, &vl) != DRYDB_OK || !same(keys[at], k, kl) || !same(vals[at], v, vl))
                FAIL("cursor row %zu (%s)", at, rev ? "backward" : "forward");
        }
        if (i != n) FAIL("cursor walked %zu rows, want %zu", i, n);
        drydb_cursor_close(cur);
    }
    for (size_t i = 0; i < n; i++) {
        free(keys[i].b);
        free(vals[i].b);
    }
    free(keys);
    free(vals);
    if (drydb_close(db) != DRYDB_OK) FAIL("close");
    printf("ok %zu\n", n);
    return 0;
}
