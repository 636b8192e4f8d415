/* The rules drydb.h states for pointers handed back, cursor positions and
 * batch sizes (issue 18), one test per rule:
 *   - plain tables: keys and values point into the image, valid until
 *     drydb_close, whatever else is called meanwhile;
 *   - compressed tables: drydb_get, drydb_get_many, drydb_at,
 *     drydb_index_get and drydb_range share the calling thread's buffer, so
 *     each of the five overwrites what another returned before; no other call
 *     (and no call on another thread) does;
 *   - cursor data stays valid until that cursor moves;
 *   - metadata values and names stay valid until drydb_close;
 *   - a zero-length datum comes back as a non-NULL pointer;
 *   - a seek that finds nothing leaves the cursor at end; a seek refused for
 *     its key does not move it;
 *   - drydb_cursor_seek_row on an index cursor counts index entries;
 *   - max = 0 is DRYDB_INVALID for drydb_range and both batch calls. */
#include <pthread.h>

#include "testutil.h"

enum { ROWS = 500 };

static drydb_db *db;
static drydb_table *plain, *zstd;
static drydb_index *plain_ix, *zstd_ix;
static struct drydb_db_info info;

/* value of row i: long enough that a compressed table's answers need the
 * thread buffer, and different for every row */
static size_t val_of(int64_t i, char *buf) {
    return (size_t)snprintf(buf, 64, "value of row %lld, padded to be long enough", (long long)i);
}

static void build(void) {
    drydb_builder *b;
    OK(drydb_builder_new(0, 0, &b));
    OK(drydb_builder_set_meta(b, "note", 4, "kept", 4));
    OK(drydb_builder_set_meta(b, "empty", 5, NULL, 0));
    for (int c = 0; c < 2; c++) {
        drydb_tbuilder *tb;
        drydb_ibuilder *ib;
        OK(drydb_builder_table(b, c ? "zstd" : "plain", DRYDB_KEY_INT64, NULL, 0,
                               c ? DRYDB_COMPRESS_ZSTD : DRYDB_COMPRESS_NONE, 0, 0, &tb));
        OK(drydb_builder_index(tb, "by7", 0, DRYDB_KEY_INT64, NULL, 0, &ib));
        for (int64_t i = 0; i < ROWS; i++) {
            uint8_t k[8], ik[8];
            char v[64];
            drydb_key_int64(i, k);
            OK(drydb_builder_append(tb, k, 8, v, i == 0 ? 0 : val_of(i, v))); /* row 0: empty value */
            drydb_key_int64(i % 7, ik);
            OK(drydb_builder_index_add(ib, ik, 8, k, 8));
        }
    }
    char *path = tu_path("rules.drydb");
    OK(drydb_builder_build_file(b, path));
    OK(drydb_builder_free(b));
    OK(drydb_open(path, 0, 0, &db));
    free(path);
    OK(drydb_info(db, &info));
    OK(drydb_table_open(db, "plain", &plain));
    OK(drydb_table_open(db, "zstd", &zstd));
    OK(drydb_index_open(plain, "by7", &plain_ix));
    OK(drydb_index_open(zstd, "by7", &zstd_ix));
}

static int in_image(const uint8_t *p, size_t n) {
    return (uint64_t)(uintptr_t)p >= info.map_addr && (uint64_t)(uintptr_t)p + n <= info.map_addr + info.map_len;
}

static void check_row(const uint8_t *v, size_t n, int64_t i) {
    char want[64];
    size_t wl = i == 0 ? 0 : val_of(i, want);
    CHECK(v != NULL && n == wl && memcmp(v, want, wl) == 0);
}

/* One call of each kind that returns data, on table t with key i. */
static const uint8_t *get_val(drydb_table *t, int64_t i) {
    uint8_t k[8];
    const uint8_t *v;
    size_t n;
    drydb_key_int64(i, k);
    OK(drydb_get(t, k, 8, &v, &n));
    check_row(v, n, i);
    return v;
}

/* Every data-returning call of the thread-buffer group, on table t: each
 * returns the lowest address among its answers that lie outside the image
 * (NULL if none). */
