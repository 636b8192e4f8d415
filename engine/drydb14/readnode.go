package drydb14

import (
	"encoding/binary"
	"fmt"
	"math"
)

// nodePage is one decoded tree page. Everything past the prefix is read through it; layout checks
// the areas against the page, and each entry accessor checks its entry's span, so no accessor
// reads outside p.
//
//	prefix(28) | digests (n, or 2^k-1 in Eytzinger order) | metadata | payloads
type nodePage struct {
	p     []byte
	n     int
	flags int32
	leaf  bool
	enc   Encoding

	sorted  []uint64 // digests in key order, for Eytzinger pages
	meta    int      // start of the metadata area
	payload int      // start of the payload area (end of metadata)
}

func errf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func (g *nodePage) compact() bool { return g.flags&FlagCompactMeta != 0 }
func (g *nodePage) omitted() bool { return g.flags&FlagOmittedKeys != 0 }

func (g *nodePage) u16(off int) int { return int(binary.LittleEndian.Uint16(g.p[off:])) }

// layout finds the areas of the page and checks that they fit it.
func (g *nodePage) layout() error {
	slots := g.n
	if g.flags&FlagEytzinger != 0 {
		slots = 0
		for slots < g.n {
			slots = 2*slots + 1
		}
	}
	g.meta = PrefixSize + 8*slots // n <= len(p)/8 was checked, so slots < len(p)/4: no overflow
	if g.meta > len(g.p) {
		return errf("%d digests do not fit a %d-byte page", slots, len(g.p))
	}
	if g.flags&FlagEytzinger != 0 {
		g.sorted = make([]uint64, 0, slots)
		g.inorder(1, slots)
		for _, d := range g.sorted[g.n:] {
			if d != math.MaxUint64 {
				return errf("Eytzinger padding digest 0x%x is not u64::MAX", d)
			}
		}
		g.sorted = g.sorted[:g.n]
	}
	var metaLen int
	switch {
	case !g.compact() && g.leaf:
		metaLen = classicLeafRec * g.n
	case !g.compact():
		metaLen = classicInternalRec * g.n
	case g.omitted() && !g.leaf:
		metaLen = ordinalSize * g.n // no metadata: the payload is the n child ordinals
	case g.omitted() || !g.leaf:
		metaLen = 2 * (g.n + 1)
	default:
		metaLen = 2*(g.n+1) + 2*g.n
	}
	g.payload = g.meta + metaLen
	if g.payload > len(g.p) {
		return errf("metadata of %d bytes does not fit a %d-byte page", metaLen, len(g.p))
	}
	if g.compact() && !(g.omitted() && !g.leaf) {
		if end := g.u16(g.meta + 2*g.n); end != len(g.p) {
			return errf("last compact offset %d is not the page length %d", end, len(g.p))
		}
	}
	return nil
}

// inorder appends the digests of the Eytzinger subtree rooted at BFS node i (1-based) in key
// order. Its depth is log2 of the slot count, below 32.
func (g *nodePage) inorder(i, slots int) {
	if i > slots {
		return
	}
	g.inorder(2*i, slots)
	g.sorted = append(g.sorted, binary.LittleEndian.Uint64(g.p[PrefixSize+8*(i-1):]))
	g.inorder(2*i+1, slots)
}

func (g *nodePage) digest(i int) uint64 {
	if g.sorted != nil {
		return g.sorted[i]
	}
	return binary.LittleEndian.Uint64(g.p[PrefixSize+8*i:])
}

// span returns compact entry i's payload [s, e) and its blob bit.
func (g *nodePage) span(i int) (s, e int, blob bool, err error) {
	a, b := g.u16(g.meta+2*i), g.u16(g.meta+2*i+2)
	s, e = a&compactMaxPage, b&compactMaxPage
	if s < g.payload || e < s || e > len(g.p) {
		return 0, 0, false, errf("payload %d..%d is outside %d..%d", s, e, g.payload, len(g.p))
	}
	return s, e, a&compactBlobBit != 0, nil
}

func (g *nodePage) ordinal(off int) int64 { return int64(binary.LittleEndian.Uint64(g.p[off:])) }

// leafEntry returns entry i of a leaf: its key, and either its inline value (starting at offset
// start of the page) or, when blob >= 0, the ordinal of the blob page holding it.
func (g *nodePage) leafEntry(i int) (key, val []byte, blob int64, start int, err error) {
	blob = -1
	if !g.compact() {
		r := g.meta + classicLeafRec*i
		off := int64(int32(binary.LittleEndian.Uint32(g.p[r:])))
		kl, vl := int64(g.u16(r+4)), int64(g.u16(r+6))
		isBlob := vl == classicBlob
		if isBlob {
			vl = ordinalSize
		}
		if off < int64(g.payload) || off+kl+vl > int64(len(g.p)) {
			return nil, nil, 0, 0, errf("payload at %d of %d+%d bytes is outside %d..%d", off, kl, vl, g.payload, len(g.p))
		}
		key = g.p[off : off+kl]
		start = int(off + kl)
		if isBlob {
			return key, nil, g.ordinal(start), start, nil
		}
		return key, g.p[start : start+int(vl)], -1, start, nil
	}
	s, e, isBlob, err := g.span(i)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	if g.omitted() {
		key = g.enc.fromDigest(g.digest(i))
	} else {
		kl := g.u16(g.meta + 2*(g.n+1) + 2*i)
		if kl > e-s {
			return nil, nil, 0, 0, errf("key of %d bytes is longer than its %d-byte payload", kl, e-s)
		}
		key, s = g.p[s:s+kl], s+kl
	}
	if isBlob {
		if e-s != ordinalSize {
			return nil, nil, 0, 0, errf("blob reference of %d bytes (want %d)", e-s, ordinalSize)
		}
		return key, nil, g.ordinal(s), s, nil
	}
	return key, g.p[s:e], -1, s, nil
}

// internal returns entry i of an internal page: its separator and child ordinal.
func (g *nodePage) internal(i int) (sep []byte, child int64, err error) {
	switch {
	case g.omitted():
		return g.enc.fromDigest(g.digest(i)), g.ordinal(g.meta + ordinalSize*i), nil
	case !g.compact():
		r := g.meta + classicInternalRec*i
		off := int64(int32(binary.LittleEndian.Uint32(g.p[r:])))
		kl := int64(g.u16(r + 4))
		if off < int64(g.payload) || off+kl+ordinalSize > int64(len(g.p)) {
			return nil, 0, errf("payload at %d of %d+8 bytes is outside %d..%d", off, kl, g.payload, len(g.p))
		}
		return g.p[off : off+kl], g.ordinal(int(off + kl)), nil
	}
	s, e, _, err := g.span(i)
	if err != nil {
		return nil, 0, err
	}
	if e-s < ordinalSize {
		return nil, 0, errf("entry of %d bytes has no child ordinal", e-s)
	}
	return g.p[s : e-ordinalSize], g.ordinal(e - ordinalSize), nil
}
