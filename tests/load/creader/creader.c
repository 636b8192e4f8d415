/*
 * creader: the C reader of the load test. THREADS pthreads (default 8) read
 * one file for LOAD_SECONDS seconds through libdrydb, checking every answer
 * against the formulas of tests/load/README.md, then print one JSON line.
 *
 *   cc -O2 -pthread -Iinclude tests/load/creader/creader.c -Lbuild -ldrydb -o creader
 *   LD_LIBRARY_PATH=build ./creader FILE
 */
#include "drydb.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define INT_ROWS  200000
#define KMIN      (-300000LL)
#define KMAX      (KMIN + 3LL * (INT_ROWS - 1))
#define NAME_ROWS 100000
#define GROUPS    500
#define PER_GROUP (NAME_ROWS / GROUPS)
#define MAXMSG    5

static drydb_table *ints[2], *names;
static drydb_index *ix;
static const char *tname[2] = {"ints", "ints_zstd"};
static atomic_int stop_flag;

typedef struct {
    uint64_t r;
    int64_t ops, errors;
    int nmsg;
    char msgs[MAXMSG][200];
    uint8_t *exp; /* scratch for expected values */
} worker;

static uint64_t rnd(worker *w) { /* xorshift64* */
    w->r ^= w->r >> 12; w->r ^= w->r << 25; w->r ^= w->r >> 27;
    return w->r * 2685821657736338717ull;
}
static int64_t rn(worker *w, int64_t m) { return (int64_t)(rnd(w) % (uint64_t)m); }

static void fail(worker *w, const char *fmt, ...) {
    w->errors++;
    if (w->nmsg < MAXMSG) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->msgs[w->nmsg++], sizeof w->msgs[0], fmt, ap);
        va_end(ap);
    }
}

/* Value of int key k into buf (>= 8192 bytes); returns its length. */
static size_t int_val(int64_t k, uint8_t *buf) {
    int64_t a = k < 0 ? -k : k;
    char rep[32];
    int rl = snprintf(rep, sizeof rep, "v%" PRId64 ";", k);
    int64_t n = rl + a * 31 % 251;
    if (a % 97 == 0) n = rl + 1025 + a % 3000;
    for (int64_t i = 0; i < n; i++) buf[i] = (uint8_t)rep[i % rl];
    return (size_t)n;
}
static int int_ok(int64_t k, const uint8_t *v, size_t vl, uint8_t *scratch) {
    size_t n = int_val(k, scratch);
    return v != NULL && vl == n && memcmp(v, scratch, n) == 0;
}
static size_t name_key(int64_t i, char *buf) { return (size_t)sprintf(buf, "user:%07" PRId64, i); }
static size_t name_val(int64_t i, char *buf) {
    int n = sprintf(buf, "name-%" PRId64 "/grp%03d/", i, (int)(i % GROUPS));
    for (int j = 0; j < i % 50; j++) buf[n++] = 'x';
    return (size_t)n;
}
static int name_ok(int64_t i, const uint8_t *v, size_t vl) {
    char buf[128];
    size_t n = name_val(i, buf);
    return v != NULL && vl == n && memcmp(v, buf, n) == 0;
}
static size_t grp_key(int64_t g, char *buf) { return (size_t)sprintf(buf, "grp%03d", (int)g); }

static int64_t first_idx(int64_t x) { int64_t s = x - KMIN; return s <= 0 ? 0 : (s + 2) / 3; }
static int64_t last_idx(int64_t x) {
    int64_t s = x - KMIN;
    if (s < 0) return -1;
    return s / 3 > INT_ROWS - 1 ? INT_ROWS - 1 : s / 3;
}
static int present(int64_t k) { return k >= KMIN && k <= KMAX && (k - KMIN) % 3 == 0; }

static int64_t rand_int_key(worker *w, int want_present) {
    if (want_present) return KMIN + 3 * rn(w, INT_ROWS);
    if (rn(w, 2) == 0) return KMIN + 3 * rn(w, INT_ROWS) + 1 + rn(w, 2);
    if (rn(w, 2) == 0) return KMIN - 1 - rn(w, 1000);
    return KMAX + 1 + rn(w, 1000);
}

