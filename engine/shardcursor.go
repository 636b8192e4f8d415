package engine

import (
	"bytes"
	"fmt"
)

// shardCursor is the state of a Cursor over a sharded table or index; a
// single-file cursor (sh nil) never reaches the sh* methods below.
//
// A range table's parts hold consecutive key ranges (concatenation): a
// part's cursor, once positioned, is adopted: the outer Cursor takes its
// state (tree, leaf, bounds in the part's rows), so that stepping and
// reading within the part take the single-file paths, fast paths included;
// where those end (the part's first or last row in the range), Next and
// Prev cross to the neighbouring part (shCross). Rows are numbered by the
// parts' row offsets.
//
// An index, or a hash table, has entries of every part interleaved: the
// cursor merges the parts' cursors in key order (a k-way merge; stored
// index keys end with the primary key, so no two parts hold the same key).
// The outer Cursor then stays "not valid" with an empty leaf, so that its
// fast paths fall through to the slow paths, which call the sh* methods.
type shardCursor struct {
	st     *shardedTable
	lo, hi Bound       // stored-key bounds
	m      *shardMerge // merge state; nil for a concatenation
	a, b   int32       // concatenation: the parts the range touches, [a, b)
	cur    int         // the part the cursor is on (concatenation: whose state it holds); -1: none
	one    Cursor      // concatenation: the part being positioned, adopted at once (shAdopt)
}

// shardMerge is the state only a merging cursor has, apart, so that a
// concatenation's cursor and its state are one allocation of 512 bytes (a
// size class whose objects carry no header: a short scan is a few hundred
// ns, and the allocation was a visible part of it).
type shardMerge struct {
	index string         // the index walked; "" for the table
	subs  []*Cursor      // per part, made at first use
	isubs []*IndexCursor // index cursors: isubs[i].Cursor is subs[i]
	back  bool           // the other parts sit before the current key (after Prev)
}

func (s *shardCursor) merge() bool { return s.m != nil }

// index is the index walked ("" for the table).
func (s *shardCursor) index() string {
	if s.m == nil {
		return ""
	}
	return s.m.index
}

// span is the parts a concatenation's range touches, [a, b).
func (s *shardCursor) span() (int, int) { return int(s.a), int(s.b) }

func newShardCursor(t *Table, index string, lo, hi Bound) *Cursor {
	st := t.sh
	// One allocation for the cursor and its shard state (see shardMerge).
	box := &struct {
		c Cursor
		s shardCursor
	}{c: Cursor{tr: &t.tree, closed: &t.db.closed}, s: shardCursor{st: st, lo: lo, hi: hi, cur: -1}}
	c := &box.c
	c.init(lo, hi)
	c.sh = &box.s
	if index != "" || st.hash {
		c.sh.m = &shardMerge{index: index, subs: make([]*Cursor, len(st.parts))}
		if index != "" {
			c.sh.m.isubs = make([]*IndexCursor, len(st.parts))
		}
	} else {
		a, b := st.span(lo, hi)
		c.sh.a, c.sh.b = int32(a), int32(b)
	}
	return c
}

// sub returns part i's cursor. A concatenation positions one part at a
// time and adopts its state at once, so one cursor (s.one) serves every
// part: crossing a boundary allocates nothing.
func (c *Cursor) sub(i int) (*Cursor, bool) {
	s := c.sh
	if !s.merge() {
		t, err := s.st.table(i)
		if err != nil {
			c.shFail(err)
			return nil, false
		}
		if s.one.tr != nil {
			s.one.tr.release(s.one.leaf) // a part that had no row in range
		}
		a, b := s.span()
		lo, hi := clip(i, a, b, s.lo, s.hi)
		s.one = Cursor{tr: &t.tree, closed: &t.db.closed}
		s.one.init(lo, hi)
		return &s.one, true
	}
	if s.m.subs[i] != nil {
		return s.m.subs[i], true
	}
	if s.index() != "" {
		ix, err := s.st.index(i, s.index())
		if err != nil {
			c.shFail(err)
			return nil, false
		}
		s.m.isubs[i] = newIndexCursor(ix, s.lo, s.hi)
		s.m.subs[i] = &s.m.isubs[i].Cursor
	} else {
		t, err := s.st.table(i)
		if err != nil {
			c.shFail(err)
			return nil, false
		}
		s.m.subs[i] = t.NewCursor(s.lo, s.hi)
	}
	return s.m.subs[i], true
}

