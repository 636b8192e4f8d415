package main

/*
#include <stdlib.h>
#include "cdefs.h"
#include "fast.h"
*/
import "C"

import (
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

// engCursor is what table and index cursors have in common.
type engCursor interface {
	First() bool
	Last() bool
	Next() bool
	Prev() bool
	Seek(k []byte) bool
	SeekExact(k []byte) bool
	SeekRow(n uint64) bool
	Valid() bool
	Key() []byte
	Value() []byte
	Err() error
	Close()
}

// arena is C memory owned by a cursor; data copied into it stays valid
// until the cursor moves.
type arena struct {
	p   unsafe.Pointer
	cap int
	n   int
}

// add appends b and returns its offset; ok is false when out of memory.
// The block may move (realloc), so callers keep offsets, not pointers,
// until they are done adding.
func (a *arena) add(b []byte) (int, bool) {
	if a.n+len(b) > a.cap {
		c := max(a.cap*2, 256)
		for c < a.n+len(b) {
			c *= 2
		}
		p := C.realloc(a.p, C.size_t(c))
		if p == nil {
			return 0, false
		}
		a.p, a.cap = p, c
	}
	off := a.n
	copy(unsafe.Slice((*byte)(a.p), a.cap)[off:], b)
	a.n += len(b)
	return off, true
}

func (a *arena) at(off, n int) *C.uint8_t {
	if n == 0 {
		return emptyPtr()
	}
	return (*C.uint8_t)(unsafe.Add(a.p, off))
}

func (a *arena) free() {
	C.free(a.p)
	*a = arena{}
}

type cursorObj struct {
	mu     sync.Mutex // serialises calls: a cursor is single-threaded, misuse must not crash
	d      *dbObj
	c      engCursor
	ic     *engine.IndexCursor // nil for table cursors
	enc    keyenc.Encoding     // of the keys seeks take: the table's, or the index's
	tc     *engine.Cursor      // table cursors: the concrete type, for the batch fast path
	gk, gv [][]byte            // plainBatch scratch
	fresh  bool                // never positioned: next acts as first, prev as last
	closed bool
	get    arena // drydb_cursor_get
	pk     arena // drydb_cursor_primary_key
	batch  arena // next_batch
	offs   []int // next_batch scratch: arena offsets, -1 for zero-copy
}

// key is the current key: the index key for index cursors.
func (c *cursorObj) key() []byte {
	if c.ic != nil {
		return c.ic.IndexKey()
	}
	return c.c.Key()
}

func (c *cursorObj) cleanup() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	c.c.Close()
	C.drydb__ver_release(c.d.cver, c.d.gen) // a no-op once the database closed
	c.get.free()
	c.pk.free()
	c.batch.free()
}

// getCursor resolves, locks and enters a cursor; release with c.done().
func getCursor(h C.uintptr_t) (*cursorObj, C.int) {
	o, code := lookup(uintptr(h), kindCursor)
	if code != codeOK {
		return nil, handleErr(code, kindCursor)
	}
	c := o.(*cursorObj)
	c.mu.Lock()
	if c.closed || !c.d.enterHeld() {
		c.mu.Unlock()
		return nil, failf(codeClosed, "cursor or its database is closed")
	}
	return c, codeOK
}

func (c *cursorObj) done() {
	c.d.leave()
	c.mu.Unlock()
}

func newCursor(d *dbObj, ec engCursor, ic *engine.IndexCursor, enc keyenc.Encoding, out *C.uintptr_t) C.int {
	co := &cursorObj{d: d, c: ec, ic: ic, enc: enc, fresh: true}
	co.tc, _ = ec.(*engine.Cursor)
	h := newHandle(kindCursor, co)
	if h == 0 {
		ec.Close()
		return failf(codeNoMem, "too many open handles")
	}
	// The cursor reads d until it is closed, refreshes or not. The call
	// that opens it is inside d, so d is not reaped yet.
	C.drydb__ver_acquire(d.cver, d.gen)
	d.addKid(h, co.cleanup)
	*out = C.uintptr_t(h)
	return codeOK
}

