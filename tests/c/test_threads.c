/* 8 pthreads share one database: gets, get_many, cursors and batches on
 * plain and compressed tables, every answer checked. Then drydb_close runs
 * while threads are still calling in: they must see DRYDB_OK or
 * DRYDB_CLOSED, never a crash. */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "testutil.h"

#define THREADS 8

static drydb_db *db;
static int iters;
static volatile int stop;
static int started; /* racers that got one answer; under __atomic builtins */

static void check_val(const uint8_t *v, size_t vl, int64_t i) {
    uint8_t want[128];
    size_t wl = tu_val(i, want);
    CHECK(vl == wl && memcmp(v, want, wl) == 0);
}

static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    const char *names[] = {"ints", "zstd", "s2", "dict"};
    drydb_table *t;
    OK(drydb_table_open(db, names[id % 4], &t));
    uint32_t seed = (uint32_t)id * 2654435761u;
    for (int it = 0; it < iters; it++) {
        seed = seed * 1664525u + 1013904223u;
        int64_t i = (int64_t)(seed % TU_ROWS);
        uint8_t k[8];
        const uint8_t *v;
        size_t vl;
        drydb_key_int64(2 * i, k);
        OK(drydb_get(t, k, 8, &v, &vl));
        check_val(v, vl, i);

        enum { N = 32 };
        uint8_t keys[N * 8], found[N];
        size_t klens[N], vlens[N];
        const uint8_t *vals[N];
        for (int j = 0; j < N; j++) {
            drydb_key_int64((2 * i + 3 * j) % (2 * TU_ROWS), keys + 8 * j);
            klens[j] = 8;
        }
        OK(drydb_get_many(t, N, keys, klens, vals, vlens, found));
        for (int j = 0; j < N; j++) {
            int64_t x = (2 * i + 3 * j) % (2 * TU_ROWS);
            CHECK(found[j] == (x % 2 == 0));
            if (found[j]) check_val(vals[j], vlens[j], x / 2);
        }

        drydb_cursor *c;
        OK(drydb_cursor_open(t, k, 8, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &c));
        const uint8_t *ks[16], *vs[16];
        size_t kls[16], vls[16], n;
        int rc = drydb_cursor_next_batch(c, 0, 16, ks, kls, vs, vls, &n);
        OK(rc);
        for (size_t j = 0; j < n; j++) {
            CHECK(drydb_key_to_int64(ks[j]) == 2 * (i + (int64_t)j));
            check_val(vs[j], vls[j], i + (int64_t)j);
        }
        if (drydb_cursor_prev(c) == DRYDB_OK) {
            const uint8_t *ck;
            size_t ckl;
            OK(drydb_cursor_get(c, &ck, &ckl, &v, &vl));
            check_val(v, vl, drydb_key_to_int64(ck) / 2);
        }
        OK(drydb_cursor_close(c));
    }
    return NULL;
}

/* Calls in a loop until the database goes away under it. */
static int compressed; /* the racers' table is compressed (set before they start) */

static void *racer(void *arg) {
    drydb_table *t = arg;
    uint8_t k[8];
    const uint8_t *v;
    size_t vl;
    long ok = 0;
    for (int64_t i = 0; !stop; i = (i + 1) % TU_ROWS) {
        drydb_key_int64(2 * i, k);
        int rc = drydb_get(t, k, 8, &v, &vl);
        if (rc == DRYDB_CLOSED) break;
        OK(rc);
        /* A value of an uncompressed table points into the mapping, which
         * drydb_close (racing in main) may unmap at any moment: reading it
         * then would break the header's lifetime rule, not test the
         * library. Compressed values are copies in this thread's buffer. */
        if (compressed) check_val(v, vl, i);
        if (ok++ == 0) __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
        drydb_cursor *c;
        rc = drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c);
        if (rc == DRYDB_CLOSED) break;
        OK(rc);
        rc = drydb_cursor_next(c);
        CHECK(rc == DRYDB_OK || rc == DRYDB_CLOSED);
        rc = drydb_cursor_close(c);
        CHECK(rc == DRYDB_OK);
    }
    CHECK(ok > 0);
    return NULL;
}

int main(void) {
    iters = tu_under_valgrind() ? 100 : 3000;
    char *path = tu_path("sample.drydb");
    tu_sample_file(path);
    OK(drydb_open(path, 0, 1 << 20, &db)); /* small cache: evictions under load */
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) == 0);
    for (int i = 0; i < THREADS; i++) CHECK(pthread_join(th[i], NULL) == 0);
    struct drydb_cache_stats cs;
    OK(drydb_cache_stats(db, &cs));
    CHECK(cs.hits > 0 && cs.misses > 0);
    OK(drydb_close(db));

    /* close while others call in */
    for (int round = 0; round < 3; round++) {
        OK(drydb_open(path, 0, 0, &db));
        drydb_table *t;
        OK(drydb_table_open(db, round % 2 ? "zstd" : "ints", &t));
        compressed = round % 2;
        stop = 0;
        __atomic_store_n(&started, 0, __ATOMIC_SEQ_CST);
        for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, racer, t) == 0);
        /* close only once every thread is calling in */
        while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < THREADS) sched_yield();
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        OK(drydb_close(db));
        stop = 1;
        for (int i = 0; i < THREADS; i++) CHECK(pthread_join(th[i], NULL) == 0);
    }
    free(path);
    printf("test_threads: ok\n");
    return 0;
}
