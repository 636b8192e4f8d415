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

// The C files of this package are built without unwind tables on Linux
// (-fno-asynchronous-unwind-tables: 10 KB of the size budget). Nothing
// unwinds through them: they throw nothing, call back into no C++, and
// leave a fault by siglongjmp; a debugger's backtrace through one of their
// frames is the cost. Windows keeps them: x64 exception handling needs them.
//
// The C that cgo generates from the preambles is compiled for size, the
// library's own C files -O2 (capi/cdefs.h says how and why); together with
// the cold attribute on setup and error functions (DRYDB__COLD) this keeps
// 3 KB inside the size budget.

/*
#cgo CFLAGS: -I${SRCDIR}/../include -O2
#cgo linux CFLAGS: -fno-asynchronous-unwind-tables
#cgo windows CFLAGS: -DDRYDB_BUILD
#cgo windows LDFLAGS: -l:libwinpthread.a
#include "cdefs.h"
*/
import "C"

// drydb__enter_go does nothing: helpers.c's drydb__warm_threads calls it
// from threads of its own, so that the runtime makes the Ms a host's
// threads will take on their first calls (helpers.c says why).
//
//export drydb__enter_go
func drydb__enter_go() C.int { return 0 }

func main() {}
