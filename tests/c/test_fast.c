/* The lookup fast path (capi/fast.c) against the Go implementation.
 *
 * drydb_get, drydb_get_many, drydb_count, drydb_rank and drydb_range answer
 * in C once the pages they need have been checked by the engine, and in Go
 * otherwise. This test takes the truth from a cursor walk (always Go) on
 * one open database, then asks a second, cold one the same random questions
 * twice: the first round mixes both paths (pages are checked as they are
 * first touched), the second runs warm. Tables cover both page layouts
 * (8-byte key arrays and slotted pages), small pages (deep trees), empty
 * keys and values, overflow values, non-ASCII string keys, compressed
 * tables of both leaf layouts (gets whose leaf is in the page cache answer
 * in C, the rest in Go) and an empty table. The bindings' copy-out calls of the
 * same reads (drydb_bindings.h) answer the same, in buffers of random
 * sizes. */
#include "testutil.h"

/* the bindings' calls (not in drydb.h) */
#include "../../capi/drydb_bindings.h"

#define WORD_MISSING (~0ull)
#define WORD_ASK (~0ull - 1)

/* get_word's answer agrees with drydb_get's (rc, v, vl) */
static void check_word(uint64_t w, int rc, const uint8_t *v, size_t vl) {
    if (rc == DRYDB_NOTFOUND) {
        CHECK(w == WORD_MISSING);
    } else if (rc != DRYDB_OK || vl > 0xFFFF) {
        CHECK(w == WORD_ASK);
    } else {
        CHECK(w < (1ull << 63) && (w & 0xFFFF) == vl);
        CHECK(vl == 0 || memcmp((const uint8_t *)(uintptr_t)(w >> 16), v, vl) == 0);
    }
}

enum { MAXK = 24, MAXV = 700, ROWS = 2500 };

