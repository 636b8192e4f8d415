/* The bindings' copy-out calls (drydb_bindings.h), front half: plain
 * tables in C.
 *
 * drydb_get, drydb_get_many and drydb_range answer plain tables in C
 * (fast.c). The calls here run the same lookups (drydb__fast_get, _many,
 * _range) and copy what they found into the caller's columns in one region
 * (HELD): as a reader of the table's fast path (drydb__fast_hold: closing
 * the table waits for it, so the mapping stays) with fast.c's fault guard
 * armed, so that a page lost to truncation jumps back and the call is
 * answered again by the Go half (copyout.go), which reads the file with
 * faults turned into DRYDB_CORRUPT. What the lookups leave to Go (pages not
 * checked yet, overflow values, argument errors) and tables without a fast
 * path (compressed, closed, unknown handles) go to the Go half too.
 *
 * drydb__py_get* belong here too: they make the Python bytes object inside
 * the held, guarded region. */
#define DRYDB__OWN_C /* -O2, not cdefs.h's -Os for cgo's code */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "drydb.h"
#include "drydb_bindings.h"
#include "cdefs.h"
#include "fast.h"

#ifdef _WIN32
#define EXPORT __declspec(dllexport)
#else
#define EXPORT __attribute__((visibility("default")))
#endif
#define FALLBACK (-1)

/* The Go half (copyout.go): cgo exports, handles as integers. */
int drydb__copy_get_go(uintptr_t t, const uint8_t *key, size_t klen, const struct drydb__col *val);
int drydb__copy_get_many_go(uintptr_t t, size_t n, const uint8_t *keys, const size_t *klens,
                            const struct drydb__col *vals, uint8_t *found, size_t *done);
int drydb__copy_range_go(uintptr_t t, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi,
                         size_t hilen, int hikind, uint32_t flags, size_t max,
                         const struct drydb__col *cols, size_t *n);

/* The most rows C tries: their pointers live on the stack. The bindings'
 * batches are 256; bigger ones go to Go, which needs no pointers. */
enum { STACK_ROWS = 256 };

static inline int col_ok(const struct drydb__col *c) {
    return c->lens != NULL && (c->buf != NULL || c->cap == 0) && c->cap <= DRYDB_MAX_LEN;
}

/* The rows among the first n whose fields all fit their columns: all of
 * them, mostly, which one sum per column tells. */
static size_t rows_fitting(const struct drydb__col *cols, size_t ncols, size_t n) {
    int all = 1;
    for (size_t c = 0; c < ncols; c++) {
        size_t sum = 0;
        for (size_t i = 0; i < n; i++) sum += cols[c].lens[i]; /* each <= DRYDB_MAX_LEN: no overflow */
        all &= sum <= cols[c].cap;
    }
    if (all) return n;
    size_t left[2] = {cols[0].cap, ncols > 1 ? cols[1].cap : 0};
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < ncols; c++) {
            size_t l = cols[c].lens[i];
            if (l > left[c]) return i;
            left[c] -= l;
        }
    return n;
}

/* n bytes from s to d: fixed-size moves for the short fields rows mostly
 * have (a call of memcpy per field costs more than the copy). */
static inline void copy_field(uint8_t *d, const uint8_t *s, size_t n) {
    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n > 0) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

/* Copies rows 0..n-1 (field i of column c at ptrs[c][i], length
 * cols[c].lens[i]) one after another into the columns. Fields that follow
 * each other in the file (the keys of an 8-byte-key leaf) go in one copy. */
static void copy_rows(const struct drydb__col *cols, size_t ncols, const uint8_t *const *ptrs[], size_t n) {
    for (size_t c = 0; c < ncols; c++) {
        uint8_t *o = cols[c].buf;
        const size_t *lens = cols[c].lens;
        const uint8_t *const *p = ptrs[c];
        for (size_t i = 0; i < n;) {
            const uint8_t *from = p[i];
            size_t l = lens[i++];
            while (i < n && p[i] == from + l) l += lens[i++];
            copy_field(o, from, l);
            o += l;
        }
    }
}

