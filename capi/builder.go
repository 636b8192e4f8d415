package main

/*
#include <stdlib.h>
#include "cdefs.h"
#include "fast.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

// builderObj owns an engine builder and the handles of its table and index
// builders. All calls on it and its children take mu: a builder belongs to
// one thread, but misuse must not corrupt it.
type builderObj struct {
	mu   sync.Mutex
	b    *engine.Builder
	meta map[string][]byte // shared with the engine's BuilderOptions, read at build time
	kids []uintptr
	dead bool
	// base is the database version a merge builder reads (nil
	// otherwise); the builder holds it until freed, refreshes or not.
	// Every call on the builder and its children is a call on base too
	// (enter, leave at unlock): drydb_close(base) waits for one in
	// progress, and later calls give DRYDB_CLOSED, since base's mapping is
	// gone.
	base *dbObj
}

type tbuilderObj struct {
	bo  *builderObj
	tb  *engine.TableBuilder
	enc keyenc.Encoding // for the columnar calls, which encode keys
}

// unlock ends a call on a table builder (call's leave).
func (t *tbuilderObj) unlock() { t.bo.unlock() }

type ibuilderObj struct {
	bo *builderObj
	ib *engine.IndexBuilder
}

// unlock ends a call on an index builder (call's leave).
func (x *ibuilderObj) unlock() { x.bo.unlock() }

func lockBuilder(bo *builderObj) C.int {
	bo.mu.Lock()
	if bo.dead {
		bo.mu.Unlock()
		return failf(codeClosed, "builder is freed")
	}
	if bo.base != nil && !bo.base.enterHeld() {
		bo.mu.Unlock()
		return failf(codeClosed, "the merge builder's base database is closed")
	}
	return codeOK
}

// unlock ends a call that lockBuilder began.
func (bo *builderObj) unlock() {
	if bo.base != nil {
		bo.base.leave()
	}
	bo.mu.Unlock()
}

func getBuilder(h C.uintptr_t) (*builderObj, C.int) {
	o, code := lookup(uintptr(h), kindBuilder)
	if code != codeOK {
		return nil, handleErr(code, kindBuilder)
	}
	bo := o.(*builderObj)
	return bo, lockBuilder(bo)
}

func getTBuilder(h C.uintptr_t) (*tbuilderObj, C.int) {
	o, code := lookup(uintptr(h), kindTBuilder)
	if code != codeOK {
		return nil, handleErr(code, kindTBuilder)
	}
	t := o.(*tbuilderObj)
	return t, lockBuilder(t.bo)
}

func getIBuilder(h C.uintptr_t) (*ibuilderObj, C.int) {
	o, code := lookup(uintptr(h), kindIBuilder)
	if code != codeOK {
		return nil, handleErr(code, kindIBuilder)
	}
	x := o.(*ibuilderObj)
	return x, lockBuilder(x.bo)
}

//export drydb_builder_new
func drydb_builder_new(pageSize C.uint32_t, budget C.int64_t, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	return newBuilder("drydb_builder_new", nil, pageSize, budget, out)
}

//export drydb_builder_new_merge
func drydb_builder_new_merge(base C.uintptr_t, pageSize C.uint32_t, budget C.int64_t, out *C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	d, rc := getDB(base)
	if rc != codeOK {
		return rc
	}
	defer d.leave()
	return newBuilder("drydb_builder_new_merge", d, pageSize, budget, out)
}

// newBuilder makes a builder, a merge builder seeded from base if base is
// not nil.
func newBuilder(fn string, base *dbObj, pageSize C.uint32_t, budget C.int64_t, out *C.uintptr_t) C.int {
	if out == nil {
		return failf(codeInvalid, "%s: NULL out", fn)
	}
	if budget < 0 {
		return failf(codeInvalid, "negative memory budget %d", int64(budget))
	}
	bo := &builderObj{meta: map[string][]byte{}, base: base}
	opts := &engine.BuilderOptions{PageSize: int(pageSize), MemoryBudget: int64(budget), Metadata: bo.meta}
	var b *engine.Builder
	var err error
	if base == nil {
		b, err = engine.NewBuilder(opts)
	} else {
		// The base's metadata is carried; drydb_builder_set_meta adds to it
		// or replaces a value.
		for k, v := range base.info.Metadata {
			bo.meta[k] = v
		}
		b, err = engine.NewMergeBuilder(base.db, opts)
	}
	if err != nil {
		return fail(err)
	}
	bo.b = b
	h := newHandle(kindBuilder, bo)
	if h == 0 {
		b.Close()
		return failf(codeNoMem, "too many open handles")
	}
	if base != nil {
		C.drydb__ver_acquire(base.cver, base.gen) // released by drydb_builder_free
	}
	*out = C.uintptr_t(h)
	return codeOK
}

//export drydb_builder_set_meta
func drydb_builder_set_meta(h C.uintptr_t, key *C.uint8_t, klen C.size_t, val *C.uint8_t, vlen C.size_t) C.int {
	return call(h, getBuilder, (*builderObj).unlock, func(bo *builderObj) C.int {
		k, v, rc := in2("key", key, klen, "value", val, vlen)
		if rc != codeOK {
			return rc
		}
		bo.meta[string(k)] = append([]byte{}, v...)
		return codeOK
	})
}

// encoding builds a key encoding from the C description.
func encoding(k C.int, parts *C.uint8_t, nparts C.size_t) (keyenc.Encoding, C.int) {
	if k < C.DRYDB_KEY_BYTES || k > C.DRYDB_KEY_COMPOSITE {
		return keyenc.Encoding{}, failf(codeInvalid, "unknown key kind %d", int(k))
	}
	if nparts > C.DRYDB_MAX_PARTS {
		return keyenc.Encoding{}, failf(codeInvalid, "%d key parts (at most %d)", uint64(nparts), C.DRYDB_MAX_PARTS)
	}
	e := keyenc.Encoding{Kind: keyenc.Kind(k)}
	if nparts > 0 {
		if parts == nil {
			return e, failf(codeInvalid, "NULL parts with nparts %d", uint64(nparts))
		}
		for _, p := range unsafe.Slice(parts, int(nparts)) {
			e.Parts = append(e.Parts, keyenc.Kind(p))
		}
	}
	return e, codeOK
}

// cname copies a NUL-terminated name; NULL is an error.
func cname(s *C.char) (string, bool) {
	if s == nil {
		return "", false
	}
	return C.GoString(s), true
}

// builderName checks the name and out-pointer of a call that makes a table or
// index builder.
func builderName(fn string, name *C.char, out *C.uintptr_t) (string, C.int) {
	n, ok := cname(name)
	if !ok || out == nil {
		return "", failf(codeInvalid, "%s: NULL name or out", fn)
	}
	return n, codeOK
}

// builderKeyed is builderName plus the key encoding, for the calls that
// make a builder with keys of its own (tables, indexes).
func builderKeyed(fn string, name *C.char, out *C.uintptr_t, keyKind C.int, parts *C.uint8_t, nparts C.size_t) (string, keyenc.Encoding, C.int) {
	n, rc := builderName(fn, name, out)
	if rc != codeOK {
		return "", keyenc.Encoding{}, rc
	}
	enc, rc := encoding(keyKind, parts, nparts)
	return n, enc, rc
}

//export drydb_builder_table
func drydb_builder_table(h C.uintptr_t, name *C.char, keyKind C.int, parts *C.uint8_t, nparts C.size_t, compression C.int, level C.int, flags C.uint32_t, out *C.uintptr_t) C.int {
	return call(h, getBuilder, (*builderObj).unlock, func(bo *builderObj) C.int {
		n, enc, rc := builderKeyed("drydb_builder_table", name, out, keyKind, parts, nparts)
		if rc != codeOK {
			return rc
		}
		if compression < C.DRYDB_COMPRESS_NONE || compression > C.DRYDB_COMPRESS_S2 {
			return failf(codeInvalid, "unknown compression %d", int(compression))
		}
		if flags&^(C.DRYDB_DICTIONARY|C.DRYDB_HASH|C.DRYDB_NO_HASH) != 0 || flags&C.DRYDB_HASH != 0 && flags&C.DRYDB_NO_HASH != 0 {
			return failf(codeInvalid, "unknown table flags 0x%x", uint32(flags))
		}
		hash := engine.HashAuto
		if flags&C.DRYDB_HASH != 0 {
			hash = engine.HashOn
		} else if flags&C.DRYDB_NO_HASH != 0 {
			hash = engine.HashOff
		}
		tb, err := bo.b.Table(n, &engine.TableOptions{Encoding: enc, Hash: hash, Compression: engine.Compression{
			Kind: engine.CompressionKind(compression), Level: int(level), Dictionary: flags&C.DRYDB_DICTIONARY != 0}})
		if err != nil {
			return fail(err)
		}
		return bo.kid(kindTBuilder, &tbuilderObj{bo: bo, tb: tb, enc: enc}, out)
	})
}

//export drydb_builder_table_codec
func drydb_builder_table_codec(h C.uintptr_t, codec *C.char) C.int {
	return call(h, getTBuilder, (*tbuilderObj).unlock, func(t *tbuilderObj) C.int {
		name, ok := cname(codec)
		if !ok {
			return failf(codeInvalid, "drydb_builder_table_codec: NULL codec")
		}
		if err := t.tb.SetCodec(name); err != nil {
			return fail(err)
		}
		return codeOK
	})
}

// kid gives *out a handle for obj, a table or index builder of bo, freed
// with bo.
func (bo *builderObj) kid(k kind, obj any, out *C.uintptr_t) C.int {
	h := newHandle(k, obj)
	if h == 0 {
		return failf(codeNoMem, "too many open handles")
	}
	bo.kids = append(bo.kids, h)
	*out = C.uintptr_t(h)
	return codeOK
}

//export drydb_builder_merge_table
func drydb_builder_merge_table(h C.uintptr_t, name *C.char, out *C.uintptr_t) C.int {
	return call(h, getBuilder, (*builderObj).unlock, func(bo *builderObj) C.int {
		n, rc := builderName("drydb_builder_merge_table", name, out)
		if rc != codeOK {
			return rc
		}
		if bo.base == nil {
			return failf(codeInvalid, "drydb_builder_merge_table: the builder was not made by drydb_builder_new_merge")
		}
		bt, err := bo.base.db.Table(n)
		if err != nil {
			return fail(err) // not in the base: DRYDB_NOTABLE
		}
		tb, err := bo.b.Table(n, nil) // nil options: the seeded table as it is
		if err != nil {
			return fail(err)
		}
		return bo.kid(kindTBuilder, &tbuilderObj{bo: bo, tb: tb, enc: bt.Encoding()}, out)
	})
}

//export drydb_builder_merge_index
func drydb_builder_merge_index(h C.uintptr_t, name *C.char, out *C.uintptr_t) C.int {
	return call(h, getTBuilder, (*tbuilderObj).unlock, func(t *tbuilderObj) C.int {
		n, rc := builderName("drydb_builder_merge_index", name, out)
		if rc != codeOK {
			return rc
		}
		if t.bo.base == nil {
			return failf(codeInvalid, "drydb_builder_merge_index: the builder was not made by drydb_builder_new_merge")
		}
		// Look it up in the base first: AddIndex with nil options would add a
		// new index to a table the base does not have.
		bt, err := t.bo.base.db.Table(t.tb.Name())
		if err != nil {
			return fail(err)
		}
		if _, err := bt.Index(n); err != nil {
			return fail(err)
		}
		ib, err := t.tb.AddIndex(n, nil) // nil options: the base's index as it is
		if err != nil {
			return fail(err)
		}
		return t.bo.kid(kindIBuilder, &ibuilderObj{bo: t.bo, ib: ib}, out)
	})
}

//export drydb_builder_delete
func drydb_builder_delete(h C.uintptr_t, key *C.uint8_t, klen C.size_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTBuilder(h)
	if rc != codeOK {
		return rc
	}
	defer t.unlock()
	k, ok := in(key, klen)
	if !ok {
		return badLen("key", key, klen)
	}
	return fail(t.tb.Delete(k)) // Delete copies
}

//export drydb_builder_index
func drydb_builder_index(h C.uintptr_t, name *C.char, unique C.int, keyKind C.int, parts *C.uint8_t, nparts C.size_t, out *C.uintptr_t) C.int {
	return call(h, getTBuilder, (*tbuilderObj).unlock, func(t *tbuilderObj) C.int {
		n, enc, rc := builderKeyed("drydb_builder_index", name, out, keyKind, parts, nparts)
		if rc != codeOK {
			return rc
		}
		ib, err := t.tb.AddIndex(n, &engine.IndexOptions{Unique: unique != 0, Encoding: enc})
		if err != nil {
			return fail(err)
		}
		return t.bo.kid(kindIBuilder, &ibuilderObj{bo: t.bo, ib: ib}, out)
	})
}

//export drydb_builder_append
func drydb_builder_append(h C.uintptr_t, key *C.uint8_t, klen C.size_t, val *C.uint8_t, vlen C.size_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTBuilder(h)
	if rc != codeOK {
		return rc
	}
	defer t.unlock()
	k, v, rc := in2("key", key, klen, "value", val, vlen)
	if rc != codeOK {
		return rc
	}
	return fail(t.tb.Append(k, v)) // Append copies
}

// pairs walks n concatenated (a, b) pairs and calls f on each; it stops at
// the first failure.
func pairs(n C.size_t, as *C.uint8_t, alens *C.size_t, bs *C.uint8_t, blens *C.size_t, f func(i int, a, b []byte) C.int) C.int {
	if n == 0 {
		return codeOK
	}
	al, aa, rc := concat("keys", n, as, alens)
	if rc != codeOK {
		return rc
	}
	bl, ba, rc := concat("values", n, bs, blens)
	if rc != codeOK {
		return rc
	}
	var oa, ob uint64
	for i := range al {
		a := aa[oa : oa+uint64(al[i])]
		b := ba[ob : ob+uint64(bl[i])]
		oa += uint64(al[i])
		ob += uint64(bl[i])
		if rc := f(i, a, b); rc != codeOK {
			return rc
		}
	}
	return codeOK
}

// concat checks the n (> 0) lengths of byte strings concatenated at p and
// returns them and the bytes.
func concat(what string, n C.size_t, p *C.uint8_t, lens *C.size_t) ([]C.size_t, []byte, C.int) {
	if uint64(n) > maxBatch {
		return nil, nil, failf(codeInvalid, "n = %d exceeds %d", uint64(n), maxBatch)
	}
	if lens == nil {
		return nil, nil, failf(codeInvalid, "NULL length array")
	}
	l := unsafe.Slice(lens, int(n))
	var total uint64
	for i := range l {
		if uint64(l[i]) > maxLen {
			return nil, nil, failf(codeInvalid, "length of item %d exceeds DRYDB_MAX_LEN", i)
		}
		total += uint64(l[i])
	}
	all, ok := in(p, C.size_t(total))
	if !ok {
		return nil, nil, badLen(what, p, C.size_t(total))
	}
	return l, all, codeOK
}

//export drydb_builder_append_many
func drydb_builder_append_many(h C.uintptr_t, n C.size_t, keys *C.uint8_t, klens *C.size_t, vals *C.uint8_t, vlens *C.size_t) (rc C.int) {
	defer guard(&rc)
	t, rc := getTBuilder(h)
	if rc != codeOK {
		return rc
	}
	defer t.unlock()
	return pairs(n, keys, klens, vals, vlens, func(i int, k, v []byte) C.int {
		return failItem(t.tb.Append(k, v), i)
	})
}

// failItem is fail for item i of a batch call. The engine's message names
// the row by its number in the table; the item number says which of this
// call's rows that is (those before it were added).
func failItem(err error, i int) C.int {
	rc := fail(err)
	if rc != codeOK {
		setErrmsg(fmt.Sprintf("%v (item %d of this call)", err, i))
	}
	return rc
}

//export drydb_builder_index_add
func drydb_builder_index_add(h C.uintptr_t, ikey *C.uint8_t, iklen C.size_t, pk *C.uint8_t, pklen C.size_t) (rc C.int) {
	defer guard(&rc)
	x, rc := getIBuilder(h)
	if rc != codeOK {
		return rc
	}
	defer x.unlock()
	k, p, rc := in2("index key", ikey, iklen, "primary key", pk, pklen)
	if rc != codeOK {
		return rc
	}
	return fail(x.ib.Add(k, p))
}

//export drydb_builder_index_add_many
func drydb_builder_index_add_many(h C.uintptr_t, n C.size_t, ikeys *C.uint8_t, iklens *C.size_t, pks *C.uint8_t, pklens *C.size_t) (rc C.int) {
	defer guard(&rc)
	x, rc := getIBuilder(h)
	if rc != codeOK {
		return rc
	}
	defer x.unlock()
	return pairs(n, ikeys, iklens, pks, pklens, func(i int, k, p []byte) C.int {
		return failItem(x.ib.Add(k, p), i)
	})
}

//export drydb_builder_build_file
func drydb_builder_build_file(h C.uintptr_t, path *C.char) C.int {
	return call(h, getBuilder, (*builderObj).unlock, func(bo *builderObj) C.int {
		p, ok := cname(path)
		if !ok {
			return failf(codeInvalid, "drydb_builder_build_file: NULL path")
		}
		_, err := bo.b.BuildToFile(p)
		return fail(err)
	})
}

// cWriter collects the built image in C memory, so the caller gets it
// without a second copy out of the Go heap.
type cWriter struct {
	p      unsafe.Pointer
	n, cap int
	oom    bool
}

func (w *cWriter) Write(b []byte) (int, error) {
	if w.n+len(b) > w.cap {
		c := max(w.cap*2, 1<<16)
		for c < w.n+len(b) {
			c *= 2
		}
		p := C.realloc(w.p, C.size_t(c))
		if p == nil {
			w.oom = true
			return 0, errNoMem
		}
		w.p, w.cap = p, c
	}
	copy(unsafe.Slice((*byte)(w.p), w.cap)[w.n:], b)
	w.n += len(b)
	return len(b), nil
}

type noMemError struct{}

func (noMemError) Error() string { return "drydb: out of memory" }

var errNoMem error = noMemError{}

//export drydb_builder_build_memory
func drydb_builder_build_memory(h C.uintptr_t, out **C.uint8_t, n *C.size_t) C.int {
	return call(h, getBuilder, (*builderObj).unlock, func(bo *builderObj) C.int {
		if out == nil || n == nil {
			return failf(codeInvalid, "drydb_builder_build_memory: NULL out-pointer")
		}
		w := &cWriter{}
		if _, err := bo.b.BuildTo(w); err != nil {
			C.free(w.p)
			if w.oom {
				return failf(codeNoMem, "%v", err)
			}
			return fail(err)
		}
		setPtr(out, (*C.uint8_t)(w.p))
		*n = C.size_t(w.n)
		return codeOK
	})
}

//export drydb_builder_free
func drydb_builder_free(h C.uintptr_t) (rc C.int) {
	defer guard(&rc)
	if h == 0 {
		return codeOK
	}
	o, code := lookup(uintptr(h), kindBuilder)
	if code == codeClosed {
		return codeOK
	}
	if code != codeOK {
		return handleErr(code, kindBuilder)
	}
	bo := o.(*builderObj)
	if !freeHandle(uintptr(h)) {
		return codeOK
	}
	bo.mu.Lock()
	defer bo.mu.Unlock() // not unlock: freeing does not touch the base
	bo.dead = true
	for _, k := range bo.kids {
		freeHandle(k)
	}
	bo.kids = nil
	if bo.base != nil {
		C.drydb__ver_release(bo.base.cver, bo.base.gen) // a no-op once the base closed
	}
	return fail(bo.b.Close())
}
