/* The shared range cases (tests/vectors/ranges.json, made by
 * tests/vectors/gen/ranges.py; every language runs them) through the C API:
 * the three tables built with the C builder (512-byte pages so ranges cross
 * leaves; "pairs" zstd-compressed), every case through drydb_range (forward
 * or DRYDB_REVERSE) and drydb_count, keys and values checked.
 *
 * Bounds: "default" is [lo, hi) (DRYDB_INCLUSIVE, DRYDB_EXCLUSIVE), the
 * others say each end. A composite bound shorter than the key is a tuple
 * prefix P meaning "every key with this prefix" at that end; in C that is
 *   lo inclusive: P inclusive          hi exclusive: P exclusive
 *   hi inclusive: succ(P) exclusive    lo exclusive: the first key >= succ(P)
 * where succ(P) is P with its trailing 0xFF dropped and its last byte
 * incremented (drydb.h: an exclusive upper bound may be such a successor);
 * the first key at or after it is drydb_at(drydb_count(< succ(P))). */
#include "minijson.h"

enum { MAXKEY = 256, MAXROWS = 128 };

struct key {
    uint8_t b[MAXKEY];
    size_t n;
};

/* The encoded key (or tuple prefix) of a JSON key. */
static void encode(const jv *j, struct key *k) {
    if (j->type == J_NUM) {
        drydb_key_int64(strtoll(j->s, NULL, 10), k->b);
        k->n = 8;
    } else if (j->type == J_STR) {
        CHECK(j->n <= MAXKEY);
        memcpy(k->b, j->s, j->n);
        k->n = j->n;
    } else {
        size_t pos = 0;
        for (size_t i = 0; i < j->n; i++) {
            const jv *p = j->items[i];
            pos = p->type == J_STR ? drydb_key_append_bytes(k->b, MAXKEY, pos, p->s, p->n)
                                   : drydb_key_append_int64(k->b, MAXKEY, pos, strtoll(p->s, NULL, 10));
        }
        CHECK(pos <= MAXKEY);
        k->n = pos;
    }
}

/* Compact JSON of a key, as the generator writes it (strings unescaped UTF-8
 * but for " and \). */
static size_t json(const jv *j, char *out, size_t cap) {
    size_t n = 0;
    if (j->type == J_NUM) return (size_t)snprintf(out, cap, "%s", j->s);
    if (j->type == J_STR) {
        out[n++] = '"';
        for (size_t i = 0; i < j->n && n + 3 < cap; i++) {
            if (j->s[i] == '"' || j->s[i] == '\\') out[n++] = '\\';
            out[n++] = j->s[i];
        }
        out[n++] = '"';
        out[n] = 0;
        return n;
    }
    out[n++] = '[';
    for (size_t i = 0; i < j->n; i++) {
        if (i) out[n++] = ',';
        n += json(j->items[i], out + n, cap - n);
    }
    out[n++] = ']';
    out[n] = 0;
    CHECK(n < cap);
    return n;
}

/* succ(P): 0 when P has no successor (empty or all 0xFF). */
static int successor(const struct key *p, struct key *s) {
    size_t n = p->n;
    while (n > 0 && p->b[n - 1] == 0xFF) n--;
    if (n == 0) return 0;
    memcpy(s->b, p->b, n);
    s->b[n - 1]++;
    s->n = n;
    return 1;
}

struct end {
    struct key k;
    int kind;
};

/* One end of a case: *empty set when the range can hold nothing. */
static void end_of(drydb_table *t, const jv *b, int upper, int incl, int nparts, struct end *e, int *empty) {
    if (b->type == J_NULL) {
        e->kind = DRYDB_UNBOUNDED;
        return;
    }
    encode(b, &e->k);
    e->kind = incl ? DRYDB_INCLUSIVE : DRYDB_EXCLUSIVE;
    int partial = b->type == J_ARR && (int)b->n < nparts;
    if (!partial || upper != incl) return; /* lo inclusive, hi exclusive: P itself */
    struct key s;
    if (upper) { /* through the last key with P */
        if (successor(&e->k, &s)) { e->k = s; e->kind = DRYDB_EXCLUSIVE; }
        else e->kind = DRYDB_UNBOUNDED;
        return;
    }
    /* after the last key with P: from the first key at or after succ(P) */
    uint64_t r = 0, rows;
    struct drydb_table_info ti;
    OK(drydb_table_info(t, &ti));
    rows = ti.rows;
    if (successor(&e->k, &s)) OK(drydb_count(t, NULL, 0, DRYDB_UNBOUNDED, s.b, s.n, DRYDB_EXCLUSIVE, &r));
    else r = rows;
    if (r >= rows) {
        *empty = 1;
        return;
    }
    const uint8_t *k, *v;
    size_t kl, vl;
    OK(drydb_at(t, r, &k, &kl, &v, &vl));
    CHECK(kl <= MAXKEY);
    memcpy(e->k.b, k, kl); /* copied at once: drydb_at's key is the thread buffer's on zstd */
    e->k.n = kl;
    e->kind = DRYDB_INCLUSIVE;
}

