package main

/*
#include "cdefs.h"
#include "fast.h"
*/
import "C"

import (
	"runtime/debug"
	"strings"
	"sync"
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
}

type indexObj struct {
	d   *dbObj
	tbl *tableObj
	ix  *engine.Index
	enc keyenc.Encoding
}

// newView makes the objects of table t of version d.
func newView(d *dbObj, t *engine.Table) *tableObj {
	c := t.Compression()
	to := &tableObj{d: d, t: t, enc: t.Encoding(), ixv: map[string]*indexObj{}, plain: c.Kind == engine.CompressNone && c.Filter == ""}
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

// getIndex resolves an index handle in the current version and enters it.
func getIndex(h C.uintptr_t) (*indexObj, C.int) {
	o, code := lookup(uintptr(h), kindIndex)
	if code != codeOK {
		return nil, handleErr(code, kindIndex)
	}
	ref := o.(*indexRef)
	d, rc := ref.t.r.enter()
	if rc != codeOK {
		return nil, rc
	}
	t := d.views[ref.t.name]
	if t == nil {
		d.leave()
		return nil, failf(codeNoTable, "table %q of index %q is not in the version of the database now current (a refresh replaced the file)", ref.t.name, ref.name)
	}
	x := t.ixv[ref.name]
	if x == nil {
		d.leave()
		return nil, failf(codeNoIndex, "index %q of table %q is not in the version of the database now current (a refresh replaced the file)", ref.name, ref.t.name)
	}
	return x, codeOK
}

//export drydb_table_open
func drydb_table_open(h C.uintptr_t, name *C.char, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	d, rc := getDB(h)
	if rc != codeOK {
		return rc
	}
	defer d.leave()
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
}

//export drydb_table_info
func drydb_table_info(h C.uintptr_t, out *C.struct_drydb_table_info) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
	if out == nil {
		return failf(codeInvalid, "drydb_table_info: NULL out")
	}
	*out = C.struct_drydb_table_info{}
	out.key_kind = C.int32_t(t.enc.Kind)
	out.nparts = C.uint32_t(len(t.enc.Parts))
	for i, p := range t.enc.Parts {
		if i < C.DRYDB_MAX_PARTS {
			out.parts[i] = C.uint8_t(p)
		}
	}
	out.rows = C.uint64_t(t.t.Len())
	out.index_count = C.uint32_t(len(t.t.Indexes()))
	c := t.t.Compression()
	out.compression = C.int32_t(c.Kind)
	out.level = C.int32_t(c.Level)
	if c.Dictionary {
		out.flags |= C.DRYDB_DICTIONARY
	}
	return codeOK
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

// drydb__get_go is drydb_get (fast.c) when the C fast path cannot answer.
//
//export drydb__get_go
func drydb__get_go(h C.uintptr_t, key *C.uint8_t, klen C.size_t, val **C.uint8_t, vlen *C.size_t) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc == codeOK {
		rc = tableGet(c.t, key, klen, val, vlen)
	}
	return rc
}

func tableGet(t *tableObj, key *C.uint8_t, klen C.size_t, val **C.uint8_t, vlen *C.size_t) C.int {
	k, ok := in(key, klen)
	if !ok {
		return badLen("key", key, klen)
	}
	if val == nil || vlen == nil {
		return failf(codeInvalid, "drydb_get: NULL out-pointer")
	}
	if err := t.enc.Validate(k); err != nil {
		return fail(err)
	}
	if t.plain {
		// Uncompressed tables: the value lies in the mapping.
		v, err := t.t.Get(k)
		if err != nil {
			return fail(err)
		}
		setPtr(val, cptr(v))
		*vlen = C.size_t(len(v))
		return codeOK
	}
	v, err := t.t.GetPinned(k)
	if err != nil {
		return fail(err)
	}
	defer v.Release()
	if t.d.inImage(v.Data) {
		setPtr(val, cptr(v.Data))
		*vlen = C.size_t(len(v.Data))
		return codeOK
	}
	return tlsOut(t.d, []tlsItem{{v.Data, val, vlen}})
}

// manyScratch is reused across drydb_get_many calls to avoid allocating
// per call.
type manyScratch struct {
	keys  [][]byte
	vals  [][]byte
	found []bool
	items []tlsItem
}

var manyPool = sync.Pool{New: func() any { return new(manyScratch) }}

// maxBatch bounds n of the batch calls; beyond it a caller is confused.
const maxBatch = 1 << 24

