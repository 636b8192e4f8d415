package main

// Secondary indexes: the drydb_index_* exports of drydb.h.

/*
#include "cdefs.h"
*/
import "C"

import (
	"runtime/debug"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

type indexObj struct {
	d   *dbObj
	tbl *tableObj
	ix  *engine.Index
	enc keyenc.Encoding
}

// leave ends a call on the index (call's leave): its database is left.
func (x *indexObj) leave() { x.d.leave() }

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

//export drydb_index_open
func drydb_index_open(h C.uintptr_t, name *C.char, out *C.uintptr_t) C.int {
	return call(h, getTable, (*tableObj).leave, func(t *tableObj) C.int {
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
	})
}

//export drydb_index_info
func drydb_index_info(h C.uintptr_t, out *C.struct_drydb_index_info) C.int {
	return call(h, getIndex, (*indexObj).leave, func(x *indexObj) C.int {
		if out == nil {
			return failf(codeInvalid, "drydb_index_info: NULL out")
		}
		*out = C.struct_drydb_index_info{}
		keyDesc(x.enc, &out.key_kind, &out.nparts, &out.parts)
		out.entries = C.uint64_t(x.ix.Len())
		if x.ix.Unique() {
			out.unique = 1
		}
		return codeOK
	})
}

//export drydb_index_get
func drydb_index_get(h C.uintptr_t, ikey *C.uint8_t, iklen C.size_t, pk **C.uint8_t, pklen *C.size_t, val **C.uint8_t, vlen *C.size_t) (rc C.int) {
	defer guard(&rc)
	x, rc := getIndex(h)
	if rc != codeOK {
		return rc
	}
	defer x.leave()
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
	defer x.leave()
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
