package engine

import (
	"encoding/binary"
	"sync/atomic"

	f "github.com/drydb/drydb/engine/internal/format"
)

// tree is the read side of one B+tree (a table or an index). Plain trees
// live in the mapping; a tree with a codec keeps its leaves in blocks that
// are decoded into the page cache.
type tree struct {
	db    *DB
	desc  f.Tree
	codec *blockCodec
	name  string
	// k8: every key is 8 bytes and branches hold full 8-byte separators.
	k8 bool
	// cacheID numbers the compressed trees of a DB (from 1) for cache tags.
	cacheID uint16
	// stride is the entry size (2 + value length) shared by every
	// fixed-size leaf (format.Leaf8Fixed) this process has checked so far:
	// 0 before the first, -1 once two differ. It is set before a page's
	// checked bit, so a reader that sees the bit and a stride > 0 knows the
	// page's entries have that size, and finds entry i at P - (i+1)*stride
	// without reading slot 0: at 1M rows that slot's line is a cache miss
	// (it sits at the same offset in every page, which caches map to few sets).
	stride atomic.Int64
}

// noteLeaf records a checked leaf8 page's entry size in stride.
func (t *tree) noteLeaf(p []byte) {
	if p[f.PgType]&f.Leaf8Fixed == 0 {
		return
	}
	s := int64(len(p) - slotOff8(p, 0))
	for {
		old := t.stride.Load()
		switch {
		case old == s || old < 0:
			return
		case old == 0:
			if t.stride.CompareAndSwap(0, s) {
				return
			}
			// another page got there first: compare with it
		default:
			t.stride.Store(-1)
			return
		}
	}
}

// node is a node being read: its bytes and, for a cached leaf, the slot
// whose pin keeps them alive (nil for mapped pages).
type node struct {
	p   []byte
	pin *slot
}

func (t *tree) release(n node) {
	if n.pin != nil {
		n.pin.unpin()
	}
}

// child loads the node that ref points to at level.
func (t *tree) child(ref uint64, level int) (node, error) {
	if level == 0 && t.codec != nil {
		return t.db.cache.get(t, ref)
	}
	p, err := t.page(ref, level)
	return node{p: p}, err
}

// page returns a plain page of this tree. A tree only reads pages inside its
// own region, so a damaged reference cannot make it read another tree's
// pages (which were checked against another tree's key width).
func (t *tree) page(ref uint64, level int) ([]byte, error) {
	// Fast path, small enough to inline: a page of this tree's region that
	// this process has already checked. Regions lie inside the page area
	// (checked at open), so ref indexes the bitmap safely.
	db := t.db
	if ref >= t.desc.FirstPage && ref < t.desc.LastPage && db.verified[ref>>6].Load()&(1<<(ref&63)) != 0 {
		off := ref << db.pshift
		p := db.data[off : off+uint64(db.ps)]
		if int(p[f.PgLevel]) == level {
			return p, nil
		}
	}
	return t.pageSlow(ref, level)
}

func (t *tree) pageSlow(ref uint64, level int) ([]byte, error) {
	if ref < t.desc.FirstPage || ref >= t.desc.LastPage {
		return nil, t.corrupt(ref, "page outside the tree's region")
	}
	return t.db.page(ref, level, t)
}

func (t *tree) ovfArea() ovfArea {
	return ovfArea{t.desc.FirstPage, t.desc.LastPage, t.db.pshift}
}

func (t *tree) width() int {
	if t.k8 {
		return 8
	}
	return 0
}

func (t *tree) root() (node, error) {
	return t.child(t.desc.Root, int(t.desc.Depth)-1)
}

// seekLeaf descends to the leaf that holds key (or would) and returns it
// with the row number of its first entry.
func (t *tree) seekLeaf(key []byte) (node, uint64, error) {
	k8 := t.k8 && len(key) == 8 // integer compares on key-array pages
	var k uint64
	if k8 {
		k = binary.BigEndian.Uint64(key)
	}
	var row uint64
	lvl := int(t.desc.Depth) - 1
	ref := t.desc.Root
	for lvl > 0 {
		p, err := t.page(ref, lvl)
		if err != nil {
			return node{}, 0, err
		}
		var i int
		if k8 {
			i = branchSearch8(p, k)
		} else {
			i = branchSearch(p, key)
		}
		row += branchBefore(p, i)
		ref = branchChild(p, i)
		lvl--
	}
	n, err := t.child(ref, 0)
	return n, row, err
}

// search finds key in a leaf: the first position >= key and whether it is equal.
func (t *tree) search(p, key []byte) (int, bool) {
	if t.k8 && len(key) == 8 {
		return leafSearch8(p, binary.BigEndian.Uint64(key))
	}
	return leafSearch(p, key)
}

// rowLeaf descends to the leaf holding row n (n < Rows) and returns it with
// the row number of its first entry.
func (t *tree) rowLeaf(n uint64) (node, uint64, error) {
	var row uint64
	lvl := int(t.desc.Depth) - 1
	ref := t.desc.Root
	for lvl > 0 {
		p, err := t.page(ref, lvl)
		if err != nil {
			return node{}, 0, err
		}
		i := branchRow(p, n-row)
		row += branchBefore(p, i)
		ref = branchChild(p, i)
		lvl--
	}
	nd, err := t.child(ref, 0)
	if err == nil && n-row >= uint64(nodeN(nd.p)) {
		t.release(nd)
		return node{}, 0, t.corrupt(ref, "row counts do not match the leaves")
	}
	return nd, row, err
}

func (t *tree) corrupt(ref uint64, reason string) error {
	if t.codec != nil {
		return corruptAt(int64(ref), "%s: %s", t.name, reason)
	}
	return &CorruptError{Page: ref, Offset: int64(ref) << t.db.pshift, Reason: t.name + ": " + reason}
}

// rank returns the number of keys < key, and whether key is present.
func (t *tree) rank(key []byte) (uint64, bool, error) {
	if t.desc.Depth == 0 {
		return 0, false, nil
	}
	n, row, err := t.seekLeaf(key)
	if err != nil {
		return 0, false, err
	}
	i, found := t.search(n.p, key)
	t.release(n)
	return row + uint64(i), found, nil
}

// boundRow turns a lower bound into the first row inside it, and an upper
// bound into the first row past it.
func (t *tree) boundRow(b Bound, upper bool) (uint64, error) {
	switch b.Kind {
	case Unbounded:
		if upper {
			return t.desc.Rows, nil
		}
		return 0, nil
	case Inclusive, Exclusive:
		r, found, err := t.rank(b.Key)
		if err != nil {
			return 0, err
		}
		// lower inclusive and upper exclusive start at the key itself;
		// lower exclusive and upper inclusive go one past it when present.
		if found && (b.Kind == Exclusive) != upper {
			r++
		}
		return r, nil
	}
	return 0, ErrInvalid
}

func (t *tree) rows(lo, hi Bound) (uint64, uint64, error) {
	a, err := t.boundRow(lo, false)
	if err != nil {
		return 0, 0, err
	}
	b, err := t.boundRow(hi, true)
	if err != nil {
		return 0, 0, err
	}
	if b < a {
		b = a
	}
	return a, b, nil
}

func (t *tree) count(lo, hi Bound) (uint64, error) {
	a, b, err := t.rows(lo, hi)
	return b - a, err
}
