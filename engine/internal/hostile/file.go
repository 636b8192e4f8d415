// Package hostile crafts drydb files whose every checksum is valid but
// whose structure lies: it takes a valid file apart (header, footer,
// catalog, every tree's branch and leaf pages, compressed leaf blocks,
// overflow references, dictionaries), lets a caller edit any structural
// field, and writes the file back with every checksum recomputed, so that
// only the engine's structural checks stand between the edit and a read.
//
// All layout knowledge comes from engine/internal/format; this package adds
// only the walk that finds which bytes play which role. It does not import
// the engine (the engine's tests import it); the seeds, the reader that
// exercises every read call and the child-process runner live in
// hostile/harness.
package hostile

import (
	"errors"
	"fmt"
	"sort"

	f "github.com/drydb/drydb/engine/internal/format"
)

// File is a drydb file taken apart. Edit Pages, Cat, Blocks[i].Raw (then
// mark it Dirty) and the footer overrides, then call Bytes.
type File struct {
	PS    int
	Pages []byte // the page area: page 0 (header) up to the catalog
	Cat   *f.Catalog
	// CatalogRaw, when set, is written instead of Cat's encoding.
	CatalogRaw []byte
	// Footer overrides, applied after the footer is computed.
	PageCount *uint64
	CatOff    *uint64
	CatLen    *uint64
	FileLen   *uint64

	Trees    []*Tree
	Blocks   []*Block
	Refs     []*Ref
	pageRole map[uint64]*PageInfo // plain tree pages of the valid file
	// HashPages are the hash index pages of the valid file, by table.
	HashPages map[int][]uint64
	codecs    map[int]*codec // table index -> codec (compressed tables)
	// NoFix lists checksums not to recompute (a case that wants one wrong).
	NoFix struct{ Dict map[int]bool }
}

// Tree is one B+tree of the valid file: a table's (Index -1) or an index's.
type Tree struct {
	Table, Index int
	Blocks       bool // leaves are compressed blocks (level-1 children are byte offsets)
	Array        bool // key-array pages (8-byte keys)
	Pages        []*PageInfo
	Leaves       []Loc // in key order
}

// Desc returns the tree's descriptor in the catalog.
func (t *Tree) Desc(c *f.Catalog) *f.Tree {
	if t.Index < 0 {
		return &c.Tables[t.Table].Tree
	}
	return &c.Tables[t.Table].Indexes[t.Index].Tree
}

// PageInfo is a plain tree page of the valid file.
type PageInfo struct {
	Pgno  uint64
	Level int
	Tree  *Tree
}

// Block is a compressed leaf of the valid file, decoded. Set Dirty after
// editing Raw: Bytes re-encodes it (in place when it fits, else at the end
// of the page area, with its parent's pointer moved there).
type Block struct {
	Off    uint64
	Span   int    // bytes the original block occupies, header included
	Raw    []byte // the decoded leaf page
	Tree   *Tree
	Parent Loc // the level-1 branch page (Block -1) pointing to it; Pgno 0 = the catalog root
	Entry  int // entry index in Parent
	Dirty  bool
	// Plain stores the block uncompressed (method plain) when re-encoded.
	Plain bool
}

// Loc names a node: a plain page (Block < 0) or a compressed leaf block.
type Loc struct {
	Pgno  uint64
	Block int
}

// Ref is an overflow value reference in a leaf of the valid file.
type Ref struct {
	At  Loc
	Pos int // position of the 20-byte reference in the node
	// Refresh makes Bytes recompute the reference's checksum over whatever
	// range it points at, so that the value check passes.
	Refresh bool
	Tree    *Tree
	Entry   int
}

