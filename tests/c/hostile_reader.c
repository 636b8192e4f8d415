/* Hostile files through the C library: every drydb_* read call on a file.
 *
 *   hostile_reader --one FILE     read FILE in this process; exit 0 when every
 *                                 call answered acceptably, 1 otherwise
 *   hostile_reader PATH...        each FILE (or every *.drydb in a directory)
 *                                 in a child process of its own (--one), under a
 *                                 time limit and RLIMIT_AS; prints
 *                                 "N passed, N failed"; exit 1 on any failure
 *
 * Files come from `go run ./engine/internal/hostile/cmd/hostile gen DIR`:
 * every checksum valid, the structure lying. FILE.probes, when present,
 * lists keys to get first ("TABLE KEY" in hex per line): some attacks need
 * one read to make the library trust a page that a later read uses.
 *
 * Acceptable answers: DRYDB_OK with every returned pointer of a plain table
 * inside the file's image (drydb_info's map_addr/map_len) and readable,
 * DRYDB_NOTFOUND, DRYDB_CORRUPT, DRYDB_BADKEY (a probe that does not fit a
 * table's key kind); at open also DRYDB_VERSION, DRYDB_FILTER and
 * DRYDB_TOOLARGE. Anything else (DRYDB_INTERNAL: a recovered panic; a
 * pointer outside the file), a signal, a hang or running out of memory fails.
 * Children are started by posix_spawn (the Go runtime in this process must
 * not be forked), and the time limit is kept by the parent. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "drydb.h"

extern char **environ;

enum { MAXKEY = 4096, MAXPROBES = 96, STEPS = 2000, BATCH = 64 };

static const char *file;
static int failures;
static long calls;
static uint64_t map_lo, map_hi; /* the file image */
static int plain;               /* the current table hands out pointers into it */
static volatile uint8_t sink;

static void fail(const char *what, int rc) {
    if (failures++ < 10) {
        const char *m = drydb_errmsg(); /* DRYDB_INTERNAL's carries a stack: its first line says enough */
        fprintf(stdout, "FAIL %s: %s: status %d (%s): %.*s\n", file, what, rc, drydb_strerror(rc), (int)strcspn(m, "\n"), m);
    }
}

/* 1 when the call answered with data to check, 0 for an acceptable error. */
static int st(int rc, const char *what) {
    calls++;
    switch (rc) {
    case DRYDB_OK:
        return 1;
    case DRYDB_NOTFOUND: case DRYDB_CORRUPT: case DRYDB_BADKEY:
        return 0;
    }
    fail(what, rc);
    return 0;
}

/* Reads every byte of a result; for a plain table it must also lie in the
 * file image (zero-copy, valid until drydb_close), except index keys, which
 * are unescaped into a buffer (ikey). */
static void use_(const char *what, const uint8_t *p, size_t n, int ikey) {
    if (n == 0) return;
    if (plain && !ikey && ((uint64_t)(uintptr_t)p < map_lo || (uint64_t)(uintptr_t)p + n > map_hi ||
                  (uint64_t)(uintptr_t)p + n < (uint64_t)(uintptr_t)p)) {
        if (failures++ < 10)
            fprintf(stdout, "FAIL %s: %s: %zu bytes at %p, outside the file image [%#llx, %#llx)\n", file, what, n,
                    (const void *)p, (unsigned long long)map_lo, (unsigned long long)map_hi);
        return;
    }
    uint8_t s = 0;
    for (size_t i = 0; i < n; i++) s += p[i];
    sink += s;
}
#define use(what, p, n) use_(what, p, n, 0)

/* ---- probes ------------------------------------------------------------- */

typedef struct { char table[256]; uint8_t *key; size_t len; } probe;
static probe *probes;
static size_t nprobes;

static size_t unhex(const char *s, size_t n, uint8_t *out) {
    size_t j = 0;
    for (size_t i = 0; i + 1 < n; i += 2) {
        unsigned v;
        if (sscanf(s + i, "%2x", &v) != 1) break;
        out[j++] = (uint8_t)v;
    }
    return j;
}

