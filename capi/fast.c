/* The lookup fast path: drydb_get and drydb_get_many answered in C.
 *
 * Why: a call from C into Go costs ~50 ns (cgo's thread bookkeeping), more
 * than the whole lookup. For plain (uncompressed) tables the engine's tree
 * lies in the mapped file, and the engine publishes where (engine.Layout):
 * root, depth, page region, page size and its bitmap of pages it has
 * already checked (checksum + structure). This file searches that tree in
 * place, reading only pages whose bit is set, so it trusts exactly what the
 * engine's own accessors trust. A compressed table's branch pages are plain
 * pages too, and its leaves, once decoded, sit in the engine's page cache,
 * which C reads under the engine's pin protocol (cache_leaf). Anything else
 * (a page not yet checked, a leaf not in the cache, an overflow value, a key
 * the encoding refuses, a closed or unknown handle)
 * goes to the Go implementation (drydb__get_go, drydb__get_many_go), which
 * checks the page, sets its bit, reports errors and sets drydb_errmsg().
 * The answers are the same either way; only the cost differs.
 *
 * Lifetimes: a table handle owns a struct drydb__ft,
 * registered in a slot table indexed like the Go handle table. A reader
 * announces itself in one of several counters (striped by CPU so that
 * threads on different cores do not share a cache line), then checks the
 * handle; closing clears the handle and waits for the counters to drain
 * before the engine unmaps anything. Structs are recycled, never freed, so
 * a reader holding a stale pointer reads memory that is still valid and sees
 * a handle that no longer matches.
 *
 * Faults: a file truncated underneath raises SIGBUS when a lost page is
 * touched. A handler installed when the first fast table opens sends a fault
 * raised inside a fast lookup back to its start (siglongjmp), and the call
 * falls back to Go, which reports DRYDB_CORRUPT; every other signal goes on
 * to the handler that was installed before (the Go runtime's, which chains
 * to the host's). Windows has no such fault (see the guard below). */
#define DRYDB__OWN_C /* -O2, not cdefs.h's -Os for cgo's code */
#define _GNU_SOURCE
#include <pthread.h> /* Windows: mingw-w64's winpthreads, linked statically */
#include <setjmp.h>
#include <stdatomic.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <sched.h>
#include <signal.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "cdefs.h"
#include "fast.h"
#include "hash.h"

#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif

/* The Go implementations (fallback.go), cgo exports with C.int results. */
int drydb__get_go(uintptr_t t, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen);
int drydb__get_many_go(uintptr_t t, size_t n, const uint8_t *keys, const size_t *klens,
                       const uint8_t **vals, size_t *vlens, uint8_t *found);
int drydb__count_go(uintptr_t t, const uint8_t *lo, size_t lolen, int lokind,
                    const uint8_t *hi, size_t hilen, int hikind, uint64_t *out);
int drydb__rank_go(uintptr_t t, const uint8_t *key, size_t klen, uint64_t *out);
int drydb__range_go(uintptr_t t, const uint8_t *lo, size_t lolen, int lokind,
                    const uint8_t *hi, size_t hilen, int hikind, uint32_t flags, size_t max,
                    const uint8_t **keys, size_t *klens, const uint8_t **vals, size_t *vlens, size_t *n);

#define FALLBACK (-1)
#define STRIPES 16

struct drydb__ft {
    /* the table handle served; 0 while closed or free */
    _Atomic uint64_t handle;
    const uint8_t *data;
    const _Atomic uint64_t *verified;
    uint64_t root, depth, first, last, rows;
    uint32_t pshift;
    int key8;
    int kind;
    int nparts;
    uint8_t parts[DRYDB_MAX_PARTS];
    /* the hash index (hash_find; hash_pos 0: none): a compressed table's
     * block offsets from page hash_first, slots from page hash_slots */
    uint64_t hash_first, hash_slots, hash_pos, leaves;
    uint32_t hash_probe;
    /* compressed tables: the engine's page cache (cache_leaf); NULL else */
    const uint8_t *cache_mem;
    struct drydb__slot_words *cache_words;
    const _Atomic uint64_t *cache_hints;
    uint32_t hint_shift;
    uint64_t cache_slots, cache_tag;
    const uintptr_t *cur; /* the database's current version */
    struct drydb__ver *ver; /* the version this layout reads */
    uint32_t vgen;
    struct drydb__ft *next_free;
    struct { _Atomic int64_t n; char pad[56]; } active[STRIPES];
};

static _Atomic(struct drydb__ft *) *_Atomic slots[DRYDB__H_MAX_CHUNKS];
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct drydb__ft *free_list;

/* ---- fault guard ---- */

#ifndef _WIN32
static __thread sigjmp_buf *fault_jmp DRYDB__TLS_IE;
static struct sigaction old_bus, old_segv;

DRYDB__COLD static void on_fault(int sig, siginfo_t *si, void *uc) {
    sigjmp_buf *j = fault_jmp;
    if (j != NULL) {
        fault_jmp = NULL;
        siglongjmp(*j, 1);
    }
    struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
    if (old->sa_flags & SA_SIGINFO) {
        old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler == SIG_DFL) {
        /* back to the default action; returning re-raises the fault */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
    } else if (old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    }
}

DRYDB__COLD static void install_guard(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    /* SA_ONSTACK: Go requires it of every handler; SA_NODEFER: the jump
     * leaves the handler without restoring the mask, so the signal must
     * not be blocked while it runs. */
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGSEGV, &sa, &old_segv);
}

/* fault_try(jb): DRYDB__FAULT_TRY (fast.h). */
typedef drydb__fault_buf fault_buf;
#define fault_try(jb) DRYDB__FAULT_TRY(jb)
#define fault_arm(jb) (fault_jmp = &(jb))
#define fault_disarm() (fault_jmp = NULL)
#else
/* Windows: the fault this guards against cannot happen to a local file.
 * Windows refuses to truncate a file while a view of it is mapped
 * (ERROR_USER_MAPPED_FILE), so there is no lost page to touch; the guard
 * is compiled out (no signals, no sigsetjmp). An in-page error of a file on
 * a failing network share would end the process, as any such read would. */
static void install_guard(void) {}
typedef drydb__fault_buf fault_buf;
#define fault_try(jb) DRYDB__FAULT_TRY(jb)
#define fault_arm(jb) ((void)0)
#define fault_disarm() ((void)0)
#endif
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

/* ---- registry ---- */

static inline uint32_t slot_of(uint64_t h) {
    return (uint32_t)(h >> DRYDB__H_SLOT_SHIFT) & ((1u << DRYDB__H_SLOT_BITS) - 1);
}

DRYDB__COLD DRYDB__HIDDEN struct drydb__ft *drydb__fast_open(uint64_t handle, const struct drydb__layout *l) {
    uint32_t i = slot_of(handle);
    if ((i >> DRYDB__H_CHUNK_BITS) >= DRYDB__H_MAX_CHUNKS) return NULL;
    pthread_once(&guard_once, install_guard);
    pthread_mutex_lock(&reg_mu);
    struct drydb__ft *ft = free_list;
    if (ft != NULL) {
        free_list = ft->next_free;
    } else if ((ft = calloc(1, sizeof *ft)) == NULL) {
        pthread_mutex_unlock(&reg_mu);
        return NULL; /* no fast path: every call goes to Go */
    }
    _Atomic(struct drydb__ft *) *chunk = atomic_load(&slots[i >> DRYDB__H_CHUNK_BITS]);
    if (chunk == NULL) {
        chunk = calloc((size_t)1 << DRYDB__H_CHUNK_BITS, sizeof *chunk);
        if (chunk == NULL) {
            ft->next_free = free_list;
            free_list = ft;
            pthread_mutex_unlock(&reg_mu);
            return NULL;
        }
        atomic_store(&slots[i >> DRYDB__H_CHUNK_BITS], chunk);
    }
    ft->data = l->data;
    ft->verified = (const _Atomic uint64_t *)l->verified;
    ft->root = l->root;
    ft->depth = l->depth;
    ft->first = l->first;
    ft->last = l->last;
    ft->rows = l->rows;
    ft->pshift = l->pshift;
    ft->key8 = l->key8;
    ft->kind = l->kind;
    ft->nparts = l->nparts < DRYDB_MAX_PARTS ? l->nparts : DRYDB_MAX_PARTS;
    ft->hash_first = l->hash_first;
    ft->hash_slots = l->hash_slots;
    ft->hash_pos = (l->hash_last - l->hash_slots) << (l->pshift - 3);
    ft->hash_probe = (uint32_t)l->hash_probe;
    ft->leaves = l->leaves;
    memcpy(ft->parts, l->parts, sizeof ft->parts);
    ft->cache_mem = l->cache_mem;
    ft->cache_words = l->cache_words;
    ft->cache_hints = (const _Atomic uint64_t *)l->cache_hints;
    ft->hint_shift = l->hint_shift;
    ft->cache_slots = l->cache_slots;
    ft->cache_tag = l->cache_tag;
    ft->cur = l->cur;
    ft->ver = l->ver;
    ft->vgen = l->vgen;
    ft->next_free = NULL;
    atomic_store(&ft->handle, handle);
    atomic_store(&chunk[i & ((1u << DRYDB__H_CHUNK_BITS) - 1)], ft);
    pthread_mutex_unlock(&reg_mu);
    return ft;
}

DRYDB__COLD DRYDB__HIDDEN void drydb__fast_close(struct drydb__ft *ft) {
    if (ft == NULL) return;
    uint64_t h = atomic_load(&ft->handle);
    atomic_store(&ft->handle, 0);
    /* Readers increment, then check the handle (both sequentially
     * consistent): each either saw 0 or is counted here. */
    for (int spins = 0;; spins++) {
        int64_t n = 0;
        for (int s = 0; s < STRIPES; s++) n += atomic_load(&ft->active[s].n);
        if (n == 0) break;
        if (spins > 100) sched_yield();
    }
    pthread_mutex_lock(&reg_mu);
    uint32_t i = slot_of(h);
    _Atomic(struct drydb__ft *) *chunk = atomic_load(&slots[i >> DRYDB__H_CHUNK_BITS]);
    if (chunk != NULL) {
        struct drydb__ft *cur = ft;
        atomic_compare_exchange_strong(&chunk[i & ((1u << DRYDB__H_CHUNK_BITS) - 1)], &cur, NULL);
    }
    ft->next_free = free_list;
    free_list = ft;
    pthread_mutex_unlock(&reg_mu);
}

static inline struct drydb__ft *find(uint64_t h) {
    if ((h >> 60) != DRYDB__H_MAGIC || (h & 0xF) != DRYDB__H_KIND_TABLE) return NULL;
    uint32_t i = slot_of(h);
    if ((i >> DRYDB__H_CHUNK_BITS) >= DRYDB__H_MAX_CHUNKS) return NULL;
    _Atomic(struct drydb__ft *) *chunk = atomic_load_explicit(&slots[i >> DRYDB__H_CHUNK_BITS], memory_order_acquire);
    if (chunk == NULL) return NULL;
    return atomic_load_explicit(&chunk[i & ((1u << DRYDB__H_CHUNK_BITS) - 1)], memory_order_acquire);
}

static inline int stripe(void) {
#ifdef _WIN32
    int c = (int)GetCurrentProcessorNumber();
#else
    int c = sched_getcpu(); /* glibc reads it from rseq: no system call */
#endif
    return c < 0 ? 0 : c & (STRIPES - 1);
}

