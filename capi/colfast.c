/* The columnar reads (drydb_columnar.h) answered in C.
 *
 * Why: a Go call per chunk is cheap, but in Go every key costs its
 * conversion, the engine's GetMany (a Go descent per key) and a slice per
 * answer: ~100 ns a key for int64 keys, where fast.c's C descent over the
 * mapped pages costs a fraction of that. So drydb__cols_get_many and
 * drydb__cols_range run here: keys are converted from the caller's columns
 * in C, looked up or walked with fast.c's calls (drydb__fast_get,
 * drydb__fast_range), and keys and values copied straight into the
 * caller's columns, as a reader of the table's fast path (closing the table
 * waits) with fast.c's fault guard armed.
 *
 * Whatever C does not answer goes to the Go half (columnar.go), which
 * answers every case and reports every error: a table without a fast path
 * (closed, unknown handle), a key or page fast.c leaves to Go (a page not
 * checked yet, a compressed leaf not in the cache, an overflow value, a key
 * to refuse), an argument to report, a range with a skip. Go is handed the
 * columns from where C stopped (the column structs moved on), so a key Go
 * answers is answered once; a fault (the file shrank underneath) jumps back
 * to where the guarded region began and Go answers from there, reporting
 * DRYDB_CORRUPT. The answers are the same either way; only the cost
 * differs. */
#define DRYDB__OWN_C /* -O2, not cdefs.h's -Os for cgo's code */
#include <stdlib.h>
#include <string.h>

#include "fast.h"
#include "cdefs.h"
#include "drydb_columnar.h"

#define FALLBACK (-1)

/* The Go half (columnar.go): cgo exports, handles as integers. first: the
 * index of the call's key 0 in the caller's whole call (for messages). */
int drydb__col_get_many_go(uintptr_t t, size_t first, size_t n, size_t nkeys, const struct drydb__colin *keys,
                           const struct drydb__colout *vals, uint8_t *found, size_t *done);
int drydb__col_range_go(uintptr_t t, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi, size_t hilen,
                        int hikind, uint32_t flags, uint64_t skip, size_t max, const struct drydb__colout *keys,
                        const struct drydb__colout *vals, size_t *n);

#define INT32_LIMIT 0x7fffffffu

static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The numbers a conversion reads or writes belong to one key kind. */
static int conv_kind(uint32_t conv) {
    switch (conv) {
    case DRYDB__CONV_I64: return DRYDB_KEY_INT64;
    case DRYDB__CONV_U64: return DRYDB_KEY_UINT64;
    case DRYDB__CONV_F64: return DRYDB_KEY_FLOAT64;
    }
    return -1;
}

/* ---- input: a key column ---- */

struct in {
    const uint8_t *data;
    const uint8_t *offs; /* NULL: fixed width */
    uint32_t osize, width, conv;
};

/* open_in: whether C may read key column p for a table of key kind kind;
 * anything Go would refuse (or convert in a way C does not: a composite
 * key's escaped parts) is left to Go. */
static int open_in(const struct drydb__colin *p, int kind, struct in *c) {
    if (p == NULL || p->reserved != 0 || p->conv > DRYDB__CONV_KEY) return 0;
    c->data = p->data;
    c->offs = p->offsets;
    c->osize = p->offset_size;
    c->width = p->width;
    c->conv = p->conv;
    if (c->conv == DRYDB__CONV_RAW && kind == DRYDB_KEY_COMPOSITE) return 0; /* parts, escaped by Go */
    if (c->conv != DRYDB__CONV_RAW && c->conv != DRYDB__CONV_KEY)
        return conv_kind(c->conv) == kind && c->offs == NULL && c->width == 8 && c->data != NULL;
    if (c->offs != NULL) return c->osize == 4 || c->osize == 8;
    return c->width == 0 || c->data != NULL;
}

