/* Hot swap (drydb_refresh) under load. A writer thread rebuilds the file
 * every ~100 ms (build to a temporary name, rename over the path) while 5
 * reader threads, and a second reader process (this program again, argument
 * "reader", refreshing automatically with drydb_refresh_every), run gets,
 * get_many, counts, ranges and cursor walks. Every value encodes the version
 * that wrote it and the row set is a function of the version, so each answer
 * is checked against the version that answered, which must lie between the
 * versions current before and after the call: 0 wrong answers. Afterwards
 * the mappings of the file are back to one. Also: refresh to a truncated,
 * corrupt or missing file keeps the old version; a table that vanishes;
 * refresh while cursors are open; close racing refresh and readers.
 * DRYDB_SWAP_SECONDS sets the load's length (default 3; 60 for the issue's
 * minute). */
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"

extern char **environ;

#define READERS 5
#define NK 2000       /* keys 0..NK-1 of version v: those with k % 5 != v % 5 */
#define VLEN 24

static const char *path;
static int nk = NK;

static int in_set(int64_t k, int64_t v) { return k >= 0 && k < nk && k % 5 != v % 5; }

static void enc_val(int64_t k, int64_t v, uint8_t *buf) {
    memset(buf, 0, VLEN);
    snprintf((char *)buf, VLEN, "v%08lld k%08lld", (long long)v, (long long)k);
}

/* The version a value was written by, -1 if the value is not ours for k. */
static int64_t dec_val(const uint8_t *p, size_t n, int64_t k) {
    long long v, kk;
    char tmp[VLEN + 1];
    if (n != VLEN) return -1;
    memcpy(tmp, p, VLEN);
    tmp[VLEN] = 0;
    if (sscanf(tmp, "v%lld k%lld", &v, &kk) != 2 || kk != k) return -1;
    return v;
}

static uint64_t count_of(int64_t v) {
    uint64_t n = 0;
    for (int64_t k = 0; k < nk; k++) n += in_set(k, v);
    return n;
}

/* Builds version v at path (via a temporary name and a rename: the
 * builder's own). Table "t" plain, "z" zstd-compressed (Go path), "even"
 * only in even versions; metadata "version". */
static void build_version(const char *at, int64_t v) {
    drydb_builder *b;
    OK(drydb_builder_new(0, 0, &b));
    char vs[32];
    int vsl = snprintf(vs, sizeof vs, "%lld", (long long)v);
    OK(drydb_builder_set_meta(b, (const uint8_t *)"version", 7, (const uint8_t *)vs, (size_t)vsl));
    const char *names[] = {"t", "z", "even"};
    for (int ti = 0; ti < 3; ti++) {
        if (ti == 2 && v % 2 != 0) continue;
        drydb_tbuilder *tb;
        OK(drydb_builder_table(b, names[ti], DRYDB_KEY_INT64, NULL, 0, ti == 1 ? DRYDB_COMPRESS_ZSTD : DRYDB_COMPRESS_NONE,
                               0, 0, &tb));
        for (int64_t k = 0; k < nk; k++) {
            if (!in_set(k, v)) continue;
            uint8_t key[8], val[VLEN];
            drydb_key_int64(k, key);
            enc_val(k, v, val);
            OK(drydb_builder_append(tb, key, 8, val, VLEN));
        }
    }
    OK(drydb_builder_build_file(b, at));
    OK(drydb_builder_free(b));
}

/* The version number in the current file's metadata. */
static int64_t meta_version(drydb_db *db) {
    const uint8_t *p;
    size_t n;
    OK(drydb_meta_get(db, (const uint8_t *)"version", 7, &p, &n));
    char tmp[32];
    CHECK(n < sizeof tmp);
    memcpy(tmp, p, n);
    tmp[n] = 0;
    return atoll(tmp);
}

/* Lines of /proc/self/maps naming the database file (old versions show as
 * "path (deleted)" once renamed over). */
static int mappings(void) {
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) n += strstr(line, path) != NULL;
    fclose(f);
    return n;
}

