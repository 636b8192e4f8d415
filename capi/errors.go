package main

/*
#include "cdefs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"

	"github.com/drydb/drydb/engine"
)

// Status codes; the values are those of include/drydb.h.
const (
	codeOK          = C.DRYDB_OK
	codeNotFound    = C.DRYDB_NOTFOUND
	codeInvalid     = C.DRYDB_INVALID
	codeClosed      = C.DRYDB_CLOSED
	codeBadHandle   = C.DRYDB_BADHANDLE
	codeCorrupt     = C.DRYDB_CORRUPT
	codeVersion     = C.DRYDB_VERSION
	codeKeyTooLarge = C.DRYDB_KEYTOOLARGE
	codeDuplicate   = C.DRYDB_DUPLICATE
	codeBadKey      = C.DRYDB_BADKEY
	codeIO          = C.DRYDB_IO
	codeNoMem       = C.DRYDB_NOMEM
	codeNoTable     = C.DRYDB_NOTABLE
	codeNoIndex     = C.DRYDB_NOINDEX
	codeFilter      = C.DRYDB_FILTER
	codeTooLarge    = C.DRYDB_TOOLARGE
	codeInternal    = C.DRYDB_INTERNAL
)

// codeOf is the one place where engine and OS errors become status codes.
// Order matters: engine sentinels first (they may wrap OS errors), then the
// OS.
func codeOf(err error) int {
	switch {
	case err == nil:
		return codeOK
	case errors.Is(err, engine.ErrNotFound):
		return codeNotFound
	case errors.Is(err, engine.ErrCorrupt):
		return codeCorrupt
	case errors.Is(err, engine.ErrVersion):
		return codeVersion
	case errors.Is(err, engine.ErrKeyTooLarge):
		return codeKeyTooLarge
	case errors.Is(err, engine.ErrDuplicateKey):
		return codeDuplicate
	case errors.Is(err, engine.ErrBadKey):
		return codeBadKey
	case errors.Is(err, engine.ErrClosed):
		return codeClosed
	case errors.Is(err, engine.ErrNoTable):
		return codeNoTable
	case errors.Is(err, engine.ErrNoIndex):
		return codeNoIndex
	case errors.Is(err, engine.ErrUnknownFilter):
		return codeFilter
	case errors.Is(err, engine.ErrTooLarge):
		return codeTooLarge
	case errors.Is(err, engine.ErrInvalid):
		return codeInvalid
	case errors.Is(err, syscall.ENOMEM):
		return codeNoMem
	}
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) || errors.As(err, &errno) {
		return codeIO
	}
	return codeInternal
}

// setErrmsg stores msg as the calling thread's failure detail. The C side
// copies it, so passing Go memory for the duration of the call is allowed.
func setErrmsg(msg string) {
	if msg == "" {
		C.drydb__set_errmsg(nil, 0)
		return
	}
	C.drydb__set_errmsg((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg)))
}

// fail records err for drydb_errmsg and returns its code. NOTFOUND is an
// ordinary status and leaves errmsg alone.
func fail(err error) C.int {
	c := codeOf(err)
	if c != codeNotFound && c != codeOK {
		setErrmsg(err.Error())
	}
	return C.int(c)
}

// failf records a failure detected by this package.
func failf(code int, format string, args ...any) C.int {
	setErrmsg("drydb: " + fmt.Sprintf(format, args...))
	return C.int(code)
}

// handleErr explains a failed handle lookup.
func handleErr(code int, k kind) C.int {
	switch code {
	case codeInvalid:
		return failf(code, "NULL %s handle", k)
	case codeClosed:
		return failf(code, "%s handle is closed", k)
	}
	return failf(code, "not a valid %s handle", k)
}

// faultAddr is implemented by the runtime error that SetPanicOnFault turns
// a memory fault into.
type faultAddr interface{ Addr() uintptr }

// guard ends every export: it turns a panic into DRYDB_INTERNAL (or
// DRYDB_CORRUPT for a fault on the mapping, e.g. a file truncated
// underneath) instead of letting it kill the host process. Use as
// `defer guard(&rc)` with a named result.
func guard(rc *C.int) {
	r := recover()
	if r == nil {
		return
	}
	*rc = recovered(r)
}

// recovered is the status of a recovered panic r (see changed.go).
func recovered(r any) C.int {
	if _, ok := r.(faultAddr); ok {
		return failf(codeCorrupt, "memory fault reading the database (was the file truncated or changed while open?): %v", r)
	}
	if _, ok := r.(runtime.Error); ok {
		if name := changedFile(); name != "" {
			return failf(codeCorrupt, "%s was written to while open (replace a database file by renaming a new one over it): %v", name, r)
		}
	}
	return failf(codeInternal, "internal error: %v\n%s", r, debug.Stack())
}

// tableCall is the single deferred exit of the hot table exports. One defer
// and one return keep Go's open-coded defers (a function with more exits
// times defers falls back to slower deferred records). It restores the
// fault setting, leaves the database and recovers like guard.
type tableCall struct {
	t     *tableObj
	fault bool
}

func (c *tableCall) exit(rc *C.int) {
	if c.t != nil {
		debug.SetPanicOnFault(c.fault)
		c.t.d.leave()
	}
	if r := recover(); r != nil {
		*rc = recovered(r)
	}
}

// enter resolves the table handle, enters its database and arms the fault
// handler; rc is codeOK when the call may proceed.
func (c *tableCall) enter(h C.uintptr_t) C.int {
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	c.t, c.fault = t, debug.SetPanicOnFault(true)
	return codeOK
}

// faults makes memory faults in this call recoverable panics; it returns
// the previous setting for `defer debug.SetPanicOnFault(faults())`.
func faults() bool { return debug.SetPanicOnFault(true) }

// call is the shape of an export on a handle: a panic recovered into a
// status (guard), the handle resolved by get (which enters the object's
// database, or locks its builder), f, and the object left by leave. One
// generic body serves every kind of handle (their objects are pointers:
// one instantiation), so an export is its checks and its work alone
// (-12 KB of library against a prologue in each). Its indirect calls cost
// ~25 ns a call (drydb_at, drydb_table_info measured from C), so exports a
// program calls per row (reads: drydb_at, drydb_index_get,
// drydb_index_count; builder appends and adds) keep the same steps written
// out: `defer guard(&rc)`, the getter, `defer obj.leave()`; the hottest
// reads use tableCall.
func call[T any](h C.uintptr_t, get func(C.uintptr_t) (T, C.int), leave func(T), f func(T) C.int) (rc C.int) {
	defer guard(&rc)
	o, rc := get(h)
	if rc != codeOK {
		return rc
	}
	defer leave(o)
	return f(o)
}