int main(void) {
    char *text = tu_read_vector("ranges.json");
    jv *root = jparse(text);
    jv *tables = jget(root, "tables"), *cases = jget(root, "cases");
    CHECK(tables && cases && cases->n >= 100);

    drydb_builder *b;
    OK(drydb_builder_new(512, 0, &b));
    for (size_t i = 0; i < tables->n; i++) {
        jv *t = tables->items[i], *kj = jget(t, "key"), *rows = jget(t, "rows");
        drydb_tbuilder *tb;
        if (kj->type == J_STR) {
            int kind = strcmp(kj->s, "int64") == 0 ? DRYDB_KEY_INT64 : DRYDB_KEY_STRING;
            OK(drydb_builder_table(b, jget(t, "name")->s, kind, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb));
        } else {
            uint8_t parts[DRYDB_MAX_PARTS];
            for (size_t p = 0; p < kj->n; p++)
                parts[p] = strcmp(kj->items[p]->s, "int64") == 0 ? DRYDB_KEY_INT64 : DRYDB_KEY_STRING;
            OK(drydb_builder_table(b, jget(t, "name")->s, DRYDB_KEY_COMPOSITE, parts, kj->n, DRYDB_COMPRESS_ZSTD, 0, 0,
                                   &tb));
        }
        for (size_t r = 0; r < rows->n; r++) {
            struct key k;
            char v[MAXKEY + 8] = "v:";
            encode(rows->items[r], &k);
            size_t vl = 2 + json(rows->items[r], v + 2, sizeof v - 2);
            OK(drydb_builder_append(tb, k.b, k.n, v, vl));
        }
    }
    uint8_t *img;
    size_t len;
    OK(drydb_builder_build_memory(b, &img, &len));
    OK(drydb_builder_free(b));
    drydb_db *db;
    OK(drydb_open_memory(img, len, 0, 0, &db));

    size_t failed = 0;
    for (size_t c = 0; c < cases->n; c++) {
        jv *cs = cases->items[c], *keys = jget(cs, "keys");
        const char *tname = jget(cs, "table")->s, *conv = jget(cs, "bounds")->s;
        int reverse = (int)jget(cs, "reverse")->n;
        drydb_table *t;
        struct drydb_table_info ti;
        OK(drydb_table_open(db, tname, &t));
        OK(drydb_table_info(t, &ti));
        int def = strcmp(conv, "default") == 0;
        int lo_incl = def || conv[0] == '[', hi_incl = !def && conv[1] == ']';
        struct end lo, hi;
        int empty = 0;
        end_of(t, jget(cs, "lo"), 0, lo_incl, (int)ti.nparts, &lo, &empty);
        end_of(t, jget(cs, "hi"), 1, hi_incl, (int)ti.nparts, &hi, &empty);
        uint64_t count = 0;
        size_t n = 0;
        const uint8_t *ks[MAXROWS], *vs[MAXROWS];
        size_t kls[MAXROWS], vls[MAXROWS];
        if (!empty) {
            OK(drydb_count(t, lo.k.b, lo.k.n, lo.kind, hi.k.b, hi.k.n, hi.kind, &count));
            OK(drydb_range(t, lo.k.b, lo.k.n, lo.kind, hi.k.b, hi.k.n, hi.kind, reverse ? DRYDB_REVERSE : 0, MAXROWS,
                           ks, kls, vs, vls, &n));
        }
        int ok = count == (uint64_t)strtoull(jget(cs, "count")->s, NULL, 10) && n == keys->n;
        for (size_t i = 0; ok && i < n; i++) {
            struct key want;
            char v[MAXKEY + 8] = "v:";
            encode(keys->items[i], &want);
            size_t vl = 2 + json(keys->items[i], v + 2, sizeof v - 2);
            ok = kls[i] == want.n && memcmp(ks[i], want.b, want.n) == 0 && vls[i] == vl && memcmp(vs[i], v, vl) == 0;
        }
        if (!ok) {
            char l[MAXKEY], h[MAXKEY];
            json(jget(cs, "lo"), l, sizeof l);
            json(jget(cs, "hi"), h, sizeof h);
            fprintf(stderr, "case %zu: %s %s %s %s reverse=%d: %zu rows, count %llu; want %zu rows, count %s\n", c,
                    tname, jget(cs, "lo")->type == J_NULL ? "null" : l, jget(cs, "hi")->type == J_NULL ? "null" : h,
                    conv, reverse, n, (unsigned long long)count, keys->n, jget(cs, "count")->s);
            failed++;
        }
    }
    CHECK(failed == 0);
    printf("test_ranges: %zu cases ok\n", cases->n);
    OK(drydb_close(db));
    drydb_free(img);
    jfree(root);
    free(text);
    return 0;
}
