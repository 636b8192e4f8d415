package engine

import (
	"bytes"
	"fmt"

	f "github.com/drydb/drydb/engine/internal/format"
)

// HashMode says whether a table gets a hash index (format.Hash): a region
// of 8-byte slots after its tree that takes a point get from the key to its
// leaf entry in one probe instead of a descent. It costs about 10.7 bytes
// a row (slots at 75% load) and a hash of every key at build.
type HashMode uint8

const (
	// HashAuto, the default: a hash index for every uncompressed table
	// except one whose keys are consecutive integers (every leaf a
	// format.Leaf8Seq page), where the tree already finds a key by
	// subtraction. Compressed tables get none: 10.7 bytes a row would
	// undo much of what compression saved (ask with HashOn).
	HashAuto HashMode = iota
	HashOn            // always (a compressed table's also finds its leaf block in the cache without a descent)
	HashOff           // never
)

func checkHash(o TableOptions) error {
	if o.Hash > HashOff {
		return fmt.Errorf("%w: unknown hash mode %d", ErrInvalid, o.Hash)
	}
	return nil
}

// ---- reading ----

// hashIndex is a table's hash region as its tree reads it.
type hashIndex struct {
	first, last uint64 // pages
	slots       uint64 // the first slot page (first, after a compressed table's block pages)
	pos         uint64 // slot positions, header ones included
	maxProbe    int
	shift       uint   // positions per page = 1 << shift
	mask        uint64 // position within its page
}

// newHashIndex returns the reader of a table's hash region (nil: none);
// leaves is the number of leaf blocks of a compressed table (0: plain),
// whose offsets the region's first pages hold (format.HashBlockPages).
func newHashIndex(h f.Hash, pshift uint, leaves uint64) *hashIndex {
	if h.LastPage == h.FirstPage {
		return nil
	}
	slots := h.FirstPage + f.HashBlockPages(leaves, pshift)
	return &hashIndex{first: h.FirstPage, last: h.LastPage, slots: slots, pos: (h.LastPage - slots) << (pshift - 3),
		maxProbe: int(h.MaxProbe), shift: pshift - 3, mask: 1<<(pshift-3) - 1}
}

// usable moves position s to the first slot position at or after it,
// wrapping at the end of the region and skipping page headers.
func (hx *hashIndex) usable(s uint64) uint64 {
	if s >= hx.pos {
		s = 0
	}
	if s&hx.mask < f.HashHeaderSlots {
		s += f.HashHeaderSlots - s&hx.mask
	}
	return s
}

// hashPage returns hash page pg (inside the region), checking its checksum
// and header the first time this process reads it.
func (t *tree) hashPage(pg uint64) ([]byte, error) {
	db := t.db
	p := db.data[pg<<db.pshift:][:db.ps]
	if db.verified[pg>>6].Load()&(1<<(pg&63)) != 0 {
		return p, nil
	}
	if err := t.checkHashPage(pg, p); err != nil {
		return nil, err
	}
	db.verified[pg>>6].Or(1 << (pg & 63))
	return p, nil
}