struct row {
    uint8_t k[MAXK];
    size_t kl;
    uint8_t *v;
    size_t vl;
};

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl) {
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

/* A random key of the table's kind. */
static size_t make_key(int kind, uint8_t *k) {
    switch (kind) {
    case DRYDB_KEY_INT64:
        drydb_key_int64((int64_t)(rnd() % 20000) - 10000, k);
        return 8;
    case DRYDB_KEY_UINT64:
        drydb_key_uint64(rnd() % 3000, k);
        return 8;
    case DRYDB_KEY_STRING: {
        size_t n = rnd() % 12;
        for (size_t i = 0; i < n; i++) k[i] = (uint8_t)('a' + rnd() % 4);
        if (n >= 2 && rnd() % 5 == 0) { /* "é" in UTF-8: the Go path validates it */
            k[n - 2] = 0xC3;
            k[n - 1] = 0xA9;
        }
        return n;
    }
    case DRYDB_KEY_FLOAT64: { /* some integers, some fractions, both signs */
        double x = (double)((int64_t)(rnd() % 4000) - 2000);
        if (rnd() % 3 == 0) x /= 7.0;
        drydb_key_float64(x, k);
        return 8;
    }
    case DRYDB_KEY_UUID: { /* UUIDv7-like: a clock in the leading bytes (shared by neighbours), a random tail */
        uint64_t ms = 1700000000000ull + rnd() % 900;
        for (int i = 0; i < 6; i++) k[i] = (uint8_t)(ms >> (40 - 8 * i));
        for (int i = 6; i < 16; i++) k[i] = (uint8_t)rnd();
        k[6] = (uint8_t)(0x70 | (k[6] & 0x0F));
        k[8] = (uint8_t)(0x80 | (k[8] & 0x3F));
        return 16;
    }
    case -1: { /* "prefixed" bytes: a long shared prefix, then tails of 0 to 8 bytes from {0, 'a', 0xFF} so
                * that keys are prefixes of others, heads tie and are zero-padded */
        memcpy(k, "tenant/0042/item/", 17);
        size_t n = 17 + rnd() % 7;
        for (size_t i = 17; i < n; i++) k[i] = (uint8_t)(rnd() % 3 == 0 ? 0 : rnd() % 2 ? 'a' : 0xFF);
        return n;
    }
    default: { /* bytes: any length from 0, 0xFF bytes included */
        size_t n = rnd() % 10;
        for (size_t i = 0; i < n; i++) k[i] = (uint8_t)(rnd() % 3 == 0 ? 0xFF : rnd() % 4);
        return n;
    }
    }
}

struct table {
    const char *name;
    int kind, comp;
    struct row *rows;
    size_t n;
    uint32_t flags; /* drydb_builder_table's: the hash index (DRYDB_HASH, DRYDB_NO_HASH) */
};

/* A key to look up in table t: of its shape, or (for "prefixed", one time
 * in five) any bytes, which mostly fall below its shared prefix. */
static size_t key_of(const struct table *t, uint8_t *k) {
    if (strcmp(t->name, "prefixed") == 0 && rnd() % 5) return make_key(-1, k);
    return make_key(t->kind, k);
}

static int by_key(const void *a, const void *b) {
    const struct row *x = a, *y = b;
    return cmp(x->k, x->kl, y->k, y->kl);
}

static void build(drydb_builder *b, struct table *t) {
    drydb_tbuilder *tb;
    OK(drydb_builder_table(b, t->name, t->kind, NULL, 0, t->comp, 0, t->flags, &tb));
    t->rows = calloc(ROWS, sizeof *t->rows);
    size_t want = strcmp(t->name, "empty") == 0 ? 0 : ROWS;
    if (strcmp(t->name, "dense") == 0 || strcmp(t->name, "seq_hash") == 0) {
        /* the page claims of docs/FORMAT.md: consecutive keys (a gap every
         * 700 rows breaks them for one leaf) and same-size values (one
         * overflow value breaks them for another), so the C lookups take
         * their arithmetic paths and, on the broken leaves, the others */
        for (size_t i = 0; i < want; i++) {
            struct row r = {0};
            drydb_key_int64((int64_t)i - 1250 + (int64_t)(i / 700), r.k);
            r.kl = 8;
            r.vl = i == 1000 ? MAXV - 1 : 9;
            r.v = malloc(r.vl + 1);
            for (size_t j = 0; j < r.vl; j++) r.v[j] = (uint8_t)rnd();
            OK(drydb_builder_append(tb, r.k, r.kl, r.v, r.vl));
            t->rows[t->n++] = r;
        }
        return;
    }
    for (size_t tries = 0; t->n < want && tries < 20 * ROWS; tries++) {
        struct row r = {0};
        r.kl = strcmp(t->name, "prefixed") == 0 ? make_key(-1, r.k) : key_of(t, r.k);
        int dup = 0;
        for (size_t i = 0; i < t->n && !dup; i++) dup = cmp(t->rows[i].k, t->rows[i].kl, r.k, r.kl) == 0;
        if (dup) continue;
        uint64_t x = rnd() % 100;
        r.vl = x < 10 ? 0 : x < 13 ? 300 + rnd() % (MAXV - 300) : rnd() % 20; /* some overflow at 512 B pages */
        r.v = malloc(r.vl + 1);
        for (size_t i = 0; i < r.vl; i++) r.v[i] = (uint8_t)rnd();
        OK(drydb_builder_append(tb, r.k, r.kl, r.v, r.vl));
        t->rows[t->n++] = r;
    }
    qsort(t->rows, t->n, sizeof *t->rows, by_key);
}

/* Keys the encodings refuse are DRYDB_BADKEY on the C path as on Go's (the
 * C path validates string and float64 keys itself), cold and warm. */
static void refused_keys(drydb_db *db) {
    static const struct { const char *table; const char *k; size_t kl; } bad[] = {
        {"str", "\xC3", 1},                 /* cut off */
        {"str", "a\xC3\x28", 3},           /* bad continuation */
        {"str", "\xC0\xAF", 2},            /* overlong */
        {"str", "\xE0\x80\xAF", 3},       /* overlong */
        {"str", "\xED\xA0\x80", 3},       /* surrogate */
        {"str", "\xF4\x90\x80\x80", 4},  /* above U+10FFFF */
        {"str", "\xF8\x88\x80\x80\x80", 5},
        {"str", "abcdefgh\xFF", 9},         /* after an ASCII word */
        {"f64", "\x7f\xff\xff\xff\xff\xff\xff\xff", 8}, /* -0 */
        {"f64", "\xff\xf8\x00\x00\x00\x00\x00\x00", 8}, /* NaN */
        {"f64", "\x00\x07\xff\xff\xff\xff\xff\xff", 8}, /* a negative NaN */
        {"f64", "\x00", 1},
    };
    static const struct { const char *k; size_t kl; } good[] = {
        {"\xC3\xA9", 2}, {"\xE2\x82\xAC", 3}, {"\xF0\x9F\x98\x80", 4}, {"\xF4\x8F\xBF\xBF", 4},
        {"\xED\x9F\xBF", 3}, {"plain ascii text!", 17},
    };
    for (int warm = 0; warm < 2; warm++) {
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            drydb_table *t;
            OK(drydb_table_open(db, bad[i].table, &t));
            const uint8_t *v;
            size_t vl;
            CHECK_RC(drydb_get(t, (const uint8_t *)bad[i].k, bad[i].kl, &v, &vl), DRYDB_BADKEY);
        }
        for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
            drydb_table *t;
            OK(drydb_table_open(db, "str", &t));
            const uint8_t *v;
            size_t vl;
            int rc = drydb_get(t, (const uint8_t *)good[i].k, good[i].kl, &v, &vl);
            CHECK(rc == DRYDB_OK || rc == DRYDB_NOTFOUND);
        }
    }
}

