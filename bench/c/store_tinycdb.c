/* tinycdb (Debian libcdb-dev): constant hash database, point gets only.
 * cdb_init mmaps the file; values are read in place (no copy). */
#include "store.h"
#include <cdb.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

struct h { int fd; struct cdb cdb; };

static const char *ver(void) { return "tinycdb"; }

static int build(const char *path, enum bench_kind kind, size_t n, const uint8_t *keys,
                 size_t klen, const uint8_t *vals, const size_t *voff) {
    (void)kind;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    struct cdb_make m;
    int rc = cdb_make_start(&m, fd);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = cdb_make_add(&m, keys + i * klen, (unsigned)klen, vals + voff[i], (unsigned)(voff[i + 1] - voff[i]));
    if (rc == 0) rc = cdb_make_finish(&m);
    if (rc == 0) rc = fsync(fd);
    close(fd);
    return rc;
}

static void *open_(const char *path) {
    struct h *h = calloc(1, sizeof *h);
    h->fd = open(path, O_RDONLY);
    if (h->fd < 0 || cdb_init(&h->cdb, h->fd) != 0) {
        if (h->fd >= 0) close(h->fd);
        free(h);
        return NULL;
    }
    return h;
}

static void close_(void *p) { struct h *h = p; cdb_free(&h->cdb); close(h->fd); free(h); }

static int get(void *p, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen) {
    struct h *h = p;
    int rc = cdb_find(&h->cdb, key, (unsigned)klen);
    if (rc <= 0) return rc;
    *vlen = cdb_datalen(&h->cdb);
    *val = cdb_get(&h->cdb, (unsigned)*vlen, cdb_datapos(&h->cdb));
    return *val ? 1 : -1;
}

const struct bench_store bench_store_impl = {
    .name = "tinycdb",
    .config = "constant hash file, mmap, point gets only (no scan/count); its djb hash collides heavily on 8-byte big-endian int keys (dense, sparse), so random gets degrade with N",
    .version = ver, .build = build, .open = open_, .close = close_, .get = get,
    .get_many = NULL, .scan = NULL, .count = NULL,
};