/* Offset i of an offsets buffer of osize-byte offsets (4 or 8). */
static inline int64_t off_at(const uint8_t *offs, uint32_t osize, size_t i) {
    if (osize == 4) {
        int32_t v;
        memcpy(&v, offs + 4 * i, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, offs + 8 * i, 8);
    return v;
}

/* Number i of a numeric column as its key: the number whose big-endian
 * bytes are the key's encoding; 0 when C leaves it to Go (a NaN). */
static inline int num_at(const struct in *c, size_t i, uint64_t *k) {
    uint64_t u = ld64(c->data + 8 * i);
    switch (c->conv) {
    case DRYDB__CONV_I64:
        *k = u ^ (uint64_t)1 << 63;
        return 1;
    case DRYDB__CONV_U64:
        *k = u;
        return 1;
    }
    /* keyenc.AppendFloat64: -0 as +0, NaN refused */
    if ((u & ~((uint64_t)1 << 63)) > 0x7ff0000000000000ull) return 0;
    if (u == (uint64_t)1 << 63) u = 0;
    *k = u >> 63 ? ~u : u | (uint64_t)1 << 63;
    return 1;
}

static inline int numeric(const struct in *c) { return c->conv != DRYDB__CONV_RAW && c->conv != DRYDB__CONV_KEY; }

/* Key i of the column, numbers encoded into b[8]; 0 when C leaves it to
 * Go (offsets Go refuses, a NaN). */
static inline int key_at(const struct in *c, size_t i, uint8_t b[8], const uint8_t **k, size_t *kl) {
    if (numeric(c)) {
        uint64_t u;
        if (!num_at(c, i, &u)) return 0;
        st64(b, __builtin_bswap64(u));
        *k = b;
        *kl = 8;
        return 1;
    }
    if (c->offs == NULL) {
        *kl = c->width;
        *k = c->width ? c->data + (size_t)c->width * i : drydb__empty;
        return 1;
    }
    int64_t a = off_at(c->offs, c->osize, i), e = off_at(c->offs, c->osize, i + 1);
    if (a < 0 || e < a || (uint64_t)(e - a) > DRYDB_MAX_LEN) return 0;
    *kl = (size_t)(e - a);
    *k = *kl && c->data != NULL ? c->data + a : drydb__empty;
    return *kl == 0 || c->data != NULL;
}

/* p moved on to its item i (the column Go is handed). */
static struct drydb__colin in_from(const struct drydb__colin *p, size_t i) {
    struct drydb__colin c = *p;
    if (c.offsets != NULL) c.offsets = (const uint8_t *)c.offsets + (size_t)c.offset_size * i;
    else if (c.data != NULL) c.data += (size_t)c.width * i;
    return c;
}

/* ---- output: a column being filled ---- */

struct out {
    uint8_t *data;
    size_t cap, used; /* bytes */
    uint8_t *offs;    /* NULL: fixed width */
    uint64_t base;
    uint32_t osize, width, conv;
};

/* open_out: whether C may fill column p (of a table of key kind kind) as
 * Go would: numbers (8 bytes an item) or bytes with offsets. Everything Go
 * refuses, and fixed-width byte columns (no binding reads into those), are
 * left to Go. */
static int open_out(const struct drydb__colout *p, int kind, struct out *o) {
    if (p->reserved != 0 || p->conv > DRYDB__CONV_F64 || (p->data == NULL && p->cap != 0) ||
        p->cap > DRYDB__MAX_COL_BYTES)
        return 0;
    o->data = p->data;
    o->cap = p->cap;
    o->used = 0;
    o->offs = p->offsets;
    o->base = p->base;
    o->osize = p->offset_size;
    o->width = p->width;
    o->conv = p->conv;
    if (o->conv != DRYDB__CONV_RAW) return conv_kind(o->conv) == kind && o->offs == NULL && o->width == 8;
    if (o->offs == NULL) return 0;
    if (o->osize == 4) return o->base + o->cap <= INT32_LIMIT;
    return o->osize == 8 && o->base <= DRYDB__MAX_COL_BYTES;
}

static inline void set_off(struct out *o, size_t i, uint64_t v) {
    if (o->osize == 4) {
        uint32_t w = (uint32_t)v;
        memcpy(o->offs + 4 * i, &w, 4);
    } else {
        memcpy(o->offs + 8 * i, &v, 8);
    }
}

/* n bytes from s to d: the fields rows mostly have are short, and a call of
 * memcpy per field costs more than the copy; two overlapping moves do it. */
static inline void put(uint8_t *d, const uint8_t *s, size_t n) {
    if (n >= 8 && n <= 16) {
        st64(d, ld64(s));
        st64(d + n - 8, ld64(s + n - 8));
    } else if (n > 16 && n <= 32) { /* two 16-byte moves, overlapping */
        uint8_t a[16], b[16];
        memcpy(a, s, 16);
        memcpy(b, s + n - 16, 16);
        memcpy(d, a, 16);
        memcpy(d + n - 16, b, 16);
    } else {
        memcpy(d, s, n);
    }
}

/* Room for item i of len bytes (numbers: 8, the caller checked). */
static inline int fits(const struct out *o, size_t i, size_t len) {
    return o->offs != NULL ? len <= o->cap - o->used : 8 * (i + 1) <= o->cap;
}

/* Writes item i (it fits: fits()); conv decodes a key's number. */
static inline void write_item(struct out *o, size_t i, const uint8_t *s, size_t len) {
    switch (o->conv) {
    case DRYDB__CONV_I64:
        st64(o->data + 8 * i, __builtin_bswap64(ld64(s)) ^ (uint64_t)1 << 63);
        return;
    case DRYDB__CONV_U64:
        st64(o->data + 8 * i, __builtin_bswap64(ld64(s)));
        return;
    case DRYDB__CONV_F64: { /* keyenc.DecodeFloat64 (the page was checked) */
        uint64_t u = __builtin_bswap64(ld64(s));
        st64(o->data + 8 * i, u >> 63 ? u & ~((uint64_t)1 << 63) : ~u);
        return;
    }
    }
    put(o->data + o->used, s, len);
    o->used += len;
    set_off(o, i + 1, o->base + o->used);
}

/* Writes cnt items (they fit: rows_fit) as items from.. . Bytes and int64
 * keys, the common cases, get loops of their own with the column's state in
 * locals (through o, every store would reload it): a few instructions a row. */
static void write_items(struct out *o, size_t from, const uint8_t *const *p, const size_t *len, size_t cnt) {
    uint8_t *d = o->data, *offs = o->offs;
    if (o->conv == DRYDB__CONV_RAW) {
        size_t used = o->used;
        uint64_t base = o->base;
        int four = o->osize == 4;
        for (size_t j = 0; j < cnt; j++) {
            put(d + used, p[j], len[j]);
            used += len[j];
            uint64_t w = base + used;
            uint32_t w4 = (uint32_t)w;
            if (four) memcpy(offs + 4 * (from + j + 1), &w4, 4);
            else memcpy(offs + 8 * (from + j + 1), &w, 8);
        }
        o->used = used;
        return;
    }
    if (o->conv == DRYDB__CONV_I64) {
        for (size_t j = 0; j < cnt; j++) st64(d + 8 * (from + j), __builtin_bswap64(ld64(p[j])) ^ (uint64_t)1 << 63);
        return;
    }
    for (size_t j = 0; j < cnt; j++) write_item(o, from + j, p[j], len[j]);
}

/* The column as Go is handed it from item i on (its first i items
 * written). */
static struct drydb__colout out_from(const struct drydb__colout *p, const struct out *o, size_t i) {
    struct drydb__colout c = *p;
    if (o->offs != NULL) {
        c.data += o->used;
        c.cap -= o->used;
        c.offsets = o->offs + (size_t)o->osize * i;
        c.base += o->used;
    } else {
        c.data += 8 * i;
        c.cap -= 8 * i;
    }
    return c;
}

/* ---- get_many ---- */

/* The progress of a get_many: keys i.. are left, the value column so far. */
struct gm {
    size_t i;
    struct out v;
    const struct sorted *sc; /* NULL: keys in caller's order */
};

/* Keys are answered GM_BATCH at a time, in passes: their leaves are found
 * first and prefetched (the branches are few and cached), then the keys
 * looked up in them, then the values copied. The cost of random keys is
 * the leaves' cache and TLB misses (~100 ns each on the 2-core test
 * machine, a VM), and a loop that looks up and copies one key after
 * another waits for them one after another; passes over a batch let them
 * overlap. The prefetches are hints: a page laid out otherwise costs time,
 * never a wrong answer. */
enum { GM_BATCH = 64, SLOTTED_LINES = 13 /* header, slots and key heads of a 4 KiB page */ };

/* ---- get_many in key order ---- */

/* A large batch of number keys (two or more a page of the table:
 * drydb__fast_dense) is answered in key order, a chunk at a time: the keys
 * are sorted (by their top 15 bits: two passes of a radix sort), looked
 * up in that order, so that a leaf found for one key answers every later
 * key between its first and last (no descent; a key of the leaf before or
 * after is a step to it) and the leaves are read in file order, then the
 * values are copied to where the
 * caller's order puts them. Random keys cost a descent and a cache miss
 * each in caller's order; sorted, a 100,000-key batch over a 1M-row table
 * reuses each leaf ~20 times. The order only makes it faster: every key is
 * still found in a leaf whose first and last keys bracket it, so an
 * unsorted run costs descents, never a wrong answer. Anything the chunk
 * cannot answer in C (a page not checked yet, an overflow value, a key for
 * Go) leaves the whole chunk, and the rest of the call, to the pipelined
 * path below, which answers in caller's order. */
enum { SORT_MIN = 2048, SORT_CHUNK = 1 << 17, SORT_IX = 17, KEY_BITS = 32 - SORT_IX, RADIX = 8, STAGE = 16, WALK = 64 };

/* The scratch of a sorted chunk (the thread's, allocated before the
 * guarded region: a fault jumps out of it). */
struct answer {
    const uint8_t *val; /* mostly in the stage; NULL: the key is absent */
    size_t len;
};

struct sorted {
    uint32_t *w, *tmp;  /* top KEY_BITS of a key << SORT_IX | its index in the chunk */
    struct answer *ans; /* in caller's order: one line written a key, where
                         * the walk's order scatters them */
    uint8_t *stage;     /* values copied while their lines are in cache */
    size_t stage_cap;
};

/* the words of m keys, twice, rounded up to the answers' alignment */
static size_t words_bytes(size_t m) { return (2 * m * sizeof(uint32_t) + 7) & ~(size_t)7; }

static size_t sorted_bytes(size_t m) { return words_bytes(m) + m * (sizeof(struct answer) + STAGE); }

static void sorted_at(struct sorted *sc, uint8_t *mem, size_t m) {
    sc->w = (uint32_t *)mem;
    sc->tmp = sc->w + m;
    sc->ans = (struct answer *)(mem + words_bytes(m));
    sc->stage = (uint8_t *)(sc->ans + m);
    sc->stage_cap = STAGE * m;
}

enum { BUCKETS = 1 << RADIX };

/* Sorts w[0..m) by its bits SORT_IX..SORT_IX+db (db at most KEY_BITS):
 * LSD radix, RADIX bits a pass (few enough buckets that the scatter's
 * lines stay in L1), given the counts of each pass's digits (counted while
 * w was written). Returns the sorted array (w or tmp). */
static uint32_t *radix(uint32_t *w, uint32_t *tmp, size_t m, unsigned db, uint32_t c[2][BUCKETS]) {
    enum { B = BUCKETS };
    unsigned passes = db > RADIX ? 2 : 1;
    for (unsigned ps = 0; ps < passes; ps++) {
        uint32_t sum = 0;
        for (size_t d = 0; d < B; d++) {
            uint32_t x = c[ps][d];
            c[ps][d] = sum;
            sum += x;
        }
        unsigned sh = SORT_IX + RADIX * ps;
        for (size_t j = 0; j < m; j++) tmp[c[ps][w[j] >> sh & (B - 1)]++] = w[j];
        uint32_t *x = w;
        w = tmp;
        tmp = x;
    }
    return w;
}

/* Answers keys i..i+m of kc in key order into v and found. DRYDB_OK: all
 * written; DRYDB__FULL: the first *wrote of them (the next does not fit);
 * FALLBACK: none (the pipelined path answers them). */
static int gm_sorted(const struct drydb__ft *ft, const struct in *kc, size_t i, size_t m, uint8_t *found,
                     struct out *v, const struct sorted *sc, size_t *wrote) {
    uint64_t lo = UINT64_MAX, hi = 0, k;
    /* integers need no check and one xor (the switch of num_at, hoisted) */
    int ints = kc->conv != DRYDB__CONV_F64;
    uint64_t flip = kc->conv == DRYDB__CONV_I64 ? (uint64_t)1 << 63 : 0;
    const uint8_t *in = kc->data + 8 * i;
    uint64_t prev = 0;
    int unsorted = 0;
    for (size_t j = 0; j < m; j++) {
        if (ints) k = ld64(in + 8 * j) ^ flip;
        else if (!num_at(kc, i + j, &k)) return FALLBACK;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
        unsorted |= k < prev;
        prev = k;
    }
    /* a word is a key's top KEY_BITS bits (of its distance from lo) <<
     * SORT_IX | its index: 4 bytes, half the memory a sort pass moves.
     * Keys sorted by those bits only are in key order but within runs
     * of nearby keys, which lie in one leaf or two neighbours: the walk
     * takes them in any order. The key itself is read again from the
     * input, unless the keys span at most 2^KEY_BITS (the word holds it) */
    unsigned db = hi == lo ? 0 : 64 - (unsigned)__builtin_clzll(hi - lo);
    int whole = db <= KEY_BITS;
    unsigned drop = whole ? 0 : db - KEY_BITS, bits = db - drop;
    /* keys already in order (a caller's sorted batch) need no sort: and
     * sorting them would be slow, every key landing in the bucket of the
     * one before it (each count waits for the last) */
    int sort = db != 0 && unsorted;
    uint32_t cnt[2][BUCKETS];
    memset(cnt, 0, sizeof cnt);
    for (size_t j = 0; j < m; j++) {
        if (ints) k = ld64(in + 8 * j) ^ flip;
        else num_at(kc, i + j, &k);
        uint32_t wj = (uint32_t)((k - lo) >> drop) << SORT_IX | (uint32_t)j;
        sc->w[j] = wj;
        if (sort) {
            cnt[0][wj >> SORT_IX & (BUCKETS - 1)]++;
            cnt[1][wj >> (SORT_IX + RADIX) & (BUCKETS - 1)]++;
        }
    }
    const uint32_t *w = sort ? radix(sc->w, sc->tmp, m, bits, cnt) : sc->w;
    struct drydb__walk8 cur = {0};
    uint8_t *stage = sc->stage, *stage_end = sc->stage + sc->stage_cap;
    /* the walk runs a block ahead of the copy: a value's line, prefetched
     * when the walk finds it, has a block's time to arrive */
    const uint8_t *bv[2][WALK];
    uint32_t bl[2][WALK];
    for (size_t j0 = 0, t = 0; j0 < m + WALK; j0 += WALK, t ^= 1) {
        if (j0 < m) {
            size_t bn = m - j0 < WALK ? m - j0 : WALK;
            uint64_t ks[WALK];
            for (size_t b = 0; b < bn; b++) {
                uint32_t wj = w[j0 + b], x = wj & ((1u << SORT_IX) - 1);
                if (whole) ks[b] = (wj >> SORT_IX) + lo;
                else if (ints) ks[b] = ld64(in + 8 * (size_t)x) ^ flip;
                else num_at(kc, i + x, &ks[b]);
            }
            if (drydb__fast_walk8(ft, &cur, ks, bn, bv[t], bl[t]) != DRYDB_OK) return FALLBACK;
        }
        if (j0 == 0) continue;
        /* the block before, copied to the stage while its lines are in
         * cache: the column is then filled from the stage, not the file */
        size_t p0 = j0 - WALK, pn = m - p0 < WALK ? m - p0 : WALK;
        for (size_t b = 0; b < pn; b++) {
            size_t x = w[p0 + b] & ((1u << SORT_IX) - 1), l = bl[t ^ 1][b];
            const uint8_t *val = bv[t ^ 1][b];
            if (l == DRYDB__WALK8_ENTRY && drydb__entry8(val, &val, &l) != 0) return FALLBACK;
            if (val != NULL && l <= (size_t)(stage_end - stage)) {
                put(stage, val, l);
                val = stage;
                stage += l;
            }
            sc->ans[x].val = val;
            sc->ans[x].len = l;
        }
    }
    /* the column, in caller's order, as far as it has room (its state in
     * locals, as write_items keeps it) */
    size_t end = m, used = v->used, cap = v->cap;
    uint8_t *d = v->data, *offs = v->offs;
    uint64_t base = v->base;
    int four = v->osize == 4;
    for (size_t x = 0; x < m; x++) {
        if (x + 16 < m) __builtin_prefetch(sc->ans[x + 16].val);
        size_t l = sc->ans[x].len;
        if (l > cap - used) {
            end = x;
            break;
        }
        found[i + x] = sc->ans[x].val != NULL;
        if (l != 0) put(d + used, sc->ans[x].val, l);
        used += l;
        uint64_t o = base + used;
        uint32_t o4 = (uint32_t)o;
        if (four) memcpy(offs + 4 * (i + x + 1), &o4, 4);
        else memcpy(offs + 8 * (i + x + 1), &o, 8);
    }
    v->used = used;
    *wrote = end;
    return end == m ? DRYDB_OK : DRYDB__FULL;
}

/* Answers keys st->i.. until the end (DRYDB_OK), a key for Go (FALLBACK,
 * st->i on it) or a full column (DRYDB__FULL). */
static int gm_run(const struct drydb__ft *ft, const struct in *kc, size_t n, uint8_t *found, struct gm *st) {
    struct out v = st->v;
    size_t i = st->i;
    int rc = DRYDB_OK, k8 = numeric(kc); /* numbers: a table of 8-byte keys */
    /* a compressed table's answers are copies, each valid until the next
     * lookup: one key at a time */
    size_t batch = drydb__fast_mapped(ft) ? GM_BATCH : 1;
    const uint8_t *leaf[GM_BATCH], *key[GM_BATCH], *val[GM_BATCH];
    size_t kl[GM_BATCH], vl[GM_BATCH];
    uint8_t kb[GM_BATCH][8], hit[GM_BATCH];
    while (rc == DRYDB_OK && i < n) {
        size_t m = n - i < SORT_CHUNK ? n - i : SORT_CHUNK, wrote = 0;
        if (st->sc != NULL && batch > 1 && m >= SORT_MIN && drydb__fast_dense(ft, m)) {
            int r = gm_sorted(ft, kc, i, m, found, &v, st->sc, &wrote);
            if (r != FALLBACK) {
                i += wrote;
                rc = r;
                continue;
            }
            st->sc = NULL; /* in caller's order from here */
        }
        m = n - i < batch ? n - i : batch;
        size_t stop = m, j;
        for (j = 0; j < m; j++) {
            leaf[j] = NULL;
            if (!key_at(kc, i + j, kb[j], &key[j], &kl[j])) key[j] = NULL; /* for Go */
            else if (batch > 1 && drydb__fast_hash_prefetch(ft, key[j], kl[j])) {
                /* a hash index: drydb__fast_get probes it, its slot on the way */
            } else if (batch > 1 && (leaf[j] = drydb__fast_leaf(ft, key[j], kl[j])) != NULL)
                for (int l = 0; l < (k8 ? 1 : SLOTTED_LINES); l++) __builtin_prefetch(leaf[j] + 64 * l);
        }
        /* then (the pages' headers arrived meanwhile) a leaf8 page's first
         * slot and last key: where a page of fixed-size entries says they
         * are, and interpolation's upper end */
        for (j = 0; k8 && j < m; j++)
            if (leaf[j] != NULL) {
                size_t kn = leaf[j][DRYDB__PG_N] | (size_t)leaf[j][DRYDB__PG_N + 1] << 8;
                __builtin_prefetch(leaf[j] + DRYDB__PAGE_HDR + 8 * kn);
            }
        for (j = 0; j < m; j++) {
            int r = key[j] == NULL   ? FALLBACK
                    : leaf[j] != NULL ? drydb__fast_leaf_get(ft, leaf[j], key[j], kl[j], &val[j], &vl[j])
                                      : drydb__fast_get(ft, key[j], kl[j], &val[j], &vl[j]);
            hit[j] = r == DRYDB_OK;
            if (r == DRYDB_NOTFOUND) {
                val[j] = drydb__empty; /* absent: an empty item */
                vl[j] = 0;
            } else if (r != DRYDB_OK) {
                stop = j;
                rc = FALLBACK;
                break;
            } else {
                __builtin_prefetch(val[j]);
            }
        }
        for (j = 0; j < stop; j++) {
            if (!fits(&v, i + j, vl[j])) {
                rc = DRYDB__FULL;
                break;
            }
            found[i + j] = hit[j];
            write_item(&v, i + j, val[j], vl[j]);
        }
        i += j;
    }
    st->i = i;
    st->v = v;
    return rc;
}

DRYDB__EXPORT int drydb__cols_get_many(drydb_table *t, size_t n, size_t nkeys, const struct drydb__colin *keys,
                                const struct drydb__colout *vals, uint8_t *found, size_t *done) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft;
    struct in kc;
    struct gm st = {0};
    int rc;
    volatile int faulted = 0; /* set after a jump back */
    if (n == 0 || n > DRYDB__MAX_BATCH || nkeys != 1 || keys == NULL || vals == NULL || found == NULL ||
        done == NULL)
        return drydb__col_get_many_go(h, 0, n, nkeys, keys, vals, found, done);
    /* the table's kind, for the columns' checks, in a first region */
    DRYDB__HELD(h, ft, rc, faulted = 1, {
        int kind = drydb__fast_kind(ft);
        rc = open_in(keys, kind, &kc) && open_out(vals, DRYDB_KEY_BYTES, &st.v) && vals->conv == DRYDB__CONV_RAW
                 ? DRYDB_OK
                 : FALLBACK;
    });
    if (rc != DRYDB_OK) return drydb__col_get_many_go(h, 0, n, nkeys, keys, vals, found, done);
    set_off(&st.v, 0, st.v.base); /* values have offsets: open_out */
    struct sorted sc;
    if (numeric(&kc) && n >= SORT_MIN) {
        size_t m = n < SORT_CHUNK ? n : SORT_CHUNK;
        uint8_t *mem = drydb__tls_scratch(sorted_bytes(m));
        if (mem != NULL) {
            sorted_at(&sc, mem, m);
            st.sc = &sc;
        }
    }
    volatile size_t run = 1; /* keys for Go in a row: doubles while C answers none */
    for (;;) {
        struct gm before = st;
        DRYDB__HELD(h, ft, rc, faulted = 1, rc = gm_run(ft, &kc, n, found, &st));
        if (faulted) {
            st = before;
            run = n - st.i; /* Go reports the fault: all the rest */
            faulted = 0;
        } else if (st.i > before.i) {
            run = 1;
        }
        if (rc != FALLBACK) break;
        /* key st.i (and the next run - 1) in Go */
        size_t m = n - st.i < run ? n - st.i : run, d = 0;
        struct drydb__colin k = in_from(keys, st.i);
        struct drydb__colout v = out_from(vals, &st.v, st.i);
        rc = drydb__col_get_many_go(h, st.i, m, 1, &k, &v, found + st.i, &d);
        /* where Go's writes end: the offset after its last item */
        if (d > 0) st.v.used = (size_t)((uint64_t)off_at(st.v.offs, st.v.osize, st.i + d) - st.v.base);
        st.i += d;
        if (rc != DRYDB_OK || st.i == n) break;
        if (run < 4096) run *= 2;
    }
    *done = st.i;
    return rc;
}

