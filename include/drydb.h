/*
 * drydb.h - C interface of drydb, a read-only embedded key/value database.
 *
 * This header is hand-written and is the contract of libdrydb. The library is
 * a Go engine built with -buildmode=c-shared; the header cgo generates for it
 * is an artefact of the build and is never shipped. A test compares the
 * functions declared here with the symbols the library exports.
 *
 * CONVENTIONS
 *   - Every function returns an int status (DRYDB_OK = 0) unless stated
 *     otherwise; results come back through out-pointers, which are written
 *     only on DRYDB_OK (and, where stated, on DRYDB_NOTFOUND).
 *   - DRYDB_NOTFOUND is an ordinary status (missing key, cursor at end), not
 *     a failure: it does not set drydb_errmsg().
 *   - A failure stores a human-readable detail for the calling thread, read
 *     with drydb_errmsg(). drydb_strerror(code) gives static text per code.
 *   - Handles are opaque values, NOT pointers into memory: never dereference
 *     them. A handle that was closed or freed gives DRYDB_CLOSED, a handle of
 *     the wrong kind (a cursor passed as a table) or one never returned by the
 *     library gives DRYDB_BADHANDLE; neither crashes. 64-bit platforms only.
 *   - Keys and values are byte strings (pointer + length). A NULL pointer is
 *     accepted with length 0. Those passed in are `const void *`, so C++
 *     passes char *, std::string::data() or std::vector<char>::data() with
 *     no cast (the ABI is that of const uint8_t *). Those handed back come
 *     through `const uint8_t **` out-pointers: a T ** converts to void **
 *     in neither C nor C++, so one pointer type is kept there. Any length
 *     above DRYDB_MAX_LEN (2^31 - 1) gives
 *     DRYDB_INVALID. Keys passed in are copied or used only during the call;
 *     the caller may reuse its buffers as soon as a call returns.
 *   - A key of length 0 is a real key (the smallest one), never "unbounded":
 *     ranges say unbounded explicitly with DRYDB_UNBOUNDED.
 *   - Range bounds, seek keys and rank keys are keys: one that does not fit
 *     the key kind of the table (or index) gives DRYDB_BADKEY, as a key of
 *     drydb_get does (an empty or 9-byte bound of an int64 table, say). Of a
 *     composite kind a tuple prefix (its first parts, or none: the empty
 *     key) is a bound too, and an exclusive upper bound or an inclusive
 *     lower bound may also be the successor of a bound b (b with its
 *     trailing 0xFF bytes dropped and its last byte incremented): the end of
 *     b's prefix range, so "after every key starting with b" is expressible
 *     at either end (how a partial composite bound is said: docs/API.md).
 *
 * LIFETIMES OF RETURNED POINTERS (each function repeats the rule that applies)
 *   - Uncompressed tables: keys and values point into the mapped file and are
 *     valid until drydb_close() of the database. Do not free them, do not
 *     write through them.
 *   - Compressed tables (and any datum the engine had to materialise): the
 *     five calls drydb_get, drydb_get_many, drydb_at, drydb_index_get and
 *     drydb_range copy into ONE buffer owned by the calling thread. What any
 *     of them returned is valid until the next of those five calls on the
 *     same thread, on any table of any database (a drydb_range overwrites a
 *     previous drydb_get's value), or drydb_close. No other call touches that
 *     buffer (count, rank, meta, names, info, cursors, other threads' calls).
 *   - Cursors own their buffer: what a cursor returned (drydb_cursor_get,
 *     drydb_cursor_primary_key, the batch calls) is valid until that cursor
 *     moves (any cursor call on it other than drydb_cursor_get /
 *     drydb_cursor_primary_key, a failed move included) or is closed.
 *   - Metadata values (drydb_meta_get) and the names of tables and indexes
 *     (drydb_table_name, drydb_table_index_name): valid until drydb_close,
 *     whatever the tables' compression.
 *   - Portable code assumes the shorter (compressed) rule everywhere; a
 *     pointer inside [map_addr, map_addr + map_len) of drydb_db_info is in
 *     the image and has the longer one. tests/c/test_rules.c tests each rule.
 *   - After drydb_refresh replaced the file: see "Live data" below.
 *   - A returned pointer for a zero-length datum is non-NULL but must not be
 *     read.
 *
 * THREADING
 *   - Database, table and index handles may be shared freely between threads;
 *     every read function may run concurrently with any other.
 *   - drydb_close() may be called while other threads are inside calls on the
 *     same database: it waits for those calls to return, then unmaps. Calls
 *     that start after it return DRYDB_CLOSED. Pointers returned earlier into
 *     the mapping become invalid at close: the caller must ensure no thread
 *     still reads them.
 *   - A cursor, and a builder with its table and index builders, belongs to
 *     one thread at a time (it may move between threads with proper
 *     synchronisation). Misuse does not crash: calls on one cursor are
 *     serialised internally.
 *   - On uncompressed tables, drydb_get, drydb_get_many, drydb_count,
 *     drydb_rank and drydb_range run in plain C, without entering the Go
 *     runtime, on pages the library has already checked (checksum and
 *     structure, done on first touch): ~20 ns a get. On compressed tables
 *     drydb_get, drydb_count, drydb_rank and drydb_range do too while the
 *     leaves they need are decoded in the page cache. Everything else enters
 *     Go: a page's first touch, a cache miss, other calls. The first
 *     such call from a new OS thread costs a few microseconds (the Go runtime
 *     binds to the thread); later calls cost ~50 ns of crossing. Prefer
 *     thread pools and the batch calls (drydb_get_many, drydb_range,
 *     drydb_cursor_next_batch), which pay the crossing once per batch.
 *
 * PROCESS CAVEATS (the library embeds a Go runtime)
 *   - Do not fork() without exec() once the library has been called: the child
 *     hangs at its first call. Python: use the "spawn"/"forkserver" start
 *     methods of multiprocessing.
 *   - The library cannot be unloaded: dlclose() is a no-op.
 *   - GOGC/GOMEMLIMIT/GOMAXPROCS set after process start are ignored; use
 *     drydb_set_memory_limit() and drydb_set_gc_percent().
 *   - The runtime installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGPIPE and
 *     SIGURG and adds SA_ONSTACK to other handlers. A file truncated under an
 *     open database gives DRYDB_CORRUPT or DRYDB_IO, not SIGBUS.
 *   - Replace a database file by renaming a new one over it (as the builder
 *     does): open handles keep reading the old file. A file written to in
 *     place while open is outside what checksums can promise (a page is
 *     checked when first read, then trusted): reads of it give
 *     DRYDB_CORRUPT (the library fstat()s open files when a read goes out of
 *     bounds), the old answers, or answers from the new bytes.
 *   - For the C lookups above, the first drydb_table_open of an uncompressed
 *     table also installs a SIGBUS and SIGSEGV handler (SA_ONSTACK |
 *     SA_SIGINFO | SA_NODEFER) that catches a fault raised inside such a
 *     lookup (a truncated file) and passes every other signal on to the
 *     handler installed before it (the Go runtime's, which passes on to the
 *     host's). A host that installs its own handler for these signals later
 *     must chain to the previous one, as it must for the Go runtime.
 */
