package main

/*
#include "cdefs.h"
#include "fast.h"
*/
import "C"

import (
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

// tableObj is a table in one version of a database (dbObj.views); a table
// handle names a tableRef (live.go), resolved at each call.
type tableObj struct {
	d     *dbObj
	t     *engine.Table
	plain bool // uncompressed: every value lies in the mapping
	enc   keyenc.Encoding
	ixv   map[string]*indexObj // the table's indexes in this version
	codec *C.char              // Table.Codec as a C string, freed at reap (d.codecs)
}

// leave ends a call on the table (call's leave): its database is left.
func (t *tableObj) leave() { t.d.leave() }

// newView makes the objects of table t of version d.
func newView(d *dbObj, t *engine.Table) *tableObj {
	c := t.Compression()
	to := &tableObj{d: d, t: t, enc: t.Encoding(), ixv: map[string]*indexObj{}, plain: c.Kind == engine.CompressNone && c.Filter == ""}
	to.codec = C.CString(t.Codec())
	d.codecs = append(d.codecs, to.codec)
	for _, n := range t.Indexes() {
		ix, _ := t.Index(n)
		to.ixv[n] = &indexObj{d: d, tbl: to, ix: ix, enc: ix.Encoding()}
	}
	return to
}

// getTable resolves a table handle in the current version and enters it.
func getTable(h C.uintptr_t) (*tableObj, C.int) {
	o, code := lookup(uintptr(h), kindTable)
	if code != codeOK {
		return nil, handleErr(code, kindTable)
	}
	ref := o.(*tableRef)
	d, rc := ref.r.enter()
	if rc != codeOK {
		return nil, rc
	}
	t := d.views[ref.name]
	if t == nil {
		d.leave()
		return nil, failf(codeNoTable, "table %q is not in the version of the database now current (a refresh replaced the file)", ref.name)
	}
	return t, codeOK
}

//export drydb_table_open
func drydb_table_open(h C.uintptr_t, name *C.char, out *C.uintptr_t) C.int {
	return call(h, getDB, (*dbObj).leave, func(d *dbObj) C.int {
		if name == nil || out == nil {
			return failf(codeInvalid, "drydb_table_open: NULL name or out")
		}
		n := C.GoString(name)
		r := d.r
		r.mu.Lock()
		defer r.mu.Unlock()
		if ref, ok := r.tabs[n]; ok {
			*out = C.uintptr_t(ref.handle)
			return codeOK
		}
		// The version current now, not d: a refresh publishes under r.mu, so
		// the fast path below is set up for the version calls will find.
		cur := r.current()
		if cur == nil || cur.views[n] == nil {
			return failf(codeNoTable, "no table %q", n)
		}
		ref := &tableRef{r: r, name: n, ixs: map[string]uintptr{}}
		ref.handle = newHandle(kindTable, ref)
		if ref.handle == 0 {
			return failf(codeNoMem, "too many open handles")
		}
		r.tabs[n] = ref
		r.kids[ref.handle] = ref.cleanup
		// drydb_get answers in C while the pages on its way are checked (and,
		// for a compressed table, while its leaf is in the cache).
		ref.install(cur)
		*out = C.uintptr_t(ref.handle)
		return codeOK
	})
}

//export drydb_table_info
func drydb_table_info(h C.uintptr_t, out *C.struct_drydb_table_info) C.int {
	return call(h, getTable, (*tableObj).leave, func(t *tableObj) C.int {
		if out == nil {
			return failf(codeInvalid, "drydb_table_info: NULL out")
		}
		*out = C.struct_drydb_table_info{}
		keyDesc(t.enc, &out.key_kind, &out.nparts, &out.parts)
		out.rows = C.uint64_t(t.t.Len())
		out.index_count = C.uint32_t(len(t.t.Indexes()))
		c := t.t.Compression()
		out.compression = C.int32_t(c.Kind)
		out.level = C.int32_t(c.Level)
		if c.Dictionary {
			out.flags |= C.DRYDB_DICTIONARY
		}
		if t.t.Hashed() {
			out.flags |= C.DRYDB_HASH
		}
		return codeOK
	})
}

//export drydb_table_codec
func drydb_table_codec(h C.uintptr_t, name **C.char) C.int {
	return call(h, getTable, (*tableObj).leave, func(t *tableObj) C.int {
		if name == nil {
			return failf(codeInvalid, "drydb_table_codec: NULL name")
		}
		*name = t.codec
		return codeOK
	})
}

// tlsOut hands data to C through the calling thread's value buffer: items
// inside the image go out zero-copy, the rest (Go memory) is copied into the
// buffer, which is reserved once for all of them because reserving again
// would move it.
type tlsItem struct {
	b   []byte
	ptr **C.uint8_t
	n   *C.size_t
}

func tlsOut(d *dbObj, items []tlsItem) C.int {
	total := 0
	for _, it := range items {
		if !d.inImage(it.b) {
			total += len(it.b)
		}
	}
	var buf []byte
	if total > 0 {
		p := C.drydb__tls_reserve(C.size_t(total))
		if p == nil {
			return failf(codeNoMem, "cannot allocate %d bytes for values", total)
		}
		buf = unsafe.Slice((*byte)(unsafe.Pointer(p)), total)
	}
	off := 0
	for _, it := range items {
		if it.ptr == nil {
			continue
		}
		if d.inImage(it.b) {
			setPtr(it.ptr, cptr(it.b))
		} else {
			copy(buf[off:], it.b)
			setPtr(it.ptr, cptr(buf[off:off+len(it.b)]))
			off += len(it.b)
		}
		if it.n != nil {
			*it.n = C.size_t(len(it.b))
		}
	}
	return codeOK
}

// maxBatch bounds n of the batch calls; beyond it a caller is confused.
const maxBatch = 1 << 24

// bound converts a C range end. A bound is a key and is validated as one
// (keyenc.ValidateBound; what names it in the message): a bound no key can
// equal is the caller's mistake, as a key of drydb_get is. An exclusive upper
// bound may also end a prefix range (keyenc.ValidateUpperBound), as the
// bindings' prefix queries send. keep copies the key into Go memory for
// engine objects that hold on to it (cursors).
func bound(what string, p *C.uint8_t, n C.size_t, k C.int, enc keyenc.Encoding, upper, keep bool) (engine.Bound, C.int) {
	switch k {
	case C.DRYDB_UNBOUNDED:
		return engine.Bound{}, codeOK
	case C.DRYDB_INCLUSIVE, C.DRYDB_EXCLUSIVE:
	default:
		return engine.Bound{}, failf(codeInvalid, "bad %s kind %d", what, int(k))
	}
	b, ok := in(p, n)
	if !ok {
		return engine.Bound{}, badLen(what, p, n)
	}
	err := enc.ValidateBound(b)
	if upper == (k == C.DRYDB_EXCLUSIVE) {
		// The ends that start past a key prefix (exclusive upper, inclusive
		// lower) also take its successor: how the bindings say "all keys
		// with this prefix" at an end (engine.PrefixBound).
		err = enc.ValidateUpperBound(b)
	}
	if err != nil {
		return engine.Bound{}, badKey(what, err)
	}
	if keep {
		b = append([]byte{}, b...)
	}
	return engine.Bound{Kind: engine.BoundKind(k), Key: b}, codeOK
}

// checkKey refuses a seek or rank key that is no bound of the encoding
// (keyenc.ValidateBound), with DRYDB_BADKEY as drydb_get does.
func checkKey(what string, k []byte, enc keyenc.Encoding) C.int {
	if err := enc.ValidateBound(k); err != nil {
		return badKey(what, err)
	}
	return codeOK
}

func badKey(what string, err error) C.int {
	return failf(codeBadKey, "%s: %s", what, strings.TrimPrefix(err.Error(), "drydb: "))
}

func bounds(lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, enc keyenc.Encoding, keep bool) (engine.Bound, engine.Bound, C.int) {
	l, rc := bound("lower bound", lo, lolen, lokind, enc, false, keep)
	if rc != codeOK {
		return l, l, rc
	}
	u, rc := bound("upper bound", hi, hilen, hikind, enc, true, keep)
	return l, u, rc
}

//export drydb_at
func drydb_at(h C.uintptr_t, n C.uint64_t, key **C.uint8_t, klen *C.size_t, val **C.uint8_t, vlen *C.size_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.leave()
	if key == nil || klen == nil || val == nil || vlen == nil {
		return failf(codeInvalid, "drydb_at: NULL out-pointer")
	}
	defer debug.SetPanicOnFault(faults())
	k, v, err := t.t.At(uint64(n))
	if err != nil {
		return fail(err)
	}
	return tlsOut(t.d, []tlsItem{{k, key, klen}, {v, val, vlen}})
}

// resize returns s with length n and zeroed contents, reusing its array.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

//export drydb_table_index_name
func drydb_table_index_name(h C.uintptr_t, i C.size_t, name **C.char) C.int {
	return call(h, getTable, (*tableObj).leave, func(t *tableObj) C.int {
		if name == nil {
			return failf(codeInvalid, "drydb_table_index_name: NULL out")
		}
		names := t.d.ixNames[t.t.Name()]
		if uint64(i) >= uint64(len(names)) {
			return codeNotFound
		}
		setCharPtr(name, names[i])
		return codeOK
	})
}

// keyDesc describes a key encoding as drydb_table_info and drydb_index_info
// give it: its kind, its number of parts and the parts' kinds.
func keyDesc(enc keyenc.Encoding, kind *C.int32_t, nparts *C.uint32_t, parts *[C.DRYDB_MAX_PARTS]C.uint8_t) {
	*kind = C.int32_t(enc.Kind)
	*nparts = C.uint32_t(len(enc.Parts))
	for i, p := range enc.Parts {
		if i < C.DRYDB_MAX_PARTS {
			parts[i] = C.uint8_t(p)
		}
	}
}