/* current: whether ft's layout belongs to its database's current version.
 * A refresh installs the new version's layouts, publishes the version, and
 * only then closes the old layouts (waiting for their readers): a reader
 * that finds a layout of another version falls back to Go, which answers
 * from the current one, so every answer comes from the version that was
 * current when the call checked. */
static inline int current(const struct drydb__ft *ft) {
    return __atomic_load_n(ft->cur, __ATOMIC_SEQ_CST) == (uintptr_t)ft->ver;
}

/* GUARDED runs `call` (an expression that sets rc) as a fast-path reader
 * of ft: it announces the reader, checks that the table is still open under
 * handle h and reads the current version, makes the calling thread hold
 * that version (what the call returns points into it), and arms the fault
 * guard. rc is FALLBACK when the table closed, the version changed or a
 * fault jumped back (whatever the call had set: the Go path answers again
 * from scratch). */
#define GUARDED(ft, h, rc, call)                                              \
    do {                                                                      \
        int s_ = stripe();                                                    \
        atomic_fetch_add(&(ft)->active[s_].n, 1);                             \
        if (atomic_load(&(ft)->handle) == (h) && current(ft)) {               \
            fault_buf jb_;                                                    \
            if (!drydb__ver_hold((ft)->ver, (ft)->vgen)) {                    \
                rc = FALLBACK; /* out of memory: Go says so */                \
            } else if (fault_try(jb_) == 0) {                                 \
                fault_arm(jb_);                                               \
                call;                                                         \
            } else {                                                          \
                rc = FALLBACK;                                                \
            }                                                                 \
            fault_disarm();                                                   \
        }                                                                     \
        atomic_fetch_sub_explicit(&(ft)->active[s_].n, 1, memory_order_release); \
    } while (0)

/* The reader protocol and the fault guard for copyout.c (fast.h), which
 * copies what drydb_get and friends return while the table is held. */
DRYDB__HIDDEN struct drydb__ft *drydb__fast_hold(uint64_t h, int *s) {
    struct drydb__ft *ft = find(h);
    if (ft == NULL) return NULL;
    *s = stripe();
    atomic_fetch_add(&ft->active[*s].n, 1); /* then check, as GUARDED */
    if (atomic_load(&ft->handle) == h && current(ft)) return ft;
    atomic_fetch_sub_explicit(&ft->active[*s].n, 1, memory_order_release);
    return NULL;
}

DRYDB__HIDDEN void drydb__fast_release(struct drydb__ft *ft, int s) {
    atomic_fetch_sub_explicit(&ft->active[s].n, 1, memory_order_release);
}

#ifndef _WIN32
DRYDB__HIDDEN void drydb__fault_arm(drydb__fault_buf *jb) { fault_jmp = jb; }
#else
DRYDB__HIDDEN void drydb__fault_arm(drydb__fault_buf *jb) { (void)jb; }
#endif

/* ---- versions (fast.h's struct drydb__ver; live.go) ----
 *
 * A call that returns pointers into the file makes its thread hold the
 * version it read: the thread's one hold moves to another version only at
 * its next call (or its exit), so what a call returned stays mapped until
 * the same thread calls again, however many refreshes happen meanwhile. A
 * version replaced by a refresh is unmapped (live.go's reap, at the next
 * refresh or the close) once nothing holds it. Every change of a word is a
 * compare-and-swap that checks gen: a hold or release that meets a recycled
 * struct (its database closed meanwhile) does nothing. */

static pthread_mutex_t ver_mu = PTHREAD_MUTEX_INITIALIZER;
static struct drydb__ver *ver_free;

#define VER_GEN(w) ((uint32_t)((w) >> 32))
#define VER_REFS(w) ((uint32_t)(w))

DRYDB__COLD DRYDB__HIDDEN struct drydb__ver *drydb__ver_new(uint32_t *gen) {
    pthread_mutex_lock(&ver_mu);
    struct drydb__ver *v = ver_free;
    if (v != NULL) ver_free = v->next_free;
    pthread_mutex_unlock(&ver_mu);
    if (v == NULL && (v = calloc(1, sizeof *v)) == NULL) return NULL;
    v->next_free = NULL;
    uint64_t w = __atomic_load_n(&v->word, __ATOMIC_SEQ_CST);
    *gen = VER_GEN(w);
    __atomic_store_n(&v->word, (uint64_t)*gen << 32 | 1, __ATOMIC_SEQ_CST); /* the owner */
    return v;
}