/* ---- range ---- */

/* Rows per fast.c call: their pointers live on the stack. */
enum { RANGE_BATCH = 256, BOUND_MAX = 512 };

struct rg {
    size_t got;
    struct out k, v;
    int wk, wv; /* the columns wanted */
    /* the bound the walk continues from (the last key written), exclusive */
    uint8_t bound[BOUND_MAX];
    size_t blen;
    int cont;
};

/* rows_fit: how many of the batch's rows fit both columns (a key of a
 * number column that is not 8 bytes: -1, for Go to report). */
static long rows_fit(const struct rg *st, size_t nb, const size_t *kls, const size_t *vls) {
    size_t ku = st->k.used, vu = st->v.used;
    for (size_t j = 0; j < nb; j++) {
        if (st->wk && st->k.offs == NULL) {
            if (kls[j] != 8) return -1;
            if (!fits(&st->k, st->got + j, 8)) return (long)j;
        } else if (st->wk) {
            if (kls[j] > st->k.cap - ku) return (long)j;
            ku += kls[j];
        }
        if (st->wv) {
            if (vls[j] > st->v.cap - vu) return (long)j;
            vu += vls[j];
        }
    }
    return (long)nb;
}

/* Walks the range from where st is until it ends (DRYDB_OK), max rows are
 * written, a column fills (DRYDB__FULL) or fast.c leaves a batch to Go
 * (FALLBACK). */
