/* The private ABI of libdrydb for its language bindings (Python, C#).
 *
 * Not in drydb.h: these calls exist because of what a binding costs or
 * needs, not as an API for C programs, and they may change with the
 * bindings that ship with the library. capi/exports.map exports them.
 *
 * Copy-out calls (capi/copyout.c, capi/copyout.go). drydb.h's reads hand
 * back pointers into the file mapping, valid until drydb_close. A binding
 * that copies from them after the call has returned does it outside the
 * library's protection: a drydb_close on another thread may unmap the
 * file in between (close waits only for calls in progress), and a file
 * truncated underneath raises SIGBUS in the binding's own code (the Python
 * interpreter, Mono's managed code), which kills the process. A copy-out
 * call copies what it read into memory the caller owns before it returns,
 * still counted as a call in progress and with memory faults caught: a
 * file that shrank gives DRYDB_CORRUPT, a racing close DRYDB_CLOSED, and
 * nothing the caller reads afterwards is the library's.
 *
 * Results go into columns: a column receives one field (key, value,
 * primary key) of every row, the fields one after another in buf, their
 * lengths in lens (one per row). A column whose lens is NULL is not wanted
 * (nothing is read for it). Only the bytes of the rows reported are
 * written.
 *
 * DRYDB__FULL: the rows reported fitted, the next one did not (it needs
 * more of some column's cap than is left). Each wanted column's lens[n]
 * (n = the rows reported) holds that row's length, so that a caller whose
 * buffers could not hold even one row knows what to allocate; for a batch,
 * calling again from where the reported rows end continues the walk. It is
 * never a status of drydb.h. */
#ifndef DRYDB_BINDINGS_H
#define DRYDB_BINDINGS_H
#include <stddef.h>
#include <stdint.h>

#include "drydb.h"

#define DRYDB__FULL (-2)

/* A column of a copy-out result (see above). cap <= DRYDB_MAX_LEN. */
struct drydb__col {
    uint8_t *buf;
    size_t cap;
    size_t *lens;
};

#ifndef DRYDB__TYPES_ONLY /* the Go side of the library sees only the types */

/* drydb_get, the value into val (one row). DRYDB_NOTFOUND when absent. */
int drydb__copy_get(drydb_table *t, const uint8_t *key, size_t klen, const struct drydb__col *val);

/* drydb_get_many, the values of the keys found into vals in key order
 * (lens 0 for the absent ones). *done: the keys answered (n unless
 * DRYDB__FULL; found[i] is set for those). Continue after DRYDB__FULL with
 * the keys from *done on. */
int drydb__copy_get_many(drydb_table *t, size_t n, const uint8_t *keys, const size_t *klens,
                         const struct drydb__col *vals, uint8_t *found, size_t *done);

/* drydb_range into cols[0] (keys, wanted) and cols[1] (values, or not
 * wanted). DRYDB_OK: *n rows, fewer than max only when the range ended.
 * DRYDB__FULL: *n rows (maybe 0), more may follow: continue with the last
 * key read as an exclusive bound. */
int drydb__copy_range(drydb_table *t, const uint8_t *lo, size_t lolen, int lokind,
                      const uint8_t *hi, size_t hilen, int hikind, uint32_t flags, size_t max,
                      const struct drydb__col *cols, size_t *n);

/* drydb_at: row `row` into cols[0] (key) and cols[1] (value). */
int drydb__copy_at(drydb_table *t, uint64_t row, const struct drydb__col *cols);

/* drydb_index_get: cols[0] the primary key, cols[1] the value. */
int drydb__copy_index_get(drydb_index *x, const uint8_t *ikey, size_t iklen,
                          const struct drydb__col *cols);

/* The cursor's current entry (drydb_cursor_get and, for index cursors,
 * drydb_cursor_primary_key): cols[0] the key (the index key on index
 * cursors), cols[1] the primary key (index cursors only), cols[2] the
 * value. DRYDB_NOTFOUND when the cursor is not on an entry. */
