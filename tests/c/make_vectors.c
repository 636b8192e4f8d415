/* Builds tests/vectors/c_built.drydb through the C builder API (make vectors).
 * Every language's tests open it and check the contents described in
 * tests/vectors/README.md (the same rules as below). Kept small. */
#include <stdio.h>
#include <string.h>

#include "drydb.h"

#define TRY(call)                                                                  \
    do {                                                                           \
        int rc_ = (call);                                                          \
        if (rc_) {                                                                 \
            fprintf(stderr, "%s: %s (%s)\n", #call, drydb_strerror(rc_), drydb_errmsg()); \
            return 1;                                                              \
        }                                                                          \
    } while (0)

int main(int argc, char **argv) {
    const char *out = argc > 1 ? argv[1] : "c_built.drydb";
    drydb_builder *b;
    drydb_tbuilder *t;
    drydb_ibuilder *ix;
    TRY(drydb_builder_new(4096, 0, &b));
    TRY(drydb_builder_set_meta(b, (const uint8_t *)"source", 6, (const uint8_t *)"make_vectors.c", 14));

    /* "ints": int64 keys -200, -198, ..., 198 (200 rows), value "i=<key>";
     * index "sign" (non-unique, int64): -1, 0 or 1 -> key */
    TRY(drydb_builder_table(b, "ints", DRYDB_KEY_INT64, NULL, 0, DRYDB_COMPRESS_NONE, 0, 0, &t));
    TRY(drydb_builder_index(t, "sign", 0, DRYDB_KEY_INT64, NULL, 0, &ix));
    for (int64_t k = -200; k < 200; k += 2) {
        uint8_t key[8], ik[8];
        char v[32];
        int n = snprintf(v, sizeof v, "i=%lld", (long long)k);
        drydb_key_int64(k, key);
        TRY(drydb_builder_append(t, key, 8, (const uint8_t *)v, (size_t)n));
        drydb_key_int64(k < 0 ? -1 : k > 0, ik);
        TRY(drydb_builder_index_add(ix, ik, 8, key, 8));
    }

    /* "words": string keys "w000".."w149", zstd, value = key repeated 3 times */
    TRY(drydb_builder_table(b, "words", DRYDB_KEY_STRING, NULL, 0, DRYDB_COMPRESS_ZSTD, 0, 0, &t));
    for (int i = 0; i < 150; i++) {
        char k[8], v[16];
        snprintf(k, sizeof k, "w%03d", i);
        snprintf(v, sizeof v, "%s%s%s", k, k, k);
        TRY(drydb_builder_append(t, (const uint8_t *)k, 4, (const uint8_t *)v, 12));
    }

    /* "pairs": composite(string, int64) keys ("a".."e", 0..19), s2, value
     * = the two parts as "<s>:<n>" */
    uint8_t parts[2] = {DRYDB_KEY_STRING, DRYDB_KEY_INT64};
    TRY(drydb_builder_table(b, "pairs", DRYDB_KEY_COMPOSITE, parts, 2, DRYDB_COMPRESS_S2, 0, 0, &t));
    for (char s = 'a'; s <= 'e'; s++) {
        for (int64_t n = 0; n < 20; n++) {
            uint8_t key[32];
            char str[2] = {s, 0}, v[16];
            size_t kl = drydb_key_append_string(key, sizeof key, 0, str);
            kl = drydb_key_append_int64(key, sizeof key, kl, n);
            int vl = snprintf(v, sizeof v, "%s:%lld", str, (long long)n);
            TRY(drydb_builder_append(t, key, kl, (const uint8_t *)v, (size_t)vl));
        }
    }
    TRY(drydb_builder_build_file(b, out));
    TRY(drydb_builder_free(b));
    printf("wrote %s\n", out);
    return 0;
}
