package main

/*
#include "cdefs.h"
*/
import "C"

import "runtime/debug"

// The host's GOGC/GOMEMLIMIT environment is read once at load time, so
// these are the only way for a host to tune the runtime afterwards.

//export drydb_set_memory_limit
func drydb_set_memory_limit(bytes C.int64_t, old *C.int64_t) (rc C.int) {
	defer guard(&rc)
	prev := debug.SetMemoryLimit(int64(bytes)) // negative: read only
	if old != nil {
		*old = C.int64_t(prev)
	}
	return codeOK
}

//export drydb_set_gc_percent
func drydb_set_gc_percent(percent C.int, old *C.int) (rc C.int) {
	defer guard(&rc)
	prev := debug.SetGCPercent(int(percent))
	if old != nil {
		*old = C.int(prev)
	}
	return codeOK
}
