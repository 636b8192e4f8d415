package engine

import (
	"bytes"
	"encoding/binary"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Accessors for a node (a plain page or a decoded leaf block). They assume
// the node passed checkNode, which validated every offset they use, so they
// can index without further checks.

func nodeN(p []byte) int     { return int(binary.LittleEndian.Uint16(p[f.PgN:])) }
func nodeLevel(p []byte) int { return int(p[f.PgLevel]) }
func slotOff(p []byte, i int) int {
	return int(binary.LittleEndian.Uint16(p[f.PageHeaderSize+2*i:]))
}

func leafKey(p []byte, i int) []byte {
	o := slotOff(p, i)
	kl := int(binary.LittleEndian.Uint16(p[o:]))
	return p[o+f.LeafEntryHeader : o+f.LeafEntryHeader+kl : o+f.LeafEntryHeader+kl]
}

// leafVal returns the inline value, or the overflow reference and true.
func leafVal(p []byte, i int) ([]byte, bool) {
	o := slotOff(p, i)
	kl := int(binary.LittleEndian.Uint16(p[o:]))
	vl := binary.LittleEndian.Uint32(p[o+2:])
	s := o + f.LeafEntryHeader + kl
	if vl&f.OverflowFlag != 0 {
		return p[s : s+f.OverflowRefSize : s+f.OverflowRefSize], true
	}
	return p[s : s+int(vl) : s+int(vl)], false
}

func branchChild(p []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(p[slotOff(p, i):])
}
func branchBefore(p []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(p[slotOff(p, i)+8:])
}
func branchKey(p []byte, i int) []byte {
	o := slotOff(p, i)
	kl := int(binary.LittleEndian.Uint16(p[o+16:]))
	return p[o+f.BranchEntryHdr : o+f.BranchEntryHdr+kl]
}

// leafSearch returns the first position whose key is >= key, and whether
// that key equals key.
func leafSearch(p []byte, key []byte) (int, bool) {
	lo, hi := 0, nodeN(p)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(leafKey(p, m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < nodeN(p) && bytes.Equal(leafKey(p, lo), key)
}

// branchSearch returns the child that may hold key: the last entry whose
// separator is <= key (entry 0 when none is).
func branchSearch(p []byte, key []byte) int {
	lo, hi := 1, nodeN(p)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(branchKey(p, m), key) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// branchRow returns the child holding row n of the subtree (rows counted
// from the node's first row): the last entry whose before count is <= n.
func branchRow(p []byte, n uint64) int {
	lo, hi := 1, nodeN(p)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if branchBefore(p, m) <= n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// checkNode validates a node's structure so that the accessors above can
// never index out of range: entry count, slot offsets, lengths, key order
// within the node, level, and overflow references inside the file. It runs
// once per page per process (plain files) or once per block decode.
func checkNode(p []byte, wantLevel, width int, dataEnd uint64, ps int) string {
	if len(p) < f.PageHeaderSize {
		return "short page"
	}
	typ := p[f.PgType]
	lvl := int(p[f.PgLevel])
	if lvl != wantLevel {
		return "wrong level"
	}
	if (lvl == 0) != (typ == f.PageLeaf) || (typ != f.PageLeaf && typ != f.PageBranch) {
		return "bad page type"
	}
	n := nodeN(p)
	if n == 0 || f.PageHeaderSize+n*f.SlotSize > len(p) {
		return "bad entry count"
	}
	slotEnd := f.PageHeaderSize + n*f.SlotSize
	var prev []byte
	for i := 0; i < n; i++ {
		o := slotOff(p, i)
		var k []byte
		if typ == f.PageLeaf {
			if o < slotEnd || o+f.LeafEntryHeader > len(p) {
				return "slot out of range"
			}
			kl := int(binary.LittleEndian.Uint16(p[o:]))
			vl := binary.LittleEndian.Uint32(p[o+2:])
			vlen := int(vl &^ f.OverflowFlag)
			if vl&f.OverflowFlag != 0 {
				if vlen != f.OverflowRefSize {
					return "bad overflow reference"
				}
			}
			if o+f.LeafEntryHeader+kl+vlen > len(p) {
				return "entry out of range"
			}
			k = leafKey(p, i)
			if width != 0 && len(k) != width {
				return "key of the wrong width"
			}
			if vl&f.OverflowFlag != 0 {
				ref, _ := leafVal(p, i)
				pg, ln := binary.LittleEndian.Uint64(ref), binary.LittleEndian.Uint64(ref[8:])
				if pg == 0 || pg >= dataEnd/uint64(ps) || ln > dataEnd-pg*uint64(ps) {
					return "overflow reference out of range"
				}
			}
		} else {
			if o < slotEnd || o+f.BranchEntryHdr > len(p) {
				return "slot out of range"
			}
			kl := int(binary.LittleEndian.Uint16(p[o+16:]))
			if o+f.BranchEntryHdr+kl > len(p) {
				return "entry out of range"
			}
			if i == 0 {
				if branchBefore(p, 0) != 0 {
					return "first child count"
				}
				continue
			}
			if i > 1 && branchBefore(p, i) <= branchBefore(p, i-1) || i == 1 && branchBefore(p, 1) == 0 {
				return "row counts out of order"
			}
			k = branchKey(p, i)
			if width != 0 && len(k) != width {
				return "separator of the wrong width"
			}
		}
		if i > 0 && prev != nil && bytes.Compare(prev, k) >= 0 {
			return "keys out of order"
		}
		prev = k
	}
	return ""
}

// Fast paths for trees whose keys are all 8 bytes (int64, uint64 and float64
// tables, written without separator truncation): comparing big-endian
// integers instead of calling bytes.Compare.

func key8(p []byte, o int) uint64 { return binary.BigEndian.Uint64(p[o:]) }

func leafSearch8(p []byte, k uint64) (int, bool) {
	n := nodeN(p)
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if key8(p, slotOff(p, m)+f.LeafEntryHeader) < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < n && key8(p, slotOff(p, lo)+f.LeafEntryHeader) == k
}

func branchSearch8(p []byte, k uint64) int {
	lo, hi := 1, nodeN(p)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if key8(p, slotOff(p, m)+f.BranchEntryHdr) <= k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}