// shFail is not inlined (an error path with 30-odd call sites: errors.go's
// corruptAt says why).
//
//go:noinline
func (c *Cursor) shFail(err error) bool {
	if c.err == nil {
		c.err = err
	}
	c.sh.cur = -1
	c.valid, c.end = false, 0
	return false
}

// shAdopt makes part i's cursor, just positioned, the outer cursor's state
// (concatenation). The leaf (and its pin) passes to the outer cursor, which
// releases it when it moves on or closes.
func (c *Cursor) shAdopt(i int) bool {
	s, sub := c.sh, &c.sh.one
	if s.merge() {
		sub = s.m.subs[i]
	}
	c.tr.release(c.leaf)
	closed, err := c.closed, c.err
	*c = *sub
	c.sh, c.closed, c.err = s, closed, err
	sub.leaf, sub.valid, sub.end = node{}, false, 0
	s.cur = i
	return true
}

// shCross moves to the neighbouring part when a concatenation's Next or
// Prev ran off its part (the cursor is unpositioned by then).
func (c *Cursor) shCross(back bool) bool {
	if c.err != nil || c.sh.merge() || c.sh.cur < 0 || c.closed.Load() {
		return false
	}
	return c.shOnward(c.sh.cur, back)
}

// shCheck turns a sub-cursor's stop into the outer cursor's result.
func (c *Cursor) shCheck(sub *Cursor) bool {
	if sub.err != nil && sub.err != ErrClosed {
		return c.shFail(sub.err)
	}
	return true
}

// shStart begins a positioning: the cursor is off any row until one is found.
func (c *Cursor) shStart() bool {
	c.unposition()
	return c.shUsable()
}

func (c *Cursor) shUsable() bool {
	if c.err != nil {
		return false
	}
	if c.closed.Load() {
		return c.shFail(ErrClosed)
	}
	return true
}

// shWalk positions the cursor with pos applied to each part from..to (to
// exclusive; to < from walks down) until one lands on a row (concatenation).
func (c *Cursor) shWalk(from, to int, pos func(*Cursor) bool) bool {
	step := 1
	if to < from {
		step = -1
	}
	for i := from; i != to; i += step {
		s, ok := c.sub(i)
		if !ok {
			return false
		}
		if pos(s) {
			return c.shAdopt(i)
		}
		if !c.shCheck(s) {
			return false
		}
	}
	c.valid, c.end = false, 0 // cur stays: NextBatch goes back to its last row
	return false
}

// shPick applies pos to every part and makes the smallest (largest with
// back) current key the cursor's row (merge).
func (c *Cursor) shPick(pos func(*Cursor) bool, back bool) bool {
	s := c.sh
	s.cur, s.m.back = -1, back
	for i := range s.m.subs {
		sc, ok := c.sub(i)
		if !ok {
			return false
		}
		if !pos(sc) && !c.shCheck(sc) {
			return false
		}
	}
	return c.shBest()
}

// shBest makes the part with the smallest (largest, going back) key current.
func (c *Cursor) shBest() bool {
	s := c.sh
	s.cur = -1
	var best []byte
	for i, sc := range s.m.subs {
		if sc == nil || !sc.Valid() {
			continue
		}
		k := sc.Key()
		if s.cur < 0 || (bytes.Compare(k, best) < 0) != s.m.back {
			s.cur, best = i, k
		}
	}
	return s.cur >= 0
}

func (c *Cursor) shFirst() bool {
	if !c.shStart() {
		return false
	}
	if c.sh.merge() {
		return c.shPick((*Cursor).First, false)
	}
	a, b := c.sh.span()
	return c.shWalk(a, b, (*Cursor).First)
}

func (c *Cursor) shLast() bool {
	if !c.shStart() {
		return false
	}
	if c.sh.merge() {
		return c.shPick((*Cursor).Last, true)
	}
	a, b := c.sh.span()
	return c.shWalk(b-1, a-1, (*Cursor).Last)
}

