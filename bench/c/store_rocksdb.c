/* RocksDB through its C API (rocksdb/c.h): default options with snappy
 * compression; opened with rocksdb_open_for_read_only; get through a pinnable
 * slice (no copy); one iterator created per open and reused for every scan.
 * Build: SstFileWriter writes one sorted SST, ingested into a fresh DB. */
#include "store.h"
#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct h {
    rocksdb_options_t *opt; rocksdb_t *db; rocksdb_readoptions_t *ro;
    rocksdb_iterator_t *it; rocksdb_pinnableslice_t *ps;
};

/* rocksdb/version.h is C++ only: bench/run passes -DROCKSDB_VER="x.y.z" */
#ifndef ROCKSDB_VER
#define ROCKSDB_VER "?"
#endif
static const char *ver(void) { return "RocksDB " ROCKSDB_VER; }

static rocksdb_options_t *options(void) {
    rocksdb_options_t *o = rocksdb_options_create();
    rocksdb_options_set_compression(o, rocksdb_snappy_compression);
    return o;
}

static int build(const char *path, enum bench_kind kind, size_t n, const uint8_t *keys,
                 size_t klen, const uint8_t *vals, const size_t *voff) {
    (void)kind;
    char *err = NULL, sst[4200];
    snprintf(sst, sizeof sst, "%s.sst", path);
    rocksdb_options_t *o = options();
    rocksdb_envoptions_t *eo = rocksdb_envoptions_create();
    rocksdb_sstfilewriter_t *w = rocksdb_sstfilewriter_create(eo, o);
    rocksdb_sstfilewriter_open(w, sst, &err);
    for (size_t i = 0; !err && i < n; i++)
        rocksdb_sstfilewriter_put(w, (const char *)keys + i * klen, klen, (const char *)vals + voff[i],
                                  voff[i + 1] - voff[i], &err);
    if (!err) rocksdb_sstfilewriter_finish(w, &err);
    rocksdb_sstfilewriter_destroy(w);
    rocksdb_envoptions_destroy(eo);
    rocksdb_t *db = NULL;
    if (!err) {
        rocksdb_options_set_create_if_missing(o, 1);
        db = rocksdb_open(o, path, &err);
    }
    if (!err) {
        const char *files[1] = { sst };
        rocksdb_ingestexternalfileoptions_t *io = rocksdb_ingestexternalfileoptions_create();
        rocksdb_ingestexternalfileoptions_set_move_files(io, 1);
        rocksdb_ingest_external_file(db, files, 1, io, &err);
        rocksdb_ingestexternalfileoptions_destroy(io);
    }
    if (!err) {
        rocksdb_flushoptions_t *fo = rocksdb_flushoptions_create();
        rocksdb_flush(db, fo, &err);
        rocksdb_flushoptions_destroy(fo);
    }
    if (db) rocksdb_close(db);
    rocksdb_options_destroy(o);
    remove(sst);
    if (err) { fprintf(stderr, "rocksdb build: %s\n", err); free(err); return -1; }
    return 0;
}

static void *open_(const char *path) {
    struct h *h = calloc(1, sizeof *h);
    char *err = NULL;
    h->opt = options();
    h->db = rocksdb_open_for_read_only(h->opt, path, 0, &err);
    if (err) { fprintf(stderr, "rocksdb open: %s\n", err); free(err); rocksdb_options_destroy(h->opt); free(h); return NULL; }
    h->ro = rocksdb_readoptions_create();
    h->it = rocksdb_create_iterator(h->db, h->ro);
    return h;
}

static void close_(void *p) {
    struct h *h = p;
    if (h->ps) rocksdb_pinnableslice_destroy(h->ps);
    rocksdb_iter_destroy(h->it);
    rocksdb_readoptions_destroy(h->ro);
    rocksdb_close(h->db);
    rocksdb_options_destroy(h->opt);
    free(h);
}

static int get(void *p, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen) {
    struct h *h = p;
    char *err = NULL;
    if (h->ps) { rocksdb_pinnableslice_destroy(h->ps); h->ps = NULL; }
    h->ps = rocksdb_get_pinned(h->db, h->ro, (const char *)key, klen, &err);
    if (err) { free(err); return -1; }
    if (!h->ps) return 0;
    *val = (const uint8_t *)rocksdb_pinnableslice_value(h->ps, vlen);
    return 1;
}

static long walk(struct h *h, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum) {
    long n = 0;
    for (rocksdb_iter_seek(h->it, (const char *)lo, klen); rocksdb_iter_valid(h->it); rocksdb_iter_next(h->it)) {
        size_t kl;
        const char *k = rocksdb_iter_key(h->it, &kl);
        size_t m = kl < klen ? kl : klen;
        int c = memcmp(k, hi, m);
        if (c > 0 || (c == 0 && kl > klen)) break;
        if (sum) {
            size_t vl;
            const uint8_t *v = (const uint8_t *)rocksdb_iter_value(h->it, &vl);
            *sum += vl + v[vl - 1];
        }
        n++;
    }
    return n;
}

static long scan(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen, uint64_t *sum) {
    return walk(p, lo, hi, klen, sum);
}

static long count(void *p, const uint8_t *lo, const uint8_t *hi, size_t klen) {
    return walk(p, lo, hi, klen, NULL);
}

const struct bench_store bench_store_impl = {
    .name = "rocksdb",
    .config = "default options + snappy; open_for_read_only; get_pinned; iterator reused; build: SstFileWriter + ingest",
    .version = ver, .build = build, .open = open_, .close = close_, .get = get,
    .get_many = NULL, .scan = scan, .count = count,
};