/* acquire adds a reference unless the struct was recycled (gen changed). */
DRYDB__HIDDEN int drydb__ver_acquire(struct drydb__ver *v, uint32_t gen) {
    uint64_t w = __atomic_load_n(&v->word, __ATOMIC_SEQ_CST);
    while (VER_GEN(w) == gen) {
        if (__atomic_compare_exchange_n(&v->word, &w, w + 1, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return 1;
    }
    return 0;
}

DRYDB__HIDDEN void drydb__ver_release(struct drydb__ver *v, uint32_t gen) {
    uint64_t w = __atomic_load_n(&v->word, __ATOMIC_SEQ_CST);
    while (VER_GEN(w) == gen && VER_REFS(w) > 0) {
        if (__atomic_compare_exchange_n(&v->word, &w, w - 1, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
    }
}

/* reap recycles v if nothing holds it (refs 0), or in any case with force
 * (the database is closing: what it returned is invalid from then on); the
 * gen changes first, so a late release finds another struct. */
DRYDB__COLD DRYDB__HIDDEN int drydb__ver_reap(struct drydb__ver *v, uint32_t gen, int force) {
    uint64_t w = __atomic_load_n(&v->word, __ATOMIC_SEQ_CST);
    for (;;) {
        if (VER_GEN(w) != gen || (!force && VER_REFS(w) != 0)) return 0;
        uint64_t next = (uint64_t)(uint32_t)(gen + 1) << 32;
        if (__atomic_compare_exchange_n(&v->word, &w, next, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) break;
    }
    pthread_mutex_lock(&ver_mu);
    v->next_free = ver_free;
    ver_free = v;
    pthread_mutex_unlock(&ver_mu);
    return 1;
}

DRYDB__COLD DRYDB__HIDDEN uint32_t drydb__ver_refs(struct drydb__ver *v, uint32_t gen) {
    uint64_t w = __atomic_load_n(&v->word, __ATOMIC_SEQ_CST);
    return VER_GEN(w) == gen ? VER_REFS(w) : 0;
}

/* Databases' structs are recycled like versions': a call that read a
 * database's struct just before its close reads memory that stays valid. */
static struct drydb__dbc *dbc_free;

DRYDB__COLD DRYDB__HIDDEN struct drydb__dbc *drydb__dbc_new(void) {
    pthread_mutex_lock(&ver_mu);
    struct drydb__dbc *c = dbc_free;
    if (c != NULL) dbc_free = c->next_free;
    pthread_mutex_unlock(&ver_mu);
    if (c == NULL) c = calloc(1, sizeof *c);
    if (c != NULL) c->next_free = NULL;
    return c;
}

DRYDB__COLD DRYDB__HIDDEN void drydb__dbc_free(struct drydb__dbc *c) {
    __atomic_store_n(&c->cur, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_lock(&ver_mu);
    c->next_free = dbc_free;
    dbc_free = c;
    pthread_mutex_unlock(&ver_mu);
}

DRYDB__COLD DRYDB__HIDDEN void drydb__dbc_publish(struct drydb__dbc *c, struct drydb__ver *v) {
    __atomic_store_n(&c->cur, (uintptr_t)v, __ATOMIC_SEQ_CST);
}

/* ---- reading pages (the layout is docs/FORMAT.md's) ---- */

static inline uint16_t u16le(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint64_t u64le(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline uint64_t u64be(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return __builtin_bswap64(v); }

/* page returns page pg when the engine has checked it, it lies in the
 * tree's region and sits at the level expected; else NULL (go to Go). */
static inline const uint8_t *page(const struct drydb__ft *ft, uint64_t pg, unsigned level) {
    if (pg < ft->first || pg >= ft->last) return NULL;
    if (level == 0 && ft->cache_mem != NULL) return NULL; /* a leaf block: cache_leaf */
    if (!(atomic_load_explicit(&ft->verified[pg >> 6], memory_order_acquire) & ((uint64_t)1 << (pg & 63)))) return NULL;
    const uint8_t *p = ft->data + (pg << ft->pshift);
    return p[DRYDB__PG_LEVEL] == level ? p : NULL;
}

/* Number of keys <= k among m big-endian keys (the engine's upperBound8,
 * same interpolation guess and the same fallback). */
static inline size_t upper8(const uint8_t *keys, size_t m, uint64_t k) {
    if (m == 0) return 0;
    uint64_t first = u64be(keys);
    if (k < first) return 0;
    uint64_t last = u64be(keys + 8 * (m - 1));
    if (k >= last) return m;
    uint64_t d = k - first, s = last - first;
    if (s == m - 1) return (size_t)d + 1; /* consecutive keys: no division */
    if ((int64_t)s < 0) { d >>= 1; s >>= 1; }
    size_t g = (size_t)((double)(int64_t)d / (double)(int64_t)s * (double)(m - 1) + 1e-6) + 1;
    if (g > m - 1) g = m - 1;
    if (u64be(keys + 8 * (g - 1)) <= k && k < u64be(keys + 8 * g)) return g;
    size_t base = 0;
    for (size_t n = m; n > 1;) {
        size_t half = n >> 1;
        base = u64be(keys + 8 * (base + half)) <= k ? base + half : base;
        n -= half;
    }
    return base + 1;
}

/* The child index for k in branch8 page p of n entries: the number of
 * separators 1..n-1 that are <= k. The page's scale (format.PgScale) makes
 * the guess one multiplication; it is a hint, checked like upper8's. */
static inline size_t branch8_child(const uint8_t *p, size_t n, uint64_t k) {
    if (n <= 1) return 0;
    const uint8_t *keys = p + DRYDB__PAGE_HDR + 8;
    uint64_t scale = u64le(p + DRYDB__PG_SCALE);
    if (scale != 0) {
        uint64_t first = u64be(keys);
        if (k < first) return 0;
        uint64_t g = (uint64_t)(((unsigned __int128)(k - first) * scale) >> 64);
        if (g < n - 2 && u64be(keys + 8 * g) <= k && k < u64be(keys + 8 * g + 8)) return (size_t)g + 1;
    }
    return upper8(keys, n - 1, k);
}

/* The position of the first key >= k in leaf8 page p of n entries, and
 * whether it is k. A consecutive-key page (the engine checked the flag)
 * needs no search. */
static inline size_t leaf8_find(const uint8_t *p, size_t n, uint64_t k, int *found) {
    if (p[DRYDB__PG_TYPE] & DRYDB__LEAF8_SEQ) {
        uint64_t first = u64be(p + DRYDB__PAGE_HDR), d = k - first;
        *found = d < n;
        return d < n ? (size_t)d : k < first ? 0 : n;
    }
    size_t i = k == 0 ? 0 : upper8(p + DRYDB__PAGE_HDR, n, k - 1);
    *found = i < n && u64be(p + DRYDB__PAGE_HDR + 8 * i) == k;
    return i;
}

/* A page of fixed-size entries (DRYDB__LEAF8_FIXED; n of them, page size
 * ps) has entry i at o0 - i * stride: the distance from its first entry
 * to the page's end. */
static inline size_t leaf8_stride(const uint8_t *p, size_t n, size_t ps, size_t *o0) {
    *o0 = u16le(p + DRYDB__PAGE_HDR + 8 * n);
    return ps - *o0;
}

/* Entry i of leaf8 page p (n entries, page size ps): its value, or -1 when
 * it overflows (Go follows those). A fixed-size page's entries are found by
 * arithmetic, without reading slot i or the entry's length. */
static inline int leaf8_value(const uint8_t *p, size_t n, size_t i, size_t ps,
                              const uint8_t **val, size_t *vlen) {
    size_t so = DRYDB__PAGE_HDR + 8 * n;
    if (p[DRYDB__PG_TYPE] & DRYDB__LEAF8_FIXED) {
        size_t o0, stride = leaf8_stride(p, n, ps, &o0);
        *vlen = stride - DRYDB__LEAF8_HDR;
        *val = *vlen ? p + o0 - i * stride + DRYDB__LEAF8_HDR : drydb__empty;
        return 0;
    }
    return drydb__entry8(p + u16le(p + so + 2 * i), val, vlen);
}

static inline int keycmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    int c = memcmp(a, b, al < bl ? al : bl);
    return c != 0 ? c : (al > bl) - (al < bl);
}

/* ---- slotted pages (variable-length keys; docs/FORMAT.md, "Key heads") ---- */

static inline uint32_t u32be(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return __builtin_bswap32(v); }

/* Key i of slotted page p, leaf or branch. */
static inline const uint8_t *slot_key(const uint8_t *p, size_t i, size_t *kl) {
    const uint8_t *e = p + u16le(p + DRYDB__PAGE_HDR + 2 * i);
    if (p[DRYDB__PG_LEVEL] == 0) {
        *kl = u16le(e);
        return e + DRYDB__LEAF_HDR;
    }
    *kl = u16le(e + 16);
    return e + DRYDB__BRANCH_HDR;
}

/* The 4 bytes of key after prefix, zero-padded (engine keyHead). */
static inline uint32_t key_head(const uint8_t *key, size_t klen, size_t prefix) {
    if (klen >= prefix + 4) return u32be(key + prefix);
    uint8_t b[4] = {0, 0, 0, 0};
    if (klen > prefix) memcpy(b, key + prefix, klen - prefix);
    return u32be(b);
}

/* heads_start begins heads_lower's search for key: 1 when the page's
 * prefix decides it (*ans set), else 0 with *hk its key's head. */
static inline int heads_start(const uint8_t *p, size_t n, const uint8_t *key, size_t klen, size_t from,
                              uint32_t *hk, size_t *ans) {
    const uint8_t *h = p + DRYDB__PAGE_HDR + 2 * n;
    size_t prefix = u16le(h);
    if (prefix > 0) {
        size_t pl;
        const uint8_t *pk = slot_key(p, from, &pl); /* every key has the prefix */
        size_t m = prefix < klen ? prefix : klen;
        int c = memcmp(key, pk, m);
        if (c < 0 || (c == 0 && klen < prefix)) {
            *ans = from;
            return 1;
        }
        if (c > 0) {
            *ans = n;
            return 1;
        }
    }
    *hk = key_head(key, klen, prefix);
    return 0;
}

/* heads_end ends it: from lo, the first head >= hk, the first entry whose
 * key is >= key (> key with after set); whole keys are compared only
 * among the heads equal to hk. */
static inline size_t heads_end(const uint8_t *p, size_t n, const uint8_t *key, size_t klen, uint32_t hk, size_t lo,
                               int after) {
    const uint8_t *heads = p + DRYDB__PAGE_HDR + 2 * n + DRYDB__HEADS_HDR;
    size_t end = lo;
    while (end < n && u32be(heads + 4 * end) == hk) {
        if (++end - lo > 4) { /* many equal heads: find their end by halving */
            size_t a = end, b = n;
            while (a < b) {
                size_t m = (a + b) >> 1;
                if (u32be(heads + 4 * m) <= hk) a = m + 1;
                else b = m;
            }
            end = a;
            break;
        }
    }
    while (lo < end) {
        size_t m = (lo + end) >> 1, kl;
        const uint8_t *k = slot_key(p, m, &kl);
        int c = keycmp(k, kl, key, klen);
        if (c < 0 || (after && c == 0)) lo = m + 1;
        else end = m;
    }
    return lo;
}

enum { HEADS_COUNT = 16 };

/* How many of the heads lo..lo+len-1 (len at most HEADS_COUNT) are < hk. */
static inline size_t heads_below(const uint8_t *heads, size_t lo, size_t len, uint32_t hk) {
    size_t c = 0;
    for (size_t i = 0; i < len; i++) c += u32be(heads + 4 * (lo + i)) < hk;
    return c;
}

/* heads_lower is the engine's headsLower: among entries from..n-1 of a
 * page that carries heads, the first whose key is >= key (> key with
 * after set); whole keys are compared only among equal heads. */
static size_t heads_lower(const uint8_t *p, size_t n, const uint8_t *key, size_t klen, size_t from, int after) {
    if (n <= from) return n;
    uint32_t hk;
    size_t lo = from, len = n - from;
    if (heads_start(p, n, key, klen, from, &hk, &lo)) return lo;
    const uint8_t *heads = p + DRYDB__PAGE_HDR + 2 * n + DRYDB__HEADS_HDR;
    /* the first head >= hk, branch-free (a conditional move per step: the
     * branches of a plain binary search over random keys mispredict). The
     * answer lies in lo..lo+len. Halving waits for each step's load; the
     * last HEADS_COUNT or fewer heads are counted instead (those < hk: the
     * answer is lo plus their number), their loads all at once. */
    while (len > HEADS_COUNT) {
        size_t half = len >> 1;
        lo = u32be(heads + 4 * (lo + half - 1)) < hk ? lo + half : lo;
        len -= half;
    }
    return heads_end(p, n, key, klen, hk, lo + heads_below(heads, lo, len, hk), after);
}

/* heads_lower of two keys in one page (count's bounds): the two searches
 * step together, each step's two loads independent, so that they wait
 * for the cache once, not twice. */
static void heads_lower2(const uint8_t *p, size_t n, const uint8_t *const key[2], const size_t klen[2], size_t from,
                         int after, size_t out[2]) {
    uint32_t hk[2];
    int done[2];
    if (n <= from) {
        out[0] = out[1] = n;
        return;
    }
    for (int i = 0; i < 2; i++) done[i] = heads_start(p, n, key[i], klen[i], from, &hk[i], &out[i]);
    if (done[0] || done[1]) {
        for (int i = 0; i < 2; i++)
            if (!done[i]) out[i] = heads_lower(p, n, key[i], klen[i], from, after);
        return;
    }
    const uint8_t *heads = p + DRYDB__PAGE_HDR + 2 * n + DRYDB__HEADS_HDR;
    size_t a = from, b = from, len = n - from;
    while (len > HEADS_COUNT) {
        size_t half = len >> 1;
        a = u32be(heads + 4 * (a + half - 1)) < hk[0] ? a + half : a;
        b = u32be(heads + 4 * (b + half - 1)) < hk[1] ? b + half : b;
        len -= half;
    }
    a += heads_below(heads, a, len, hk[0]);
    b += heads_below(heads, b, len, hk[1]);
    out[0] = heads_end(p, n, key[0], klen[0], hk[0], a, after);
    out[1] = heads_end(p, n, key[1], klen[1], hk[1], b, after);
}

/* Among entries from..n-1 of slotted page p, the first whose key is >= key
 * (> key with after set): through the heads when the page has them. */
static inline size_t slot_lower(const uint8_t *p, const uint8_t *key, size_t klen, size_t from, int after) {
    size_t n = u16le(p + DRYDB__PG_N);
    if (p[DRYDB__PG_TYPE] & DRYDB__PG_HEADS) return heads_lower(p, n, key, klen, from, after);
    size_t lo = from, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) >> 1, kl;
        const uint8_t *k = slot_key(p, m, &kl);
        int c = keycmp(k, kl, key, klen);
        if (c < 0 || (after && c == 0)) lo = m + 1;
        else hi = m;
    }
    return lo;
}

/* slot_lower of two keys (heads_lower2 where the page has heads). */
static inline void slot_lower2(const uint8_t *p, const uint8_t *const key[2], const size_t klen[2], size_t from,
                               int after, size_t out[2]) {
    if (p[DRYDB__PG_TYPE] & DRYDB__PG_HEADS) {
        heads_lower2(p, u16le(p + DRYDB__PG_N), key, klen, from, after, out);
        return;
    }
    for (int i = 0; i < 2; i++) out[i] = slot_lower(p, key[i], klen[i], from, after);
}

/* The child of slotted branch p that may hold key: the last entry whose
 * separator is <= key (entry 0 when none is). */
static inline uint64_t slot_branch_child(const uint8_t *p, const uint8_t *key, size_t klen) {
    size_t i = slot_lower(p, key, klen, 1, 1) - 1;
    return u64le(p + u16le(p + DRYDB__PAGE_HDR + 2 * i));
}

/* ---- the page cache of compressed tables ----
 *
 * A compressed table's branch pages are plain pages of the file; its leaves
 * are blocks that the engine decodes into its page cache (engine/cache.go).
 * A get whose leaf is in the cache is answered here: cache_leaf takes the
 * hit exactly as cache.get's lock-free path does (engine.CacheLayout states
 * the protocol) and the value is copied into the thread's buffer before the
 * pin is dropped, as the Go path does. A miss, an evicting slot or anything
 * unusual goes to Go, which loads the block. */

#define HIT_PIN (((uint64_t)1 << 32) | 1)

/* cache_leaf returns the decoded leaf of the block at byte offset off,
 * pinned (*held set: unpin with cache_unpin), or NULL (go to Go). */
static const uint8_t *cache_leaf(const struct drydb__ft *ft, uint64_t off, struct drydb__slot_words **held) {
    uint64_t tag = ft->cache_tag | off;
    uint64_t h = tag * (uint64_t)DRYDB__HINT_MUL;
    uint64_t g = (h >> ft->hint_shift) & ~(uint64_t)(DRYDB__HINT_WAYS - 1);
    uint32_t fp = (uint32_t)(h >> 16) | 1;
    for (int w = 0; w < DRYDB__HINT_WAYS; w++) {
        uint64_t e = atomic_load(&ft->cache_hints[g + w]);
        if ((uint32_t)e != fp) continue;
        uint64_t j = (e >> 32) - 1;
        if (j >= ft->cache_slots) continue;
        struct drydb__slot_words *sw = &ft->cache_words[j];
        _Atomic uint64_t *pin = (_Atomic uint64_t *)&sw->pin, *stag = (_Atomic uint64_t *)&sw->tag;
        /* tag before the pin (a stale hint costs no atomic add) and after
         * it: between the two the slot may have changed pages; pinned, it
         * cannot */
        if (atomic_load(stag) != tag) continue;
        uint64_t v = atomic_fetch_add(pin, HIT_PIN) + HIT_PIN;
        if ((int32_t)(uint32_t)v <= 0 || (v >> 63) != 0) { /* evicting, or hits about to wrap: Go's */
            atomic_fetch_sub(pin, HIT_PIN);
            return NULL;
        }
        if (atomic_load(stag) != tag) {
            atomic_fetch_sub(pin, HIT_PIN);
            continue;
        }
        _Atomic uint64_t *ref = (_Atomic uint64_t *)&sw->ref;
        if (atomic_load_explicit(ref, memory_order_relaxed) == 0) atomic_store(ref, 1);
        *held = sw;
        return ft->cache_mem + (j << ft->pshift);
    }
    return NULL;
}

static inline void cache_unpin(struct drydb__slot_words *sw) {
    atomic_fetch_sub((_Atomic uint64_t *)&sw->pin, 1);
}

/* leaf_hold returns the leaf at ref for reading: a checked page of the
 * file, or a compressed table's decoded leaf in the cache, pinned (*held:
 * leaf_drop it); NULL to go to Go. */
static inline const uint8_t *leaf_hold(const struct drydb__ft *ft, uint64_t ref, struct drydb__slot_words **held) {
    *held = NULL;
    return ft->cache_mem != NULL ? cache_leaf(ft, ref, held) : page(ft, ref, 0);
}

static inline void leaf_drop(struct drydb__slot_words *held) {
    if (held != NULL) cache_unpin(held);
}

/* A branch's entry i: its child and the rows before it in the branch. */
static inline uint64_t branch_child(const struct drydb__ft *ft, const uint8_t *p, size_t n, size_t i) {
    return ft->key8 ? u64le(p + DRYDB__PAGE_HDR + 8 * n + 8 * i) : u64le(p + u16le(p + DRYDB__PAGE_HDR + 2 * i));
}

static inline uint64_t branch_before(const struct drydb__ft *ft, const uint8_t *p, size_t n, size_t i) {
    return ft->key8 ? u64le(p + DRYDB__PAGE_HDR + 16 * n + 8 * i)
                    : u64le(p + u16le(p + DRYDB__PAGE_HDR + 2 * i) + 8);
}

/* leaf8_lookup finds number key k in leaf8 page p: DRYDB_OK (val set),
 * DRYDB_NOTFOUND or FALLBACK (an overflow value). */
static inline int leaf8_lookup(const struct drydb__ft *ft, const uint8_t *p, uint64_t k, const uint8_t **val,
                               size_t *vlen) {
    size_t n = u16le(p + DRYDB__PG_N);
    int found;
    size_t i = leaf8_find(p, n, k, &found);
    if (!found) return DRYDB_NOTFOUND;
    return leaf8_value(p, n, i, (size_t)1 << ft->pshift, val, vlen) == 0 ? DRYDB_OK : FALLBACK;
}

/* The value of entry i of plain leaf p: DRYDB_OK or FALLBACK (overflow). */
static inline int leaf_entry_value(const struct drydb__ft *ft, const uint8_t *p, size_t i, const uint8_t **val,
                                   size_t *vlen) {
    if (ft->key8)
        return leaf8_value(p, u16le(p + DRYDB__PG_N), i, (size_t)1 << ft->pshift, val, vlen) == 0 ? DRYDB_OK
                                                                                                 : FALLBACK;
    const uint8_t *e = p + u16le(p + DRYDB__PAGE_HDR + 2 * i);
    size_t kl = u16le(e);
    uint16_t vl = u16le(e + 2);
    if (vl & DRYDB__OVERFLOW) return FALLBACK;
    *val = vl ? e + DRYDB__LEAF_HDR + kl : drydb__empty;
    *vlen = vl;
    return DRYDB_OK;
}

/* leaf_value finds key in leaf p; DRYDB_OK (val set), DRYDB_NOTFOUND or
 * FALLBACK. */
static inline int leaf_value(const struct drydb__ft *ft, const uint8_t *p, const uint8_t *key, size_t klen,
                             const uint8_t **val, size_t *vlen) {
    size_t n = u16le(p + DRYDB__PG_N);
    if (ft->key8) return leaf8_lookup(ft, p, u64be(key), val, vlen);
    size_t lo = slot_lower(p, key, klen, 0, 0);
    if (lo >= n) return DRYDB_NOTFOUND;
    const uint8_t *e = p + u16le(p + DRYDB__PAGE_HDR + 2 * lo);
    if (keycmp(e + DRYDB__LEAF_HDR, u16le(e), key, klen) != 0) return DRYDB_NOTFOUND;
    return leaf_entry_value(ft, p, lo, val, vlen);
}

/* ---- the hash index (engine/internal/format/hash.go; engine/hash.go's
 * hashFind is the Go side) ---- */

/* hash_find is hashFind: 1 with the leaf (a checked page of the tree) and
 * the entry holding key, 0 when no slot matches (the tree decides: the
 * hash index only confirms keys), FALLBACK when a page on the way is not
 * checked yet (Go checks it). */
static inline int checked_hash_page(const struct drydb__ft *ft, uint64_t pg) {
    return (atomic_load_explicit(&ft->verified[pg >> 6], memory_order_acquire) >> (pg & 63)) & 1;
}

/* hash_leaf is tree.hashLeaf: the leaf a slot's field ref names (a plain
 * table's page; a compressed table's block ref - 1, pinned in *held), or
 * NULL for Go. */
static inline const uint8_t *hash_leaf(const struct drydb__ft *ft, uint64_t ref,
                                       struct drydb__slot_words **held) {
    if (ft->cache_mem == NULL) return page(ft, ref, 0);
    uint64_t ord = ref - 1, per = ft->pshift - 4, bpg = ft->hash_first + (ord >> per);
    if (ord >= ft->leaves || !checked_hash_page(ft, bpg)) return NULL;
    uint64_t off = u64le(ft->data + (bpg << ft->pshift) + DRYDB__PAGE_HDR + 8 * (ord & (((uint64_t)1 << per) - 1)));
    return cache_leaf(ft, off, held);
}

static inline int hash_find(const struct drydb__ft *ft, const uint8_t *key, size_t klen, const uint8_t **leaf,
                            size_t *idx, struct drydb__slot_words **held) {
    uint64_t lo, h = drydb__hash_key(key, klen);
    unsigned shift = ft->pshift - 3;
    uint64_t mask = ((uint64_t)1 << shift) - 1;
    uint64_t s = drydb__mul_hi(h, ft->hash_pos, &lo);
    *held = NULL;
    for (uint32_t d = 0; d <= ft->hash_probe; d++, s++) {
        if (s >= ft->hash_pos) s = 0;
        if ((s & mask) < DRYDB__HASH_HDR_SLOTS) s += DRYDB__HASH_HDR_SLOTS - (s & mask);
        uint64_t pg = ft->hash_slots + (s >> shift);
        if (!checked_hash_page(ft, pg)) return FALLBACK;
        uint64_t w = u64le(ft->data + (pg << ft->pshift) + (s & mask) * 8);
        if (w == 0) return 0;
        if ((uint16_t)w != (uint16_t)h) continue;
        const uint8_t *p = hash_leaf(ft, (w >> 16) & 0xffffffffu, held);
        if (p == NULL) return FALLBACK;
        size_t i = (size_t)(w >> 48);
        if (i < u16le(p + DRYDB__PG_N)) {
            if (ft->key8) {
                if (klen == 8 && memcmp(p + DRYDB__PAGE_HDR + 8 * i, key, 8) == 0) goto found;
            } else {
                const uint8_t *e = p + u16le(p + DRYDB__PAGE_HDR + 2 * i);
                if (keycmp(e + DRYDB__LEAF_HDR, u16le(e), key, klen) == 0) goto found;
            }
        }
        leaf_drop(*held);
        *held = NULL;
        continue;
    found:
        *leaf = p;
        *idx = i;
        return 1;
    }
    return 0;
}

/* copy_out copies a value found in a cached leaf into the thread's buffer
 * (valid until the thread's next lookup): DRYDB_OK, or FALLBACK when the
 * buffer cannot grow (Go reports it). */
static inline int copy_out(const uint8_t **val, size_t *vlen) {
    if (*vlen == 0) return DRYDB_OK;
    uint8_t *b = drydb__tls_reserve(*vlen);
    if (b == NULL) return FALLBACK;
    memcpy(b, *val, *vlen);
    *val = b;
    return DRYDB_OK;
}

/* Finds key; returns DRYDB_OK (val set), DRYDB_NOTFOUND or FALLBACK. With
 * copy set, a value found in a compressed table's cached leaf is copied
 * into the thread's buffer (drydb_get's rule for compressed tables);
 * without it such tables go to Go. */
static int lookup(const struct drydb__ft *ft, const uint8_t *key, size_t klen,
                  const uint8_t **val, size_t *vlen, int copy) {
    if (ft->depth == 0) return DRYDB_NOTFOUND;
    if (ft->hash_pos != 0 && (ft->cache_mem == NULL || copy)) {
        const uint8_t *p;
        size_t i;
        struct drydb__slot_words *held;
        int r = hash_find(ft, key, klen, &p, &i, &held);
        if (r != 0) {
            if (r == FALLBACK) return FALLBACK;
            r = leaf_entry_value(ft, p, i, val, vlen);
            if (held != NULL) {
                r = r == DRYDB_OK ? copy_out(val, vlen) : r;
                cache_unpin(held);
            }
            return r;
        }
    }
    uint64_t ref = ft->root;
    if (ft->key8) {
        if (klen != 8) return FALLBACK;
        uint64_t k = u64be(key);
        for (unsigned lvl = (unsigned)ft->depth - 1; lvl > 0; lvl--) {
            const uint8_t *p = page(ft, ref, lvl);
            if (p == NULL) return FALLBACK;
            size_t n = u16le(p + DRYDB__PG_N);
            ref = u64le(p + DRYDB__PAGE_HDR + 8 * n + 8 * branch8_child(p, n, k));
        }
    } else {
        for (unsigned lvl = (unsigned)ft->depth - 1; lvl > 0; lvl--) {
            const uint8_t *p = page(ft, ref, lvl);
            if (p == NULL) return FALLBACK;
            ref = slot_branch_child(p, key, klen);
        }
    }
    if (ft->cache_mem == NULL) {
        const uint8_t *p = page(ft, ref, 0);
        return p == NULL ? FALLBACK : leaf_value(ft, p, key, klen, val, vlen);
    }
    struct drydb__slot_words *held;
    const uint8_t *p = copy ? cache_leaf(ft, ref, &held) : NULL;
    if (p == NULL) return FALLBACK;
    int rc = leaf_value(ft, p, key, klen, val, vlen);
    if (rc == DRYDB_OK) rc = copy_out(val, vlen);
    cache_unpin(held);
    return rc;
}

/* utf8_valid is Go's utf8.Valid (keyenc's rule for string keys): no
 * overlong forms, no surrogates, nothing above U+10FFFF, nothing cut off. */
static int utf8_valid(const uint8_t *s, size_t n) {
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) { /* eight ASCII bytes at a time */
            uint64_t w;
            memcpy(&w, s + i, 8);
            if ((w & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t len;
        uint8_t lo = 0x80, hi = 0xBF; /* the second byte's range */
        if (c >= 0xC2 && c <= 0xDF) len = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0) lo = 0xA0;      /* overlong */
            else if (c == 0xED) hi = 0x9F; /* surrogates */
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0) lo = 0x90;      /* overlong */
            else if (c == 0xF4) hi = 0x8F; /* above U+10FFFF */
        } else return 0;
        if (n - i < len || s[i + 1] < lo || s[i + 1] > hi) return 0;
        for (size_t j = 2; j < len; j++)
            if ((s[i + j] & 0xC0) != 0x80) return 0;
        i += len;
    }
    return 1;
}

/* float_ok is keyenc.DecodeFloat64's rule: 8 bytes, not the encoding of
 * -0 (keys hold +0 only) or of a NaN. */
static inline int float_ok(const uint8_t *key, size_t klen) {
    if (klen != 8) return 0;
    uint64_t u = u64be(key);
    if (u == 0x7fffffffffffffffull) return 0;
    uint64_t bits = (u >> 63) ? u & ~(1ull << 63) : ~u;
    return !((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (bits & 0x000fffffffffffffull) != 0);
}

/* composite_ok is keyenc's walk of a composite key (with prefix set it may
 * end after any whole part, as a bound may: keyenc.ValidateBound):
 * fixed-width parts whole (float64 ones checked), string and bytes parts
 * escaped (0x00 0xFF) and ended by 0x00 0x01, strings UTF-8 run by run
 * (a 0x00 is a character of its own, so that is the unescaped part's rule). */
static int composite_ok(const struct drydb__ft *ft, const uint8_t *k, size_t n, int prefix) {
    size_t i = 0;
    for (int p = 0; p < ft->nparts; p++) {
        if (prefix && i == n) return 1;
        switch (ft->parts[p]) {
        case DRYDB_KEY_INT64:
        case DRYDB_KEY_UINT64:
        case DRYDB_KEY_FLOAT64: {
            if (n - i < 8 || (ft->parts[p] == DRYDB_KEY_FLOAT64 && !float_ok(k + i, 8))) return 0;
            i += 8;
            continue;
        }
        case DRYDB_KEY_UUID:
        case DRYDB_KEY_ULID:
            if (n - i < 16) return 0;
            i += 16;
            continue;
        case DRYDB_KEY_STRING:
        case DRYDB_KEY_BYTES:
            for (;;) {
                const uint8_t *z = i < n ? memchr(k + i, 0, n - i) : NULL;
                if (z == NULL || (size_t)(z - k) + 1 >= n) return 0; /* not terminated */
                size_t zi = (size_t)(z - k);
                if (ft->parts[p] == DRYDB_KEY_STRING && !utf8_valid(k + i, zi - i)) return 0;
                i = zi + 2;
                if (k[zi + 1] == 0x01) break;
                if (k[zi + 1] != 0xFF) return 0;
            }
            continue;
        }
        return 0;
    }
    return i == n;
}

/* Keys the fast path may look up as they are: for other encodings (and a
 * key one of these refuses) the Go side validates the key first, so that
 * a refused key is an error, not a miss. */
static inline int key_ok(const struct drydb__ft *ft, const uint8_t *key, size_t klen) {
    switch (ft->kind) {
    case DRYDB_KEY_COMPOSITE:
        return composite_ok(ft, key, klen, 0);
    case DRYDB_KEY_BYTES:
        return 1;
    case DRYDB_KEY_INT64:
    case DRYDB_KEY_UINT64:
        return klen == 8;
    case DRYDB_KEY_FLOAT64:
        return float_ok(key, klen);
    case DRYDB_KEY_UUID:
    case DRYDB_KEY_ULID:
        return klen == 16;
    case DRYDB_KEY_STRING:
        return utf8_valid(key, klen);
    }
    return 0;
}

/* A bound is a key (of a composite kind, also a tuple prefix): one the fast
 * path cannot vouch for goes to Go, which validates it (DRYDB_BADKEY) as
 * drydb_get does its key. */
static inline int bound_key_ok(const struct drydb__ft *ft, const uint8_t *key, size_t klen, int kind) {
    if (kind == DRYDB_UNBOUNDED) return 1;
    return ft->kind == DRYDB_KEY_COMPOSITE ? composite_ok(ft, key, klen, 1) : key_ok(ft, key, klen);
}

/* drydb_get's answer in C (ft held, guard armed: GUARDED, or copyout.c),
 * or FALLBACK for Go: also for every argument Go must report. */
DRYDB__HIDDEN int drydb__fast_get(const struct drydb__ft *ft, const uint8_t *key, size_t klen,
                                  const uint8_t **val, size_t *vlen) {
    if ((key == NULL && klen != 0) || klen > DRYDB_MAX_LEN || val == NULL || vlen == NULL || !key_ok(ft, key, klen))
        return FALLBACK;
    return lookup(ft, key ? key : drydb__empty, klen, val, vlen, 1);
}

EXPORT int drydb_get(drydb_table *t, const uint8_t *key, size_t klen, const uint8_t **val, size_t *vlen) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft = find(h);
    if (ft != NULL) {
        int rc = FALLBACK;
        GUARDED(ft, h, rc, rc = drydb__fast_get(ft, key, klen, val, vlen));
        if (rc != FALLBACK) return rc;
    }
    return drydb__get_go(h, key, klen, val, vlen);
}

/* many answers a whole batch, or FALLBACK as soon as one key needs Go. */
static int many(const struct drydb__ft *ft, size_t n, const uint8_t *keys, const size_t *klens,
                const uint8_t **vals, size_t *vlens, uint8_t *found) {
    const uint8_t *k = keys;
    for (size_t i = 0; i < n; i++) {
        size_t kl = klens[i];
        if (kl > DRYDB_MAX_LEN || !key_ok(ft, k, kl)) return FALLBACK;
        int r = lookup(ft, k, kl, &vals[i], &vlens[i], 0);
        if (r == FALLBACK) return FALLBACK;
        if (r == DRYDB_NOTFOUND) {
            vals[i] = NULL;
            vlens[i] = 0;
        }
        found[i] = r == DRYDB_OK;
        k += kl;
    }
    return DRYDB_OK;
}

/* drydb_get_many's answer in C, as drydb__fast_get's. */
DRYDB__HIDDEN int drydb__fast_many(const struct drydb__ft *ft, size_t n, const uint8_t *keys, const size_t *klens,
                                   const uint8_t **vals, size_t *vlens, uint8_t *found) {
    if (n == 0 || n > DRYDB__MAX_BATCH || keys == NULL || klens == NULL || vals == NULL || vlens == NULL ||
        found == NULL)
        return FALLBACK;
    return many(ft, n, keys, klens, vals, vlens, found);
}

EXPORT int drydb_get_many(drydb_table *t, size_t n, const uint8_t *keys, const size_t *klens,
                          const uint8_t **vals, size_t *vlens, uint8_t *found) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft = find(h);
    if (ft != NULL) {
        int rc = FALLBACK;
        GUARDED(ft, h, rc, rc = drydb__fast_many(ft, n, keys, klens, vals, vlens, found));
        if (rc != FALLBACK) return rc;
    }
    /* Go answers the whole batch (again), with every check and message. */
    return drydb__get_many_go(h, n, keys, klens, vals, vlens, found);
}

/* rank: the number of keys < key, and whether key is present (the
 * engine's tree.rank: one descent summing the branches' row counts). */
/* rank's descent from page ref at level lvl, row rows before it. */
static int rank_from(const struct drydb__ft *ft, const uint8_t *key, size_t klen, unsigned lvl, uint64_t ref,
                     uint64_t row, uint64_t *out, int *found) {
    uint64_t k = ft->key8 ? u64be(key) : 0;
    for (; lvl > 0; lvl--) {
        const uint8_t *p = page(ft, ref, lvl);
        if (p == NULL) return FALLBACK;
        size_t n = u16le(p + DRYDB__PG_N);
        size_t i = ft->key8 ? branch8_child(p, n, k) : slot_lower(p, key, klen, 1, 1) - 1;
        row += branch_before(ft, p, n, i);
        ref = branch_child(ft, p, n, i);
    }
    struct drydb__slot_words *held;
    const uint8_t *p = leaf_hold(ft, ref, &held);
    if (p == NULL) return FALLBACK;
    size_t n = u16le(p + DRYDB__PG_N), i;
    if (ft->key8) {
        i = leaf8_find(p, n, k, found);
    } else {
        i = slot_lower(p, key, klen, 0, 0);
        if (i < n) {
            const uint8_t *e = p + u16le(p + DRYDB__PAGE_HDR + 2 * i);
            *found = keycmp(e + DRYDB__LEAF_HDR, u16le(e), key, klen) == 0;
        }
    }
    leaf_drop(held);
    *out = row + i;
    return DRYDB_OK;
}

static int rank(const struct drydb__ft *ft, const uint8_t *key, size_t klen, uint64_t *out, int *found) {
    *found = 0;
    if (ft->depth == 0) {
        *out = 0;
        return DRYDB_OK;
    }
    if (ft->key8 && klen != 8) return FALLBACK; /* byte compares on key arrays: Go */
    return rank_from(ft, key, klen, (unsigned)ft->depth - 1, ft->root, 0, out, found);
}

/* The ranks of two keys (count's bounds) in a tree of slotted pages: one
 * descent while both keys lead to the same child, each page searched for
 * both at once (slot_lower2), then a descent each. */
static int rank2(const struct drydb__ft *ft, const uint8_t *const key[2], const size_t klen[2], uint64_t out[2],
                 int found[2]) {
    found[0] = found[1] = 0;
    if (ft->depth == 0) {
        out[0] = out[1] = 0;
        return DRYDB_OK;
    }
    uint64_t ref = ft->root, row[2] = {0, 0};
    unsigned lvl = (unsigned)ft->depth - 1;
    for (; lvl > 0; lvl--) {
        const uint8_t *p = page(ft, ref, lvl);
        if (p == NULL) return FALLBACK;
        size_t n = u16le(p + DRYDB__PG_N), i[2];
        uint64_t c[2];
        slot_lower2(p, key, klen, 1, 1, i);
        for (int j = 0; j < 2; j++) {
            row[j] += branch_before(ft, p, n, i[j] - 1);
            c[j] = branch_child(ft, p, n, i[j] - 1);
        }
        if (c[0] != c[1]) { /* the paths part */
            int rc = rank_from(ft, key[0], klen[0], lvl - 1, c[0], row[0], &out[0], &found[0]);
            return rc != DRYDB_OK ? rc : rank_from(ft, key[1], klen[1], lvl - 1, c[1], row[1], &out[1], &found[1]);
        }
        ref = c[0];
    }
    struct drydb__slot_words *held;
    const uint8_t *p = leaf_hold(ft, ref, &held);
    if (p == NULL) return FALLBACK;
    size_t n = u16le(p + DRYDB__PG_N), i[2];
    slot_lower2(p, key, klen, 0, 0, i);
    for (int j = 0; j < 2; j++) {
        if (i[j] < n) {
            const uint8_t *e = p + u16le(p + DRYDB__PAGE_HDR + 2 * i[j]);
            found[j] = keycmp(e + DRYDB__LEAF_HDR, u16le(e), key[j], klen[j]) == 0;
        }
        out[j] = row[j] + i[j];
    }
    leaf_drop(held);
    return DRYDB_OK;
}

/* leaf_at_row holds the leaf with row r (the engine's tree.descend by row) and
 * sets *first to its first row; NULL to go to Go. */
static const uint8_t *leaf_at_row(const struct drydb__ft *ft, uint64_t r, uint64_t *first,
                                  struct drydb__slot_words **held) {
    uint64_t row = 0, ref = ft->root;
    for (unsigned lvl = (unsigned)ft->depth - 1; lvl > 0; lvl--) {
        const uint8_t *p = page(ft, ref, lvl);
        if (p == NULL) return NULL;
        size_t n = u16le(p + DRYDB__PG_N), lo = 1, hi = n;
        while (lo < hi) { /* the last entry with no more rows before it than r - row */
            size_t m = (lo + hi) >> 1;
            if (branch_before(ft, p, n, m) <= r - row) lo = m + 1;
            else hi = m;
        }
        row += branch_before(ft, p, n, lo - 1);
        ref = branch_child(ft, p, n, lo - 1);
    }
    const uint8_t *p = leaf_hold(ft, ref, held);
    if (p != NULL && r - row >= u16le(p + DRYDB__PG_N)) { /* counts that lie: Go reports them */
        leaf_drop(*held);
        return NULL;
    }
    *first = row;
    return p;
}

/* bound_row: the first row inside a lower bound, or the first row past an
 * upper one (the engine's tree.boundRow). */
static int bound_row(const struct drydb__ft *ft, const uint8_t *key, size_t klen, int kind, int upper, uint64_t *out) {
    if (kind == DRYDB_UNBOUNDED) {
        *out = upper ? ft->rows : 0;
        return DRYDB_OK;
    }
    int found, rc = rank(ft, key, klen, out, &found);
    if (rc == DRYDB_OK && found && (kind == DRYDB_EXCLUSIVE) != upper) ++*out;
    return rc;
}

static inline int bound_ok(const uint8_t *k, size_t n, int kind) {
    return kind == DRYDB_UNBOUNDED || ((kind == DRYDB_INCLUSIVE || kind == DRYDB_EXCLUSIVE) &&
                                       (k != NULL || n == 0) && n <= DRYDB_MAX_LEN);
}

/* count_rows: drydb_count's answer; *out is written only on success. */
/* bound_row of a range's two bounds: the first row inside it and the
 * first past it. */
static int bound_rows(const struct drydb__ft *ft, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi,
                      size_t hilen, int hikind, uint64_t *a, uint64_t *b) {
    if (ft->key8 || lokind == DRYDB_UNBOUNDED || hikind == DRYDB_UNBOUNDED) {
        int rc = bound_row(ft, lo, lolen, lokind, 0, a);
        return rc != DRYDB_OK ? rc : bound_row(ft, hi, hilen, hikind, 1, b);
    }
    const uint8_t *key[2] = {lo, hi};
    size_t klen[2] = {lolen, hilen};
    uint64_t r[2];
    int found[2], rc = rank2(ft, key, klen, r, found);
    if (rc != DRYDB_OK) return rc;
    *a = r[0] + (found[0] && lokind == DRYDB_EXCLUSIVE);
    *b = r[1] + (found[1] && hikind != DRYDB_EXCLUSIVE);
    return DRYDB_OK;
}

static int count_rows(const struct drydb__ft *ft, const uint8_t *lo, size_t lolen, int lokind,
                      const uint8_t *hi, size_t hilen, int hikind, uint64_t *out) {
    uint64_t a, b;
    int rc = bound_rows(ft, lo, lolen, lokind, hi, hilen, hikind, &a, &b);
    if (rc == DRYDB_OK) *out = b > a ? b - a : 0;
    return rc;
}

EXPORT int drydb_count(drydb_table *t, const uint8_t *lo, size_t lolen, int lokind,
                       const uint8_t *hi, size_t hilen, int hikind, uint64_t *out) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft = find(h);
    if (ft != NULL && out != NULL && bound_ok(lo, lolen, lokind) && bound_ok(hi, hilen, hikind) &&
        bound_key_ok(ft, lo, lolen, lokind) && bound_key_ok(ft, hi, hilen, hikind)) {
        int rc = FALLBACK;
        GUARDED(ft, h, rc, rc = count_rows(ft, lo, lolen, lokind, hi, hilen, hikind, out));
        if (rc != FALLBACK) return rc;
    }
    return drydb__count_go(h, lo, lolen, lokind, hi, hilen, hikind, out);
}

EXPORT int drydb_rank(drydb_table *t, const uint8_t *key, size_t klen, uint64_t *out) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft = find(h);
    if (ft != NULL && out != NULL && (key != NULL || klen == 0) && klen <= DRYDB_MAX_LEN && key_ok(ft, key, klen)) {
        int rc = FALLBACK, found;
        GUARDED(ft, h, rc, rc = rank(ft, key, klen, out, &found));
        if (rc != FALLBACK) return rc;
    }
    return drydb__rank_go(h, key, klen, out);
}