// Parse takes a valid file apart. It fails on a file that does not follow
// the format (it is meant for seeds built by the engine).
func Parse(b []byte) (fl *File, err error) {
	defer func() {
		if r := recover(); r != nil {
			fl, err = nil, fmt.Errorf("hostile: parse: %v", r)
		}
	}()
	if len(b) < f.MinPageSize+f.FooterSize || [8]byte(b[:8]) != f.Magic {
		return nil, errors.New("hostile: not a drydb file")
	}
	ps := int(f.U32(b, f.HdrPageSize))
	ftr := b[len(b)-f.FooterSize:]
	catOff, catLen := f.U64(ftr, f.FtrCatalogOff), f.U64(ftr, f.FtrCatalogLen)
	cat, err := f.DecodeCatalog(b[catOff:catOff+catLen], f.U32(b, f.HdrVersion))
	if err != nil {
		return nil, err
	}
	fl = &File{PS: ps, Pages: append([]byte(nil), b[:catOff]...), Cat: cat,
		pageRole: map[uint64]*PageInfo{}, codecs: map[int]*codec{}, HashPages: map[int][]uint64{}}
	for ti := range cat.Tables {
		ct := &cat.Tables[ti]
		blocks := ct.Compression != 0 || ct.Filter != ""
		if ct.Filter != "" {
			return nil, fmt.Errorf("hostile: table %q: page filters are not supported", ct.Name)
		}
		if blocks {
			var dict []byte
			if ct.DictLen > 0 {
				dict = b[ct.DictOffset : ct.DictOffset+ct.DictLen]
			}
			c, err := newCodec(ct.Compression, dict)
			if err != nil {
				return nil, err
			}
			fl.codecs[ti] = c
		}
		for pg := ct.Hash.FirstPage; pg < ct.Hash.LastPage; pg++ {
			fl.HashPages[ti] = append(fl.HashPages[ti], pg)
		}
		if err := fl.walk(&Tree{Table: ti, Index: -1, Blocks: blocks}); err != nil {
			return nil, err
		}
		for xi := range ct.Indexes {
			if err := fl.walk(&Tree{Table: ti, Index: xi}); err != nil {
				return nil, err
			}
		}
	}
	return fl, nil
}

// Node returns the bytes of a node, to read or edit in place (a block's
// edits need Dirty, which Edit sets).
func (fl *File) Node(l Loc) []byte {
	if l.Block >= 0 {
		return fl.Blocks[l.Block].Raw
	}
	o := int(l.Pgno) * fl.PS
	return fl.Pages[o : o+fl.PS : o+fl.PS]
}

// Edit returns a node's bytes for editing, marking a block dirty.
func (fl *File) Edit(l Loc) []byte {
	if l.Block >= 0 {
		fl.Blocks[l.Block].Dirty = true
	}
	return fl.Node(l)
}

// NPages is the number of pages before the catalog.
func (fl *File) NPages() uint64 { return uint64(len(fl.Pages) / fl.PS) }

