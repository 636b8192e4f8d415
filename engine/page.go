package engine

import (
	"bytes"
	"encoding/binary"
	"math/bits"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Accessors for a node (a plain page or a decoded leaf block). They assume
// the node passed checkNode, which validated every offset they use. Two
// layouts exist (see format): slotted pages for variable keys, and key-array
// pages (leaf8, branch8) for trees whose keys are all 8 bytes.

var be = binary.BigEndian
var le = binary.LittleEndian

func nodeN(p []byte) int     { return int(le.Uint16(p[f.PgN:])) }
func nodeLevel(p []byte) int { return int(p[f.PgLevel]) }
func isArray(p []byte) bool  { return p[f.PgType]&f.PgTypeMask >= f.PageLeaf8 }
func slotOff(p []byte, i int) int {
	return int(le.Uint16(p[f.PageHeaderSize+2*i:]))
}

// leaf8 slot array starts after the key array.
func slotOff8(p []byte, i int) int {
	return int(le.Uint16(p[f.PageHeaderSize+8*nodeN(p)+2*i:]))
}

func leafKey(p []byte, i int) []byte {
	if isArray(p) {
		o := f.PageHeaderSize + 8*i
		return p[o : o+8 : o+8]
	}
	o := slotOff(p, i)
	kl := int(le.Uint16(p[o:]))
	return p[o+f.LeafEntryHeader : o+f.LeafEntryHeader+kl : o+f.LeafEntryHeader+kl]
}

// leafVal returns the inline value, or the overflow reference and true.
func leafVal(p []byte, i int) ([]byte, bool) {
	var s int
	var vl uint16
	if isArray(p) {
		o := slotOff8(p, i)
		vl = le.Uint16(p[o:])
		s = o + f.Leaf8EntryHeader
	} else {
		o := slotOff(p, i)
		kl := int(le.Uint16(p[o:]))
		vl = le.Uint16(p[o+2:])
		s = o + f.LeafEntryHeader + kl
	}
	if vl&f.OverflowFlag != 0 {
		return p[s : s+f.OverflowRefSize : s+f.OverflowRefSize], true
	}
	return p[s : s+int(vl) : s+int(vl)], false
}

func branchChild(p []byte, i int) uint64 {
	if isArray(p) {
		return le.Uint64(p[f.PageHeaderSize+8*nodeN(p)+8*i:])
	}
	return le.Uint64(p[slotOff(p, i):])
}

func branchBefore(p []byte, i int) uint64 {
	if isArray(p) {
		return le.Uint64(p[f.PageHeaderSize+16*nodeN(p)+8*i:])
	}
	return le.Uint64(p[slotOff(p, i)+8:])
}

func branchKey(p []byte, i int) []byte {
	if isArray(p) {
		o := f.PageHeaderSize + 8*i
		return p[o : o+8]
	}
	o := slotOff(p, i)
	kl := int(le.Uint16(p[o+16:]))
	return p[o+f.BranchEntryHdr : o+f.BranchEntryHdr+kl]
}

// leafSearch returns the first position whose key is >= key, and whether
// that key equals key.
func leafSearch(p []byte, key []byte) (int, bool) {
	if p[f.PgType]&f.PgHeads != 0 {
		return headsLower(p, key, 0, false)
	}
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
	if p[f.PgType]&f.PgHeads != 0 {
		i, _ := headsLower(p, key, 1, true)
		return i - 1
	}
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

// keyHead is bytes [prefix, prefix+4) of k as a big-endian integer,
// zero-padded (format.PgHeads).
func keyHead(k []byte, prefix int) uint32 {
	if len(k) >= prefix+4 {
		return be.Uint32(k[prefix:])
	}
	var b [4]byte
	if len(k) > prefix {
		copy(b[:], k[prefix:])
	}
	return be.Uint32(b[:])
}

// pageKey is key i of a slotted page, leaf or branch.
func pageKey(p []byte, i int) []byte {
	return slottedKey(p, i, nodeLevel(p) == 0)
}

// slottedKey is key i of a slotted page (a leaf when leaf is set), without
// pageKey's and leafKey's tests of the page's kind: small enough to inline
// into the searches.
func slottedKey(p []byte, i int, leaf bool) []byte {
	o := slotOff(p, i)
	if leaf {
		kl := int(le.Uint16(p[o:]))
		return p[o+f.LeafEntryHeader : o+f.LeafEntryHeader+kl]
	}
	kl := int(le.Uint16(p[o+16:]))
	return p[o+f.BranchEntryHdr : o+f.BranchEntryHdr+kl]
}

// headsLower searches the keys from entry `from` of a slotted page that
// carries heads (format.PgHeads): the first position whose key is >= key,
// or > key with after set, and whether a key equal to key was met on the
// way (with after unset, whether the position's key equals key). Whole keys
// are compared twice at most when heads differ: the page's prefix once,
// and keys only among equal heads.
func headsLower(p []byte, key []byte, from int, after bool) (int, bool) {
	n := nodeN(p)
	if n <= from {
		return n, false
	}
	leaf := from == 0 // leaves search from entry 0, branches from 1
	o := f.PageHeaderSize + f.SlotSize*n
	prefix := int(le.Uint16(p[o:]))
	heads := p[o+f.HeadsHeader : o+f.HeadsHeader+f.HeadSize*n]
	if prefix > 0 {
		pk := slottedKey(p, from, leaf)[:prefix] // checkNode: every key has the prefix
		m := min(prefix, len(key))
		if c := bytes.Compare(key[:m], pk[:m]); c < 0 || c == 0 && len(key) < prefix {
			return from, false // below every key
		} else if c > 0 {
			return n, false // above every key
		}
	}
	h := keyHead(key, prefix)
	// the first head >= h (headsFirst), then the first head > h: the keys
	// between have head h
	lo := headsFirst(heads, from, n, h)
	end := lo
	for end < n && be.Uint32(heads[4*end:]) == h {
		end++
		if end-lo > 4 { // many equal heads: find their end by halving
			a, b := end, n
			for a < b {
				m := int(uint(a+b) >> 1)
				if be.Uint32(heads[4*m:]) <= h {
					a = m + 1
				} else {
					b = m
				}
			}
			end = a
			break
		}
	}
	eq := false
	for lo < end {
		m := int(uint(lo+end) >> 1)
		c := bytes.Compare(slottedKey(p, m, leaf), key)
		eq = eq || c == 0
		if c < 0 || after && c == 0 {
			lo = m + 1
		} else {
			end = m
		}
	}
	return lo, eq
}

// headsCount is how many heads headsFirst counts rather than halves
// (capi/fast.c's HEADS_COUNT).
const headsCount = 16

// headsFirst returns the first entry in [from, n) whose head is >= h, or n
// (from < n). The step is branch-free by construction, a mask from the
// compare's sign bit: the branch of a plain binary search over random keys
// mispredicts half the time, and Go 1.26 compiled the conditional add of
// the earlier loop into such a branch, not a conditional move (measured:
// 60% of a string get's time in this loop). The answer lies in
// [lo, lo+size]. Each halving waits for its load; the last headsCount or
// fewer heads are counted instead (the answer is lo plus those < h), their
// loads independent.
func headsFirst(heads []byte, from, n int, h uint32) int {
	lo := from
	size := n - from
	for size > headsCount {
		half := size >> 1
		less := int((uint64(be.Uint32(heads[4*(lo+half-1):])) - uint64(h)) >> 63) // 1 when that head < h
		lo += half & -less
		size -= half
	}
	w := heads[4*lo : 4*(lo+size)]
	c := 0
	for i := 0; i+4 <= len(w); i += 4 {
		c += int((uint64(be.Uint32(w[i:])) - uint64(h)) >> 63)
	}
	return lo + c
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

// Searches of key-array pages: one array of big-endian 8-byte keys, so each
// step is one load and an integer compare. keys is sliced once so the loop
// needs no bounds checks beyond the one the compiler proves.

func keyArray(p []byte) []byte {
	n := nodeN(p)
	return p[f.PageHeaderSize : f.PageHeaderSize+8*n]
}

// Interpolation search over key-array pages.
//
// Keys in a key-array page are sorted 8-byte big-endian integers. Tables of
// integer keys are very often dense or evenly spread (row ids, sequence
// numbers, timestamps, hashes), and then a straight line between the
// page's first and last keys predicts where a key lies: one guess and one
// check of its two neighbours find it, and the check is a branch that is
// almost always taken, so the processor runs ahead on its prediction.
// When the guess is off (skewed keys), a branch-free binary search of the
// page follows: the cost of a wrong guess is the guess itself (measured:
// BenchmarkGetSkewed, about 10 ns more than a plain binary search).

// upperBound8 returns the number of keys in keys (big-endian uint64s, in
// ascending order) that are <= k.
func upperBound8(keys []byte, k uint64) int {
	m := len(keys) / 8
	if m == 0 {
		return 0
	}
	first := be.Uint64(keys)
	if k < first {
		return 0
	}
	last := be.Uint64(keys[8*(m-1):])
	if k >= last {
		return m
	}
	// first <= k < last, so m >= 2 and the answer is in [1, m-1]. With
	// evenly spaced keys, k lies in the gap after key floor(x); the small
	// bias keeps a k equal to a key from rounding down into the gap before
	// it. Signed conversions are single instructions: halve a span that
	// does not fit in int64.
	d, s := k-first, last-first
	if s == uint64(m-1) {
		// consecutive keys (dense ids, the common case of int tables):
		// k's rank is its distance from the first, no division needed
		return int(d) + 1
	}
	if int64(s) < 0 {
		d, s = d>>1, s>>1
	}
	g := int(float64(int64(d))/float64(int64(s))*float64(m-1)+1e-6) + 1
	if g > m-1 {
		g = m - 1
	}
	if be.Uint64(keys[8*(g-1):]) <= k && k < be.Uint64(keys[8*g:]) {
		return g
	}
	return upperBoundSlow(keys, k)
}

// upperBoundSlow finishes upperBound8 when the guess was off: a binary
// search of the whole page, branch-free, because the keys that
// interpolation misses are the ones whose position the branch predictor
// cannot guess either. keys[0] <= k < keys[m-1] holds.
func upperBoundSlow(keys []byte, k uint64) int {
	base := 0 // keys[base] <= k
	for n := len(keys) / 8; n > 1; {
		half := n >> 1
		// base += half when that key <= k, as a mask (see headsFirst:
		// the compiler makes a branch of the conditional add)
		_, above := bits.Sub64(k, be.Uint64(keys[8*(base+half):]), 0) // 1 when that key > k
		base += half & (int(above) - 1)
		n -= half
	}
	return base + 1
}

// leafSearch8 returns the first position whose key is >= k, and whether
// that key equals k.
func leafSearch8(p []byte, k uint64) (int, bool) {
	keys := keyArray(p)
	if p[f.PgType]&f.Leaf8Seq != 0 {
		// key i is key 0 + i (checkNode checked it; n >= 1)
		first := be.Uint64(keys)
		if d := k - first; d < uint64(len(keys)/8) {
			return int(d), true
		}
		if k < first {
			return 0, false
		}
		return len(keys) / 8, false
	}
	i := 0
	if k > 0 {
		i = upperBound8(keys, k-1) // keys < k are the keys <= k-1
	}
	return i, i < len(keys)/8 && be.Uint64(keys[8*i:]) == k
}

// branchSearch8 returns the child that may hold k: the last entry whose
// separator is <= k (entry 0 when none is). Entry 0's key is not a
// separator (everything below separator 1 goes there), so the search, and
// its interpolation, covers entries 1..n-1: the number of those that are
// <= k is the child's index. Small enough to inline into the descent.
func branchSearch8(p []byte, k uint64) int {
	n := nodeN(p)
	if n <= 1 {
		return 0
	}
	keys := p[f.PageHeaderSize+8 : f.PageHeaderSize+8*n] // separators 1..n-1
	if i := scaledGuess(keys, k, le.Uint64(p[f.PgScale:])); i >= 0 {
		return i
	}
	return upperBound8(keys, k)
}

// scaledGuess is upperBound8's answer guessed with a branch's interpolation
// factor (format.PgScale, 0 for none): one multiplication and a check of
// the guess's two neighbours. The factor is a hint, so it returns -1 when
// there is none or its neighbours refute it.
func scaledGuess(keys []byte, k, scale uint64) int {
	first := be.Uint64(keys)
	if k < first {
		return 0
	}
	g, _ := bits.Mul64(k-first, scale) // keys <= k, minus one
	if scale != 0 && g < uint64(len(keys)/8-1) && be.Uint64(keys[8*g:]) <= k && k < be.Uint64(keys[8*g+8:]) {
		return int(g) + 1
	}
	return -1
}

// checkNode validates a node's structure so that the accessors above can
// never index out of range: type and level, entry count, slot offsets,
// lengths, key order within the node, and overflow references inside the
// tree's region (ovf). width 8 requires the key-array layout. It runs once
// per page per process (plain files) or once per block decode.
func checkNode(p []byte, wantLevel, width int, ovf ovfArea) string {
	if len(p) < f.PageHeaderSize {
		return "short page"
	}
	typ, flags := p[f.PgType]&f.PgTypeMask, p[f.PgType]&^f.PgTypeMask
	lvl := int(p[f.PgLevel])
	if lvl != wantLevel {
		return "wrong level"
	}
	leaf := typ == f.PageLeaf || typ == f.PageLeaf8
	if typ < f.PageLeaf || typ > f.PageBranch8 || (lvl == 0) != leaf ||
		flags&^(f.Leaf8Seq|f.Leaf8Fixed|f.PgHeads) != 0 ||
		flags&(f.Leaf8Seq|f.Leaf8Fixed) != 0 && typ != f.PageLeaf8 ||
		flags&f.PgHeads != 0 && typ >= f.PageLeaf8 {
		return "bad page type"
	}
	heads := flags&f.PgHeads != 0
	array := typ >= f.PageLeaf8
	if (width == 8) != array {
		return "page layout does not match the key encoding"
	}
	n := nodeN(p)
	var fixed int // bytes of the arrays after the header
	switch {
	case array && leaf:
		fixed = n * (8 + f.SlotSize)
	case array:
		fixed = n * f.Branch8EntrySize
	case heads:
		fixed = f.HeadsHeader + n*(f.SlotSize+f.HeadSize)
	default:
		fixed = n * f.SlotSize
	}
	if n == 0 || f.PageHeaderSize+fixed > len(p) {
		return "bad entry count"
	}
	areaStart := f.PageHeaderSize + fixed
	switch {
	case array && leaf:
		if r := checkLeaf8(p, n, areaStart, ovf); r != "" {
			return r
		}
	case array:
		if r := checkBranch8(p, n); r != "" {
			return r
		}
	}
	var prev []byte
	for i := 0; i < n && !array; i++ {
		var k []byte
		if leaf {
			var o, hdr, kl int
			if array {
				o, hdr = slotOff8(p, i), f.Leaf8EntryHeader
			} else {
				o, hdr = slotOff(p, i), f.LeafEntryHeader
			}
			if o < areaStart || o+hdr > len(p) {
				return "slot out of range"
			}
			var vl uint16
			if array {
				vl = le.Uint16(p[o:])
			} else {
				kl = int(le.Uint16(p[o:]))
				vl = le.Uint16(p[o+2:])
			}
			vlen := int(vl &^ f.OverflowFlag)
			if vl&f.OverflowFlag != 0 && vlen != f.OverflowRefSize {
				return "bad overflow reference"
			}
			if o+hdr+kl+vlen > len(p) {
				return "entry out of range"
			}
			k = leafKey(p, i)
			if width != 0 && len(k) != width {
				return "key of the wrong width"
			}
			if vl&f.OverflowFlag != 0 {
				ref, _ := leafVal(p, i)
				if !ovf.holds(le.Uint64(ref), le.Uint64(ref[8:])) {
					return "overflow reference out of range"
				}
			}
		} else {
			if !array {
				o := slotOff(p, i)
				if o < areaStart || o+f.BranchEntryHdr > len(p) {
					return "slot out of range"
				}
				kl := int(le.Uint16(p[o+16:]))
				if o+f.BranchEntryHdr+kl > len(p) {
					return "entry out of range"
				}
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
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			return "keys out of order"
		}
		prev = k
	}
	if heads {
		if r := checkHeads(p, n, leaf); r != "" {
			return r
		}
	}
	// sorted and distinct, so a span of n-1 means consecutive
	if flags&f.Leaf8Seq != 0 && be.Uint64(leafKey(p, n-1))-be.Uint64(leafKey(p, 0)) != uint64(n-1) {
		return "keys of a sequence page are not consecutive"
	}
	if flags&f.Leaf8Fixed != 0 {
		o0 := slotOff8(p, 0)
		stride := len(p) - o0
		if stride-f.Leaf8EntryHeader >= f.OverflowFlag {
			return "entries of a fixed-size page are too large"
		}
		for i := 0; i < n; i++ {
			// slots are in range (above), so o0 >= stride*i for i < n
			if slotOff8(p, i) != o0-i*stride || int(le.Uint16(p[o0-i*stride:])) != stride-f.Leaf8EntryHeader {
				return "entries of a fixed-size page are not evenly spaced"
			}
		}
	}
	return ""
}

// checkHeads checks a slotted page's heads area (format.PgHeads) against
// its keys, which checkNode has checked: every key shares the prefix, and
// every head is its key's.
func checkHeads(p []byte, n int, leaf bool) string {
	o := f.PageHeaderSize + f.SlotSize*n
	prefix := int(le.Uint16(p[o:]))
	heads := p[o+f.HeadsHeader : o+f.HeadsHeader+f.HeadSize*n]
	from := 1
	if leaf {
		from = 0
	}
	if le.Uint16(p[o+2:]) != 0 || !leaf && be.Uint32(heads) != 0 || prefix > 0 && n <= from {
		return "bad heads area"
	}
	var pk []byte
	for i := from; i < n; i++ {
		k := pageKey(p, i)
		if len(k) < prefix {
			return "key shorter than its page's prefix"
		}
		if i == from {
			pk = k[:prefix]
		} else if !bytes.Equal(k[:prefix], pk) {
			return "key without its page's prefix"
		}
		if be.Uint32(heads[4*i:]) != keyHead(k, prefix) {
			return "head does not match its key"
		}
	}
	return ""
}

// checkLeaf8 is checkNode's loop for leaf8 pages (one per page on first
// touch, so on the way of every cold read): the same checks as the general
// loop, with the keys compared as integers.
func checkLeaf8(p []byte, n, areaStart int, ovf ovfArea) string {
	keys := p[f.PageHeaderSize : f.PageHeaderSize+8*n]
	slots := p[f.PageHeaderSize+8*n : f.PageHeaderSize+10*n]
	var prev uint64
	for i := 0; i < n; i++ {
		k := be.Uint64(keys[8*i:])
		if i > 0 && k <= prev {
			return "keys out of order"
		}
		prev = k
		o := int(le.Uint16(slots[2*i:]))
		if o < areaStart || o+f.Leaf8EntryHeader > len(p) {
			return "slot out of range"
		}
		vl := le.Uint16(p[o:])
		vlen := int(vl &^ f.OverflowFlag)
		if o+f.Leaf8EntryHeader+vlen > len(p) {
			return "entry out of range"
		}
		if vl&f.OverflowFlag != 0 {
			if vlen != f.OverflowRefSize {
				return "bad overflow reference"
			}
			ref := p[o+f.Leaf8EntryHeader:]
			if !ovf.holds(le.Uint64(ref), le.Uint64(ref[8:])) {
				return "overflow reference out of range"
			}
		}
	}
	return ""
}

// checkBranch8 is checkNode's loop for branch8 pages: the general loop's
// checks (row counts increasing from 0, separators 1..n-1 increasing), on
// the three arrays as integers.
func checkBranch8(p []byte, n int) string {
	keys := p[f.PageHeaderSize : f.PageHeaderSize+8*n]
	before := p[f.PageHeaderSize+16*n : f.PageHeaderSize+24*n]
	if le.Uint64(before) != 0 {
		return "first child count"
	}
	var prevKey, prevRows uint64
	for i := 1; i < n; i++ {
		rows := le.Uint64(before[8*i:])
		if rows <= prevRows {
			return "row counts out of order"
		}
		prevRows = rows
		k := be.Uint64(keys[8*i:])
		if i > 1 && k <= prevKey {
			return "keys out of order"
		}
		prevKey = k
	}
	return ""
}

// fixedVal returns entry i's value of a leaf8 page flagged Leaf8Fixed
// (checked by checkNode): computed from slot 0, no read of entry i's slot.
func fixedVal(p []byte, i int) []byte {
	o0 := slotOff8(p, 0)
	stride := len(p) - o0
	s := o0 - i*stride + f.Leaf8EntryHeader
	return p[s : s+stride-f.Leaf8EntryHeader : s+stride-f.Leaf8EntryHeader]
}

// ovfArea is where a tree's overflow values may lie: its own region
// (pages [first, last)), which no other tree shares (checked at open).
type ovfArea struct {
	first, last uint64
	pshift      uint
}

// holds reports whether a value of ln bytes from page pg lies in the area,
// in arithmetic that cannot wrap.
func (a ovfArea) holds(pg, ln uint64) bool {
	return pg >= a.first && pg < a.last && ln <= (a.last-pg)<<a.pshift
}