/* HELD: fast.h's DRYDB__HELD; after a fault Go answers from scratch. */
#define HELD(h, ft, rc, ...) DRYDB__HELD(h, ft, rc, (void)0, __VA_ARGS__)

EXPORT int drydb__copy_get(drydb_table *t, const uint8_t *key, size_t klen, const struct drydb__col *val) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft;
    int rc = FALLBACK;
    const uint8_t *v;
    size_t vl;
    if (val != NULL && col_ok(val))
        HELD(h, ft, rc, {
            if ((rc = drydb__fast_get(ft, key, klen, &v, &vl)) == DRYDB_OK) {
                val->lens[0] = vl;
                if (vl > val->cap) rc = DRYDB__FULL;
                else copy_rows(val, 1, (const uint8_t *const *[]){&v}, 1);
            }
        });
    if (rc != FALLBACK) return rc;
    return drydb__copy_get_go(h, key, klen, val);
}

EXPORT int drydb__copy_get_many(drydb_table *t, size_t n, const uint8_t *keys, const size_t *klens,
                                const struct drydb__col *vals, uint8_t *found, size_t *done) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft;
    int rc = FALLBACK;
    const uint8_t *v[STACK_ROWS];
    if (n <= STACK_ROWS && vals != NULL && col_ok(vals) && done != NULL)
        HELD(h, ft, rc, {
            /* absent keys: length 0 (drydb_get_many's answer), nothing copied */
            if ((rc = drydb__fast_many(ft, n, keys, klens, v, vals->lens, found)) == DRYDB_OK) {
                size_t m = rows_fitting(vals, 1, n);
                copy_rows(vals, 1, (const uint8_t *const *[]){v}, m);
                *done = m;
                if (m < n) rc = DRYDB__FULL;
            }
        });
    if (rc != FALLBACK) return rc;
    return drydb__copy_get_many_go(h, n, keys, klens, vals, found, done);
}

EXPORT int drydb__copy_range(drydb_table *t, const uint8_t *lo, size_t lolen, int lokind,
                             const uint8_t *hi, size_t hilen, int hikind, uint32_t flags, size_t max,
                             const struct drydb__col *cols, size_t *n) {
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft;
    int rc = FALLBACK;
    const uint8_t *kp[STACK_ROWS], *vp[STACK_ROWS];
    if (cols != NULL && col_ok(&cols[0]) && (cols[1].lens == NULL || col_ok(&cols[1])) && max > 0 &&
        max <= STACK_ROWS) {
        size_t ncols = cols[1].lens != NULL ? 2 : 1;
        HELD(h, ft, rc, {
            rc = drydb__fast_range(ft, lo, lolen, lokind, hi, hilen, hikind, flags, max, kp, cols[0].lens,
                                   ncols > 1 ? vp : NULL, ncols > 1 ? cols[1].lens : NULL, n);
            if (rc == DRYDB_OK) {
                size_t m = rows_fitting(cols, ncols, *n);
                copy_rows(cols, ncols, (const uint8_t *const *[]){kp, vp}, m);
                if (m < *n) {
                    *n = m; /* lens[m]: the row that did not fit, as the lookup wrote it */
                    rc = DRYDB__FULL;
                }
            }
        });
    }
    if (rc != FALLBACK) return rc;
    return drydb__copy_range_go(h, lo, lolen, lokind, hi, hilen, hikind, flags, max, cols, n);
}

