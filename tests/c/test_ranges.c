/* The shared range cases (tests/vectors/ranges.json, run by every language):
 * the three tables built with the C builder (512-byte pages: several leaves),
 * every case through drydb_range (in batches, continuing from the last key)
 * and drydb_count. C has no default convention of its own (both bound kinds
 * are arguments); "default" is the agreed [lo, hi). A composite bound with
 * fewer parts is a key prefix (docs/API.md): the ends that start at it
 * (inclusive lower, exclusive upper) take the encoded prefix, the others its
 * successor. */
#include "minijson.h"
#include "testutil.h"

/* Encodes a JSON key of the file: int64 number, string, or a [string, int64]
 * list (maybe shorter: a prefix). Returns the length; *partial is set when
 * the list is shorter than the key. */
static size_t enc_key(const jv *k, uint8_t *out, size_t cap, int *partial) {
    *partial = 0;
    if (k->type == J_NUM) {
        CHECK(cap >= 8);
        drydb_key_int64(strtoll(k->s, NULL, 10), out);
        return 8;
    }
    if (k->type == J_STR) {
        CHECK(k->n <= cap);
        memcpy(out, k->s, k->n);
        return k->n;
    }
    CHECK(k->type == J_ARR && k->n >= 1 && k->n <= 2);
    size_t n = drydb_key_append_bytes(out, cap, 0, k->items[0]->s, k->items[0]->n);
    if (k->n == 2)
        n = drydb_key_append_int64(out, cap, n, strtoll(k->items[1]->s, NULL, 10));
    CHECK(n <= cap);
    *partial = k->n < 2;
    return n;
}

/* The compact JSON of a key, as the file's values hold it after "v:". */
static size_t key_json(const jv *k, char *out, size_t cap) {
    if (k->type == J_NUM) return (size_t)snprintf(out, cap, "%s", k->s);
    if (k->type == J_STR) return (size_t)snprintf(out, cap, "\"%s\"", k->s);
    return (size_t)snprintf(out, cap, "[\"%s\",%s]", k->items[0]->s, k->items[1]->s);
}

/* One end of a range from a JSON bound. A prefix end that starts past the
 * prefix takes its successor (trailing 0xFF dropped, last byte + 1). */
static int end(const jv *b, int incl, int lower, uint8_t *buf, size_t *len) {
    if (b->type == J_NULL) {
        *len = 0;
        return DRYDB_UNBOUNDED;
    }
    int partial;
    *len = enc_key(b, buf, 512, &partial);
    int kind = incl ? DRYDB_INCLUSIVE : DRYDB_EXCLUSIVE;
    if (partial && lower != incl) {
        while (*len > 0 && buf[*len - 1] == 0xFF) (*len)--;
        CHECK(*len > 0); /* the file's prefixes are strings: never all 0xFF */
        buf[*len - 1]++;
        kind = lower ? DRYDB_INCLUSIVE : DRYDB_EXCLUSIVE;
    }
    return kind;
}

