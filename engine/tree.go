package engine

import (
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
	// hash is the table's hash index (hash.go), nil without one.
	hash *hashIndex
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
	if p := t.checked(ref, level); p != nil {
		return p, nil
	}
	return t.pageSlow(ref, level)
}

// checked is the one test that a page may be read without checking it: a
// page of this tree's region whose bit says this process has checked it
// (checksum and checkNode), at the level expected. It returns nil for
// anything else. Small enough to inline (each read of a page pays it), and
// capi/fast.c's page mirrors it. Regions lie inside the page area (checked
// at open, as FirstPage <= LastPage), so ref indexes the bitmap safely.
func (t *tree) checked(ref uint64, level int) []byte {
	db := t.db
	if ref-t.desc.FirstPage < t.desc.LastPage-t.desc.FirstPage && db.verified[ref>>6].Load()&(1<<(ref&63)) != 0 {
		p := db.data[ref<<db.pshift:][:db.ps]
		if int(p[f.PgLevel]) == level {
			return p
		}
	}
	return nil
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

// descent says what a walk from the root looks for.
type descent uint8

const (
	toKey    descent = iota // the leaf that holds a key (or would); rows before it not counted
	toKeyRow                // the same, counting the rows before the leaf
	toRow                   // the leaf that holds row n (n < Rows)
)

// descend is the one walk from the root to a leaf: every read that looks up
// a key or a row (get, pinned get, rank, count, seek, row lookup) starts
// here, except get8's get of a plain key-array tree (see there). It returns the leaf that holds key (or would), or row n with
// toRow, and the number of rows before the leaf's first entry. toKey does
// not count them: the counts sit in another cache line of each branch than
// the keys and children, a miss per level at 1M rows that a get does not
// need. The tree must not be empty (Depth > 0). On key-array trees an
// 8-byte key is compared as an integer.
func (t *tree) descend(key []byte, n uint64, to descent) (node, uint64, error) {
	var row uint64
	ref := t.desc.Root
	lvl := int(t.desc.Depth) - 1
	if to != toRow && t.k8 && len(key) == 8 {
		// Key-array branches get a loop of their own, with t.page and
		// branchSearch8 written out (neither inlines), so that its few
		// live values stay in registers.
		k := be.Uint64(key)
		for ; lvl > 0; lvl-- {
			p := t.checked(ref, lvl)
			if p == nil {
				var err error
				if p, err = t.pageSlow(ref, lvl); err != nil {
					return node{}, 0, err
				}
			}
			i := 0
			if nk := nodeN(p); nk > 1 {
				keys := p[f.PageHeaderSize+8 : f.PageHeaderSize+8*nk] // separators 1..n-1
				if i = scaledGuess(keys, k, le.Uint64(p[f.PgScale:])); i < 0 {
					i = upperBound8(keys, k)
				}
			}
			if to == toKeyRow {
				row += branchBefore(p, i)
			}
			ref = branchChild(p, i)
		}
	}
	for ; lvl > 0; lvl-- { // slotted branches, or a walk by row
		p, err := t.page(ref, lvl)
		if err != nil {
			return node{}, 0, err
		}
		var i int
		if to == toRow {
			i = branchRow(p, n-row)
		} else {
			i = branchSearch(p, key)
		}
		if to != toKey {
			row += branchBefore(p, i)
		}
		ref = branchChild(p, i)
	}
	var nd node
	var err error
	if t.codec != nil {
		nd, err = t.db.cache.get(t, ref)
	} else if nd.p = t.checked(ref, 0); nd.p == nil {
		nd.p, err = t.pageSlow(ref, 0)
	}
	if err == nil && to == toRow && n-row >= uint64(nodeN(nd.p)) {
		t.release(nd)
		return node{}, 0, t.corrupt(ref, "row counts do not match the leaves")
	}
	return nd, row, err
}

// search finds key in a leaf: the first position >= key and whether it is equal.
func (t *tree) search(p, key []byte) (int, bool) {
	if t.k8 && len(key) == 8 {
		return leafSearch8(p, be.Uint64(key))
	}
	return leafSearch(p, key)
}

// get returns the value under key. A plain tree's value points into the
// mapping (pin nil); a compressed tree's leaf stays pinned until Release.
func (t *tree) get(key []byte) (Value, error) {
	if t.desc.Depth == 0 {
		return Value{}, ErrNotFound
	}
	k8 := t.k8 && len(key) == 8
	var nd node
	var i int
	if t.hash != nil {
		var err error
		if nd, i, err = t.hashFind(key); err != nil {
			return Value{}, err
		}
	}
	if nd.p == nil {
		if k8 && t.codec == nil {
			d, err := t.get8(be.Uint64(key))
			return Value{Data: d}, err
		}
		var err error
		if nd, _, err = t.descend(key, 0, toKey); err != nil {
			return Value{}, err
		}
		var found bool
		if k8 {
			i, found = leafSearch8(nd.p, be.Uint64(key))
		} else {
			i, found = leafSearch(nd.p, key)
		}
		if !found {
			t.release(nd)
			return Value{}, ErrNotFound
		}
	}
	if nd.p[f.PgType]&f.Leaf8Fixed != 0 { // a compressed dense table's leaf
		return Value{Data: fixedVal(nd.p, i), pin: nd.pin}, nil
	}
	d, err := t.value(nd.p, i)
	if err != nil {
		t.release(nd)
		return Value{}, err
	}
	return Value{Data: d, pin: nd.pin}, nil
}

// get8 is get on a plain key-array tree, the dense-id shape, in one
// function: descend's key-array loop and the leaf's claims written out. A
// sequence page (format.Leaf8Seq) finds key k at k - key 0, a fixed-size
// page (format.Leaf8Fixed) finds the entry at the size tree.stride
// recorded, and an inline value is sliced in place. Through descend and
// the general leaf helpers the same get measured 1.35-1.7x this one's time
// (BenchmarkGetRandom at 10,000 rows, medians of two runs): the calls, and
// the spills of a function that also serves slotted pages and rows.
func (t *tree) get8(k uint64) ([]byte, error) {
	ref := t.desc.Root
	for lvl := int(t.desc.Depth) - 1; ; lvl-- {
		p := t.checked(ref, lvl)
		if p == nil {
			var err error
			if p, err = t.pageSlow(ref, lvl); err != nil {
				return nil, err
			}
		}
		n := nodeN(p)
		if lvl > 0 {
			i := 0
			if n > 1 {
				keys := p[f.PageHeaderSize+8 : f.PageHeaderSize+8*n] // separators 1..n-1
				if i = scaledGuess(keys, k, le.Uint64(p[f.PgScale:])); i < 0 {
					i = upperBound8(keys, k)
				}
			}
			ref = branchChild(p, i)
			continue
		}
		typ := p[f.PgType]
		var i int
		if typ&f.Leaf8Seq != 0 {
			// key i is key 0 + i (n >= 1)
			d := k - be.Uint64(p[f.PageHeaderSize:])
			if d >= uint64(n) {
				return nil, ErrNotFound
			}
			i = int(d)
		} else {
			var found bool
			if i, found = leafSearch8(p, k); !found {
				return nil, ErrNotFound
			}
		}
		if typ&f.Leaf8Fixed != 0 {
			if s := int(t.stride.Load()); s > 0 { // the page's entry size: see tree.stride
				e := len(p) - (i+1)*s + f.Leaf8EntryHeader
				return p[e : e+s-f.Leaf8EntryHeader : e+s-f.Leaf8EntryHeader], nil
			}
			return fixedVal(p, i), nil
		}
		// the leaf is a key-array page (checkNode requires it of k8 trees)
		o := slotOff8(p, i)
		if vl := le.Uint16(p[o:]); vl&f.OverflowFlag == 0 {
			s := o + f.Leaf8EntryHeader
			return p[s : s+int(vl) : s+int(vl)], nil
		}
		return t.value(p, i)
	}
}

// value returns entry i's value, following an overflow reference.
func (t *tree) value(p []byte, i int) ([]byte, error) {
	v, ovf := leafVal(p, i)
	if ovf {
		return t.db.overflow(v, false)
	}
	return v, nil
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
	n, row, err := t.descend(key, 0, toKeyRow)
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