static void load_probes(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s.probes", file);
    FILE *fh = fopen(path, "r");
    if (!fh) return;
    char line[2 * MAXKEY + 1024];
    while (fgets(line, sizeof line, fh)) {
        char *sp = strchr(line, ' ');
        if (!sp) continue;
        size_t tl = (size_t)(sp - line), kl = strcspn(sp + 1, "\n");
        if (tl / 2 >= sizeof probes[0].table || kl / 2 > MAXKEY) continue;
        probes = realloc(probes, (nprobes + 1) * sizeof *probes);
        probe *p = &probes[nprobes++];
        p->table[unhex(line, tl, (uint8_t *)p->table)] = 0;
        p->key = calloc(1, kl / 2 + 8);
        p->len = unhex(sp + 1, kl, p->key);
    }
    fclose(fh);
}

/* ---- one table ------------------------------------------------------------ */

typedef struct { uint8_t k[MAXKEY]; size_t n; } key;
static key keys[MAXPROBES];
static size_t nkeys;

static void add_key(const uint8_t *k, size_t n) {
    if (nkeys < MAXPROBES && n <= MAXKEY) {
        memcpy(keys[nkeys].k, k, n);
        keys[nkeys++].n = n;
    }
}

static void get(drydb_table *t, const uint8_t *k, size_t n) {
    const uint8_t *v;
    size_t vl;
    if (st(drydb_get(t, k, n, &v, &vl), "get")) use("get", v, vl);
}

/* Walk a cursor (up to steps entries), reading every entry; collect keys
 * when asked. */
static void walk(drydb_cursor *c, int back, int collect, int index, int steps) {
    int rc = back ? drydb_cursor_last(c) : drydb_cursor_first(c);
    for (int i = 0; i < steps && st(rc, back ? "cursor last/prev" : "cursor first/next"); i++) {
        const uint8_t *k, *v;
        size_t kl, vl;
        if (st(drydb_cursor_get(c, &k, &kl, &v, &vl), "cursor get")) {
            use_("cursor key", k, kl, index);
            use("cursor value", v, vl);
            if (collect && (i < 12 || i % 97 == 0)) add_key(k, kl);
        }
        if (index && st(drydb_cursor_primary_key(c, &k, &kl), "cursor primary key")) use("cursor primary key", k, kl);
        rc = back ? drydb_cursor_prev(c) : drydb_cursor_next(c);
    }
}

static void batches(drydb_cursor *c, int reverse, int index, int steps) {
    const uint8_t *ks[BATCH], *pks[BATCH], *vs[BATCH];
    size_t kls[BATCH], pkls[BATCH], vls[BATCH], n;
    for (int i = 0; i < steps / BATCH + 1; i++) {
        int rc = index ? drydb_index_cursor_next_batch(c, reverse, BATCH, ks, kls, pks, pkls, vs, vls, &n)
                       : drydb_cursor_next_batch(c, reverse, BATCH, ks, kls, i % 2 ? NULL : vs, i % 2 ? NULL : vls, &n);
        if (!st(rc, "next batch")) break;
        for (size_t j = 0; j < n; j++) {
            use_("batch key", ks[j], kls[j], index);
            if (index) use("batch primary key", pks[j], pkls[j]);
            if (index || i % 2 == 0) use("batch value", vs[j], vls[j]);
        }
    }
}

