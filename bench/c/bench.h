/* bench.h - the small timing helper shared by every C benchmark program.
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC). A shape is run `reps` times; each
 * repetition times `ops` operations, and the figure reported is the median of
 * the per-repetition ns/op. `ops` is calibrated once per shape so that one
 * repetition lasts about BENCH_TARGET_MS milliseconds (default 25).
 */
#ifndef DRYDB_BENCH_H
#define DRYDB_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline double bench_median(const double *v, int n) {
    double tmp[64];
    if (n > 64) n = 64;
    memcpy(tmp, v, sizeof(double) * (size_t)n);
    qsort(tmp, (size_t)n, sizeof(double), bench_cmp_double);
    return (n & 1) ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2.0;
}

/* The LCG of the C# DryDB benchmarks: seed = seed*1664525 + 1013904223 (uint32). */
static inline uint32_t bench_lcg(uint32_t *seed) {
    *seed = *seed * 1664525u + 1013904223u;
    return *seed;
}

/* big-endian uint64 <-> 8 bytes: keys compare as bytes (memcmp) the way
 * these words compare as unsigned integers (the array floor uses that). */
static inline uint64_t bench_be64(const uint8_t in[8]) {
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u = (u << 8) | in[i];
    return u;
}

/* Emit one JSON line. data: the key shape (bench/shapes.py); reps_ns:
 * per-repetition ns/op. extra: "" or ",\"k\":v..." */
static inline void bench_emit(const char *lang, const char *store, const char *data,
                              const char *shape, long rows, const double *reps_ns, int nreps,
                              long ops, const char *extra) {
    double med = bench_median(reps_ns, nreps);
    printf("{\"lang\":\"%s\",\"store\":\"%s\",\"data\":\"%s\",\"shape\":\"%s\",\"rows\":%ld,"
           "\"ns_per_op\":%.2f,\"ops_per_rep\":%ld,\"reps\":[",
           lang, store, data, shape, rows, med, ops);
    for (int i = 0; i < nreps; i++) printf("%s%.2f", i ? "," : "", reps_ns[i]);
    printf("]%s}\n", extra ? extra : "");
    fflush(stdout);
}

#endif