int drydb__copy_cursor_get(drydb_cursor *c, const struct drydb__col *cols);

/* drydb_cursor_next_batch and drydb_index_cursor_next_batch: up to max
 * entries from the current one (a fresh cursor starts at the first, or the
 * last with reverse), columns as drydb__copy_cursor_get's. DRYDB_OK: *n >= 1
 * entries and the cursor steps past them; DRYDB_NOTFOUND: none left.
 * DRYDB__FULL: *n entries (maybe 0) and the cursor is on the one that did
 * not fit, where the next call starts. */
int drydb__copy_cursor_batch(drydb_cursor *c, int reverse, size_t max, const struct drydb__col *cols,
                             size_t *n);

/* drydb_meta_get, drydb_table_name and drydb_table_index_name into one
 * column (names without their NUL). */
int drydb__copy_meta(drydb_db *db, const uint8_t *key, size_t klen, const struct drydb__col *val);
int drydb__copy_table_name(drydb_db *db, size_t i, const struct drydb__col *name);
int drydb__copy_index_name(drydb_table *t, size_t i, const struct drydb__col *name);

/* One-word answers of drydb_get and drydb_count (documented in capi/fast.c,
 * result codes in capi/fast.h). drydb__get_word's answer is zero-copy: the
 * value's address, to be read only while the database is open and its file
 * intact. */
uint64_t drydb__get_word(drydb_table *t, const uint8_t *key, size_t klen);
uint64_t drydb__get_word_i64(drydb_table *t, int key);
uint64_t drydb__get_word_u64(drydb_table *t, int key);
uint64_t drydb__count_word(drydb_table *t, const uint8_t *lo, size_t lolen,
                           const uint8_t *hi, size_t hilen, unsigned kinds);
uint64_t drydb__count_word_i64(drydb_table *t, int lo, int hi, unsigned kinds);
uint64_t drydb__count_word_u64(drydb_table *t, int lo, int hi, unsigned kinds);

/* Python objects (capi/copyout.c): drydb__py_init is given, once per
 * process, CPython's PyBytes_FromStringAndSize and Py_IncRef and two
 * sentinel objects; drydb__py_get* then return a new reference: the value
 * as bytes (made inside the call, a copy-out), the MISSING sentinel, or
 * the ASK sentinel (an error or anything else: call drydb__copy_get for
 * the answer). Called only with the GIL held (ctypes' PyDLL). */
int drydb__py_init(void *bytes_fn, void *incref_fn, void *missing, void *ask);
void *drydb__py_get(drydb_table *t, const uint8_t *key, size_t klen);

/* drydb__py_init_rows is given, once per process, CPython's PyList_New,
 * PyList_SetItem, PyTuple_New, PyTuple_SetItem, PyUnicode_DecodeUTF8,
 * PyLong_FromLongLong, PyLong_FromUnsignedLongLong and Py_DecRef (fns,
 * n = 8, in that order) and None. drydb__py_range is drydb__copy_range's batch (at most 256
 * rows) as objects: a new reference to (rows, last), rows a list of
 * (key, value) tuples (what 0), keys (1) or values as bytes (2), keys made
 * as kind says (DRYDB__PY_*), last the last key's bytes when more rows may
 * follow (the next call's exclusive bound), else None; the ASK sentinel
 * (an error, a batch it leaves to the binding: read it the other way) or
 * NULL with Python's exception set. */
