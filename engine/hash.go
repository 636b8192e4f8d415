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
	// subtraction.
	HashAuto HashMode = iota
	HashOn            // always (compressed tables: refused, they have none)
	HashOff           // never
)

func (m HashMode) String() string {
	switch m {
	case HashAuto:
		return "auto"
	case HashOn:
		return "on"
	case HashOff:
		return "off"
	}
	return fmt.Sprintf("hash(%d)", uint8(m))
}

func checkHash(o TableOptions) error {
	if o.Hash > HashOff {
		return fmt.Errorf("%w: unknown hash mode %d", ErrInvalid, o.Hash)
	}
	if o.Hash == HashOn && (o.Compression.Kind != CompressNone || o.Compression.Filter != "") {
		return fmt.Errorf("%w: a compressed table has no hash index (its leaves are blocks, not pages)", ErrInvalid)
	}
	return nil
}

// ---- reading ----

// hashIndex is a table's hash region as its tree reads it.
type hashIndex struct {
	first, last uint64 // pages
	pos         uint64 // slot positions, header ones included
	maxProbe    int
	shift       uint   // positions per page = 1 << shift
	mask        uint64 // position within its page
}

func newHashIndex(h f.Hash, pshift uint) *hashIndex {
	if h.LastPage == h.FirstPage {
		return nil
	}
	return &hashIndex{first: h.FirstPage, last: h.LastPage, pos: h.Positions(pshift), maxProbe: int(h.MaxProbe),
		shift: pshift - 3, mask: 1<<(pshift-3) - 1}
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

// hashFind looks key up in the hash index: its leaf and entry, or a nil
// leaf when no slot matches (then the tree decides: a hash index only ever
// confirms a key, it never denies one). A slot's leaf is read as any leaf
// of the tree (checked, in its region, at level 0), and its entry's key is
// compared with key, so a slot that lies cannot produce a wrong answer.
func (t *tree) hashFind(key []byte) ([]byte, int, error) {
	hx := t.hash
	h := f.HashKey(key)
	fp := uint16(h)
	s := hx.usable(f.HashHome(h, hx.pos))
	var hp []byte
	hpg := ^uint64(0)
	for probe := 0; probe <= hx.maxProbe; probe++ {
		if pg := hx.first + s>>hx.shift; pg != hpg {
			var err error
			if hp, err = t.hashPage(pg); err != nil {
				return nil, 0, err
			}
			hpg = pg
		}
		w := le.Uint64(hp[(s&hx.mask)*f.HashSlotSize:])
		if w == 0 {
			return nil, 0, nil
		}
		if wfp, lpg, i := f.HashSlotFields(w); wfp == fp {
			p := t.checked(lpg, 0)
			if p == nil {
				var err error
				if p, err = t.pageSlow(lpg, 0); err != nil {
					return nil, 0, err
				}
			}
			if i < nodeN(p) && bytes.Equal(leafKey(p, i), key) {
				return p, i, nil
			}
		}
		s = hx.usable(s + 1)
	}
	return nil, 0, nil
}

// ---- building ----

// hashBuilder collects a table's slots while its leaves are written
// (treeWriter.holdLeaf, which both the row path and merge's copied leaves
// go through) and writes the region after the branches.
type hashBuilder struct {
	mode  HashMode
	slots []hashEntry
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
	first := o.pgno()
	per := o.pageSize / f.HashSlotSize
	p := make([]byte, o.pageSize)
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
// it): every page's checksum and header, and that the slots name each row
// once, each where a lookup finds it (fingerprint right, within MaxProbe of
// its home with no empty slot between).
func (v *verifier) hash(t *tree) {
	hx := t.hash
	if hx == nil {
		return
	}
	// entries named, a bit each: a leaf's entries number fewer than P/8
	ipp := uint(v.db.pshift - 3)
	named := make([]uint64, ((t.desc.LastPage-t.desc.FirstPage)<<ipp+63)/64)
	var slots uint64
	for pg := hx.first; pg < hx.last; pg++ {
		db := v.db
		if err := t.checkHashPage(pg, db.data[pg<<db.pshift:][:db.ps]); err != nil {
			if !v.fail(err) {
				return
			}
		}
	}
	for s := hx.usable(0); ; {
		pg := hx.first + s>>hx.shift
		hp, err := t.hashPage(pg)
		if err == nil {
			if w := le.Uint64(hp[(s&hx.mask)*f.HashSlotSize:]); w != 0 {
				if r := v.hashSlot(t, s, w); r != "" {
					if !v.fail(&CorruptError{Page: pg, Offset: int64(pg)<<v.db.pshift + int64(s&hx.mask)*f.HashSlotSize, Reason: t.name + ": " + r}) {
						return
					}
				}
				slots++
				if _, lpg, i := f.HashSlotFields(w); lpg-t.desc.FirstPage < t.desc.LastPage-t.desc.FirstPage && i < 1<<ipp {
					b := (lpg-t.desc.FirstPage)<<ipp | uint64(i)
					if named[b>>6]&(1<<(b&63)) != 0 {
						v.fail(t.corrupt(hx.first, "hash index names an entry twice"))
					}
					named[b>>6] |= 1 << (b & 63)
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
	fp, lpg, i := f.HashSlotFields(w)
	if lpg-t.desc.FirstPage >= t.desc.LastPage-t.desc.FirstPage || v.seen[lpg>>6]&(1<<(lpg&63)) == 0 {
		return fmt.Sprintf("hash slot names page %d, not a leaf the tree reaches", lpg)
	}
	p, err := t.page(lpg, 0)
	if err != nil {
		return fmt.Sprintf("hash slot names page %d: %v", lpg, err)
	}
	if i >= nodeN(p) {
		return fmt.Sprintf("hash slot names entry %d of a leaf of %d", i, nodeN(p))
	}
	h := f.HashKey(leafKey(p, i))
	if uint16(h) != fp {
		return "hash slot's fingerprint does not match its key"
	}
	home := hx.usable(f.HashHome(h, hx.pos))
	for d := 0; home != s; d++ {
		hp, err := t.hashPage(hx.first + home>>hx.shift)
		if err != nil || d >= hx.maxProbe || le.Uint64(hp[(home&hx.mask)*f.HashSlotSize:]) == 0 {
			return "hash slot out of its key's reach"
		}
		home = hx.usable(home + 1)
	}
	return ""
}