/* ---- one-word answers for bindings ----
 *
 * For a caller whose cost is converting arguments and out-parameters
 * (Python's ctypes: ~25 ns per argument, a pool of out-parameters to keep
 * calls of different threads apart, one more conversion per result read),
 * drydb_get and drydb_count answered in the return value alone. Not in
 * drydb.h: the packing is a binding's concern, not an API for C. */

/* drydb__get_word: drydb_get's answer as one word: value address << 16 |
 * length when found with a length below 65536 (addresses of user space fit
 * 47 bits on every 64-bit Linux target, so an answer is below 2^63: one
 * comparison tells it from the two codes); DRYDB__WORD_MISSING when the key
 * is absent; DRYDB__WORD_ASK otherwise (an error, a longer value, an
 * address that does not fit): the caller then calls drydb_get for the
 * answer or the error. */
EXPORT uint64_t drydb__get_word(drydb_table *t, const uint8_t *key, size_t klen) {
    const uint8_t *v;
    size_t n;
    int rc = drydb_get(t, key, klen, &v, &n);
    if (rc == DRYDB_NOTFOUND) return DRYDB__WORD_MISSING;
    if (rc != DRYDB_OK || n > 0xFFFF) return DRYDB__WORD_ASK;
    uint64_t a = (uint64_t)(uintptr_t)v;
    if (a >> 47) return DRYDB__WORD_ASK;
    return a << 16 | n;
}