#ifndef DRYDB_H
#define DRYDB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(DRYDB_BUILD)
#  define DRYDB_API __declspec(dllexport) /* building drydb.dll itself */
#elif defined(_WIN32)
#  define DRYDB_API __declspec(dllimport)
#elif defined(__GNUC__)
#  define DRYDB_API __attribute__((visibility("default")))
#else
#  define DRYDB_API
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                   */

#define DRYDB_VERSION_MAJOR 0
#define DRYDB_VERSION_MINOR 1
#define DRYDB_VERSION_PATCH 0
#define DRYDB_VERSION_STRING "0.1.0"

/* The library's version. Any out-pointer may be NULL. Bindings should refuse
 * a library whose major version differs from the one they were written for. */
DRYDB_API void drydb_version(int *major, int *minor, int *patch);
/* Static string "MAJOR.MINOR.PATCH"; do not free. */
DRYDB_API const char *drydb_version_string(void);

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */

#define DRYDB_OK          0  /* success */
#define DRYDB_NOTFOUND    1  /* no such key/row; cursor at end (ordinary status) */
#define DRYDB_INVALID     2  /* bad argument: NULL out-pointer, absurd length, bad option */
#define DRYDB_CLOSED      3  /* handle closed or freed, or its database closed */
#define DRYDB_BADHANDLE   4  /* handle of the wrong kind, or never valid */
#define DRYDB_CORRUPT     5  /* checksum/structure check failed; file changed underneath */
#define DRYDB_VERSION     6  /* file format version not supported */
#define DRYDB_KEYTOOLARGE 7  /* key longer than the page size allows */
#define DRYDB_DUPLICATE   8  /* builder: key appended twice (table or unique index) */
#define DRYDB_BADKEY      9  /* key does not fit the table's key kind (width, UTF-8) */
#define DRYDB_IO          10 /* operating system I/O error (open, read, write, mmap) */
#define DRYDB_NOMEM       11 /* out of memory */
#define DRYDB_NOTABLE     12 /* no table of that name */
#define DRYDB_NOINDEX     13 /* no index of that name */
#define DRYDB_FILTER      14 /* file uses a page filter not registered in this library */
#define DRYDB_TOOLARGE    15 /* value or file exceeds a format limit */
#define DRYDB_INTERNAL    16 /* internal error (a recovered panic); see drydb_errmsg() */

/* Static English text for a status code ("unknown status" for others); do
 * not free. */
DRYDB_API const char *drydb_strerror(int code);
/* Detail of the calling thread's last failure (not cleared by successful
 * calls; "" if none). Thread-local buffer: valid until the next failing call
 * on this thread; do not free. */
DRYDB_API const char *drydb_errmsg(void);

/* ------------------------------------------------------------------------ */
/* Constants                                                                 */

/* Key kinds (drydb_table_info.key_kind, drydb_builder_table). */
#define DRYDB_KEY_BYTES     0 /* arbitrary bytes, memcmp order */
#define DRYDB_KEY_STRING    1 /* UTF-8 bytes, memcmp order */
#define DRYDB_KEY_INT64     2 /* 8 bytes, see drydb_key_int64 */
#define DRYDB_KEY_UINT64    3 /* 8 bytes big-endian */
#define DRYDB_KEY_FLOAT64   4 /* 8 bytes, see drydb_key_float64 */
#define DRYDB_KEY_UUID      5 /* 16 bytes, RFC 4122 byte order */
#define DRYDB_KEY_ULID      6 /* 16 bytes, ULID binary form */
#define DRYDB_KEY_COMPOSITE 7 /* tuple of the kinds above, see drydb_key_append_* */

/* Maximum number of parts of a composite key. */
#define DRYDB_MAX_PARTS 16

/* Range bound kinds. With DRYDB_UNBOUNDED the key pointer and length are
 * ignored (may be NULL/0). */
#define DRYDB_UNBOUNDED 0
#define DRYDB_INCLUSIVE 1
#define DRYDB_EXCLUSIVE 2

/* Flags of drydb_range. */
#define DRYDB_REVERSE 1 /* descending key order */

/* Compression of a table's leaf pages. */
#define DRYDB_COMPRESS_NONE 0
#define DRYDB_COMPRESS_ZSTD 1
#define DRYDB_COMPRESS_S2   2

/* drydb_open flags. */
#define DRYDB_OPEN_VERIFY 0x1u /* check every page checksum at open (reads the whole file) */

/* drydb_builder_table flags; drydb_table_info.flags. */
#define DRYDB_DICTIONARY 0x1u /* train and store a compression dictionary for the table */
/* A hash index (format version 3) takes a point lookup from the key to its
 * row in one probe instead of a tree descent, for about 11 bytes a row.
 * Without either flag a table gets one unless it is compressed (the bytes
 * would undo much of what compression saves: ask with DRYDB_HASH) or its
 * keys are consecutive integers (the tree finds those by subtraction).
 * In drydb_table_info.flags, DRYDB_HASH says the table has one. */
#define DRYDB_HASH       0x2u /* always build a hash index */
#define DRYDB_NO_HASH    0x4u /* never build one */

/* Largest byte length accepted by any call. */
#define DRYDB_MAX_LEN ((size_t)0x7fffffff)