func (t *tree) checkHashPage(pg uint64, p []byte) error {
	if f.CRC(p[4:]) != f.U32(p, f.PgCRC) {
		return &CorruptError{Page: pg, Offset: int64(pg) << t.db.pshift, Reason: t.name + ": hash page checksum mismatch"}
	}
	if p[f.PgType] != f.PageHash || !allZero(p[f.PgType+1:f.PageHeaderSize]) {
		return &CorruptError{Page: pg, Offset: int64(pg) << t.db.pshift, Reason: t.name + ": not a hash page"}
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// hashFind looks key up in the hash index: its leaf (pinned, for a
// compressed table: release it) and entry, or a nil leaf when no slot
// matches (then the tree decides: a hash index only ever confirms a key,
// it never denies one). A slot's leaf is read as any leaf of the tree
// (checked, in its region, at level 0), and its entry's key is compared
// with key, so a slot that lies cannot produce a wrong answer.
func (t *tree) hashFind(key []byte) (node, int, error) {
	hx := t.hash
	h := f.HashKey(key)
	fp := uint16(h)
	s := hx.usable(f.HashHome(h, hx.pos))
	var hp []byte
	hpg := ^uint64(0)
	for probe := 0; probe <= hx.maxProbe; probe++ {
		if pg := hx.slots + s>>hx.shift; pg != hpg {
			var err error
			if hp, err = t.hashPage(pg); err != nil {
				return node{}, 0, err
			}
			hpg = pg
		}
		w := le.Uint64(hp[(s&hx.mask)*f.HashSlotSize:])
		if w == 0 {
			return node{}, 0, nil
		}
		if wfp, ref, i := f.HashSlotFields(w); wfp == fp {
			nd, err := t.hashLeaf(ref)
			if err != nil {
				return node{}, 0, err
			}
			if i < nodeN(nd.p) && bytes.Equal(leafKey(nd.p, i), key) {
				return nd, i, nil
			}
			t.release(nd)
		}
		s = hx.usable(s + 1)
	}
	return node{}, 0, nil
}

// hashLeaf reads the leaf a slot names: a plain table's page, or the
// block whose offset a compressed table's block pages hold at ordinal
// ref - 1.
func (t *tree) hashLeaf(ref uint64) (node, error) {
	if t.codec == nil {
		p := t.checked(ref, 0)
		if p == nil {
			var err error
			if p, err = t.pageSlow(ref, 0); err != nil {
				return node{}, err
			}
		}
		return node{p: p}, nil
	}
	off, err := t.blockOffset(ref - 1)
	if err != nil {
		return node{}, err
	}
	return t.db.cache.get(t, off)
}

// blockOffset returns the byte offset of a compressed table's leaf block
// ord (in key order) from its hash region's block pages.
func (t *tree) blockOffset(ord uint64) (uint64, error) {
	if ord >= t.desc.Leaves {
		return 0, t.corrupt(t.hash.first, "hash slot names a leaf past the table's last")
	}
	per := t.db.pshift - 4
	p, err := t.hashPage(t.hash.first + ord>>per)
	if err != nil {
		return 0, err
	}
	return le.Uint64(p[f.PageHeaderSize+(ord&(1<<per-1))*8:]), nil
}

// ---- building ----

// hashBuilder collects a table's slots while its leaves are written
// (treeWriter.holdLeaf, which both the row path and merge's copied leaves
// go through) and writes the region after the branches.
type hashBuilder struct {
	mode    HashMode
	slots   []hashEntry
	offsets []uint64 // a compressed table's leaf blocks, in key order
	// Auto mode on a key-array tree: consecutive-key leaves are noted,
	// not hashed, until a leaf that is not one shows the table is sparse.
	seq    []seqLeaf
	sparse bool
}

type hashEntry struct{ h, slot uint64 }

type seqLeaf struct {
	pg, key0 uint64
	n        int
}

// addLeaf records the entries of plain leaf p, to be written at page pg.
func (hb *hashBuilder) addLeaf(p []byte, pg uint64) {
	if hb.mode == HashAuto && !hb.sparse {
		if p[f.PgType]&f.Leaf8Seq != 0 {
			hb.seq = append(hb.seq, seqLeaf{pg, be.Uint64(p[f.PageHeaderSize:]), nodeN(p)})
			return
		}
		hb.sparse = true
		var k [8]byte
		for _, s := range hb.seq {
			for i := 0; i < s.n; i++ {
				be.PutUint64(k[:], s.key0+uint64(i))
				hb.add(k[:], s.pg, i)
			}
		}
		hb.seq = nil
	}
	for i, n := 0, nodeN(p); i < n; i++ {
		hb.add(leafKey(p, i), pg, i)
	}
}

// addBlock records the entries of a compressed table's leaf p, the
// block written at byte offset off.
func (hb *hashBuilder) addBlock(p []byte, off uint64) error {
	hb.offsets = append(hb.offsets, off)
	ord := uint64(len(hb.offsets)) // + 1: a slot's field is never 0
	if ord >= 1<<32 {
		return fmt.Errorf("%w: more than 2^32 leaf blocks for a hash index", ErrTooLarge)
	}
	for i, n := 0, nodeN(p); i < n; i++ {
		hb.add(leafKey(p, i), ord, i)
	}
	return nil
}

func (hb *hashBuilder) add(key []byte, pg uint64, i int) {
	h := f.HashKey(key)
	hb.slots = append(hb.slots, hashEntry{h, f.HashSlot(h, pg, i)})
}

// write writes the region (when the table gets one) and returns its
// descriptor.
func (hb *hashBuilder) write(o *out) f.Hash {
	if len(hb.slots) == 0 || hb.mode == HashAuto && !hb.sparse {
		return f.Hash{}
	}
	perPage := uint64(o.pageSize/f.HashSlotSize - f.HashHeaderSlots)
	need := (uint64(len(hb.slots))*100 + f.HashLoad - 1) / f.HashLoad
	pages := (need + perPage - 1) / perPage
	pshift := uint(0)
	for 1<<pshift != o.pageSize {
		pshift++
	}
	first := o.pgno()
	p := make([]byte, o.pageSize)
	if hb.offsets != nil { // a compressed table's block offsets come first
		per := 1 << (pshift - 4)
		for j := 0; j < len(hb.offsets); j += per {
			clear(p)
			p[f.PgType] = f.PageHash
			for k, off := range hb.offsets[j:min(j+per, len(hb.offsets))] {
				le.PutUint64(p[f.PageHeaderSize+8*k:], off)
			}
			f.PutU32(p, f.PgCRC, f.CRC(p[4:]))
			o.write(p)
		}
	}
	var table []uint64
	var maxProbe int
	for {
		hx := &hashIndex{pos: pages << (pshift - 3), shift: pshift - 3, mask: 1<<(pshift-3) - 1}
		if uint64(cap(table)) >= hx.pos {
			table = table[:hx.pos]
			clear(table)
		} else {
			table = make([]uint64, hx.pos)
		}
		maxProbe = 0
		for _, e := range hb.slots {
			s := hx.usable(f.HashHome(e.h, hx.pos))
			d := 0
			for table[s] != 0 {
				s = hx.usable(s + 1)
				d++
			}
			table[s] = e.slot
			maxProbe = max(maxProbe, d)
		}
		if maxProbe <= f.HashMaxProbe {
			break
		}
		pages += pages/4 + 1 // a rare long cluster: spread the keys wider
	}
	hb.slots = nil
	per := o.pageSize / f.HashSlotSize
	for pg := 0; pg < int(pages); pg++ {
		clear(p)
		p[f.PgType] = f.PageHash
		for j := f.HashHeaderSlots; j < per; j++ {
			le.PutUint64(p[j*f.HashSlotSize:], table[pg*per+j])
		}
		f.PutU32(p, f.PgCRC, f.CRC(p[4:]))
		o.write(p)
	}
	return f.Hash{FirstPage: first, LastPage: o.pgno(), MaxProbe: uint64(maxProbe)}
}

// ---- verifying ----

// hash checks a table's hash region against its tree (after v.tree walked
// it): every page's checksum and header, a compressed table's block
// offsets (its leaves, in the tree's order), and that the slots name each
// row once, each where a lookup finds it (fingerprint right, within
// MaxProbe of its home with no empty slot between).
func (v *verifier) hash(t *tree) {
	hx := t.hash
	if hx == nil {
		return
	}
	db := v.db
	for pg := hx.first; pg < hx.last; pg++ {
		if err := t.checkHashPage(pg, db.data[pg<<db.pshift:][:db.ps]); err != nil {
			if !v.fail(err) {
				return
			}
		}
	}
	// the leaves slots may name: a plain tree's region's pages, a
	// compressed tree's blocks by ordinal + 1
	base, n := t.desc.FirstPage, t.desc.LastPage-t.desc.FirstPage
	if t.codec != nil {
		base, n = 1, t.desc.Leaves
		for ord, off := range v.leafRefs {
			if got, err := t.blockOffset(uint64(ord)); err != nil || got != off {
				v.fail(t.corrupt(hx.first, fmt.Sprintf("hash index's block %d is at %d, the tree's at %d (%v)", ord, got, off, err)))
				return
			}
		}
	}
	// entries named, a bit each: a leaf's entries number fewer than P/8
	ipp := uint(db.pshift - 3)
	named := make([]uint64, (n<<ipp+63)/64)
	var slots uint64
	for s := hx.usable(0); ; {
		pg := hx.slots + s>>hx.shift
		if hp, err := t.hashPage(pg); err == nil {
			if w := le.Uint64(hp[(s&hx.mask)*f.HashSlotSize:]); w != 0 {
				slots++
				r := v.hashSlot(t, s, w)
				if _, ref, i := f.HashSlotFields(w); r == "" {
					b := (ref-base)<<ipp | uint64(i)
					if named[b>>6]&(1<<(b&63)) != 0 {
						r = "hash index names an entry twice"
					}
					named[b>>6] |= 1 << (b & 63)
				}
				if r != "" && !v.fail(&CorruptError{Page: pg, Offset: int64(pg)<<db.pshift + int64(s&hx.mask)*f.HashSlotSize, Reason: t.name + ": " + r}) {
					return
				}
			}
		}
		next := hx.usable(s + 1)
		if next <= s {
			break
		}
		s = next
	}
	if slots != t.desc.Rows {
		v.fail(t.corrupt(hx.first, fmt.Sprintf("hash index has %d slots, the table %d rows", slots, t.desc.Rows)))
	}
}

// hashSlot checks one slot at position s: "" or what is wrong.
func (v *verifier) hashSlot(t *tree, s, w uint64) string {
	hx := t.hash
	fp, ref, i := f.HashSlotFields(w)
	if t.codec == nil && (ref-t.desc.FirstPage >= t.desc.LastPage-t.desc.FirstPage || v.seen[ref>>6]&(1<<(ref&63)) == 0) {
		return fmt.Sprintf("hash slot names page %d, not a leaf the tree reaches", ref)
	}
	if t.codec != nil && ref-1 >= uint64(len(v.leafRefs)) {
		return fmt.Sprintf("hash slot names block %d of %d", ref-1, len(v.leafRefs))
	}
	nd, err := t.hashLeaf(ref)
	if err != nil {
		return fmt.Sprintf("hash slot names leaf %d: %v", ref, err)
	}
	defer t.release(nd)
	if i >= nodeN(nd.p) {
		return fmt.Sprintf("hash slot names entry %d of a leaf of %d", i, nodeN(nd.p))
	}
	h := f.HashKey(leafKey(nd.p, i))
	if uint16(h) != fp {
		return "hash slot's fingerprint does not match its key"
	}
	home := hx.usable(f.HashHome(h, hx.pos))
	for d := 0; home != s; d++ {
		hp, err := t.hashPage(hx.slots + home>>hx.shift)
		if err != nil || d >= hx.maxProbe || le.Uint64(hp[(home&hx.mask)*f.HashSlotSize:]) == 0 {
			return "hash slot out of its key's reach"
		}
		home = hx.usable(home + 1)
	}
	return ""
}
