package main

// The Go half of the C read path. fast.c answers drydb_get, drydb_get_many,
// drydb_count, drydb_rank and drydb_range without entering Go while the
// pages on its way are checked; what it cannot vouch for (pages not checked
// yet, compressed leaves not in the cache, overflow values, errors) comes
// here through the drydb__*_go exports, which only fast.c and copyout.c
// call (exports.map keeps them out of the library's dynamic symbols).

/*
#include "cdefs.h"
#include "fast.h"
*/
import "C"

import (
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/drydb/drydb/engine"
)

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
	// max = 0 is refused, as by drydb_cursor_next_batch (one rule, issue
	// 18): a paging loop `while (n == max)` would never end on it.
	if max == 0 || uint64(max) > maxBatch {
		return failf(codeInvalid, "drydb_range: max = %d (must be 1..%d)", uint64(max), maxBatch)
	}
	*n = 0
	l, u, rc := bounds(lo, lolen, lokind, hi, hilen, hikind, t.enc, false)
	if rc != codeOK {
		return rc
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