static void table(drydb_db *db, drydb_table *t, const char *name) {
    struct drydb_table_info ti;
    if (!st(drydb_table_info(t, &ti), "table info")) return;
    plain = ti.compression == DRYDB_COMPRESS_NONE;
    nkeys = 0;
    for (size_t i = 0; i < nprobes; i++)
        if (!strcmp(probes[i].table, name)) {
            get(t, probes[i].key, probes[i].len);
            add_key(probes[i].key, probes[i].len);
        }
    drydb_cursor *c;
    for (int back = 0; back < 2; back++)
        if (st(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c), "cursor open")) {
            walk(c, back, 1, 0, STEPS);
            drydb_cursor_close(c);
        }
    static const uint8_t fixed[][8] = {{0}, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, {0x80}, {'k', 'e', 'y', '/'}};
    for (size_t i = 0; i < 4; i++) add_key(fixed[i], 8), add_key(fixed[i], 3);
    add_key(fixed[0], 0);
    uint8_t *all = calloc(nkeys, MAXKEY);
    size_t *kls = calloc(nkeys, sizeof(size_t)), off = 0;
    for (size_t i = 0; i < nkeys; i++) {
        const key *k = &keys[i];
        get(t, k->k, k->n);
        uint64_t n;
        st(drydb_rank(t, k->k, k->n, &n), "rank");
        st(drydb_count(t, k->k, k->n, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, &n), "count");
        st(drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, k->k, k->n, DRYDB_EXCLUSIVE, &n), "count");
        const uint8_t *rk[16], *rv[16];
        size_t rkl[16], rvl[16], rn;
        for (uint32_t fl = 0; fl < 2; fl++)
            if (st(drydb_range(t, k->k, k->n, DRYDB_INCLUSIVE, NULL, 0, DRYDB_UNBOUNDED, fl, 16, rk, rkl, rv, rvl, &rn), "range"))
                for (size_t j = 0; j < rn; j++) use("range key", rk[j], rkl[j]), use("range value", rv[j], rvl[j]);
        if (st(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c), "cursor open")) {
            const uint8_t *ck, *cv;
            size_t ckl, cvl;
            if (st(drydb_cursor_seek(c, k->k, k->n), "seek") && st(drydb_cursor_get(c, &ck, &ckl, &cv, &cvl), "cursor get"))
                use("seek value", cv, cvl);
            st(drydb_cursor_next(c), "next");
            if (st(drydb_cursor_seek_exact(c, k->k, k->n), "seek exact") && st(drydb_cursor_get(c, &ck, &ckl, &cv, &cvl), "cursor get"))
                use("seek exact value", cv, cvl);
            st(drydb_cursor_prev(c), "prev");
            drydb_cursor_close(c);
        }
        if (st(drydb_cursor_open_prefix(t, k->k, k->n / 2, &c), "cursor open prefix")) {
            walk(c, 0, 0, 0, 50);
            drydb_cursor_close(c);
        }
        memcpy(all + off, k->k, k->n);
        kls[i] = k->n;
        off += k->n;
    }
    const uint8_t **vals = calloc(nkeys, sizeof *vals);
    size_t *vls = calloc(nkeys, sizeof(size_t));
    uint8_t *found = calloc(nkeys, 1);
    if (st(drydb_get_many(t, nkeys, all, kls, vals, vls, found), "get many"))
        for (size_t i = 0; i < nkeys; i++)
            if (found[i]) use("get many value", vals[i], vls[i]);
    free(vals), free(vls), free(found), free(all), free(kls);
    uint64_t rows[] = {0, ti.rows / 2, ti.rows - 1, ti.rows, UINT64_C(1) << 63};
    for (size_t i = 0; i < 5; i++) {
        const uint8_t *k, *v;
        size_t kl, vl;
        if (st(drydb_at(t, rows[i], &k, &kl, &v, &vl), "at")) use("at key", k, kl), use("at value", v, vl);
        if (st(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c), "cursor open")) {
            if (st(drydb_cursor_seek_row(c, rows[i]), "seek row") && st(drydb_cursor_get(c, &k, &kl, &v, &vl), "cursor get"))
                use("seek row value", v, vl);
            drydb_cursor_close(c);
        }
    }
    for (int rev = 0; rev < 2; rev++)
        if (st(drydb_cursor_open(t, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c), "cursor open")) {
            batches(c, rev, 0, STEPS);
            drydb_cursor_close(c);
        }
    for (uint32_t i = 0; i < ti.index_count; i++) {
        const char *iname;
        drydb_index *ix;
        struct drydb_index_info ii;
        if (!st(drydb_table_index_name(t, i, &iname), "index name") || !st(drydb_index_open(t, iname, &ix), "index open") ||
            !st(drydb_index_info(ix, &ii), "index info"))
            continue;
        uint64_t n;
        st(drydb_index_count(ix, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &n), "index count");
        size_t first = nkeys;
        if (st(drydb_index_cursor_open(ix, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c), "index cursor open")) {
            walk(c, 0, 1, 1, STEPS);
            drydb_cursor_close(c);
        }
        for (size_t j = first; j < nkeys; j++) {
            const key *k = &keys[j];
            const uint8_t *pk, *v;
            size_t pkl, vl;
            if (st(drydb_index_get(ix, k->k, k->n, &pk, &pkl, &v, &vl), "index get")) use("index get pk", pk, pkl), use("index get value", v, vl);
            st(drydb_index_count(ix, k->k, k->n, DRYDB_INCLUSIVE, k->k, k->n, DRYDB_INCLUSIVE, &n), "index count");
            if (st(drydb_index_cursor_open(ix, k->k, k->n, DRYDB_INCLUSIVE, k->k, k->n, DRYDB_INCLUSIVE, &c), "index cursor open")) {
                walk(c, 1, 0, 1, 50);
                drydb_cursor_close(c);
            }
            if (st(drydb_index_cursor_open_prefix(ix, k->k, k->n ? 1 : 0, &c), "index cursor open prefix")) {
                batches(c, 0, 1, 2 * BATCH);
                drydb_cursor_close(c);
            }
        }
        nkeys = first;
        for (int rev = 0; rev < 2; rev++)
            if (st(drydb_index_cursor_open(ix, NULL, 0, DRYDB_UNBOUNDED, NULL, 0, DRYDB_UNBOUNDED, &c), "index cursor open")) {
                batches(c, rev, 1, STEPS);
                drydb_cursor_close(c);
            }
    }
    (void)db;
}

