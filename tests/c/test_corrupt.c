/* Corruption from outside, read through the C API.
 *
 * DRYDB_CORRUPT_DIR names a directory written by `go run ./tests/corrupt/gen
 * DIR`: base.drydb (every feature: overflow values, zstd+dictionary, S2,
 * unique and non-unique indexes; 512-byte pages), expected.json and ~380
 * damaged copies listed in manifest.json. Without it the test is skipped
 * (exit 0).
 *
 * Every variant is opened and every table read in full: drydb_get, drydb_at,
 * drydb_get_many, missing keys, a cursor walk by drydb_cursor_next, batch
 * walks both ways, counts, and per index: drydb_index_get, drydb_index_count
 * per key and batch walks both ways. Each answer must be the base file's,
 * or the call must return DRYDB_CORRUPT (open may also return
 * DRYDB_VERSION). Anything else (a wrong answer, another status, a crash)
 * fails.
 *
 * Then the base file changed under an open database: rewritten in place
 * (same inode and size) with random bytes or with its own pages shifted,
 * and truncated to half, each before and after its pages were first read. */
#include <fcntl.h>
#include <setjmp.h>
#include <unistd.h>

#include "minijson.h"
#include "testutil.h"

typedef struct { uint8_t *p; size_t n; } buf;
typedef struct { buf lo, hi; int lok, hik; uint64_t count; } count_case;
typedef struct {
    char *name;
    size_t n;
    buf *ik, *pk;
    size_t *row; /* row of the table holding pk */
} index_exp;
typedef struct {
    char *name;
    uint64_t rows;
    size_t n, nmiss, ncount, nindex;
    buf *k, *v, *miss;
    count_case *counts;
    index_exp *ix;
    uint8_t *allkeys; /* keys concatenated, for drydb_get_many */
    size_t *klens;
} table_exp;

static table_exp *tables;
static size_t ntables;
static size_t page_size;

static buf hexbuf(jv *s) {
    buf b = {NULL, 0};
    if (!s || s->type == J_NULL) return b;
    /* padded: Go's vector compares may read past the end of a short key */
    b.p = calloc(1, s->n / 2 + 64);
    b.n = unhex(s->s, b.p);
    return b;
}

static void load_expected(const char *path) {
    size_t len;
    char *text = tu_read_file(path, &len);
    jv *root = jparse(text);
    page_size = (size_t)atol(jget(root, "page_size")->s);
    jv *ts = jget(root, "tables");
    ntables = ts->n;
    tables = calloc(ntables, sizeof *tables);
    for (size_t i = 0; i < ntables; i++) {
        jv *td = ts->items[i];
        table_exp *t = &tables[i];
        t->name = strdup(jget(td, "name")->s);
        t->rows = strtoull(jget(td, "rows")->s, NULL, 10);
        jv *e = jget(td, "entries");
        t->n = e->n;
        t->k = calloc(t->n, sizeof(buf));
        t->v = calloc(t->n, sizeof(buf));
        t->klens = calloc(t->n, sizeof(size_t));
        size_t total = 0;
        for (size_t j = 0; j < t->n; j++) {
            t->k[j] = hexbuf(e->items[j]->items[0]);
            t->v[j] = hexbuf(e->items[j]->items[1]);
            t->klens[j] = t->k[j].n;
            total += t->k[j].n;
        }
        t->allkeys = calloc(1, total + 64); /* zeroed padding: see unhex_alloc in test_vectors.c */
        for (size_t j = 0, o = 0; j < t->n; o += t->k[j].n, j++) memcpy(t->allkeys + o, t->k[j].p, t->k[j].n);
        jv *m = jget(td, "missing");
        t->nmiss = m->n;
        t->miss = calloc(m->n + 1, sizeof(buf));
        for (size_t j = 0; j < m->n; j++) t->miss[j] = hexbuf(m->items[j]);
        jv *c = jget(td, "counts");
        t->ncount = c->n;
        t->counts = calloc(c->n + 1, sizeof(count_case));
        for (size_t j = 0; j < c->n; j++) {
            count_case *cc = &t->counts[j];
            cc->lo = hexbuf(jget(c->items[j], "lo"));
            cc->hi = hexbuf(jget(c->items[j], "hi"));
            cc->lok = atoi(jget(c->items[j], "lo_kind")->s);
            cc->hik = atoi(jget(c->items[j], "hi_kind")->s);
            cc->count = strtoull(jget(c->items[j], "count")->s, NULL, 10);
        }
        jv *ixs = jget(td, "indexes");
        t->nindex = ixs->n;
        t->ix = calloc(ixs->n + 1, sizeof(index_exp));
        for (size_t j = 0; j < ixs->n; j++) {
            index_exp *x = &t->ix[j];
            x->name = strdup(jget(ixs->items[j], "name")->s);
            jv *ie = jget(ixs->items[j], "entries");
            x->n = ie->n;
            x->ik = calloc(x->n, sizeof(buf));
            x->pk = calloc(x->n, sizeof(buf));
            x->row = calloc(x->n, sizeof(size_t));
            for (size_t r = 0; r < x->n; r++) {
                x->ik[r] = hexbuf(ie->items[r]->items[0]);
                x->pk[r] = hexbuf(ie->items[r]->items[1]);
                size_t row = t->n;
                for (size_t q = 0; q < t->n; q++)
                    if (t->k[q].n == x->pk[r].n && !memcmp(t->k[q].p, x->pk[r].p, x->pk[r].n)) { row = q; break; }
                CHECK(row < t->n);
                x->row[r] = row;
            }
        }
    }
    jfree(root);
    free(text);
}