/* Truth: the rows of [lo, hi] from the sorted model. */
static int inside(const struct row *r, const uint8_t *lo, size_t ll, int lk, const uint8_t *hi, size_t hl, int hk) {
    if (lk != DRYDB_UNBOUNDED) {
        int c = cmp(r->k, r->kl, lo, ll);
        if (c < 0 || (c == 0 && lk == DRYDB_EXCLUSIVE)) return 0;
    }
    if (hk != DRYDB_UNBOUNDED) {
        int c = cmp(r->k, r->kl, hi, hl);
        if (c > 0 || (c == 0 && hk == DRYDB_EXCLUSIVE)) return 0;
    }
    return 1;
}

static void check_against_cursor(drydb_table *tt, const struct table *t) {
    /* the model matches what the Go path reads */
    drydb_cursor *c;
    OK(drydb_cursor_open(tt, NULL, 0, 0, NULL, 0, 0, &c));
    size_t i = 0;
    while (drydb_cursor_next(c) == DRYDB_OK) {
        const uint8_t *k, *v;
        size_t kl, vl;
        OK(drydb_cursor_get(c, &k, &kl, &v, &vl));
        CHECK(i < t->n && cmp(k, kl, t->rows[i].k, t->rows[i].kl) == 0);
        CHECK(vl == t->rows[i].vl && (vl == 0 || memcmp(v, t->rows[i].v, vl) == 0));
        i++;
    }
    CHECK(i == t->n);
    OK(drydb_cursor_close(c));
}

/* drydb__copy_range's walk of a range (bounds as drydb_range's; back:
 * descending) in buffers starting at cap bytes, continued with the last key
 * read as an exclusive bound after a full batch or DRYDB__FULL, and the
 * buffers grown when not even one row fits: the rows first.. (count of
 * them) of t, in walk order. Twelve calls at most (a batch of one row at a
 * time would cost a call per row of the table). */
