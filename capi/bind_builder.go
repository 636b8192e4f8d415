package main

// The builder calls of the bindings' private ABI (drydb__builder_*,
// declared in capi/drydb_bindings.h, not in drydb.h): what a binding that
// buffers rows and adds index entries with them needs.

/*
#include "cdefs.h"
*/
import "C"

import (
	"unsafe"

	"github.com/drydb/drydb/engine"
)

// drydb__builder_append_row is drydb_builder_append together with n entries
// of the table's indexes (index builder handles ibs[i], index keys
// concatenated in ikeys with lengths iklens), all or nothing: a refused row
// or entry adds nothing (engine.TableBuilder.AppendRow). The bindings' index
// functions add through it. Not in drydb.h: a binding's concern.
//
//export drydb__builder_append_row
func drydb__builder_append_row(h C.uintptr_t, key *C.uint8_t, klen C.size_t, val *C.uint8_t, vlen C.size_t, n C.size_t, ibs *C.uintptr_t, ikeys *C.uint8_t, iklens *C.size_t) (rc C.int) {
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
	var entries []engine.IndexEntry
	if n > 0 {
		if ibs == nil {
			return failf(codeInvalid, "drydb__builder_append_row: NULL index builders")
		}
		l, all, rc := concat("index keys", n, ikeys, iklens)
		if rc != codeOK {
			return rc
		}
		for i, h := range unsafe.Slice(ibs, int(n)) {
			o, code := lookup(uintptr(h), kindIBuilder)
			if code != codeOK {
				return handleErr(code, kindIBuilder)
			}
			entries = append(entries, engine.IndexEntry{Index: o.(*ibuilderObj).ib, Key: all[:l[i]]})
			all = all[l[i]:]
		}
	}
	return fail(t.tb.AppendRow(k, v, entries...))
}

// drydb__builder_key_limit gives the longest key the table accepts, so a
// binding that buffers rows refuses a longer one at the call that gives it.
// Not in drydb.h.
//
//export drydb__builder_key_limit
func drydb__builder_key_limit(h C.uintptr_t, out *C.size_t) C.int {
	return call(h, getTBuilder, (*tbuilderObj).unlock, func(t *tbuilderObj) C.int {
		if out == nil {
			return failf(codeInvalid, "drydb__builder_key_limit: NULL out")
		}
		*out = C.size_t(t.tb.MaxKeySize())
		return codeOK
	})
}