/* ---- one reader pass -------------------------------------------------- */

static const char *label; /* what is being read, for failure messages */
static int strict;        /* the base file: no error is acceptable */
static long detected, calls, wrongs;
static jmp_buf on_wrong; /* a wrong answer ends the reading of a file */

static void wrong(const char *what, const char *tname, size_t i, int rc) {
    fprintf(stderr, "test_corrupt: WRONG ANSWER: %s: table %s: %s (item %zu): status %d (%s), errmsg: %s\n",
            label, tname, what, i, rc, drydb_strerror(rc), drydb_errmsg());
    wrongs++;
    longjmp(on_wrong, 1);
}

/* 1: the call succeeded (check its answer); 0: it reported corruption.
 * `ok2` is a second status that counts as success (DRYDB_NOTFOUND for
 * lookups that must miss, end of walks). */
static int st(int rc, int ok2, const char *what, const char *tname, size_t i) {
    calls++;
    if (rc == DRYDB_OK || rc == ok2) return 1;
    if (rc == DRYDB_CORRUPT && !strict) {
        detected++;
        return 0;
    }
    wrong(what, tname, i, rc);
    return 0;
}

static int same(const uint8_t *p, size_t n, const buf *b) { return n == b->n && (n == 0 || !memcmp(p, b->p, n)); }

#define BATCH 16

static void walk_batches(drydb_table *t, const table_exp *te, int reverse) {
    drydb_cursor *c;
    if (!st(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c), 0, "cursor_open", te->name, 0)) return;
    const uint8_t *ks[BATCH], *vs[BATCH];
    size_t kl[BATCH], vl[BATCH], n, seen = 0;
    for (;;) {
        int rc = drydb_cursor_next_batch(c, reverse, BATCH, ks, kl, vs, vl, &n);
        if (!st(rc, DRYDB_NOTFOUND, reverse ? "reverse batch" : "batch", te->name, seen)) break;
        if (rc == DRYDB_NOTFOUND) {
            if (seen != te->n) wrong("batch walk ended early", te->name, seen, rc);
            break;
        }
        for (size_t j = 0; j < n; j++, seen++) {
            if (seen >= te->n) wrong("batch walk past the last row", te->name, seen, rc);
            size_t r = reverse ? te->n - 1 - seen : seen;
            if (!same(ks[j], kl[j], &te->k[r]) || !same(vs[j], vl[j], &te->v[r])) wrong("batch row", te->name, r, rc);
        }
    }
    OK(drydb_cursor_close(c));
}

