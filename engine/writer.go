package engine

import (
	"bytes"
	"fmt"
	"io"
	"math/bits"

	f "github.com/drydb/drydb/engine/internal/format"
	"github.com/drydb/drydb/engine/keyenc"
)

// out tracks the position in the file being written. Pages are written at
// page-aligned positions; compressed leaf blocks at any byte offset.
type out struct {
	w        io.Writer
	off      uint64
	pageSize int
	zero     []byte
	err      error
}

func (o *out) write(b []byte) {
	if o.err != nil {
		return
	}
	n, err := o.w.Write(b)
	o.off += uint64(n)
	if err != nil {
		o.err = fmt.Errorf("drydb: writing: %w", err)
	}
}

// pad writes zeros up to the next page boundary.
func (o *out) pad() {
	if r := o.off % uint64(o.pageSize); r != 0 {
		o.write(o.zero[:uint64(o.pageSize)-r])
	}
}

func (o *out) pgno() uint64 { return o.off / uint64(o.pageSize) }

// sep is one entry of the level being built: a child node, the separator key
// that precedes it, and the number of rows below it.
type sep struct {
	key   []byte
	child uint64
	rows  uint64
}

// treeWriter streams sorted rows into leaves and then builds the branch
// levels bottom-up. Leaves are written contiguously so that leaf links are
// known when a leaf is written (next = this page + 1), except for the last
// leaf, which is held back until the end.
type treeWriter struct {
	o        *out
	ps       int
	name     string          // for error messages: `table "x"` or `index "x"`
	enc      keyenc.Encoding // the keys' encoding, to show a key decoded in errors
	codec    *blockCodec
	pending  []byte // the leaf being filled
	held     []byte // a finished leaf waiting for its successor (plain trees)
	heldSep  sep
	n        int
	free     int // entries are placed from here downwards
	lastKey  []byte
	firstKey []byte
	level    []sep
	sepArena []byte
	rows     uint64
	leaves   uint64
	prevLeaf uint64
	first    uint64
	leafRows uint64
	pages    uint64
	ovfBase  uint64 // page number of the first overflow page (blob file start)
	k8       bool   // 8-byte keys: key-array pages, whole keys as separators
	keys8    []byte // leaf8: keys of the leaf being filled
	slots8   []uint16
	keyBuf   []byte
	hash     *hashBuilder // the table's hash index being collected, or nil
	// afterCopy: the last leaf was copied as a block whose last key is not
	// known (merge.go); the next row's whole key is its separator.
	afterCopy bool
}

func newTreeWriter(o *out, name string, codec *blockCodec) *treeWriter {
	t := &treeWriter{o: o, ps: o.pageSize, name: name, codec: codec}
	t.pending = make([]byte, t.ps)
	t.held = make([]byte, t.ps)
	t.first = o.pgno()
	t.reset()
	return t
}

func (t *treeWriter) reset() {
	clear(t.pending)
	t.n = 0
	t.free = t.ps
	t.leafRows = 0
}