static void copy_walk(drydb_table *tt, const struct table *t, const uint8_t *lo0, size_t ll, int lk,
                      const uint8_t *hi0, size_t hl, int hk, int back, int with_vals, size_t first,
                      size_t count, size_t cap, size_t max) {
    uint8_t lo[MAXK] = {0}, hi[MAXK] = {0};
    memcpy(lo, lo0, ll);
    memcpy(hi, hi0, hl);
    size_t kcap = cap, vcap = cap, kl[1000], vl[1000], n, got = 0;
    int ended = 0;
    uint8_t *kb = malloc(kcap + 1), *vb = malloc(vcap + 1);
    for (int calls = 0; calls < 12; calls++) {
        struct drydb__col cols[2] = {{kb, kcap, kl}, {vb, vcap, with_vals ? vl : NULL}};
        int rc = drydb__copy_range(tt, lo, ll, lk, hi, hl, hk, back ? DRYDB_REVERSE : 0, max, cols, &n);
        CHECK(rc == DRYDB_OK || rc == DRYDB__FULL);
        CHECK(n <= max && got + n <= count);
        size_t ko = 0, vo = 0;
        for (size_t j = 0; j < n; j++, got++) {
            const struct row *r = &t->rows[back ? first + count - 1 - got : first + got];
            CHECK(cmp(kb + ko, kl[j], r->k, r->kl) == 0);
            ko += kl[j];
            if (with_vals) {
                CHECK(vl[j] == r->vl && (r->vl == 0 || memcmp(vb + vo, r->v, r->vl) == 0));
                vo += vl[j];
            }
        }
        if (rc == DRYDB_OK && n < max) { /* the range ended */
            ended = 1;
            break;
        }
        if (n == 0) { /* not one row fits: the lengths of the next say how much */
            CHECK(rc == DRYDB__FULL && (kl[0] > kcap || (with_vals && vl[0] > vcap)));
            if (kl[0] > kcap) kb = realloc(kb, (kcap = kl[0]) + 1);
            if (with_vals && vl[0] > vcap) vb = realloc(vb, (vcap = vl[0]) + 1);
            continue;
        }
        const uint8_t *last = kb + ko - kl[n - 1];
        if (back) {
            memcpy(hi, last, hl = kl[n - 1]);
            hk = DRYDB_EXCLUSIVE;
        } else {
            memcpy(lo, last, ll = kl[n - 1]);
            lk = DRYDB_EXCLUSIVE;
        }
    }
    CHECK(!ended || got == count);
    free(kb);
    free(vb);
}