static void one_op(worker *w) {
    w->ops++;
    int ti = (int)rn(w, 2);
    drydb_table *t = ints[ti];
    int64_t r = rn(w, 100);
    uint8_t kb[8];
    if (r < 35) { /* point get: present (25) or absent (10) */
        int64_t k = rand_int_key(w, r < 25);
        const uint8_t *v = NULL; size_t vl = 0;
        drydb_key_int64(k, kb);
        int rc = drydb_get(t, kb, 8, &v, &vl);
        if (present(k) ? (rc != DRYDB_OK || !int_ok(k, v, vl, w->exp)) : rc != DRYDB_NOTFOUND)
            fail(w, "%s get %" PRId64 ": rc %d len %zu %s", tname[ti], k, rc, vl, rc > 1 ? drydb_errmsg() : "");
    } else if (r < 50) { /* batch of 64 */
        enum { N = 64 };
        int64_t ks[N]; uint8_t keys[N * 8]; size_t kl[N], vls[N]; const uint8_t *vs[N]; uint8_t found[N];
        for (int i = 0; i < N; i++) {
            ks[i] = rand_int_key(w, rn(w, 10) < 7);
            drydb_key_int64(ks[i], keys + 8 * i);
            kl[i] = 8;
        }
        int rc = drydb_get_many(t, N, keys, kl, vs, vls, found);
        if (rc != DRYDB_OK) { fail(w, "%s get_many: rc %d %s", tname[ti], rc, drydb_errmsg()); return; }
        for (int i = 0; i < N; i++)
            if (found[i] != present(ks[i]) || (found[i] && !int_ok(ks[i], vs[i], vls[i], w->exp)))
                fail(w, "%s get_many key %" PRId64 ": found %d len %zu", tname[ti], ks[i], found[i], vls[i]);
    } else if (r < 65) { /* 100-row scan via cursor batches */
        int64_t lo = KMIN - 50 + rn(w, KMAX - KMIN + 100);
        int excl = (int)rn(w, 2);
        int64_t fi = first_idx(excl ? lo + 1 : lo);
        int64_t want = INT_ROWS - fi < 100 ? INT_ROWS - fi : 100;
        if (want < 0) want = 0;
        drydb_key_int64(lo, kb);
        drydb_cursor *c = NULL;
        int rc = drydb_cursor_open(t, kb, 8, excl ? DRYDB_EXCLUSIVE : DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c);
        if (rc != DRYDB_OK) { fail(w, "%s cursor_open: rc %d %s", tname[ti], rc, drydb_errmsg()); return; }
        const uint8_t *ks[100], *vs[100]; size_t kls[100], vls[100], n = 0;
        int64_t got = 0;
        while (got < want) {
            rc = drydb_cursor_next_batch(c, 0, (size_t)(want - got), ks, kls, vs, vls, &n);
            if (rc != DRYDB_OK) break;
            for (size_t i = 0; i < n; i++, got++) {
                int64_t k = KMIN + 3 * (fi + got);
                if (kls[i] != 8 || drydb_key_to_int64(ks[i]) != k || !int_ok(k, vs[i], vls[i], w->exp)) {
                    fail(w, "%s scan from %" PRId64 " excl %d row %" PRId64 ": want key %" PRId64, tname[ti], lo, excl, got, k);
                    drydb_cursor_close(c);
                    return;
                }
            }
        }
        if ((rc != DRYDB_OK && rc != DRYDB_NOTFOUND) || got != want)
            fail(w, "%s scan from %" PRId64 " excl %d: %" PRId64 " rows want %" PRId64 " rc %d", tname[ti], lo, excl, got, want, rc);
        if (drydb_cursor_close(c) != DRYDB_OK) fail(w, "cursor_close failed");
    } else if (r < 75) { /* count */
        int64_t span = KMAX - KMIN + 200;
        int64_t lo = KMIN - 100 + rn(w, span), hi = KMIN - 100 + rn(w, span);
        if (lo > hi) { int64_t x = lo; lo = hi; hi = x; }
        int lk = DRYDB_INCLUSIVE, hk = DRYDB_INCLUSIVE;
        int64_t fi = first_idx(lo), li = last_idx(hi);
        switch (rn(w, 6)) {
        case 0: lk = DRYDB_UNBOUNDED; fi = 0; break;
        case 1: hk = DRYDB_UNBOUNDED; li = INT_ROWS - 1; break;
        case 2: lk = DRYDB_EXCLUSIVE; fi = first_idx(lo + 1); break;
        case 3: hk = DRYDB_EXCLUSIVE; li = last_idx(hi - 1); break;
        }
        int64_t want = li - fi + 1 < 0 ? 0 : li - fi + 1;
        uint8_t lb[8], hb[8];
        drydb_key_int64(lo, lb); drydb_key_int64(hi, hb);
        uint64_t n = 0;
        int rc = drydb_count(t, lb, 8, lk, hb, 8, hk, &n);
        if (rc != DRYDB_OK || (int64_t)n != want)
            fail(w, "%s count [%" PRId64 ",%" PRId64 "] kinds %d/%d: %" PRIu64 " want %" PRId64 " rc %d", tname[ti], lo, hi, lk, hk, n, want, rc);
    } else if (r < 83) { /* string get */
        char k[32];
        int64_t i = rn(w, NAME_ROWS + NAME_ROWS / 10);
        size_t kl = name_key(i, k);
        if (rn(w, 4) == 0) { k[kl++] = 'x'; i = NAME_ROWS; }
        const uint8_t *v = NULL; size_t vl = 0;
        int rc = drydb_get(names, (const uint8_t *)k, kl, &v, &vl);
        if (i < NAME_ROWS ? (rc != DRYDB_OK || !name_ok(i, v, vl)) : rc != DRYDB_NOTFOUND)
            fail(w, "names get %.*s: rc %d len %zu", (int)kl, k, rc, vl);
    } else if (r < 87) { /* string batch of 32 */
        enum { N = 32 };
        char keys[N * 16]; size_t kl[N], vls[N], off = 0; const uint8_t *vs[N]; uint8_t found[N]; int64_t is[N];
        for (int j = 0; j < N; j++) {
            is[j] = rn(w, NAME_ROWS + NAME_ROWS / 5);
            kl[j] = name_key(is[j], keys + off);
            off += kl[j];
        }
        int rc = drydb_get_many(names, N, (const uint8_t *)keys, kl, vs, vls, found);
        if (rc != DRYDB_OK) { fail(w, "names get_many: rc %d", rc); return; }
        for (int j = 0; j < N; j++)
            if (found[j] != (is[j] < NAME_ROWS) || (found[j] && !name_ok(is[j], vs[j], vls[j])))
                fail(w, "names get_many %" PRId64 ": found %d", is[j], found[j]);
    } else if (r < 92) { /* index get */
        int64_t g = rn(w, GROUPS + 50);
        char k[16], pkx[32];
        size_t kl = grp_key(g, k);
        const uint8_t *pk = NULL, *v = NULL; size_t pkl = 0, vl = 0;
        int rc = drydb_index_get(ix, (const uint8_t *)k, kl, &pk, &pkl, &v, &vl);
        if (g < GROUPS) {
            size_t pl = name_key(g, pkx);
            if (rc != DRYDB_OK || pkl != pl || memcmp(pk, pkx, pl) != 0 || !name_ok(g, v, vl))
                fail(w, "index get grp%03d: rc %d", (int)g, rc);
        } else if (rc != DRYDB_NOTFOUND) fail(w, "index get absent grp%03d: rc %d", (int)g, rc);
    } else if (r < 96) { /* index count over groups [g1, g2] */
        int64_t g1 = rn(w, GROUPS + 10), g2 = g1 + rn(w, 20);
        int64_t want = g1 >= GROUPS ? 0 : ((g2 < GROUPS - 1 ? g2 : GROUPS - 1) - g1 + 1) * PER_GROUP;
        char a[16], b[16];
        size_t al = grp_key(g1, a), bl = grp_key(g2, b);
        uint64_t n = 0;
        int rc = drydb_index_count(ix, (const uint8_t *)a, al, DRYDB_INCLUSIVE, (const uint8_t *)b, bl, DRYDB_INCLUSIVE, &n);
        if (rc != DRYDB_OK || (int64_t)n != want)
            fail(w, "index count grp%03d..grp%03d: %" PRIu64 " want %" PRId64 " rc %d", (int)g1, (int)g2, n, want, rc);
    } else { /* index scan: 100 entries of one group */
        int64_t g = rn(w, GROUPS);
        char k[16];
        size_t kl = grp_key(g, k);
        drydb_cursor *c = NULL;
        int rc = drydb_index_cursor_open(ix, (const uint8_t *)k, kl, DRYDB_INCLUSIVE, (const uint8_t *)k, kl, DRYDB_INCLUSIVE, &c);
        if (rc != DRYDB_OK) { fail(w, "index cursor open: rc %d", rc); return; }
        const uint8_t *iks[100], *pks[100], *vs[100]; size_t ikl[100], pkl[100], vls[100], n = 0;
        int64_t got = 0;
        while (got < 100) {
            rc = drydb_index_cursor_next_batch(c, 0, (size_t)(100 - got), iks, ikl, pks, pkl, vs, vls, &n);
            if (rc != DRYDB_OK) break;
            for (size_t j = 0; j < n; j++, got++) {
                int64_t i = g + GROUPS * got;
                char pkx[32];
                size_t pl = name_key(i, pkx);
                if (ikl[j] != kl || memcmp(iks[j], k, kl) != 0 || pkl[j] != pl || memcmp(pks[j], pkx, pl) != 0 || !name_ok(i, vs[j], vls[j])) {
                    fail(w, "index scan grp%03d entry %" PRId64 ": pk %.*s", (int)g, got, (int)pkl[j], pks[j]);
                    drydb_cursor_close(c);
                    return;
                }
            }
        }
        if (got != 100) fail(w, "index scan grp%03d: %" PRId64 " entries rc %d", (int)g, got, rc);
        drydb_cursor_close(c);
    }
}