// add appends one row. val is either the inline value or, with isRef, an
// overflow reference (pgno relative to the blob file, length, crc).
func (t *treeWriter) add(key, val []byte, isRef bool) error {
	afterCopy := t.afterCopy
	t.afterCopy = false
	if t.rows > 0 && !afterCopy {
		if c := bytes.Compare(key, t.lastKey); c <= 0 {
			if c == 0 {
				return fmt.Errorf("%w: %s has key %s twice", ErrDuplicateKey, t.name, showKey(t.enc, key))
			}
			return fmt.Errorf("%w: %s: keys out of order at %s", ErrInvalid, t.name, quoteKey(key))
		}
	}
	if t.k8 {
		return t.add8(key, val, isRef)
	}
	size := f.LeafEntryHeader + len(key) + len(val)
	if t.n > 0 && !slottedFits(t.n, t.free, size) {
		if err := t.finishLeaf(); err != nil {
			return err
		}
	}
	if t.n == 0 {
		// The separator in front of this leaf: the shortest prefix of its
		// first key that is still greater than the previous leaf's last key.
		s := key
		if t.rows > 0 {
			if !t.k8 && !afterCopy {
				c := commonPrefix(t.lastKey, key)
				s = key[:c+1]
			}
		} else {
			s = nil
		}
		t.firstKey = t.saveSep(s)
	}
	t.free -= size
	p := t.pending
	f.PutU16(p, f.PageHeaderSize+t.n*f.SlotSize, uint16(t.free))
	f.PutU16(p, t.free, uint16(len(key)))
	vl := uint16(len(val))
	if isRef {
		vl |= f.OverflowFlag
		// rebase the overflow page number onto the file
		ref := p[t.free+f.LeafEntryHeader+len(key):]
		copy(ref, val)
		f.PutU64(ref, 0, f.U64(val, 0)+t.ovfBase)
	} else {
		copy(p[t.free+f.LeafEntryHeader+len(key):], val)
	}
	f.PutU16(p, t.free+2, vl)
	copy(p[t.free+f.LeafEntryHeader:], key)
	t.n++
	t.leafRows++
	t.rows++
	t.lastKey = append(t.lastKey[:0], key...)
	return nil
}

// add8 places a row in a leaf8 page: the key goes to the key array (laid
// out when the leaf is finished), the value from the end of the page.
func (t *treeWriter) add8(key, val []byte, isRef bool) error {
	size := f.Leaf8EntryHeader + len(val)
	if t.n > 0 && t.free-size < f.PageHeaderSize+(t.n+1)*(8+f.SlotSize) {
		if err := t.finishLeaf(); err != nil {
			return err
		}
	}
	if t.n == 0 {
		t.firstKey = t.saveSep(key)
		if t.rows == 0 {
			t.firstKey = nil
		}
	}
	t.free -= size
	p := t.pending
	vl := uint16(len(val))
	copy(p[t.free+f.Leaf8EntryHeader:], val)
	if isRef {
		vl |= f.OverflowFlag
		ref := p[t.free+f.Leaf8EntryHeader:]
		f.PutU64(ref, 0, f.U64(val, 0)+t.ovfBase)
	}
	f.PutU16(p, t.free, vl)
	t.keys8 = append(t.keys8, key...)
	t.slots8 = append(t.slots8, uint16(t.free))
	t.n++
	t.leafRows++
	t.rows++
	t.lastKey = append(t.lastKey[:0], key...)
	return nil
}

// slottedFits reports whether a slotted page of n entries whose entries
// start at free takes one more entry of size bytes, with its slot and head.
func slottedFits(n, free, size int) bool {
	return free-size >= f.PageHeaderSize+f.HeadsHeader+(n+1)*(f.SlotSize+f.HeadSize)
}

