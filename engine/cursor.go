package engine

import (
	"bytes"
	"sync/atomic"
	"unsafe"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Cursor walks the rows of a key range in either direction.
//
// A new cursor is unpositioned. First, Last, Seek, SeekReverse, SeekExact
// and SeekRow position it; Next and Prev move it. Every positioning or
// moving method returns true when the cursor is on a row inside the range,
// and false at either end of the range or on error; after false, Err tells
// the two apart. Key and Value return the current row; their slices are
// valid until the cursor moves or is closed (for plain tables, until the DB
// is closed) and must not be modified.
//
// A cursor belongs to one goroutine. Close it when done: on compressed tables
// it pins the page under it.
type Cursor struct {
	tr      *tree
	closed  *atomic.Bool
	lo, hi  uint64 // the range as rows [lo, hi)
	blo     Bound
	bhi     Bound
	ready   bool
	valid   bool
	err     error
	leaf    node
	idx     int
	n       int
	leafRow uint64
	slots   int          // offset of the leaf's slot array
	arr     bool         // the leaf is a key-array page
	end     int          // Next's fast path stays below this index: min(n, hi-leafRow), 0 when not valid
	sh      *shardCursor // set for a cursor over a sharded table or index (shardcursor.go)
}

func (c *Cursor) init(lo, hi Bound) {
	c.blo, c.bhi = lo, hi
	c.leaf.pin = nil
	if lo.Kind > Exclusive || hi.Kind > Exclusive {
		c.err = ErrInvalid
	}
}

// bounds resolves the key bounds into rows once, on first positioning.
func (c *Cursor) bounds() bool {
	if c.err != nil {
		return false
	}
	if c.closed.Load() {
		c.err = ErrClosed
		return false
	}
	if !c.ready {
		if c.err = c.resolveLo(); c.err != nil {
			return false
		}
		if c.hi, c.err = c.resolveHi(); c.err != nil {
			return false
		}
		c.hi = max(c.hi, c.lo)
		c.ready = true
	}
	return c.ready
}

// resolveLo finds the first row of the range. A key bound descends to its
// leaf, and the cursor keeps that leaf, so that First costs no second descent.
func (c *Cursor) resolveLo() error {
	if c.blo.Kind == Unbounded || c.tr.desc.Depth == 0 {
		c.lo = 0
		return nil
	}
	nd, row, err := c.tr.descend(c.blo.Key, 0, toKeyRow)
	if err != nil {
		return err
	}
	i, found := c.tr.search(nd.p, c.blo.Key)
	if found && c.blo.Kind == Exclusive {
		i++
	}
	c.lo = row + uint64(i)
	c.setLeaf(nd, row)
	return nil
}

// resolveHi finds the row past the end of the range. A short range often
// ends in the leaf where it starts, which resolveLo kept: then no second
// descent is needed. (A key below that leaf's first key gives a row <= lo,
// which bounds() clamps to lo, as the true rank would be.) Without a kept
// leaf (no lower bound: the range starts at row 0) the descent to the upper
// bound's leaf keeps that leaf instead: a short range from the start ends in
// the first leaf, and First then needs no descent of its own (a scan
// crossing into the next shard starts so).
func (c *Cursor) resolveHi() (uint64, error) {
	if c.bhi.Kind == Unbounded || c.tr.desc.Depth == 0 {
		return c.tr.boundRow(c.bhi, true)
	}
	if p := c.leaf.p; p != nil && bytes.Compare(c.bhi.Key, leafKey(p, c.n-1)) <= 0 {
		i, found := c.tr.search(p, c.bhi.Key)
		if found && c.bhi.Kind == Inclusive {
			i++
		}
		return c.leafRow + uint64(i), nil
	}
	if c.leaf.p != nil {
		return c.tr.boundRow(c.bhi, true)
	}
	nd, row, err := c.tr.descend(c.bhi.Key, 0, toKeyRow)
	if err != nil {
		return 0, err
	}
	i, found := c.tr.search(nd.p, c.bhi.Key)
	if found && c.bhi.Kind == Inclusive {
		i++
	}
	c.setLeaf(nd, row)
	return row + uint64(i), nil
}

func (c *Cursor) setLeaf(nd node, row uint64) {
	c.tr.release(c.leaf)
	c.leaf, c.leafRow, c.n = nd, row, nodeN(nd.p)
	c.arr = isArray(nd.p)
	c.slots = f.PageHeaderSize
	if c.arr {
		c.slots += 8 * c.n
	}
}

// seekRow positions the cursor on row r, which must be inside [lo, hi).
func (c *Cursor) seekRow(r uint64) bool {
	if c.leaf.p != nil && r >= c.leafRow && r < c.leafRow+uint64(c.n) {
		c.idx = int(r - c.leafRow)
		c.valid = true
		c.setEnd()
		return true
	}
	c.valid, c.end = false, 0
	nd, row, err := c.tr.descend(nil, r, toRow)
	if err != nil {
		c.err = err
		c.tr.release(c.leaf)
		c.leaf = node{}
		return false
	}
	c.setLeaf(nd, row)
	c.idx = int(r - row)
	c.valid = true
	c.setEnd()
	return true
}

// setEnd bounds Next's fast path by the leaf and the range (hi > the
// current row, so hi > leafRow).
func (c *Cursor) setEnd() {
	c.end = c.n
	if lim := c.hi - c.leafRow; lim < uint64(c.end) {
		c.end = int(lim)
	}
}

func (c *Cursor) moveTo(r uint64, ok bool) bool {
	if !ok || r < c.lo || r >= c.hi {
		c.unposition()
		return false
	}
	return c.seekRow(r)
}

func (c *Cursor) unposition() {
	c.valid, c.end = false, 0
	if c.sh != nil && c.sh.merge() {
		c.sh.cur = -1
	}
}

// First moves to the first row of the range.
func (c *Cursor) First() bool {
	if c.sh != nil {
		return c.shFirst()
	}
	if !c.bounds() {
		return false
	}
	return c.moveTo(c.lo, true)
}

// Last moves to the last row of the range.
func (c *Cursor) Last() bool {
	if c.sh != nil {
		return c.shLast()
	}
	if !c.bounds() {
		return false
	}
	return c.moveTo(c.hi-1, c.hi > c.lo)
}

// Seek moves to the first row whose key is >= key (and inside the range).
func (c *Cursor) Seek(key []byte) bool {
	if c.sh != nil {
		return c.shSeek(key)
	}
	if !c.bounds() {
		return false
	}
	r, _, err := c.tr.rank(key)
	if err != nil {
		c.err = err
		return false
	}
	return c.moveTo(max(r, c.lo), true)
}

// SeekReverse moves to the last row whose key is <= key (and inside the range).
func (c *Cursor) SeekReverse(key []byte) bool {
	if c.sh != nil {
		return c.shSeekReverse(key)
	}
	if !c.bounds() {
		return false
	}
	r, found, err := c.tr.rank(key)
	if err != nil {
		c.err = err
		return false
	}
	if found {
		r++
	}
	r = min(r, c.hi)
	return c.moveTo(r-1, r > 0)
}

// SeekExact moves to the row whose key is key; false if there is none in
// the range.
func (c *Cursor) SeekExact(key []byte) bool {
	if c.sh != nil {
		return c.shSeekExact(key)
	}
	if !c.bounds() {
		return false
	}
	r, found, err := c.tr.rank(key)
	if err != nil {
		c.err = err
		return false
	}
	return c.moveTo(r, found)
}

// SeekRow moves to row n of the table (0-based, in key order; rows outside
// the cursor's range count as absent) in O(log n).
func (c *Cursor) SeekRow(n uint64) bool {
	if c.sh != nil {
		return c.shSeekRow(n)
	}
	if !c.bounds() {
		return false
	}
	return c.moveTo(n, true)
}

// Next moves to the next row.
func (c *Cursor) Next() bool {
	// Fast path (inlined): the next row is in the same leaf and the range.
	if i := c.idx + 1; i < c.end && !c.closed.Load() { // end is 0 unless valid
		c.idx = i
		return true
	}
	return c.nextSlow()
}

func (c *Cursor) nextSlow() bool {
	if !c.valid {
		return c.sh != nil && c.shStep(false)
	}
	if c.closed.Load() {
		c.err, c.valid, c.end = ErrClosed, false, 0
		return false
	}
	if c.moveTo(c.leafRow+uint64(c.idx)+1, true) {
		return true
	}
	return c.sh != nil && c.shCross(false) // a sharded table's next part
}

// Prev moves to the previous row.
func (c *Cursor) Prev() bool {
	if !c.valid {
		return c.sh != nil && c.shStep(true)
	}
	if c.closed.Load() {
		c.err, c.valid, c.end = ErrClosed, false, 0
		return false
	}
	if c.idx > 0 {
		if c.leafRow+uint64(c.idx)-1 < c.lo {
			c.valid, c.end = false, 0
			return c.sh != nil && c.shCross(true) // a sharded table's previous part
		}
		c.idx--
		return true
	}
	r := c.leafRow + uint64(c.idx)
	if c.moveTo(r-1, r > 0) {
		return true
	}
	return c.sh != nil && c.shCross(true)
}

// Valid reports whether the cursor is on a row.
func (c *Cursor) Valid() bool { return c.valid || c.sh != nil && c.shValid() }

// Row returns the current row's number in the table (0-based).
func (c *Cursor) Row() uint64 {
	if c.sh != nil {
		return c.shRow()
	}
	return c.leafRow + uint64(c.idx)
}

// Key returns the current key, or nil when the cursor is not on a row.
func (c *Cursor) Key() []byte {
	if !c.valid {
		if c.sh != nil {
			return c.shKey()
		}
		return nil
	}
	return c.keyAt(c.leaf.p, c.idx)
}

// Value returns the current value, or nil when the cursor is not on a row
// or the value cannot be read (then Err says why and the cursor stops).
func (c *Cursor) Value() []byte {
	// Fast path (inlined): an inline value on a key-array leaf, which
	// passed checkNode, so the reads need no bounds checks.
	if c.arr && c.valid {
		base := unsafe.Pointer(unsafe.SliceData(c.leaf.p))
		o := int(le.Uint16((*[2]byte)(unsafe.Add(base, c.slots+2*c.idx))[:]))
		if vl := int(le.Uint16((*[2]byte)(unsafe.Add(base, o))[:])); vl-1 < f.OverflowFlag-1 {
			return unsafe.Slice((*byte)(unsafe.Add(base, o+f.Leaf8EntryHeader)), vl)
		}
	}
	return c.value()
}

func (c *Cursor) value() []byte {
	if !c.valid {
		if c.sh != nil {
			return c.shValue()
		}
		return nil
	}
	return c.valueAt(c.leaf.p, c.idx)
}

// Err returns the error that stopped the cursor, if any.
func (c *Cursor) Err() error { return c.err }

// Count returns the number of rows in the cursor's range.
func (c *Cursor) Count() (uint64, error) {
	if c.sh != nil {
		return c.shCount()
	}
	if !c.bounds() {
		return 0, c.err
	}
	return c.hi - c.lo, nil
}

// LeafRemaining returns how many rows after the current one share its page
// in the direction given (and stay inside the range). Batch readers of
// compressed tables use it: slices stay valid only while the cursor stays on
// the page that holds them.
func (c *Cursor) LeafRemaining(reverse bool) int {
	if !c.valid {
		return 0
	}
	if reverse {
		r := c.idx
		if lim := c.leafRow + uint64(c.idx) - c.lo; uint64(r) > lim {
			r = int(lim)
		}
		return r
	}
	r := c.n - 1 - c.idx
	if lim := c.hi - 1 - (c.leafRow + uint64(c.idx)); uint64(r) > lim {
		r = int(lim)
	}
	return r
}

// Pinned reports whether the cursor's slices live in the page cache (a
// compressed table) rather than in the mapping.
func (c *Cursor) Pinned() bool { return c.tr.codec != nil || c.sh != nil && c.shPinned() }

// Close releases the cursor's page. Using a closed cursor returns false
// everywhere, with Err returning ErrClosed.
func (c *Cursor) Close() {
	if c.tr == nil {
		return
	}
	if c.sh != nil {
		c.shClose()
	}
	c.tr.release(c.leaf)
	c.leaf = node{}
	c.valid, c.end = false, 0
	c.ready = true
	if c.err == nil {
		c.err = ErrClosed
	}
}

// NextBatch reads up to len(keys) rows starting at the current one, in
// ascending order (or descending with reverse), into keys[i] and, when vals
// is not nil, vals[i], and returns how many it read. With keys nil it reads
// values only, up to len(vals) of them (half the stores per row). The cursor is left on
// the last row read, so Next (or Prev) continues after it. It is the cheap
// way to walk many rows: no call per row. On compressed tables a batch
// stops at the end of the current page, because a page's slices stay valid
// only while the cursor is on it. Check Err after a short batch.
func (c *Cursor) NextBatch(keys, vals [][]byte, reverse bool) int {
	if vals != nil && len(vals) < len(keys) || keys == nil && vals == nil {
		c.err = ErrInvalid
		return 0
	}
	if c.sh != nil && c.sh.merge() {
		return c.shNextBatch(keys, vals, reverse)
	}
	want := len(keys)
	if keys == nil {
		want = len(vals)
	}
	got := 0
	for got < want && c.valid {
		if c.closed.Load() {
			c.err, c.valid, c.end = ErrClosed, false, 0
			break
		}
		p := c.leaf.p
		var from, to, step int // rows of this leaf, in walk order: from, from+step, ... != to
		if !reverse {
			from, to, step = c.idx, c.n, 1
			if lim := c.hi - c.leafRow; lim < uint64(to) {
				to = int(lim)
			}
		} else {
			from, to, step = c.idx, -1, -1
			if c.lo > c.leafRow {
				to = int(c.lo-c.leafRow) - 1
			}
		}
		i := from
		if step == 1 && c.arr && vals != nil {
			var ks [][]byte
			if keys != nil {
				ks = keys[got:]
			}
			got, i = batch8(p, c.slots, i, to, ks, vals[got:want], got)
		}
		for ; i != to && got < want; i += step {
			if keys != nil {
				keys[got] = c.keyAt(p, i)
			}
			if vals != nil {
				if vals[got] = c.valueAt(p, i); vals[got] == nil && c.err != nil {
					return got
				}
			}
			got++
		}
		c.idx = i - step // the last row read
		if got == want || c.tr.codec != nil {
			break
		}
		// this leaf is done: step onto the next row, in the next leaf
		if reverse && !c.Prev() || !reverse && !c.Next() {
			// the range ended: stay on the last row read
			c.valid = c.err == nil && c.leaf.p != nil
			break
		}
	}
	return got
}

// batch8 is NextBatch's fast path: ascending rows from..to-1 of a
// key-array leaf, while values are inline, into keys and vals (which are
// already sliced at got). It returns the new got and the first row it did
// not read. The leaf passed checkNode when it was first read, so every slot
// and every inline entry lies inside it: the loop reads without bounds
// checks, which are most of its cost otherwise.
func batch8(p []byte, slots, from, to int, keys, vals [][]byte, got int) (int, int) {
	base := unsafe.Pointer(unsafe.SliceData(p))
	if keys != nil {
		vals = vals[:len(keys)]
	}
	i, j := from, 0
	if p[f.PgType]&f.Leaf8Fixed != 0 {
		// entry i at slot 0 - i*stride (format.Leaf8Fixed): nothing to read
		o0 := int(le.Uint16((*[2]byte)(unsafe.Add(base, slots))[:]))
		stride := len(p) - o0
		vl := stride - f.Leaf8EntryHeader
		n := min(to-i, len(vals))
		if n <= 0 {
			return got, i
		}
		vs := vals[:n]
		if vl == 0 {
			for j := range vs {
				vs[j] = p[:0:0]
			}
		} else {
			v := unsafe.Add(base, o0-i*stride+f.Leaf8EntryHeader)
			for j := range vs {
				vs[j] = unsafe.Slice((*byte)(v), vl)
				v = unsafe.Add(v, -stride)
			}
		}
		if keys != nil {
			ks := keys[:n]
			k := unsafe.Add(base, f.PageHeaderSize+8*i)
			for j := range ks {
				ks[j] = unsafe.Slice((*byte)(k), 8)
				k = unsafe.Add(k, 8)
			}
		}
		return got + n, i + n
	}
	for ; i < to && j < len(vals); i++ {
		o := int(le.Uint16((*[2]byte)(unsafe.Add(base, slots+2*i))[:]))
		vl := int(le.Uint16((*[2]byte)(unsafe.Add(base, o))[:]))
		if vl&f.OverflowFlag != 0 {
			break // the general loop reads it
		}
		if keys != nil {
			keys[j] = unsafe.Slice((*byte)(unsafe.Add(base, f.PageHeaderSize+8*i)), 8)
		}
		if vl == 0 {
			vals[j] = p[:0:0] // never a pointer past an allocation's end
		} else {
			vals[j] = unsafe.Slice((*byte)(unsafe.Add(base, o+f.Leaf8EntryHeader)), vl)
		}
		j++
	}
	return got + j, i
}

func (c *Cursor) keyAt(p []byte, i int) []byte {
	if c.arr {
		o := f.PageHeaderSize + 8*i
		return p[o : o+8 : o+8]
	}
	o := int(le.Uint16(p[c.slots+2*i:]))
	kl := int(le.Uint16(p[o:]))
	return p[o+f.LeafEntryHeader : o+f.LeafEntryHeader+kl : o+f.LeafEntryHeader+kl]
}

func (c *Cursor) valueAt(p []byte, i int) []byte {
	o := int(le.Uint16(p[c.slots+2*i:]))
	var s int
	var vl uint16
	if c.arr {
		vl, s = le.Uint16(p[o:]), o+f.Leaf8EntryHeader
	} else {
		vl, s = le.Uint16(p[o+2:]), o+f.LeafEntryHeader+int(le.Uint16(p[o:]))
	}
	if vl&f.OverflowFlag == 0 {
		return p[s : s+int(vl) : s+int(vl)]
	}
	v, err := c.tr.value(p, i)
	if err != nil {
		c.err, c.valid, c.end = err, false, 0
		return nil
	}
	return v
}
