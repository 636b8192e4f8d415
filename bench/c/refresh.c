/* bench/c/refresh.c - hot swap: how long drydb_refresh takes on the calling
 * thread, and the longest a reader on another thread waits for one get
 * meanwhile (issue 19's targets: <= 1 ms; never blocked longer than one get).
 *
 *   refresh ROWS DIR   -> one JSON line on stdout
 *
 * Two files of ROWS rows (int64 keys 0..ROWS-1, 16-byte values) are built
 * once; each round hard-links one of them to a temporary name and renames it
 * over the path (a new file at the path, as a builder's rename makes), then
 * times drydb_refresh. One reader thread gets random keys throughout and
 * records its longest get: first for as long without refreshes (the quiet
 * figure: preemption and first touches of pages), then while refreshing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "drydb.h"

#define ROUNDS 21

static drydb_table *tbl;
static int64_t rows;
static volatile int phase; /* 0 quiet, 1 refreshing, 2 stop */
static int64_t worst[2], gets[2];

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what, int rc) {
    fprintf(stderr, "refresh bench: %s: %s (%s)\n", what, drydb_strerror(rc), drydb_errmsg());
    exit(1);
}

static void build(const char *path, int gen) {
    drydb_builder *b;
    drydb_tbuilder *tb;
    int rc;
    if ((rc = drydb_builder_new(0, 0, &b)) || (rc = drydb_builder_table(b, "t", DRYDB_KEY_INT64, NULL, 0, 0, 0, 0, &tb)))
        die("builder", rc);
    for (int64_t k = 0; k < rows; k++) {
        uint8_t key[8], val[16];
        drydb_key_int64(k, key);
        memset(val, 'a' + gen, sizeof val);
        memcpy(val, &k, sizeof k);
        if ((rc = drydb_builder_append(tb, key, 8, val, sizeof val))) die("append", rc);
    }
    if ((rc = drydb_builder_build_file(b, path))) die("build", rc);
    drydb_builder_free(b);
}

static void *reader(void *arg) {
    (void)arg;
    uint32_t seed = 1;
    while (phase != 2) {
        int p = phase;
        seed = seed * 1664525u + 1013904223u;
        uint8_t key[8];
        const uint8_t *v;
        size_t vl;
        drydb_key_int64((int64_t)(seed % (uint64_t)rows), key);
        int64_t t0 = now_ns();
        int rc = drydb_get(tbl, key, 8, &v, &vl);
        int64_t d = now_ns() - t0;
        if (rc != DRYDB_OK) die("get", rc);
        if (d > worst[p]) worst[p] = d;
        gets[p]++;
    }
    return NULL;
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void sleep_ms(int ms) {
    struct timespec ts = {0, (long)ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: refresh ROWS DIR\n");
        return 2;
    }
    rows = atoll(argv[1]);
    char a[4096], b[4096], path[4096], tmp[4096];
    snprintf(a, sizeof a, "%s/refresh-a.drydb", argv[2]);
    snprintf(b, sizeof b, "%s/refresh-b.drydb", argv[2]);
    snprintf(path, sizeof path, "%s/refresh-live.drydb", argv[2]);
    snprintf(tmp, sizeof tmp, "%s/refresh-live.tmp", argv[2]);
    build(a, 0);
    build(b, 1);
    unlink(path);
    if (link(a, path) != 0) { perror("link"); return 1; }
    drydb_db *db;
    int rc;
    if ((rc = drydb_open(path, 0, 0, &db)) || (rc = drydb_table_open(db, "t", &tbl))) die("open", rc);
    pthread_t th;
    pthread_create(&th, NULL, reader, NULL);
    sleep_ms(20 * ROUNDS);
    phase = 1;
    int64_t took[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        unlink(tmp);
        if (link(i % 2 ? a : b, tmp) != 0 || rename(tmp, path) != 0) { perror("link/rename"); return 1; }
        int changed = 0;
        int64_t t0 = now_ns();
        if ((rc = drydb_refresh(db, &changed))) die("refresh", rc);
        took[i] = now_ns() - t0;
        if (!changed) die("refresh did not change the version", 0);
        sleep_ms(20);
    }
    phase = 2;
    pthread_join(th, NULL);
    drydb_close(db);
    unlink(a);
    unlink(b);
    unlink(path);
    qsort(took, ROUNDS, sizeof took[0], cmp64);
    printf("{\"bench\": \"refresh\", \"lang\": \"c\", \"rows\": %lld, \"rounds\": %d, \"refresh_median_ns\": %lld, "
           "\"refresh_max_ns\": %lld, \"get_max_quiet_ns\": %lld, \"get_max_refreshing_ns\": %lld, "
           "\"gets_quiet\": %lld, \"gets_refreshing\": %lld}\n",
           (long long)rows, ROUNDS, (long long)took[ROUNDS / 2], (long long)took[ROUNDS - 1], (long long)worst[0],
           (long long)worst[1], (long long)gets[0], (long long)gets[1]);
    return 0;
}
