#include "testutil.h"

#include <unistd.h>
#include <sys/stat.h>

#ifdef _WIN32
#include <direct.h>
/* mingw-w64 has no mkdtemp: the same from _mktemp_s and _mkdir. */
static char *mkdtemp(char *tmpl) {
    if (_mktemp_s(tmpl, strlen(tmpl) + 1) != 0 || _mkdir(tmpl) != 0) return NULL;
    return tmpl;
}
#endif

size_t tu_val(int64_t i, uint8_t *buf) {
    /* variable length, 6..100 bytes, content derived from i */
    int n = snprintf((char *)buf, 128, "value-%lld-", (long long)i);
    size_t len = (size_t)n + (size_t)(i * 7919 % 90);
    for (size_t j = (size_t)n; j < len; j++) buf[j] = (uint8_t)('a' + (i + (int64_t)j) % 26);
    return len;
}

void tu_big_val(uint64_t k, uint8_t *buf, size_t n) {
    for (size_t j = 0; j < n; j++) buf[j] = (uint8_t)(k * 31 + j * 7);
}

static void fill_ints(drydb_tbuilder *tb, int with_indexes) {
    drydb_ibuilder *mod7 = NULL, *neg = NULL;
    if (with_indexes) {
        OK(drydb_builder_index(tb, "mod7", 0, DRYDB_KEY_INT64, NULL, 0, &mod7));
        OK(drydb_builder_index(tb, "neg", 1, DRYDB_KEY_INT64, NULL, 0, &neg));
    }
    /* rows in batches through append_many, the last few one by one */
    enum { B = 100 };
    uint8_t keys[B * 8], vals[B * 128];
    size_t klens[B], vlens[B];
    int64_t i = 0;
    while (i < TU_ROWS - 10) {
        size_t n = 0, voff = 0;
        for (; n < B && i < TU_ROWS - 10; n++, i++) {
            drydb_key_int64(2 * i, keys + 8 * n);
            klens[n] = 8;
            vlens[n] = tu_val(i, vals + voff);
            voff += vlens[n];
        }
        OK(drydb_builder_append_many(tb, n, keys, klens, vals, vlens));
    }
    for (; i < TU_ROWS; i++) {
        uint8_t k[8], v[128];
        drydb_key_int64(2 * i, k);
        OK(drydb_builder_append(tb, k, 8, v, tu_val(i, v)));
    }
    if (!with_indexes) return;
    for (i = 0; i < TU_ROWS; i++) {
        uint8_t k[8], ik[8];
        drydb_key_int64(2 * i, k);
        drydb_key_int64(i % 7, ik);
        OK(drydb_builder_index_add(mod7, ik, 8, k, 8));
    }
    /* the unique index through add_many */
    uint8_t iks[TU_ROWS * 8], pks[TU_ROWS * 8];
    size_t ikl[TU_ROWS], pkl[TU_ROWS];
    for (i = 0; i < TU_ROWS; i++) {
        drydb_key_int64(-i, iks + 8 * i);
        drydb_key_int64(2 * i, pks + 8 * i);
        ikl[i] = pkl[i] = 8;
    }
    OK(drydb_builder_index_add_many(neg, TU_ROWS, iks, ikl, pks, pkl));
}

void tu_build_sample(drydb_builder *b) {
    drydb_tbuilder *tb;
    OK(drydb_builder_set_meta(b, (const uint8_t *)"creator", 7, (const uint8_t *)"testutil", 8));
    OK(drydb_builder_set_meta(b, (const uint8_t *)"empty", 5, NULL, 0));
    OK(drydb_builder_table(b, "ints", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb));
    fill_ints(tb, 1);
    OK(drydb_builder_table(b, "zstd", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_ZSTD, 0, 0, &tb));
    fill_ints(tb, 0);
    OK(drydb_builder_table(b, "s2", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_S2, 0, 0, &tb));
    fill_ints(tb, 0);
    OK(drydb_builder_table(b, "dict", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_ZSTD, 3, DRYDB_DICTIONARY, &tb));
    fill_ints(tb, 0);
    OK(drydb_builder_table(b, "strs", DRYDB_KEY_STRING, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb));
    /* appended in reverse: the builder sorts */
    for (int i = TU_STRS - 1; i >= 0; i--) {
        char k[16], v[16];
        int kl = snprintf(k, sizeof k, "k%05d", i), vl = snprintf(v, sizeof v, "v%d", i);
        OK(drydb_builder_append(tb, (uint8_t *)k, (size_t)kl, (uint8_t *)v, (size_t)vl));
    }
    OK(drydb_builder_table(b, "big", DRYDB_KEY_UINT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb));
    for (uint64_t k = 1; k <= 4; k++) {
        size_t n = 70000 * k;
        uint8_t key[8], *v = malloc(n);
        tu_big_val(k, v, n);
        drydb_key_uint64(k, key);
        OK(drydb_builder_append(tb, key, 8, v, n));
        free(v);
    }
    OK(drydb_builder_table(b, "empty", DRYDB_KEY_BYTES, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &tb));
}

void tu_sample_file(const char *path) {
    drydb_builder *b;
    OK(drydb_builder_new(0, 0, &b));
    tu_build_sample(b);
    OK(drydb_builder_build_file(b, path));
    OK(drydb_builder_free(b));
}

uint8_t *tu_sample_memory(size_t *len) {
    drydb_builder *b;
    uint8_t *p;
    OK(drydb_builder_new(0, 0, &b));
    tu_build_sample(b);
    OK(drydb_builder_build_memory(b, &p, len));
    OK(drydb_builder_free(b));
    return p;
}

static char tmpdir[256];

static void rm_tmpdir(void) {
    char cmd[300];
#ifdef _WIN32
    char dir[256];
    snprintf(dir, sizeof dir, "%s", tmpdir);
    for (char *c = dir; *c; c++)
        if (*c == '/') *c = '\\';
    snprintf(cmd, sizeof cmd, "rmdir /s /q \"%s\"", dir);
#else
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
#endif
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

const char *tu_tmpdir(void) {
    if (!tmpdir[0]) {
        const char *t = getenv("TMPDIR");
#ifdef _WIN32
        if (!t || !*t) t = getenv("TEMP");
#endif
        snprintf(tmpdir, sizeof tmpdir, "%s/drydb-test-XXXXXX", t && *t ? t : "/tmp");
        CHECK(mkdtemp(tmpdir) != NULL);
        atexit(rm_tmpdir);
    }
    return tmpdir;
}

char *tu_path(const char *name) {
    const char *d = tu_tmpdir();
    size_t n = strlen(d) + strlen(name) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", d, name);
    return p;
}

int tu_under_valgrind(void) {
    const char *v = getenv("DRYDB_UNDER_VALGRIND");
    return v && *v && *v != '0';
}

char *tu_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (fread(p, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(p);
        return NULL;
    }
    fclose(f);
    p[n] = 0;
    if (len) *len = (size_t)n;
    return p;
}

char *tu_read_vector(const char *name) {
    const char *dir = getenv("DRYDB_VECTORS");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/vectors", name);
    char *text = tu_read_file(path, NULL);
    if (!text) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(1);
    }
    return text;
}
