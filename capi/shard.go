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
	return writeManifest("drydb_write_range_manifest", engine.RangeManifest, path, shards, n)
}

// writeManifest writes the manifest describe makes of the n shards.
func writeManifest(fn string, describe func(dir string, shards []string) (*engine.Manifest, error), path *C.char, shards **C.char, n C.size_t) C.int {
	if path == nil || shards == nil && n > 0 {
		return failf(codeInvalid, "%s: NULL path or shards", fn)
	}
	if n == 0 || n > 1<<20 {
		return failf(codeInvalid, "%s: %d shards (1 to %d)", fn, uint64(n), 1<<20)
	}
	names := make([]string, n)
	for i, p := range unsafe.Slice(shards, int(n)) {
		if p == nil {
			return failf(codeInvalid, "%s: shard %d is NULL", fn, i)
		}
		names[i] = C.GoString(p)
	}
	m := C.GoString(path)
	man, err := describe(filepath.Dir(m), names)
	if err != nil {
		return fail(err)
	}
	return fail(engine.WriteManifest(m, man))
}

// drydb_write_hash_manifest: as drydb_write_range_manifest, for shards
// holding hash slots (engine.HashManifest).
//
//export drydb_write_hash_manifest
func drydb_write_hash_manifest(path *C.char, shards **C.char, n C.size_t) (rc C.int) {
	defer guard(&rc)
	return writeManifest("drydb_write_hash_manifest", engine.HashManifest, path, shards, n)
}

// drydb_shard_slots: builders in other languages (the Spark writer) route
// rows to hash shards with the engine's own rule (engine.HashSlot), not a
// copy of it.
//
//export drydb_shard_slots
func drydb_shard_slots(keys *C.uint8_t, lens *C.size_t, n C.size_t, slots C.uint32_t, out *C.uint32_t) (rc C.int) {
	defer guard(&rc)
	if n > 0 && (lens == nil || out == nil) || slots == 0 {
		return failf(codeInvalid, "drydb_shard_slots: NULL lens or out, or 0 slots")
	}
	if n == 0 {
		return 0
	}
	ls, res := unsafe.Slice(lens, int(n)), unsafe.Slice(out, int(n))
	var total uint64
	for _, l := range ls {
		total += uint64(l)
	}
	if total > 0 && keys == nil {
		return failf(codeInvalid, "drydb_shard_slots: NULL keys")
	}
	var buf []byte
	if total > 0 {
		buf = unsafe.Slice((*byte)(unsafe.Pointer(keys)), total)
	}
	for i, l := range ls {
		res[i] = C.uint32_t(engine.HashSlot(buf[:l], int(slots)))
		buf = buf[l:]
	}
	return 0
}