func (c *Cursor) shSeek(key []byte) bool {
	if !c.shStart() {
		return false
	}
	s := c.sh
	if s.merge() {
		return c.shPick(func(sc *Cursor) bool { return sc.Seek(key) }, false)
	}
	i := s.st.part(key)
	if i < 0 {
		return c.shFirst()
	}
	return c.shFrom(i, func(sc *Cursor) bool { return sc.Seek(key) }, false)
}

// shFrom positions the cursor with pos in part i or, when part i has no row
// there, on the next row in the parts after it (before it, going back).
func (c *Cursor) shFrom(i int, pos func(*Cursor) bool, back bool) bool {
	sc, ok := c.sub(i)
	if !ok {
		return false
	}
	if pos(sc) {
		return c.shAdopt(i)
	}
	return c.shCheck(sc) && c.shOnward(i, back)
}

// shOnward moves to the first row in range of the parts after part i (the
// last row of those before it, going back).
func (c *Cursor) shOnward(i int, back bool) bool {
	a, b := c.sh.span()
	if back {
		return c.shWalk(i-1, min(a, i)-1, (*Cursor).Last)
	}
	return c.shWalk(i+1, max(b, i+1), (*Cursor).First)
}

func (c *Cursor) shSeekReverse(key []byte) bool {
	if !c.shStart() {
		return false
	}
	s := c.sh
	if s.merge() {
		return c.shPick(func(sc *Cursor) bool { return sc.SeekReverse(key) }, true)
	}
	i := s.st.part(key)
	if i < 0 {
		s.cur = -1
		return false
	}
	return c.shFrom(i, func(sc *Cursor) bool { return sc.SeekReverse(key) }, true)
}

func (c *Cursor) shSeekExact(key []byte) bool {
	if !c.shStart() {
		return false
	}
	s := c.sh
	i := s.st.part(key)
	if s.index() != "" {
		if !c.shSeek(key) {
			return false
		}
		if !bytes.Equal(c.shKey(), key) {
			s.cur = -1
			return false
		}
		return true
	}
	s.cur = -1
	if i < 0 {
		return false
	}
	sc, ok := c.sub(i)
	if !ok {
		return false
	}
	if sc.SeekExact(key) {
		if s.merge() { // the other parts must sit after the key for Next
			s.cur, s.m.back = i, false
			return c.shReposition(false)
		}
		return c.shAdopt(i)
	}
	return c.shCheck(sc) && false
}

func (c *Cursor) shSeekRow(n uint64) bool {
	if !c.shStart() {
		return false
	}
	s := c.sh
	if s.merge() {
		if s.index() != "" {
			return c.shFail(fmt.Errorf("%w: SeekRow on index %q of sharded table %q: index rows are not numbered across shards", ErrInvalid, s.index(), s.st.name))
		}
		return c.shFail(s.st.notOrdered("SeekRow"))
	}
	s.cur = -1
	if n >= s.st.off[len(s.st.parts)] {
		return false
	}
	i := s.st.rowPart(n)
	sc, ok := c.sub(i)
	if !ok {
		return false
	}
	if sc.SeekRow(n - s.st.off[i]) {
		return c.shAdopt(i)
	}
	return c.shCheck(sc) && false
}

// shReposition puts every part but the current one just after (before,
// with back) the current key, as a merge moving that way needs.
func (c *Cursor) shReposition(back bool) bool {
	s := c.sh
	key := bytes.Clone(s.m.subs[s.cur].Key())
	for i, sc := range s.m.subs {
		if i == s.cur {
			continue
		}
		if sc == nil {
			var ok bool
			if sc, ok = c.sub(i); !ok {
				return false
			}
		}
		var ok bool
		if back {
			ok = sc.SeekReverse(key)
		} else {
			ok = sc.Seek(key)
		}
		if !ok && !c.shCheck(sc) {
			return false
		}
		if ok && bytes.Equal(sc.Key(), key) { // cannot happen in a sound set: keys are in one part
			return c.shFail(fmt.Errorf("%w: key %x is in two shards of table %q", ErrCorrupt, key, s.st.name))
		}
	}
	s.m.back = back
	return true
}

