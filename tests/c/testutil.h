/* Helpers shared by the C tests: checks that report drydb_errmsg(), a
 * sample database with known contents, temporary paths. */
#ifndef DRYDB_TESTUTIL_H
#define DRYDB_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drydb.h"

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s (errmsg: %s)\n", __FILE__,     \
                    __LINE__, #cond, drydb_errmsg());                               \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

#define CHECK_RC(call, want)                                                        \
    do {                                                                            \
        int rc_ = (call);                                                           \
        if (rc_ != (want)) {                                                        \
            fprintf(stderr, "%s:%d: %s returned %d (%s), want %d (%s); errmsg: %s\n", \
                    __FILE__, __LINE__, #call, rc_, drydb_strerror(rc_), (int)(want), \
                    drydb_strerror(want), drydb_errmsg());                          \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

#define OK(call) CHECK_RC(call, DRYDB_OK)

/* The sample database (tu_build_sample):
 *   table "ints"   int64 keys 0, 2, 4, ..., 2*(TU_ROWS-1); value tu_val(i)
 *                  index "mod7"  (non-unique, int64): i % 7 -> key
 *                  index "neg"   (unique, int64): -i -> key
 *   table "zstd", "s2", "dict": the same rows, compressed (dict: zstd + dictionary)
 *   table "strs"   string keys "k00000".."k00999" (appended in reverse), values "v<i>"
 *   table "big"    uint64 keys 1..4, values of 70000 * k bytes (overflow pages)
 *   table "empty"  bytes keys, no rows
 *   metadata "creator" = "testutil", "empty" = "" */
#define TU_ROWS 3000
#define TU_STRS 1000

size_t tu_val(int64_t i, uint8_t *buf); /* buf >= 128 bytes */
void tu_big_val(uint64_t k, uint8_t *buf, size_t n);
void tu_build_sample(drydb_builder *b);
void tu_sample_file(const char *path);
uint8_t *tu_sample_memory(size_t *len);
const char *tu_tmpdir(void);  /* a fresh temporary directory, removed at exit */
char *tu_path(const char *name); /* malloc'd path inside tu_tmpdir() */
int tu_under_valgrind(void);
char *tu_read_file(const char *path, size_t *len); /* malloc'd, NUL-terminated */
/* tests/vectors/<name> (the directory from $DRYDB_VECTORS), malloc'd and
 * NUL-terminated; exits naming the path when it cannot be read. */
char *tu_read_vector(const char *name);

#endif