// drydb__get_many_go is drydb_get_many (fast.c) when the C fast path
// cannot answer.
//
//export drydb__get_many_go
func drydb__get_many_go(h C.uintptr_t, n C.size_t, keys *C.uint8_t, klens *C.size_t, vals **C.uint8_t, vlens *C.size_t, found *C.uint8_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
	if n == 0 {
		return codeOK
	}
	if uint64(n) > maxBatch {
		return failf(codeInvalid, "drydb_get_many: n = %d exceeds %d", uint64(n), maxBatch)
	}
	if klens == nil || vals == nil || vlens == nil || found == nil {
		return failf(codeInvalid, "drydb_get_many: NULL array")
	}
	kl := unsafe.Slice(klens, int(n))
	var total uint64
	for i, l := range kl {
		if uint64(l) > maxLen {
			return failf(codeInvalid, "drydb_get_many: klens[%d] = %d exceeds DRYDB_MAX_LEN", i, uint64(l))
		}
		total += uint64(l)
	}
	all, ok := in(keys, C.size_t(total))
	if !ok {
		return badLen("keys", keys, C.size_t(total))
	}
	s := manyPool.Get().(*manyScratch)
	defer s.release()
	s.keys = s.keys[:0]
	off := uint64(0)
	for i, l := range kl {
		k := all[off : off+uint64(l) : off+uint64(l)]
		off += uint64(l)
		if err := t.enc.Validate(k); err != nil {
			return failf(codeBadKey, "drydb_get_many: key %d: %v", i, err)
		}
		s.keys = append(s.keys, k)
	}
	s.vals = resize(s.vals, len(s.keys))
	s.found = resize(s.found, len(s.keys))
	defer debug.SetPanicOnFault(faults())
	if err := t.t.GetMany(s.keys, s.vals, s.found); err != nil {
		return fail(err)
	}
	vs, vl, fs := unsafe.Slice(vals, int(n)), unsafe.Slice(vlens, int(n)), unsafe.Slice(found, int(n))
	s.items = s.items[:0]
	for i := range s.keys {
		if s.found[i] {
			fs[i] = 1
			s.items = append(s.items, tlsItem{s.vals[i], &vs[i], &vl[i]})
		} else {
			fs[i], vl[i] = 0, 0
			setPtr(&vs[i], nil)
		}
	}
	return tlsOut(t.d, s.items)
}

// release clears the scratch before pooling it, on every path: slices into
// C memory or into a mapping left in a pooled (reachable) object would
// dangle once that memory is freed or unmapped, and if the Go heap later
// grows into those addresses (it does under ASan, whose shadow memory
// displaces Go's usual heap addresses) the garbage collector finds them and
// aborts with "found pointer to free object".
func (s *manyScratch) release() {
	clear(s.keys[:cap(s.keys)])
	clear(s.vals[:cap(s.vals)])
	clear(s.items[:cap(s.items)])
	manyPool.Put(s)
}

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
	if upper && k == C.DRYDB_EXCLUSIVE {
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

// drydb__count_go is drydb_count (fast.c) when the C fast path cannot
// answer.
//
//export drydb__count_go
func drydb__count_go(h C.uintptr_t, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, out *C.uint64_t) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc == codeOK {
		rc = tableCount(c.t, lo, lolen, lokind, hi, hilen, hikind, out)
	}
	return rc
}

func tableCount(t *tableObj, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, out *C.uint64_t) C.int {
	l, u, rc := bounds(lo, lolen, lokind, hi, hilen, hikind, t.enc, false)
	if rc != codeOK {
		return rc
	}
	if out == nil {
		return failf(codeInvalid, "drydb_count: NULL out")
	}
	n, err := t.t.Count(l, u)
	if err != nil {
		return fail(err)
	}
	*out = C.uint64_t(n)
	return codeOK
}

// drydb__rank_go is drydb_rank (fast.c) when the C fast path cannot
// answer.
//
//export drydb__rank_go
func drydb__rank_go(h C.uintptr_t, key *C.uint8_t, klen C.size_t, out *C.uint64_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
	k, ok := in(key, klen)
	if !ok {
		return badLen("key", key, klen)
	}
	if out == nil {
		return failf(codeInvalid, "drydb_rank: NULL out")
	}
	if rc := checkKey("key", k, t.enc); rc != codeOK {
		return rc
	}
	defer debug.SetPanicOnFault(faults())
	n, err := t.t.Rank(k)
	if err != nil {
		return fail(err)
	}
	*out = C.uint64_t(n)
	return codeOK
}