/* ---- Python objects for the Python binding ----
 *
 * ctypes turns a word into bytes in ~130 ns of Python arithmetic and
 * slicing; CPython's own PyBytes_FromStringAndSize does it in ~30. The
 * Python binding hands this library, once, the addresses of that function
 * and of Py_IncRef and two sentinel objects (drydb__py_init); the
 * drydb__py_get* functions then return a new reference: the value as
 * bytes, the MISSING sentinel, or the ASK sentinel (an error, or a value
 * the caller reads through drydb__copy_get). The library does not link
 * against Python: the functions are only called through ctypes' PyDLL, with
 * the GIL held, and ctypes' py_object result takes the reference. A NULL
 * result (out of memory) carries Python's MemoryError.
 *
 * The bytes object is made while the table is held, with the fault guard
 * armed. A fault inside PyBytes_FromStringAndSize can only come from its
 * copy of the value, its last step: the object, complete but for its
 * bytes, is then lost (a leak of one object per fault, which only a file
 * shrinking underneath causes) and Go answers again, with DRYDB_CORRUPT:
 * ASK. Tables without a fast path, and lookups the fast path leaves to Go,
 * are copied by Go into a buffer of this call, and the object is made from
 * there. */
typedef void *(*py_bytes_fn)(const char *, ptrdiff_t);
typedef void (*py_incref_fn)(void *);
static py_bytes_fn py_bytes;
static py_incref_fn py_incref;
static void *py_missing, *py_ask;

DRYDB__COLD EXPORT int drydb__py_init(void *bytes_fn, void *incref_fn, void *missing, void *ask) {
    if (bytes_fn == NULL || incref_fn == NULL || missing == NULL || ask == NULL) return DRYDB_INVALID;
    /* the same addresses on every call of one process (the binding calls
     * it once per load); kept for the life of the process */
    py_bytes = (py_bytes_fn)bytes_fn;
    py_incref = (py_incref_fn)incref_fn;
    py_missing = missing;
    py_ask = ask;
    return DRYDB_OK;
}

static void *py_sentinel(int rc) {
    if (py_incref == NULL) return NULL; /* never initialised: ctypes raises */
    void *s = rc == DRYDB_NOTFOUND ? py_missing : py_ask;
    py_incref(s);
    return s;
}

/* Values up to this long, copied in Go, are copied to the stack. */
enum { PY_GUESS = 4096 };

static void *py_get_key(drydb_table *t, const uint8_t *key, size_t klen) {
    if (py_bytes == NULL) return NULL; /* never initialised: ctypes raises */
    uint64_t h = (uint64_t)(uintptr_t)t;
    struct drydb__ft *ft;
    int rc;
    void *o = NULL;
    const uint8_t *v;
    size_t n = 0;
    HELD(h, ft, rc, {
        if ((rc = drydb__fast_get(ft, key, klen, &v, &n)) == DRYDB_OK) o = py_bytes((const char *)v, (ptrdiff_t)n);
    });
    if (rc == DRYDB_OK) return o; /* NULL: MemoryError */
    if (rc == DRYDB_NOTFOUND) return py_sentinel(rc);
    /* Go copies the value into a buffer of ours: on the stack, or, longer,
     * once more into one of its length */
    uint8_t stack[PY_GUESS];
    struct drydb__col c = {stack, sizeof stack, &n};
    rc = drydb__copy_get_go(h, key, klen, &c);
    if (rc == DRYDB__FULL) {
        c.cap = n;
        c.buf = malloc(n);
        rc = c.buf == NULL ? DRYDB_NOMEM : drydb__copy_get_go(h, key, klen, &c);
    }
    o = rc == DRYDB_OK ? py_bytes((const char *)c.buf, (ptrdiff_t)n) : py_sentinel(rc);
    if (c.buf != stack) free(c.buf);
    return o;
}

EXPORT void *drydb__py_get(drydb_table *t, const uint8_t *key, size_t klen) { return py_get_key(t, key, klen); }

/* ---- Python rows and string keys ----
 *
 * A scan's batch built as Python objects in C: the rows are first copied
 * out (drydb__copy_range, into this call's stack), then made into objects
 * outside the held region, so that nothing the allocator runs (a garbage
 * collection, finalizers calling this library) happens inside it, and a
 * fault can only come from the copy. The functions are CPython's, their
 * addresses given once by drydb__py_init_rows. */