/* ------------------------------------------------------------------------ */
/* Handles (opaque; not pointers to memory)                                  */

typedef struct drydb_db drydb_db;             /* an open database */
typedef struct drydb_table drydb_table;       /* a table of an open database */
typedef struct drydb_index drydb_index;       /* a secondary index of a table */
typedef struct drydb_cursor drydb_cursor;     /* a cursor over a table or index range */
typedef struct drydb_builder drydb_builder;   /* a database being built */
typedef struct drydb_tbuilder drydb_tbuilder; /* a table being built */
typedef struct drydb_ibuilder drydb_ibuilder; /* an index being built */

/* ------------------------------------------------------------------------ */
/* Info structures. Layouts are fixed (offsets in comments) for bindings that
 * declare them by hand; reserved fields are zero. They are used with the
 * struct keyword, like POSIX `struct stat`, because the functions that fill
 * them carry the same names (drydb_table_info, drydb_index_info, ...).      */

struct drydb_db_info {
    uint32_t format_version;  /*  0 */
    uint32_t page_size;       /*  4 */
    int64_t  file_size;       /*  8 bytes */
    int64_t  created_unix_ns; /* 16 build time, ns since 1970-01-01 UTC */
    uint8_t  build_id[16];    /* 24 random id of the build */
    uint64_t table_count;     /* 40 */
    uint64_t map_addr;        /* 48 address of the file image (the mapping, or
                                    the buffer of drydb_open_memory): a value
                                    pointer inside [map_addr, map_addr+map_len)
                                    is valid until drydb_close; one outside it
                                    (a compressed table's value) has the shorter
                                    lifetime its function states */
    uint64_t map_len;         /* 56 */
    uint64_t reserved[2];     /* 64 */
};              /* size 80 */

struct drydb_table_info {
    int32_t  key_kind;                /*  0 DRYDB_KEY_* */
    uint32_t nparts;                  /*  4 composite parts (0 otherwise) */
    uint8_t  parts[DRYDB_MAX_PARTS];  /*  8 DRYDB_KEY_* of each part */
    uint64_t rows;                    /* 24 */
    uint32_t index_count;             /* 32 */
    int32_t  compression;             /* 36 DRYDB_COMPRESS_* */
    int32_t  level;                   /* 40 compression level (0 = default) */
    uint32_t flags;                   /* 44 DRYDB_DICTIONARY, DRYDB_HASH */
    uint64_t reserved[4];             /* 48 */
};                   /* size 80 */

struct drydb_index_info {
    int32_t  key_kind;                /*  0 DRYDB_KEY_* of the index key */
    uint32_t nparts;                  /*  4 */
    uint8_t  parts[DRYDB_MAX_PARTS];  /*  8 */
    uint64_t entries;                 /* 24 */
    uint32_t unique;                  /* 32 1 if unique */
    uint32_t reserved0;               /* 36 */
    uint64_t reserved[4];             /* 40 */
};                   /* size 72 */

struct drydb_cache_stats {
    uint64_t hits;        /*  0 */
    uint64_t misses;      /*  8 */
    uint64_t evictions;   /* 16 */
    uint64_t bytes;       /* 24 bytes currently cached (decompressed pages) */
    uint64_t reserved[4]; /* 32 */
};      /* size 64 */

/* Bindings' own copies of the layouts are checked against these. */
#define DRYDB_DB_INFO_SIZE     80
#define DRYDB_TABLE_INFO_SIZE  80
#define DRYDB_INDEX_INFO_SIZE  72
#define DRYDB_CACHE_STATS_SIZE 64

#ifndef DRYDB__TYPES_ONLY /* internal: the Go side of the library sees only the types */

/* ------------------------------------------------------------------------ */
/* Database                                                                  */

/* Open the database file at `path` (memory-mapped, read-only).
 * flags: 0 or DRYDB_OPEN_VERIFY. cache_bytes: size of the cache of
 * decompressed pages for compressed tables (0 = default, <0 = DRYDB_INVALID).
 * Errors: DRYDB_IO, DRYDB_CORRUPT, DRYDB_VERSION, DRYDB_FILTER, DRYDB_INVALID. */
DRYDB_API int drydb_open(const char *path, uint32_t flags, int64_t cache_bytes,
                         drydb_db **out);

/* Open a database image held in memory. The library does not copy it: the
 * caller keeps `data` alive and unmodified until drydb_close() returns. */
/* DryDB 1.4 files (the C# DryDB's format, first bytes "DRY\0" 01 04) open
 * through drydb_open and drydb_open_memory too: read and checked whole, and
 * translated into an image the library owns (values valid until
 * drydb_close, as for an uncompressed native table; drydb_open_memory's data
 * may be freed once it returns). Open costs a pass over the file and about
 * its native size in memory: docs/DRYDB14.md. Other DryDB versions give
 * DRYDB_VERSION. */
DRYDB_API int drydb_open_memory(const void *data, size_t len, uint32_t flags,
                                int64_t cache_bytes, drydb_db **out);

/* Close a database: frees its table, index and cursor handles (later use gives
 * DRYDB_CLOSED), the strings it returned, and unmaps the file. Waits for calls
 * in progress on other threads. Accepts NULL and already-closed handles
 * (returns DRYDB_OK); a handle of another kind gives DRYDB_BADHANDLE. */
DRYDB_API int drydb_close(drydb_db *db);

/* Check every page checksum and structure. DRYDB_OK or DRYDB_CORRUPT. */
DRYDB_API int drydb_verify(drydb_db *db);

DRYDB_API int drydb_info(drydb_db *db, struct drydb_db_info *out);

/* Look up user metadata stored by drydb_builder_set_meta. *val: valid until
 * drydb_close; do not free. DRYDB_NOTFOUND if absent. */
DRYDB_API int drydb_meta_get(drydb_db *db, const void *key, size_t klen,
                             const uint8_t **val, size_t *vlen);

/* Number of tables, and the name of table i (0-based, in file order).
 * *name: NUL-terminated, valid until drydb_close; do not free. i out of
 * range gives DRYDB_NOTFOUND. */
DRYDB_API int drydb_table_count(drydb_db *db, size_t *out);
DRYDB_API int drydb_table_name(drydb_db *db, size_t i, const char **name);