// shStep is a merge's Next (Prev with back). (A concatenation steps as a
// single-file cursor does, and crosses parts in shCross.)
func (c *Cursor) shStep(back bool) bool {
	s := c.sh
	if !s.merge() || s.cur < 0 || !c.shUsable() {
		return false
	}
	if s.m.back != back && !c.shReposition(back) {
		return false
	}
	sc := s.m.subs[s.cur]
	if (back && !sc.Prev() || !back && !sc.Next()) && !c.shCheck(sc) {
		return false
	}
	return c.shBest()
}

// shValid, shKey, shValue and shPinned answer for a merge (a concatenation
// answers through the state it adopted).
func (c *Cursor) shValid() bool { return c.sh.merge() && c.sh.cur >= 0 }

func (c *Cursor) shKey() []byte {
	if !c.shValid() {
		return nil
	}
	return c.sh.m.subs[c.sh.cur].Key()
}

func (c *Cursor) shValue() []byte {
	if !c.shValid() {
		return nil
	}
	sc := c.sh.m.subs[c.sh.cur]
	v := sc.Value()
	if v == nil && sc.err != nil {
		c.shFail(sc.err)
	}
	return v
}

// shIndexValue is IndexCursor.Value: the row lives in the entry's shard.
func (c *Cursor) shIndexValue() []byte {
	if c.sh.cur < 0 {
		return nil
	}
	ic := c.sh.m.isubs[c.sh.cur]
	v := ic.Value()
	if v == nil && ic.err != nil {
		c.shFail(ic.err)
	}
	return v
}

func (c *Cursor) shRow() uint64 {
	s := c.sh
	if s.cur < 0 {
		return 0
	}
	if !s.merge() {
		return s.st.off[s.cur] + c.leafRow + uint64(c.idx)
	}
	// every part's entries below the current key
	key := s.m.subs[s.cur].Key()
	var n uint64
	for i := range s.m.subs {
		sc, ok := c.sub(i)
		if !ok {
			return 0
		}
		r, _, err := sc.tr.rank(key)
		if err != nil {
			c.shFail(err)
			return 0
		}
		n += r
	}
	return n
}

func (c *Cursor) shCount() (uint64, error) {
	if !c.shUsable() {
		return 0, c.err
	}
	s := c.sh
	if s.index() == "" {
		return s.st.count(s.lo, s.hi)
	}
	var n uint64
	for i := range s.m.subs {
		sc, ok := c.sub(i)
		if !ok {
			return 0, c.err
		}
		k, err := sc.Count()
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

func (c *Cursor) shPinned() bool {
	return c.shValid() && c.sh.m.subs[c.sh.cur].Pinned()
}

func (c *Cursor) shClose() {
	if one := &c.sh.one; one.tr != nil {
		one.tr.release(one.leaf)
		one.leaf = node{}
	}
	if m := c.sh.m; m != nil {
		for _, sc := range m.subs {
			if sc != nil {
				sc.Close()
			}
		}
		for _, ic := range m.isubs {
			if ic != nil {
				ic.val.Release()
			}
		}
	}
	c.sh.cur = -1
	if c.err == nil {
		c.err = ErrClosed
	}
}

// shNextBatch is a merge's NextBatch: row by row (the next row may be in
// another part), a batch ending at the page of a pinned part.
func (c *Cursor) shNextBatch(keys, vals [][]byte, reverse bool) int {
	s := c.sh
	want := len(keys)
	if keys == nil {
		want = len(vals)
	}
	got := 0
	for got < want && c.shValid() {
		if !c.shUsable() {
			break
		}
		sc := s.m.subs[s.cur]
		if keys != nil {
			keys[got] = sc.Key()
		}
		if vals != nil {
			if vals[got] = c.shValue(); vals[got] == nil && c.err != nil {
				return got
			}
		}
		got++
		if got == want || sc.Pinned() {
			break
		}
		key := bytes.Clone(sc.Key())
		if !c.shStep(reverse) {
			if c.err == nil { // the range ended: back onto the last row read
				c.shSeekExact(key)
			}
			break
		}
	}
	return got
}