typedef void *(*py_new_fn)(ptrdiff_t);
typedef int (*py_set_fn)(void *, ptrdiff_t, void *);
typedef void *(*py_utf8_fn)(const char *, ptrdiff_t, const char *);
typedef void *(*py_i64_fn)(long long);
typedef void *(*py_u64_fn)(unsigned long long);
typedef void (*py_decref_fn)(void *);

static struct {
    py_new_fn list_new, tuple_new;
    py_set_fn list_set, tuple_set; /* both steal the item's reference */
    py_utf8_fn utf8;
    py_i64_fn i64;
    py_u64_fn u64;
    py_decref_fn decref;
    void *none;
} py;

DRYDB__COLD EXPORT int drydb__py_init_rows(void *const *fns, size_t n, void *none) {
    if (fns == NULL || n != 8 || none == NULL) return DRYDB_INVALID;
    for (size_t i = 0; i < n; i++)
        if (fns[i] == NULL) return DRYDB_INVALID;
    py.list_new = (py_new_fn)fns[0];
    py.list_set = (py_set_fn)fns[1];
    py.tuple_new = (py_new_fn)fns[2];
    py.tuple_set = (py_set_fn)fns[3];
    py.utf8 = (py_utf8_fn)fns[4];
    py.i64 = (py_i64_fn)fns[5];
    py.u64 = (py_u64_fn)fns[6];
    py.decref = (py_decref_fn)fns[7];
    py.none = none;
    return DRYDB_OK;
}

/* uuid.UUID keys (DRYDB__PY_UUID), made as UUID(bytes=k) makes them: the
 * object allocated as object.__new__(UUID) allocates it (PyType_GenericAlloc,
 * a class's tp_alloc), its int slot the key's 128 bits big-endian
 * (_PyLong_FromByteArray), its is_safe slot SafeUUID.unknown. Made in
 * Python, a UUID costs ~300 ns, 3-4 times the rest of its row. The binding
 * finds the two slots' offsets in a UUID it made and checks this one
 * against it (drydb__py_init_uuid's probe) before asking for any. */
typedef void *(*py_alloc_fn)(void *type, ptrdiff_t n);
typedef void *(*py_from_bytes_fn)(const uint8_t *b, size_t n, int little_endian, int is_signed);
/* _PyLong_AsByteArray, which 3.13 gave a sixth argument, with_exceptions */
typedef int (*py_to_bytes5_fn)(void *v, uint8_t *b, size_t n, int little_endian, int is_signed);
typedef int (*py_to_bytes6_fn)(void *v, uint8_t *b, size_t n, int little_endian, int is_signed, int with_exceptions);

static struct {
    py_alloc_fn alloc;
    py_from_bytes_fn from_bytes;
    void *type, *unknown; /* uuid.UUID, uuid.SafeUUID.unknown */
    void *to_bytes; /* NULL: get's builtin leaves UUID keys to the fallback */
    int to_bytes6;  /* it takes six arguments */
    size_t off_int, off_safe;
} pyu;

static void *py_uuid(const uint8_t *k) {
    void *i = pyu.from_bytes(k, 16, 0, 0), *u;
    if (i == NULL) return NULL;
    if ((u = pyu.alloc(pyu.type, 0)) == NULL) { /* zeroed, and tracked if the class is */
        py.decref(i);
        return NULL;
    }
    py_incref(pyu.unknown);
    memcpy((char *)u + pyu.off_int, &i, sizeof i);
    memcpy((char *)u + pyu.off_safe, &pyu.unknown, sizeof i);
    return u;
}

/* A key as the object of its kind: DRYDB__PY_* (drydb_bindings.h). */
static void *py_key(const uint8_t *k, size_t n, int kind) {
    if (kind == DRYDB__PY_STR) return py.utf8((const char *)k, (ptrdiff_t)n, NULL);
    if (kind == DRYDB__PY_BYTES) return py_bytes((const char *)k, (ptrdiff_t)n);
    if (kind == DRYDB__PY_UUID) return py_uuid(k);
    uint64_t v;
    memcpy(&v, k, 8);
    v = __builtin_bswap64(v); /* keys are big-endian */
    return kind == DRYDB__PY_U64 ? py.u64(v) : py.i64((long long)(v ^ (uint64_t)1 << 63));
}