//export drydb_cursor_open
func drydb_cursor_open(h C.uintptr_t, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
	if out == nil {
		return failf(codeInvalid, "drydb_cursor_open: NULL out")
	}
	l, u, rc := bounds(lo, lolen, lokind, hi, hilen, hikind, t.enc, true)
	if rc != codeOK {
		return rc
	}
	return newCursor(t.d, t.t.NewCursor(l, u), nil, t.enc, out)
}

//export drydb_cursor_open_prefix
func drydb_cursor_open_prefix(h C.uintptr_t, p *C.uint8_t, plen C.size_t, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
	b, ok := in(p, plen)
	if !ok {
		return badLen("prefix", p, plen)
	}
	if out == nil {
		return failf(codeInvalid, "drydb_cursor_open_prefix: NULL out")
	}
	l, u := engine.PrefixBounds(append([]byte{}, b...))
	return newCursor(t.d, t.t.NewCursor(l, u), nil, t.enc, out)
}

//export drydb_index_cursor_open
func drydb_index_cursor_open(h C.uintptr_t, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	x, rc := getIndex(h)
	if rc != codeOK {
		return rc
	}
	defer x.d.leave()
	if out == nil {
		return failf(codeInvalid, "drydb_index_cursor_open: NULL out")
	}
	l, u, rc := bounds(lo, lolen, lokind, hi, hilen, hikind, x.enc, true)
	if rc != codeOK {
		return rc
	}
	ic := x.ix.NewCursor(l, u)
	return newCursor(x.d, ic, ic, x.enc, out)
}

//export drydb_index_cursor_open_prefix
func drydb_index_cursor_open_prefix(h C.uintptr_t, p *C.uint8_t, plen C.size_t, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	x, rc := getIndex(h)
	if rc != codeOK {
		return rc
	}
	defer x.d.leave()
	b, ok := in(p, plen)
	if !ok {
		return badLen("prefix", p, plen)
	}
	if out == nil {
		return failf(codeInvalid, "drydb_index_cursor_open_prefix: NULL out")
	}
	ic := x.ix.Prefix(append([]byte{}, b...))
	return newCursor(x.d, ic, ic, x.enc, out)
}

//export drydb_cursor_close
func drydb_cursor_close(h C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	if h == 0 {
		return codeOK
	}
	o, code := lookup(uintptr(h), kindCursor)
	if code == codeClosed {
		return codeOK
	}
	if code != codeOK {
		return handleErr(code, kindCursor)
	}
	c := o.(*cursorObj)
	// While we are inside the database, its close waits for us; if it is
	// already closing, it frees this cursor itself.
	if !c.d.enterHeld() {
		return codeOK
	}
	defer c.d.leave()
	if freeHandle(uintptr(h)) {
		c.d.dropKid(uintptr(h))
		c.cleanup()
	}
	return codeOK
}

// moved turns the result of a move into a status.
func (c *cursorObj) moved(ok bool) C.int {
	c.fresh = false
	if ok {
		return codeOK
	}
	if err := c.c.Err(); err != nil {
		return fail(err)
	}
	return codeNotFound
}

// onEntry is codeOK when the cursor is on an entry. A step that failed (a
// corrupt next page) leaves the cursor off any row with an error: that is
// reported, never a silent end of the range; else codeNotFound.
func (c *cursorObj) onEntry() C.int {
	if c.c.Valid() {
		return codeOK
	}
	if err := c.c.Err(); err != nil {
		return fail(err)
	}
	return codeNotFound
}

// begin readies a batch: a fresh cursor goes to the first entry (the last
// with reverse); codeOK when the batch starts on an entry.
func (c *cursorObj) begin(reverse bool) C.int {
	if c.fresh {
		c.fresh = false
		var ok bool
		if reverse {
			ok = c.c.Last()
		} else {
			ok = c.c.First()
		}
		if !ok {
			return c.moved(false)
		}
	}
	return c.onEntry()
}

// step moves to the next entry of a walk (the previous one in reverse).
func (c *cursorObj) step(reverse bool) {
	if reverse {
		c.c.Prev()
	} else {
		c.c.Next()
	}
}

