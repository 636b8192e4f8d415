/* The lookup fast path (fast.c): internal to libdrydb. */
#ifndef DRYDB_FAST_H
#define DRYDB_FAST_H
#include <stdint.h>
#include <stddef.h>
#include <setjmp.h>
#include "cdefs.h" /* drydb__empty */

/* The fault guard's jump buffer, and DRYDB__FAULT_TRY(jb): sigsetjmp's 0 on
 * the way in and 1 after a fault (only ever the whole controlling
 * expression of an if, C's rule for setjmp). Windows has no guard (a mapped
 * file cannot be truncated there: fast.c says why): the try is always 0. */
#ifndef _WIN32
typedef sigjmp_buf drydb__fault_buf;
#define DRYDB__FAULT_TRY(jb) sigsetjmp(jb, 0)
#else
typedef int drydb__fault_buf;
#define DRYDB__FAULT_TRY(jb) ((void)(jb), 0)
#endif

/* Bit layout of handles (handles.go takes its constants from here). */
#define DRYDB__H_MAGIC       0xDull /* bits 60..63 */
#define DRYDB__H_SLOT_SHIFT  4      /* slot index in bits 4..31 */
#define DRYDB__H_SLOT_BITS   28
#define DRYDB__H_CHUNK_BITS  12     /* slots come in chunks of 4096 */
#define DRYDB__H_MAX_CHUNKS  4096
#define DRYDB__H_KIND_TABLE  2      /* kind in bits 0..3 */

/* drydb__get_word / drydb__count_word results that are not answers */
#define DRYDB__WORD_MISSING  (~0ull)
#define DRYDB__WORD_ASK      (~0ull - 1)

#define DRYDB__MAX_BATCH     ((size_t)1 << 24) /* drydb_get_many's n */

/* Page layout (docs/FORMAT.md; a Go test checks them against the engine). */
#define DRYDB__PAGE_HDR   16
#define DRYDB__PG_TYPE    4      /* low 4 bits the type, high bits leaf8 flags */
#define DRYDB__PG_LEVEL   5
#define DRYDB__PG_N       6
#define DRYDB__PG_PREV    8      /* u32 previous leaf, 0 = none */
#define DRYDB__PG_NEXT    12     /* u32 next leaf, 0 = none */
#define DRYDB__PG_SCALE   8      /* branch8: u64 interpolation factor, 0 = none */
#define DRYDB__LEAF8_SEQ   0x10  /* leaf8 flag: key i = key 0 + i */
#define DRYDB__LEAF8_FIXED 0x20  /* leaf8 flag: entry i at slot[0] - i*(P - slot[0]) */
#define DRYDB__PG_HEADS   0x40   /* leaf/branch flag: prefix + heads after the slots */
#define DRYDB__HEADS_HDR  4      /* prefix u16 + zero u16 */
#define DRYDB__HEAD_SIZE  4      /* head u32, big endian */
#define DRYDB__LEAF_HDR   4      /* klen u16 + vlen u16 */
#define DRYDB__LEAF8_HDR  2      /* vlen u16 */
#define DRYDB__BRANCH_HDR 18     /* child u64 + before u64 + klen u16 */
#define DRYDB__OVERFLOW   0x8000 /* in vlen */

/* The page cache's hint index and slot words (engine.CacheLayout; a Go
 * test checks them against the engine). */
#define DRYDB__HINT_MUL   0x9E3779B97F4A7C15
#define DRYDB__HINT_WAYS  4
#define DRYDB__SLOT_WORDS 24     /* sizeof(struct drydb__slot_words) */
struct drydb__slot_words {
    uint64_t pin; /* low 32 bits pins (an int32), high 32 bits hits */
    uint64_t tag; /* the page's tag, 0 = none */
    uint64_t ref; /* CLOCK's referenced bit */
};

