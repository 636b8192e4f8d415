package engine

import (
	"fmt"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/drydb/drydb/engine/keyenc"
)

// The verified-page bitmap lives outside the Go heap (an anonymous
// mapping), so that a reader outside Go (the C library's lookup fast path,
// see Layout) may test it: C must never hold pointers into Go memory.

func newBitmap(words uint64) ([]atomic.Uint64, error) {
	if words == 0 {
		return nil, nil
	}
	m, err := syscall.Mmap(-1, 0, int(words*8), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("drydb: allocating the page bitmap (%d bytes): %w", words*8, err)
	}
	return unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(unsafe.SliceData(m))), words), nil
}

func freeBitmap(b []atomic.Uint64) {
	if len(b) > 0 {
		syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), len(b)*8))
	}
}

// Layout describes where a plain table's B+tree lies in memory, for a
// reader outside Go that searches it in place: the C library answers
// drydb_get without entering Go when every page on the way has already been
// checked by this engine. Everything it names stays valid until Close.
//
// The reader must follow the engine's rules exactly: pages are read only
// when their bit in Verified is set (the page then passed its checksum and
// checkNode, so every offset inside it is in range), lie in
// [FirstPage, LastPage) and have the level expected; anything else (an
// unchecked page, an overflow value) is left to the engine.
type Layout struct {
	Data      unsafe.Pointer // byte 0 of the file image
	PageShift uint           // page size is 1 << PageShift
	Root      uint64         // root page; Depth levels (0: empty table)
	Depth     uint64
	Rows      uint64 // rows in the tree
	FirstPage uint64 // the tree's pages are [FirstPage, LastPage)
	LastPage  uint64
	Key8      bool           // key-array pages (8-byte keys), else slotted pages
	Verified  unsafe.Pointer // bitmap of checked pages: bit p%64 of uint64 word p/64 (outside the Go heap)
	Encoding  keyenc.Kind
}

// Layout returns the table's layout, or false for a table whose pages are
// not stored plain (compressed or filtered): those are read through the
// engine's cache only.
func (t *Table) Layout() (Layout, bool) {
	if t.codec != nil || t.db.closed.Load() {
		return Layout{}, false
	}
	tr := &t.tree
	return Layout{
		Data:      unsafe.Pointer(unsafe.SliceData(t.db.data)),
		PageShift: t.db.pshift,
		Root:      tr.desc.Root,
		Depth:     uint64(tr.desc.Depth),
		Rows:      tr.desc.Rows,
		FirstPage: tr.desc.FirstPage,
		LastPage:  tr.desc.LastPage,
		Key8:      tr.k8,
		Verified:  unsafe.Pointer(unsafe.SliceData(t.db.verified)),
		Encoding:  t.enc.Kind,
	}, true
}
