/* driver.c - the benchmark shapes, shared by every C store program.
 *
 * usage: bench_<store> ROWS DATADIR [shape,shape,...]
 * env:   BENCH_REPS (5), BENCH_BUILD_REPS (3), BENCH_TARGET_MS (25)
 * Prints one JSON line per shape on stdout (see bench.h: bench_emit).
 */
#define _XOPEN_SOURCE 700
#include "bench.h"
#include "store.h"

#include <ftw.h>
#include <sys/stat.h>

#define STREAM_KEYS (1u << 20)
#define BATCH 256

static const struct bench_store *S = &bench_store_impl;
static long N;
static void *H;
static char path[4096];
static uint8_t *stream;        /* STREAM_KEYS encoded keys */
static size_t stream_pos;
static volatile uint64_t sink; /* keeps results alive */
static int reps = 5, build_reps = 3;
static double target_ns = 25e6;

static void die(const char *what) {
    fprintf(stderr, "bench_%s: %s (rows=%ld)\n", S->name, what, N);
    exit(1);
}

/* ---- shapes: each runs `ops` operations ---- */

static void shape_get_one(long ops) {
    uint8_t k[8]; bench_key(123, k);
    const uint8_t *v; size_t vl; uint64_t s = 0;
    for (long i = 0; i < ops; i++) { if (S->get(H, k, 8, &v, &vl) == 1) s += vl + v[12]; }
    sink += s;
}

/* repeating random keys: the same 1000-key LCG sequence (seed 1) each batch */
static void shape_get_random(long ops) {
    uint8_t k[8]; const uint8_t *v; size_t vl; uint64_t s = 0;
    uint32_t seed = 1;
    for (long i = 0; i < ops; i++) {
        if (i % 1000 == 0) seed = 1;
        bench_key((int64_t)(bench_lcg(&seed) % (uint32_t)N), k);
        if (S->get(H, k, 8, &v, &vl) == 1) s += vl + v[12];
    }
    sink += s;
}

/* non-repeating stream: consecutive keys of the pre-generated 2^20 stream,
 * continuing across repetitions (each key used once per pass) */
static void shape_get_stream(long ops) {
    const uint8_t *v; size_t vl; uint64_t s = 0;
    for (long i = 0; i < ops; i++) {
        if (S->get(H, stream + 8 * stream_pos, 8, &v, &vl) == 1) s += vl + v[12];
        if (++stream_pos == STREAM_KEYS) stream_pos = 0;
    }
    sink += s;
}

/* the same stream through get_many, BATCH keys per call; ops counts keys */
static void shape_get_many_stream(long ops) {
    static const uint8_t *vals[BATCH]; static size_t vlens[BATCH];
    uint64_t s = 0;
    for (long i = 0; i < ops; i += BATCH) {
        if (stream_pos + BATCH > STREAM_KEYS) stream_pos = 0;
        s += (uint64_t)S->get_many(H, BATCH, stream + 8 * stream_pos, 8, vals, vlens);
        s += vlens[BATCH - 1];
        stream_pos += BATCH;
    }
    sink += s;
}

static void shape_scan_100(long ops) {
    uint8_t lo[8], hi[8]; bench_key(2000, lo); bench_key(2099, hi);
    uint64_t s = 0, bytes = 0;
    for (long i = 0; i < ops; i++) s += (uint64_t)S->scan(H, lo, hi, 8, &bytes);
    sink += s + bytes;
}

static void shape_count_8000(long ops) {
    uint8_t lo[8], hi[8]; bench_key(1000, lo); bench_key(8999, hi);
    uint64_t s = 0;
    for (long i = 0; i < ops; i++) s += (uint64_t)S->count(H, lo, hi, 8);
    sink += s;
}

static void shape_open_get(long ops) {
    uint8_t k[8]; bench_key(123, k);
    const uint8_t *v; size_t vl; uint64_t s = 0;
    for (long i = 0; i < ops; i++) {
        void *h = S->open(path);
        if (!h) die("open failed");
        if (S->get(h, k, 8, &v, &vl) == 1) s += vl + v[12];
        S->close(h);
    }
    sink += s;
}

/* ---- timing ---- */

static double time_ops(void (*fn)(long), long ops) {
    uint64_t t0 = bench_now_ns();
    fn(ops);
    return (double)(bench_now_ns() - t0);
}

static void run(const char *shape, void (*fn)(long), long granule, const char *extra) {
    long ops = granule;
    double t = time_ops(fn, ops); /* warm-up + calibration */
    while (t < target_ns / 10 && ops < (1L << 40)) { ops *= 4; t = time_ops(fn, ops); }
    ops = (long)((double)ops * target_ns / (t > 1 ? t : 1));
    ops = (ops / granule) * granule;
    if (ops < granule) ops = granule;
    double r[64];
    for (int i = 0; i < reps; i++) r[i] = time_ops(fn, ops) / (double)ops;
    bench_emit("c", S->name, shape, N, r, reps, ops, extra);
}

static long long tree_bytes;
static int add_size(const char *p, const struct stat *st, int flag, struct FTW *f) {
    (void)p; (void)f;
    if (flag == FTW_F) tree_bytes += st->st_size;
    return 0;
}
static void rm_tree(const char *p) {
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s-lock'", p, p);
    if (system(cmd) != 0) die("rm failed");
}

