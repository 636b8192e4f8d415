/* driver.c - the benchmark operations, shared by every C store program.
 *
 * usage: bench_<store> ROWSFILE DATADIR [op,op,...]
 *   ROWSFILE: rows of one key shape, written by bench/shapes.py
 * env:   BENCH_REPS (5), BENCH_BUILD_REPS (3), BENCH_TARGET_MS (25)
 * Prints one JSON line per operation on stdout (see bench.h: bench_emit).
 */
#define _XOPEN_SOURCE 700
#include "bench.h"
#include "store.h"

#include <ftw.h>
#include <sys/stat.h>

#define STREAM_KEYS (1u << 20)
#define RANDOM_KEYS 1000
#define BATCH 256
#define MAX_KLEN 16

static const struct bench_store *S = &bench_store_impl;
static long N;
static void *H;
static char path[4096];
static char data[17];          /* the shape's name */
static size_t klen;
static uint32_t kind;          /* enum bench_kind */
static const uint8_t *keys, *vals, *miss;
static size_t *voff;           /* row i's value: vals[voff[i] .. voff[i+1]) */
static uint8_t *rnd;           /* RANDOM_KEYS keys (LCG seed 1), repeating */
static uint8_t *stream;        /* STREAM_KEYS keys (LCG seed 42) */
static size_t stream_pos;
static volatile uint64_t sink; /* keeps results alive */
static int reps = 5, build_reps = 3;
static double target_ns = 25e6;

static void die(const char *what) {
    fprintf(stderr, "bench_%s: %s (%s, rows=%ld)\n", S->name, what, data, N);
    exit(1);
}

static const uint8_t *key(long i) { return keys + klen * (size_t)i; }

/* ---- operations: each runs `ops` of them ---- */

static void op_get_one(long ops) {
    const uint8_t *k = key(123), *v; size_t vl; uint64_t s = 0;
    for (long i = 0; i < ops; i++) { if (S->get(H, k, klen, &v, &vl) == 1) s += vl + v[vl - 1]; }
    sink += s;
}

/* repeating random keys: the same RANDOM_KEYS keys each pass */
static void op_get_random(long ops) {
    const uint8_t *v; size_t vl; uint64_t s = 0;
    for (long i = 0; i < ops; i++) {
        if (S->get(H, rnd + klen * (size_t)(i % RANDOM_KEYS), klen, &v, &vl) == 1) s += vl + v[vl - 1];
    }
    sink += s;
}

/* non-repeating stream: consecutive keys of the pre-generated 2^20 stream,
 * continuing across repetitions (each key used once per pass) */
static void op_get_stream(long ops) {
    const uint8_t *v; size_t vl; uint64_t s = 0;
    for (long i = 0; i < ops; i++) {
        if (S->get(H, stream + klen * stream_pos, klen, &v, &vl) == 1) s += vl + v[vl - 1];
        if (++stream_pos == STREAM_KEYS) stream_pos = 0;
    }
    sink += s;
}

/* the same stream through get_many, BATCH keys per call; ops counts keys */
static void op_get_many_stream(long ops) {
    static const uint8_t *vs[BATCH]; static size_t vls[BATCH];
    uint64_t s = 0;
    for (long i = 0; i < ops; i += BATCH) {
        if (stream_pos + BATCH > STREAM_KEYS) stream_pos = 0;
        s += (uint64_t)S->get_many(H, BATCH, stream + klen * stream_pos, klen, vs, vls);
        s += vls[BATCH - 1];
        stream_pos += BATCH;
    }
    sink += s;
}

/* rows 2000..2099 (by position): 100 rows whatever the key shape */
static void op_scan_100(long ops) {
    uint64_t s = 0, bytes = 0;
    for (long i = 0; i < ops; i++) s += (uint64_t)S->scan(H, key(2000), key(2099), klen, &bytes);
    sink += s + bytes;
}

/* rows 1000..8999 */
static void op_count_8000(long ops) {
    uint64_t s = 0;
    for (long i = 0; i < ops; i++) s += (uint64_t)S->count(H, key(1000), key(8999), klen);
    sink += s;
}