// putHeads writes the heads area (format.PgHeads) of a slotted page of n
// entries, whose keys from entry `from` on key(i) returns, and flags it.
// The keys are sorted, so the prefix they all share is the one the first
// and the last share.
func putHeads(p []byte, n, from int, key func(int) []byte) {
	o := f.PageHeaderSize + n*f.SlotSize
	prefix := 0
	if n > from {
		prefix = min(commonPrefix(key(from), key(n-1)), 0xffff)
	}
	f.PutU16(p, o, uint16(prefix))
	f.PutU16(p, o+2, 0)
	for i := 0; i < n; i++ {
		var h uint32
		if i >= from {
			h = keyHead(key(i), prefix)
		}
		be.PutUint32(p[o+f.HeadsHeader+f.HeadSize*i:], h)
	}
	p[f.PgType] |= f.PgHeads
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func (t *treeWriter) saveSep(k []byte) []byte {
	if len(t.sepArena)+len(k) > cap(t.sepArena) {
		t.sepArena = make([]byte, 0, max(64<<10, 2*len(k)))
	}
	o := len(t.sepArena)
	t.sepArena = append(t.sepArena, k...)
	return t.sepArena[o:len(t.sepArena):len(t.sepArena)]
}

func (t *treeWriter) finishLeaf() error {
	p := t.pending
	p[f.PgType] = f.PageLeaf
	if t.k8 {
		p[f.PgType] = f.PageLeaf8
		p[f.PgType] |= leaf8Flags(p, t.keys8, t.slots8)
		copy(p[f.PageHeaderSize:], t.keys8)
		so := f.PageHeaderSize + len(t.keys8)
		for i, o := range t.slots8 {
			f.PutU16(p, so+2*i, o)
		}
		t.keys8, t.slots8 = t.keys8[:0], t.slots8[:0]
	}
	p[f.PgLevel] = 0
	f.PutU16(p, f.PgN, uint16(t.n))
	if !t.k8 {
		putHeads(p, t.n, 0, func(i int) []byte { return leafKey(p, i) })
	}
	s := sep{key: t.firstKey, rows: t.leafRows}
	if t.codec != nil {
		s.child = t.o.off
		if t.hash != nil {
			if err := t.hash.addBlock(p, s.child); err != nil {
				return err
			}
		}
		if err := t.codec.writeBlock(t.o, p); err != nil {
			return err
		}
	} else {
		var err error
		if s.child, err = t.holdLeaf(); err != nil {
			return err
		}
	}
	t.level = append(t.level, s)
	t.leaves++
	t.reset()
	return t.o.err
}

// holdLeaf makes the pending plain leaf the held one, writing the leaf held
// before now that its successor exists, and returns the page it will take.
func (t *treeWriter) holdLeaf() (uint64, error) {
	p := t.pending
	if t.leaves > 0 {
		at := t.o.pgno()
		f.PutU32(t.held, f.PgNext, uint32(at+1))
		t.writePage(t.held)
		f.PutU32(p, f.PgPrev, uint32(at))
	}
	pg := t.o.pgno()
	if pg >= 1<<32-1 {
		return 0, fmt.Errorf("%w: %s: more than 2^32 pages; use a larger page size", ErrTooLarge, t.name)
	}
	if t.hash != nil {
		t.hash.addLeaf(p, pg)
	}
	t.pending, t.held = t.held, t.pending
	return pg, nil
}

func (t *treeWriter) writePage(p []byte) {
	f.PutU32(p, f.PgCRC, f.CRC(p[4:]))
	t.o.write(p)
	t.pages++
}

// finish writes the held leaf and the branch levels and returns the tree.
func (t *treeWriter) finish() (f.Tree, error) {
	if t.n > 0 {
		if err := t.finishLeaf(); err != nil {
			return f.Tree{}, err
		}
	}
	if t.codec == nil && t.leaves > 0 {
		f.PutU32(t.held, f.PgNext, 0)
		t.writePage(t.held)
	}
	if t.codec != nil {
		t.o.pad()
	}
	tr := f.Tree{Rows: t.rows, Leaves: t.leaves, FirstPage: t.first}
	if t.leaves == 0 {
		tr.LastPage = t.o.pgno()
		return tr, t.o.err
	}
	depth := uint64(1)
	level := t.level
	for len(level) > 1 {
		level = t.buildLevel(level, depth)
		depth++
		if depth > f.MaxDepth {
			return f.Tree{}, fmt.Errorf("%w: %s: tree too deep", ErrTooLarge, t.name)
		}
	}
	tr.Root = level[0].child
	tr.Depth = depth
	tr.LastPage = t.o.pgno()
	return tr, t.o.err
}

// buildLevel packs one level's entries into branch pages (level = height of
// the pages being written, children are at level-1) and returns the next level.
func (t *treeWriter) buildLevel(children []sep, level uint64) []sep {
	if t.k8 {
		return t.buildLevel8(children, level)
	}
	var next []sep
	p := make([]byte, t.ps)
	n, free := 0, t.ps
	var before uint64
	var first sep
	// Heads keep a fan-out of four: entry 0 has no key, so four entries
	// with heads need 16 + 4 + 4*6 + 18 + 3*(18+K) <= P bytes, which holds
	// for every K <= format.MaxKeySize(P) when P >= 176.
	flush := func() {
		p[f.PgType] = f.PageBranch
		p[f.PgLevel] = byte(level)
		f.PutU16(p, f.PgN, uint16(n))
		putHeads(p, n, 1, func(i int) []byte { return branchKey(p, i) })
		first.child = t.o.pgno()
		first.rows = before
		t.writePage(p)
		next = append(next, first)
		clear(p)
		n, free, before = 0, t.ps, 0
	}
	for _, c := range children {
		key := c.key
		if n == 0 {
			key = nil
		}
		size := f.BranchEntryHdr + len(key)
		if n > 0 && !slottedFits(n, free, size) {
			flush()
			key = nil
			size = f.BranchEntryHdr
		}
		if n == 0 {
			first = sep{key: c.key}
		}
		free -= size
		f.PutU16(p, f.PageHeaderSize+n*f.SlotSize, uint16(free))
		f.PutU64(p, free, c.child)
		f.PutU64(p, free+8, before)
		f.PutU16(p, free+16, uint16(len(key)))
		copy(p[free+f.BranchEntryHdr:], key)
		before += c.rows
		n++
	}
	if n > 0 {
		flush()
	}
	return next
}

// buildLevel8 writes branch8 pages: key, child and before arrays.
func (t *treeWriter) buildLevel8(children []sep, level uint64) []sep {
	var next []sep
	per := (t.ps - f.PageHeaderSize) / f.Branch8EntrySize
	p := make([]byte, t.ps)
	for len(children) > 0 {
		m := min(per, len(children))
		// Do not leave a last page with a single child when it can be avoided.
		if rest := len(children) - m; rest == 1 && m > 2 {
			m--
		}
		clear(p)
		p[f.PgType] = f.PageBranch8
		p[f.PgLevel] = byte(level)
		f.PutU16(p, f.PgN, uint16(m))
		var before uint64
		for i, c := range children[:m] {
			copy(p[f.PageHeaderSize+8*i:f.PageHeaderSize+8*i+8], c.key)
			f.PutU64(p, f.PageHeaderSize+8*m+8*i, c.child)
			f.PutU64(p, f.PageHeaderSize+16*m+8*i, before)
			before += c.rows
		}
		f.PutU64(p, f.PgScale, scale8(p[f.PageHeaderSize+8:f.PageHeaderSize+8*m]))
		next = append(next, sep{key: children[0].key, child: t.o.pgno(), rows: before})
		t.writePage(p)
		children = children[m:]
	}
	return next
}

// scale8 returns the interpolation factor of a branch8 page's separators
// (format.PgScale): ceil(2^64 * (m-1) / (last - first)) for m sorted keys,
// 0 when there are fewer than two or they are consecutive (then the factor
// would be 2^64, and the search's own consecutive-key test is exact).
func scale8(keys []byte) uint64 {
	m := uint64(len(keys) / 8)
	if m < 2 {
		return 0
	}
	s := be.Uint64(keys[8*(m-1):]) - be.Uint64(keys)
	if s <= m-1 {
		return 0
	}
	q, r := bits.Div64(m-1, 0, s) // (m-1) < s, so the quotient fits
	if r != 0 {
		q++
	}
	return q
}

// leaf8Flags returns the format.Leaf8Seq and Leaf8Fixed flags that hold for
// a leaf8 page with these keys and entry offsets (entries already in p).
func leaf8Flags(p, keys []byte, slots []uint16) byte {
	n := len(slots)
	if n == 0 {
		return 0
	}
	var fl byte
	// distinct and sorted, so a span of n-1 means consecutive
	if be.Uint64(keys[8*(n-1):])-be.Uint64(keys) == uint64(n-1) {
		fl |= f.Leaf8Seq
	}
	stride := len(p) - int(slots[0])
	fixed := stride >= f.Leaf8EntryHeader
	for i, o := range slots {
		if !fixed {
			break
		}
		fixed = int(o) == int(slots[0])-i*stride && int(le.Uint16(p[o:])) == stride-f.Leaf8EntryHeader
	}
	if fixed {
		fl |= f.Leaf8Fixed
	}
	return fl
}
