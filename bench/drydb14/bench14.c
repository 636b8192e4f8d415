/* drydb's C API reading a DryDB 1.4 file, measured the way rust/src/bin/bench.rs measures the
 * Rust crate drydb 0.1.0+drydb1.4 on the same file (bench10k_p4096.drydb: 10,000 i64 keys
 * 0..9999, values "value-%07d", page size 4096, written by that crate):
 *
 *   a   get, keys i*10 (i = 0..999), replayed
 *   b   get, 1000 xorshift64 keys (seed 0x9E3779B97F4A7C15) % N, replayed
 *   b2  get, 2^20-key xorshift64 stream (seed 0xD1B54A32D192ED03) % N
 *   c   scan of 100 consecutive rows [start, start+99], start ~ xorshift (seed 0x2545F4914F6CDD1D)
 *       % (N-99): key and value of every row (one drydb_range call of up to 100 rows)
 *   d   count [lo, lo+7999], lo ~ xorshift (seed 0x853C49E6748FEA9B) % (N-7999)
 *   f   drydb_open + table + 1 get + drydb_close (translation of the 1.4 file included)
 *   g   drydb_get_many of the 1000 keys of b in one call (per key; the crate has no batch call)
 *
 * Every get adds val_digest(first byte, last byte, length) to a sink. Batches of 1000 ops (a, b,
 * b2, g), 100 scans (c), 10 counts (d), 1 open (f); calibrated to >= 50 ms, one warm-up rep, then
 * REPS reps each >= REP_SEC; per-op time = rep time / ops; median [min-max] of wall clock and of
 * the calling thread's CPU time.
 *
 * Usage: bench14 FILE [REPS] [REP_SEC]     (bench/drydb14/run builds and runs both sides) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drydb.h"

#define N 10000u
#define BATCH 1000
#define SCAN_ROWS 100u
#define COUNT_ROWS 8000u

static const char *path;
static drydb_table *tbl;
static uint64_t seqk[BATCH], randk[BATCH], scank[BATCH], cntk[BATCH], *widek;
static size_t pos;

static double now(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void gen_rand(uint64_t *out, size_t n, uint64_t x, uint64_t mod) {
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = x % mod;
    }
}

static uint64_t val_digest(const uint8_t *v, size_t n) {
    return n ? v[0] + ((uint64_t)v[n - 1] << 8) + ((uint64_t)n << 16) : 0;
}

static void die(int rc, const char *what) {
    fprintf(stderr, "%s: %s (%s)\n", what, drydb_strerror(rc), drydb_errmsg());
    exit(1);
}

static uint64_t get_digest(uint64_t k) {
    uint8_t key[8];
    const uint8_t *v;
    size_t n;
    drydb_key_int64((int64_t)k, key);
    int rc = drydb_get(tbl, key, 8, &v, &n);
    if (rc == DRYDB_NOTFOUND) return 0;
    if (rc) die(rc, "get");
    return val_digest(v, n);
}

static uint64_t batch_gets(const uint64_t *keys, size_t nkeys) {
    uint64_t s = 0;
    for (int i = 0; i < BATCH; i++) {
        s += get_digest(keys[pos]);
        pos = (pos + 1) % nkeys;
    }
    return s;
}

static uint64_t batch_a(void) { return batch_gets(seqk, BATCH); }
static uint64_t batch_b(void) { return batch_gets(randk, BATCH); }
static uint64_t batch_b2(void) { return batch_gets(widek, 1u << 20); }

static uint64_t batch_c(void) {
    uint64_t s = 0;
    const uint8_t *ks[SCAN_ROWS], *vs[SCAN_ROWS];
    size_t kl[SCAN_ROWS], vl[SCAN_ROWS], n;
    for (int i = 0; i < 100; i++) {
        uint64_t st = scank[pos];
        pos = (pos + 1) % BATCH;
        uint8_t lo[8], hi[8];
        drydb_key_int64((int64_t)st, lo);
        drydb_key_int64((int64_t)(st + SCAN_ROWS - 1), hi);
        int rc = drydb_range(tbl, lo, 8, DRYDB_INCLUSIVE, hi, 8, DRYDB_INCLUSIVE, 0, SCAN_ROWS, ks, kl, vs, vl, &n);
        if (rc) die(rc, "range");
        if (n != SCAN_ROWS) die(DRYDB_INTERNAL, "range returned too few rows");
        for (size_t j = 0; j < n; j++) s += (uint64_t)drydb_key_to_int64(ks[j]) + val_digest(vs[j], vl[j]);
    }
    return s;
}

static uint64_t batch_d(void) {
    uint64_t s = 0, c;
    for (int i = 0; i < 10; i++) {
        uint64_t lo = cntk[pos];
        pos = (pos + 1) % BATCH;
        uint8_t a[8], b[8];
        drydb_key_int64((int64_t)lo, a);
        drydb_key_int64((int64_t)(lo + COUNT_ROWS - 1), b);
        int rc = drydb_count(tbl, a, 8, DRYDB_INCLUSIVE, b, 8, DRYDB_INCLUSIVE, &c);
        if (rc) die(rc, "count");
        s += c;
    }
    return s;
}

static uint64_t batch_f(void) {
    drydb_db *db;
    drydb_table *t;
    int rc = drydb_open(path, 0, 0, &db);
    if (rc) die(rc, "open");
    if ((rc = drydb_table_open(db, "items", &t))) die(rc, "table");
    drydb_table *saved = tbl;
    tbl = t;
    uint64_t s = get_digest(randk[pos]);
    pos = (pos + 1) % BATCH;
    tbl = saved;
    drydb_close(db);
    return s;
}

static uint8_t manykeys[BATCH * 8];
static size_t manylens[BATCH];
static const uint8_t *manyvals[BATCH];
static size_t manyvlens[BATCH];
static uint8_t manyfound[BATCH];

static uint64_t batch_g(void) {
    int rc = drydb_get_many(tbl, BATCH, manykeys, manylens, manyvals, manyvlens, manyfound);
    if (rc) die(rc, "get_many");
    uint64_t s = 0;
    for (int i = 0; i < BATCH; i++) s += val_digest(manyvals[i], manyvlens[i]);
    return s;
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static volatile uint64_t sink;

static void measure(const char *label, int reps, double rep_sec, int per_batch, uint64_t (*batch)(void)) {
    pos = 0;
    double t0 = now(CLOCK_MONOTONIC), t;
    uint64_t nb = 0;
    while ((t = now(CLOCK_MONOTONIC)) - t0 < 0.05e9) {
        sink += batch();
        nb++;
    }
    double per_batch_ns = (t - t0) / nb;
    uint64_t per_rep = (uint64_t)(rep_sec * 1e9 / per_batch_ns) + 1;
    for (uint64_t i = 0; i < per_rep; i++) sink += batch(); /* warm-up rep */
    double wall[64], cpu[64];
    for (int r = 0; r < reps; r++) {
        double c0 = now(CLOCK_THREAD_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
        for (uint64_t i = 0; i < per_rep; i++) sink += batch();
        double ops = (double)per_rep * per_batch;
        wall[r] = (now(CLOCK_MONOTONIC) - w0) / ops;
        cpu[r] = (now(CLOCK_THREAD_CPUTIME_ID) - c0) / ops;
    }
    qsort(wall, reps, sizeof *wall, cmpd);
    qsort(cpu, reps, sizeof *cpu, cmpd);
    double wm = reps % 2 ? wall[reps / 2] : (wall[reps / 2 - 1] + wall[reps / 2]) / 2;
    double cm = reps % 2 ? cpu[reps / 2] : (cpu[reps / 2 - 1] + cpu[reps / 2]) / 2;
    printf("%-34s wall %10.1f [%.1f-%.1f] ns/op   thread-CPU %10.1f [%.1f-%.1f] ns/op   (reps=%d, ops/rep=%llu)\n",
           label, wm, wall[0], wall[reps - 1], cm, cpu[0], cpu[reps - 1], reps, (unsigned long long)(per_rep * per_batch));
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench14 FILE [REPS] [REP_SEC]\n");
        return 2;
    }
    path = argv[1];
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    double rep_sec = argc > 3 ? atof(argv[3]) : 0.25;
    if (reps < 1 || reps > 64) reps = 7;
    drydb_db *db;
    int rc = drydb_open(path, 0, 0, &db);
    if (rc) die(rc, "open");
    if ((rc = drydb_table_open(db, "items", &tbl))) die(rc, "table");
    /* check like the crate's bench does, which also warms every page */
    for (uint64_t k = 0; k < N; k++) {
        char want[32];
        int n = snprintf(want, sizeof want, "value-%07llu", (unsigned long long)k);
        if (get_digest(k) != val_digest((const uint8_t *)want, n)) die(DRYDB_INTERNAL, "wrong value");
    }
    if (get_digest(N + 7)) die(DRYDB_INTERNAL, "absent key found");

    for (int i = 0; i < BATCH; i++) seqk[i] = (uint64_t)i * (N / BATCH);
    gen_rand(randk, BATCH, 0x9E3779B97F4A7C15ull, N);
    widek = malloc(sizeof *widek << 20);
    gen_rand(widek, 1u << 20, 0xD1B54A32D192ED03ull, N);
    gen_rand(scank, BATCH, 0x2545F4914F6CDD1Dull, N - SCAN_ROWS + 1);
    gen_rand(cntk, BATCH, 0x853C49E6748FEA9Bull, N - COUNT_ROWS + 1);
    for (int i = 0; i < BATCH; i++) {
        drydb_key_int64((int64_t)randk[i], manykeys + 8 * i);
        manylens[i] = 8;
    }

    measure("a  get, keys i*10", reps, rep_sec, BATCH, batch_a);
    measure("b  get, 1000 xorshift keys", reps, rep_sec, BATCH, batch_b);
    measure("b2 get, 2^20-key xorshift stream", reps, rep_sec, BATCH, batch_b2);
    measure("c  scan 100 rows (per scan)", reps, rep_sec, 100, batch_c);
    measure("d  count 8000 rows (per count)", reps, rep_sec, 10, batch_d);
    measure("f  open + 1 get + close (per open)", reps < 5 ? reps : 5, rep_sec, 1, batch_f);
    measure("g  get_many 1000 keys (per key)", reps, rep_sec, BATCH, batch_g);
    drydb_close(db);
    free(widek);
    return 0;
}