static void questions(drydb_table *tt, const struct table *t) {
    enum { Q = 150, MAXB = 64 };
    const uint8_t *ks[1000], *vs[1000];
    size_t kls[1000], vls[1000], n;
    for (int q = 0; q < Q; q++) {
        /* bounds: a key of the table, a random key, or unbounded */
        /* zeroed past each key: Go's compares load whole words, which
         * valgrind reports when the tail is uninitialised */
        uint8_t lo[MAXK] = {0}, hi[MAXK] = {0};
        size_t ll = 0, hl = 0;
        int lk = (int)(rnd() % 3), hk = (int)(rnd() % 3);
        if (t->n && rnd() % 2) {
            const struct row *r = &t->rows[rnd() % t->n];
            memcpy(lo, r->k, r->kl);
            ll = r->kl;
        } else {
            ll = key_of(t, lo);
        }
        if (t->n && rnd() % 2) {
            const struct row *r = &t->rows[rnd() % t->n];
            memcpy(hi, r->k, r->kl);
            hl = r->kl;
        } else {
            hl = key_of(t, hi);
        }
        size_t first = t->n, count = 0;
        for (size_t i = 0; i < t->n; i++) {
            if (inside(&t->rows[i], lo, ll, lk, hi, hl, hk)) {
                if (first == t->n) first = i;
                count++;
            }
        }
        uint64_t got;
        OK(drydb_count(tt, lo, ll, lk, hi, hl, hk, &got));
        CHECK(got == count);
        CHECK(drydb__count_word(tt, lo, ll, hi, hl, (unsigned)(lk | hk << 4)) == count);
        size_t maxes[] = {1, 3, 17, 1000};
        size_t max = maxes[rnd() % 4];
        for (int back = 0; back < 2; back++) {
            int with_vals = rnd() % 4 != 0;
            OK(drydb_range(tt, lo, ll, lk, hi, hl, hk, back ? DRYDB_REVERSE : 0, max, ks, kls,
                           with_vals ? vs : NULL, with_vals ? vls : NULL, &n));
            CHECK(n == (count < max ? count : max));
            for (size_t j = 0; j < n; j++) {
                const struct row *r = &t->rows[back ? first + count - 1 - j : first + j];
                CHECK(cmp(ks[j], kls[j], r->k, r->kl) == 0);
                if (with_vals) CHECK(vls[j] == r->vl && (r->vl == 0 || memcmp(vs[j], r->v, r->vl) == 0));
            }
            /* buffers that hold a few rows, many, or not even one (small
             * ones on short ranges: each row costs a call there) */
            size_t caps[] = {1 << 16, 2000, 7, 0};
            size_t cap = caps[rnd() % (count < 40 ? 4 : 2)];
            copy_walk(tt, t, lo, ll, lk, hi, hl, hk, back, with_vals, first, count, cap, max);
        }
        /* rank and get of a key of the table and of a random one */
        for (int w = 0; w < 2; w++) {
            uint8_t k[MAXK] = {0};
            size_t kl;
            if (w == 0 && t->n) {
                const struct row *r = &t->rows[rnd() % t->n];
                memcpy(k, r->k, r->kl);
                kl = r->kl;
            } else {
                kl = key_of(t, k);
            }
            size_t below = 0, at = t->n;
            for (size_t i = 0; i < t->n; i++) {
                int c = cmp(t->rows[i].k, t->rows[i].kl, k, kl);
                if (c < 0) below++;
                if (c == 0) at = i;
            }
            OK(drydb_rank(tt, k, kl, &got));
            CHECK(got == below);
            const uint8_t *v;
            size_t vl = 0; /* a miss leaves it: the copy's capacity below is made from it */
            uint64_t word = drydb__get_word(tt, k, kl);
            int rc = drydb_get(tt, k, kl, &v, &vl);
            check_word(word, rc, v, vl);
            if (at == t->n) {
                CHECK(rc == DRYDB_NOTFOUND);
            } else {
                CHECK(rc == DRYDB_OK && vl == t->rows[at].vl && (vl == 0 || memcmp(v, t->rows[at].v, vl) == 0));
            }
            /* copied: into a buffer that holds it, or FULL with the length */
            uint8_t gb[MAXV];
            size_t gl = 0, cap = rnd() % 2 ? sizeof gb : vl / 2;
            struct drydb__col gc = {gb, cap, &gl};
            int crc = drydb__copy_get(tt, k, kl, &gc);
            if (rc != DRYDB_OK) {
                CHECK(crc == rc);
            } else if (vl > cap) {
                CHECK(crc == DRYDB__FULL && gl == vl);
            } else {
                CHECK(crc == DRYDB_OK && gl == vl && (vl == 0 || memcmp(gb, t->rows[at].v, vl) == 0));
            }
        }
        /* a batch of table keys and random ones */
        uint8_t keys[MAXB * MAXK + 16] = {0};
        size_t klens[MAXB], nb = 1 + rnd() % MAXB, off = 0;
        size_t want[MAXB];
        const uint8_t *bv[MAXB];
        size_t bvl[MAXB];
        uint8_t found[MAXB];
        for (size_t j = 0; j < nb; j++) {
            want[j] = t->n;
            if (t->n && rnd() % 3) {
                want[j] = rnd() % t->n;
                memcpy(keys + off, t->rows[want[j]].k, t->rows[want[j]].kl);
                klens[j] = t->rows[want[j]].kl;
            } else {
                klens[j] = key_of(t, keys + off);
                for (size_t i = 0; i < t->n; i++)
                    if (cmp(t->rows[i].k, t->rows[i].kl, keys + off, klens[j]) == 0) want[j] = i;
            }
            off += klens[j];
        }
        int rc = drydb_get_many(tt, nb, keys, klens, bv, bvl, found);
        if (t->kind == DRYDB_KEY_STRING && rc == DRYDB_BADKEY) continue; /* a random key was not UTF-8 */
        OK(rc);
        for (size_t j = 0; j < nb; j++) {
            if (want[j] == t->n) {
                CHECK(!found[j] && bv[j] == NULL && bvl[j] == 0);
            } else {
                const struct row *r = &t->rows[want[j]];
                CHECK(found[j] && bvl[j] == r->vl && (r->vl == 0 || memcmp(bv[j], r->v, r->vl) == 0));
            }
        }
        /* the same batch copied, into a buffer of random size: continued
         * after DRYDB__FULL from the first key not answered, the buffer
         * grown when not one value fits */
        size_t total = 0;
        for (size_t j = 0; j < nb; j++) total += want[j] == t->n ? 0 : t->rows[want[j]].vl;
        size_t cap = rnd() % 2 ? total : total / 2, cl[MAXB], done = 0, koff = 0;
        uint8_t *cb = malloc(cap + 1);
        while (done < nb) {
            struct drydb__col c = {cb, cap, cl};
            size_t d;
            rc = drydb__copy_get_many(tt, nb - done, keys + koff, klens + done, &c, found + done, &d);
            CHECK(rc == DRYDB_OK || rc == DRYDB__FULL);
            CHECK(d <= nb - done && (rc == DRYDB__FULL || d == nb - done));
            for (size_t j = 0, o = 0; j < d; j++, done++) {
                koff += klens[done];
                if (want[done] == t->n) {
                    CHECK(!found[done] && cl[j] == 0);
                    continue;
                }
                const struct row *r = &t->rows[want[done]];
                CHECK(found[done] && cl[j] == r->vl && (r->vl == 0 || memcmp(cb + o, r->v, r->vl) == 0));
                o += cl[j];
            }
            if (d == 0) {
                CHECK(cl[0] > cap);
                cb = realloc(cb, (cap = cl[0]) + 1);
            }
        }
        free(cb);
    }
}

