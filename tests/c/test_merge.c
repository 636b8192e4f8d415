/* Rebuild by merge through the C API: a merge of random changes (upserts,
 * deletes, new first and last keys, index key changes) against a full
 * rebuild from the same final rows, the refusals, and a base closed while
 * its merge builder is in use. */
#include "testutil.h"

#define NKEYS 4000 /* key space: "k0000".."k3999"; the base holds the odd ones */

/* The model: the value of every key, or NULL. */
typedef struct {
    char *val[NKEYS];
} rows;

static void key_of(int i, char *buf) { snprintf(buf, 8, "k%04d", i); }

/* The index "grp" of table "t": one entry per row, from its value. */
static void grp_of(const char *val, char *buf) {
    unsigned s = 0;
    for (const char *p = val; *p; p++) s += (unsigned char)*p;
    snprintf(buf, 8, "g%u", s % 5);
}

static void set_val(rows *m, int i, unsigned salt) {
    char v[64];
    snprintf(v, sizeof v, "v%d-%u-%.*s", i, salt, (int)(salt % 30), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    free(m->val[i]);
    m->val[i] = strdup(v);
}

static void free_rows(rows *m) {
    for (int i = 0; i < NKEYS; i++) free(m->val[i]);
}

/* Appends row i of m to tb with its "grp" entry. */
static void put(drydb_tbuilder *tb, drydb_ibuilder *ib, const rows *m, int i) {
    char k[8], g[8];
    key_of(i, k);
    grp_of(m->val[i], g);
    OK(drydb_builder_append(tb, (const uint8_t *)k, 5, (const uint8_t *)m->val[i], strlen(m->val[i])));
    OK(drydb_builder_index_add(ib, (const uint8_t *)g, 2, (const uint8_t *)k, 5));
}

/* A full build of m (table "t" with index "grp", table "u" untouched). */
static void build_full(const rows *m, int compression, const char *path) {
    drydb_builder *b;
    drydb_tbuilder *t, *u;
    drydb_ibuilder *g;
    OK(drydb_builder_new(1024, 0, &b));
    OK(drydb_builder_set_meta(b, (const uint8_t *)"m", 1, (const uint8_t *)"1", 1));
    OK(drydb_builder_table(b, "t", DRYDB_KEY_STRING, NULL, 0, compression, 0, 0, &t));
    OK(drydb_builder_index(t, "grp", 0, DRYDB_KEY_STRING, NULL, 0, &g));
    OK(drydb_builder_table(b, "u", DRYDB_KEY_STRING, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &u));
    for (int i = 0; i < NKEYS; i++)
        if (m->val[i]) put(t, g, m, i);
    OK(drydb_builder_append(u, (const uint8_t *)"a", 1, (const uint8_t *)"b", 1));
    OK(drydb_builder_build_file(b, path));
    OK(drydb_builder_free(b));
}

/* Walks two cursors side by side: same keys, values, primary keys. */
static void same_walk(drydb_cursor *a, drydb_cursor *b, int index) {
    size_t n = 0;
    for (;;) {
        int ra = drydb_cursor_next(a), rb = drydb_cursor_next(b);
        CHECK(ra == rb);
        if (ra == DRYDB_NOTFOUND) break;
        OK(ra);
        const uint8_t *ka, *va, *kb, *vb;
        size_t kla, vla, klb, vlb;
        OK(drydb_cursor_get(a, &ka, &kla, &va, &vla));
        OK(drydb_cursor_get(b, &kb, &klb, &vb, &vlb));
        CHECK(kla == klb && memcmp(ka, kb, kla) == 0);
        CHECK(vla == vlb && (vla == 0 || memcmp(va, vb, vla) == 0));
        if (index) {
            OK(drydb_cursor_primary_key(a, &ka, &kla));
            OK(drydb_cursor_primary_key(b, &kb, &klb));
            CHECK(kla == klb && memcmp(ka, kb, kla) == 0);
        }
        n++;
    }
    OK(drydb_cursor_close(a));
    OK(drydb_cursor_close(b));
}

/* The files at pa and pb hold the same rows, index entries and metadata,
 * and both verify. */
static void same_contents(const char *pa, const char *pb) {
    drydb_db *da, *db;
    OK(drydb_open(pa, 0, 0, &da));
    OK(drydb_open(pb, 0, 0, &db));
    OK(drydb_verify(da));
    OK(drydb_verify(db));
    const char *names[] = {"t", "u"};
    for (int i = 0; i < 2; i++) {
        drydb_table *ta, *tb;
        drydb_cursor *ca, *cb;
        OK(drydb_table_open(da, names[i], &ta));
        OK(drydb_table_open(db, names[i], &tb));
        OK(drydb_cursor_open_prefix(ta, NULL, 0, &ca));
        OK(drydb_cursor_open_prefix(tb, NULL, 0, &cb));
        same_walk(ca, cb, 0);
    }
    drydb_table *ta, *tb;
    drydb_index *ia, *ib;
    drydb_cursor *ca, *cb;
    OK(drydb_table_open(da, "t", &ta));
    OK(drydb_table_open(db, "t", &tb));
    OK(drydb_index_open(ta, "grp", &ia));
    OK(drydb_index_open(tb, "grp", &ib));
    OK(drydb_index_cursor_open_prefix(ia, NULL, 0, &ca));
    OK(drydb_index_cursor_open_prefix(ib, NULL, 0, &cb));
    same_walk(ca, cb, 1);
    const uint8_t *v;
    size_t vl;
    OK(drydb_meta_get(da, (const uint8_t *)"m", 1, &v, &vl));
    CHECK(vl == 1 && v[0] == '1');
    OK(drydb_close(da));
    OK(drydb_close(db));
}

/* One merge scenario: a base of the odd keys, then changes with the given
 * chances (per mille) of deleting and upserting each key, applied by merge
 * and compared with a full build of the final rows. */
typedef struct {
    const char *name;
    int compression;    /* of the base */
    int new_compression; /* -1: keep */
    int del, ups;       /* per mille of the key space */
    int first_last;     /* upsert new first and last keys */
} scenario;

static void run(const scenario *sc, unsigned seed) {
    rows *m = calloc(1, sizeof *m);
    CHECK(m != NULL);
    srand(seed);
    for (int i = 1; i < NKEYS - 1; i += 2) set_val(m, i, 0);
    char *base = tu_path("base.drydb"), *merged = tu_path("merged.drydb"), *full = tu_path("full.drydb");
    build_full(m, sc->compression, base);

    drydb_db *db;
    drydb_builder *b;
    drydb_tbuilder *t;
    drydb_ibuilder *g;
    OK(drydb_open(base, 0, 0, &db));
    OK(drydb_builder_new_merge(db, 0, 0, &b));
    if (sc->new_compression >= 0)
        OK(drydb_builder_table(b, "t", DRYDB_KEY_STRING, NULL, 0, sc->new_compression, 0, 0, &t));
    else
        OK(drydb_builder_merge_table(b, "t", &t));
    OK(drydb_builder_merge_index(t, "grp", &g));
    for (int i = 0; i < NKEYS; i++) {
        int r = rand() % 1000;
        int first_last = sc->first_last && (i == 0 || i == NKEYS - 1);
        char k[8];
        key_of(i, k);
        if (!first_last && r < sc->del) {
            OK(drydb_builder_delete(t, (const uint8_t *)k, 5));
            free(m->val[i]);
            m->val[i] = NULL;
        } else if (first_last || r < sc->del + sc->ups) {
            set_val(m, i, (unsigned)rand());
            put(t, g, m, i);
        }
    }
    OK(drydb_builder_build_file(b, merged));
    OK(drydb_builder_free(b));
    OK(drydb_close(db));
    build_full(m, sc->new_compression >= 0 ? sc->new_compression : sc->compression, full);
    same_contents(merged, full);
    printf("ok %s\n", sc->name);
    free(base);
    free(merged);
    free(full);
    free_rows(m);
    free(m);
}

/* A key changed twice is refused at build; deleted twice is one delete; a
 * builder not made from a base refuses the merge calls. */
static void refusals(void) {
    rows *m = calloc(1, sizeof *m);
    CHECK(m != NULL);
    for (int i = 1; i < 100; i += 2) set_val(m, i, 0);
    char *base = tu_path("rbase.drydb"), *out = tu_path("rout.drydb");
    build_full(m, DRYDB_COMPRESS_NONE, base);
    drydb_db *db;
    OK(drydb_open(base, 0, 0, &db));
    const uint8_t *k = (const uint8_t *)"k0003";
    struct {
        const char *name;
        int ops[3]; /* 'u' upsert, 'd' delete, 0 none */
        int want;
    } cases[] = {
        {"upserted twice", {'u', 'u', 0}, DRYDB_DUPLICATE},
        {"upserted and deleted", {'u', 'd', 0}, DRYDB_INVALID},
        {"deleted and upserted", {'d', 'u', 0}, DRYDB_INVALID},
        {"deleted twice", {'d', 'd', 0}, DRYDB_OK},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        drydb_builder *b;
        drydb_tbuilder *t;
        OK(drydb_builder_new_merge(db, 0, 0, &b));
        OK(drydb_builder_merge_table(b, "t", &t));
        for (int j = 0; j < 3 && cases[c].ops[j]; j++) {
            if (cases[c].ops[j] == 'u')
                OK(drydb_builder_append(t, k, 5, (const uint8_t *)"new", 3));
            else
                OK(drydb_builder_delete(t, k, 5));
        }
        int rc = drydb_builder_build_file(b, out);
        if (rc != cases[c].want) {
            fprintf(stderr, "%s: build gave %d, want %d (%s)\n", cases[c].name, rc, cases[c].want, drydb_errmsg());
            exit(1);
        }
        OK(drydb_builder_free(b));
        printf("ok refusal: %s\n", cases[c].name);
    }

    drydb_builder *b;
    drydb_tbuilder *t, *t2;
    drydb_ibuilder *ix;
    OK(drydb_builder_new_merge(db, 0, 0, &b));
    CHECK_RC(drydb_builder_merge_table(b, "nope", &t), DRYDB_NOTABLE);
    OK(drydb_builder_merge_table(b, "t", &t));
    OK(drydb_builder_merge_table(b, "t", &t2)); /* the same table again */
    CHECK_RC(drydb_builder_merge_index(t, "nope", &ix), DRYDB_NOINDEX);
    /* a new index on a base table, or a base index restated differently */
    CHECK_RC(drydb_builder_index(t, "new", 0, DRYDB_KEY_STRING, NULL, 0, &ix), DRYDB_INVALID);
    CHECK_RC(drydb_builder_index(t, "grp", 1, DRYDB_KEY_STRING, NULL, 0, &ix), DRYDB_INVALID);
    CHECK_RC(drydb_builder_table(b, "t", DRYDB_KEY_INT64, NULL, 0, 0, 0, 0, &t2), DRYDB_INVALID);
    CHECK_RC(drydb_builder_merge_table(b, NULL, &t2), DRYDB_INVALID);
    CHECK_RC(drydb_builder_delete(t, NULL, 5), DRYDB_INVALID);
    OK(drydb_builder_free(b));

    /* a plain builder has no base */
    OK(drydb_builder_new(0, 0, &b));
    CHECK_RC(drydb_builder_merge_table(b, "t", &t), DRYDB_INVALID);
    OK(drydb_builder_table(b, "t", DRYDB_KEY_STRING, NULL, 0, 0, 0, 0, &t));
    CHECK_RC(drydb_builder_delete(t, k, 5), DRYDB_INVALID);
    CHECK_RC(drydb_builder_merge_index(t, "grp", &ix), DRYDB_INVALID);
    OK(drydb_builder_free(b));
    CHECK_RC(drydb_builder_new_merge(NULL, 0, 0, &b), DRYDB_INVALID);
    CHECK_RC(drydb_builder_new_merge(db, 0, -1, &b), DRYDB_INVALID);
    CHECK_RC(drydb_builder_new_merge(db, 0, 0, NULL), DRYDB_INVALID);
    OK(drydb_close(db));
    CHECK_RC(drydb_builder_new_merge(db, 0, 0, &b), DRYDB_CLOSED);
    free(base);
    free(out);
    free_rows(m);
    free(m);
    printf("ok refusals\n");
}

/* The base closed while its merge builder is in use: the builder's calls
 * give DRYDB_CLOSED, nothing is written, and freeing still works. */
static void base_closed(void) {
    char *base = tu_path("cbase.drydb"), *out = tu_path("cout.drydb");
    tu_sample_file(base);
    drydb_db *db;
    drydb_builder *b;
    drydb_tbuilder *t;
    OK(drydb_open(base, 0, 0, &db));
    OK(drydb_builder_new_merge(db, 0, 0, &b));
    OK(drydb_builder_merge_table(b, "strs", &t));
    OK(drydb_builder_append(t, (const uint8_t *)"k99999", 6, (const uint8_t *)"x", 1));
    OK(drydb_close(db));
    CHECK_RC(drydb_builder_append(t, (const uint8_t *)"k99998", 6, (const uint8_t *)"x", 1), DRYDB_CLOSED);
    CHECK_RC(drydb_builder_delete(t, (const uint8_t *)"k00001", 6), DRYDB_CLOSED);
    CHECK_RC(drydb_builder_build_file(b, out), DRYDB_CLOSED);
    FILE *f = fopen(out, "rb");
    CHECK(f == NULL);
    OK(drydb_builder_free(b));
    free(base);
    free(out);
    printf("ok base closed\n");
}

int main(void) {
    static const scenario scenarios[] = {
        {"1 pct upserts, 1 pct deletes", DRYDB_COMPRESS_NONE, -1, 10, 10, 0},
        {"half changed, new first and last keys", DRYDB_COMPRESS_NONE, -1, 250, 250, 1},
        {"every row deleted", DRYDB_COMPRESS_NONE, -1, 1000, 0, 0},
        {"zstd base", DRYDB_COMPRESS_ZSTD, -1, 50, 100, 1},
        {"compression changed to s2", DRYDB_COMPRESS_NONE, DRYDB_COMPRESS_S2, 50, 50, 1},
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) run(&scenarios[i], 7 + (unsigned)i);
    refusals();
    base_closed();
    return 0;
}
