/* The parts of libdrydb that need no Go: status text, the thread-local error
 * detail and value buffer, version, free. Keeping them in C means
 * drydb_errmsg() and drydb_strerror() cost no crossing into the Go runtime,
 * and thread-local storage is the C thread's own (a Go goroutine serving a
 * C call runs on the calling thread, so Go writes land in the right slot). */
#define DRYDB__OWN_C /* -O2, not cdefs.h's -Os for cgo's code */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "drydb.h"
#include "cdefs.h"
#include "fast.h"

const uint8_t drydb__empty[1] = {0};

/* The info structures' layouts are part of the ABI (drydb.h gives every
 * offset for bindings that declare them by hand): the library does not
 * build if the compiler lays them out otherwise. Python and C# check their
 * copies against the header's comments (test_header.py, HeaderTests.cs). */
#include <stddef.h>
#define LAYOUT(type, field, off) _Static_assert(offsetof(struct type, field) == (off), #type "." #field)
LAYOUT(drydb_db_info, page_size, 4);
LAYOUT(drydb_db_info, file_size, 8);
LAYOUT(drydb_db_info, created_unix_ns, 16);
LAYOUT(drydb_db_info, build_id, 24);
LAYOUT(drydb_db_info, table_count, 40);
LAYOUT(drydb_db_info, map_addr, 48);
LAYOUT(drydb_db_info, map_len, 56);
LAYOUT(drydb_db_info, reserved, 64);
_Static_assert(sizeof(struct drydb_db_info) == DRYDB_DB_INFO_SIZE, "drydb_db_info size");
LAYOUT(drydb_table_info, nparts, 4);
LAYOUT(drydb_table_info, parts, 8);
LAYOUT(drydb_table_info, rows, 24);
LAYOUT(drydb_table_info, index_count, 32);
LAYOUT(drydb_table_info, compression, 36);
LAYOUT(drydb_table_info, level, 40);
LAYOUT(drydb_table_info, flags, 44);
LAYOUT(drydb_table_info, reserved, 48);
_Static_assert(sizeof(struct drydb_table_info) == DRYDB_TABLE_INFO_SIZE, "drydb_table_info size");
LAYOUT(drydb_index_info, nparts, 4);
LAYOUT(drydb_index_info, parts, 8);
LAYOUT(drydb_index_info, entries, 24);
LAYOUT(drydb_index_info, unique, 32);
LAYOUT(drydb_index_info, reserved0, 36);
LAYOUT(drydb_index_info, reserved, 40);
_Static_assert(sizeof(struct drydb_index_info) == DRYDB_INDEX_INFO_SIZE, "drydb_index_info size");
LAYOUT(drydb_cache_stats, misses, 8);
LAYOUT(drydb_cache_stats, evictions, 16);
LAYOUT(drydb_cache_stats, bytes, 24);
LAYOUT(drydb_cache_stats, reserved, 32);
_Static_assert(sizeof(struct drydb_cache_stats) == DRYDB_CACHE_STATS_SIZE, "drydb_cache_stats size");
#undef LAYOUT

#define ERRMSG_CAP 4096

/* A thread's state. Its destructor gets it as its argument and must not
 * touch the __thread pointer: on Windows, thread-locals are mingw's emulated
 * TLS, whose own destructor may already have freed them when this one runs
 * (writing a thread-local there recreated it mid-exit and crashed the
 * process, holding the heap lock: the "hang" test_threads showed under Wine). */
struct tls {
    char errmsg[ERRMSG_CAP];
    uint8_t *buf;
    size_t cap;
    /* colfast.c's scratch for sorted batches: kept, so that a thread's
     * batches do not pay its page faults each call */
    uint8_t *scratch;
    size_t scratch_cap;
    /* The version this thread holds (fast.c's "versions"): what its last
     * call returned points into it, so it stays mapped until the thread's
     * next call or its exit. */
    struct drydb__ver *held;
    uint32_t held_gen;
};

static __thread struct tls *tls_state DRYDB__TLS_IE;
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

/* Free a thread's state when it exits, so threads that come and go do not
 * leak their value buffers, and drop its hold. */
DRYDB__COLD static void tls_destroy(void *p) {
    struct tls *t = p;
    if (t) {
        if (t->held) drydb__ver_release(t->held, t->held_gen);
        free(t->buf);
        free(t->scratch);
        free(t);
    }
}

static void tls_init(void) { pthread_key_create(&tls_key, tls_destroy); }

static struct tls *tls_get(void) {
    struct tls *t = tls_state;
    if (t) return t;
    pthread_once(&tls_once, tls_init);
    t = calloc(1, sizeof *t);
    if (!t) return NULL;
    tls_state = t;
    pthread_setspecific(tls_key, t);
    return t;
}

/* hold makes v the calling thread's held version (the caller knows v is
 * alive: it is inside a call that keeps v from being reaped). The common
 * case, the thread already holds v, costs three loads. */