/* What engine.Layout describes. */
struct drydb__layout {
    const uint8_t *data;
    const uint64_t *verified;
    uint64_t root, depth, first, last, rows;
    uint32_t pshift;
    int key8;
    int kind;
    /* the hash index (engine.Layout; hash_last 0: none) */
    uint64_t hash_first, hash_slots, hash_last, hash_probe, leaves;
    int nparts;         /* composite keys: the kinds of the parts */
    uint8_t parts[16];  /* DRYDB_MAX_PARTS */
    /* compressed tables (engine.CacheLayout; cache_mem NULL otherwise):
     * leaves are blocks decoded into the engine's page cache */
    const uint8_t *cache_mem;
    struct drydb__slot_words *cache_words;
    const uint64_t *cache_hints;
    uint32_t hint_shift;
    uint64_t cache_slots, cache_tag;
    /* the version the layout belongs to, and where the database publishes
     * its current one: the fast path answers only while they agree */
    const uintptr_t *cur;
    struct drydb__ver *ver;
    uint32_t vgen;
};

struct drydb__ft;

/* Registers a table handle for the fast path; NULL when it cannot (then
 * every call goes to Go). Close before the image is unmapped. */
struct drydb__ft *drydb__fast_open(uint64_t handle, const struct drydb__layout *l);
void drydb__fast_close(struct drydb__ft *ft);

/* For copyout.c, which copies what a lookup found while the table is held.
 * drydb__fast_hold makes the caller a reader of table handle h, as the
 * fast path's own lookups are (closing the table waits for it), and
 * returns the table's struct and the caller's stripe for
 * drydb__fast_release; NULL when h has no fast path (compressed, closed,
 * unknown). While drydb__fault_arm has set a jump buffer, a SIGBUS or
 * SIGSEGV on this thread jumps there once (the guard then disarms itself);
 * drydb__fault_arm(NULL) disarms it. The guard exists once a fast table has
 * opened, so whenever a hold succeeded. drydb__fast_get, _many and _range
 * answer as drydb_get, drydb_get_many and drydb_range do in C, for a held
 * table with the guard armed, or return -1 for Go to answer (argument
 * errors included). */
struct drydb__ft *drydb__fast_hold(uint64_t h, int *stripe);
void drydb__fast_release(struct drydb__ft *ft, int stripe);
void drydb__fault_arm(drydb__fault_buf *jb);
int drydb__fast_get(const struct drydb__ft *ft, const uint8_t *key, size_t klen, const uint8_t **val,
                    size_t *vlen);
int drydb__fast_many(const struct drydb__ft *ft, size_t n, const uint8_t *keys, const size_t *klens,
                     const uint8_t **vals, size_t *vlens, uint8_t *found);
int drydb__fast_range(const struct drydb__ft *ft, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi,
                      size_t hilen, int hikind, uint32_t flags, size_t max, const uint8_t **keys, size_t *klens,
                      const uint8_t **vals, size_t *vlens, size_t *n);
/* DRYDB__HELD runs its last argument (code that sets rc) on table handle
 * h's fast path as a reader (drydb__fast_hold: closing the table waits)
 * with the fault guard armed: a lookup and the copy of what it found in one
 * region (copyout.c, colfast.c). ft is NULL without a fast path; rc is -1
 * (fall back to Go) then, or when a fault (the file shrank underneath)
 * jumped back, which also runs on_fault: what the code changed after the
 * jump's sigsetjmp is undefined then, and the caller starts again from
 * what it saved before. */
#define DRYDB__HELD(h, ft, rc, on_fault, ...)                                 \
    do {                                                                      \
        int s_;                                                               \
        rc = -1;                                                              \
        if ((ft = drydb__fast_hold(h, &s_)) != NULL) {                        \
            drydb__fault_buf jb_;                                             \
            if (DRYDB__FAULT_TRY(jb_) == 0) {                                 \
                drydb__fault_arm(&jb_);                                       \
                __VA_ARGS__;                                                  \
                drydb__fault_arm(NULL);                                       \
            } else {                                                          \
                rc = -1;                                                      \
                on_fault;                                                     \
            }                                                                 \
            drydb__fast_release(ft, s_);                                      \
        }                                                                     \
    } while (0)
/* The key kind (DRYDB_KEY_*) of a table held with drydb__fast_hold
 * (colfast.c checks its columns against it). */