static void op_open_get(long ops) {
    const uint8_t *v; size_t vl; uint64_t s = 0;
    for (long i = 0; i < ops; i++) {
        void *h = S->open(path);
        if (!h) die("open failed");
        if (S->get(h, key(123), klen, &v, &vl) == 1) s += vl + v[vl - 1];
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
    bench_emit("c", S->name, data, shape, N, r, reps, ops, extra);
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

/* Reads a bench/shapes.py file (format in its docstring) into keys, vals,
 * voff and miss; the buffer stays allocated for the program's life. */
static void load_rows(const char *file) {
    FILE *f = fopen(file, "rb");
    if (!f) { fprintf(stderr, "bench_%s: cannot open %s (bench/shapes.py writes it)\n", S->name, file); exit(2); }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(size > 0 ? (size_t)size : 1);
    if (!b || size < 48 || fread(b, 1, (size_t)size, f) != (size_t)size) die("cannot read the rows file");
    fclose(f);
    uint32_t ver, kl; uint64_t n;
    memcpy(&ver, b + 8, 4); memcpy(&kl, b + 12, 4); memcpy(&n, b + 16, 8); memcpy(&kind, b + 40, 4);
    if (memcmp(b, "DRYBENCH", 8) || ver != 1 || (kl != 8 && kl != 16) || kind > BENCH_UUID ||
        n < 9000 || n > (1u << 30))
        die("not a bench/shapes.py rows file of version 1 (or fewer than 9,000 rows)");
    memcpy(data, b + 24, 16);
    N = (long)n; klen = kl;
    miss = b + 48;
    keys = miss + klen;
    const uint8_t *vl = keys + klen * n;
    vals = vl + n;
    voff = malloc(sizeof *voff * (n + 1));
    if (!voff) die("out of memory");
    voff[0] = 0;
    for (uint64_t i = 0; i < n; i++) voff[i + 1] = voff[i] + vl[i];
    if ((size_t)(vals - b) + voff[n] != (size_t)size) die("rows file size does not match its header");
}

static int same_val(long i, const uint8_t *v, size_t vl) {
    return vl == voff[i + 1] - voff[i] && memcmp(v, vals + voff[i], vl) == 0;
}

static void fill_keys(uint8_t *out, size_t count, uint32_t seed) {
    for (size_t i = 0; i < count; i++) memcpy(out + klen * i, key(bench_lcg(&seed) % (uint32_t)N), klen);
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s ROWSFILE DATADIR [ops]\n", argv[0]); return 2; }
    const char *shapes = argc > 3 ? argv[3] : NULL;
    if (getenv("BENCH_REPS")) reps = atoi(getenv("BENCH_REPS"));
    if (getenv("BENCH_BUILD_REPS")) build_reps = atoi(getenv("BENCH_BUILD_REPS"));
    if (getenv("BENCH_TARGET_MS")) target_ns = atof(getenv("BENCH_TARGET_MS")) * 1e6;
    if (reps < 1 || reps > 64) reps = 5;
    if (build_reps < 1 || build_reps > 64) build_reps = 3;
    load_rows(argv[1]);
    snprintf(path, sizeof path, "%s/c-%s-%s-%ld.db", argv[2], S->name, data, N);

    /* build: always done (it makes the file the other operations read) */
    double r[64];
    int br = wanted(shapes, "build") ? build_reps : 1;
    for (int i = 0; i < br; i++) {
        rm_tree(path);
        uint64_t t0 = bench_now_ns();
        if (S->build(path, (enum bench_kind)kind, (size_t)N, keys, klen, vals, voff) != 0) die("build failed");
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
        bench_emit("c", S->name, data, "build", N, r, br, N, extra);
    }

    /* correctness checks before any timing */
    H = S->open(path);
    if (!H) die("open failed");
    const uint8_t *v; size_t vl;
    if (S->get(H, key(123), klen, &v, &vl) != 1 || !same_val(123, v, vl)) die("get(key 123) wrong");
    if (S->get(H, miss, klen, &v, &vl) != 0) die("get(absent key) should be absent");
    if (S->get(H, key(N - 1), klen, &v, &vl) != 1 || !same_val(N - 1, v, vl)) die("get(key N-1) wrong");
    if (S->scan) {
        uint64_t s = 0, want_s = 0;
        for (long i = 2000; i <= 2099; i++) want_s += voff[i + 1] - voff[i] + vals[voff[i + 1] - 1];
        if (S->scan(H, key(2000), key(2099), klen, &s) != 100 || s != want_s) die("scan [key 2000, key 2099] wrong");
    }
    if (S->count && S->count(H, key(1000), key(8999), klen) != 8000) die("count [key 1000, key 8999] wrong");

    /* the get workloads' keys, drawn from the table's keys by row number */
    rnd = malloc(klen * RANDOM_KEYS);
    stream = malloc(klen * STREAM_KEYS);
    if (!rnd || !stream) die("out of memory");
    fill_keys(rnd, RANDOM_KEYS, 1);
    fill_keys(stream, STREAM_KEYS, 42);
    if (S->get_many) {
        const uint8_t *vs[BATCH]; size_t vls[BATCH];
        if (S->get_many(H, BATCH, stream, klen, vs, vls) != BATCH) die("get_many wrong");
        uint32_t seed = 42;
        for (int i = 0; i < BATCH; i++)
            if (!same_val(bench_lcg(&seed) % (uint32_t)N, vs[i], vls[i])) die("get_many value wrong");
    }

    if (wanted(shapes, "get_one")) run("get_one", op_get_one, 1000, "");
    if (wanted(shapes, "get_random")) run("get_random", op_get_random, RANDOM_KEYS, "");
    if (wanted(shapes, "get_stream")) { stream_pos = 0; run("get_stream", op_get_stream, 1000, ""); }
    if (S->get_many && wanted(shapes, "get_many_stream")) {
        stream_pos = 0; run("get_many_stream", op_get_many_stream, BATCH, ",\"batch\":256");
    }
    if (S->scan && wanted(shapes, "scan_100")) run("scan_100", op_scan_100, 1, "");
    if (S->count && wanted(shapes, "count_8000")) run("count_8000", op_count_8000, 1, "");
    S->close(H);
    H = NULL;
    if (wanted(shapes, "open_get")) run("open_get", op_open_get, 1, "");
    if (sink == 42) fprintf(stderr, "\n");
    return 0;
}
