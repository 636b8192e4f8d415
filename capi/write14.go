package main

/*
#include "cdefs.h"
*/
import "C"

import "github.com/drydb/drydb/engine"

// DryDB 1.4 output from C (docs/DRYDB14.md, "Writing 1.4 files"): a builder's format, and
// converting a file.

//export drydb_builder_set_format
func drydb_builder_set_format(h C.uintptr_t, format *C.char) C.int {
	return call(h, getBuilder, (*builderObj).unlock, func(bo *builderObj) C.int {
		f, ok := cname(format)
		if !ok {
			return failf(codeInvalid, "drydb_builder_set_format: NULL format")
		}
		return fail(bo.b.SetFormat(f))
	})
}

//export drydb_convert
func drydb_convert(in, out, to *C.char, pageSize C.uint32_t, compression *C.char) (rc C.int) {
	defer guard(&rc)
	i, ok1 := cname(in)
	o, ok2 := cname(out)
	t, ok3 := cname(to)
	if !ok1 || !ok2 || !ok3 {
		return failf(codeInvalid, "drydb_convert: NULL in, out or to")
	}
	comp := ""
	if compression != nil {
		comp = C.GoString(compression)
	}
	return fail(engine.Convert(i, o, &engine.ConvertOptions{To: t, PageSize: int(pageSize), Compression: comp}))
}