/* Keys passed as C ints: the same answers as drydb_get / drydb_count of
 * the encoded key, at the ends of the int range and around 0. */
static void int_words(drydb_table *tt, int kind) {
    int u = kind == DRYDB_KEY_UINT64;
    int probes[] = {INT32_MIN, INT32_MIN + 1, -70000, -2, -1, 0, 1, 2, 3, 77, 1000, 4096, 65537, INT32_MAX};
    enum { NP = sizeof probes / sizeof probes[0] };
    for (int i = 0; i < NP; i++) {
        uint8_t k[8];
        uint64_t x = (uint64_t)(int64_t)probes[i];
        if (!u) x ^= 1ull << 63;
        for (int j = 0; j < 8; j++) k[j] = (uint8_t)(x >> (56 - 8 * j));
        const uint8_t *v = NULL;
        size_t vl = 0;
        uint64_t w = u ? drydb__get_word_u64(tt, probes[i]) : drydb__get_word_i64(tt, probes[i]);
        if (u && probes[i] < 0) {
            CHECK(w == WORD_ASK); /* the caller asks drydb_get, which refuses the key */
        } else {
            int rc = drydb_get(tt, k, 8, &v, &vl); /* before v and vl are read */
            check_word(w, rc, v, vl);
        }
        for (int j = 0; j < NP; j++) {
            uint8_t h[8];
            uint64_t y = (uint64_t)(int64_t)probes[j];
            if (!u) y ^= 1ull << 63;
            for (int b = 0; b < 8; b++) h[b] = (uint8_t)(y >> (56 - 8 * b));
            for (unsigned kinds = 0; kinds < 0x33; kinds++) {
                if ((kinds & 0xF) > 2 || (kinds >> 4) > 2) continue;
                uint64_t c = u ? drydb__count_word_u64(tt, probes[i], probes[j], kinds)
                               : drydb__count_word_i64(tt, probes[i], probes[j], kinds);
                if (u && (probes[i] < 0 || probes[j] < 0)) {
                    CHECK(c == WORD_ASK);
                    continue;
                }
                uint64_t want;
                OK(drydb_count(tt, k, 8, (int)(kinds & 0xF), h, 8, (int)(kinds >> 4), &want));
                CHECK(c == want);
            }
        }
    }
    /* errors come back as ASK: a bad bound kind, a key of the wrong width */
    CHECK(drydb__count_word(tt, NULL, 0, NULL, 0, 7) == WORD_ASK);
    CHECK(drydb__get_word(tt, (const uint8_t *)"1234567", 7) == WORD_ASK);
}

/* drydb__py_get* with stand-ins for CPython's functions: what the Python
 * binding gets, checked against drydb_get. */
struct fake_bytes { char *p; ptrdiff_t n; };
static struct fake_bytes made;
static int missing_obj, ask_obj, increfs;
static void *fake_bytes(const char *p, ptrdiff_t n) { /* copies, as PyBytes_FromStringAndSize */
    free(made.p);
    made.p = malloc((size_t)n + 1);
    memcpy(made.p, p, (size_t)n);
    made.n = n;
    return &made;
}
static void fake_incref(void *o) { (void)o; increfs++; }