static int rg_run(const struct drydb__ft *ft, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi,
                  size_t hilen, int hikind, uint32_t flags, size_t max, struct rg *st) {
    const uint8_t *kp[RANGE_BATCH], *vp[RANGE_BATCH];
    size_t kls[RANGE_BATCH], vls[RANGE_BATCH];
    int back = (flags & DRYDB_REVERSE) != 0;
    while (st->got < max) {
        size_t want = max - st->got < RANGE_BATCH ? max - st->got : RANGE_BATCH, nb;
        const uint8_t *a = lo, *b = hi;
        size_t al = lolen, bl = hilen;
        int ak = lokind, bk = hikind;
        if (st->cont && back) b = st->bound, bl = st->blen, bk = DRYDB_EXCLUSIVE;
        else if (st->cont) a = st->bound, al = st->blen, ak = DRYDB_EXCLUSIVE;
        int rc = drydb__fast_range(ft, a, al, ak, b, bl, bk, flags, want, kp, kls, st->wv ? vp : NULL,
                                   st->wv ? vls : NULL, &nb);
        if (rc != DRYDB_OK) return FALLBACK;
        long fit = rows_fit(st, nb, kls, vls);
        if (fit < 0) return FALLBACK; /* Go reports the width */
        if (st->wk) write_items(&st->k, st->got, kp, kls, (size_t)fit);
        if (st->wv) write_items(&st->v, st->got, vp, vls, (size_t)fit);
        st->got += (size_t)fit;
        if ((size_t)fit < nb) return DRYDB__FULL;
        if (nb < want) return DRYDB_OK; /* the range ended */
        if (kls[nb - 1] > BOUND_MAX) return FALLBACK; /* a long key: Go continues */
        memcpy(st->bound, kp[nb - 1], kls[nb - 1]);
        st->blen = kls[nb - 1];
        st->cont = 1;
    }
    return DRYDB_OK;
}