/* Read the file: opened with verification, then without (every read, then
 * drydb_verify). At most 12 tables: the first 10 and the last 2. */
static int one(const char *path, int cache) {
    file = path;
    load_probes();
    for (int pass = 0; pass < 2; pass++) {
        drydb_db *db;
        int rc = drydb_open(path, pass == 0 ? DRYDB_OPEN_VERIFY : 0, cache, &db);
        calls++;
        if (rc == DRYDB_CORRUPT || rc == DRYDB_VERSION || rc == DRYDB_FILTER || rc == DRYDB_TOOLARGE) continue;
        if (rc != DRYDB_OK) {
            fail(pass == 0 ? "open verify" : "open", rc);
            continue;
        }
        struct drydb_db_info info;
        if (st(drydb_info(db, &info), "info")) map_lo = info.map_addr, map_hi = info.map_addr + info.map_len;
        struct drydb_cache_stats cs;
        st(drydb_cache_stats(db, &cs), "cache stats");
        const uint8_t *mv;
        size_t mvl, nt;
        if (st(drydb_meta_get(db, (const uint8_t *)"k", 1, &mv, &mvl), "meta get")) use("meta", mv, mvl);
        if (st(drydb_table_count(db, &nt), "table count"))
            for (size_t i = 0; i < nt; i++) {
                if (i == 10 && nt > 12) i = nt - 2;
                const char *name;
                drydb_table *t;
                if (st(drydb_table_name(db, i, &name), "table name") && st(drydb_table_open(db, name, &t), "table open"))
                    table(db, t, name);
            }
        if (pass == 1) st(drydb_verify(db), "verify");
        st(drydb_close(db), "close");
    }
    if (failures) fprintf(stdout, "%s: %d failures in %ld calls\n", path, failures, calls);
    return failures ? 1 : 0;
}