/* The batch's buffer: keys, then values. */
enum { PY_KEY_BYTES = 8 << 10, PY_VAL_BYTES = 16 << 10 };

EXPORT void *drydb__py_range(drydb_table *t, const uint8_t *lo, size_t lolen, int lokind, const uint8_t *hi,
                             size_t hilen, int hikind, uint32_t flags, size_t max, int what, int kind) {
    if (py.list_new == NULL || py_bytes == NULL) return NULL; /* never initialised: ctypes raises */
    if (max == 0 || max > STACK_ROWS || what < 0 || what > 2 || kind < DRYDB__PY_BYTES || kind > DRYDB__PY_UUID ||
        (kind == DRYDB__PY_UUID && pyu.type == NULL))
        return py_sentinel(DRYDB_INVALID);
    uint8_t kb[PY_KEY_BYTES], vb[PY_VAL_BYTES];
    size_t kl[STACK_ROWS], vl[STACK_ROWS], n = 0;
    /* keys always: the last one bounds the next call */
    struct drydb__col cols[2] = {{kb, sizeof kb, kl}, {vb, sizeof vb, what != 1 ? vl : NULL}};
    int rc = drydb__copy_range(t, lo, lolen, lokind, hi, hilen, hikind, flags, max, cols, &n);
    if ((rc != DRYDB_OK && rc != DRYDB__FULL) || (rc == DRYDB__FULL && n == 0)) return py_sentinel(DRYDB_INVALID);
    size_t width = kind == DRYDB__PY_UUID ? 16 : kind >= DRYDB__PY_I64 ? 8 : 0;
    for (size_t i = 0; width != 0 && i < n; i++)
        if (kl[i] != width) return py_sentinel(DRYDB_INVALID); /* a key of another width: Python decodes */
    int more = rc == DRYDB__FULL || n == max;
    void *list = py.list_new((ptrdiff_t)n), *last = NULL, *out;
    if (list == NULL) return NULL;
    const uint8_t *k = kb, *v = vb;
    for (size_t i = 0; i < n; i++) {
        void *ko = what != 2 ? py_key(k, kl[i], kind) : NULL;
        void *vo = what != 1 ? py_bytes((const char *)v, (ptrdiff_t)vl[i]) : NULL;
        void *row = what == 1 ? ko : what == 2 ? vo : ko && vo ? py.tuple_new(2) : NULL;
        if (row == NULL) {
            if (ko) py.decref(ko);
            if (vo) py.decref(vo);
            goto fail;
        }
        if (what == 0) {
            py.tuple_set(row, 0, ko);
            py.tuple_set(row, 1, vo);
        }
        py.list_set(list, (ptrdiff_t)i, row);
        k += kl[i];
        v += what != 1 ? vl[i] : 0;
    }
    if (more) {
        last = py_bytes((const char *)k - kl[n - 1], (ptrdiff_t)kl[n - 1]);
    } else {
        last = py.none;
        py_incref(last);
    }
    if (last == NULL || (out = py.tuple_new(2)) == NULL) {
        if (last) py.decref(last);
        goto fail;
    }
    py.tuple_set(out, 0, list);
    py.tuple_set(out, 1, last);
    return out;
fail:
    py.decref(list); /* and the rows set in it */
    return NULL;      /* Python's MemoryError (or the key's UnicodeDecodeError) */
}