/* Statistics of the decompressed-page cache. */
DRYDB_API int drydb_cache_stats(drydb_db *db, struct drydb_cache_stats *out);

/* ------------------------------------------------------------------------ */
/* Tables                                                                    */

/* Open the table called `name` (NUL-terminated). The handle needs no closing: it
 * lives until drydb_close (asking twice gives the same handle).
 * DRYDB_NOTABLE if absent. */
DRYDB_API int drydb_table_open(drydb_db *db, const char *name, drydb_table **out);

DRYDB_API int drydb_table_info(drydb_table *tbl, struct drydb_table_info *out);

/* Point lookup. DRYDB_NOTFOUND if absent, DRYDB_BADKEY if the key cannot
 * belong to the table's key kind. *val: uncompressed table: valid until
 * drydb_close; compressed: thread buffer, valid until the next drydb_get,
 * drydb_get_many, drydb_at, drydb_index_get or drydb_range on this thread. */
DRYDB_API int drydb_get(drydb_table *tbl, const void *key, size_t klen,
                        const uint8_t **val, size_t *vlen);

/* Batch lookup of n keys, concatenated in `keys` with lengths klens[0..n).
 * Writes vals[i], vlens[i], found[i] (1/0; vals[i]=NULL, vlens[i]=0 when not
 * found). Returns DRYDB_OK even if some keys are missing. n = 0 is allowed.
 * Lifetime of vals[i]: as for drydb_get (all n stay valid together). */
DRYDB_API int drydb_get_many(drydb_table *tbl, size_t n, const void *keys,
                             const size_t *klens, const uint8_t **vals,
                             size_t *vlens, uint8_t *found);

/* Number of rows with lo <(=) key <(=) hi. lokind/hikind: DRYDB_UNBOUNDED,
 * DRYDB_INCLUSIVE, DRYDB_EXCLUSIVE. */
DRYDB_API int drydb_count(drydb_table *tbl,
                          const void *lo, size_t lolen, int lokind,
                          const void *hi, size_t hilen, int hikind,
                          uint64_t *out);

/* Up to `max` rows of the range lo..hi (bounds as for drydb_count) in one
 * call, in key order, or descending with DRYDB_REVERSE: the cheapest way to
 * read a short range, and to page through a long one (call again with the
 * last key read as an exclusive bound). Writes keys[i], klens[i] and, unless
 * vals and vlens are both NULL, vals[i], vlens[i], for i < *n; the arrays
 * hold at least max elements (max = 0 gives DRYDB_INVALID, as for the
 * cursor batch calls: a paging loop on n == max would not end). DRYDB_OK
 * also when *n < max (the range has no more rows) and for an empty range
 * (*n = 0). Needs no cursor: no handle to open or close. Lifetime: as for
 * drydb_get (uncompressed tables: until drydb_close; compressed: the thread
 * buffer, so this call overwrites what an earlier drydb_get, drydb_get_many,
 * drydb_at or drydb_index_get on this thread returned, and they overwrite
 * what it returned). */
DRYDB_API int drydb_range(drydb_table *tbl,
                          const void *lo, size_t lolen, int lokind,
                          const void *hi, size_t hilen, int hikind,
                          uint32_t flags, size_t max,
                          const uint8_t **keys, size_t *klens,
                          const uint8_t **vals, size_t *vlens, size_t *n);

/* Number of keys < key (the key need not exist). */
DRYDB_API int drydb_rank(drydb_table *tbl, const void *key, size_t klen,
                         uint64_t *out);

/* The n-th row (0-based, key order). DRYDB_NOTFOUND if n >= rows.
 * Lifetime of *key and *val: as for drydb_get. */
DRYDB_API int drydb_at(drydb_table *tbl, uint64_t n,
                       const uint8_t **key, size_t *klen,
                       const uint8_t **val, size_t *vlen);

/* ------------------------------------------------------------------------ */
/* Cursors                                                                   */
/*
 * A cursor walks the keys of one table (or index) within [lo, hi] bounds.
 * It starts unpositioned: drydb_cursor_next on a fresh cursor acts as
 * drydb_cursor_first, drydb_cursor_prev as drydb_cursor_last, so
 *     while (drydb_cursor_next(c) == DRYDB_OK) drydb_cursor_get(c, ...);
 * walks the range. Moves return DRYDB_OK when the cursor is on an entry and
 * DRYDB_NOTFOUND when it ran off the range (the cursor is then "at end": next
 * and prev keep returning DRYDB_NOTFOUND until a first/last/seek).
 * drydb_cursor_get on a cursor that is not on an entry gives DRYDB_NOTFOUND.
 * A positioning call that finds nothing (drydb_cursor_seek past the range,
 * drydb_cursor_seek_exact of an absent key, drydb_cursor_seek_row outside
 * the range) also leaves the cursor at end. A call refused for its argument
 * (DRYDB_BADKEY, DRYDB_INVALID) does not move the cursor: it stays on its
 * entry, at end, or fresh (next still acts as first).
 * Pointers from a cursor: valid until the cursor moves or is closed
 * (uncompressed tables: in fact until drydb_close). Close every cursor
 * (drydb_close of the database also frees them).
 */

DRYDB_API int drydb_cursor_open(drydb_table *tbl,
                                const void *lo, size_t lolen, int lokind,
                                const void *hi, size_t hilen, int hikind,
                                drydb_cursor **out);
/* Cursor over the keys that start with prefix p (plen 0: the whole table). */
DRYDB_API int drydb_cursor_open_prefix(drydb_table *tbl, const void *p,
                                       size_t plen, drydb_cursor **out);

DRYDB_API int drydb_cursor_first(drydb_cursor *cur);
DRYDB_API int drydb_cursor_last(drydb_cursor *cur);
DRYDB_API int drydb_cursor_next(drydb_cursor *cur);
DRYDB_API int drydb_cursor_prev(drydb_cursor *cur);
/* Position on the first key >= k within the bounds (a k below lo positions on
 * the first entry). DRYDB_NOTFOUND if there is none. */
DRYDB_API int drydb_cursor_seek(drydb_cursor *cur, const void *k, size_t klen);
/* Position on key k exactly, if present within the bounds; else
 * DRYDB_NOTFOUND (and the cursor is at end). Index cursors: the first entry
 * whose index key is k. */