static void py_paths(drydb_table *tt, const struct table *t) {
    CHECK(drydb__py_init(NULL, (void *)fake_incref, &missing_obj, &ask_obj) == DRYDB_INVALID);
    OK(drydb__py_init((void *)fake_bytes, (void *)fake_incref, &missing_obj, &ask_obj));
    for (size_t i = 0; i < t->n; i += 7) {
        const struct row *r = &t->rows[i];
        increfs = 0;
        CHECK(drydb__py_get(tt, r->k, r->kl) == &made && increfs == 0);
        CHECK((size_t)made.n == r->vl && (r->vl == 0 || memcmp(made.p, r->v, r->vl) == 0));
    }
    uint8_t k[MAXK] = {0};
    size_t kl = key_of(t, k);
    int found = 0;
    for (size_t i = 0; i < t->n; i++) found |= cmp(t->rows[i].k, t->rows[i].kl, k, kl) == 0;
    increfs = 0;
    void *o = drydb__py_get(tt, k, kl);
    if (!found) {
        if (t->kind == DRYDB_KEY_STRING && o == &ask_obj) { /* not UTF-8: Go refuses it */ }
        else CHECK(o == &missing_obj && increfs == 1);
    }
    if (t->kind == DRYDB_KEY_INT64) {
        increfs = 0;
        CHECK(drydb__py_get(tt, k, 7) == &ask_obj && increfs == 1); /* bad width: an error */
        for (int key = -3; key < 40; key++) {
            uint8_t e[8];
            uint64_t x = (uint64_t)(int64_t)key ^ (1ull << 63);
            for (int j = 0; j < 8; j++) e[j] = (uint8_t)(x >> (56 - 8 * j));
            const uint8_t *v;
            size_t vl;
            int rc = drydb_get(tt, e, 8, &v, &vl);
            void *p = drydb__py_get(tt, e, 8);
            if (rc == DRYDB_NOTFOUND) CHECK(p == &missing_obj);
            else CHECK(rc == DRYDB_OK && p == &made && (size_t)made.n == vl);
        }
    }
}