/* ---- get and [] as builtin functions ----
 *
 * Through ctypes, a call costs ~250 ns of argument conversion before the
 * library is reached; a builtin function (METH_FASTCALL) ~30. drydb__py_fn
 * makes a table's get or [] a builtin: CPython's PyCFunction_NewEx over a
 * method definition below, bound to a self tuple (state capsule, fallback,
 * value decoder or None). A call whose key has the table's fast type (str
 * for a string table, bytes for a bytes one, int for int64 and uint64) is
 * answered here through py_get_key (which refuses a key of the wrong
 * width: ASK); everything else (another type, keywords, view, an absent
 * key of [], an error, a killed table) calls the fallback, the binding's Python closure of the
 * same signature, which answers or raises exactly as it would alone. self
 * is a tuple so that the garbage collector sees its references (the
 * fallback holds the table, which holds the builtin). The binding checks,
 * before it calls drydb__py_init_fn, that objects are laid out as read
 * here: the type at word 1, a tuple's items from word 3. */
typedef void *(*py_cfunc_fn)(void *def, void *self, void *module);
typedef void *(*py_cap_new_fn)(void *p, const char *name, void (*destructor)(void *));
typedef void *(*py_cap_ptr_fn)(void *cap, const char *name);
typedef const char *(*py_as_utf8_fn)(void *o, ptrdiff_t *n);
typedef int (*py_as_bytes_fn)(void *o, char **s, ptrdiff_t *n);
typedef long long (*py_as_ll_fn)(void *o, int *overflow);
typedef void *(*py_vcall_fn)(void *f, void *const *args, size_t nargs, void *kwnames);
typedef void (*py_clear_fn)(void);

static struct {
    py_cfunc_fn cfunc;
    py_cap_new_fn cap_new;
    py_cap_ptr_fn cap_ptr;
    py_as_utf8_fn as_utf8;
    py_as_bytes_fn as_bytes;
    py_as_ll_fn as_ll;
    py_vcall_fn vcall;
    py_clear_fn clear;
    void *str, *bytes, *int_, *false_; /* the types str, bytes, int; False */
} pyf;

/* CPython's PyMethodDef; its flags METH_FASTCALL | METH_KEYWORDS. */
struct py_method_def {
    const char *name;
    void *meth;
    int flags;
    const char *doc;
};

enum { PY_FN_GET, PY_FN_GETITEM, PY_FN_BATCH };

struct py_fn_state {
    uint64_t h;
    int kind;    /* DRYDB__PY_*: the keys taken (get, []) or made (batch) */
    int flavour; /* PY_FN_* */
    int dead;    /* killed: every call takes the fallback */
};

static const char py_fn_cap[] = "drydb.fn";

/* The 16 bytes of UUID u (type checked by the caller) into b; 0 if it
 * cannot say (an error is left to the fallback to raise properly). */
static int py_uuid_bytes(void *u, uint8_t b[16]) {
    void *i;
    memcpy(&i, (char *)u + pyu.off_int, sizeof i);
    if (pyu.to_bytes == NULL || i == NULL || ((void *const *)i)[1] != pyf.int_ ||
        (pyu.to_bytes6 ? ((py_to_bytes6_fn)pyu.to_bytes)(i, b, 16, 0, 0, 1)
                       : ((py_to_bytes5_fn)pyu.to_bytes)(i, b, 16, 0, 0)) < 0) {
        if (pyf.clear != NULL) pyf.clear();
        return 0;
    }
    return 1;
}

DRYDB__COLD EXPORT void *drydb__py_init_uuid(void *const *fns, size_t n, size_t off_int, size_t off_safe,
                                              int to_bytes_args, const uint8_t *probe) {
    size_t w = sizeof(void *);
    if (py.list_new == NULL || fns == NULL || n != 5 || probe == NULL || off_int == off_safe || off_int < 2 * w ||
        off_safe < 2 * w || off_int % w || off_safe % w || (to_bytes_args != 5 && to_bytes_args != 6))
        return py_sentinel(DRYDB_INVALID);
    for (size_t i = 0; i < n; i++)
        if (fns[i] == NULL) return py_sentinel(DRYDB_INVALID);
    pyu.alloc = (py_alloc_fn)fns[0];
    pyu.from_bytes = (py_from_bytes_fn)fns[1];
    pyu.type = fns[2];
    pyu.unknown = fns[3];
    pyu.off_int = off_int;
    pyu.off_safe = off_safe;
    pyu.to_bytes = NULL;
    void *u = py_uuid(probe);
    uint8_t b[16];
    pyu.to_bytes = fns[4];
    pyu.to_bytes6 = to_bytes_args == 6;
    if (u == NULL || !py_uuid_bytes(u, b) || memcmp(b, probe, 16) != 0) pyu.to_bytes = NULL;
    return u;
}

