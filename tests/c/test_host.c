/* Host-process hazards seen from C: the first call from many short-lived
 * threads (each binds a new M in the Go runtime), and dlclose, which must
 * leave the library (and its runtime threads) in place so that a second
 * dlopen works. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

#include "testutil.h"

static drydb_table *tbl;

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

struct first_call {
    int64_t i;
    double first_ns, second_ns;
};

static void *one_call(void *arg) {
    struct first_call *fc = arg;
    uint8_t k[8], want[128];
    const uint8_t *v;
    size_t vl;
    drydb_key_int64(2 * fc->i, k);
    double t0 = now_ns();
    OK(drydb_get(tbl, k, 8, &v, &vl));
    double t1 = now_ns();
    OK(drydb_get(tbl, k, 8, &v, &vl));
    fc->first_ns = t1 - t0;
    fc->second_ns = now_ns() - t1;
    size_t wl = tu_val(fc->i, want);
    CHECK(vl == wl && memcmp(v, want, wl) == 0);
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void short_lived_threads(void) {
    enum { N = 200 };
    static struct first_call fc[N];
    double firsts[N], seconds[N];
    for (int i = 0; i < N; i++) {
        pthread_t th;
        fc[i].i = i * 7 % TU_ROWS;
        CHECK(pthread_create(&th, NULL, one_call, &fc[i]) == 0);
        CHECK(pthread_join(th, NULL) == 0);
        firsts[i] = fc[i].first_ns;
        seconds[i] = fc[i].second_ns;
    }
    qsort(firsts, N, sizeof firsts[0], cmp_double);
    qsort(seconds, N, sizeof seconds[0], cmp_double);
    printf("test_host: %d short-lived threads, all answers right; median first call %.1f us, "
           "second call %.0f ns\n", N, firsts[N / 2] / 1000, seconds[N / 2]);
}

static void dlclose_then_reopen(const char *lib, const char *path) {
    for (int round = 0; round < 3; round++) {
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        CHECK(h != NULL);
        int (*open_fn)(const char *, uint32_t, int64_t, drydb_db **) = (int (*)(const char *, uint32_t, int64_t, drydb_db **))dlsym(h, "drydb_open");
        int (*close_fn)(drydb_db *) = (int (*)(drydb_db *))dlsym(h, "drydb_close");
        int (*count_fn)(drydb_db *, size_t *) = (int (*)(drydb_db *, size_t *))dlsym(h, "drydb_table_count");
        CHECK(open_fn && close_fn && count_fn);
        drydb_db *db;
        size_t n = 0;
        OK(open_fn(path, 0, 0, &db));
        OK(count_fn(db, &n));
        CHECK(n == 7);
        OK(close_fn(db));
        /* The library is marked NODELETE: this does not unload it. */
        dlclose(h);
    }
    printf("test_host: dlopen/dlclose three times: the library stays loaded and works\n");
}

int main(void) {
    char *path = tu_path("host.drydb");
    tu_sample_file(path);
    drydb_db *db;
    OK(drydb_open(path, 0, 0, &db));
    OK(drydb_table_open(db, "ints", &tbl));
    short_lived_threads();
    OK(drydb_close(db));
    const char *lib = getenv("DRYDB_LIBRARY");
    dlclose_then_reopen(lib ? lib : "libdrydb.so", path);
    free(path);
    printf("test_host: ok\n");
    return 0;
}
