/* A sharded database (a manifest of range shards, drydb_write_range_manifest)
 * read through the C API gives what the same rows in one file give: point
 * lookups, batches, counts, ranks, n-th rows, ranges and cursors across
 * every shard boundary in both directions, an index merged across shards;
 * a missing shard is named in the error; a reader refreshes onto a manifest
 * rewritten over its own (hash shards: drydb_shard_slots,
 * drydb_write_hash_manifest). */
#include <stdint.h>
#include <unistd.h>

#include "testutil.h"

#define ROWS 2000
static const int cuts[] = {0, 500, 1200, 1201, ROWS}; /* 4 shards, one of a single row */
#define NSHARDS 4

/* rows [from, to): "ints" int64 key 3*i, value "v<i>"; index "mod" int64 i % 5;
 * "zs": the same keys, zstd pages. With nslots > 0 only the rows whose key's
 * hash slot (drydb_shard_slots) among nslots is slot. */
static void build_slot(const char *path, int from, int to, uint32_t slot, uint32_t nslots) {
    drydb_builder *b;
    drydb_tbuilder *ti, *tz;
    drydb_ibuilder *ib;
    OK(drydb_builder_new(512, 0, &b));
    OK(drydb_builder_table(b, "ints", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &ti));
    OK(drydb_builder_table(b, "zs", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_ZSTD, 0, 0, &tz));
    OK(drydb_builder_index(ti, "mod", 0, DRYDB_KEY_INT64, NULL, 0, &ib));
    for (int i = from; i < to; i++) {
        uint8_t k[8], ik[8];
        char v[32];
        int n = snprintf(v, sizeof v, "v%d", i);
        drydb_key_int64(3 * (int64_t)i, k);
        drydb_key_int64(i % 5, ik);
        if (nslots > 0) {
            size_t kl = 8;
            uint32_t got;
            OK(drydb_shard_slots(k, &kl, 1, nslots, &got));
            if (got != slot) continue;
        }
        OK(drydb_builder_append(ti, k, 8, (const uint8_t *)v, (size_t)n));
        OK(drydb_builder_append(tz, k, 8, (const uint8_t *)v, (size_t)n));
        OK(drydb_builder_index_add(ib, ik, 8, k, 8));
    }
    OK(drydb_builder_build_file(b, path));
    OK(drydb_builder_free(b));
}

static void build(const char *path, int from, int to) { build_slot(path, from, to, 0, 0); }

static int same(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    return al == bl && (al == 0 || memcmp(a, b, al) == 0);
}

/* walks a cursor of each database to the end, comparing every entry, and
 * closes both */
static void same_walk(drydb_cursor *a, drydb_cursor *b, int back, int index) {
    int ra, rb, n = 0;
    for (;;) {
        ra = back ? drydb_cursor_prev(a) : drydb_cursor_next(a);
        rb = back ? drydb_cursor_prev(b) : drydb_cursor_next(b);
        CHECK(ra == rb);
        if (ra != DRYDB_OK) break;
        const uint8_t *k1, *v1, *k2, *v2;
        size_t kl1, vl1, kl2, vl2;
        OK(drydb_cursor_get(a, &k1, &kl1, &v1, &vl1));
        char kc[64], vc[64];
        CHECK(kl1 < sizeof kc && vl1 < sizeof vc);
        memcpy(kc, k1, kl1);
        memcpy(vc, v1, vl1);
        OK(drydb_cursor_get(b, &k2, &kl2, &v2, &vl2));
        CHECK(same((uint8_t *)kc, kl1, k2, kl2) && same((uint8_t *)vc, vl1, v2, vl2));
        if (index) {
            OK(drydb_cursor_primary_key(a, &k1, &kl1));
            memcpy(kc, k1, kl1);
            OK(drydb_cursor_primary_key(b, &k2, &kl2));
            CHECK(same((uint8_t *)kc, kl1, k2, kl2));
        }
        n++;
    }
    CHECK(ra == DRYDB_NOTFOUND);
    (void)n;
    OK(drydb_cursor_close(a));
    OK(drydb_cursor_close(b));
}

