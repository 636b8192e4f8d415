package format

import "math/bits"

// Hash indexes (format version 3). A table may carry, after its branch
// pages, a region of hash pages that maps each key to the leaf entry that
// holds it, so that a point get reads one slot, one leaf line and the value
// instead of descending the tree. The tree stays the authority: a reader
// that finds no matching slot asks the tree, so a hash region that lies
// (a crafted file with valid checksums) can only cost time, never an answer.
//
// A hash page is a page header (PgCRC, PgType = PageHash, every other
// header byte zero) followed by 8-byte slots. The region's slot positions
// are numbered across its pages, P/8 to a page; the first HashHeaderSlots
// positions of every page are its header and never hold a slot. A slot is
// a little-endian u64:
//
//	bits  0..15  fingerprint: HashKey(key) & 0xffff
//	bits 16..47  the leaf's page number (never 0, so an empty slot is 0)
//	bits 48..63  the entry's index in the leaf
//
// A compressed table's leaves are blocks at byte offsets, not pages: its
// region starts with HashBlockPages pages that hold the blocks' offsets in
// key order (u64 each, P/16 to a page after the page header), and a slot's
// page field holds a block's ordinal + 1 instead of a page number.
//
// A key's home position is HashHome(HashKey(key), positions); it lies at
// its home or up to MaxProbe positions after it (linear probing, wrapping
// to position 0, header positions skipped), and an empty slot on the way
// means it is absent.
const (
	PageHash        = 5
	HashSlotSize    = 8
	HashHeaderSlots = PageHeaderSize / HashSlotSize
	// HashMaxProbe bounds a table's MaxProbe: a builder that would need
	// more enlarges the region; a catalog that claims more is corrupt.
	HashMaxProbe = 255
	// HashLoad is the builder's target load, in percent of usable slots.
	HashLoad = 75
)

// Hash locates a table's hash region; LastPage == FirstPage (0, 0) means
// the table has none.
type Hash struct {
	FirstPage uint64
	LastPage  uint64 // exclusive
	MaxProbe  uint64
}

// HashBlockPages is the number of block offset pages of a compressed
// table of leaves leaf blocks (0 for a plain table: pass 0).
func HashBlockPages(leaves uint64, pshift uint) uint64 {
	per := pshift - 4
	return (leaves + 1<<per - 1) >> per
}

const (
	hashM1 = 0x9E3779B97F4A7C15
	hashM2 = 0xD6E8FEB86659FD93
)

// HashKey hashes an encoded key. capi/fast.c's hash_key mirrors it (the
// same bytes give the same number on every platform: words are read little
// endian). Eight bytes at a time, each word multiplied in with a fold of
// the 128-bit product; the length seeds it, so that keys that differ only
// in trailing zero bytes differ.
func HashKey(key []byte) uint64 {
	h := uint64(len(key)) * hashM1
	for len(key) >= 8 {
		h = hashMix(h ^ le.Uint64(key))
		key = key[8:]
	}
	if len(key) > 0 {
		var w uint64
		for i := len(key) - 1; i >= 0; i-- {
			w = w<<8 | uint64(key[i])
		}
		h = hashMix(h ^ w)
	}
	return hashMix(h ^ h>>29)
}

func hashMix(x uint64) uint64 {
	hi, lo := bits.Mul64(x, hashM2)
	return hi ^ lo
}

// HashHome is a hash's home position among n (the high bits of h scaled
// to [0, n), no division).
func HashHome(h, n uint64) uint64 {
	hi, _ := bits.Mul64(h, n)
	return hi
}

// HashSlot packs a slot.
func HashSlot(h, page uint64, idx int) uint64 {
	return h&0xffff | page<<16 | uint64(idx)<<48
}

// HashSlotFields unpacks a slot: its fingerprint, leaf page and index.
func HashSlotFields(s uint64) (fp uint16, page uint64, idx int) {
	return uint16(s), s >> 16 & 0xffffffff, int(s >> 48)
}
