/* Columnar calls for the language bindings (capi/columnar.go): rows given
 * and answered as columns, one call per chunk of many rows.
 *
 * Private to libdrydb and its bindings (not in drydb.h): capi/exports.map
 * exports them. Why they exist: a binding that holds its rows as arrays
 * (NumPy, Arrow) pays, per row, for key encoding and marshalling in its own
 * language; here the library encodes keys in bulk and copies answers into
 * the caller's buffers.
 *
 * Every read copies what it found into memory the caller owns before it
 * returns, inside the database's reference (a racing drydb_close waits for
 * the call) and with memory faults turned into DRYDB_CORRUPT: nothing the
 * caller reads afterwards is the mapping, so a column outlives a close of
 * its database and a truncated file never faults in the caller's code. */
#ifndef DRYDB_COLUMNAR_H
#define DRYDB_COLUMNAR_H
#include <stddef.h>
#include <stdint.h>

#include "drydb.h"

/* What the items of a column hold, for fixed-width key kinds: native
 * numbers (the host's byte order) that the library encodes as keys (in)
 * or decodes from keys (out). RAW: the bytes themselves (the key's
 * encoding for keys). */
#define DRYDB__CONV_RAW 0
#define DRYDB__CONV_I64 1 /* int64_t  <-> DRYDB_KEY_INT64 */
#define DRYDB__CONV_U64 2 /* uint64_t <-> DRYDB_KEY_UINT64 */
#define DRYDB__CONV_F64 3 /* double   <-> DRYDB_KEY_FLOAT64 (NaN refused, -0 stored as +0) */
#define DRYDB__CONV_KEY 4 /* in, one key column: whole keys already encoded (any kind, composite
                           * included), taken as they are */

/* The rows reported fitted the caller's buffers, the next one did not;
 * call again from where they end with more room. Never a status of
 * drydb.h. (The same value and meaning as the copy-out calls'.) */
#ifndef DRYDB__FULL
#define DRYDB__FULL (-2)
#endif

/* The most bytes one column may hold: far above any real chunk, low enough
 * that offsets and sums cannot overflow. */
#define DRYDB__MAX_COL_BYTES ((uint64_t)1 << 46)

/* An input column of n items. With offsets (Arrow's layout) item i is
 * data[offsets[i] .. offsets[i+1]), offsets being n+1 non-decreasing
 * int32_t (offset_size 4) or int64_t (8) values >= 0; the caller vouches
 * that data holds offsets[n] bytes. Without offsets (NULL) item i is the
 * width bytes at data + i*width. conv: DRYDB__CONV_*, width 8 without
 * offsets for anything but RAW. */
struct drydb__colin {
    const uint8_t *data;
    const void *offsets;
    uint32_t offset_size;
    uint32_t width;
    uint32_t conv;
    uint32_t reserved; /* 0 */
};

/* An output column. Items go one after another into data (cap bytes).
 * With offsets, offsets[i] (offset_size 4 or 8) is set to base + the bytes
 * written before item i, for every item written and the one after the last
 * (offsets[0] included): an Arrow offsets buffer when base is 0, or its
 * continuation when base is the bytes a previous call wrote. Without
 * offsets, every item must be width bytes long (a longer or shorter one is
 * DRYDB_INVALID naming it); conv decodes fixed-width keys into native
 * numbers (width 8). */
struct drydb__colout {
    uint8_t *data;
    size_t cap;
    void *offsets;
    uint64_t base;
    uint32_t offset_size;
    uint32_t width;
    uint32_t conv;
    uint32_t reserved; /* 0 */
};

#ifndef DRYDB__TYPES_ONLY /* the Go side of the library sees only the types */

/* drydb_builder_append_many from columns: n rows, the key of row i made of
 * item i of keys[0..nkeys-1] (nkeys 1, or one column per part of a
 * composite key: fixed-width parts as the other kinds, string and bytes
 * parts raw, escaped by the library; or one DRYDB__CONV_KEY column of
 * encoded keys), its value item i of vals (RAW). A
 * refused row fails the call naming it (item i of this call); the rows
 * before it are added. */
int drydb__builder_append_columns(drydb_tbuilder *tb, size_t n, size_t nkeys,
                                  const struct drydb__colin *keys, const struct drydb__colin *vals);

/* drydb_get_many from key columns (as drydb__builder_append_columns') into
 * one value column: found[i] is set for every key answered, absent keys
 * get an empty item. *done: the keys answered, n unless DRYDB__FULL (then
 * continue from key *done with more room). */
int drydb__cols_get_many(drydb_table *t, size_t n, size_t nkeys, const struct drydb__colin *keys,
                         const struct drydb__colout *vals, uint8_t *found, size_t *done);

/* drydb_range into columns: the rows within the bounds (drydb_range's
 * bounds and flags) after the first skip of them in walk order, at most
 * max, keys into *keys and values into *vals (either may be NULL: not
 * wanted, not both). *n: the rows written. DRYDB_OK: fewer than max only
 * when the range ended; DRYDB__FULL: a buffer filled, call again with skip
 * + *n. */
int drydb__cols_range(drydb_table *t, const uint8_t *lo, size_t lolen, int lokind,
                      const uint8_t *hi, size_t hilen, int hikind, uint32_t flags, uint64_t skip,
                      size_t max, const struct drydb__colout *keys, const struct drydb__colout *vals,
                      size_t *n);

#endif
#endif