/* drydb__get_word_i64 / _u64: drydb__get_word for an int64 / uint64 table
 * with the key as a C int. ctypes passes a Python int without declared
 * argument types as one, so a key in the int range costs no encoding and no
 * buffer in Python; every argument costs ~30 ns there, hence one function
 * per encoding rather than a kind argument. The binding checks the range
 * (ctypes would truncate) and the table's encoding; a negative key of a
 * uint64 table is handed back (DRYDB__WORD_ASK) for the encoding's error. */
static inline int int_key(uint8_t k[8], int key, int kind) {
    uint64_t v = (uint64_t)(int64_t)key;
    if (kind == DRYDB_KEY_INT64) v ^= (uint64_t)1 << 63;
    else if (key < 0) return 0;
    v = __builtin_bswap64(v);
    memcpy(k, &v, 8);
    return 1;
}

static inline uint64_t get_word_int(drydb_table *t, int key, int kind) {
    uint8_t k[8];
    if (!int_key(k, key, kind)) return DRYDB__WORD_ASK;
    return drydb__get_word(t, k, 8);
}

EXPORT uint64_t drydb__get_word_i64(drydb_table *t, int key) { return get_word_int(t, key, DRYDB_KEY_INT64); }
EXPORT uint64_t drydb__get_word_u64(drydb_table *t, int key) { return get_word_int(t, key, DRYDB_KEY_UINT64); }