// move runs one positioning call on cursor h. key, for seeks, points at the
// key f seeks to; it is validated against the cursor's encoding first.
func move(h C.uintptr_t, key *[]byte, f func(c *cursorObj) bool) (rc C.int) {
	defer guard(&rc)
	c, rc := getCursor(h)
	if rc != codeOK {
		return rc
	}
	defer c.done()
	if key != nil {
		if rc := checkKey("seek key", *key, c.enc); rc != codeOK {
			return rc
		}
	}
	defer debug.SetPanicOnFault(faults())
	return c.moved(f(c))
}

//export drydb_cursor_first
func drydb_cursor_first(h C.uintptr_t) C.int {
	return move(h, nil, func(c *cursorObj) bool { return c.c.First() })
}

//export drydb_cursor_last
func drydb_cursor_last(h C.uintptr_t) C.int {
	return move(h, nil, func(c *cursorObj) bool { return c.c.Last() })
}

//export drydb_cursor_next
func drydb_cursor_next(h C.uintptr_t) C.int {
	return move(h, nil, func(c *cursorObj) bool {
		if c.fresh {
			return c.c.First()
		}
		return c.c.Next()
	})
}

//export drydb_cursor_prev
func drydb_cursor_prev(h C.uintptr_t) C.int {
	return move(h, nil, func(c *cursorObj) bool {
		if c.fresh {
			return c.c.Last()
		}
		return c.c.Prev()
	})
}

//export drydb_cursor_seek_row
func drydb_cursor_seek_row(h C.uintptr_t, n C.uint64_t) C.int {
	return move(h, nil, func(c *cursorObj) bool { return c.c.SeekRow(uint64(n)) })
}

func seek(h C.uintptr_t, k *C.uint8_t, klen C.size_t, exact bool) C.int {
	b, ok := in(k, klen)
	if !ok {
		return badLen("key", k, klen)
	}
	return move(h, &b, func(c *cursorObj) bool {
		if exact {
			return c.c.SeekExact(b)
		}
		return c.c.Seek(b)
	})
}

//export drydb_cursor_seek
func drydb_cursor_seek(h C.uintptr_t, k *C.uint8_t, klen C.size_t) C.int {
	return seek(h, k, klen, false)
}

//export drydb_cursor_seek_exact
func drydb_cursor_seek_exact(h C.uintptr_t, k *C.uint8_t, klen C.size_t) C.int {
	return seek(h, k, klen, true)
}

// put hands b to C: zero-copy from the image, else copied into a.
func (c *cursorObj) put(a *arena, b []byte, p **C.uint8_t, n *C.size_t) bool {
	if c.d.inImage(b) {
		setPtr(p, cptr(b))
		*n = C.size_t(len(b))
		return true
	}
	off, ok := a.add(b)
	if !ok {
		return false
	}
	setPtr(p, a.at(off, len(b)))
	*n = C.size_t(len(b))
	return true
}

//export drydb_cursor_get
func drydb_cursor_get(h C.uintptr_t, key **C.uint8_t, klen *C.size_t, val **C.uint8_t, vlen *C.size_t) (rc C.int) {
	defer guard(&rc)
	c, rc := getCursor(h)
	if rc != codeOK {
		return rc
	}
	defer c.done()
	if (key == nil) != (klen == nil) || (val == nil) != (vlen == nil) {
		return failf(codeInvalid, "drydb_cursor_get: pointer and length out-pointers must both be NULL or both set")
	}
	if rc := c.onEntry(); rc != codeOK {
		return rc
	}
	defer debug.SetPanicOnFault(faults())
	c.get.n = 0
	if key != nil {
		// Compute the key even when it is zero-copy: the arena may move when
		// the value is added, so the key goes in first and its pointer is
		// taken only after both are in.
		k := c.key()
		if k == nil && c.c.Err() != nil {
			return fail(c.c.Err())
		}
		kin := c.d.inImage(k)
		koff := 0
		if !kin {
			var ok bool
			if koff, ok = c.get.add(k); !ok {
				return failf(codeNoMem, "out of memory")
			}
		}
		if val != nil {
			v := c.c.Value()
			if v == nil && c.c.Err() != nil {
				return fail(c.c.Err())
			}
			if !c.put(&c.get, v, val, vlen) {
				return failf(codeNoMem, "out of memory")
			}
		}
		if kin {
			setPtr(key, cptr(k))
		} else {
			setPtr(key, c.get.at(koff, len(k)))
		}
		*klen = C.size_t(len(k))
		return codeOK
	}
	if val != nil {
		v := c.c.Value()
		if v == nil && c.c.Err() != nil {
			return fail(c.c.Err())
		}
		if !c.put(&c.get, v, val, vlen) {
			return failf(codeNoMem, "out of memory")
		}
	}
	return codeOK
}