DRYDB__HIDDEN int drydb__ver_hold(struct drydb__ver *v, uint32_t gen) {
    struct tls *t = tls_state;
    if (t != NULL && t->held == v && t->held_gen == gen) return 1;
    if (t == NULL && (t = tls_get()) == NULL) return 0;
    drydb__ver_unhold();
    if (drydb__ver_acquire(v, gen)) {
        t->held = v;
        t->held_gen = gen;
    }
    return 1;
}

DRYDB__HIDDEN void drydb__ver_unhold(void) {
    struct tls *t = tls_state;
    if (t == NULL || t->held == NULL) return;
    struct drydb__ver *v = t->held;
    t->held = NULL;
    drydb__ver_release(v, t->held_gen);
}

DRYDB__COLD void drydb__set_errmsg(const char *msg, size_t n) {
    struct tls *t = tls_get();
    if (!t) return;
    if (n >= ERRMSG_CAP) n = ERRMSG_CAP - 1;
    memcpy(t->errmsg, msg, n);
    t->errmsg[n] = 0;
}

/* *buf grown to at least n bytes (doubling; realloc would copy contents
 * nobody needs); NULL when out of memory. */
static uint8_t *grow(uint8_t **buf, size_t *cap, size_t n) {
    if (n == 0) n = 1;
    if (n > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < n) c *= 2;
        uint8_t *p = malloc(c);
        if (!p) return NULL;
        free(*buf);
        *buf = p;
        *cap = c;
    }
    return *buf;
}

uint8_t *drydb__tls_reserve(size_t n) {
    struct tls *t = tls_get();
    return t ? grow(&t->buf, &t->cap, n) : NULL;
}

uint8_t *drydb__tls_scratch(size_t n) {
    struct tls *t = tls_get();
    return t ? grow(&t->scratch, &t->scratch_cap, n) : NULL;
}

const char *drydb_errmsg(void) {
    struct tls *t = tls_get();
    return t ? t->errmsg : "drydb: out of memory";
}

DRYDB__COLD const char *drydb_strerror(int code) {
    switch (code) {
    case DRYDB_OK: return "success";
    case DRYDB_NOTFOUND: return "not found";
    case DRYDB_INVALID: return "invalid argument";
    case DRYDB_CLOSED: return "handle closed";
    case DRYDB_BADHANDLE: return "bad handle";
    case DRYDB_CORRUPT: return "corrupt database file";
    case DRYDB_VERSION: return "unsupported file format version";
    case DRYDB_KEYTOOLARGE: return "key too large";
    case DRYDB_DUPLICATE: return "duplicate key";
    case DRYDB_BADKEY: return "key does not fit the key kind";
    case DRYDB_IO: return "I/O error";
    case DRYDB_NOMEM: return "out of memory";
    case DRYDB_NOTABLE: return "no such table";
    case DRYDB_NOINDEX: return "no such index";
    case DRYDB_FILTER: return "unknown page filter";
    case DRYDB_TOOLARGE: return "too large";
    case DRYDB_INTERNAL: return "internal error";
    }
    return "unknown status";
}

void drydb_version(int *major, int *minor, int *patch) {
    if (major) *major = DRYDB_VERSION_MAJOR;
    if (minor) *minor = DRYDB_VERSION_MINOR;
    if (patch) *patch = DRYDB_VERSION_PATCH;
}

const char *drydb_version_string(void) { return DRYDB_VERSION_STRING; }

void drydb_free(void *p) { free(p); }

/* ---- threads entering Go (drydb__warm_threads) ----
 *
 * A C thread's first call into Go takes one of the runtime's "extra" Ms
 * with every signal blocked, and when none is free it spins until the
 * thread that took the last one makes another, which that thread does
 * only once it has a P. A host that stops the world with signals (Mono's
 * garbage collector) can then deadlock: it waits for the spinning thread
 * to acknowledge its signal (blocked), while the thread that would make
 * the next M sits suspended by that same stop (measured: 2 hangs in 6 runs
 * of the C# tests' eight reader threads). n threads that each call into Go
 * once and exit leave n Ms on the free list (an M goes back to it when its
 * thread exits), so the first calls of up to n host threads find one
 * waiting. */
#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif
#define WARM_MAX 256
#ifndef _WIN32
extern int drydb__enter_go(void); /* capi/main.go: returns 0 */

static void *enter_go_once(void *arg) {
    (void)arg;
    drydb__enter_go();
    return NULL;
}

DRYDB__COLD EXPORT int drydb__warm_threads(int n) {
    if (n < 0 || n > WARM_MAX) return DRYDB_INVALID;
    pthread_t th[WARM_MAX];
    int made = 0;
    /* all started before any is joined: each holds its M until it exits,
     * so the runtime makes n of them */
    for (; made < n; made++)
        if (pthread_create(&th[made], NULL, enter_go_once, NULL) != 0) break;
    for (int i = 0; i < made; i++) pthread_join(th[i], NULL);
    return made == n ? DRYDB_OK : DRYDB_NOMEM;
}
#else /* Windows stops threads without signals: nothing to do */
EXPORT int drydb__warm_threads(int n) { return n < 0 || n > WARM_MAX ? DRYDB_INVALID : DRYDB_OK; }
#endif