//export drydb_at
func drydb_at(h C.uintptr_t, n C.uint64_t, key **C.uint8_t, klen *C.size_t, val **C.uint8_t, vlen *C.size_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
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

//export drydb_index_open
func drydb_index_open(h C.uintptr_t, name *C.char, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
	if name == nil || out == nil {
		return failf(codeInvalid, "drydb_index_open: NULL name or out")
	}
	n := C.GoString(name)
	if t.ixv[n] == nil {
		_, err := t.t.Index(n)
		return fail(err)
	}
	r := t.d.r
	r.mu.Lock()
	defer r.mu.Unlock()
	ref := r.tabs[t.t.Name()]
	if xh, ok := ref.ixs[n]; ok {
		*out = C.uintptr_t(xh)
		return codeOK
	}
	xh := newHandle(kindIndex, &indexRef{t: ref, name: n})
	if xh == 0 {
		return failf(codeNoMem, "too many open handles")
	}
	ref.ixs[n] = xh
	r.kids[xh] = nil
	*out = C.uintptr_t(xh)
	return codeOK
}

//export drydb_index_info
func drydb_index_info(h C.uintptr_t, out *C.struct_drydb_index_info) (rc C.int) {
	defer guard(&rc)
	x, rc := getIndex(h)
	if rc != codeOK {
		return rc
	}
	defer x.d.leave()
	if out == nil {
		return failf(codeInvalid, "drydb_index_info: NULL out")
	}
	*out = C.struct_drydb_index_info{}
	out.key_kind = C.int32_t(x.enc.Kind)
	out.nparts = C.uint32_t(len(x.enc.Parts))
	for i, p := range x.enc.Parts {
		if i < C.DRYDB_MAX_PARTS {
			out.parts[i] = C.uint8_t(p)
		}
	}
	out.entries = C.uint64_t(x.ix.Len())
	if x.ix.Unique() {
		out.unique = 1
	}
	return codeOK
}

//export drydb_index_get
func drydb_index_get(h C.uintptr_t, ikey *C.uint8_t, iklen C.size_t, pk **C.uint8_t, pklen *C.size_t, val **C.uint8_t, vlen *C.size_t) (rc C.int) {
	defer guard(&rc)
	x, rc := getIndex(h)
	if rc != codeOK {
		return rc
	}
	defer x.d.leave()
	k, ok := in(ikey, iklen)
	if !ok {
		return badLen("index key", ikey, iklen)
	}
	if pk == nil || pklen == nil || val == nil || vlen == nil {
		return failf(codeInvalid, "drydb_index_get: NULL out-pointer")
	}
	if err := x.enc.Validate(k); err != nil {
		return fail(err)
	}
	defer debug.SetPanicOnFault(faults())
	p, v, err := x.ix.Get(k)
	if err != nil {
		return fail(err)
	}
	return tlsOut(x.d, []tlsItem{{p, pk, pklen}, {v, val, vlen}})
}

//export drydb_index_count
func drydb_index_count(h C.uintptr_t, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, out *C.uint64_t) (rc C.int) {
	defer guard(&rc)
	x, rc := getIndex(h)
	if rc != codeOK {
		return rc
	}
	defer x.d.leave()
	l, u, rc := bounds(lo, lolen, lokind, hi, hilen, hikind, x.enc, false)
	if rc != codeOK {
		return rc
	}
	if out == nil {
		return failf(codeInvalid, "drydb_index_count: NULL out")
	}
	defer debug.SetPanicOnFault(faults())
	n, err := x.ix.Count(l, u)
	if err != nil {
		return fail(err)
	}
	*out = C.uint64_t(n)
	return codeOK
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
func drydb_table_index_name(h C.uintptr_t, i C.size_t, name **C.char) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
	if name == nil {
		return failf(codeInvalid, "drydb_table_index_name: NULL out")
	}
	names := t.d.ixNames[t.t.Name()]
	if uint64(i) >= uint64(len(names)) {
		return codeNotFound
	}
	setCharPtr(name, names[i])
	return codeOK
}

// drydb__range_go is drydb_range (fast.c) when the C fast path cannot
// answer: compressed tables, pages not checked yet, overflow values.
//
//export drydb__range_go
func drydb__range_go(h C.uintptr_t, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, flags C.uint32_t, max C.size_t, keys **C.uint8_t, klens *C.size_t, vals **C.uint8_t, vlens *C.size_t, n *C.size_t) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc == codeOK {
		rc = tableRange(c.t, lo, lolen, lokind, hi, hilen, hikind, flags, max, keys, klens, vals, vlens, n)
	}
	return rc
}