/* A scan's batch: batch(lo, lok, hi, hik, flags, max, what), lo and hi
 * bytes, the rest ints, is drydb__py_range with the table's key kind. */
static void *py_batch(const struct py_fn_state *st, void *const *items, void *const *args, ptrdiff_t nargs,
                      void *kwnames) {
    long long v[7];
    char *b[2];
    ptrdiff_t bl[2];
    if (st->dead || kwnames != NULL || nargs != 7) goto slow;
    for (int i = 0; i < 7; i++) {
        void *o = args[i], *type = ((void *const *)o)[1];
        int over;
        if (i == 0 || i == 2) {
            if (type != pyf.bytes || pyf.as_bytes(o, &b[i / 2], &bl[i / 2]) < 0) goto slow;
        } else if (type != pyf.int_ || ((v[i] = pyf.as_ll(o, &over)), over) || v[i] < 0 || v[i] > 1 << 30) {
            goto slow; /* the fallback's checks and errors */
        }
    }
    return drydb__py_range((drydb_table *)(uintptr_t)st->h, (const uint8_t *)b[0], (size_t)bl[0], (int)v[1],
                           (const uint8_t *)b[1], (size_t)bl[1], (int)v[3], (uint32_t)v[4], (size_t)v[5], (int)v[6],
                           st->kind);
slow:
    return pyf.vcall(items[1], args, (size_t)nargs, kwnames);
}

static void *py_fn_call(void *self, void *const *args, ptrdiff_t nargs, void *kwnames) {
    void *const *items = (void *const *)self + 3;
    struct py_fn_state *st = pyf.cap_ptr(items[0], py_fn_cap);
    if (st == NULL) return NULL;
    if (st->flavour == PY_FN_BATCH) return py_batch(st, items, args, nargs, kwnames);
    int getitem = st->flavour == PY_FN_GETITEM;
    if (st->dead || kwnames != NULL || nargs < 1 || nargs > (getitem ? 1 : 3) ||
        (nargs == 3 && args[2] != pyf.false_))
        goto slow;
    void *key = args[0], *type = ((void *const *)key)[1];
    const uint8_t *k;
    ptrdiff_t kl = 8;
    uint8_t buf[16];
    if (st->kind == DRYDB__PY_UUID && type == pyu.type) { /* a UUID table's (bytes: below) */
        if (!py_uuid_bytes(key, buf)) goto slow;
        k = buf;
        kl = 16;
    } else if (st->kind == DRYDB__PY_STR || st->kind == DRYDB__PY_BYTES || st->kind == DRYDB__PY_UUID) {
        char *s;
        if (type == pyf.str && st->kind == DRYDB__PY_STR) {
            s = (char *)pyf.as_utf8(key, &kl);
        } else if (type == pyf.bytes && st->kind != DRYDB__PY_STR) {
            if (pyf.as_bytes(key, &s, &kl) < 0) s = NULL;
        } else {
            goto slow;
        }
        if (s == NULL) { /* a lone surrogate: the fallback raises it properly */
            pyf.clear();
            goto slow;
        }
        k = (const uint8_t *)s;
    } else {
        int over;
        long long v;
        if (type != pyf.int_ || ((v = pyf.as_ll(key, &over)), over) || (v < 0 && st->kind == DRYDB__PY_U64))
            goto slow; /* bool, float, ...; out of range: the fallback's error */
        if (st->kind == DRYDB__PY_I64) drydb_key_int64(v, buf);
        else drydb_key_uint64((uint64_t)v, buf);
        k = buf;
    }
    void *o = py_get_key((drydb_table *)(uintptr_t)st->h, k, (size_t)kl);
    if (o == NULL) return NULL; /* MemoryError */
    if (o == py_missing && !getitem) {
        py.decref(o);
        o = nargs >= 2 ? args[1] : py.none;
        py_incref(o);
        return o;
    }
    if (o == py_missing || o == py_ask) {
        py.decref(o);
        goto slow;
    }
    if (items[2] != py.none) { /* the codec's decode */
        void *r = pyf.vcall(items[2], &o, 1, NULL);
        py.decref(o);
        return r;
    }
    return o;
slow:
    return pyf.vcall(items[1], args, (size_t)nargs, kwnames);
}