/* drydb__count_word: drydb_count with both bound kinds in one argument
 * (lokind | hikind << 4) and the count as the result, or DRYDB__WORD_ASK
 * on any error (no table holds 2^64 - 1 rows): the caller then calls
 * drydb_count for the error. */
EXPORT uint64_t drydb__count_word(drydb_table *t, const uint8_t *lo, size_t lolen,
                                  const uint8_t *hi, size_t hilen, unsigned kinds) {
    uint64_t n;
    int rc = drydb_count(t, lo, lolen, (int)(kinds & 0xF), hi, hilen, (int)(kinds >> 4), &n);
    return rc == DRYDB_OK ? n : DRYDB__WORD_ASK;
}

/* drydb__count_word_i64 / _u64: drydb__count_word of an int64 / uint64
 * table with both bounds as C ints (see drydb__get_word_i64). */
static inline uint64_t count_word_int(drydb_table *t, int lo, int hi, unsigned kinds, int kind) {
    uint8_t a[8], b[8];
    if (!int_key(a, lo, kind) || !int_key(b, hi, kind)) return DRYDB__WORD_ASK;
    return drydb__count_word(t, a, 8, b, 8, kinds);
}

EXPORT uint64_t drydb__count_word_i64(drydb_table *t, int lo, int hi, unsigned kinds) {
    return count_word_int(t, lo, hi, kinds, DRYDB_KEY_INT64);
}
EXPORT uint64_t drydb__count_word_u64(drydb_table *t, int lo, int hi, unsigned kinds) {
    return count_word_int(t, lo, hi, kinds, DRYDB_KEY_UINT64);
}

/* ---- range batches ---- */

/* A leaf's entry i: key and inline value, or FALLBACK for an overflow value. */
static inline int entry(const struct drydb__ft *ft, const uint8_t *p, size_t n, size_t i,
                        const uint8_t **k, size_t *kl, const uint8_t **v, size_t *vl) {
    uint16_t len;
    if (ft->key8) {
        size_t o = u16le(p + DRYDB__PAGE_HDR + 8 * n + 2 * i);
        *k = p + DRYDB__PAGE_HDR + 8 * i;
        *kl = 8;
        len = u16le(p + o);
        *v = p + o + DRYDB__LEAF8_HDR;
    } else {
        const uint8_t *e = p + u16le(p + DRYDB__PAGE_HDR + 2 * i);
        *kl = u16le(e);
        *k = e + DRYDB__LEAF_HDR;
        len = u16le(e + 2);
        *v = *k + *kl;
    }
    if (len & DRYDB__OVERFLOW) return FALLBACK;
    *vl = len;
    if (len == 0) *v = drydb__empty;
    if (*kl == 0) *k = drydb__empty;
    return DRYDB_OK;
}

static inline int leaf_cmp(const struct drydb__ft *ft, const uint8_t *p, size_t i, const uint8_t *key, size_t klen) {
    if (ft->key8) return keycmp(p + DRYDB__PAGE_HDR + 8 * i, 8, key, klen);
    const uint8_t *e = p + u16le(p + DRYDB__PAGE_HDR + 2 * i);
    return keycmp(e + DRYDB__LEAF_HDR, u16le(e), key, klen);
}

/* The number of a leaf's keys that sort before key (or <= key with
 * le set): a binary search with byte compares (k8 trees too: 8-byte
 * big-endian keys compare as bytes as they compare as integers). */
static size_t leaf_count(const struct drydb__ft *ft, const uint8_t *p, const uint8_t *key, size_t klen, int le) {
    if (ft->key8 && klen == 8) {
        uint64_t k = u64be(key);
        size_t n = u16le(p + DRYDB__PG_N);
        if (le) return upper8(p + DRYDB__PAGE_HDR, n, k);
        return k == 0 ? 0 : upper8(p + DRYDB__PAGE_HDR, n, k - 1);
    }
    if (!ft->key8) return slot_lower(p, key, klen, 0, le);
    size_t lo = 0, hi = u16le(p + DRYDB__PG_N);
    while (lo < hi) {
        size_t m = (lo + hi) >> 1;
        int c = leaf_cmp(ft, p, m, key, klen);
        if (c < 0 || (le && c == 0)) lo = m + 1;
        else hi = m;
    }
    return lo;
}

/* The leaf where key belongs (key NULL: the first leaf, or the last with
 * last set), or 0 to fall back. */
