// Command capi is libdrydb: the drydb engine exported through the C ABI
// declared in include/drydb.h. Build it with -buildmode=c-shared or
// -buildmode=c-archive.
//
// Rules every export follows, because a Go runtime lives inside a foreign
// process:
//   - Handles given to C are small integers (see handles.go), never Go
//     pointers, so a stale or forged handle is an error code, not a crash.
//   - Nothing returned to C points into Go memory: data comes from the file
//     mapping, the caller's own buffer, or C.malloc memory.
//   - Every export recovers panics (DRYDB_INTERNAL, or DRYDB_CORRUPT for a
//     memory fault on a mapping that shrank underneath us).
//   - Engine errors become status codes in one place: codeOf in errors.go.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O2
#cgo windows CFLAGS: -DDRYDB_BUILD
#cgo windows LDFLAGS: -l:libwinpthread.a
#include "cdefs.h"
*/
import "C"

func main() {}