DRYDB_API int drydb_cursor_seek_exact(drydb_cursor *cur, const void *k, size_t klen);
/* Position on the n-th row of the table (0-based, whole-table numbering);
 * DRYDB_NOTFOUND if that row is outside the bounds or n >= rows. Index
 * cursors: the n-th entry of the whole index (index key order, then primary
 * key order), whatever the cursor's bounds; NOTFOUND when that entry lies
 * outside them or n >= entries. */
DRYDB_API int drydb_cursor_seek_row(drydb_cursor *cur, uint64_t n);

/* The current entry. Index cursors: *key is the index key, *val the row's
 * value. Lifetime: until the cursor moves or closes. Either pair of
 * out-pointers may be NULL. */
DRYDB_API int drydb_cursor_get(drydb_cursor *cur,
                               const uint8_t **key, size_t *klen,
                               const uint8_t **val, size_t *vlen);
/* Index cursors: the primary key of the current entry. Table cursors give
 * DRYDB_BADHANDLE. Lifetime: until the cursor moves or closes. */
DRYDB_API int drydb_cursor_primary_key(drydb_cursor *cur,
                                       const uint8_t **pk, size_t *pklen);

/* Fill up to `max` entries starting at the current entry (a fresh cursor
 * starts at the first entry, or at the last one if reverse != 0), walking
 * forward (reverse = 0) or backward, and leave the cursor on the entry after
 * the last one returned: the next batch call continues from there. *n is the
 * number filled (1..max) on DRYDB_OK; DRYDB_NOTFOUND (with *n = 0) when there
 * is no entry left. max = 0 gives DRYDB_INVALID (as for drydb_range) and does
 * not move the cursor. Index cursors: keys are index keys. Arrays keys, klens,
 * vals, vlens hold at least max elements; vals/vlens may both be NULL to skip
 * values. Lifetime: until the cursor moves or closes. */
DRYDB_API int drydb_cursor_next_batch(drydb_cursor *cur, int reverse, size_t max,
                                      const uint8_t **keys, size_t *klens,
                                      const uint8_t **vals, size_t *vlens,
                                      size_t *n);

/* Free a cursor. Accepts NULL and closed handles (DRYDB_OK). */
DRYDB_API int drydb_cursor_close(drydb_cursor *cur);

/* ------------------------------------------------------------------------ */
/* Secondary indexes                                                         */

/* The index called `name` of a table. Lives until drydb_close, like tables.
 * DRYDB_NOINDEX if absent. */
DRYDB_API int drydb_index_open(drydb_table *tbl, const char *name, drydb_index **out);

/* The name of the table's index i (0-based, sorted by name; the count is
 * drydb_table_info's index_count). *name: NUL-terminated, valid until
 * drydb_close; do not free. i out of range gives DRYDB_NOTFOUND. */
DRYDB_API int drydb_table_index_name(drydb_table *tbl, size_t i, const char **name);
DRYDB_API int drydb_index_info(drydb_index *ix, struct drydb_index_info *out);

/* First entry whose index key equals ikey: its primary key and the row's
 * value. DRYDB_NOTFOUND if none. Lifetime: as for drydb_get. */
DRYDB_API int drydb_index_get(drydb_index *ix, const void *ikey, size_t iklen,
                              const uint8_t **pk, size_t *pklen,
                              const uint8_t **val, size_t *vlen);

/* Number of index entries with index key within the bounds. */
DRYDB_API int drydb_index_count(drydb_index *ix,
                                const void *lo, size_t lolen, int lokind,
                                const void *hi, size_t hilen, int hikind,
                                uint64_t *out);

/* Cursors over index entries (index key order, then primary key order). */
DRYDB_API int drydb_index_cursor_open(drydb_index *ix,
                                      const void *lo, size_t lolen, int lokind,
                                      const void *hi, size_t hilen, int hikind,
                                      drydb_cursor **out);
DRYDB_API int drydb_index_cursor_open_prefix(drydb_index *ix, const void *p,
                                             size_t plen, drydb_cursor **out);

/* drydb_cursor_next_batch for index cursors that also returns primary keys
 * (pks/pklens hold max elements; vals/vlens may be NULL). */
DRYDB_API int drydb_index_cursor_next_batch(drydb_cursor *cur, int reverse, size_t max,
                                            const uint8_t **ikeys, size_t *iklens,
                                            const uint8_t **pks, size_t *pklens,
                                            const uint8_t **vals, size_t *vlens,
                                            size_t *n);

/* ------------------------------------------------------------------------ */
/* Builder                                                                   */
/*
 * Build a database: create a builder, add tables and their rows (any order)
 * and indexes with their entries (any order), then build to
 * a file or to memory, and free the builder. The file is written to a
 * temporary name and renamed, so a crash never leaves a half-written file.
 * Table and index builders are freed with their builder.
 */

/* page_size: 0 = 4096, else a power of two in [512, 65536].
 * memory_budget: bytes of RAM for sorting indexes before spilling to
 * temporary files (0 = 256 MiB). */
DRYDB_API int drydb_builder_new(uint32_t page_size, int64_t memory_budget,
                                drydb_builder **out);
/* Store a metadata pair (read back with drydb_meta_get). */
DRYDB_API int drydb_builder_set_meta(drydb_builder *b, const void *key, size_t klen,
                                     const void *val, size_t vlen);
/* Add a table. key_kind: DRYDB_KEY_*; for DRYDB_KEY_COMPOSITE, parts[0..nparts)
 * are the kinds of its parts (not composite), else parts may be NULL with
 * nparts 0. compression: DRYDB_COMPRESS_*; level 0 = default; flags: 0 or
 * DRYDB_DICTIONARY, DRYDB_HASH or DRYDB_NO_HASH (with a merge builder, a
 * base table's name changes its compression and hash index). */
DRYDB_API int drydb_builder_table(drydb_builder *b, const char *name, int key_kind,
                                  const uint8_t *parts, size_t nparts,
                                  int compression, int level, uint32_t flags,
                                  drydb_tbuilder **out);
/* Add a secondary index to a table being built; its entries are given with
 * drydb_builder_index_add. */
DRYDB_API int drydb_builder_index(drydb_tbuilder *tb, const char *name, int unique,
                                  int key_kind, const uint8_t *parts, size_t nparts,
                                  drydb_ibuilder **out);