static void walk_next(drydb_table *t, const table_exp *te) {
    drydb_cursor *c;
    if (!st(drydb_cursor_open(t, NULL, 0, 0, NULL, 0, 0, &c), 0, "cursor_open", te->name, 0)) return;
    for (size_t i = 0;; i++) {
        int rc = drydb_cursor_next(c);
        if (!st(rc, DRYDB_NOTFOUND, "cursor_next", te->name, i)) break;
        if (rc == DRYDB_NOTFOUND) {
            if (i != te->n) wrong("cursor walk ended early", te->name, i, rc);
            break;
        }
        if (i >= te->n) wrong("cursor walk past the last row", te->name, i, rc);
        const uint8_t *k, *v;
        size_t kl, vl;
        if (!st(drydb_cursor_get(c, &k, &kl, &v, &vl), 0, "cursor_get", te->name, i)) break;
        if (!same(k, kl, &te->k[i]) || !same(v, vl, &te->v[i])) wrong("cursor row", te->name, i, 0);
    }
    OK(drydb_cursor_close(c));
}

static void walk_index(drydb_index *ix, const table_exp *te, const index_exp *xe, int reverse) {
    drydb_cursor *c;
    if (!st(drydb_index_cursor_open(ix, NULL, 0, 0, NULL, 0, 0, &c), 0, "index_cursor_open", te->name, 0)) return;
    const uint8_t *iks[BATCH], *pks[BATCH], *vs[BATCH];
    size_t ikl[BATCH], pkl[BATCH], vl[BATCH], n, seen = 0;
    for (;;) {
        int rc = drydb_index_cursor_next_batch(c, reverse, BATCH, iks, ikl, pks, pkl, vs, vl, &n);
        if (!st(rc, DRYDB_NOTFOUND, xe->name, te->name, seen)) break;
        if (rc == DRYDB_NOTFOUND) {
            if (seen != xe->n) wrong("index walk ended early", te->name, seen, rc);
            break;
        }
        for (size_t j = 0; j < n; j++, seen++) {
            if (seen >= xe->n) wrong("index walk past the last entry", te->name, seen, rc);
            size_t r = reverse ? xe->n - 1 - seen : seen;
            if (!same(iks[j], ikl[j], &xe->ik[r]) || !same(pks[j], pkl[j], &xe->pk[r]) ||
                !same(vs[j], vl[j], &te->v[xe->row[r]]))
                wrong("index entry", te->name, r, rc);
        }
    }
    OK(drydb_cursor_close(c));
}

