/* Every error path that must give a status, never a crash: NULL arguments,
 * closed and double-closed handles, handles of the wrong kind, forged
 * handles, absurd lengths, missing tables and indexes, bad files. */
#include "testutil.h"

#include <sys/stat.h>

#define HUGE ((size_t)1 << 40)

/* ---- bounds are keys: every call taking a key or a bound validates it as
 * drydb_get validates its key (DRYDB_BADKEY), on the C fast path too ---- */

typedef int (*key_call)(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n);

static int count_lo(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    uint64_t o;
    (void)ix;
    return drydb_count(t, k, n, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &o);
}
static int count_hi(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    uint64_t o;
    (void)ix;
    return drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, k, n, DRYDB_EXCLUSIVE, &o);
}
static int rank(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    uint64_t o;
    (void)ix;
    return drydb_rank(t, k, n, &o);
}
static int range_of(drydb_table *t, const uint8_t *k, size_t n, int upper, uint32_t flags, size_t max) {
    const uint8_t *ks[4], *vs[4];
    size_t kl[4], vl[4], got;
    if (upper) return drydb_range(t, NULL, 0, DRYDB_UNBOUNDED, k, n, DRYDB_INCLUSIVE, flags, max, ks, kl, vs, vl, &got);
    return drydb_range(t, k, n, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, flags, max, ks, kl, vs, vl, &got);
}
static int range_lo(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) { (void)ix; return range_of(t, k, n, 0, 0, 4); }
static int range_hi(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) { (void)ix; return range_of(t, k, n, 1, 0, 4); }
static int range_hi_rev(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) { (void)ix; return range_of(t, k, n, 1, DRYDB_REVERSE, 4); }
static int range_lo_rev(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) { (void)ix; return range_of(t, k, n, 0, DRYDB_REVERSE, 4); }
static int cursor_lo(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    drydb_cursor *c;
    (void)ix;
    int rc = drydb_cursor_open(t, k, n, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c);
    if (rc == DRYDB_OK) drydb_cursor_close(c);
    return rc;
}
static int cursor_hi(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    drydb_cursor *c;
    (void)ix;
    int rc = drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, k, n, DRYDB_EXCLUSIVE, &c);
    if (rc == DRYDB_OK) drydb_cursor_close(c);
    return rc;
}
static int seek_in(drydb_cursor *c, const uint8_t *k, size_t n, int exact) {
    int rc = exact ? drydb_cursor_seek_exact(c, k, n) : drydb_cursor_seek(c, k, n);
    drydb_cursor_close(c);
    return rc;
}
static int cursor_seek(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    drydb_cursor *c;
    (void)ix;
    OK(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    return seek_in(c, k, n, 0);
}
static int cursor_seek_exact(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    drydb_cursor *c;
    (void)ix;
    OK(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    return seek_in(c, k, n, 1);
}
static int index_count_lo(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    uint64_t o;
    (void)t;
    return drydb_index_count(ix, k, n, DRYDB_EXCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &o);
}
static int index_count_hi(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    uint64_t o;
    (void)t;
    return drydb_index_count(ix, NULL, 0, DRYDB_UNBOUNDED, k, n, DRYDB_INCLUSIVE, &o);
}
static int index_cursor_lo(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    drydb_cursor *c;
    (void)t;
    int rc = drydb_index_cursor_open(ix, k, n, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c);
    if (rc == DRYDB_OK) drydb_cursor_close(c);
    return rc;
}
static int index_cursor_hi(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    drydb_cursor *c;
    (void)t;
    int rc = drydb_index_cursor_open(ix, NULL, 0, DRYDB_UNBOUNDED, k, n, DRYDB_INCLUSIVE, &c);
    if (rc == DRYDB_OK) drydb_cursor_close(c);
    return rc;
}
static int index_cursor_seek(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    drydb_cursor *c;
    (void)t;
    OK(drydb_index_cursor_open(ix, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    return seek_in(c, k, n, 0);
}
static int index_cursor_seek_exact(drydb_table *t, drydb_index *ix, const uint8_t *k, size_t n) {
    drydb_cursor *c;
    (void)t;
    OK(drydb_index_cursor_open(ix, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    return seek_in(c, k, n, 1);
}

static const struct {
    const char *name;
    key_call call;
    int index; /* validates against the index's key kind */
} key_calls[] = {
    {"count lo", count_lo, 0},        {"count hi", count_hi, 0},
    {"rank", rank, 0},                {"range lo", range_lo, 0},
    {"range hi", range_hi, 0},        {"range hi reverse", range_hi_rev, 0},
    {"range lo reverse", range_lo_rev, 0},
    {"cursor lo", cursor_lo, 0},      {"cursor hi", cursor_hi, 0},
    {"cursor seek", cursor_seek, 0},  {"cursor seek exact", cursor_seek_exact, 0},
    {"index count lo", index_count_lo, 1}, {"index count hi", index_count_hi, 1},
    {"index cursor lo", index_cursor_lo, 1}, {"index cursor hi", index_cursor_hi, 1},
    {"index cursor seek", index_cursor_seek, 1}, {"index cursor seek exact", index_cursor_seek_exact, 1},
};

static void test_bounds_are_keys(void) {
    /* tables of every key kind the fast path or Go could judge, each with an
     * index of another kind */
    static const struct {
        const char *name;
        int kind, ikind;
        uint8_t parts[2];
        size_t nparts;
    } tables[] = {
        {"i64", DRYDB_KEY_INT64, DRYDB_KEY_STRING, {0}, 0},
        {"f64", DRYDB_KEY_FLOAT64, DRYDB_KEY_INT64, {0}, 0},
        {"str", DRYDB_KEY_STRING, DRYDB_KEY_UUID, {0}, 0},
        {"comp", DRYDB_KEY_COMPOSITE, DRYDB_KEY_FLOAT64, {DRYDB_KEY_INT64, DRYDB_KEY_STRING}, 2},
    };
    enum { NT = sizeof tables / sizeof tables[0], ROWS = 300 };
    char *path = tu_path("kinds.drydb");
    drydb_builder *b;
    OK(drydb_builder_new(0, 0, &b));
    for (int i = 0; i < NT; i++) {
        drydb_tbuilder *tb;
        drydb_ibuilder *ib;
        OK(drydb_builder_table(b, tables[i].name, tables[i].kind, tables[i].parts, tables[i].nparts, 0, 0, 0, &tb));
        OK(drydb_builder_index(tb, "ix", 0, tables[i].ikind, NULL, 0, &ib));
        for (int r = 0; r < ROWS; r++) {
            uint8_t k[32], ik[16] = {0};
            size_t kl = 8, ikl = 8;
            switch (tables[i].kind) {
            case DRYDB_KEY_INT64: drydb_key_int64(r, k); break;
            case DRYDB_KEY_FLOAT64: drydb_key_int64(r, k); k[0] |= 0x80; break; /* positive doubles, in order */
            case DRYDB_KEY_STRING: kl = (size_t)snprintf((char *)k, sizeof k, "k%04d", r); break;
            default: drydb_key_int64(r, k); memcpy(k + 8, "s\0\1", 3); kl = 11; break;
            }
            switch (tables[i].ikind) {
            case DRYDB_KEY_STRING: ikl = (size_t)snprintf((char *)ik, sizeof ik, "i%d", r % 9); break;
            case DRYDB_KEY_UUID: ik[15] = (uint8_t)(r % 9); ikl = 16; break;
            case DRYDB_KEY_FLOAT64: drydb_key_int64(r % 9, ik); ik[0] |= 0x80; break;
            default: drydb_key_int64(r % 9, ik); break;
            }
            OK(drydb_builder_append(tb, k, kl, (const uint8_t *)"v", 1));
            OK(drydb_builder_index_add(ib, ik, ikl, k, kl));
        }
    }
    OK(drydb_builder_build_file(b, path));
    OK(drydb_builder_free(b));

    /* bad keys for each table's kind and for its index's kind; none is the
     * upper end of a prefix range either (exclusive upper bounds may be:
     * below) */
    static const uint8_t nan[8] = {0xFF, 0xF8, 0, 0, 0, 0, 0, 0};
    static const struct {
        const char *table;
        int index; /* a bad key of the index's kind, or of the table's */
        const uint8_t *key;
        size_t len;
    } bad[] = {
        {"i64", 0, NULL, 0}, /* the empty key: the attack's case */
        {"i64", 0, (const uint8_t *)"ab\0", 3},
        {"i64", 0, (const uint8_t *)"123456789", 9},
        {"i64", 1, (const uint8_t *)"\xff\xfe", 2},
        {"f64", 0, nan, 8},
        {"f64", 0, NULL, 0},
        {"f64", 1, (const uint8_t *)"ab\0", 3},
        {"str", 0, (const uint8_t *)"k\xff", 2},
        {"str", 0, (const uint8_t *)"\xc3", 1},
        {"str", 1, (const uint8_t *)"short\0", 6},
        {"comp", 0, (const uint8_t *)"ab\0", 3},           /* part of an int64 part */
        {"comp", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\1s\xff\0\1", 12}, /* string part not UTF-8 */
        {"comp", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\1s\0\2\0", 12},   /* bad escape */
        {"comp", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\1s\0\1\0", 12},   /* a byte after the last part */
        {"comp", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\1s\0", 10},         /* string part not ended */
        {"comp", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\1\xc3\0\xff\xa9\0\1", 14}, /* UTF-8 cut by an escape */
        {"comp", 1, nan, 8},
    };
    drydb_db *db;
    OK(drydb_open(path, 0, 0, &db));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        drydb_table *t;
        drydb_index *ix;
        OK(drydb_table_open(db, bad[i].table, &t));
        OK(drydb_index_open(t, "ix", &ix));
        for (size_t j = 0; j < sizeof key_calls / sizeof key_calls[0]; j++) {
            if (key_calls[j].index != bad[i].index) continue;
            int rc = key_calls[j].call(t, ix, bad[i].key, bad[i].len);
            if (rc != DRYDB_BADKEY || !strstr(drydb_errmsg(), "bad key")) {
                fprintf(stderr, "%s on table %s, bad key %zu: rc %d (%s), want DRYDB_BADKEY; errmsg: %s\n",
                        key_calls[j].name, bad[i].table, i, rc, drydb_strerror(rc), drydb_errmsg());
                exit(1);
            }
        }
    }
    /* good keys still pass every call, and a composite bound may be a tuple
     * prefix (whole leading parts, or none) as the bindings send */
    static const struct {
        const char *table;
        int index;
        const uint8_t *key;
        size_t len;
    } good[] = {
        {"i64", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\5", 8},
        {"f64", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\5", 8},
        {"str", 0, NULL, 0},
        {"str", 0, (const uint8_t *)"k\xc3\xa9", 3},
        {"comp", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\5s\0\1", 11},
        {"comp", 0, (const uint8_t *)"\x80\0\0\0\0\0\0\5", 8},
        {"comp", 0, NULL, 0},
        {"i64", 1, (const uint8_t *)"i3", 2},
        {"str", 1, (const uint8_t *)"0123456789abcdef", 16},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        drydb_table *t;
        drydb_index *ix;
        OK(drydb_table_open(db, good[i].table, &t));
        OK(drydb_index_open(t, "ix", &ix));
        for (size_t j = 0; j < sizeof key_calls / sizeof key_calls[0]; j++) {
            if (key_calls[j].index != good[i].index) continue;
            int rc = key_calls[j].call(t, ix, good[i].key, good[i].len);
            if (rc != DRYDB_OK && rc != DRYDB_NOTFOUND) {
                fprintf(stderr, "%s on table %s, good key %zu: rc %d; errmsg: %s\n", key_calls[j].name,
                        good[i].table, i, rc, drydb_errmsg());
                exit(1);
            }
        }
    }
    /* composite gets are judged in C too: a whole key, not a tuple prefix */
    {
        drydb_table *t;
        const uint8_t *v;
        size_t vl;
        uint8_t k[11];
        OK(drydb_table_open(db, "comp", &t));
        drydb_key_int64(5, k);
        memcpy(k + 8, "s\0\1", 3);
        OK(drydb_get(t, k, 11, &v, &vl));
        CHECK_RC(drydb_get(t, k, 8, &v, &vl), DRYDB_BADKEY);
        CHECK_RC(drydb_get(t, k, 10, &v, &vl), DRYDB_BADKEY);
        k[10] = 2;
        CHECK_RC(drydb_get(t, k, 11, &v, &vl), DRYDB_BADKEY);
        memcpy(k + 8, "\xc3\0\1", 3);
        CHECK_RC(drydb_get(t, k, 11, &v, &vl), DRYDB_BADKEY);
        memcpy(k + 8, "t\0\1", 3);
        CHECK_RC(drydb_get(t, k, 11, &v, &vl), DRYDB_NOTFOUND);
    }

    /* the upper end of a prefix range (the bound with its trailing 0xFF
     * dropped and its last byte incremented) is no key, but is taken by the
     * ends that start past a prefix: an exclusive upper bound and an
     * inclusive lower one (partial composite bounds, docs/API.md); not as
     * an inclusive upper bound */
    drydb_table *t;
    uint64_t n;
    OK(drydb_table_open(db, "i64", &t));
    uint8_t k255[8], up[7];
    drydb_key_int64(255, k255); /* 80 .. 00 ff: its prefix range ends at 80 .. 01 */
    memcpy(up, k255, 7);
    up[6]++;
    OK(drydb_count(t, k255, 8, DRYDB_INCLUSIVE, up, 7, DRYDB_EXCLUSIVE, &n));
    CHECK(n == 1);
    uint64_t above;
    OK(drydb_count(t, up, 7, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &n));
    OK(drydb_count(t, k255, 8, DRYDB_EXCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &above));
    CHECK(n == above); /* past every key of the prefix of 255: keys > 255 */
    CHECK_RC(drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, up, 7, DRYDB_INCLUSIVE, &n), DRYDB_BADKEY);
    OK(drydb_table_open(db, "comp", &t));
    /* rows (5, "s"): the prefix range of the tuple (5) ends at its successor */
    uint8_t p5[8], e5[8];
    drydb_key_int64(5, p5);
    drydb_key_int64(6, e5);
    OK(drydb_count(t, p5, 8, DRYDB_INCLUSIVE, e5, 8, DRYDB_EXCLUSIVE, &n));
    CHECK(n == 1);
    OK(drydb_close(db));
    free(path);
}

/* ---- a live handle with only its kind bits (0..3) changed is
 * DRYDB_BADHANDLE for every call that takes the kind it now claims ---- */

typedef int (*handle_call)(uintptr_t h);
static int h_db(uintptr_t h) { size_t n; return drydb_table_count((drydb_db *)h, &n); }
static int h_table(uintptr_t h) { uint8_t k[8] = {0}; const uint8_t *v; size_t vl; return drydb_get((drydb_table *)h, k, 8, &v, &vl); }
static int h_table_info(uintptr_t h) { struct drydb_table_info i; return drydb_table_info((drydb_table *)h, &i); }
static int h_index(uintptr_t h) { struct drydb_index_info i; return drydb_index_info((drydb_index *)h, &i); }
static int h_cursor(uintptr_t h) { return drydb_cursor_next((drydb_cursor *)h); }
static int h_cursor_close(uintptr_t h) { return drydb_cursor_close((drydb_cursor *)h); }
static int h_close(uintptr_t h) { return drydb_close((drydb_db *)h); }
static int h_builder(uintptr_t h) { return drydb_builder_set_meta((drydb_builder *)h, (const uint8_t *)"k", 1, NULL, 0); }
static int h_builder_free(uintptr_t h) { return drydb_builder_free((drydb_builder *)h); }
static int h_tbuilder(uintptr_t h) { return drydb_builder_append((drydb_tbuilder *)h, (const uint8_t *)"k", 1, NULL, 0); }
static int h_ibuilder(uintptr_t h) { return drydb_builder_index_add((drydb_ibuilder *)h, (const uint8_t *)"k", 1, (const uint8_t *)"k", 1); }

static void test_kind_bits(const char *path) {
    /* kinds as capi/handles.go numbers them */
    static const struct {
        int kind;
        handle_call call;
    } calls[] = {
        {1, h_db}, {1, h_close}, {2, h_table}, {2, h_table_info}, {3, h_index}, {4, h_cursor},
        {4, h_cursor_close}, {5, h_builder}, {5, h_builder_free}, {6, h_tbuilder}, {7, h_ibuilder},
    };
    drydb_db *db;
    drydb_table *t;
    drydb_index *ix;
    drydb_cursor *c;
    drydb_builder *b;
    drydb_tbuilder *tb;
    drydb_ibuilder *ib;
    OK(drydb_open(path, 0, 0, &db));
    OK(drydb_table_open(db, "ints", &t));
    OK(drydb_index_open(t, "mod7", &ix));
    OK(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c));
    OK(drydb_builder_new(0, 0, &b));
    OK(drydb_builder_table(b, "t", DRYDB_KEY_BYTES, NULL, 0, 0, 0, 0, &tb));
    OK(drydb_builder_index(tb, "i", 0, DRYDB_KEY_BYTES, NULL, 0, &ib));
    uintptr_t live[] = {(uintptr_t)db, (uintptr_t)t, (uintptr_t)ix, (uintptr_t)c,
                        (uintptr_t)b, (uintptr_t)tb, (uintptr_t)ib};
    for (size_t i = 0; i < sizeof live / sizeof live[0]; i++) {
        for (size_t j = 0; j < sizeof calls / sizeof calls[0]; j++) {
            if ((int)(live[i] & 0xF) == calls[j].kind) continue;
            uintptr_t forged = (live[i] & ~(uintptr_t)0xF) | (uintptr_t)calls[j].kind;
            int rc = calls[j].call(forged);
            if (rc != DRYDB_BADHANDLE) {
                fprintf(stderr, "handle of kind %d given kind %d (call %zu): rc %d (%s), want DRYDB_BADHANDLE; errmsg: %s\n",
                        (int)(live[i] & 0xF), calls[j].kind, j, rc, drydb_strerror(rc), drydb_errmsg());
                exit(1);
            }
        }
    }
    /* nothing was closed or freed by the forged calls */
    OK(drydb_cursor_next(c));
    OK(h_table_info((uintptr_t)t));
    OK(drydb_builder_append(tb, (const uint8_t *)"k", 1, NULL, 0));
    OK(drydb_builder_index_add(ib, (const uint8_t *)"i", 1, (const uint8_t *)"k", 1));
    OK(drydb_cursor_close(c));
    OK(drydb_close(db));
    OK(drydb_builder_free(b));
}

/* ---- builder refusals ---- */

static void test_builder_refusals(void) {
    drydb_builder *b;
    drydb_tbuilder *tb;
    drydb_ibuilder *ib;
    uint8_t *mem;
    size_t len;
    uint8_t k[8];

    /* an index entry whose row never comes: refused at build, naming it */
    OK(drydb_builder_new(0, 0, &b));
    OK(drydb_builder_table(b, "items", DRYDB_KEY_INT64, NULL, 0, 0, 0, 0, &tb));
    OK(drydb_builder_index(tb, "by_name", 0, DRYDB_KEY_STRING, NULL, 0, &ib));
    for (int i = 0; i < 10; i++) {
        drydb_key_int64(i, k);
        OK(drydb_builder_append(tb, k, 8, (const uint8_t *)"v", 1));
        OK(drydb_builder_index_add(ib, (const uint8_t *)"name", 4, k, 8));
    }
    drydb_key_int64(77, k);
    OK(drydb_builder_index_add(ib, (const uint8_t *)"ghost", 5, k, 8));
    CHECK_RC(drydb_builder_build_memory(b, &mem, &len), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "index \"by_name\" of table \"items\" has an entry (index key \"ghost\") for primary key \"77\"") != NULL);
    OK(drydb_builder_free(b));

    /* key too large: at the call that gave it, naming the row by its number
     * in the table and the item of the batch */
    OK(drydb_builder_new(0, 0, &b));
    OK(drydb_builder_table(b, "s", DRYDB_KEY_BYTES, NULL, 0, 0, 0, 0, &tb));
    enum { B = 100 };
    static uint8_t keys[B * 8 + 1001];
    size_t klens[B], vlens[B] = {0};
    for (int i = 0; i < B; i++) {
        drydb_key_int64(i, keys + 8 * i);
        klens[i] = 8;
    }
    OK(drydb_builder_append_many(tb, B, keys, klens, keys, vlens));
    /* the second call: keys 100.., its fourth item (row 103) too long */
    size_t off = 0;
    for (int i = 0; i < 10; i++) {
        klens[i] = i == 3 ? 1001 : 8;
        memset(keys + off, 0, klens[i]);
        drydb_key_int64(B + i, keys + off);
        off += klens[i];
    }
    CHECK_RC(drydb_builder_append_many(tb, 10, keys, klens, keys, vlens), DRYDB_KEYTOOLARGE);
    CHECK(strstr(drydb_errmsg(), "row 103 (counted from 0): key of 1001 bytes") != NULL);
    CHECK(strstr(drydb_errmsg(), "(item 3 of this call)") != NULL);
    CHECK_RC(drydb_builder_append(tb, keys, 1001, NULL, 0), DRYDB_KEYTOOLARGE);
    CHECK(strstr(drydb_errmsg(), "row 103 (counted from 0)") != NULL); /* items 0..2 went in */

    /* never replace what is not a regular file; the refusal spends nothing
     * (named pipes in the file system are POSIX's: not on Windows) */
#ifndef _WIN32
    char *fifo = tu_path("fifo");
    CHECK(mkfifo(fifo, 0644) == 0);
    CHECK_RC(drydb_builder_build_file(b, fifo), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "named pipe") != NULL);
    struct stat st;
    CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
    free(fifo);
#endif
    CHECK_RC(drydb_builder_build_file(b, tu_tmpdir()), DRYDB_INVALID);
    CHECK(strstr(drydb_errmsg(), "a directory") != NULL);
    OK(drydb_builder_build_memory(b, &mem, &len));
    drydb_free(mem);
    OK(drydb_builder_free(b));
}

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

    test_bounds_are_keys();
    test_kind_bits(path);
    test_builder_refusals();

    /* failures leave a message; NOTFOUND does not touch it */
    CHECK_RC(drydb_open(NULL, 0, 0, &db), DRYDB_INVALID);
    const char *m = drydb_errmsg();
    CHECK(strncmp(m, "drydb: ", 7) == 0);
    free(junk);
    free(path);
    printf("test_errors: ok\n");
    return 0;
}