/* Append a row, in any key order (the builder sorts; key and value are
 * copied). DRYDB_KEYTOOLARGE/DRYDB_BADKEY at once, drydb_errmsg() naming the
 * row by its number in the table (counted from 0 over every append call); a
 * key appended twice gives DRYDB_DUPLICATE at build. */
DRYDB_API int drydb_builder_append(drydb_tbuilder *tb, const void *key, size_t klen,
                                   const void *val, size_t vlen);
/* Append n rows: keys and values concatenated, with their lengths. Stops at
 * the first failing row (rows before it are appended). */
DRYDB_API int drydb_builder_append_many(drydb_tbuilder *tb, size_t n,
                                        const void *keys, const size_t *klens,
                                        const void *vals, const size_t *vlens);
/* Add an index entry (index key -> primary key of a row of the table). The
 * row may be appended before or after; if it never is, the build fails with
 * DRYDB_INVALID naming the index and the keys. */
DRYDB_API int drydb_builder_index_add(drydb_ibuilder *ib, const void *ikey, size_t iklen,
                                      const void *pk, size_t pklen);
DRYDB_API int drydb_builder_index_add_many(drydb_ibuilder *ib, size_t n,
                                           const void *ikeys, const size_t *iklens,
                                           const void *pks, const size_t *pklens);
/* Build to a file (written to a temporary name, synced, renamed). A builder
 * builds once: afterwards its calls (and those of its table and index
 * builders) give DRYDB_CLOSED; it still must be freed. A path that names
 * anything but a regular file (a device such as /dev/null, a FIFO, a
 * directory, a symbolic link) gives DRYDB_INVALID before the build starts,
 * touches nothing, and leaves the builder able to build. */
DRYDB_API int drydb_builder_build_file(drydb_builder *b, const char *path);
/* Build to memory: *out is allocated with malloc, owned by the caller, freed
 * with drydb_free. */
DRYDB_API int drydb_builder_build_memory(drydb_builder *b, uint8_t **out, size_t *len);
/* Free the builder, its table and index builders, and temporary files.
 * Accepts NULL and freed handles (DRYDB_OK). */
DRYDB_API int drydb_builder_free(drydb_builder *b);

/* DryDB 1.4 output (docs/DRYDB14.md, "Writing 1.4 files"). DRYDB_FORMAT_DRYDB14 makes the
 * builder write a file in DryDB's storage format 1.4, which the C# DryDB
 * reads: it builds the native file in its temporary directory, then writes
 * that as 1.4 (build_file: atomically; build_memory: into memory). Call it
 * before the first drydb_builder_table. Tables and indexes 1.4 cannot hold
 * (uint64, float64 or composite keys; S2 compression, zstd dictionaries)
 * are then refused by drydb_builder_table/drydb_builder_index with
 * DRYDB_INVALID naming them. Zstd on any table makes the whole 1.4 file
 * zstd; the page size is the builder's; metadata is not stored. */
#define DRYDB_FORMAT_NATIVE  "native"
#define DRYDB_FORMAT_DRYDB14 "drydb-1.4"
DRYDB_API int drydb_builder_set_format(drydb_builder *b, const char *format);
/* Convert the database file in (native or DryDB 1.4) to out in format to
 * (DRYDB_FORMAT_*), atomically; out may be in. page_size: 0 = native keeps
 * in's, 1.4 uses 4096 (1.4 takes 64 to 1048576). compression: NULL keeps
 * in's, or "none" / "zstd". The contents are the same, the bytes are not. */
DRYDB_API int drydb_convert(const char *in, const char *out, const char *to,
                            uint32_t page_size, const char *compression);

/* Rebuild by merge: a builder seeded from an open database (base) writes
 * base's rows with changes applied. Every table and index of base is in it
 * with its key kind and compression; metadata is carried (set_meta adds or
 * replaces). Only the leaves a change falls into are rewritten; the rest of
 * the file is copied. Then:
 *   - drydb_builder_merge_table gives a base table's builder; the
 *     append calls upsert (insert or replace) rows, in any order, and
 *     drydb_builder_delete removes keys (a key base lacks is ignored).
 *   - drydb_builder_merge_index gives a base index's builder; give the
 *     entries of upserted rows with drydb_builder_index_add (the entries of
 *     replaced and deleted rows are dropped; those of untouched rows kept).
 *   - drydb_builder_table with a base table's name changes its compression
 *     (its key kind must be the base's; its rows are then re-encoded);
 *     with a new name it adds a table. drydb_builder_index on a base
 *     table refuses a new index name (DRYDB_INVALID: the entries of
 *     untouched rows are unknown), and with a base index's name must
 *     restate its unique flag and key kind.
 *   - A key is changed at most once per merge: upserted twice gives
 *     DRYDB_DUPLICATE at build, upserted and deleted DRYDB_INVALID (deleted
 *     twice is one delete).
 * page_size: 0 = base's (another size re-encodes every table).
 * memory_budget as for drydb_builder_new.
 * base: must stay open while the builder is used. Every call on the builder
 * and its table and index builders counts as a call on base, so
 * drydb_close(base) waits for one in progress; after base is closed they
 * give DRYDB_CLOSED (drydb_builder_free still frees). */
DRYDB_API int drydb_builder_new_merge(drydb_db *base, uint32_t page_size,
                                      int64_t memory_budget, drydb_builder **out);
/* The builder of base table name (DRYDB_NOTABLE if base has none); asked
 * twice, the same table. */
DRYDB_API int drydb_builder_merge_table(drydb_builder *b, const char *name,
                                        drydb_tbuilder **out);
/* The builder of base index name of a merged table (DRYDB_NOINDEX if the
 * base table has none). */
DRYDB_API int drydb_builder_merge_index(drydb_tbuilder *tb, const char *name,
                                        drydb_ibuilder **out);
/* Delete the row of key from a merged table (key copied). DRYDB_INVALID on a
 * builder not made by drydb_builder_new_merge or a table not in its base. */
DRYDB_API int drydb_builder_delete(drydb_tbuilder *tb, const void *key, size_t klen);

/* Free memory the library allocated for the caller (drydb_builder_build_memory).
 * Accepts NULL. */