static void read_table(drydb_db *db, const table_exp *te) {
    drydb_table *t;
    const char *nm = te->name;
    if (!st(drydb_table_open(db, nm, &t), 0, "table_open", nm, 0)) return;
    struct drydb_table_info ti;
    if (st(drydb_table_info(t, &ti), 0, "table_info", nm, 0) && ti.rows != te->rows) wrong("rows", nm, 0, 0);
    const uint8_t *k, *v;
    size_t kl, vl;
    for (size_t i = 0; i < te->n; i++) {
        if (st(drydb_get(t, te->k[i].p, te->k[i].n, &v, &vl), 0, "get", nm, i) && !same(v, vl, &te->v[i]))
            wrong("get value", nm, i, 0);
        if (i % 7 == 0 && st(drydb_at(t, i, &k, &kl, &v, &vl), 0, "at", nm, i) &&
            (!same(k, kl, &te->k[i]) || !same(v, vl, &te->v[i])))
            wrong("at", nm, i, 0);
    }
    {
        const uint8_t **vals = calloc(te->n + 1, sizeof *vals);
        size_t *vlens = calloc(te->n + 1, sizeof *vlens);
        uint8_t *found = calloc(te->n + 1, 1);
        if (st(drydb_get_many(t, te->n, te->allkeys, te->klens, vals, vlens, found), 0, "get_many", nm, 0))
            for (size_t i = 0; i < te->n; i++)
                if (!found[i] || !same(vals[i], vlens[i], &te->v[i])) wrong("get_many value", nm, i, 0);
        free(vals);
        free(vlens);
        free(found);
    }
    for (size_t i = 0; i < te->nmiss; i++) {
        int rc = drydb_get(t, te->miss[i].p, te->miss[i].n, &v, &vl);
        if (st(rc, DRYDB_NOTFOUND, "missing key", nm, i) && rc != DRYDB_NOTFOUND) wrong("missing key found", nm, i, rc);
    }
    walk_next(t, te);
    walk_batches(t, te, 0);
    walk_batches(t, te, 1);
    for (size_t i = 0; i < te->ncount; i++) {
        const count_case *c = &te->counts[i];
        uint64_t got;
        if (st(drydb_count(t, c->lo.p, c->lo.n, c->lok, c->hi.p, c->hi.n, c->hik, &got), 0, "count", nm, i) &&
            got != c->count)
            wrong("count", nm, i, 0);
    }
    for (size_t x = 0; x < te->nindex; x++) {
        const index_exp *xe = &te->ix[x];
        drydb_index *ix;
        if (!st(drydb_index_open(t, xe->name, &ix), 0, "index_open", nm, x)) continue;
        struct drydb_index_info ii;
        if (st(drydb_index_info(ix, &ii), 0, "index_info", nm, x) && ii.entries != xe->n) wrong("index entries", nm, x, 0);
        for (size_t i = 0; i < xe->n;) {
            size_t j = i;
            while (j < xe->n && same(xe->ik[j].p, xe->ik[j].n, &xe->ik[i])) j++;
            const uint8_t *pk;
            size_t pkl;
            if (st(drydb_index_get(ix, xe->ik[i].p, xe->ik[i].n, &pk, &pkl, &v, &vl), 0, "index_get", nm, i) &&
                (!same(pk, pkl, &xe->pk[i]) || !same(v, vl, &te->v[xe->row[i]])))
                wrong("index_get", nm, i, 0);
            uint64_t got;
            if (st(drydb_index_count(ix, xe->ik[i].p, xe->ik[i].n, DRYDB_INCLUSIVE, xe->ik[i].p, xe->ik[i].n,
                                     DRYDB_INCLUSIVE, &got), 0, "index_count", nm, i) && got != j - i)
                wrong("index_count", nm, i, 0);
            i = j;
        }
        walk_index(ix, te, xe, 0);
        walk_index(ix, te, xe, 1);
    }
}

static void read_all(drydb_db *db) {
    for (size_t i = 0; i < ntables; i++) read_table(db, &tables[i]);
    int rc = drydb_verify(db);
    if (!st(rc, 0, "verify", "-", 0)) return;
}

/* ---- files changed while open ------------------------------------------ */

static void copy_file(const char *from, const char *to) {
    size_t n;
    char *d = tu_read_file(from, &n);
    FILE *f = fopen(to, "wb");
    CHECK(f && fwrite(d, 1, n, f) == n && fclose(f) == 0);
    free(d);
}

static void change_while_open(const char *base, const char *how, int warm) {
    char *path = tu_path("changed.drydb");
    copy_file(base, path);
    size_t n;
    uint8_t *old = (uint8_t *)tu_read_file(path, &n);
    drydb_db *db;
    OK(drydb_open(path, 0, 0, &db));
    char lbl[128];
    if (warm) {
        snprintf(lbl, sizeof lbl, "before %s", how);
        label = lbl;
        strict = 1;
        if (setjmp(on_wrong)) exit(1);
        read_all(db);
        strict = 0;
    }
    if (!strcmp(how, "truncate")) {
        CHECK(truncate(path, (off_t)(n / 2)) == 0);
    } else {
        uint8_t *nw = malloc(n);
        if (!strcmp(how, "rewrite-random")) {
            uint64_t x = 0x9E3779B97F4A7C15ull;
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                nw[i] = (uint8_t)x;
            }
        } else { /* rewrite-shifted: the file's own pages, one page further */
            memcpy(nw, old + page_size, n - page_size);
            memcpy(nw + n - page_size, old, page_size);
        }
        int fd = open(path, O_WRONLY); /* same inode: the mapping sees the new bytes */
        CHECK(fd >= 0);
        CHECK(pwrite(fd, nw, n, 0) == (ssize_t)n);
        CHECK(fsync(fd) == 0 && close(fd) == 0);
        free(nw);
    }
    snprintf(lbl, sizeof lbl, "%s while open (%s)", how, warm ? "warm" : "cold");
    label = lbl;
    long d0 = detected, c0 = calls, w0 = wrongs;
    if (!setjmp(on_wrong)) read_all(db);
    printf("test_corrupt: %s: %ld calls, %ld corrupt errors, %ld wrong\n", lbl, calls - c0, detected - d0, wrongs - w0);
    if (!warm) CHECK(detected > d0);
    OK(drydb_close(db));
    CHECK_RC(drydb_open(path, 0, 0, &db), DRYDB_CORRUPT);
    free(old);
    unlink(path);
    free(path);
}