static void *run(void *arg) {
    worker *w = arg;
    while (!atomic_load_explicit(&stop_flag, memory_order_relaxed)) one_op(w);
    return NULL;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: creader FILE\n"); return 2; }
    double secs = getenv("LOAD_SECONDS") ? atof(getenv("LOAD_SECONDS")) : 60;
    int threads = getenv("THREADS") ? atoi(getenv("THREADS")) : 8;
    if (threads < 1 || threads > 64) threads = 8;
    drydb_db *db = NULL;
    int rc = drydb_open(argv[1], 0, 0, &db);
    if (rc != DRYDB_OK) { fprintf(stderr, "creader: open: %s\n", drydb_errmsg()); return 1; }
    if (drydb_table_open(db, "ints", &ints[0]) || drydb_table_open(db, "ints_zstd", &ints[1]) ||
        drydb_table_open(db, "names", &names) || drydb_index_open(names, "by_grp", &ix)) {
        fprintf(stderr, "creader: %s\n", drydb_errmsg());
        return 1;
    }
    worker ws[64];
    pthread_t th[64];
    memset(ws, 0, sizeof ws);
    double t0 = now();
    for (int i = 0; i < threads; i++) {
        ws[i].r = ((uint64_t)getpid() << 20) ^ (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull;
        ws[i].exp = malloc(8192);
        pthread_create(&th[i], NULL, run, &ws[i]);
    }
    struct timespec ts = {(time_t)secs, (long)((secs - (time_t)secs) * 1e9)};
    nanosleep(&ts, NULL);
    atomic_store(&stop_flag, 1);
    int64_t ops = 0, errs = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        ops += ws[i].ops;
        errs += ws[i].errors;
    }
    double el = now() - t0;
    if (drydb_close(db) != DRYDB_OK) errs++;
    printf("{\"lang\":\"c\",\"pid\":%d,\"threads\":%d,\"seconds\":%.1f,\"ops\":%" PRId64 ",\"errors\":%" PRId64 ",\"ops_per_s\":%.1f",
           (int)getpid(), threads, el, ops, errs, ops / el);
    if (errs) {
        printf(",\"first_errors\":[");
        int n = 0;
        for (int i = 0; i < threads && n < MAXMSG; i++)
            for (int j = 0; j < ws[i].nmsg && n < MAXMSG; j++, n++) {
                printf("%s\"", n ? "," : "");
                for (const char *p = ws[i].msgs[j]; *p; p++) /* JSON-escape */
                    if (*p == '"' || *p == '\\') printf("\\%c", *p);
                    else if ((unsigned char)*p < 0x20) printf("\\u%04x", *p);
                    else putchar(*p);
                putchar('"');
            }
        printf("]");
    }
    printf("}\n");
    return 0;
}