func tableRange(t *tableObj, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, flags C.uint32_t, max C.size_t, keys **C.uint8_t, klens *C.size_t, vals **C.uint8_t, vlens *C.size_t, n *C.size_t) C.int {
	if n == nil || keys == nil || klens == nil || (vals == nil) != (vlens == nil) {
		return failf(codeInvalid, "drydb_range: NULL array or count")
	}
	if flags&^C.DRYDB_REVERSE != 0 {
		return failf(codeInvalid, "drydb_range: unknown flags %#x", uint32(flags))
	}
	if uint64(max) > maxBatch {
		return failf(codeInvalid, "drydb_range: max = %d exceeds %d", uint64(max), maxBatch)
	}
	*n = 0
	l, u, rc := bounds(lo, lolen, lokind, hi, hilen, hikind, t.enc, false)
	if rc != codeOK {
		return rc
	}
	if max == 0 {
		return codeOK
	}
	m := int(max)
	cur := t.t.NewCursor(l, u)
	defer cur.Close()
	reverse := flags&C.DRYDB_REVERSE != 0
	var ok bool
	if reverse {
		ok = cur.Last()
	} else {
		ok = cur.First()
	}
	g := gathers.Get().(*gather)
	defer g.release()
	// Batches of the cursor (a leaf at a time on compressed tables, whose
	// slices stay valid only while the cursor is on their page, so they are
	// gathered before it moves on).
	got := 0
	for ok && got < m {
		want := min(m-got, len(g.kb))
		var vb [][]byte
		if vals != nil {
			vb = g.vb[:want]
		}
		nb := cur.NextBatch(g.kb[:want], vb, reverse)
		for i := 0; i < nb; i++ {
			g.add(t.d, g.kb[i])
			if vals != nil {
				g.add(t.d, vb[i])
			}
		}
		got += nb
		if nb == 0 {
			break
		}
		ok = advance(cur, reverse)
	}
	if err := cur.Err(); err != nil {
		return fail(err)
	}
	if rc := g.out(keys, klens, vals, vlens); rc != codeOK {
		return rc
	}
	*n = C.size_t(got)
	return codeOK
}

// advance steps a walk to its next row (the previous one in reverse).
func advance(cur *engine.Cursor, reverse bool) bool {
	if reverse {
		return cur.Prev()
	}
	return cur.Next()
}

// gather hands a batch of rows to C: keys and values inside the image go
// out zero-copy; the rest (compressed pages' bytes, valid only while the
// cursor is on their page) are copied as they come into one reused Go
// buffer, and from there into the thread's value buffer in one reservation
// (a second would move it). Its items hold no Go pointers (addresses in the
// image are not Go memory), so recording one costs no write barrier, and
// gathers are pooled: no allocation per row or per call.
type gather struct {
	buf    []byte
	items  []gatherItem // per row: the key, then the value when asked
	kb, vb [][]byte     // a cursor batch's keys and values
}

type gatherItem struct {
	addr uintptr // in the image, or 0: the next n bytes of buf
	n    int
}

var gathers = sync.Pool{New: func() any { return &gather{kb: make([][]byte, 256), vb: make([][]byte, 256)} }}

func (g *gather) add(d *dbObj, b []byte) {
	if len(b) > 0 && d.inImage(b) {
		g.items = append(g.items, gatherItem{uintptr(unsafe.Pointer(unsafe.SliceData(b))), len(b)})
		return
	}
	g.items = append(g.items, gatherItem{0, len(b)})
	g.buf = append(g.buf, b...)
}

// out stores the rows into the caller's arrays (vals nil: keys only).
func (g *gather) out(keys **C.uint8_t, klens *C.size_t, vals **C.uint8_t, vlens *C.size_t) C.int {
	var base uintptr
	if len(g.buf) > 0 {
		p := C.drydb__tls_reserve(C.size_t(len(g.buf)))
		if p == nil {
			return failf(codeNoMem, "cannot allocate %d bytes for values", len(g.buf))
		}
		copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(g.buf)), g.buf)
		base = uintptr(unsafe.Pointer(p))
	}
	per := 1
	if vals != nil {
		per = 2
	}
	rows := len(g.items) / per
	ks, kl := unsafe.Slice(keys, rows), unsafe.Slice(klens, rows)
	var vs []*C.uint8_t
	var vl []C.size_t
	if vals != nil {
		vs, vl = unsafe.Slice(vals, rows), unsafe.Slice(vlens, rows)
	}
	off := uintptr(0)
	for j, it := range g.items {
		a := it.addr
		if it.n == 0 {
			a = uintptr(unsafe.Pointer(emptyPtr()))
		} else if a == 0 {
			a = base + off
			off += uintptr(it.n)
		}
		row := j / per
		if per == 2 && j&1 == 1 {
			*(*uintptr)(unsafe.Pointer(&vs[row])) = a // setPtr's plain word store
			vl[row] = C.size_t(it.n)
		} else {
			*(*uintptr)(unsafe.Pointer(&ks[row])) = a
			kl[row] = C.size_t(it.n)
		}
	}
	return codeOK
}

func (g *gather) release() {
	if cap(g.buf) > 1<<20 { // do not keep a huge batch's buffer
		g.buf = nil
	}
	g.buf, g.items = g.buf[:0], g.items[:0]
	clear(g.kb) // no slices into pages (or a closed mapping) kept alive
	clear(g.vb)
	gathers.Put(g)
}