//export drydb_cursor_primary_key
func drydb_cursor_primary_key(h C.uintptr_t, pk **C.uint8_t, pklen *C.size_t) (rc C.int) {
	defer guard(&rc)
	c, rc := getCursor(h)
	if rc != codeOK {
		return rc
	}
	defer c.done()
	if c.ic == nil {
		return failf(codeBadHandle, "drydb_cursor_primary_key: not an index cursor")
	}
	if pk == nil || pklen == nil {
		return failf(codeInvalid, "drydb_cursor_primary_key: NULL out-pointer")
	}
	if rc := c.onEntry(); rc != codeOK {
		return rc
	}
	defer debug.SetPanicOnFault(faults())
	p := c.ic.PrimaryKey()
	if p == nil && c.c.Err() != nil {
		return fail(c.c.Err())
	}
	c.pk.n = 0
	if !c.put(&c.pk, p, pk, pklen) {
		return failf(codeNoMem, "out of memory")
	}
	return codeOK
}

// nextBatch fills up to max entries; see drydb_cursor_next_batch.
func nextBatch(h C.uintptr_t, reverse C.int, max C.size_t, keys **C.uint8_t, klens *C.size_t, pks **C.uint8_t, pklens *C.size_t, vals **C.uint8_t, vlens *C.size_t, n *C.size_t, index bool) (rc C.int) {
	defer guard(&rc)
	c, rc := getCursor(h)
	if rc != codeOK {
		return rc
	}
	defer c.done()
	if n == nil || keys == nil || klens == nil || (vals == nil) != (vlens == nil) || (index && (pks == nil || pklens == nil)) {
		return failf(codeInvalid, "drydb_cursor_next_batch: NULL array or count")
	}
	if index && c.ic == nil {
		return failf(codeBadHandle, "drydb_index_cursor_next_batch: not an index cursor")
	}
	if max == 0 || uint64(max) > maxBatch {
		return failf(codeInvalid, "drydb_cursor_next_batch: max = %d (must be 1..%d)", uint64(max), maxBatch)
	}
	*n = 0
	defer debug.SetPanicOnFault(faults())
	if rc := c.begin(reverse != 0); rc != codeOK {
		return rc
	}
	m := int(max)
	ks, kl := unsafe.Slice(keys, m), unsafe.Slice(klens, m)
	if !index && c.tc != nil && !c.tc.Pinned() {
		return plainBatch(c, reverse != 0, ks, kl, vals, vlens, n)
	}
	var vs **C.uint8_t
	var vl *C.size_t
	var ps []*C.uint8_t
	var pl []C.size_t
	if index {
		ps, pl = unsafe.Slice(pks, m), unsafe.Slice(pklens, m)
	}
	vs, vl = vals, vlens
	var vss []*C.uint8_t
	var vll []C.size_t
	if vs != nil {
		vss, vll = unsafe.Slice(vs, m), unsafe.Slice(vl, m)
	}
	// Data outside the image (compressed pages, unescaped index keys) is
	// valid only until the cursor moves, so it is copied at once; pointers
	// are resolved at the end because the arena may move as it grows.
	c.batch.n = 0
	c.offs = c.offs[:0]
	add := func(b []byte, p *(*C.uint8_t), l *C.size_t) bool {
		*l = C.size_t(len(b))
		if c.d.inImage(b) {
			setPtr(p, cptr(b))
			c.offs = append(c.offs, -1)
			return true
		}
		off, ok := c.batch.add(b)
		c.offs = append(c.offs, off)
		return ok
	}
	got := 0
	for got < m && c.c.Valid() {
		k := c.key()
		if k == nil && c.c.Err() != nil {
			break
		}
		if !add(k, &ks[got], &kl[got]) {
			return failf(codeNoMem, "out of memory")
		}
		if index {
			if !add(c.ic.PrimaryKey(), &ps[got], &pl[got]) {
				return failf(codeNoMem, "out of memory")
			}
		}
		if vss != nil {
			v := c.c.Value()
			if v == nil && c.c.Err() != nil {
				break
			}
			if !add(v, &vss[got], &vll[got]) {
				return failf(codeNoMem, "out of memory")
			}
		}
		got++
		c.step(reverse != 0)
	}
	if err := c.c.Err(); err != nil {
		return fail(err)
	}
	// Resolve arena offsets in the order add() recorded them.
	i := 0
	fix := func(p *(*C.uint8_t), l C.size_t) {
		if off := c.offs[i]; off >= 0 {
			setPtr(p, c.batch.at(off, int(l)))
		}
		i++
	}
	for j := 0; j < got; j++ {
		fix(&ks[j], kl[j])
		if index {
			fix(&ps[j], pl[j])
		}
		if vss != nil {
			fix(&vss[j], vll[j])
		}
	}
	*n = C.size_t(got)
	if got == 0 {
		return codeNotFound
	}
	return codeOK
}