static uint64_t leaf_for(const struct drydb__ft *ft, const uint8_t *key, size_t klen, int last) {
    uint64_t ref = ft->root;
    for (unsigned lvl = (unsigned)ft->depth - 1; lvl > 0; lvl--) {
        const uint8_t *p = page(ft, ref, lvl);
        if (p == NULL) return 0;
        size_t n = u16le(p + DRYDB__PG_N), i;
        if (key == NULL) {
            i = last ? n - 1 : 0;
        } else if (ft->key8) {
            if (klen != 8) return 0;
            i = branch8_child(p, n, u64be(key));
        } else {
            i = slot_lower(p, key, klen, 1, 1) - 1;
        }
        ref = ft->key8 ? u64le(p + DRYDB__PAGE_HDR + 8 * n + 8 * i) : u64le(p + u16le(p + DRYDB__PAGE_HDR + 2 * i));
    }
    return ref;
}

/* Steps to the neighbouring leaf. Leaves are written contiguously, so a
 * link to anything but the adjacent page, or a neighbour whose keys do not
 * continue the order, is left to Go (which walks by row counts and reports
 * what it finds). Returns the page, NULL at the end (*end set) or to fall
 * back. */
static const uint8_t *step_leaf(const struct drydb__ft *ft, const uint8_t *p, uint64_t *pg, int back, int *end) {
    const uint8_t *l = p + (back ? DRYDB__PG_PREV : DRYDB__PG_NEXT);
    uint64_t link = (uint64_t)l[0] | (uint64_t)l[1] << 8 | (uint64_t)l[2] << 16 | (uint64_t)l[3] << 24;
    if (link == 0) {
        *end = 1;
        return NULL;
    }
    if (link != (back ? *pg - 1 : *pg + 1)) return NULL;
    const uint8_t *q = page(ft, link, 0);
    if (q == NULL) return NULL;
    size_t n = u16le(p + DRYDB__PG_N), qn = u16le(q + DRYDB__PG_N);
    const uint8_t *k;
    size_t kl;
    const uint8_t *dummy;
    size_t dl;
    if (back) {
        entry(ft, q, qn, qn - 1, &k, &kl, &dummy, &dl);
        if (leaf_cmp(ft, p, 0, k, kl) <= 0) return NULL;
    } else {
        entry(ft, q, qn, 0, &k, &kl, &dummy, &dl);
        if (leaf_cmp(ft, p, n - 1, k, kl) >= 0) return NULL;
    }
    *pg = link;
    return q;
}

static int range(const struct drydb__ft *ft, const uint8_t *lo, size_t lolen, int lokind,
                 const uint8_t *hi, size_t hilen, int hikind, int back, size_t max,
                 const uint8_t **keys, size_t *klens, const uint8_t **vals, size_t *vlens, size_t *n) {
    *n = 0;
    if (ft->depth == 0 || max == 0) return DRYDB_OK;
    /* start where the walk begins: lo ascending, hi descending */
    const uint8_t *sk = back ? hi : lo;
    size_t sl = back ? hilen : lolen;
    int skind = back ? hikind : lokind;
    const uint8_t *ek = back ? lo : hi;
    size_t el = back ? lolen : hilen;
    int ekind = back ? lokind : hikind;
    if (skind == DRYDB_UNBOUNDED) sk = NULL;
    else if (sk == NULL) sk = drydb__empty;
    if (ekind != DRYDB_UNBOUNDED && ek == NULL) ek = drydb__empty;
    uint64_t pg = leaf_for(ft, sk, sl, back);
    if (pg == 0) return FALLBACK;
    const uint8_t *p = page(ft, pg, 0);
    if (p == NULL) return FALLBACK;
    size_t cnt = u16le(p + DRYDB__PG_N);
    /* i: the first entry to read (back: one past it) */
    size_t i;
    if (sk == NULL) i = back ? cnt : 0;
    else if (back) i = leaf_count(ft, p, sk, sl, skind == DRYDB_INCLUSIVE);
    else i = leaf_count(ft, p, sk, sl, skind == DRYDB_EXCLUSIVE);
    size_t got = 0;
    for (;;) {
        if (back ? i == 0 : i >= cnt) {
            int end = 0;
            p = step_leaf(ft, p, &pg, back, &end);
            if (p == NULL) return end ? DRYDB_OK : FALLBACK;
            cnt = u16le(p + DRYDB__PG_N);
            i = back ? cnt : 0;
            /* a walk that crossed into this leaf goes on into the next
             * (leaves are contiguous): fetch it while this one is read, as
             * the hardware's prefetchers stop at the page boundary (a hint:
             * past the end of the tree it reads nothing) */
            if (max - got > cnt)
                for (size_t o = 0; o < ((size_t)1 << ft->pshift); o += 64)
                    __builtin_prefetch(back ? p - ((size_t)1 << ft->pshift) + o : p + ((size_t)1 << ft->pshift) + o);
        }
        /* lim: where the range ends in this leaf (one search per leaf, not
         * a compare per row); the rows are i..lim-1, or lim..i-1 back */
        size_t lim = back ? 0 : cnt;
        if (ekind != DRYDB_UNBOUNDED) {
            int c = leaf_cmp(ft, p, back ? 0 : cnt - 1, ek, el);
            if (back ? (c < 0 || (c == 0 && ekind == DRYDB_EXCLUSIVE)) : (c > 0 || (c == 0 && ekind == DRYDB_EXCLUSIVE)))
                lim = leaf_count(ft, p, ek, el, back ? ekind == DRYDB_EXCLUSIVE : ekind == DRYDB_INCLUSIVE);
        }
        int last = back ? lim > 0 : lim < cnt; /* the range ends in this leaf */
        if (back ? i < lim : i > lim) return DRYDB_OK;
        size_t take = back ? i - lim : lim - i;
        if (take > max - got) take = max - got;
        if (ft->key8 && (p[DRYDB__PG_TYPE] & DRYDB__LEAF8_FIXED)) {
            /* entries of one size: where each is, by arithmetic, not read
             * from its slot and header */
            size_t o0, stride = leaf8_stride(p, cnt, (size_t)1 << ft->pshift, &o0);
            size_t vl = stride - DRYDB__LEAF8_HDR;
            for (size_t t = 0; t < take; t++) {
                size_t j = back ? i - 1 - t : i + t;
                keys[got + t] = p + DRYDB__PAGE_HDR + 8 * j;
                klens[got + t] = 8;
                if (vals != NULL) {
                    vals[got + t] = vl ? p + o0 - j * stride + DRYDB__LEAF8_HDR : drydb__empty;
                    vlens[got + t] = vl;
                }
            }
            got += take;
            *n = got;
        } else {
            for (size_t t = 0; t < take; t++) {
                size_t j = back ? i - 1 - t : i + t;
                const uint8_t *k, *v;
                size_t kl, vl;
                if (entry(ft, p, cnt, j, &k, &kl, &v, &vl) != DRYDB_OK) return FALLBACK;
                keys[got] = k;
                klens[got] = kl;
                if (vals != NULL) {
                    vals[got] = v;
                    vlens[got] = vl;
                }
                *n = ++got;
            }
        }
        if (got == max || last) return DRYDB_OK;
        i = lim; /* the leaf is done: its end (or its start, back) */
    }
}

/* crange: range for a compressed table whose leaves are in the cache. The
 * rows are found by rank (bound_row) and read by row (leaf_at_row), since
 * leaf blocks carry no sibling links; the leaves stay pinned while keys and
 * values are summed and then copied into the thread's buffer (drydb_range's
 * rule for compressed tables), so a batch may span at most CR_LEAVES
 * leaves: a longer one, an overflow value or a miss goes to Go. */
enum { CR_LEAVES = 16 };

static int crange(const struct drydb__ft *ft, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi,
                  size_t hilen, int hikind, int back, size_t max, const uint8_t **keys, size_t *klens,
                  const uint8_t **vals, size_t *vlens, size_t *n) {
    *n = 0;
    if (ft->depth == 0 || max == 0) return DRYDB_OK;
    uint64_t a, b;
    if (lokind != DRYDB_UNBOUNDED && lo == NULL) lo = drydb__empty;
    if (hikind != DRYDB_UNBOUNDED && hi == NULL) hi = drydb__empty;
    if (bound_rows(ft, lo, lolen, lokind, hi, hilen, hikind, &a, &b) != DRYDB_OK) return FALLBACK;
    if (b <= a) return DRYDB_OK;
    uint64_t want = b - a < max ? b - a : max;
    uint64_t first = back ? b - want : a, last = first + want; /* rows [first, last) */
    struct drydb__slot_words *held[CR_LEAVES];
    /* each leaf's rows: answers j0..j1-1, their fields within [lo, hi) */
    struct { size_t j0, j1; const uint8_t *lo, *hi; } span[CR_LEAVES];
    int nl = 0, rc = DRYDB_OK;
    size_t bytes = 0;
    /* pass 1: hold the leaves, point the answers into them, sum the sizes */
    for (uint64_t r = first; r < last;) {
        if (nl == CR_LEAVES) { rc = FALLBACK; goto out; }
        uint64_t row;
        const uint8_t *p = leaf_at_row(ft, r, &row, &held[nl]);
        if (p == NULL) { rc = FALLBACK; goto out; }
        size_t cnt = u16le(p + DRYDB__PG_N), need = 0;
        uint64_t end = row + cnt < last ? row + cnt : last;
        span[nl].j0 = back ? (size_t)(last - end) : (size_t)(r - first);
        span[nl].j1 = span[nl].j0 + (size_t)(end - r);
        span[nl].lo = p + ((size_t)1 << ft->pshift);
        span[nl].hi = p;
        for (; r < end; r++) {
            size_t j = (size_t)(back ? last - 1 - r : r - first), vl;
            const uint8_t *v;
            if (entry(ft, p, cnt, (size_t)(r - row), &keys[j], &klens[j], &v, &vl) != DRYDB_OK) {
                nl++;
                rc = FALLBACK; /* an overflow value */
                goto out;
            }
            need += klens[j];
            if (klens[j]) {
                span[nl].lo = keys[j] < span[nl].lo ? keys[j] : span[nl].lo;
                span[nl].hi = keys[j] + klens[j] > span[nl].hi ? keys[j] + klens[j] : span[nl].hi;
            }
            if (vals != NULL) {
                vals[j] = v;
                vlens[j] = vl;
                need += vl;
                if (vl) {
                    span[nl].lo = v < span[nl].lo ? v : span[nl].lo;
                    span[nl].hi = v + vl > span[nl].hi ? v + vl : span[nl].hi;
                }
            }
        }
        /* a leaf's entries lie one after another, so the fields of its
         * rows mostly fill the bytes that span them: those go in one copy
         * (else each field in its own) */
        if (span[nl].hi > span[nl].lo && (size_t)(span[nl].hi - span[nl].lo) <= 2 * need + 256)
            need = (size_t)(span[nl].hi - span[nl].lo);
        else
            span[nl].hi = span[nl].lo = NULL;
        bytes += need;
        nl++;
    }
    /* pass 2: copy them out of the cache before the pins go */
    uint8_t *buf = drydb__tls_reserve(bytes);
    if (buf == NULL) { rc = FALLBACK; goto out; } /* Go reports it */
    for (int l = 0; l < nl; l++) {
        const uint8_t *lo = span[l].lo, *hi = span[l].hi;
        if (lo != NULL) {
            /* the leaf's span at once; every field in it moves with it */
            memcpy(buf, lo, (size_t)(hi - lo));
            for (size_t j = span[l].j0; j < span[l].j1; j++) {
                if (klens[j]) keys[j] = buf + (keys[j] - lo);
                if (vals != NULL && vlens[j]) vals[j] = buf + (vals[j] - lo);
            }
            buf += hi - lo;
            continue;
        }
        for (size_t j = span[l].j0; j < span[l].j1; j++) {
            if (klens[j]) {
                memcpy(buf, keys[j], klens[j]);
                keys[j] = buf;
                buf += klens[j];
            }
            if (vals != NULL && vlens[j]) {
                memcpy(buf, vals[j], vlens[j]);
                vals[j] = buf;
                buf += vlens[j];
            }
        }
    }
    *n = (size_t)want;
out:
    for (int l = 0; l < nl; l++) leaf_drop(held[l]);
    return rc;
}