int main(void) {
    const char *dir = getenv("DRYDB_CORRUPT_DIR");
    char p[4096];
    if (!dir || !*dir) {
        printf("test_corrupt: skipped: DRYDB_CORRUPT_DIR is not set (go run ./tests/corrupt/gen DIR)\n");
        return 0;
    }
    snprintf(p, sizeof p, "%s/manifest.json", dir);
    if (access(p, R_OK) != 0) {
        printf("test_corrupt: skipped: %s not found (go run ./tests/corrupt/gen %s)\n", p, dir);
        return 0;
    }
    size_t len;
    char *text = tu_read_file(p, &len);
    jv *man = jparse(text);
    snprintf(p, sizeof p, "%s/%s", dir, jget(man, "expected")->s);
    load_expected(p);
    char base[4096];
    snprintf(base, sizeof base, "%s/%s", dir, jget(man, "base")->s);

    /* the base file reads back in full with no error */
    drydb_db *db;
    OK(drydb_open(base, DRYDB_OPEN_VERIFY, 0, &db));
    label = "base";
    strict = 1;
    if (setjmp(on_wrong)) exit(1);
    read_all(db);
    strict = 0;
    OK(drydb_close(db));
    CHECK(calls > 1500);

    jv *vs = jget(man, "variants");
    static long at_open, at_read, harmless; /* static: survive the longjmp */
    static size_t i;
    for (i = 0; i < vs->n; i++) {
        jv *v = vs->items[i];
        char lbl[512];
        snprintf(lbl, sizeof lbl, "%s (%s at %s: %s)", jget(v, "file")->s, jget(v, "kind")->s,
                 jget(v, "offset")->s, jget(v, "detail")->s);
        label = lbl;
        snprintf(p, sizeof p, "%s/%s", dir, jget(v, "file")->s);
        int rc = drydb_open(p, 0, 0, &db);
        if (rc == DRYDB_CORRUPT || rc == DRYDB_VERSION) {
            at_open++;
            continue;
        }
        if (rc != DRYDB_OK) {
            fprintf(stderr, "test_corrupt: WRONG ANSWER: %s: open: status %d (%s)\n", lbl, rc, drydb_strerror(rc));
            wrongs++;
            continue;
        }
        long d0 = detected, w0 = wrongs;
        if (!setjmp(on_wrong)) read_all(db);
        OK(drydb_close(db)); /* also frees the cursors a wrong answer left open */
        if (wrongs > w0) continue;
        if (detected > d0) at_read++;
        else harmless++;
    }
    printf("test_corrupt: C: %zu variants: %ld detected at open, %ld detected at read, %ld harmless, %ld wrong\n",
           vs->n, at_open, at_read, harmless, wrongs);
    CHECK(vs->n >= 300);
    CHECK(at_open + at_read > (long)vs->n / 2);

    /* truncation faults (SIGBUS) on the lost pages, which valgrind does not
     * pass to the Go runtime the way the kernel does (test_truncate is not
     * run under valgrind either) */
    static const char *hows[] = {"rewrite-random", "rewrite-shifted", "truncate"};
    for (int h = 0; h < (tu_under_valgrind() ? 2 : 3); h++)
        for (int warm = 0; warm < 2; warm++) change_while_open(base, hows[h], warm);

    jfree(man);
    free(text);
    CHECK(wrongs == 0);
    printf("test_corrupt: ok\n");
    return 0;
}