static const uint8_t *lowest(const uint8_t *a, const uint8_t *b) {
    if (b == NULL || in_image(b, 1)) return a;
    return a == NULL || b < a ? b : a;
}
static const uint8_t *call_get(drydb_table *t, drydb_index *ix) {
    (void)ix;
    return lowest(NULL, get_val(t, 7));
}
static const uint8_t *call_get_many(drydb_table *t, drydb_index *ix) {
    uint8_t ks[16];
    size_t kl[2] = {8, 8}, vl[2];
    const uint8_t *vs[2];
    uint8_t found[2];
    (void)ix;
    drydb_key_int64(8, ks);
    drydb_key_int64(9, ks + 8);
    OK(drydb_get_many(t, 2, ks, kl, vs, vl, found));
    CHECK(found[0] && found[1]);
    check_row(vs[0], vl[0], 8);
    check_row(vs[1], vl[1], 9);
    return lowest(lowest(NULL, vs[0]), vs[1]);
}
static const uint8_t *call_at(drydb_table *t, drydb_index *ix) {
    const uint8_t *k, *v;
    size_t kl, vl;
    (void)ix;
    OK(drydb_at(t, 10, &k, &kl, &v, &vl));
    CHECK(kl == 8 && drydb_key_to_int64(k) == 10);
    check_row(v, vl, 10);
    return lowest(lowest(NULL, k), v);
}
static const uint8_t *call_index_get(drydb_table *t, drydb_index *ix) {
    uint8_t ik[8];
    const uint8_t *pk, *v;
    size_t pkl, vl;
    (void)t;
    drydb_key_int64(4, ik);
    OK(drydb_index_get(ix, ik, 8, &pk, &pkl, &v, &vl));
    CHECK(pkl == 8 && drydb_key_to_int64(pk) == 4);
    check_row(v, vl, 4);
    return lowest(lowest(NULL, pk), v);
}
static const uint8_t *call_range(drydb_table *t, drydb_index *ix) {
    uint8_t lo[8];
    const uint8_t *ks[3], *vs[3];
    size_t kl[3], vl[3], n;
    const uint8_t *low = NULL;
    (void)ix;
    drydb_key_int64(20, lo);
    OK(drydb_range(t, lo, 8, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, 0, 3, ks, kl, vs, vl, &n));
    CHECK(n == 3);
    for (size_t j = 0; j < n; j++) {
        CHECK(drydb_key_to_int64(ks[j]) == 20 + (int64_t)j);
        check_row(vs[j], vl[j], 20 + (int64_t)j);
        low = lowest(lowest(low, ks[j]), vs[j]);
    }
    return low;
}

static const struct {
    const char *name;
    const uint8_t *(*call)(drydb_table *, drydb_index *);
} buffer_calls[] = {
    {"drydb_get", call_get},   {"drydb_get_many", call_get_many}, {"drydb_at", call_at},
    {"drydb_index_get", call_index_get}, {"drydb_range", call_range},
};
#define NCALLS (sizeof buffer_calls / sizeof buffer_calls[0])

/* Rule: plain tables hand out pointers into the image that outlive every
 * other call until drydb_close. */
static void test_plain_until_close(void) {
    const uint8_t *v = get_val(plain, 123);
    CHECK(in_image(v, 1));
    for (size_t c = 0; c < NCALLS; c++) {
        CHECK(buffer_calls[c].call(plain, plain_ix) == NULL); /* nothing outside the image */
        buffer_calls[c].call(zstd, zstd_ix);
    }
    char want[64];
    size_t wl = val_of(123, want);
    CHECK(memcmp(v, want, wl) == 0);
}

/* Rule: on a compressed table each of the five calls overwrites the thread
 * buffer another of them filled: its answer lands where the earlier one was.
 * (The buffer keeps its allocation while it is large enough, so reading the
 * old pointer here reads live memory, with other contents.) */
static void test_thread_buffer_shared(void) {
    for (size_t a = 0; a < NCALLS; a++) {
        for (size_t b = 0; b < NCALLS; b++) {
            const uint8_t *first = buffer_calls[a].call(zstd, zstd_ix);
            CHECK(first != NULL);
            const uint8_t *second = buffer_calls[b].call(zstd, zstd_ix);
            if (second != first) {
                fprintf(stderr, "%s after %s: %p, want the buffer %p\n", buffer_calls[b].name,
                        buffer_calls[a].name, (const void *)second, (const void *)first);
                exit(1);
            }
        }
    }
}

static void *other_thread(void *arg) {
    (void)arg;
    for (size_t c = 0; c < NCALLS; c++) buffer_calls[c].call(zstd, zstd_ix);
    return NULL;
}

