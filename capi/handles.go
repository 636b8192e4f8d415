package main

/*
#include "fast.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
)

// A handle is what C holds instead of a pointer: a 64-bit value
//
//	bits 60..63  magic 0xD (never a canonical user-space address)
//	bits 32..59  generation of the slot (28 bits)
//	bits  4..31  slot index (28 bits, at most maxSlots used)
//	bits  0..3   kind
//
// Freeing a slot bumps its generation, so a stale handle is recognised
// (DRYDB_CLOSED) even after the slot is reused, and a handle of the wrong kind
// or one the library never issued is DRYDB_BADHANDLE. Lookups are lock-free:
// two atomic loads.
type kind uint8

const (
	kindDB kind = 1 + iota
	kindTable
	kindIndex
	kindCursor
	kindBuilder
	kindTBuilder
	kindIBuilder
	kindVersion // internal: a version of a database (live.go), never given to C
)

// The bit layout is shared with the C fast path (fast.h), which finds a
// table's fast-path state from its handle without entering Go.
const (
	handleMagic = uintptr(C.DRYDB__H_MAGIC) << 60
	chunkBits   = C.DRYDB__H_CHUNK_BITS
	chunkSize   = 1 << chunkBits
	maxChunks   = C.DRYDB__H_MAX_CHUNKS
	maxSlots    = chunkSize * maxChunks // 16M live handles
	genMask     = 1<<28 - 1
)

// Compile-time checks that fast.h agrees: a negative array length fails.
var (
	_ [kindTable - C.DRYDB__H_KIND_TABLE]struct{}
	_ [C.DRYDB__H_KIND_TABLE - kindTable]struct{}
	_ [C.DRYDB__H_SLOT_SHIFT - 4]struct{}
	_ [4 - C.DRYDB__H_SLOT_SHIFT]struct{}
	_ [C.DRYDB__H_SLOT_BITS - 28]struct{}
	_ [28 - C.DRYDB__H_SLOT_BITS]struct{}
	_ [C.DRYDB__MAX_BATCH - maxBatch]struct{}
	_ [maxBatch - C.DRYDB__MAX_BATCH]struct{}
)

// entry is immutable once published; freeing a slot replaces it.
type entry struct {
	gen  uint32
	kind kind
	obj  any // nil once freed
}

type chunk [chunkSize]atomic.Pointer[entry]

var handles struct {
	chunks [maxChunks]atomic.Pointer[chunk]
	mu     sync.Mutex // serialises allocation and freeing
	free   []uint32   // freed slot indexes
	next   uint32     // first never-used slot
}

func (k kind) String() string {
	switch k {
	case kindDB:
		return "database"
	case kindTable:
		return "table"
	case kindIndex:
		return "index"
	case kindCursor:
		return "cursor"
	case kindBuilder:
		return "builder"
	case kindTBuilder:
		return "table builder"
	case kindIBuilder:
		return "index builder"
	case kindVersion:
		return "version"
	}
	return "unknown"
}

func slotOf(i uint32) *atomic.Pointer[entry] {
	return &handles.chunks[i>>chunkBits].Load()[i&(chunkSize-1)]
}

// newHandle registers obj and returns its handle (0 when the table is full).
func newHandle(k kind, obj any) uintptr {
	handles.mu.Lock()
	defer handles.mu.Unlock()
	var i uint32
	var gen uint32
	if n := len(handles.free); n > 0 {
		i = handles.free[n-1]
		handles.free = handles.free[:n-1]
		gen = (slotOf(i).Load().gen + 1) & genMask
	} else {
		if handles.next >= maxSlots {
			return 0
		}
		i = handles.next
		handles.next++
		if handles.chunks[i>>chunkBits].Load() == nil {
			handles.chunks[i>>chunkBits].Store(new(chunk))
		}
	}
	slotOf(i).Store(&entry{gen: gen, kind: k, obj: obj})
	return handleMagic | uintptr(gen)<<32 | uintptr(i)<<4 | uintptr(k)
}

// lookup resolves h to the object of kind want, or returns a status code.
func lookup(h uintptr, want kind) (any, int) {
	if h == 0 {
		return nil, codeInvalid
	}
	if h&(0xF<<60) != handleMagic || kind(h&0xF) != want {
		return nil, codeBadHandle
	}
	i := uint32(h>>4) & (1<<28 - 1)
	if i >= maxSlots {
		return nil, codeBadHandle
	}
	c := handles.chunks[i>>chunkBits].Load()
	if c == nil {
		return nil, codeBadHandle
	}
	e := c[i&(chunkSize-1)].Load()
	if e == nil {
		return nil, codeBadHandle
	}
	if e.gen != uint32(h>>32)&genMask {
		return nil, codeClosed // stale: the slot was freed (and maybe reused by any kind)
	}
	if e.kind != want {
		// This generation of the slot is another kind of object: the
		// handle's kind bits were changed.
		return nil, codeBadHandle
	}
	if e.obj == nil {
		return nil, codeClosed
	}
	return e.obj, codeOK
}

// freeHandle releases h if it is live; it reports whether this call freed
// it, so that of two racing closers exactly one does the cleanup.
func freeHandle(h uintptr) bool {
	i := uint32(h>>4) & (1<<28 - 1)
	handles.mu.Lock()
	defer handles.mu.Unlock()
	if i >= handles.next {
		return false
	}
	s := slotOf(i)
	e := s.Load()
	if e == nil || e.obj == nil || e.gen != uint32(h>>32)&genMask || e.kind != kind(h&0xF) {
		return false
	}
	s.Store(&entry{gen: e.gen, kind: e.kind})
	handles.free = append(handles.free, i)
	return true
}