/* drydb_range's answer in C, as drydb__fast_get's. */
DRYDB__HIDDEN int drydb__fast_range(const struct drydb__ft *ft, const uint8_t *lo, size_t lolen, int lokind,
                                    const uint8_t *hi, size_t hilen, int hikind, uint32_t flags, size_t max,
                                    const uint8_t **keys, size_t *klens, const uint8_t **vals, size_t *vlens,
                                    size_t *n) {
    if (n == NULL || keys == NULL || klens == NULL || (vals == NULL) != (vlens == NULL) ||
        (flags & ~(uint32_t)DRYDB_REVERSE) != 0 || max == 0 || max > DRYDB__MAX_BATCH || !bound_ok(lo, lolen, lokind) ||
        !bound_ok(hi, hilen, hikind) || !bound_key_ok(ft, lo, lolen, lokind) || !bound_key_ok(ft, hi, hilen, hikind))
        return FALLBACK;
    if (ft->cache_mem != NULL)
        return crange(ft, lo, lolen, lokind, hi, hilen, hikind, (flags & DRYDB_REVERSE) != 0, max, keys, klens,
                      vals, vlens, n);
    return range(ft, lo, lolen, lokind, hi, hilen, hikind, (flags & DRYDB_REVERSE) != 0, max, keys, klens, vals,
                 vlens, n);
}

EXPORT int drydb_range(drydb_table *t, const uint8_t *lo, size_t lolen, int lokind,
                       const uint8_t *hi, size_t hilen, int hikind, uint32_t flags, size_t max,
                       const uint8_t **keys, size_t *klens, const uint8_t **vals, size_t *vlens, size_t *n) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft = find(h);
    if (ft != NULL) {
        int rc = FALLBACK;
        GUARDED(ft, h, rc,
                rc = drydb__fast_range(ft, lo, lolen, lokind, hi, hilen, hikind, flags, max, keys, klens, vals,
                                       vlens, n));
        if (rc != FALLBACK) return rc;
    }
    return drydb__range_go(h, lo, lolen, lokind, hi, hilen, hikind, flags, max, keys, klens, vals, vlens, n);
}

/* The table's key kind (DRYDB_KEY_*), for colfast.c's checks of columns. */
DRYDB__HIDDEN int drydb__fast_kind(const struct drydb__ft *ft) { return ft->kind; }

/* Whether drydb__fast_get's answers point into the mapped file (valid
 * while the table is held), not into the thread's buffer (a compressed
 * table's, valid until the next lookup). */
DRYDB__HIDDEN int drydb__fast_mapped(const struct drydb__ft *ft) { return ft->cache_mem == NULL; }

/* For colfast.c's pipelined lookups in a plain table: the checked leaf
 * page where key belongs, the branches descended (NULL: use
 * drydb__fast_get), for the caller to prefetch a few keys ahead of
 * drydb__fast_leaf_get, which finds key in it as drydb__fast_get would.
 * The page's level, page()'s last check, is drydb__fast_leaf_get's:
 * reading it here would wait for the miss the prefetch is there to
 * overlap. */
DRYDB__HIDDEN const uint8_t *drydb__fast_leaf(const struct drydb__ft *ft, const uint8_t *key, size_t klen) {
    if (ft->cache_mem != NULL || ft->depth == 0) return NULL;
    uint64_t pg = leaf_for(ft, key, klen, 0);
    if (pg < ft->first || pg >= ft->last) return NULL;
    if (!(atomic_load_explicit(&ft->verified[pg >> 6], memory_order_acquire) & ((uint64_t)1 << (pg & 63)))) return NULL;
    return ft->data + (pg << ft->pshift);
}

/* Whether m keys of a table looked up in key order would share leaves: two
 * or more a page of its tree on average. With fewer, colfast.c's lookups
 * in caller's order, which overlap their cache misses, are faster than
 * sorting. */
DRYDB__HIDDEN int drydb__fast_hash_prefetch(const struct drydb__ft *ft, const uint8_t *key, size_t klen) {
    if (ft->hash_pos == 0) return 0;
    uint64_t lo, s = drydb__mul_hi(drydb__hash_key(key, klen), ft->hash_pos, &lo);
    unsigned shift = ft->pshift - 3;
    /* the region lies inside the file (checked at open): a prefetch of an
     * unchecked page reads nothing into the answer */
    __builtin_prefetch(ft->data + ((ft->hash_slots + (s >> shift)) << ft->pshift) + (s & (((uint64_t)1 << shift) - 1)) * 8);
    return 1;
}

DRYDB__HIDDEN int drydb__fast_dense(const struct drydb__ft *ft, size_t m) { return m / 2 >= ft->last - ft->first; }

/* For colfast.c's lookups in key order: the values of number keys ks[0..m)
 * of a plain table of 8-byte keys into val and len (val NULL: absent).
 * The leaf found for one key answers every later key between its first
 * and last keys without a descent (c carries it from call to call), and
 * the next page is prefetched, as keys in order read the leaves in file
 * order. Keys out of order cost descents, never a wrong answer: a key
 * between a checked leaf's first and last keys can only be in it. Returns
 * DRYDB_OK or FALLBACK (a page not checked, an overflow value: the caller
 * answers these keys another way). */
/* Sets c to leaf page pg (p): its bounds. A consecutive-key page's last
 * key is its first plus its count (the engine checked the flag), one line
 * less to wait for. */
static inline int walk8_at(const struct drydb__ft *ft, struct drydb__walk8 *c, uint64_t pg, const uint8_t *p) {
    size_t n = u16le(p + DRYDB__PG_N);
    if (n == 0) return 0;
    c->p = p;
    c->pg = pg;
    c->lo = u64be(p + DRYDB__PAGE_HDR);
    int seq = p[DRYDB__PG_TYPE] & DRYDB__LEAF8_SEQ;
    c->hi = seq ? c->lo + (n - 1) : u64be(p + DRYDB__PAGE_HDR + 8 * (n - 1));
    c->v0 = NULL;
    if (seq && (p[DRYDB__PG_TYPE] & DRYDB__LEAF8_FIXED)) { /* leaf8_value's arithmetic, once a page */
        size_t o0;
        c->stride = leaf8_stride(p, n, (size_t)1 << ft->pshift, &o0);
        c->vlen = c->stride - DRYDB__LEAF8_HDR;
        c->v0 = p + o0 + DRYDB__LEAF8_HDR;
    }
    /* hints: the next pages' headers and first slots, where a walk in key
     * order goes (and where pages like this one have them) */
    const uint8_t *next = p + ((size_t)1 << ft->pshift);
    __builtin_prefetch(next);
    __builtin_prefetch(next + DRYDB__PAGE_HDR + 8 * n);
    __builtin_prefetch(next + ((size_t)1 << ft->pshift));
    /* and its keys, which a page not of consecutive keys searches */
    if (!seq)
        for (size_t o = 64; o < DRYDB__PAGE_HDR + 8 * n; o += 64) __builtin_prefetch(next + o);
    return 1;
}

DRYDB__HIDDEN int drydb__fast_walk8(const struct drydb__ft *ft, struct drydb__walk8 *c, const uint64_t *ks, size_t m,
                                    const uint8_t **val, uint32_t *len) {
    if (!ft->key8 || ft->cache_mem != NULL || ft->depth == 0) return FALLBACK;
    for (size_t j = 0; j < m; j++) {
        uint64_t k = ks[j];
        if (c->p == NULL || k < c->lo || k > c->hi) {
            /* past this leaf: the neighbour on that side when it is the
             * adjacent page and its keys continue the order (as step_leaf;
             * a key between the two is then absent), else a descent */
            int moved = 0;
            if (c->p != NULL) {
                int next = k > c->hi;
                const uint8_t *l = c->p + (next ? DRYDB__PG_NEXT : DRYDB__PG_PREV), *q;
                uint64_t link = (uint64_t)l[0] | (uint64_t)l[1] << 8 | (uint64_t)l[2] << 16 | (uint64_t)l[3] << 24;
                uint64_t was_lo = c->lo, was_hi = c->hi;
                if (link == (next ? c->pg + 1 : c->pg - 1) && (q = page(ft, link, 0)) != NULL) {
                    if (!walk8_at(ft, c, link, q) || (next ? c->lo <= was_hi : c->hi >= was_lo))
                        return FALLBACK; /* Go reports it */
                    moved = next ? k <= c->hi : k >= c->lo;
                }
            }
            if (!moved) {
                uint8_t kb[8];
                for (int b = 0; b < 8; b++) kb[b] = (uint8_t)(k >> (56 - 8 * b));
                uint64_t pg = leaf_for(ft, kb, 8, 0);
                const uint8_t *q = page(ft, pg, 0);
                if (q == NULL || !walk8_at(ft, c, pg, q)) return FALLBACK;
            }
        }
        size_t l;
        if (c->v0 != NULL) {
            int in = k >= c->lo && k <= c->hi; /* else in a gap between leaves */
            val[j] = !in ? NULL : c->vlen ? c->v0 - (size_t)(k - c->lo) * c->stride : drydb__empty;
            l = in ? c->vlen : 0;
        } else {
            /* leaf8_lookup, but a variable-size entry is handed out
             * unread (its line prefetched below): a key waits for its
             * line only when the caller reads it, a block later */
            const uint8_t *p = c->p;
            size_t n = u16le(p + DRYDB__PG_N);
            int found;
            size_t x = leaf8_find(p, n, k, &found);
            if (!found) {
                val[j] = NULL;
                l = 0;
            } else if (p[DRYDB__PG_TYPE] & DRYDB__LEAF8_FIXED) {
                leaf8_value(p, n, x, (size_t)1 << ft->pshift, &val[j], &l);
            } else {
                val[j] = p + u16le(p + DRYDB__PAGE_HDR + 8 * n + 2 * x);
                l = DRYDB__WALK8_ENTRY;
            }
        }
        __builtin_prefetch(val[j]);
        len[j] = (uint32_t)l;
    }
    return DRYDB_OK;
}

DRYDB__HIDDEN int drydb__fast_leaf_get(const struct drydb__ft *ft, const uint8_t *p, const uint8_t *key, size_t klen,
                                       const uint8_t **val, size_t *vlen) {
    if (p[DRYDB__PG_LEVEL] != 0 || klen > DRYDB_MAX_LEN || !key_ok(ft, key, klen)) return FALLBACK;
    return leaf_value(ft, p, key, klen, val, vlen);
}