int main(void) {
    const char *dir = getenv("DRYDB_VECTORS");
    char path[1024];
    snprintf(path, sizeof path, "%s/ranges.json", dir ? dir : "tests/vectors");
    char *text = tu_read_file(path, NULL);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    jv *root = jparse(text);
    jv *tables = jget(root, "tables"), *cases = jget(root, "cases");
    CHECK(tables && cases && cases->n > 0);

    drydb_builder *b;
    OK(drydb_builder_new(512, 0, &b));
    for (size_t i = 0; i < tables->n; i++) {
        jv *t = tables->items[i];
        jv *key = jget(t, "key"), *rows = jget(t, "rows");
        drydb_tbuilder *tb;
        if (key->type == J_ARR) {
            const uint8_t parts[2] = {DRYDB_KEY_STRING, DRYDB_KEY_INT64};
            OK(drydb_builder_table(b, jget(t, "name")->s, DRYDB_KEY_COMPOSITE, parts, 2, DRYDB_COMPRESS_NONE, 0, 0, &tb));
        } else {
            int kind = !strcmp(key->s, "int64") ? DRYDB_KEY_INT64 : DRYDB_KEY_STRING;
            OK(drydb_builder_table(b, jget(t, "name")->s, kind, NULL, 0, DRYDB_COMPRESS_ZSTD, 0, 0, &tb));
        }
        for (size_t r = 0; r < rows->n; r++) {
            uint8_t k[512];
            char v[600] = "v:";
            int partial;
            size_t kl = enc_key(rows->items[r], k, sizeof k, &partial);
            size_t vl = 2 + key_json(rows->items[r], v + 2, sizeof v - 2);
            OK(drydb_builder_append(tb, k, kl, (const uint8_t *)v, vl));
        }
    }
    uint8_t *img;
    size_t imglen;
    OK(drydb_builder_build_memory(b, &img, &imglen));
    OK(drydb_builder_free(b));
    drydb_db *db;
    OK(drydb_open_memory(img, imglen, DRYDB_OPEN_VERIFY, 0, &db));

    for (size_t i = 0; i < cases->n; i++) {
        jv *c = cases->items[i];
        const char *bounds = jget(c, "bounds")->s;
        int reverse = jget(c, "reverse")->n != 0;
        jv *want = jget(c, "keys");
        int lo_incl = 1, hi_incl = 0;
        if (strcmp(bounds, "default") != 0) {
            lo_incl = bounds[0] == '[';
            hi_incl = bounds[1] == ']';
        }
        drydb_table *t;
        OK(drydb_table_open(db, jget(c, "table")->s, &t));
        uint8_t lo[512], hi[512];
        size_t lol, hil;
        int lok = end(jget(c, "lo"), lo_incl, 1, lo, &lol);
        int hik = end(jget(c, "hi"), hi_incl, 0, hi, &hil);
        uint64_t count;
        OK(drydb_count(t, lo, lol, lok, hi, hil, hik, &count));
        if (count != strtoull(jget(c, "count")->s, NULL, 10)) {
            fprintf(stderr, "case %zu: count %llu, want %s\n", i, (unsigned long long)count, jget(c, "count")->s);
            return 1;
        }
        /* batches of 3 rows: every case that has more continues from the
         * last key read, exclusive */
        size_t got = 0;
        for (;;) {
            const uint8_t *ks[3], *vs[3];
            size_t kls[3], vls[3], n;
            OK(drydb_range(t, lo, lol, lok, hi, hil, hik, reverse ? DRYDB_REVERSE : 0, 3, ks, kls, vs, vls, &n));
            for (size_t j = 0; j < n; j++, got++) {
                CHECK(got < want->n);
                uint8_t wk[512];
                char wv[600] = "v:";
                int partial;
                size_t wkl = enc_key(want->items[got], wk, sizeof wk, &partial);
                size_t wvl = 2 + key_json(want->items[got], wv + 2, sizeof wv - 2);
                if (kls[j] != wkl || memcmp(ks[j], wk, wkl) || vls[j] != wvl || memcmp(vs[j], wv, wvl)) {
                    fprintf(stderr, "case %zu: row %zu is %.*s, want %s\n", i, got, (int)vls[j], vs[j], wv);
                    return 1;
                }
            }
            if (n < 3) break;
            /* the last key bounds the next batch: copy it (compressed
             * tables hand out the thread's buffer, which the next call reuses) */
            if (reverse) {
                memcpy(hi, ks[n - 1], kls[n - 1]);
                hil = kls[n - 1];
                hik = DRYDB_EXCLUSIVE;
            } else {
                memcpy(lo, ks[n - 1], kls[n - 1]);
                lol = kls[n - 1];
                lok = DRYDB_EXCLUSIVE;
            }
        }
        if (got != want->n) {
            fprintf(stderr, "case %zu: %zu rows, want %zu\n", i, got, want->n);
            return 1;
        }
    }
    OK(drydb_close(db));
    drydb_free(img);
    printf("test_ranges: %zu cases ok\n", cases->n);
    jfree(root);
    free(text);
    return 0;
}
