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
	// Hash is the table's hash index (format.Hash; HashLast 0: none): a
	// reader probes it as hashFind does, reading a hash page only when
	// its bit in Verified is set, and a slot's leaf as any leaf above. Its
	// slot pages are [HashSlots, HashLast); a compressed table's block
	// offset pages [HashFirst, HashSlots) hold its Leaves blocks' offsets.
	HashFirst, HashSlots, HashLast, HashMaxProbe, Leaves uint64
	// Cache is set for a compressed table: its branch pages are plain and
	// read as above, its leaves are blocks decoded into the page cache,
	// which the reader may search in place while it holds a pin (CacheLayout).
	Cache *CacheLayout
}

// CacheLayout describes the page cache for a reader outside Go that takes
// cache hits itself (capi/fast.c's cache_leaf) and leaves every miss to
// the engine. It follows cache.get: find the tag's hint group, match the
// fingerprint, check the slot's tag, pin (add 1<<32|1 to the pin word;
// a non-positive low half means the slot is being evicted: undo and give
// up; a set top bit: undo and give up, the engine moves hit counts), check
// the tag again, set ref to 1, read the page, unpin (add -1). A slot whose
// tag matches holds a decoded leaf that passed checkNode at level 0.
type CacheLayout struct {
	Mem       unsafe.Pointer // slot i's page is at Mem + i << PageShift
	Words     unsafe.Pointer // slot i's slotWords (pin, tag, ref: three uint64)
	Hints     unsafe.Pointer // hint entries (uint64), groups of HintWays
	HintShift uint           // group = (tag * HintMul) >> HintShift, rounded down to HintWays
	Slots     uint64
	Tag       uint64 // the tree's tag bits: a block at byte offset off has tag Tag | off
}

// Constants of the cache's hint index that a reader outside Go must mirror.
const (
	HintMul  = 0x9E3779B97F4A7C15
	HintWays = hintWays
)

// Layout returns the table's layout (false once the database is closed).
func (t *Table) Layout() (Layout, bool) {
	if t.db.closed.Load() || t.sh != nil { // sharded tables are read through Go only
		return Layout{}, false
	}
	tr := &t.tree
	var cl *CacheLayout
	if t.codec != nil {
		c := t.db.cache
		if c == nil {
			return Layout{}, false
		}
		cl = &CacheLayout{
			Mem:       unsafe.Pointer(unsafe.SliceData(c.mem)),
			Words:     unsafe.Pointer(unsafe.SliceData(c.words)),
			Hints:     unsafe.Pointer(unsafe.SliceData(c.hints)),
			HintShift: c.hintShift,
			Slots:     uint64(c.nslots),
			Tag:       packTag(tr, 0),
		}
	}
	var hashFirst, hashSlots, hashLast, hashProbe uint64
	if hx := tr.hash; hx != nil {
		hashFirst, hashSlots, hashLast, hashProbe = hx.first, hx.slots, hx.last, uint64(hx.maxProbe)
	}
	return Layout{
		Cache:     cl,
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
		HashFirst: hashFirst, HashSlots: hashSlots, HashLast: hashLast, HashMaxProbe: hashProbe, Leaves: tr.desc.Leaves,
	}, true
}
