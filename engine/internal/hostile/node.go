package hostile

import (
	"encoding/binary"

	f "github.com/drydb/drydb/engine/internal/format"
)

// node gives the positions of a page's fields (a plain page or a decoded
// leaf block), by engine/internal/format's layout, so that edits can name
// a field and write any value into it. The positions are those of the valid
// file the node was parsed from: callers take them before editing.
type node []byte

var le = binary.LittleEndian

func (p node) kind() byte  { return p[f.PgType] & f.PgTypeMask }
func (p node) n() int      { return int(le.Uint16(p[f.PgN:])) }
func (p node) array() bool { return p.kind() == f.PageLeaf8 || p.kind() == f.PageBranch8 }
func (p node) leaf() bool  { return p.kind() == f.PageLeaf || p.kind() == f.PageLeaf8 }

// slotPos is where slot i lies (slotted pages and leaf8 pages).
func (p node) slotPos(i int) int {
	if p.array() {
		return f.PageHeaderSize + 8*p.n() + f.SlotSize*i
	}
	return f.PageHeaderSize + f.SlotSize*i
}

func (p node) slot(i int) int { return int(le.Uint16(p[p.slotPos(i):])) }

// keyPos returns where key i lies and its length (leaf keys, or branch
// separators; entry 0 of a slotted branch has an empty key).
func (p node) keyPos(i int) (int, int) {
	if p.array() {
		return f.PageHeaderSize + 8*i, 8
	}
	o := p.slot(i)
	if p.leaf() {
		return o + f.LeafEntryHeader, int(le.Uint16(p[o:]))
	}
	return o + f.BranchEntryHdr, int(le.Uint16(p[o+16:]))
}

// klenPos is the position of a slotted entry's key length (-1 for key-array pages).
func (p node) klenPos(i int) int {
	if p.array() {
		return -1
	}
	if p.leaf() {
		return p.slot(i)
	}
	return p.slot(i) + 16
}

// vlenPos is the position of leaf entry i's value length.
func (p node) vlenPos(i int) int {
	if p.array() {
		return p.slot(i)
	}
	return p.slot(i) + 2
}

// valuePos returns where leaf entry i's value (or overflow reference) lies,
// its stored length, and whether it is an overflow reference.
func (p node) valuePos(i int) (int, int, bool) {
	vp := p.vlenPos(i)
	vl := le.Uint16(p[vp:])
	s := vp + 2
	if !p.array() {
		kl := int(le.Uint16(p[p.slot(i):]))
		s = p.slot(i) + f.LeafEntryHeader + kl
	}
	if vl&f.OverflowFlag != 0 {
		return s, f.OverflowRefSize, true
	}
	return s, int(vl), false
}

func (p node) childPos(i int) int {
	if p.array() {
		return f.PageHeaderSize + 8*p.n() + 8*i
	}
	return p.slot(i)
}

func (p node) beforePos(i int) int {
	if p.array() {
		return f.PageHeaderSize + 16*p.n() + 8*i
	}
	return p.slot(i) + 8
}

func (p node) child(i int) uint64 { return le.Uint64(p[p.childPos(i):]) }