func (fl *File) walk(t *Tree) error {
	d := t.Desc(fl.Cat)
	fl.Trees = append(fl.Trees, t)
	if d.Depth == 0 {
		return nil
	}
	type item struct {
		ref    uint64
		level  int
		parent Loc
		entry  int
	}
	// Depth first, children in order, so that Leaves is in key order.
	stack := []item{{d.Root, int(d.Depth) - 1, Loc{Block: -1}, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var l Loc
		if it.level == 0 && t.Blocks {
			blk, err := fl.codecs[t.Table].decodeBlock(fl.Pages, it.ref, fl.PS)
			if err != nil {
				return fmt.Errorf("hostile: block at %d: %w", it.ref, err)
			}
			blk.Tree, blk.Parent, blk.Entry = t, it.parent, it.entry
			fl.Blocks = append(fl.Blocks, blk)
			l = Loc{Block: len(fl.Blocks) - 1}
		} else {
			pi := &PageInfo{Pgno: it.ref, Level: it.level, Tree: t}
			fl.pageRole[it.ref] = pi
			t.Pages = append(t.Pages, pi)
			l = Loc{Pgno: it.ref, Block: -1}
		}
		p := node(fl.Node(l))
		t.Array = p.array()
		if it.level == 0 {
			t.Leaves = append(t.Leaves, l)
			for i := 0; i < p.n(); i++ {
				if pos, _, ovf := p.valuePos(i); ovf {
					fl.Refs = append(fl.Refs, &Ref{At: l, Pos: pos, Tree: t, Entry: i})
				}
			}
			continue
		}
		for i := p.n() - 1; i >= 0; i-- {
			stack = append(stack, item{p.child(i), it.level - 1, l, i})
		}
	}
	return nil
}

// PagesOf returns the plain pages of tree t at a level (-1: every level).
func (t *Tree) PagesOf(level int) []*PageInfo {
	var out []*PageInfo
	for _, p := range t.Pages {
		if level < 0 || p.Level == level {
			out = append(out, p)
		}
	}
	return out
}

// AppendPages adds n zeroed pages at the end of the page area and returns
// the first one's number.
func (fl *File) AppendPages(n int) uint64 {
	pg := fl.NPages()
	fl.Pages = append(fl.Pages, make([]byte, n*fl.PS)...)
	return pg
}

// AppendBytes stores b at the end of the page area (page aligned, padded)
// and returns its offset.
func (fl *File) AppendBytes(b []byte) uint64 {
	pg := fl.AppendPages((len(b) + fl.PS - 1) / fl.PS)
	off := pg * uint64(fl.PS)
	copy(fl.Pages[off:], b)
	return off
}

// Bytes writes the file back with every checksum recomputed: compressed
// leaves re-encoded, overflow references marked Refresh, page checksums of
// every tree page, block checksums, dictionary checksums, the header, the
// catalog and the footer. Overrides (footer fields, CatalogRaw, NoFix) are
// applied last, with the footer's own checksum recomputed after them.
func (fl *File) Bytes() ([]byte, error) {
	// Overflow references inside blocks first: their targets are plain
	// bytes, and the blocks are encoded after.
	for _, r := range fl.Refs {
		if r.Refresh && r.At.Block >= 0 {
			fl.refresh(r)
			fl.Blocks[r.At.Block].Dirty = true
		}
	}
	for _, blk := range fl.Blocks {
		if blk.Dirty {
			if err := fl.placeBlock(blk); err != nil {
				return nil, err
			}
			blk.Dirty = false
		}
	}
	// A reference may point at tree pages whose checksums change in turn:
	// iterate until stable (a reference to its own page never is).
	for round := 0; round < 3; round++ {
		fl.fixPages()
		changed := false
		for _, r := range fl.Refs {
			if r.Refresh && r.At.Block < 0 {
				changed = fl.refresh(r) || changed
			}
		}
		if !changed {
			break
		}
	}
	fl.fixPages()
	// Last block first: a block whose length was edited to cover later
	// blocks must have its checksum computed over their final bytes.
	offs := make([]uint64, 0, len(fl.Blocks))
	for _, blk := range fl.Blocks {
		offs = append(offs, blk.Off)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] > offs[j] })
	for _, off := range offs {
		fixBlockCRC(fl.Pages, off)
	}
	for ti := range fl.Cat.Tables {
		ct := &fl.Cat.Tables[ti]
		if ct.DictLen > 0 && !fl.NoFix.Dict[ti] && ct.DictOffset <= uint64(len(fl.Pages)) && ct.DictLen <= uint64(len(fl.Pages))-ct.DictOffset {
			ct.DictCRC = f.CRC(fl.Pages[ct.DictOffset : ct.DictOffset+ct.DictLen])
		}
	}
	f.PutU32(fl.Pages, f.HdrCRC, f.CRC(fl.Pages[:f.HdrCRC]))
	cat := fl.CatalogRaw
	if cat == nil {
		cat = fl.Cat.Encode(nil)
	}
	out := make([]byte, 0, len(fl.Pages)+len(cat)+f.FooterSize)
	out = append(out, fl.Pages...)
	out = append(out, cat...)
	ftr := make([]byte, f.FooterSize)
	set := func(pos int, v uint64, over *uint64) {
		if over != nil {
			v = *over
		}
		f.PutU64(ftr, pos, v)
	}
	set(f.FtrCatalogOff, uint64(len(fl.Pages)), fl.CatOff)
	set(f.FtrCatalogLen, uint64(len(cat)), fl.CatLen)
	f.PutU32(ftr, f.FtrCatalogCRC, f.CRC(cat))
	set(f.FtrPageCount, fl.NPages(), fl.PageCount)
	set(f.FtrFileLen, uint64(len(out)+f.FooterSize), fl.FileLen)
	f.PutU32(ftr, f.FtrCRC, f.CRC(ftr[:f.FtrCRC]))
	copy(ftr[f.FtrMagic:], f.Magic[:])
	return append(out, ftr...), nil
}

