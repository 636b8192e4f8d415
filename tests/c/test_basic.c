/* Every function of the C API on the sample database (testutil.c), with
 * every answer checked: opened from a file and from memory. Also linked
 * statically against libdrydb.a (test_static). */
#include <time.h>

#include "testutil.h"

static void check_val(const uint8_t *v, size_t vl, int64_t i) {
    uint8_t want[128];
    size_t wl = tu_val(i, want);
    CHECK(vl == wl);
    CHECK(memcmp(v, want, wl) == 0);
}

static void test_version(void) {
    int ma = -1, mi = -1, pa = -1;
    drydb_version(&ma, &mi, &pa);
    CHECK(ma == DRYDB_VERSION_MAJOR && mi == DRYDB_VERSION_MINOR && pa == DRYDB_VERSION_PATCH);
    drydb_version(NULL, NULL, NULL);
    CHECK(strcmp(drydb_version_string(), DRYDB_VERSION_STRING) == 0);
    for (int c = DRYDB_OK; c <= DRYDB_INTERNAL; c++) CHECK(strcmp(drydb_strerror(c), "unknown status") != 0);
    CHECK(strcmp(drydb_strerror(999), "unknown status") == 0);
    CHECK(strcmp(drydb_strerror(-1), "unknown status") == 0);
    CHECK(drydb_errmsg() != NULL);
}

static void test_db(drydb_db *db, size_t filesize) {
    struct drydb_db_info info;
    OK(drydb_info(db, &info));
    CHECK(info.page_size == 4096);
    CHECK(info.format_version >= 1);
    CHECK(filesize == 0 || info.file_size == (int64_t)filesize);
    CHECK(info.table_count == 7);
    int64_t now = (int64_t)time(NULL) * 1000000000LL;
    CHECK(info.created_unix_ns > now - 3600LL * 1000000000LL && info.created_unix_ns <= now + 1000000000LL);
    int nonzero = 0;
    for (int i = 0; i < 16; i++) nonzero |= info.build_id[i];
    CHECK(nonzero);
    for (int i = 0; i < 2; i++) CHECK(info.reserved[i] == 0);
    /* The image: values of uncompressed tables lie inside it. */
    CHECK(info.map_addr != 0 && info.map_len == (uint64_t)info.file_size);
    {
        drydb_table *ints;
        uint8_t k[8];
        const uint8_t *v;
        size_t vl;
        OK(drydb_table_open(db, "ints", &ints));
        drydb_key_int64(0, k);
        OK(drydb_get(ints, k, 8, &v, &vl));
        CHECK((uint64_t)(uintptr_t)v >= info.map_addr && (uint64_t)(uintptr_t)v + vl <= info.map_addr + info.map_len);
    }

    const uint8_t *v;
    size_t vl;
    OK(drydb_meta_get(db, (const uint8_t *)"creator", 7, &v, &vl));
    CHECK(vl == 8 && memcmp(v, "testutil", 8) == 0);
    OK(drydb_meta_get(db, (const uint8_t *)"empty", 5, &v, &vl));
    CHECK(vl == 0 && v != NULL);
    CHECK_RC(drydb_meta_get(db, (const uint8_t *)"nope", 4, &v, &vl), DRYDB_NOTFOUND);

    size_t n;
    OK(drydb_table_count(db, &n));
    CHECK(n == 7);
    const char *want[] = {"ints", "zstd", "s2", "dict", "strs", "big", "empty"};
    int seen[7] = {0};
    for (size_t i = 0; i < n; i++) {
        const char *name;
        OK(drydb_table_name(db, i, &name));
        for (int j = 0; j < 7; j++)
            if (strcmp(name, want[j]) == 0) seen[j]++;
    }
    for (int j = 0; j < 7; j++) CHECK(seen[j] == 1);
    const char *name;
    CHECK_RC(drydb_table_name(db, n, &name), DRYDB_NOTFOUND);

    struct drydb_cache_stats cs;
    OK(drydb_cache_stats(db, &cs));
    OK(drydb_verify(db));
}