int drydb__fast_kind(const struct drydb__ft *ft);
/* Whether drydb__fast_get's answers stay valid while the table is held
 * (not copies in the thread's buffer, valid until the next lookup). */
int drydb__fast_mapped(const struct drydb__ft *ft);
/* A table with a hash index: prefetches key's home slot and returns 1 (a
 * batch then looks each key up with drydb__fast_get, which probes it);
 * 0 without one. */
int drydb__fast_hash_prefetch(const struct drydb__ft *ft, const uint8_t *key, size_t klen);
/* Pipelined lookups in a plain table: the leaf (NULL: use
 * drydb__fast_get), then the lookup in it (fast.c says more). */
const uint8_t *drydb__fast_leaf(const struct drydb__ft *ft, const uint8_t *key, size_t klen);
int drydb__fast_leaf_get(const struct drydb__ft *ft, const uint8_t *p, const uint8_t *key, size_t klen,
                         const uint8_t **val, size_t *vlen);
/* The value of a leaf8 page's variable-size entry e (a vlen u16, then the
 * value): 0, or -1 when the value overflows (Go follows those). fast.c's
 * leaf8_value reads entries with it, and drydb__fast_walk8's caller once
 * the entry's line has arrived. */
static inline int drydb__entry8(const uint8_t *e, const uint8_t **val, size_t *vlen) {
    unsigned vl = (unsigned)e[0] | (unsigned)e[1] << 8;
    if (vl & DRYDB__OVERFLOW) return -1;
    *val = vl ? e + DRYDB__LEAF8_HDR : drydb__empty;
    *vlen = vl;
    return 0;
}

/* drydb__fast_walk8's length for an answer that is an entry, to be read
 * with drydb__entry8. */
#define DRYDB__WALK8_ENTRY UINT32_MAX

/* Lookups in key order in a table of 8-byte keys (fast.c says more); c
 * starts zeroed. */
struct drydb__walk8 {
    const uint8_t *p;
    uint64_t pg, lo, hi; /* the leaf's page number and its first and last keys */
    /* a page of consecutive keys and fixed-size entries: key lo + d has
     * its value at v0 - d * stride (v0 NULL: any other page) */
    const uint8_t *v0;
    size_t stride, vlen;
};
int drydb__fast_dense(const struct drydb__ft *ft, size_t m);
int drydb__fast_walk8(const struct drydb__ft *ft, struct drydb__walk8 *c, const uint64_t *ks, size_t m,
                      const uint8_t **val, uint32_t *len);
/* Versions (live.go; the protocol is fast.c's, "Versions"). A version is one
 * mapped file of an open database. Its word is gen << 32 | refs, read and
 * written with atomics only: refs counts the version's owner (the database,
 * until a refresh retires it), every thread whose last call used it and
 * every cursor on it; gen changes when the struct is recycled, so that a
 * stale hold or release is recognised and ignored. Structs are recycled,
 * never freed. */
struct drydb__ver {
    uint64_t word;
    uint64_t goh; /* the Go handle of the version (live.go) */
    struct drydb__ver *next_free;
};

/* Where a database publishes its current version (a struct drydb__ver *,
 * read and written with atomics). */
struct drydb__dbc {
    uintptr_t cur;
    struct drydb__dbc *next_free;
};

struct drydb__ver *drydb__ver_new(uint32_t *gen);
int drydb__ver_acquire(struct drydb__ver *v, uint32_t gen);
void drydb__ver_release(struct drydb__ver *v, uint32_t gen);
/* The calling thread's hold (helpers.c keeps it with the thread's other
 * state): hold returns 0 only when that state cannot be allocated. */
int drydb__ver_hold(struct drydb__ver *v, uint32_t gen);
void drydb__ver_unhold(void);
int drydb__ver_reap(struct drydb__ver *v, uint32_t gen, int force);
uint32_t drydb__ver_refs(struct drydb__ver *v, uint32_t gen);
void drydb__dbc_publish(struct drydb__dbc *c, struct drydb__ver *v);
struct drydb__dbc *drydb__dbc_new(void);    /* recycled, never freed */
void drydb__dbc_free(struct drydb__dbc *c);
#endif