//export drydb_cursor_next_batch
func drydb_cursor_next_batch(h C.uintptr_t, reverse C.int, max C.size_t, keys **C.uint8_t, klens *C.size_t, vals **C.uint8_t, vlens *C.size_t, n *C.size_t) C.int {
	return nextBatch(h, reverse, max, keys, klens, nil, nil, vals, vlens, n, false)
}

//export drydb_index_cursor_next_batch
func drydb_index_cursor_next_batch(h C.uintptr_t, reverse C.int, max C.size_t, ikeys **C.uint8_t, iklens *C.size_t, pks **C.uint8_t, pklens *C.size_t, vals **C.uint8_t, vlens *C.size_t, n *C.size_t) C.int {
	return nextBatch(h, reverse, max, ikeys, iklens, pks, pklens, vals, vlens, n, true)
}

// plainBatch fills a batch from a cursor over an uncompressed table: every
// key and value lies in the mapping, so the engine fills Go slices in one
// tight loop and this one only converts them to pointers. Afterwards the
// cursor steps past the last row read, as the header promises.
func plainBatch(c *cursorObj, reverse bool, ks []*C.uint8_t, kl []C.size_t, vals **C.uint8_t, vlens *C.size_t, n *C.size_t) C.int {
	m := len(ks)
	tc := c.tc
	if cap(c.gk) < m {
		c.gk, c.gv = make([][]byte, m), make([][]byte, m)
	}
	gk, gv := c.gk[:m], c.gv[:m]
	if vals == nil {
		gv = nil
	}
	got := tc.NextBatch(gk, gv, reverse)
	// Never leave slices into the mapping in the cursor (see
	// manyScratch.release): clear them on every path.
	defer func() {
		clear(gk)
		if gv != nil {
			clear(gv)
		}
	}()
	if err := tc.Err(); err != nil {
		return fail(err)
	}
	for i, k := range gk[:got] {
		setPtr(&ks[i], cptr(k))
		kl[i] = C.size_t(len(k))
	}
	if vals != nil {
		vs, vl := unsafe.Slice(vals, m), unsafe.Slice(vlens, m)
		for i, v := range gv[:got] {
			setPtr(&vs[i], cptr(v))
			vl[i] = C.size_t(len(v))
		}
	}
	if got > 0 {
		c.step(reverse)
	}
	*n = C.size_t(got)
	if got == 0 {
		return codeNotFound
	}
	return codeOK
}