/* Lines one mapped file takes in /proc/self/maps: 1 (an emulator may
 * differ; measured at the first open). */
static int unit = 1;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- the load ---- */

static drydb_db *db;
static volatile int stop_writer, stop_readers;
static int64_t written; /* last version renamed into place (atomics) */
static long answers, wrong, max_maps;

static void fail_answer(const char *what, int64_t k, int64_t got, int64_t lo, int64_t hi) {
    fprintf(stderr, "wrong answer: %s key %lld: version %lld, current was %lld..%lld\n", what, (long long)k,
            (long long)got, (long long)lo, (long long)hi);
    __atomic_add_fetch(&wrong, 1, __ATOMIC_SEQ_CST);
}

static void *writer(void *arg) {
    (void)arg;
    char *tmp = tu_path("swap.next");
    for (int64_t v = __atomic_load_n(&written, __ATOMIC_SEQ_CST) + 1; !stop_writer; v++) {
        build_version(tmp, v);
        CHECK(rename(tmp, path) == 0);
        __atomic_store_n(&written, v, __ATOMIC_SEQ_CST);
        sleep_ms(100);
    }
    free(tmp);
    return NULL;
}

/* One reader: every kind of call, each checked. */
static void read_loop(drydb_db *d, uint32_t seed, int refresher) {
    drydb_table *t, *z, *even;
    OK(drydb_table_open(d, "t", &t));
    OK(drydb_table_open(d, "z", &z));
    int even_rc = drydb_table_open(d, "even", &even);
    CHECK(even_rc == DRYDB_OK || even_rc == DRYDB_NOTABLE);
    long n = 0;
    while (!stop_readers) {
        seed = seed * 1664525u + 1013904223u;
        int64_t k = (int64_t)(seed >> 8) % (nk + 10);
        uint8_t key[8];
        drydb_key_int64(k, key);
        drydb_table *tt = (seed & 1) ? t : z;
        if (refresher && n % 64 == 0) {
            int rc = drydb_refresh(d, NULL);
            CHECK(rc == DRYDB_OK);
        }
        int64_t lo = meta_version(d);
        int op = (int)((seed >> 4) % 6);
        const uint8_t *v;
        size_t vl;
        int64_t got = -2;
        int rc;
        switch (op) {
        case 0: { /* get */
            rc = drydb_get(tt, key, 8, &v, &vl);
            CHECK(rc == DRYDB_OK || rc == DRYDB_NOTFOUND);
            int64_t hi = meta_version(d);
            if (rc == DRYDB_OK) {
                got = dec_val(v, vl, k);
                if (got < lo || got > hi || !in_set(k, got)) fail_answer("get", k, got, lo, hi);
            } else {
                int ok = 0;
                for (int64_t x = lo; x <= hi; x++) ok |= !in_set(k, x);
                if (!ok) fail_answer("get (not found)", k, -1, lo, hi);
            }
            break;
        }
        case 1: { /* get_many: one version answers the batch */
            enum { M = 16 };
            uint8_t keys[M * 8], found[M];
            size_t klens[M], vlens[M];
            const uint8_t *vals[M];
            for (int j = 0; j < M; j++) {
                drydb_key_int64(k + j, keys + 8 * j);
                klens[j] = 8;
            }
            OK(drydb_get_many(tt, M, keys, klens, vals, vlens, found));
            int64_t hi = meta_version(d), one = -1;
            for (int j = 0; j < M; j++) {
                if (!found[j]) continue;
                got = dec_val(vals[j], vlens[j], k + j);
                if (one < 0) one = got;
                if (got != one || got < lo || got > hi || !in_set(k + j, got)) fail_answer("get_many", k + j, got, lo, hi);
            }
            for (int j = 0; j < M && one >= 0; j++)
                if (found[j] != in_set(k + j, one)) fail_answer("get_many (row set)", k + j, one, lo, hi);
            break;
        }
        case 2: { /* count of the whole table */
            uint64_t c;
            OK(drydb_count(tt, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c));
            int64_t hi = meta_version(d);
            int ok = 0;
            for (int64_t x = lo; x <= hi; x++) ok |= c == count_of(x);
            if (!ok) fail_answer("count", -1, (int64_t)c, lo, hi);
            break;
        }
        case 3: { /* range of 40 keys */
            uint8_t hik[8];
            drydb_key_int64(k + 40, hik);
            const uint8_t *ks[64], *vs[64];
            size_t kls[64], vls[64], m;
            OK(drydb_range(tt, key, 8, DRYDB_INCLUSIVE, hik, 8, DRYDB_EXCLUSIVE, 0, 64, ks, kls, vs, vls, &m));
            int64_t hi = meta_version(d), one = -1;
            size_t want = 0;
            for (size_t j = 0; j < m; j++) {
                int64_t kk = drydb_key_to_int64(ks[j]);
                got = dec_val(vs[j], vls[j], kk);
                if (one < 0) one = got;
                if (got != one || got < lo || got > hi || !in_set(kk, got)) fail_answer("range", kk, got, lo, hi);
            }
            if (one >= 0) {
                for (int64_t x = k; x < k + 40; x++) want += in_set(x, one);
                if (want != m) fail_answer("range (row count)", k, one, lo, hi);
            }
            break;
        }
        case 4: { /* cursor walk of 300 keys, batches of 32, refreshes or not */
            uint8_t hik[8];
            drydb_key_int64(k + 300, hik);
            drydb_cursor *c;
            OK(drydb_cursor_open(tt, key, 8, DRYDB_INCLUSIVE, hik, 8, DRYDB_EXCLUSIVE, &c));
            int64_t one = -1, rows = 0;
            for (;;) {
                const uint8_t *ks[32], *vs[32];
                size_t kls[32], vls[32], m;
                rc = drydb_cursor_next_batch(c, 0, 32, ks, kls, vs, vls, &m);
                if (rc == DRYDB_NOTFOUND) break;
                OK(rc);
                for (size_t j = 0; j < m; j++) {
                    int64_t kk = drydb_key_to_int64(ks[j]);
                    got = dec_val(vs[j], vls[j], kk);
                    if (one < 0) one = got;
                    if (got != one || !in_set(kk, got)) fail_answer("cursor", kk, got, lo, one);
                    rows++;
                }
            }
            OK(drydb_cursor_close(c));
            int64_t hi = meta_version(d);
            if (one >= 0) {
                int64_t want = 0;
                for (int64_t x = k; x < k + 300; x++) want += in_set(x, one);
                if (want != rows || one < lo || one > hi) fail_answer("cursor (rows)", k, one, lo, hi);
            }
            break;
        }
        default: { /* the table that vanishes in odd versions; a value kept
                    * across refreshes until this thread's next call */
            if (even_rc != DRYDB_OK) break;
            rc = drydb_get(even, key, 8, &v, &vl);
            int64_t hi = meta_version(d);
            if (rc == DRYDB_NOTABLE) {
                int ok = 0;
                for (int64_t x = lo; x <= hi; x++) ok |= x % 2 != 0;
                if (!ok) fail_answer("vanished table", k, -1, lo, hi);
                CHECK(strstr(drydb_errmsg(), "\"even\"") != NULL);
            } else if (rc == DRYDB_OK) {
                got = dec_val(v, vl, k);
                if (got % 2 != 0 || got < lo || got > hi) fail_answer("even table", k, got, lo, hi);
                if (n % 50 == 0) {
                    /* hold v while other threads refresh: still mapped and
                     * unchanged until this thread calls again */
                    uint8_t copy[VLEN];
                    memcpy(copy, v, VLEN);
                    sleep_ms(150);
                    if (memcmp(copy, v, VLEN) != 0) fail_answer("held value", k, got, lo, hi);
                }
            } else {
                CHECK(rc == DRYDB_NOTFOUND);
            }
            break;
        }
        }
        n++;
        if (n % 256 == 0) {
            long m = mappings();
            long cur = __atomic_load_n(&max_maps, __ATOMIC_SEQ_CST);
            while (m > cur && !__atomic_compare_exchange_n(&max_maps, &cur, m, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
            }
        }
    }
    __atomic_add_fetch(&answers, n, __ATOMIC_SEQ_CST);
}

static void *reader(void *arg) {
    int id = (int)(intptr_t)arg;
    read_loop(db, 2654435761u * (uint32_t)(id + 1), id == 0);
    return NULL;
}

/* The second reader process: no explicit refresh, drydb_refresh_every. */
static int reader_process(double seconds) {
    drydb_db *d;
    OK(drydb_open(path, 0, 0, &d));
    OK(drydb_refresh_every(d, 10));
    double end = now_s() + seconds;
    pthread_t th;
    db = d;
    CHECK(pthread_create(&th, NULL, reader, (void *)(intptr_t)7) == 0);
    while (now_s() < end) sleep_ms(20);
    stop_readers = 1;
    pthread_join(th, NULL);
    uint64_t seq;
    OK(drydb_db_version(d, NULL, &seq));
    OK(drydb_close(d));
    printf("reader process: %ld answers, %ld wrong, %llu automatic refreshes\n", answers, wrong,
           (unsigned long long)seq);
    if (seq == 0) {
        fprintf(stderr, "reader process: the automatic check never switched\n");
        return 1;
    }
    return wrong == 0 ? 0 : 1;
}

static void load(double seconds, const char *self) {
    build_version(path, 0);
    OK(drydb_open(path, 0, 0, &db));
    CHECK(mappings() == unit);
    pid_t child = 0;
    char secs[32];
    snprintf(secs, sizeof secs, "%f", seconds);
    char *argv[] = {(char *)self, "reader", (char *)path, secs, NULL};
    pthread_t w, r[READERS];
    CHECK(pthread_create(&w, NULL, writer, NULL) == 0);
    sleep_ms(50);
    /* The second reader process; not under valgrind (too slow), and where
     * the program cannot exec itself (an emulator without binfmt) the
     * threads run alone. */
    if (!tu_under_valgrind()) {
        int err = posix_spawn(&child, self, NULL, NULL, argv, environ);
        if (err != 0) {
            printf("second reader process not started: %s\n", strerror(err));
            child = 0;
        }
    }
    for (int i = 0; i < READERS; i++) CHECK(pthread_create(&r[i], NULL, reader, (void *)(intptr_t)i) == 0);
    double end = now_s() + seconds;
    while (now_s() < end) sleep_ms(20);
    stop_readers = 1;
    for (int i = 0; i < READERS; i++) pthread_join(r[i], NULL);
    stop_writer = 1;
    pthread_join(w, NULL);
    if (child) {
        int st;
        CHECK(waitpid(child, &st, 0) == child);
        /* 127: the exec failed in the child (an emulator's fork-like vfork
         * cannot report it to posix_spawn): no second process ran */
        if (WIFEXITED(st) && WEXITSTATUS(st) == 127) printf("second reader process could not run\n");
        else CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    /* The readers exited (their holds went with them); a last refresh picks
     * up the last version and unmaps every old one. */
    OK(drydb_refresh(db, NULL));
    CHECK(meta_version(db) == __atomic_load_n(&written, __ATOMIC_SEQ_CST));
    uint64_t seq;
    OK(drydb_db_version(db, NULL, &seq));
    int after = mappings();
    printf("load: %.0f s, %ld answers, %ld wrong, %llu versions, at most %ld mappings, %d after\n", seconds, answers,
           wrong, (unsigned long long)seq, max_maps, after);
    CHECK(wrong == 0);
    CHECK(seq >= 2);
    CHECK(after == unit);
    CHECK(max_maps <= unit * (READERS + 3)); /* each thread holds one old version at most */
    OK(drydb_close(db));
    CHECK(mappings() == 0);
}

/* ---- the edge cases ---- */

static void copy_file(const char *from, const char *to, long keep) {
    size_t n;
    char *b = tu_read_file(from, &n);
    CHECK(b != NULL);
    if (keep >= 0 && (size_t)keep < n) n = (size_t)keep;
    char *tmp = tu_path("swap.copy");
    FILE *f = fopen(tmp, "wb");
    CHECK(f != NULL && fwrite(b, 1, n, f) == n && fclose(f) == 0);
    CHECK(rename(tmp, to) == 0);
    free(tmp);
    free(b);
}

static void bad_files(void) {
    char *good = tu_path("swap.good");
    char *flip = tu_path("swap.flip");
    build_version(path, 10);
    build_version(good, 12);
    OK(drydb_open(path, 0, 0, &db));
    unit = mappings();
    CHECK(unit >= 1);
    uint8_t id0[16], id[16];
    uint64_t seq;
    OK(drydb_db_version(db, id0, &seq));
    CHECK(seq == 0);
    int changed = -1;
    OK(drydb_refresh(db, &changed)); /* the same file: nothing to do */
    CHECK(changed == 0);

    struct { const char *what; long keep; int rc; } cases[] = {
        {"truncated to half", -2, DRYDB_CORRUPT},
        {"truncated to 100 bytes", 100, DRYDB_CORRUPT},
        {"empty", 0, DRYDB_CORRUPT},
        {"a flipped footer byte", -3, DRYDB_CORRUPT},
        {"missing", -4, DRYDB_IO},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long keep = cases[i].keep;
        if (keep == -2) {
            size_t n;
            free(tu_read_file(good, &n));
            copy_file(good, path, (long)n / 2);
        } else if (keep == -3) {
            size_t n;
            char *b = tu_read_file(good, &n);
            b[n - 10] ^= 0x40;
            FILE *f = fopen(flip, "wb");
            CHECK(f != NULL && fwrite(b, 1, n, f) == n && fclose(f) == 0);
            free(b);
            CHECK(rename(flip, path) == 0);
        } else if (keep == -4) {
            CHECK(unlink(path) == 0);
        } else {
            copy_file(good, path, keep);
        }
        changed = -1;
        int rc = drydb_refresh(db, &changed);
        if (rc != cases[i].rc || changed != 0) {
            fprintf(stderr, "refresh to a file %s: rc %d (%s), changed %d\n", cases[i].what, rc, drydb_errmsg(), changed);
            exit(1);
        }
        CHECK(strstr(drydb_errmsg(), "keeps the version") != NULL);
        /* the old version still answers */
        CHECK(meta_version(db) == 10);
        drydb_table *t;
        OK(drydb_table_open(db, "t", &t));
        uint8_t key[8];
        const uint8_t *v;
        size_t vl;
        drydb_key_int64(1, key);
        OK(drydb_get(t, key, 8, &v, &vl));
        CHECK(dec_val(v, vl, 1) == 10);
        OK(drydb_db_version(db, id, &seq));
        CHECK(seq == 0 && memcmp(id, id0, 16) == 0);
    }
    copy_file(good, path, -1);
    OK(drydb_refresh(db, &changed));
    CHECK(changed == 1);
    CHECK(meta_version(db) == 12);
    OK(drydb_db_version(db, id, &seq));
    CHECK(seq == 1 && memcmp(id, id0, 16) != 0);
    OK(drydb_close(db));
    CHECK_RC(drydb_refresh(db, NULL), DRYDB_CLOSED);
    free(good);
    free(flip);
}

/* A table that vanishes and comes back; an index likewise; cursors opened
 * before refreshes keep reading their version; a memory database cannot
 * refresh. */
static void vanish_and_cursors(void) {
    build_version(path, 2);
    OK(drydb_open(path, 0, 0, &db));
    drydb_table *t, *even;
    OK(drydb_table_open(db, "t", &t));
    OK(drydb_table_open(db, "even", &even));
    drydb_cursor *cs[3];
    for (int i = 0; i < 3; i++) OK(drydb_cursor_open(i == 1 ? even : t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &cs[i]));
    OK(drydb_cursor_first(cs[2])); /* one positioned, two fresh */
    build_version(path, 3);
    OK(drydb_refresh(db, NULL));
    build_version(path, 5);
    OK(drydb_refresh(db, NULL));
    CHECK(mappings() == 2 * unit); /* version 2 held by the cursors */
    uint8_t key[8];
    const uint8_t *v;
    size_t vl;
    drydb_key_int64(2, key);
    CHECK_RC(drydb_get(even, key, 8, &v, &vl), DRYDB_NOTABLE);
    CHECK(strstr(drydb_errmsg(), "\"even\"") != NULL);
    uint64_t c;
    CHECK_RC(drydb_count(even, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c), DRYDB_NOTABLE);
    drydb_cursor *nc;
    CHECK_RC(drydb_cursor_open(even, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &nc), DRYDB_NOTABLE);
    OK(drydb_get(t, key, 8, &v, &vl));
    CHECK(dec_val(v, vl, 2) == 5);
    for (int i = 0; i < 3; i++) {
        int64_t rows = 0;
        int rc = i == 2 ? DRYDB_OK : drydb_cursor_first(cs[i]);
        for (; rc == DRYDB_OK; rc = drydb_cursor_next(cs[i])) {
            const uint8_t *k;
            size_t kl;
            OK(drydb_cursor_get(cs[i], &k, &kl, &v, &vl));
            int64_t kk = drydb_key_to_int64(k);
            CHECK(dec_val(v, vl, kk) == 2 && in_set(kk, 2));
            rows++;
        }
        CHECK(rc == DRYDB_NOTFOUND);
        CHECK((uint64_t)rows == count_of(2));
    }
    for (int i = 0; i < 3; i++) OK(drydb_cursor_close(cs[i]));
    OK(drydb_refresh(db, NULL)); /* nothing new: reaps version 2 */
    CHECK(mappings() == unit);
    build_version(path, 6);
    OK(drydb_refresh(db, NULL));
    OK(drydb_get(even, key, 8, &v, &vl)); /* back */
    CHECK(dec_val(v, vl, 2) == 6);
    OK(drydb_close(db));

    size_t len;
    uint8_t *mem = tu_sample_memory(&len);
    OK(drydb_open_memory(mem, len, 0, 0, &db));
    CHECK_RC(drydb_refresh(db, NULL), DRYDB_INVALID);
    CHECK_RC(drydb_refresh_every(db, 10), DRYDB_INVALID);
    OK(drydb_close(db));
    free(mem);
}

/* drydb_close while other threads refresh and read: DRYDB_OK or
 * DRYDB_CLOSED, never a crash. */
static void *racer(void *arg) {
    int id = (int)(intptr_t)arg;
    drydb_table *t = NULL;
    for (;;) {
        int rc;
        if (id == 0) {
            rc = drydb_refresh(db, NULL);
        } else {
            if (t == NULL && drydb_table_open(db, "t", &t) != DRYDB_OK) return NULL;
            uint8_t key[8];
            const uint8_t *v;
            size_t vl;
            drydb_key_int64(1, key);
            rc = drydb_get(t, key, 8, &v, &vl);
        }
        if (rc == DRYDB_CLOSED) return NULL;
        if (rc != DRYDB_NOTFOUND) CHECK_RC(rc, DRYDB_OK);
    }
}

static void close_races(void) {
    for (int round = 0; round < 20; round++) {
        build_version(path, round);
        OK(drydb_open(path, 0, 0, &db));
        pthread_t th[3];
        for (int i = 0; i < 3; i++) CHECK(pthread_create(&th[i], NULL, racer, (void *)(intptr_t)i) == 0);
        build_version(path, round + 100);
        sleep_ms(round % 5);
        OK(drydb_close(db));
        for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
        CHECK(mappings() == 0);
    }
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "reader") == 0) {
        path = argv[2];
        return reader_process(atof(argv[3]));
    }
    path = tu_path("swap.drydb");
    double seconds = 3;
    const char *s = getenv("DRYDB_SWAP_SECONDS");
    if (s != NULL && atof(s) > 0) seconds = atof(s);
    if (tu_under_valgrind()) {
        nk = 300;
        seconds = 2;
    }
    bad_files();
    vanish_and_cursors();
    close_races();
    load(seconds, argv[0]);
    printf("test_swap: OK\n");
    return 0;
}