DRYDB_API void drydb_free(void *p);

/* ------------------------------------------------------------------------ */
/* Runtime knobs (process-wide)                                              */

/* Soft limit on the Go heap in bytes (runtime/debug.SetMemoryLimit); a
 * negative value only reads the current limit. *old may be NULL. */
DRYDB_API int drydb_set_memory_limit(int64_t bytes, int64_t *old);
/* GC target percentage (runtime/debug.SetGCPercent); negative disables the
 * collector. *old may be NULL. */
DRYDB_API int drydb_set_gc_percent(int percent, int *old);

/* ------------------------------------------------------------------------ */
/* Value codecs (docs/API.md)                                                */
/* A table may record how its values are encoded: "json", "msgpack", "raw" or */
/* a user's name (at most 64 bytes of UTF-8, no newline). It is stored as the */
/* metadata pair "drydb.codec.<table>" (no format change; files without it   */
/* have none). The Python binding and the CLI decode values with it by      */
/* default; C# returns bytes and gives the name (Table.Codec). The library   */
/* itself never encodes or decodes values.                                   */

/* Record the codec of a table being built ("" records nothing). */
DRYDB_API int drydb_builder_table_codec(drydb_tbuilder *t, const char *codec);

/* The i-th metadata key (byte order, 0-based; drydb.codec.* pairs included),
 * for listing what drydb_meta_get can read. DRYDB_NOTFOUND past the last.
 * *key: valid until drydb_close. */
DRYDB_API int drydb_meta_key(drydb_db *db, size_t i, const uint8_t **key, size_t *klen);

/* The table's recorded codec name, "" when none. *name: NUL-terminated, valid
 * until drydb_close of the table's database. */
DRYDB_API int drydb_table_codec(drydb_table *tbl, const char **name);

/* ------------------------------------------------------------------------ */
/* Sharded databases (docs/FORMAT.md, "Sharded databases")                   */

/* drydb_open also opens a manifest: a small file naming shard files (each
 * an ordinary database) and the key range of each. The database it gives
 * spans the shards (every call above works on it; shards open at first use,
 * and an error names a missing or corrupt shard). */

/* Write a manifest at `path` for the `n` range shards `shards` (file names
 * relative to the manifest's directory, in key order: every key of shard i
 * is below every key of shard i+1 in each table). Reads each shard's first
 * and last keys and row counts; writes atomically (temporary file, rename).
 * Errors: DRYDB_IO, DRYDB_CORRUPT (a shard), DRYDB_INVALID (shards out of
 * order or of different tables). */
DRYDB_API int drydb_write_range_manifest(const char *path, const char *const *shards, size_t n);

/* As drydb_write_range_manifest, for hash shards: shard i holds, in every
 * table, the keys whose slot is i among n slots (drydb_shard_slots); every
 * shard has every table (an empty one too). Checks each shard's first and
 * last keys against its slot (DRYDB_INVALID: shards out of slot order);
 * drydb_verify checks every key. Hash tables serve gets, counts, rank and
 * cursors (merged in key order); row numbers are refused (DRYDB_INVALID). */
DRYDB_API int drydb_write_hash_manifest(const char *path, const char *const *shards, size_t n);

/* The hash slots among `slots` (>= 1) of `n` encoded keys (the bytes a
 * table stores: the drydb_key_* encodings), given one after another in
 * `keys`, key i being `lens[i]` bytes: out[i] = FNV-1a-64(key i) mod slots.
 * For builders that write hash shards themselves (drydb.spark). */
DRYDB_API int drydb_shard_slots(const uint8_t *keys, const size_t *lens, size_t n, uint32_t slots, uint32_t *out);

#endif /* DRYDB__TYPES_ONLY */

/* ------------------------------------------------------------------------ */
/* Typed key helpers: inline, no library call. They produce the byte strings
 * the engine compares with memcmp (package engine/keyenc on the Go side).   */

/* int64: big-endian with the sign bit flipped, so negative < positive. */
static inline void drydb_key_int64(int64_t v, uint8_t out[8]) {
    uint64_t u = (uint64_t)v ^ 0x8000000000000000ull;
    for (int i = 7; i >= 0; i--) { out[i] = (uint8_t)u; u >>= 8; }
}
static inline int64_t drydb_key_to_int64(const uint8_t in[8]) {
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u = (u << 8) | in[i];
    return (int64_t)(u ^ 0x8000000000000000ull);
}

/* uint64: big-endian. */
static inline void drydb_key_uint64(uint64_t v, uint8_t out[8]) {
    for (int i = 7; i >= 0; i--) { out[i] = (uint8_t)v; v >>= 8; }
}
static inline uint64_t drydb_key_to_uint64(const uint8_t in[8]) {
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) u = (u << 8) | in[i];
    return u;
}

/* float64: IEEE bits big-endian; positive: sign bit flipped, negative: all
 * bits flipped, so -inf < -1 < 0 < 1 < +inf. -0 is encoded as +0. NaN is
 * not a valid key: the library refuses it (DRYDB_BADKEY). */
static inline void drydb_key_float64(double v, uint8_t out[8]) {
    uint64_t u;
    if (v == 0) v = 0; /* -0 is stored as +0: the two compare equal */
    memcpy(&u, &v, 8);
    u = (u & 0x8000000000000000ull) ? ~u : (u ^ 0x8000000000000000ull);
    drydb_key_uint64(u, out);
}
static inline double drydb_key_to_float64(const uint8_t in[8]) {
    uint64_t u = drydb_key_to_uint64(in);
    u = (u & 0x8000000000000000ull) ? (u ^ 0x8000000000000000ull) : ~u;
    double v;
    memcpy(&v, &u, 8);
    return v;
}

/* UUID: the 16 bytes in RFC 4122 (network) order, as printed left to right;
 * the encoding is the identity. Windows/.NET GUID structures store the first
 * three fields little-endian: convert them (Guid.ToByteArray is NOT RFC
 * order) or keys will not sort as expected. */
static inline void drydb_key_uuid(const uint8_t uuid[16], uint8_t out[16]) {
    memcpy(out, uuid, 16);
}
/* ULID: the 16-byte binary form (48-bit big-endian ms time, 80 bits of
 * randomness); identity. */