enum { DRYDB__PY_BYTES = 0, DRYDB__PY_STR = 1, DRYDB__PY_I64 = 2, DRYDB__PY_U64 = 3, DRYDB__PY_UUID = 4 };
int drydb__py_init_rows(void *const *fns, size_t n, void *none);
/* DRYDB__PY_UUID keys are uuid.UUID objects, once drydb__py_init_uuid has
 * been given, after drydb__py_init_fn, CPython's PyType_GenericAlloc and
 * _PyLong_FromByteArray, the class uuid.UUID, uuid.SafeUUID.unknown and
 * _PyLong_AsByteArray (fns, n = 5, in that order; to_bytes_args: 5, or 6
 * from 3.13 on), and the byte offsets of the class's int and is_safe
 * slots, which the caller has found in a UUID. It returns a new reference
 * to the UUID of the 16 bytes of probe, made as the keys will be (to
 * compare with uuid.UUID(bytes=probe) before asking for any), NULL with
 * Python's exception set, or the ASK sentinel for bad arguments. get's
 * builtin of a UUID table (drydb__py_fn's kind DRYDB__PY_UUID) then takes
 * uuid.UUID keys (exactly that class) besides their 16 bytes, unless
 * _PyLong_AsByteArray did not give the probe's bytes back. */
void *drydb__py_init_uuid(void *const *fns, size_t n, size_t off_int, size_t off_safe, int to_bytes_args,
                          const uint8_t *probe);
void *drydb__py_range(drydb_table *t, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi,
                      size_t hilen, int hikind, uint32_t flags, size_t max, int what, int kind);

/* get and [] as builtin functions (capi/copyout.c). drydb__py_init_fn is
 * given, once per process, after drydb__py_init and drydb__py_init_rows,
 * CPython's PyCFunction_NewEx, PyCapsule_New, PyCapsule_GetPointer,
 * PyUnicode_AsUTF8AndSize, PyBytes_AsStringAndSize,
 * PyLong_AsLongLongAndOverflow, PyObject_Vectorcall and PyErr_Clear, then
 * the objects str, bytes, int and False (fns, n = 12, in that order), and
 * the two builtins' docs (kept alive by the caller). The caller has checked
 * the object layout the builtins read (the type at word 1, a tuple's items
 * from word 3). drydb__py_fn returns a new builtin for table handle h:
 * get(key, default=None, view=False) (flavour 0) or [] (1), answering keys
 * of type kind (DRYDB__PY_*: bytes, str, int for _I64 and _U64, bytes and
 * uuid.UUID for _UUID) and calling
 * fallback, a callable of the same
 * signature, with anything else; vdec (a callable, or None) decodes the
 * values it finds. Flavour 2 is a scan's batch(lo, lok, hi, hik, flags,
 * max, what): drydb__py_range's answer with keys made as kind says (any
 * DRYDB__PY_*), for lo and hi bytes and the rest ints (else the fallback). NULL with Python's exception set, or the ASK sentinel
 * for bad arguments. drydb__py_fn_kill(cap), cap a builtin's
 * __self__[0], makes every later call of it take the fallback. */
int drydb__py_init_fn(void *const *fns, size_t n, const char *get_doc, const char *getitem_doc);
void *drydb__py_fn(uint64_t h, int kind, int flavour, void *fallback, void *vdec);
int drydb__py_fn_kill(void *cap);

/* drydb__warm_threads makes n (at most 256) threads call into Go once and
 * exit, leaving n of the runtime's Ms free for the first calls of a host's
 * threads: a host that stops the world with signals (Mono) can deadlock
 * with a first call that finds none (capi/helpers.c says how). The C#
 * binding calls it once at load. A no-op on Windows. */
int drydb__warm_threads(int n);

/* Builders (capi/bind_builder.go). drydb__builder_append_row is
 * drydb_builder_append together with n entries of the table's indexes
 * (index builder handles ibs[i], index keys concatenated in ikeys with
 * lengths iklens), all or nothing; drydb__builder_key_limit gives the
 * longest key the table accepts, so that a binding buffering rows refuses a
 * longer one at the call that gives it. */
int drydb__builder_append_row(drydb_tbuilder *tb, const uint8_t *key, size_t klen, const uint8_t *val,
                              size_t vlen, size_t n, drydb_ibuilder *const *ibs, const uint8_t *ikeys,
                              const size_t *iklens);
int drydb__builder_key_limit(drydb_tbuilder *tb, size_t *out);

#endif
#endif