int main(void) {
    /* valgrind runs ~50x slower: a sample of the keys and ranges there */
    const int vg = tu_under_valgrind();
    char *one = tu_path("one.drydb");
    build(one, 0, ROWS);
    const char *names[NSHARDS] = {"p0.drydb", "p1.drydb", "p2.drydb", "p3.drydb"};
    for (int s = 0; s < NSHARDS; s++) {
        char *p = tu_path(names[s]);
        build(p, cuts[s], cuts[s + 1]);
        free(p);
    }
    char *man = tu_path("db.manifest");
    OK(drydb_write_range_manifest(man, names, NSHARDS));
    /* shards out of key order are refused */
    const char *wrong[2] = {"p1.drydb", "p0.drydb"};
    char *bad = tu_path("bad.manifest");
    CHECK_RC(drydb_write_range_manifest(bad, wrong, 2), DRYDB_CORRUPT);
    CHECK(strstr(drydb_errmsg(), "overlap") != NULL);

    drydb_db *da, *db;
    OK(drydb_open(one, 0, 0, &da));
    OK(drydb_open(man, DRYDB_OPEN_VERIFY, 0, &db));
    OK(drydb_verify(db));
    const char *tables[] = {"ints", "zs"};
    for (int ti = 0; ti < 2; ti++) {
        drydb_table *ta, *tb;
        OK(drydb_table_open(da, tables[ti], &ta));
        OK(drydb_table_open(db, tables[ti], &tb));
        struct drydb_table_info ia, ib;
        OK(drydb_table_info(ta, &ia));
        OK(drydb_table_info(tb, &ib));
        CHECK(ia.rows == ib.rows && ib.rows == ROWS);
        /* every key and its neighbours (absent), by get, rank and at */
        for (int64_t k = -2; k <= 3 * ROWS + 1; k += vg ? 41 : 1) {
            uint8_t key[8];
            drydb_key_int64(k, key);
            const uint8_t *v1, *v2;
            size_t l1, l2;
            int r1 = drydb_get(ta, key, 8, &v1, &l1);
            char c[64];
            if (r1 == DRYDB_OK) memcpy(c, v1, l1);
            int r2 = drydb_get(tb, key, 8, &v2, &l2);
            CHECK(r1 == r2);
            if (r1 == DRYDB_OK) CHECK(same((uint8_t *)c, l1, v2, l2));
            uint64_t n1, n2;
            OK(drydb_rank(ta, key, 8, &n1));
            OK(drydb_rank(tb, key, 8, &n2));
            CHECK(n1 == n2);
        }
        for (uint64_t n = 0; n <= ROWS; n += 7) {
            const uint8_t *k1, *v1, *k2, *v2;
            size_t kl1, vl1, kl2, vl2;
            int r1 = drydb_at(ta, n, &k1, &kl1, &v1, &vl1);
            char kc[8];
            if (r1 == DRYDB_OK) memcpy(kc, k1, 8);
            CHECK(drydb_at(tb, n, &k2, &kl2, &v2, &vl2) == r1);
            if (r1 == DRYDB_OK) CHECK(same((uint8_t *)kc, kl1, k2, kl2));
        }
        /* a batch spanning every shard, keys out of order, some missing */
        enum { NB = 64 };
        uint8_t keys[NB * 8];
        size_t klens[NB];
        for (int i = 0; i < NB; i++) {
            drydb_key_int64((int64_t)((i * 997) % (3 * ROWS)), keys + 8 * i);
            klens[i] = 8;
        }
        const uint8_t *va[NB], *vb[NB];
        size_t la[NB], lb[NB];
        uint8_t fa[NB], fb[NB];
        OK(drydb_get_many(tb, NB, keys, klens, vb, lb, fb));
        char copies[NB][32];
        for (int i = 0; i < NB; i++)
            if (fb[i]) memcpy(copies[i], vb[i], lb[i]);
        OK(drydb_get_many(ta, NB, keys, klens, va, la, fa));
        for (int i = 0; i < NB; i++) {
            CHECK(fa[i] == fb[i]);
            if (fa[i]) CHECK(same(va[i], la[i], (uint8_t *)copies[i], lb[i]));
        }
        /* ranges from and to every boundary, both directions */
        const int marks[] = {-1, 0, 499, 500, 501, 1199, 1200, 1201, 1202, 1999, 2000};
        const int nm = (int)(sizeof marks / sizeof marks[0]);
        for (int x = 0; x < nm; x++) {
            for (int y = x; y < nm; y++) {
                if (vg && (x + y) % 4 != 0) continue;
                uint8_t lo[8], hi[8];
                drydb_key_int64(3 * (int64_t)marks[x], lo);
                drydb_key_int64(3 * (int64_t)marks[y] + 1, hi);
                uint64_t c1, c2;
                OK(drydb_count(ta, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &c1));
                OK(drydb_count(tb, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &c2));
                CHECK(c1 == c2);
                for (int back = 0; back < 2; back++) {
                    /* drydb_range, 100 rows at most */
                    const uint8_t *k1[100], *v1[100], *k2[100], *v2[100];
                    size_t kl1[100], vl1[100], kl2[100], vl2[100], n1, n2;
                    OK(drydb_range(tb, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, back ? DRYDB_REVERSE : 0,
                                   100, k2, kl2, v2, vl2, &n2));
                    static char kc[100][8], vc[100][32];
                    for (size_t i = 0; i < n2; i++) {
                        memcpy(kc[i], k2[i], 8);
                        memcpy(vc[i], v2[i], vl2[i]);
                    }
                    OK(drydb_range(ta, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, back ? DRYDB_REVERSE : 0,
                                   100, k1, kl1, v1, vl1, &n1));
                    CHECK(n1 == n2 && n1 == (c1 < 100 ? c1 : 100));
                    for (size_t i = 0; i < n1; i++)
                        CHECK(same(k1[i], kl1[i], (uint8_t *)kc[i], 8) && same(v1[i], vl1[i], (uint8_t *)vc[i], vl2[i]));
                    drydb_cursor *ca, *cb;
                    OK(drydb_cursor_open(ta, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &ca));
                    OK(drydb_cursor_open(tb, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &cb));
                    same_walk(ca, cb, back, 0);
                }
            }
        }
        /* the index, merged across shards, both directions */
        if (ti == 0) {
            drydb_index *xa, *xb;
            OK(drydb_index_open(ta, "mod", &xa));
            OK(drydb_index_open(tb, "mod", &xb));
            for (int64_t m = 0; m < 5; m++) {
                uint8_t ik[8];
                drydb_key_int64(m, ik);
                uint64_t c1, c2;
                OK(drydb_index_count(xa, ik, 8, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c1));
                OK(drydb_index_count(xb, ik, 8, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c2));
                CHECK(c1 == c2);
                const uint8_t *p1, *p2, *w1, *w2;
                size_t pl1, pl2, wl1, wl2;
                OK(drydb_index_get(xa, ik, 8, &p1, &pl1, &w1, &wl1));
                uint8_t pc[8];
                memcpy(pc, p1, 8);
                OK(drydb_index_get(xb, ik, 8, &p2, &pl2, &w2, &wl2));
                CHECK(same(pc, 8, p2, pl2));
                for (int back = 0; back < 2; back++) {
                    drydb_cursor *ca, *cb;
                    OK(drydb_index_cursor_open(xa, ik, 8, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &ca));
                    OK(drydb_index_cursor_open(xb, ik, 8, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &cb));
                    same_walk(ca, cb, back, 1);
                }
            }
        }
    }
    OK(drydb_close(da));
    OK(drydb_close(db));

    /* a missing shard: the database opens, reads elsewhere work, reads that
     * need it fail naming it, and verify fails */
    char *p3 = tu_path("p3.drydb");
    CHECK(unlink(p3) == 0);
    OK(drydb_open(man, 0, 0, &db));
    drydb_table *t;
    OK(drydb_table_open(db, "ints", &t));
    uint8_t key[8];
    const uint8_t *v;
    size_t vl;
    drydb_key_int64(3, key);
    OK(drydb_get(t, key, 8, &v, &vl));
    drydb_key_int64(3 * 1500, key);
    CHECK_RC(drydb_get(t, key, 8, &v, &vl), DRYDB_IO);
    CHECK(strstr(drydb_errmsg(), "shard 3 (p3.drydb)") != NULL);
    CHECK(drydb_verify(db) != DRYDB_OK);
    CHECK(strstr(drydb_errmsg(), "p3.drydb") != NULL);
    OK(drydb_close(db));

#ifndef _WIN32
    /* refresh on a manifest: a reader keeps the old shard set's answers
     * until drydb_refresh, then sees the new manifest's (here: range shards
     * replaced by hash shards of more rows). Not on Windows: the reader
     * keeps the manifest open (refresh compares the file at the path with
     * it), and Windows refuses a rename over an open file, as over a mapped
     * one (test_swap is POSIX-only for the same reason). */
    const char *olds[2] = {"r0.drydb", "r1.drydb"}, *news[3] = {"h0.drydb", "h1.drydb", "h2.drydb"};
    for (int s = 0; s < 2; s++) {
        char *p = tu_path(olds[s]);
        build(p, 100 * s, 100 * (s + 1));
        free(p);
    }
    char *live = tu_path("live.manifest");
    OK(drydb_write_range_manifest(live, olds, 2));
    OK(drydb_open(live, 0, 0, &db));
    OK(drydb_table_open(db, "ints", &t));
    int changed = -1;
    OK(drydb_refresh(db, &changed));
    CHECK(changed == 0);
    uint64_t cnt;
    for (int s = 0; s < 3; s++) {
        char *p = tu_path(news[s]);
        build_slot(p, 0, 300, (uint32_t)s, 3);
        free(p);
    }
    /* out of slot order: refused, clearly */
    const char *swapped[3] = {"h1.drydb", "h0.drydb", "h2.drydb"};
    CHECK_RC(drydb_write_hash_manifest(live, swapped, 3), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "slot order") != NULL);
    OK(drydb_write_hash_manifest(live, news, 3));
    drydb_key_int64(3 * 250, key);
    for (int round = 0; round < 2; round++) {
        OK(drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &cnt));
        CHECK(cnt == (round ? 300u : 200u));
        if (round == 0) {
            CHECK_RC(drydb_get(t, key, 8, &v, &vl), DRYDB_NOTFOUND);
            const uint8_t *k1, *v1;
            size_t kl1, vl1;
            OK(drydb_at(t, 150, &k1, &kl1, &v1, &vl1)); /* range shards: row numbers */
            CHECK(same(v1, vl1, (const uint8_t *)"v150", 4));
            OK(drydb_refresh(db, &changed));
            CHECK(changed == 1);
        } else {
            OK(drydb_get(t, key, 8, &v, &vl));
            CHECK(same(v, vl, (const uint8_t *)"v250", 4));
            const uint8_t *k1, *v1;
            size_t kl1, vl1;
            CHECK_RC(drydb_at(t, 150, &k1, &kl1, &v1, &vl1), DRYDB_INVALID); /* hash shards: none */
            CHECK(strstr(drydb_errmsg(), "hash-partitioned") != NULL);
        }
    }
    OK(drydb_verify(db));
    OK(drydb_close(db));
    free(live);
#endif
    free(p3);
    free(one);
    free(man);
    free(bad);
    printf("test_shard: ok\n");
    return 0;
}