static inline void drydb_key_ulid(const uint8_t ulid[16], uint8_t out[16]) {
    memcpy(out, ulid, 16);
}

/* Composite keys: append each part in order. The appenders write into
 * dst[pos..cap) and return the new position pos + size of the part; they
 * write only what fits, so a result > cap means the buffer was too small
 * (call with dst = NULL, cap = 0 to measure). Fixed-width parts (int64,
 * uint64, float64, uuid, ulid) are written as above; bytes and strings are
 * escaped (0x00 -> 0x00 0xFF) and terminated by 0x00 0x01, so a tuple prefix
 * is a key prefix and tuples sort part by part. */
static inline size_t drydb__key_put(uint8_t *dst, size_t cap, size_t pos,
                                    const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++, pos++)
        if (dst && pos < cap) dst[pos] = p[i];
    return pos;
}
static inline size_t drydb_key_append_bytes(uint8_t *dst, size_t cap, size_t pos,
                                            const void *data, size_t n) {
    static const uint8_t esc[2] = {0x00, 0xFF}, term[2] = {0x00, 0x01};
    const uint8_t *p = (const uint8_t *)data;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == 0x00) pos = drydb__key_put(dst, cap, pos, esc, 2);
        else pos = drydb__key_put(dst, cap, pos, p + i, 1);
    }
    return drydb__key_put(dst, cap, pos, term, 2);
}
/* s: UTF-8, NUL-terminated. */
static inline size_t drydb_key_append_string(uint8_t *dst, size_t cap, size_t pos,
                                             const char *s) {
    return drydb_key_append_bytes(dst, cap, pos, s, strlen(s));
}
static inline size_t drydb_key_append_int64(uint8_t *dst, size_t cap, size_t pos, int64_t v) {
    uint8_t b[8];
    drydb_key_int64(v, b);
    return drydb__key_put(dst, cap, pos, b, 8);
}
static inline size_t drydb_key_append_uint64(uint8_t *dst, size_t cap, size_t pos, uint64_t v) {
    uint8_t b[8];
    drydb_key_uint64(v, b);
    return drydb__key_put(dst, cap, pos, b, 8);
}
static inline size_t drydb_key_append_float64(uint8_t *dst, size_t cap, size_t pos, double v) {
    uint8_t b[8];
    drydb_key_float64(v, b);
    return drydb__key_put(dst, cap, pos, b, 8);
}
static inline size_t drydb_key_append_uuid(uint8_t *dst, size_t cap, size_t pos,
                                           const uint8_t uuid[16]) {
    return drydb__key_put(dst, cap, pos, uuid, 16);
}
static inline size_t drydb_key_append_ulid(uint8_t *dst, size_t cap, size_t pos,
                                           const uint8_t ulid[16]) {
    return drydb__key_put(dst, cap, pos, ulid, 16);
}

/* ------------------------------------------------------------------------ */
/* Live data: following a path (hot swap)                                    */
/* ------------------------------------------------------------------------ */
/* A database opened with drydb_open follows its path: drydb_refresh opens the
 * file now at the path if it is another file than the one open (a builder's
 * rename over the path makes a new file; an unchanged file is left alone:
 * *changed = 0), checks its header, footer and catalog as drydb_open does,
 * and makes it the current version in one atomic step. It costs the open of
 * the new file on the calling thread (a few hundred microseconds for a
 * million rows: bench/c/refresh.c); other threads are never blocked (a call
 * that finds a table's layout being replaced answers through the slower Go
 * path instead). Pages of the new file are checked on first touch, as after
 * drydb_open.
 * A file that cannot be opened, is truncated or corrupt leaves the current
 * version in place: the code and drydb_errmsg() say why.
 *
 * After a refresh:
 *   - Table and index handles stay valid and answer from the new version
 *     from their next call on. One whose table (or index) is not in the new
 *     version gives DRYDB_NOTABLE (DRYDB_NOINDEX) naming it, until a later
 *     version has it again.
 *   - A call in progress finishes on the version it started on. A cursor
 *     reads the version it was opened on until it is closed; so does a
 *     merge builder seeded from the database, until it is freed.
 *   - Pointers into the file (keys and values of uncompressed tables from
 *     drydb_get, drydb_get_many, drydb_range, drydb_at, drydb_index_get, ...)
 *     and the names and metadata from drydb_table_name, drydb_table_index_name,
 *     drydb_table_codec, drydb_meta_key and drydb_meta_get, if they came from
 *     a version that a refresh has since replaced, stay valid until the
 *     calling thread's next call into the
 *     library (any function, any database) or its exit, or drydb_close.
 *     Without refreshes the rules above are unchanged (valid until
 *     drydb_close). A thread that must keep a datum across calls copies it.
 *     Cursor rows: as before (until the cursor moves or is closed).
 *   - The old file is unmapped once no call is in it, no cursor or builder
 *     reads it and every thread that last used it has made another call or
 *     exited: at the next drydb_refresh (which counts as the calling thread's
 *     next call) or at drydb_close. A thread that never calls again keeps one
 *     old version mapped at most.
 * A database opened with drydb_open_memory has no path: drydb_refresh gives
 * DRYDB_INVALID. */

/* Follows the path (see above). changed may be NULL. */
#ifndef DRYDB__TYPES_ONLY
DRYDB_API int drydb_refresh(drydb_db *db, int *changed);
#endif

/* Checks the path automatically, as drydb_refresh does, at the start of a
 * call on db (drydb_table_open, Go-path table and index calls: not the C
 * lookups, which never block) at most every ms milliseconds; 0 (the
 * default) turns it off. A failed automatic check keeps the current version
 * and is reported by the next explicit drydb_refresh. */
#ifndef DRYDB__TYPES_ONLY
DRYDB_API int drydb_refresh_every(drydb_db *db, int64_t ms);
#endif

/* The current version: build_id (16 bytes, may be NULL) is the file's build
 * id, random per build; *seq (may be NULL) counts the refreshes that
 * replaced the file since drydb_open (0 at open). */
#ifndef DRYDB__TYPES_ONLY
DRYDB_API int drydb_db_version(drydb_db *db, uint8_t build_id[16], uint64_t *seq);
#endif

#ifdef __cplusplus
}
#endif

#endif /* DRYDB_H */