static int wanted(const char *shapes, const char *name) {
    if (!shapes) return 1;
    size_t n = strlen(name);
    for (const char *p = shapes; (p = strstr(p, name)); p += n)
        if ((p == shapes || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}

static void json_escape_into(char *out, size_t cap, const char *s) {
    size_t j = 0;
    for (; *s && j + 2 < cap; s++) {
        if (*s == '"' || *s == '\\') out[j++] = '\\';
        out[j++] = *s;
    }
    out[j] = 0;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s ROWS DATADIR [shapes]\n", argv[0]); return 2; }
    N = atol(argv[1]);
    const char *shapes = argc > 3 ? argv[3] : NULL;
    if (getenv("BENCH_REPS")) reps = atoi(getenv("BENCH_REPS"));
    if (getenv("BENCH_BUILD_REPS")) build_reps = atoi(getenv("BENCH_BUILD_REPS"));
    if (getenv("BENCH_TARGET_MS")) target_ns = atof(getenv("BENCH_TARGET_MS")) * 1e6;
    if (reps < 1 || reps > 64) reps = 5;
    if (build_reps < 1 || build_reps > 64) build_reps = 3;
    snprintf(path, sizeof path, "%s/c-%s-%ld.db", argv[2], S->name, N);

    /* build input (not timed) */
    uint8_t *keys = malloc((size_t)N * 8), *vals = malloc((size_t)N * BENCH_VLEN);
    if (!keys || !vals) die("out of memory");
    for (long i = 0; i < N; i++) { bench_key(i, keys + 8 * i); bench_value(i, vals + BENCH_VLEN * i); }

    /* build: always done (it makes the file the other shapes read) */
    double r[64];
    int br = wanted(shapes, "build") ? build_reps : 1;
    for (int i = 0; i < br; i++) {
        rm_tree(path);
        uint64_t t0 = bench_now_ns();
        if (S->build(path, (size_t)N, keys, 8, vals, BENCH_VLEN) != 0) die("build failed");
        r[i] = (double)(bench_now_ns() - t0) / (double)N;
    }
    tree_bytes = 0;
    nftw(path, add_size, 16, FTW_PHYS);
    if (wanted(shapes, "build")) {
        char extra[1024], cfg[600];
        json_escape_into(cfg, sizeof cfg, S->config);
        snprintf(extra, sizeof extra,
                 ",\"rows_per_s\":%.0f,\"file_bytes\":%lld,\"version\":\"%s\",\"config\":\"%s\"",
                 1e9 / bench_median(r, br), tree_bytes, S->version ? S->version() : "", cfg);
        bench_emit("c", S->name, "build", N, r, br, N, extra);
    }
    free(keys); free(vals);

    /* correctness checks before any timing */
    H = S->open(path);
    if (!H) die("open failed");
    uint8_t k[8], want[BENCH_VLEN], lo[8], hi[8];
    const uint8_t *v; size_t vl;
    bench_key(123, k); bench_value(123, want);
    if (S->get(H, k, 8, &v, &vl) != 1 || vl != BENCH_VLEN || memcmp(v, want, vl)) die("get(123) wrong");
    bench_key(N, k);
    if (S->get(H, k, 8, &v, &vl) != 0) die("get(N) should be absent");
    bench_key(N - 1, k); bench_value(N - 1, want);
    if (S->get(H, k, 8, &v, &vl) != 1 || memcmp(v, want, BENCH_VLEN)) die("get(N-1) wrong");
    if (S->scan) {
        uint64_t s = 0; bench_key(2000, lo); bench_key(2099, hi);
        uint64_t want_s = 0;
        for (int64_t i = 2000; i <= 2099; i++) { bench_value(i, want); want_s += BENCH_VLEN + want[BENCH_VLEN - 1]; }
        if (S->scan(H, lo, hi, 8, &s) != 100 || s != want_s) die("scan [2000,2099] wrong");
    }
    if (S->count) {
        bench_key(1000, lo); bench_key(8999, hi);
        if (S->count(H, lo, hi, 8) != 8000) die("count [1000,8999] wrong");
    }

    /* the stream of 2^20 random keys (LCG, seed 42) */
    stream = malloc((size_t)STREAM_KEYS * 8);
    uint32_t seed = 42;
    for (uint32_t i = 0; i < STREAM_KEYS; i++) bench_key((int64_t)(bench_lcg(&seed) % (uint32_t)N), stream + 8 * (size_t)i);
    if (S->get_many) {
        const uint8_t *vs[BATCH]; size_t vls[BATCH];
        if (S->get_many(H, BATCH, stream, 8, vs, vls) != BATCH) die("get_many wrong");
        for (int i = 0; i < BATCH; i++) {
            bench_value(bench_key_decode(stream + 8 * i), want);
            if (vls[i] != BENCH_VLEN || memcmp(vs[i], want, BENCH_VLEN)) die("get_many value wrong");
        }
    }

    if (wanted(shapes, "get_one")) run("get_one", shape_get_one, 1000, "");
    if (wanted(shapes, "get_random")) run("get_random", shape_get_random, 1000, "");
    if (wanted(shapes, "get_stream")) { stream_pos = 0; run("get_stream", shape_get_stream, 1000, ""); }
    if (S->get_many && wanted(shapes, "get_many_stream")) {
        stream_pos = 0; run("get_many_stream", shape_get_many_stream, BATCH, ",\"batch\":256");
    }
    if (S->scan && wanted(shapes, "scan_100")) run("scan_100", shape_scan_100, 1, "");
    if (S->count && wanted(shapes, "count_8000")) run("count_8000", shape_count_8000, 1, "");
    S->close(H);
    H = NULL;
    if (wanted(shapes, "open_get")) run("open_get", shape_open_get, 1, "");
    if (sink == 42) fprintf(stderr, "\n");
    return 0;
}