// fixPages recomputes the checksum of every tree and hash page of the
// valid file, in page order.
func (fl *File) fixPages() {
	pgs := make([]uint64, 0, len(fl.pageRole))
	for pg := range fl.pageRole {
		pgs = append(pgs, pg)
	}
	for _, hp := range fl.HashPages {
		pgs = append(pgs, hp...)
	}
	sort.Slice(pgs, func(i, j int) bool { return pgs[i] < pgs[j] })
	for _, pg := range pgs {
		p := fl.Node(Loc{Pgno: pg, Block: -1})
		f.PutU32(p, f.PgCRC, f.CRC(p[4:]))
	}
}

// refresh sets a reference's checksum to that of the range it points at
// (clipped to the page area); it reports whether the checksum changed.
func (fl *File) refresh(r *Ref) bool {
	ref := fl.Node(r.At)[r.Pos:]
	pg, ln := f.U64(ref, 0), f.U64(ref, 8)
	start := pg * uint64(fl.PS)
	if pg >= fl.NPages() || start/uint64(fl.PS) != pg {
		return false
	}
	end := uint64(len(fl.Pages))
	if ln < end-start {
		end = start + ln
	}
	crc := f.CRC(fl.Pages[start:end])
	if f.U32(ref, 16) == crc {
		return false
	}
	f.PutU32(ref, 16, crc)
	return true
}

// placeBlock re-encodes a block: in place when it fits the original span,
// else at the end of the page area with its parent's pointer moved.
func (fl *File) placeBlock(blk *Block) error {
	enc, err := fl.codecs[blk.Tree.Table].encodeBlock(blk.Raw, blk.Plain)
	if err != nil {
		return err
	}
	if len(enc) <= blk.Span {
		copy(fl.Pages[blk.Off:], enc)
		return nil
	}
	off := fl.AppendBytes(enc)
	fl.MoveBlock(blk, off)
	return nil
}

// MoveBlock points a block's parent (a level-1 branch or the catalog root)
// at off, where the caller has put the block.
func (fl *File) MoveBlock(blk *Block, off uint64) {
	blk.Off, blk.Span = off, int(f.BlockHeaderSize+f.U32(fl.Pages, int(off)+4))
	if blk.Parent.Block < 0 && blk.Parent.Pgno == 0 {
		blk.Tree.Desc(fl.Cat).Root = off
		return
	}
	p := node(fl.Node(blk.Parent))
	f.PutU64(p, p.childPos(blk.Entry), off)
}

// fixBlockCRC recomputes the checksum of the block at off, with the length
// its header states (left alone when that runs past the page area).
func fixBlockCRC(pages []byte, off uint64) {
	if off+f.BlockHeaderSize > uint64(len(pages)) {
		return
	}
	clen := uint64(f.U32(pages, int(off)+4))
	if clen > uint64(len(pages))-off-f.BlockHeaderSize {
		return
	}
	blk := pages[off : off+f.BlockHeaderSize+clen]
	f.PutU32(blk, 0, f.CRC(blk[4:]))
}