static struct py_method_def py_fn_defs[3] = {
    {"get", (void *)py_fn_call, 0x0080 | 0x0002, NULL},
    {"__getitem__", (void *)py_fn_call, 0x0080 | 0x0002, NULL},
    {"batch", (void *)py_fn_call, 0x0080 | 0x0002, NULL},
};

DRYDB__COLD static void py_fn_free(void *cap) { free(pyf.cap_ptr(cap, py_fn_cap)); }

DRYDB__COLD EXPORT int drydb__py_init_fn(void *const *fns, size_t n, const char *get_doc, const char *getitem_doc) {
    if (fns == NULL || n != 12 || py.tuple_new == NULL || py_bytes == NULL) return DRYDB_INVALID;
    for (size_t i = 0; i < n; i++)
        if (fns[i] == NULL) return DRYDB_INVALID;
    memcpy(&pyf, fns, sizeof pyf); /* twelve pointers, in the struct's order */
    /* the binding keeps the docs alive with the process */
    py_fn_defs[0].doc = get_doc;
    py_fn_defs[1].doc = getitem_doc;
    return DRYDB_OK;
}

DRYDB__COLD EXPORT void *drydb__py_fn(uint64_t h, int kind, int flavour, void *fallback, void *vdec) {
    if (pyf.cfunc == NULL || flavour < PY_FN_GET || flavour > PY_FN_BATCH || kind < DRYDB__PY_BYTES ||
        kind > DRYDB__PY_UUID || (kind == DRYDB__PY_UUID && pyu.type == NULL) || fallback == NULL || vdec == NULL)
        return py_sentinel(DRYDB_INVALID);
    struct py_fn_state *st = calloc(1, sizeof *st);
    if (st == NULL) return py_sentinel(DRYDB_NOMEM);
    *st = (struct py_fn_state){h, kind, flavour, 0};
    void *cap = pyf.cap_new(st, py_fn_cap, py_fn_free), *self, *fn = NULL;
    if (cap == NULL) {
        free(st);
        return NULL;
    }
    if ((self = py.tuple_new(3)) == NULL) {
        py.decref(cap);
        return NULL;
    }
    py_incref(fallback);
    py_incref(vdec);
    py.tuple_set(self, 0, cap);
    py.tuple_set(self, 1, fallback);
    py.tuple_set(self, 2, vdec);
    fn = pyf.cfunc(&py_fn_defs[flavour], self, NULL);
    py.decref(self);
    return fn; /* NULL: Python's exception */
}

/* drydb__py_fn_kill: every later call of the builtins of this state
 * capsule (their self's first item) takes the fallback. */
DRYDB__COLD EXPORT int drydb__py_fn_kill(void *cap) {
    struct py_fn_state *st = pyf.cap_ptr != NULL ? pyf.cap_ptr(cap, py_fn_cap) : NULL;
    if (st == NULL) {
        if (pyf.clear != NULL) pyf.clear();
        return DRYDB_INVALID;
    }
    st->dead = 1;
    return DRYDB_OK;
}