/* Rule: calls outside the group, and the group's calls on another thread,
 * leave the buffer alone. */
static void test_thread_buffer_kept(void) {
    const uint8_t *v = get_val(zstd, 321);
    char want[64];
    size_t wl = val_of(321, want);
    uint8_t k[8], lo[8];
    drydb_key_int64(5, k);
    drydb_key_int64(2, lo);
    uint64_t n;
    OK(drydb_count(zstd, lo, 8, DRYDB_INCLUSIVE, k, 8, DRYDB_EXCLUSIVE, &n));
    CHECK(n == 3);
    OK(drydb_rank(zstd, k, 8, &n));
    OK(drydb_index_count(zstd_ix, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &n));
    const uint8_t *m;
    size_t ml;
    OK(drydb_meta_get(db, "note", 4, &m, &ml));
    drydb_cursor *c;
    OK(drydb_cursor_open(zstd, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    const uint8_t *ck, *cv;
    size_t ckl, cvl;
    OK(drydb_cursor_seek(c, k, 8));
    OK(drydb_cursor_get(c, &ck, &ckl, &cv, &cvl));
    OK(drydb_cursor_close(c));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, other_thread, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK(memcmp(v, want, wl) == 0);
}

/* Rule: a cursor's data is its own, valid until that cursor moves: the
 * thread-buffer calls and drydb_cursor_get / drydb_cursor_primary_key (which
 * do not move it) leave it, and so does a batch's data. */
static void test_cursor_data(void) {
    drydb_cursor *c;
    const uint8_t *k, *v, *k2, *v2, *pk;
    size_t kl, vl, kl2, vl2, pkl;
    OK(drydb_cursor_open(zstd, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    OK(drydb_cursor_seek_row(c, 50));
    OK(drydb_cursor_get(c, &k, &kl, &v, &vl));
    for (size_t i = 0; i < NCALLS; i++) buffer_calls[i].call(zstd, zstd_ix);
    OK(drydb_cursor_get(c, &k2, &kl2, &v2, &vl2));
    CHECK(kl == 8 && drydb_key_to_int64(k) == 50);
    check_row(v, vl, 50);
    const uint8_t *ks[4], *vs[4];
    size_t kls[4], vls[4], n;
    OK(drydb_cursor_next_batch(c, 0, 4, ks, kls, vs, vls, &n));
    CHECK(n == 4);
    OK(drydb_cursor_get(c, &k2, &kl2, &v2, &vl2)); /* on row 54 now */
    CHECK(drydb_key_to_int64(k2) == 54);
    for (size_t i = 0; i < NCALLS; i++) buffer_calls[i].call(zstd, zstd_ix);
    for (size_t j = 0; j < n; j++) {
        CHECK(drydb_key_to_int64(ks[j]) == 50 + (int64_t)j);
        check_row(vs[j], vls[j], 50 + (int64_t)j);
    }
    OK(drydb_cursor_close(c));

    OK(drydb_index_cursor_open(zstd_ix, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
    OK(drydb_cursor_next(c));
    OK(drydb_cursor_get(c, &k, &kl, &v, &vl));
    OK(drydb_cursor_primary_key(c, &pk, &pkl));
    OK(drydb_cursor_get(c, &k2, &kl2, &v2, &vl2));
    for (size_t i = 0; i < NCALLS; i++) buffer_calls[i].call(zstd, zstd_ix);
    CHECK(drydb_key_to_int64(k) == 0 && drydb_key_to_int64(pk) == 0);
    check_row(v, vl, 0);
    OK(drydb_cursor_close(c));
}

/* Rule: metadata values and table/index names live until drydb_close; a
 * zero-length datum is a non-NULL pointer. */
static void test_meta_names_empty(void) {
    const uint8_t *m, *e;
    size_t ml, el;
    const char *tname, *iname;
    OK(drydb_meta_get(db, "note", 4, &m, &ml));
    OK(drydb_meta_get(db, "empty", 5, &e, &el));
    CHECK(e != NULL && el == 0);
    OK(drydb_table_name(db, 0, &tname));
    OK(drydb_table_index_name(zstd, 0, &iname));
    for (size_t i = 0; i < NCALLS; i++) buffer_calls[i].call(zstd, zstd_ix);
    CHECK(ml == 4 && memcmp(m, "kept", 4) == 0);
    CHECK(strcmp(tname, "plain") == 0 || strcmp(tname, "zstd") == 0);
    CHECK(strcmp(iname, "by7") == 0);
    drydb_table *ts[2] = {plain, zstd};
    for (int t = 0; t < 2; t++) {
        uint8_t k[8];
        const uint8_t *v;
        size_t vl = 1;
        drydb_key_int64(0, k);
        OK(drydb_get(ts[t], k, 8, &v, &vl));
        CHECK(v != NULL && vl == 0);
    }
}

static int64_t cur_key(drydb_cursor *c) {
    const uint8_t *k;
    size_t kl;
    OK(drydb_cursor_get(c, &k, &kl, NULL, NULL));
    CHECK(kl == 8);
    return drydb_key_to_int64(k);
}

/* The state a cursor is left in: at end after a seek that finds nothing
 * (every move and batch gives DRYDB_NOTFOUND until first/last/seek); where
 * it was after a seek refused for its key. */
static void test_seek_states(void) {
    for (int t = 0; t < 2; t++) {
        drydb_table *tbl = t ? zstd : plain;
        uint8_t lo[8], hi[8], past[8], missing[8], in[8];
        drydb_key_int64(100, lo);
        drydb_key_int64(200, hi);
        drydb_key_int64(300, past);
        drydb_key_int64(-5, missing);
        drydb_key_int64(150, in);
        const uint8_t *ks[2];
        size_t kls[2], n = 9;
        for (int exact = 0; exact < 2; exact++) {
            drydb_cursor *c;
            OK(drydb_cursor_open(tbl, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &c));
            OK(drydb_cursor_seek(c, in, 8));
            CHECK(cur_key(c) == 150);
            if (exact) CHECK_RC(drydb_cursor_seek_exact(c, missing, 8), DRYDB_NOTFOUND);
            else CHECK_RC(drydb_cursor_seek(c, past, 8), DRYDB_NOTFOUND);
            CHECK_RC(drydb_cursor_get(c, NULL, NULL, NULL, NULL), DRYDB_NOTFOUND);
            CHECK_RC(drydb_cursor_next(c), DRYDB_NOTFOUND);
            CHECK_RC(drydb_cursor_prev(c), DRYDB_NOTFOUND);
            CHECK_RC(drydb_cursor_next_batch(c, 0, 2, ks, kls, NULL, NULL, &n), DRYDB_NOTFOUND);
            CHECK(n == 0);
            CHECK_RC(drydb_cursor_next_batch(c, 1, 2, ks, kls, NULL, NULL, &n), DRYDB_NOTFOUND);
            OK(drydb_cursor_last(c));
            CHECK(cur_key(c) == 199);
            /* a key below lo: the first entry, a key the kind refuses: no move */
            OK(drydb_cursor_seek(c, missing, 8));
            CHECK(cur_key(c) == 100);
            CHECK_RC(exact ? drydb_cursor_seek_exact(c, in, 7) : drydb_cursor_seek(c, in, 7), DRYDB_BADKEY);
            CHECK(cur_key(c) == 100);
            OK(drydb_cursor_next(c));
            CHECK(cur_key(c) == 101);
            OK(drydb_cursor_close(c));
            /* a fresh cursor stays fresh: next still acts as first */
            OK(drydb_cursor_open(tbl, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_EXCLUSIVE, &c));
            CHECK_RC(exact ? drydb_cursor_seek_exact(c, in, 9) : drydb_cursor_seek(c, in, 9), DRYDB_BADKEY);
            OK(drydb_cursor_next(c));
            CHECK(cur_key(c) == 100);
            /* seek_row outside the bounds: at end too */
            CHECK_RC(drydb_cursor_seek_row(c, 250), DRYDB_NOTFOUND);
            CHECK_RC(drydb_cursor_next(c), DRYDB_NOTFOUND);
            OK(drydb_cursor_seek_row(c, 120));
            CHECK(cur_key(c) == 120);
            OK(drydb_cursor_close(c));
        }
    }
}

/* drydb_cursor_seek_row on an index cursor: n counts the index's entries
 * (index key order, then primary key), over the whole index whatever the
 * bounds; an entry outside the bounds is DRYDB_NOTFOUND. */
static void test_index_seek_row(void) {
    drydb_index *ixs[2] = {plain_ix, zstd_ix};
    for (int t = 0; t < 2; t++) {
        drydb_cursor *walk, *c;
        OK(drydb_index_cursor_open(ixs[t], NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &walk));
        OK(drydb_index_cursor_open(ixs[t], NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
        uint64_t row = 0;
        while (drydb_cursor_next(walk) == DRYDB_OK) {
            if (row % 37 == 0) {
                const uint8_t *k1, *k2, *p1, *p2;
                size_t l1, l2, pl1, pl2;
                OK(drydb_cursor_seek_row(c, row));
                OK(drydb_cursor_get(walk, &k1, &l1, NULL, NULL));
                OK(drydb_cursor_get(c, &k2, &l2, NULL, NULL));
                CHECK(l1 == 8 && l2 == 8 && memcmp(k1, k2, 8) == 0);
                OK(drydb_cursor_primary_key(walk, &p1, &pl1));
                OK(drydb_cursor_primary_key(c, &p2, &pl2));
                CHECK(pl1 == 8 && pl2 == 8 && memcmp(p1, p2, 8) == 0);
            }
            row++;
        }
        CHECK(row == ROWS);
        CHECK_RC(drydb_cursor_seek_row(c, ROWS), DRYDB_NOTFOUND);
        OK(drydb_cursor_close(c));
        OK(drydb_cursor_close(walk));
        /* bounded to index key 3: its entries are rows [3 * 72, 4 * 72) of
         * the index (keys 0..2 have 72 entries each: 500 = 7 * 71 + 3) */
        uint8_t three[8];
        drydb_key_int64(3, three);
        OK(drydb_index_cursor_open(ixs[t], three, 8, DRYDB_INCLUSIVE, three, 8, DRYDB_INCLUSIVE, &c));
        CHECK_RC(drydb_cursor_seek_row(c, 0), DRYDB_NOTFOUND);
        OK(drydb_cursor_seek_row(c, 3 * 72));
        CHECK(cur_key(c) == 3);
        const uint8_t *pk;
        size_t pkl;
        OK(drydb_cursor_primary_key(c, &pk, &pkl));
        CHECK(drydb_key_to_int64(pk) == 3);
        OK(drydb_cursor_seek_row(c, 3 * 72 + 70));
        OK(drydb_cursor_primary_key(c, &pk, &pkl));
        CHECK(drydb_key_to_int64(pk) == 3 + 7 * 70);
        CHECK_RC(drydb_cursor_seek_row(c, 3 * 72 + 71), DRYDB_NOTFOUND);
        OK(drydb_cursor_close(c));
    }
}

/* One rule for max = 0: DRYDB_INVALID from drydb_range and both batch
 * calls (a loop `while (n == max)` would never end), nothing moved. */
static void test_max_zero(void) {
    const uint8_t *ks[1], *vs[1], *ps[1];
    size_t kls[1], vls[1], pls[1], n = 7;
    for (int t = 0; t < 2; t++) {
        drydb_table *tbl = t ? zstd : plain;
        CHECK_RC(drydb_range(tbl, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, 0, 0, ks, kls, vs, vls, &n),
                 DRYDB_INVALID);
        CHECK_RC(drydb_range(tbl, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, DRYDB_REVERSE, 0, ks, kls,
                             NULL, NULL, &n), DRYDB_INVALID);
        CHECK(strstr(drydb_errmsg(), "max") != NULL);
        drydb_cursor *c;
        OK(drydb_cursor_open(tbl, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
        CHECK_RC(drydb_cursor_next_batch(c, 0, 0, ks, kls, vs, vls, &n), DRYDB_INVALID);
        OK(drydb_cursor_next(c)); /* still fresh: the first row */
        CHECK(cur_key(c) == 0);
        CHECK_RC(drydb_cursor_next_batch(c, 0, 0, ks, kls, NULL, NULL, &n), DRYDB_INVALID);
        CHECK(cur_key(c) == 0);
        OK(drydb_cursor_close(c));
        OK(drydb_index_cursor_open(t ? zstd_ix : plain_ix, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
        CHECK_RC(drydb_index_cursor_next_batch(c, 0, 0, ks, kls, ps, pls, NULL, NULL, &n), DRYDB_INVALID);
        OK(drydb_cursor_close(c));
    }
}

int main(void) {
    build();
    test_plain_until_close();
    test_thread_buffer_shared();
    test_thread_buffer_kept();
    test_cursor_data();
    test_meta_names_empty();
    test_seek_states();
    test_index_seek_row();
    test_max_zero();
    OK(drydb_close(db));
    printf("test_rules: ok\n");
    return 0;
}