DRYDB__EXPORT int drydb__cols_range(drydb_table *t, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi,
                             size_t hilen, int hikind, uint32_t flags, uint64_t skip, size_t max,
                             const struct drydb__colout *keys, const struct drydb__colout *vals, size_t *n) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft;
    struct rg st;
    int rc;
    volatile int faulted = 0; /* set after a jump back */
    if (n == NULL || (keys == NULL && vals == NULL) || skip != 0 || max == 0 || max > DRYDB__MAX_BATCH)
        return drydb__col_range_go(h, lo, lolen, lokind, hi, hilen, hikind, flags, skip, max, keys, vals, n);
    memset(&st, 0, sizeof st);
    st.wk = keys != NULL;
    st.wv = vals != NULL;
    DRYDB__HELD(h, ft, rc, faulted = 1, {
        int kind = drydb__fast_kind(ft);
        rc = (!st.wk || open_out(keys, kind, &st.k)) &&
                     (!st.wv || (open_out(vals, DRYDB_KEY_BYTES, &st.v) && vals->conv == DRYDB__CONV_RAW))
                 ? DRYDB_OK
                 : FALLBACK;
    });
    if (rc != DRYDB_OK)
        return drydb__col_range_go(h, lo, lolen, lokind, hi, hilen, hikind, flags, skip, max, keys, vals, n);
    if (st.wk && st.k.offs != NULL) set_off(&st.k, 0, st.k.base);
    if (st.wv && st.v.offs != NULL) set_off(&st.v, 0, st.v.base);
    DRYDB__HELD(h, ft, rc, faulted = 1, rc = rg_run(ft, lo, lolen, lokind, hi, hilen, hikind, flags, max, &st));
    if (rc != FALLBACK && !faulted) {
        *n = st.got;
        return rc;
    }
    /* Go answers the whole call again, from the start: it may find a newer
     * version than the one C read (a refresh in between), and continuing
     * by skipping the rows C wrote would then skip or repeat rows. A call
     * that falls back is rare once the table's pages are checked. */
    return drydb__col_range_go(h, lo, lolen, lokind, hi, hilen, hikind, flags, skip, max, keys, vals, n);
}
