package main

/*
#include "cdefs.h"
*/
import "C"

import (
	"path/filepath"
	"unsafe"

	"github.com/drydb/drydb/engine"
)

// drydb_write_range_manifest: the manifest's knowledge stays in the engine
// (engine.RangeManifest, engine.WriteManifest); bindings and builders in
// other languages (the Spark writer) call this after writing the shards.
//
//export drydb_write_range_manifest
func drydb_write_range_manifest(path *C.char, shards **C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	if path == nil || shards == nil && n > 0 {
		return failf(codeInvalid, "drydb_write_range_manifest: NULL path or shards")
	}
	if n == 0 || n > 1<<20 {
		return failf(codeInvalid, "drydb_write_range_manifest: %d shards (1 to %d)", uint64(n), 1<<20)
	}
	names := make([]string, n)
	for i, p := range unsafe.Slice(shards, int(n)) {
		if p == nil {
			return failf(codeInvalid, "drydb_write_range_manifest: shard %d is NULL", i)
		}
		names[i] = C.GoString(p)
	}
	m := C.GoString(path)
	man, err := engine.RangeManifest(filepath.Dir(m), names)
	if err != nil {
		return fail(err)
	}
	return fail(engine.WriteManifest(m, man))
}