static void test_table_info(drydb_db *db) {
    struct { const char *name; int kind, comp, dict; uint64_t rows; uint32_t nix; } t[] = {
        {"ints", DRYDB_KEY_INT64, DRYDB_COMPRESS_NONE, 0, TU_ROWS, 2},
        {"zstd", DRYDB_KEY_INT64, DRYDB_COMPRESS_ZSTD, 0, TU_ROWS, 0},
        {"s2", DRYDB_KEY_INT64, DRYDB_COMPRESS_S2, 0, TU_ROWS, 0},
        {"dict", DRYDB_KEY_INT64, DRYDB_COMPRESS_ZSTD, 1, TU_ROWS, 0},
        {"strs", DRYDB_KEY_STRING, DRYDB_COMPRESS_NONE, 0, TU_STRS, 0},
        {"big", DRYDB_KEY_UINT64, DRYDB_COMPRESS_NONE, 0, 4, 0},
        {"empty", DRYDB_KEY_BYTES, DRYDB_COMPRESS_NONE, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        drydb_table *tb, *again;
        struct drydb_table_info ti;
        OK(drydb_table_open(db, t[i].name, &tb));
        OK(drydb_table_open(db, t[i].name, &again));
        CHECK(tb == again); /* one handle per table */
        OK(drydb_table_info(tb, &ti));
        CHECK(ti.key_kind == t[i].kind);
        CHECK(ti.nparts == 0);
        CHECK(ti.rows == t[i].rows);
        CHECK(ti.index_count == t[i].nix);
        CHECK(ti.compression == t[i].comp);
        CHECK(!!(ti.flags & DRYDB_DICTIONARY) == t[i].dict);
        if (strcmp(t[i].name, "dict") == 0) CHECK(ti.level == 3);
    }
    drydb_table *tb;
    CHECK_RC(drydb_table_open(db, "missing", &tb), DRYDB_NOTABLE);
    CHECK(strstr(drydb_errmsg(), "missing") != NULL);
}

/* Point reads, batches, counts, ranks, at: on one int64 table. */
static void test_reads(drydb_db *db, const char *tname) {
    drydb_table *t;
    OK(drydb_table_open(db, tname, &t));
    uint8_t k[8];
    const uint8_t *v, *kp;
    size_t vl, kl;
    for (int64_t i = 0; i < TU_ROWS; i += 37) {
        drydb_key_int64(2 * i, k);
        OK(drydb_get(t, k, 8, &v, &vl));
        check_val(v, vl, i);
        drydb_key_int64(2 * i + 1, k); /* the gaps */
        CHECK_RC(drydb_get(t, k, 8, &v, &vl), DRYDB_NOTFOUND);
    }
    drydb_key_int64(-1, k);
    CHECK_RC(drydb_get(t, k, 8, &v, &vl), DRYDB_NOTFOUND);
    CHECK_RC(drydb_get(t, k, 3, &v, &vl), DRYDB_BADKEY); /* wrong width */

    /* get_many: hits and misses, some repeated, out of order */
    enum { N = 300 };
    uint8_t keys[N * 8];
    size_t klens[N], vlens[N];
    const uint8_t *vals[N];
    uint8_t found[N];
    int64_t want[N];
    for (int i = 0; i < N; i++) {
        int64_t x = (int64_t)((i * 7919) % (2 * TU_ROWS + 10)) - 5;
        want[i] = x;
        drydb_key_int64(x, keys + 8 * i);
        klens[i] = 8;
    }
    OK(drydb_get_many(t, N, keys, klens, vals, vlens, found));
    for (int i = 0; i < N; i++) {
        int64_t x = want[i];
        int present = x >= 0 && x % 2 == 0 && x / 2 < TU_ROWS;
        CHECK(found[i] == present);
        if (present) check_val(vals[i], vlens[i], x / 2);
        else CHECK(vals[i] == NULL && vlens[i] == 0);
    }
    OK(drydb_get_many(t, 0, NULL, NULL, NULL, NULL, NULL));

    /* counts: inclusive/exclusive on present keys and on gaps */
    uint8_t lo[8], hi[8];
    uint64_t c;
    OK(drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    CHECK(c == TU_ROWS);
    drydb_key_int64(2000, lo);
    drydb_key_int64(2198, hi);
    OK(drydb_count(t, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_INCLUSIVE, &c));
    CHECK(c == 100);
    OK(drydb_count(t, lo, 8, DRYDB_EXCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &c));
    CHECK(c == 98);
    OK(drydb_count(t, lo, 8, DRYDB_EXCLUSIVE, hi, 8, DRYDB_INCLUSIVE, &c));
    CHECK(c == 99);
    drydb_key_int64(1999, lo); /* gap below 2000 */
    drydb_key_int64(2199, hi);
    OK(drydb_count(t, lo, 8, DRYDB_EXCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &c));
    CHECK(c == 100);
    OK(drydb_count(t, lo, 8, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c));
    CHECK(c == TU_ROWS - 1000);
    OK(drydb_count(t, hi, 8, DRYDB_INCLUSIVE, lo, 8, DRYDB_INCLUSIVE, &c)); /* empty, reversed */
    CHECK(c == 0);
    CHECK_RC(drydb_count(t, lo, 8, 7, hi, 8, DRYDB_INCLUSIVE, &c), DRYDB_INVALID);

    /* an empty key is a real key (the smallest), not "unbounded"; bounds
     * are keys, so on an int64 table it is DRYDB_BADKEY */
    CHECK_RC(drydb_count(t, (const uint8_t *)"", 0, DRYDB_EXCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c), DRYDB_BADKEY);
    drydb_table *st;
    OK(drydb_table_open(db, "strs", &st));
    OK(drydb_count(st, (const uint8_t *)"", 0, DRYDB_EXCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c));
    CHECK(c == TU_STRS);
    OK(drydb_count(st, (const uint8_t *)"", 0, DRYDB_INCLUSIVE, (const uint8_t *)"", 0, DRYDB_INCLUSIVE, &c));
    CHECK(c == 0);

    uint64_t r;
    drydb_key_int64(10, k);
    OK(drydb_rank(t, k, 8, &r));
    CHECK(r == 5);
    drydb_key_int64(11, k);
    OK(drydb_rank(t, k, 8, &r));
    CHECK(r == 6);
    drydb_key_int64(1LL << 40, k);
    OK(drydb_rank(t, k, 8, &r));
    CHECK(r == TU_ROWS);

    for (uint64_t n = 0; n < TU_ROWS; n += 101) {
        OK(drydb_at(t, n, &kp, &kl, &v, &vl));
        CHECK(kl == 8 && drydb_key_to_int64(kp) == 2 * (int64_t)n);
        check_val(v, vl, (int64_t)n);
    }
    CHECK_RC(drydb_at(t, TU_ROWS, &kp, &kl, &v, &vl), DRYDB_NOTFOUND);
}

static void test_cursors(drydb_db *db, const char *tname) {
    drydb_table *t;
    drydb_cursor *c;
    const uint8_t *k, *v;
    size_t kl, vl;
    OK(drydb_table_open(db, tname, &t));

    /* full forward walk: next on a fresh cursor starts at the first entry */
    OK(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    CHECK_RC(drydb_cursor_get(c, &k, &kl, &v, &vl), DRYDB_NOTFOUND);
    int64_t i = 0;
    while (drydb_cursor_next(c) == DRYDB_OK) {
        OK(drydb_cursor_get(c, &k, &kl, &v, &vl));
        CHECK(kl == 8 && drydb_key_to_int64(k) == 2 * i);
        check_val(v, vl, i);
        i++;
    }
    CHECK(i == TU_ROWS);
    CHECK_RC(drydb_cursor_next(c), DRYDB_NOTFOUND); /* stays at end */
    CHECK_RC(drydb_cursor_get(c, &k, &kl, &v, &vl), DRYDB_NOTFOUND);
    /* backward */
    OK(drydb_cursor_last(c));
    i = TU_ROWS - 1;
    do {
        OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
        CHECK(drydb_key_to_int64(k) == 2 * i);
        i--;
    } while (drydb_cursor_prev(c) == DRYDB_OK);
    CHECK(i == -1);
    OK(drydb_cursor_first(c));
    OK(drydb_cursor_get(c, NULL, NULL, &v, &vl));
    check_val(v, vl, 0);
    CHECK_RC(drydb_cursor_get(c, &k, NULL, NULL, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_cursor_primary_key(c, &k, &kl), DRYDB_BADHANDLE); /* not an index cursor */
    OK(drydb_cursor_close(c));
    OK(drydb_cursor_close(c)); /* closed handles are accepted */
    CHECK_RC(drydb_cursor_next(c), DRYDB_CLOSED);

    /* bounded, exclusive start in a gap and on a key; seek inside */
    uint8_t lo[8], hi[8], s[8];
    drydb_key_int64(99, lo);
    drydb_key_int64(200, hi);
    OK(drydb_cursor_open(t, lo, 8, DRYDB_EXCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &c));
    OK(drydb_cursor_next(c));
    OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
    CHECK(drydb_key_to_int64(k) == 100);
    OK(drydb_cursor_last(c));
    OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
    CHECK(drydb_key_to_int64(k) == 198);
    drydb_key_int64(151, s);
    OK(drydb_cursor_seek(c, s, 8));
    OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
    CHECK(drydb_key_to_int64(k) == 152);
    drydb_key_int64(0, s); /* below the range: first entry */
    OK(drydb_cursor_seek(c, s, 8));
    OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
    CHECK(drydb_key_to_int64(k) == 100);
    drydb_key_int64(500, s); /* past the range */
    CHECK_RC(drydb_cursor_seek(c, s, 8), DRYDB_NOTFOUND);
    drydb_key_int64(150, s);
    OK(drydb_cursor_seek_exact(c, s, 8));
    OK(drydb_cursor_get(c, &k, &kl, &v, &vl));
    CHECK(drydb_key_to_int64(k) == 150);
    check_val(v, vl, 75);
    drydb_key_int64(151, s);
    CHECK_RC(drydb_cursor_seek_exact(c, s, 8), DRYDB_NOTFOUND);
    OK(drydb_cursor_seek_row(c, 60)); /* row 60 is key 120 */
    OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
    CHECK(drydb_key_to_int64(k) == 120);
    CHECK_RC(drydb_cursor_seek_row(c, 10), DRYDB_NOTFOUND); /* outside the bounds */
    OK(drydb_cursor_close(c));

    /* an exclusive start equal to a key, and batches forward and back */
    drydb_key_int64(100, lo);
    drydb_key_int64(2000, hi);
    OK(drydb_cursor_open(t, lo, 8, DRYDB_EXCLUSIVE, hi, 8, DRYDB_INCLUSIVE, &c));
    enum { M = 64 };
    const uint8_t *ks[M], *vs[M];
    size_t kls[M], vls[M], n;
    int64_t next = 102, total = 0;
    int rc;
    while ((rc = drydb_cursor_next_batch(c, 0, M, ks, kls, vs, vls, &n)) == DRYDB_OK) {
        CHECK(n >= 1 && n <= M);
        for (size_t j = 0; j < n; j++) {
            CHECK(kls[j] == 8 && drydb_key_to_int64(ks[j]) == next);
            check_val(vs[j], vls[j], next / 2);
            next += 2;
            total++;
        }
    }
    CHECK_RC(rc, DRYDB_NOTFOUND);
    CHECK(n == 0);
    CHECK(total == (2000 - 102) / 2 + 1);
    /* reverse batches from a seek, without values */
    drydb_key_int64(1001, s);
    OK(drydb_cursor_seek(c, s, 8)); /* on 1002; the batch starts there */
    next = 1002;
    total = 0;
    while (drydb_cursor_next_batch(c, 1, 7, ks, kls, NULL, NULL, &n) == DRYDB_OK) {
        for (size_t j = 0; j < n; j++) {
            CHECK(drydb_key_to_int64(ks[j]) == next);
            next -= 2;
            total++;
        }
    }
    CHECK(total == (1002 - 102) / 2 + 1);
    CHECK_RC(drydb_cursor_next_batch(c, 0, 0, ks, kls, vs, vls, &n), DRYDB_INVALID);
    /* a batch leaves the cursor on the next entry */
    OK(drydb_cursor_first(c));
    OK(drydb_cursor_next_batch(c, 0, 3, ks, kls, vs, vls, &n));
    CHECK(n == 3);
    OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
    CHECK(drydb_key_to_int64(k) == 108);
    /* a fresh cursor's reverse batch starts at the last entry */
    OK(drydb_cursor_close(c));
    OK(drydb_cursor_open(t, lo, 8, DRYDB_EXCLUSIVE, hi, 8, DRYDB_INCLUSIVE, &c));
    OK(drydb_cursor_next_batch(c, 1, 2, ks, kls, vs, vls, &n));
    CHECK(n == 2 && drydb_key_to_int64(ks[0]) == 2000 && drydb_key_to_int64(ks[1]) == 1998);
    OK(drydb_cursor_close(c));
    /* prev on a fresh cursor is last */
    OK(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    OK(drydb_cursor_prev(c));
    OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
    CHECK(drydb_key_to_int64(k) == 2 * (TU_ROWS - 1));
    OK(drydb_cursor_close(c));
}

static void test_strings(drydb_db *db) {
    drydb_table *t;
    drydb_cursor *c;
    const uint8_t *k, *v;
    size_t kl, vl, n;
    OK(drydb_table_open(db, "strs", &t));
    OK(drydb_get(t, (const uint8_t *)"k00042", 6, &v, &vl));
    CHECK(vl == 3 && memcmp(v, "v42", 3) == 0);
    CHECK_RC(drydb_get(t, (const uint8_t *)"\xff\xfe", 2, &v, &vl), DRYDB_BADKEY); /* not UTF-8 */
    /* prefix cursor: k001xx */
    OK(drydb_cursor_open_prefix(t, (const uint8_t *)"k001", 4, &c));
    int cnt = 0;
    while (drydb_cursor_next(c) == DRYDB_OK) {
        char want[16];
        OK(drydb_cursor_get(c, &k, &kl, &v, &vl));
        snprintf(want, sizeof want, "k%05d", 100 + cnt);
        CHECK(kl == 6 && memcmp(k, want, 6) == 0);
        cnt++;
    }
    CHECK(cnt == 100);
    OK(drydb_cursor_close(c));
    OK(drydb_cursor_open_prefix(t, NULL, 0, &c)); /* empty prefix: everything */
    const uint8_t *ks[2000];
    size_t kls[2000];
    OK(drydb_cursor_next_batch(c, 0, 2000, ks, kls, NULL, NULL, &n));
    CHECK(n == TU_STRS);
    OK(drydb_cursor_close(c));
}

static void test_big(drydb_db *db) {
    drydb_table *t;
    OK(drydb_table_open(db, "big", &t));
    for (uint64_t key = 1; key <= 4; key++) {
        uint8_t k[8];
        const uint8_t *v;
        size_t vl, n = 70000 * key;
        uint8_t *want = malloc(n);
        tu_big_val(key, want, n);
        drydb_key_uint64(key, k);
        OK(drydb_get(t, k, 8, &v, &vl));
        CHECK(vl == n && memcmp(v, want, n) == 0); /* >= 64 KiB values intact */
        free(want);
    }
    drydb_table *e;
    drydb_cursor *c;
    uint64_t cnt;
    OK(drydb_table_open(db, "empty", &e));
    OK(drydb_count(e, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &cnt));
    CHECK(cnt == 0);
    OK(drydb_cursor_open(e, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    CHECK_RC(drydb_cursor_first(c), DRYDB_NOTFOUND);
    CHECK_RC(drydb_cursor_next(c), DRYDB_NOTFOUND);
    OK(drydb_cursor_close(c));
}

static void test_indexes(drydb_db *db) {
    drydb_table *t;
    drydb_index *mod7, *neg, *again;
    struct drydb_index_info ii;
    OK(drydb_table_open(db, "ints", &t));
    OK(drydb_index_open(t, "mod7", &mod7));
    OK(drydb_index_open(t, "mod7", &again));
    CHECK(mod7 == again);
    OK(drydb_index_open(t, "neg", &neg));
    CHECK_RC(drydb_index_open(t, "nope", &again), DRYDB_NOINDEX);
    {
        const char *name;
        OK(drydb_table_index_name(t, 0, &name));
        CHECK(strcmp(name, "mod7") == 0);
        OK(drydb_table_index_name(t, 1, &name));
        CHECK(strcmp(name, "neg") == 0);
        CHECK_RC(drydb_table_index_name(t, 2, &name), DRYDB_NOTFOUND);
        CHECK_RC(drydb_table_index_name(t, 0, NULL), DRYDB_INVALID);
    }
    OK(drydb_index_info(mod7, &ii));
    CHECK(ii.key_kind == DRYDB_KEY_INT64 && ii.entries == TU_ROWS && ii.unique == 0);
    OK(drydb_index_info(neg, &ii));
    CHECK(ii.unique == 1 && ii.entries == TU_ROWS);

    uint8_t ik[8], lo[8], hi[8];
    const uint8_t *pk, *v, *k;
    size_t pkl, vl, kl;
    /* unique: -i -> key 2i */
    for (int64_t i = 0; i < TU_ROWS; i += 113) {
        drydb_key_int64(-i, ik);
        OK(drydb_index_get(neg, ik, 8, &pk, &pkl, &v, &vl));
        CHECK(pkl == 8 && drydb_key_to_int64(pk) == 2 * i);
        check_val(v, vl, i);
    }
    drydb_key_int64(1, ik);
    CHECK_RC(drydb_index_get(neg, ik, 8, &pk, &pkl, &v, &vl), DRYDB_NOTFOUND);
    /* non-unique: the first entry of ikey 3 is row 3 (primary key order) */
    drydb_key_int64(3, ik);
    OK(drydb_index_get(mod7, ik, 8, &pk, &pkl, &v, &vl));
    CHECK(drydb_key_to_int64(pk) == 6);
    check_val(v, vl, 3);
    /* counts with exclusive bounds over duplicates */
    uint64_t per[7], c, sum = 0;
    for (int m = 0; m < 7; m++) per[m] = (TU_ROWS - m + 6) / 7;
    drydb_key_int64(2, lo);
    drydb_key_int64(5, hi);
    OK(drydb_index_count(mod7, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_INCLUSIVE, &c));
    CHECK(c == per[2] + per[3] + per[4] + per[5]);
    OK(drydb_index_count(mod7, lo, 8, DRYDB_EXCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &c));
    CHECK(c == per[3] + per[4]);
    OK(drydb_index_count(mod7, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    CHECK(c == TU_ROWS);
    /* a cursor over ikey (2, 5]: entries in (ikey, pk) order, spanning pages */
    drydb_cursor *cur;
    OK(drydb_index_cursor_open(mod7, lo, 8, DRYDB_EXCLUSIVE, hi, 8, DRYDB_INCLUSIVE, &cur));
    int64_t m = 3, row = 3;
    while (drydb_cursor_next(cur) == DRYDB_OK) {
        OK(drydb_cursor_get(cur, &k, &kl, &v, &vl));
        OK(drydb_cursor_primary_key(cur, &pk, &pkl));
        CHECK(kl == 8 && drydb_key_to_int64(k) == m);
        CHECK(drydb_key_to_int64(pk) == 2 * row);
        check_val(v, vl, row);
        sum++;
        row += 7;
        if (row >= TU_ROWS) { m++; row = m; }
    }
    CHECK(sum == per[3] + per[4] + per[5]);
    /* index batches with primary keys */
    OK(drydb_cursor_first(cur));
    enum { M = 50 };
    const uint8_t *iks[M], *pks[M], *vs[M];
    size_t ikl[M], pkls[M], vls[M], n;
    uint64_t got = 0;
    m = 3; row = 3;
    OK(drydb_cursor_first(cur));
    while (drydb_index_cursor_next_batch(cur, 0, M, iks, ikl, pks, pkls, vs, vls, &n) == DRYDB_OK) {
        for (size_t j = 0; j < n; j++) {
            CHECK(drydb_key_to_int64(iks[j]) == m && drydb_key_to_int64(pks[j]) == 2 * row);
            check_val(vs[j], vls[j], row);
            got++;
            row += 7;
            if (row >= TU_ROWS) { m++; row = m; }
        }
    }
    CHECK(got == sum);
    OK(drydb_cursor_close(cur));
    /* prefix cursor on an index: ikey bytes starting with the 7 leading bytes of key 4 */
    drydb_key_int64(4, ik);
    OK(drydb_index_cursor_open_prefix(mod7, ik, 8, &cur));
    got = 0;
    while (drydb_cursor_next(cur) == DRYDB_OK) got++;
    CHECK(got == per[4]);
    OK(drydb_cursor_seek_exact(cur, ik, 8));
    OK(drydb_cursor_primary_key(cur, &pk, &pkl));
    CHECK(drydb_key_to_int64(pk) == 8);
    /* the index batch call on a table cursor is a kind error */
    OK(drydb_cursor_close(cur));
    drydb_cursor *tc;
    OK(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &tc));
    CHECK_RC(drydb_index_cursor_next_batch(tc, 0, M, iks, ikl, pks, pkls, vs, vls, &n), DRYDB_BADHANDLE);
    OK(drydb_cursor_close(tc));
}

static void test_builder_errors(void) {
    drydb_builder *b;
    drydb_tbuilder *tb;
    drydb_ibuilder *ib;
    uint8_t k[8], *mem;
    size_t len;
    OK(drydb_builder_new(0, 0, &b));
    OK(drydb_builder_table(b, "t", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb));
    CHECK_RC(drydb_builder_table(b, "t", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table(b, "u", 42, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table(b, "u", DRYDB_KEY_INT64, NULL, 0, 9, 0, 0, &tb), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table(b, "u", DRYDB_KEY_INT64, NULL, 0, 0, 0, 0x80, &tb), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table(b, "u", DRYDB_KEY_INT64, NULL, 0, 0, 0, DRYDB_HASH | DRYDB_NO_HASH, &tb), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table(b, "", DRYDB_KEY_INT64, NULL, 0, 0, 0, 0, &tb), DRYDB_INVALID);
    OK(drydb_builder_table(b, "t2", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb));
    OK(drydb_builder_index(tb, "ix", 1, DRYDB_KEY_BYTES, NULL, 0, &ib));
    CHECK_RC(drydb_builder_append(tb, k, 3, k, 0), DRYDB_BADKEY);
    static uint8_t huge[70000];
    CHECK_RC(drydb_builder_append(tb, huge, sizeof huge, k, 0), DRYDB_KEYTOOLARGE);
    drydb_key_int64(1, k);
    OK(drydb_builder_append(tb, k, 8, (const uint8_t *)"a", 1));
    OK(drydb_builder_append(tb, k, 8, (const uint8_t *)"b", 1)); /* reported at build */
    OK(drydb_builder_index_add(ib, (const uint8_t *)"x", 1, k, 8));
    CHECK_RC(drydb_builder_build_memory(b, &mem, &len), DRYDB_DUPLICATE);
    CHECK(strstr(drydb_errmsg(), "t2") != NULL);
    /* built once: the builder is spent */
    CHECK_RC(drydb_builder_append(tb, k, 8, k, 8), DRYDB_CLOSED);
    OK(drydb_builder_free(b));
    OK(drydb_builder_free(b));
    CHECK_RC(drydb_builder_append(tb, k, 8, k, 8), DRYDB_CLOSED); /* freed with the builder */
    CHECK_RC(drydb_builder_index_add(ib, k, 1, k, 8), DRYDB_CLOSED);

    /* duplicate in a unique index */
    OK(drydb_builder_new(1024, 1 << 20, &b));
    OK(drydb_builder_table(b, "t", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb));
    OK(drydb_builder_index(tb, "u", 1, DRYDB_KEY_STRING, NULL, 0, &ib));
    for (int i = 0; i < 2; i++) {
        drydb_key_int64(i, k);
        OK(drydb_builder_append(tb, k, 8, NULL, 0));
        OK(drydb_builder_index_add(ib, (const uint8_t *)"same", 4, k, 8));
    }
    char *dup = tu_path("dup.drydb");
    CHECK_RC(drydb_builder_build_file(b, dup), DRYDB_DUPLICATE);
    free(dup);
    OK(drydb_builder_free(b));
    CHECK_RC(drydb_builder_new(1000, 0, &b), DRYDB_INVALID); /* not a power of two */
    CHECK_RC(drydb_builder_new(0, -1, &b), DRYDB_INVALID);
}

static void test_knobs(void) {
    int64_t old;
    int oldp;
    OK(drydb_set_memory_limit(-1, &old));
    CHECK(old > 0);
    OK(drydb_set_memory_limit(1LL << 40, &old));
    OK(drydb_set_memory_limit(old, NULL));
    OK(drydb_set_gc_percent(200, &oldp));
    OK(drydb_set_gc_percent(oldp, &oldp));
    CHECK(oldp == 200);
}

static void run_all(drydb_db *db, size_t filesize) {
    test_db(db, filesize);
    test_table_info(db);
    test_reads(db, "ints");
    test_reads(db, "zstd");
    test_reads(db, "s2");
    test_reads(db, "dict");
    test_cursors(db, "ints");
    test_cursors(db, "zstd");
    test_cursors(db, "s2");
    test_strings(db);
    test_big(db);
    test_indexes(db);
}

int main(void) {
    test_version();
    char *path = tu_path("sample.drydb");
    tu_sample_file(path);
    size_t fsize;
    free(tu_read_file(path, &fsize));

    drydb_db *db;
    OK(drydb_open(path, 0, 0, &db));
    run_all(db, fsize);
    struct drydb_cache_stats cs;
    OK(drydb_cache_stats(db, &cs));
    CHECK(cs.hits + cs.misses > 0); /* compressed tables went through the cache */
    OK(drydb_close(db));
    OK(drydb_close(db));
    OK(drydb_close(NULL));

    OK(drydb_open(path, DRYDB_OPEN_VERIFY, 1 << 20, &db)); /* small cache: evictions */
    run_all(db, fsize);
    OK(drydb_close(db));

    size_t len;
    uint8_t *mem = tu_sample_memory(&len);
    CHECK(len == fsize);
    OK(drydb_open_memory(mem, len, 0, 0, &db));
    run_all(db, len);
    OK(drydb_close(db));
    drydb_free(mem);
    drydb_free(NULL);

    test_builder_errors();
    test_knobs();
    free(path);
    printf("test_basic: ok\n");
    return 0;
}