int main(void) {
    struct table tabs[] = {
        {"i64", DRYDB_KEY_INT64, DRYDB_COMPRESS_NONE, 0, 0},
        {"u64", DRYDB_KEY_UINT64, DRYDB_COMPRESS_NONE, 0, 0},
        {"dense", DRYDB_KEY_INT64, DRYDB_COMPRESS_NONE, 0, 0},
        {"bytes", DRYDB_KEY_BYTES, DRYDB_COMPRESS_NONE, 0, 0},
        {"str", DRYDB_KEY_STRING, DRYDB_COMPRESS_NONE, 0, 0},
        {"uuid", DRYDB_KEY_UUID, DRYDB_COMPRESS_NONE, 0, 0},
        {"f64", DRYDB_KEY_FLOAT64, DRYDB_COMPRESS_NONE, 0, 0},
        {"prefixed", DRYDB_KEY_BYTES, DRYDB_COMPRESS_NONE, 0, 0},
        {"zstd", DRYDB_KEY_INT64, DRYDB_COMPRESS_ZSTD, 0, 0},
        {"zstr", DRYDB_KEY_STRING, DRYDB_COMPRESS_ZSTD, 0, 0},
        {"s2", DRYDB_KEY_BYTES, DRYDB_COMPRESS_S2, 0, 0},
        {"empty", DRYDB_KEY_BYTES, DRYDB_COMPRESS_NONE, 0, 0},
        /* without a hash index (the tables above have one, but for the
         * compressed ones), and dense ids with one */
        {"str_tree", DRYDB_KEY_STRING, DRYDB_COMPRESS_NONE, 0, 0, DRYDB_NO_HASH},
        {"i64_tree", DRYDB_KEY_INT64, DRYDB_COMPRESS_NONE, 0, 0, DRYDB_NO_HASH},
        {"seq_hash", DRYDB_KEY_INT64, DRYDB_COMPRESS_NONE, 0, 0, DRYDB_HASH},
        /* compressed tables with one: slots name blocks, found in the cache */
        {"zstr_hash", DRYDB_KEY_STRING, DRYDB_COMPRESS_ZSTD, 0, 0, DRYDB_HASH},
        {"s2_hash", DRYDB_KEY_BYTES, DRYDB_COMPRESS_S2, 0, 0, DRYDB_HASH},
        {"z64_hash", DRYDB_KEY_INT64, DRYDB_COMPRESS_ZSTD, 0, 0, DRYDB_HASH},
    };
    enum { NT = sizeof tabs / sizeof tabs[0] };
    char *path = tu_path("fast.drydb");
    for (int ps = 0; ps < 2; ps++) {
        drydb_builder *b;
        OK(drydb_builder_new(ps ? 4096 : 512, 0, &b));
        for (int i = 0; i < NT; i++) build(b, &tabs[i]);
        OK(drydb_builder_build_file(b, path));
        OK(drydb_builder_free(b));
        drydb_db *truth, *db;
        OK(drydb_open(path, 0, 0, &truth));
        OK(drydb_open(path, 0, 0, &db));
        for (int i = 0; i < NT; i++) {
            drydb_table *tt;
            OK(drydb_table_open(truth, tabs[i].name, &tt));
            check_against_cursor(tt, &tabs[i]);
            OK(drydb_table_open(db, tabs[i].name, &tt));
            struct drydb_table_info ti;
            OK(drydb_table_info(tt, &ti));
            int hashed = tabs[i].n > 0 && ((tabs[i].flags & DRYDB_HASH) ||
                                           (tabs[i].comp == DRYDB_COMPRESS_NONE && !(tabs[i].flags & DRYDB_NO_HASH)));
            CHECK(!!(ti.flags & DRYDB_HASH) == hashed);
            questions(tt, &tabs[i]); /* cold: pages checked as they are reached */
            questions(tt, &tabs[i]); /* warm */
            if (tabs[i].kind == DRYDB_KEY_INT64 || tabs[i].kind == DRYDB_KEY_UINT64)
                int_words(tt, tabs[i].kind);
            py_paths(tt, &tabs[i]);
        }
        refused_keys(db);
        /* spare Go Ms for a host's threads (the C# binding's load) */
        CHECK_RC(drydb__warm_threads(-1), DRYDB_INVALID);
        CHECK_RC(drydb__warm_threads(257), DRYDB_INVALID);
        OK(drydb__warm_threads(0));
        OK(drydb__warm_threads(4));
        /* arguments the fast path passes to Go for the error */
        drydb_table *tt;
        OK(drydb_table_open(db, "i64", &tt));
        const uint8_t *k[4], *v[4];
        size_t kl[4], vl[4], n;
        CHECK_RC(drydb_range(tt, NULL, 0, 0, NULL, 0, 0, 2, 4, k, kl, v, vl, &n), DRYDB_INVALID);
        CHECK_RC(drydb_range(tt, NULL, 0, 0, NULL, 0, 0, 0, 4, NULL, kl, v, vl, &n), DRYDB_INVALID);
        CHECK_RC(drydb_range(tt, NULL, 0, 0, NULL, 0, 0, 0, 4, k, kl, v, NULL, &n), DRYDB_INVALID);
        CHECK_RC(drydb_range(tt, NULL, 0, 7, NULL, 0, 0, 0, 4, k, kl, v, vl, &n), DRYDB_INVALID);
        CHECK_RC(drydb_range(tt, NULL, 5, DRYDB_INCLUSIVE, NULL, 0, 0, 0, 4, k, kl, v, vl, &n), DRYDB_INVALID);
        CHECK_RC(drydb_range(tt, NULL, 0, 0, NULL, 0, 0, 0, 0, k, kl, v, vl, &n), DRYDB_INVALID); /* test_rules.c */
        uint8_t seven[7] = {0};
        CHECK_RC(drydb_get(tt, seven, 7, &v[0], &vl[0]), DRYDB_BADKEY);
        OK(drydb_close(db));
        CHECK_RC(drydb_range(tt, NULL, 0, 0, NULL, 0, 0, 0, 4, k, kl, v, vl, &n), DRYDB_CLOSED);
        CHECK_RC(drydb_get(tt, seven, 8, &v[0], &vl[0]), DRYDB_CLOSED);
        CHECK(drydb__get_word(tt, seven, 8) == WORD_ASK);
        CHECK(drydb__get_word_i64(tt, 5) == WORD_ASK);
        CHECK(drydb__count_word_i64(tt, 1, 5, 0x21) == WORD_ASK);
        CHECK(drydb__py_get(tt, seven, 8) == &ask_obj);
        OK(drydb_close(truth));
        for (int i = 0; i < NT; i++) {
            for (size_t j = 0; j < tabs[i].n; j++) free(tabs[i].rows[j].v);
            free(tabs[i].rows);
            tabs[i].rows = NULL;
            tabs[i].n = 0;
        }
    }
    free(path);
    free(made.p);
    printf("test_fast: ok\n");
    return 0;
}
