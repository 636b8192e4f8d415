package engine

import (
	"unsafe"

	"github.com/drydb/drydb/engine/keyenc"
)

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
	Verified  unsafe.Pointer // bitmap of checked pages: bit p%64 of uint64 word p/64 (Go memory: pin it, runtime.Pinner, before C keeps it)
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