/* ---- the parent: one child per file --------------------------------------- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int wait_child(pid_t pid, const char *path, double limit, const char *errpath);

/* The Go runtime's first line about why the child died ("fatal error: ...",
 * "panic: ..."), from its stderr, which is kept in a file: a goroutine dump
 * is too long to show. */
static const char *reason(const char *errpath) {
    static char line[512];
    FILE *fh = fopen(errpath, "r");
    if (!fh) return "";
    while (fgets(line, sizeof line, fh))
        if (!strncmp(line, "fatal error: ", 13) || !strncmp(line, "panic: ", 7) || !strncmp(line, "unexpected fault", 16) ||
            !strncmp(line, "runtime: out of memory", 22) || !strncmp(line, "SIGSEGV", 7)) {
            line[strcspn(line, "\n")] = 0;
            fclose(fh);
            return line;
        }
    fclose(fh);
    return "";
}

/* 0 pass, 1 fail. */
static int run_child(const char *self, const char *path, double limit) {
    char *argv[] = {(char *)self, "--one", (char *)path, NULL};
    char errpath[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(errpath, sizeof errpath, "%s/hostile_reader.%d.err", tmp ? tmp : "/tmp", (int)getpid());
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int err = posix_spawn(&pid, self, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        fprintf(stdout, "FAIL %s: cannot start a child: %s\n", path, strerror(err));
        return 1;
    }
    int rc = wait_child(pid, path, limit, errpath);
    unlink(errpath);
    return rc;
}

static int wait_child(pid_t pid, const char *path, double limit, const char *errpath) {
    double start = now();
    int status;
    (void)errpath;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) break;
        if (now() - start > limit) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            fprintf(stdout, "FAIL %s: hang (killed after %.0f s)\n", path, limit);
            return 1;
        }
        usleep(2000);
    }
    if (WIFSIGNALED(status)) {
        fprintf(stdout, "FAIL %s: crash (signal %d, %s) %s\n", path, WTERMSIG(status), strsignal(WTERMSIG(status)), reason(errpath));
        return 1;
    }
    if (WEXITSTATUS(status) != 0) {
        if (WEXITSTATUS(status) != 1) fprintf(stdout, "FAIL %s: crash (exit %d) %s\n", path, WEXITSTATUS(status), reason(errpath));
        return 1;
    }
    return 0;
}

static int is_drydb(const char *name) {
    size_t n = strlen(name);
    return n > 6 && !strcmp(name + n - 6, ".drydb");
}

int main(int argc, char **argv) {
    const char *as = getenv("HOSTILE_RLIMIT_AS");
    uint64_t aslimit = as ? strtoull(as, NULL, 10) : UINT64_C(2) << 30;
    if (argc == 3 && !strcmp(argv[1], "--one")) {
        struct rlimit rl = {aslimit, aslimit};
        setrlimit(RLIMIT_AS, &rl);
        return one(argv[2], 1 << 20);
    }
    if (argc < 2) {
        fprintf(stderr, "usage: hostile_reader --one FILE | hostile_reader FILE|DIR...\n");
        return 2;
    }
    const char *tl = getenv("HOSTILE_TIMEOUT");
    double limit = tl ? atof(tl) : 20;
    int passed = 0, failed = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            run_child("/proc/self/exe", argv[i], limit) ? failed++ : passed++;
            continue;
        }
        struct dirent **ents;
        int n = scandir(argv[i], &ents, NULL, alphasort);
        for (int j = 0; j < n; j++) {
            if (is_drydb(ents[j]->d_name)) {
                char p[4096];
                snprintf(p, sizeof p, "%s/%s", argv[i], ents[j]->d_name);
                run_child("/proc/self/exe", p, limit) ? failed++ : passed++;
            }
            free(ents[j]);
        }
        free(ents);
        closedir(d);
    }
    printf("hostile_reader: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
