package hostile

import (
	"fmt"
	"math/rand"
	"sort"

	f "github.com/drydb/drydb/engine/internal/format"
)

// An edit kind changes one structural field, chosen at random among those
// the valid file has, to a value chosen to get past the checks a random
// value fails: a neighbour's value, another tree's page, a count off by
// one, a wrapping product, the catalog's offset. apply returns what it did
// (for the reproducer's edit list), or "" when the file has no such field.
type editKind struct {
	name   string
	weight int
	apply  func(m *mutator) string
}

var editKinds = []editKind{
	{"page-type", 3, (*mutator).pageType},
	{"page-level", 2, (*mutator).pageLevel},
	{"page-n", 4, (*mutator).pageN},
	{"leaf-link", 2, (*mutator).leafLink},
	{"branch-scale", 1, (*mutator).branchScale},
	{"slot", 4, (*mutator).slot},
	{"entry-length", 4, (*mutator).entryLength},
	{"overflow-page", 5, (*mutator).refPage},
	{"overflow-length", 3, (*mutator).refLength},
	{"overflow-shared", 2, (*mutator).refShared},
	{"branch-child", 6, (*mutator).branchChild},
	{"branch-before", 3, (*mutator).branchBefore},
	{"key", 3, (*mutator).key},
	{"leaf8-claims", 3, (*mutator).leafClaims},
	{"catalog-tree", 5, (*mutator).catalogTree},
	{"catalog-swap-tree", 4, (*mutator).swapTree},
	{"catalog-compression", 2, (*mutator).catalogCompression},
	{"catalog-encoding", 2, (*mutator).catalogEncoding},
	{"catalog-unique", 1, (*mutator).catalogUnique},
	{"catalog-duplicate-tables", 2, (*mutator).duplicateTables},
	{"footer-page-count-wrap", 1, (*mutator).footerWrap},
	{"header-page-size", 1, (*mutator).headerPageSize},
	{"block-header", 3, (*mutator).blockHeader},
	{"block-body", 3, (*mutator).blockBody},
	{"dictionary", 2, (*mutator).dictionary},
	{"hash-slot", 5, (*mutator).hashSlot},
	{"catalog-hash", 2, (*mutator).catalogHash},
}

// EditKinds lists the names of the edit kinds, for documentation and tallies.
func EditKinds() []string {
	var n []string
	for _, k := range editKinds {
		n = append(n, k.name)
	}
	return n
}

type mutator struct {
	fl  *File
	rng *rand.Rand
}

// Mutate applies n random structural edits to fl and returns their
// descriptions, each prefixed with its kind. The same rng state on the same
// seed structure gives the same edits.
func Mutate(fl *File, rng *rand.Rand, n int) []string {
	m := &mutator{fl: fl, rng: rng}
	total := 0
	for _, k := range editKinds {
		total += k.weight
	}
	var log []string
	for tries := 0; len(log) < n && tries < 100; tries++ {
		w := rng.Intn(total)
		var k editKind
		for _, k = range editKinds {
			if w < k.weight {
				break
			}
			w -= k.weight
		}
		if d := m.try(k); d != "" {
			log = append(log, k.name+": "+d)
		}
	}
	return log
}

// try applies one edit; an edit whose positions an earlier edit made
// meaningless (a count now past the page) is skipped.
func (m *mutator) try(k editKind) (d string) {
	defer func() {
		if recover() != nil {
			d = ""
		}
	}()
	return k.apply(m)
}

// ---- picking ---------------------------------------------------------------

func (m *mutator) pick(n int) int { return m.rng.Intn(n) }

func (m *mutator) tree(pred func(*Tree) bool) *Tree {
	var ts []*Tree
	for _, t := range m.fl.Trees {
		if pred == nil || pred(t) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil
	}
	return ts[m.pick(len(ts))]
}

func nonEmpty(t *Tree) bool { return len(t.Leaves) > 0 }

// anyNode picks a node of a random tree: a leaf or a branch (plain pages
// and decoded blocks alike).
func (m *mutator) anyNode(wantLeaf, wantBranch bool) (Loc, *Tree, string) {
	t := m.tree(nonEmpty)
	if t == nil {
		return Loc{}, nil, ""
	}
	var locs []Loc
	if wantLeaf {
		locs = append(locs, t.Leaves...)
	}
	if wantBranch {
		for _, p := range t.PagesOf(-1) {
			if p.Level > 0 {
				locs = append(locs, Loc{Pgno: p.Pgno, Block: -1})
			}
		}
	}
	if len(locs) == 0 {
		return Loc{}, nil, ""
	}
	l := locs[m.pick(len(locs))]
	return l, t, m.describe(l, t)
}

func (m *mutator) describe(l Loc, t *Tree) string {
	what := fmt.Sprintf("table %q", m.fl.Cat.Tables[t.Table].Name)
	if t.Index >= 0 {
		what += fmt.Sprintf(" index %q", m.fl.Cat.Tables[t.Table].Indexes[t.Index].Name)
	}
	if l.Block >= 0 {
		return fmt.Sprintf("%s: block at offset %d", what, m.fl.Blocks[l.Block].Off)
	}
	return fmt.Sprintf("%s: page %d", what, l.Pgno)
}

// pageNumber is a page number worth pointing at from tree t: its own
// pages at every level, other trees' pages, overflow pages, the ends.
func (m *mutator) pageNumber(t *Tree) uint64 {
	np := m.fl.NPages()
	switch m.pick(6) {
	case 0, 1:
		if ps := t.PagesOf(-1); len(ps) > 0 {
			return ps[m.pick(len(ps))].Pgno
		}
	case 2:
		if o := m.tree(func(o *Tree) bool { return o != t && len(o.Pages) > 0 }); o != nil {
			return o.Pages[m.pick(len(o.Pages))].Pgno
		}
	case 3:
		if len(m.fl.Refs) > 0 {
			r := m.fl.Refs[m.pick(len(m.fl.Refs))]
			return f.U64(m.fl.Node(r.At), r.Pos)
		}
	}
	return []uint64{0, 1, np - 1, np, np + 1, 1 << 32, 1<<64 - 1, uint64(m.rng.Int63n(int64(np) + 2))}[m.pick(8)]
}

// blockOffset is a byte offset worth pointing at for a block child.
func (m *mutator) blockOffset() uint64 {
	end := uint64(len(m.fl.Pages))
	if len(m.fl.Blocks) > 0 && m.pick(2) == 0 {
		b := m.fl.Blocks[m.pick(len(m.fl.Blocks))]
		return b.Off + []uint64{0, 0, 1, f.BlockHeaderSize, uint64(b.Span), uint64(b.Span) - 1}[m.pick(6)]
	}
	// end is the catalog's offset: end+8 lies inside it
	vals := []uint64{0, 1, end, end - 1, end - f.BlockHeaderSize, end + 1, end + 8, uint64(m.fl.PS), uint64(m.rng.Int63n(int64(end)))}
	for _, ct := range m.fl.Cat.Tables {
		if ct.DictLen > 0 {
			vals = append(vals, ct.DictOffset)
		}
	}
	return vals[m.pick(len(vals))]
}

// number is a new value for a field of width bytes holding v.
func (m *mutator) number(v uint64, width int) uint64 {
	max := uint64(1)<<(8*uint(width)) - 1
	if width == 8 {
		max = 1<<64 - 1
	}
	vals := []uint64{v + 1, v - 1, 0, 1, max, max / 2, max/2 + 1, v * 2, v ^ uint64(1)<<uint(m.pick(8*width)), m.rng.Uint64()}
	return vals[m.pick(len(vals))] & max
}

func put(p []byte, pos, width int, v uint64) uint64 {
	if pos < 0 || pos+width > len(p) {
		panic("field outside the node")
	}
	old := uint64(0)
	for i := 0; i < width; i++ {
		old |= uint64(p[pos+i]) << (8 * i)
		p[pos+i] = byte(v >> (8 * i))
	}
	return old
}

// ---- node edits ------------------------------------------------------------

func (m *mutator) pageType() string {
	l, _, what := m.anyNode(true, true)
	if what == "" {
		return ""
	}
	p := m.fl.Edit(l)
	v := uint64(1+m.pick(4)) | uint64([]byte{0, 0, f.Leaf8Seq, f.Leaf8Fixed, f.Leaf8Seq | f.Leaf8Fixed, 0x40}[m.pick(6)])
	if m.pick(8) == 0 {
		v = uint64(m.rng.Intn(256))
	}
	old := put(p, f.PgType, 1, v)
	return fmt.Sprintf("%s: type %#x -> %#x", what, old, v)
}

func (m *mutator) pageLevel() string {
	l, _, what := m.anyNode(true, true)
	if what == "" {
		return ""
	}
	p := m.fl.Edit(l)
	v := m.number(uint64(p[f.PgLevel]), 1)
	old := put(p, f.PgLevel, 1, v)
	return fmt.Sprintf("%s: level %d -> %d", what, old, v)
}

func (m *mutator) pageN() string {
	l, _, what := m.anyNode(true, true)
	if what == "" {
		return ""
	}
	p := m.fl.Edit(l)
	n := uint64(node(p).n())
	v := []uint64{0, 1, n - 1, n + 1, 2 * n, 0xFFFF, uint64(m.rng.Intn(1 << 16))}[m.pick(7)] & 0xFFFF
	old := put(p, f.PgN, 2, v)
	return fmt.Sprintf("%s: n %d -> %d", what, old, v)
}

func (m *mutator) leafLink() string {
	t := m.tree(func(t *Tree) bool { return !t.Blocks && len(t.Leaves) > 0 })
	if t == nil {
		return ""
	}
	l := t.Leaves[m.pick(len(t.Leaves))]
	p := m.fl.Edit(l)
	pos, name := f.PgPrev, "prev"
	if m.pick(2) == 0 {
		pos, name = f.PgNext, "next"
	}
	v := m.pageNumber(t) & 0xFFFFFFFF
	if m.pick(3) == 0 {
		v = t.Leaves[m.pick(len(t.Leaves))].Pgno
	}
	old := put(p, pos, 4, v)
	return fmt.Sprintf("%s: %s link %d -> %d", m.describe(l, t), name, old, v)
}

func (m *mutator) branchScale() string {
	t := m.tree(func(t *Tree) bool { return t.Array && len(t.PagesOf(1)) > 0 })
	if t == nil {
		return ""
	}
	var br []*PageInfo
	for _, p := range t.Pages {
		if p.Level > 0 {
			br = append(br, p)
		}
	}
	l := Loc{Pgno: br[m.pick(len(br))].Pgno, Block: -1}
	p := m.fl.Edit(l)
	v := m.number(f.U64(p, f.PgScale), 8)
	old := put(p, f.PgScale, 8, v)
	return fmt.Sprintf("%s: scale %#x -> %#x", m.describe(l, t), old, v)
}

func (m *mutator) slot() string {
	l, _, what := m.anyNode(true, true)
	if what == "" {
		return ""
	}
	p := m.fl.Edit(l)
	nd := node(p)
	if nd.kind() == f.PageBranch8 {
		return "" // no slots
	}
	i := m.pick(nd.n())
	pos := nd.slotPos(i)
	end := nd.slotPos(nd.n())
	v := []uint64{uint64(nd.slot(m.pick(nd.n()))), 0, uint64(end - 1), uint64(end), uint64(len(p) - 1), uint64(len(p) - 2), uint64(len(p)), uint64(nd.slot(i) + 1), uint64(nd.slot(i) - 1), uint64(m.rng.Intn(1 << 16))}[m.pick(10)] & 0xFFFF
	old := put(p, pos, 2, v)
	return fmt.Sprintf("%s: slot %d %d -> %d", what, i, old, v)
}

func (m *mutator) entryLength() string {
	l, _, what := m.anyNode(true, true)
	if what == "" {
		return ""
	}
	p := m.fl.Edit(l)
	nd := node(p)
	i := m.pick(nd.n())
	var pos int
	var name string
	switch {
	case nd.leaf() && (nd.array() || m.pick(2) == 0):
		pos, name = nd.vlenPos(i), "vlen"
	case !nd.array():
		pos, name = nd.klenPos(i), "klen"
	default:
		return ""
	}
	cur := uint64(le.Uint16(p[pos:]))
	v := []uint64{cur + 1, cur - 1, 0, 0x7FFF, 0xFFFF, cur ^ f.OverflowFlag, f.OverflowFlag | f.OverflowRefSize, uint64(len(p))}[m.pick(8)] & 0xFFFF
	old := put(p, pos, 2, v)
	return fmt.Sprintf("%s: entry %d %s %#x -> %#x", what, i, name, old, v)
}

func (m *mutator) ref() *Ref {
	if len(m.fl.Refs) == 0 {
		return nil
	}
	return m.fl.Refs[m.pick(len(m.fl.Refs))]
}

func (m *mutator) refPage() string {
	r := m.ref()
	if r == nil {
		return ""
	}
	p := m.fl.Edit(r.At)
	v := m.pageNumber(r.Tree)
	old := put(p, r.Pos, 8, v)
	r.Refresh = m.pick(4) != 0
	if m.pick(2) == 0 { // the length of a whole page, so the value covers a page exactly
		put(p, r.Pos+8, 8, uint64(m.fl.PS))
	}
	return fmt.Sprintf("%s: entry %d overflow page %d -> %d (refresh checksum %v)", m.describe(r.At, r.Tree), r.Entry, old, v, r.Refresh)
}

func (m *mutator) refLength() string {
	r := m.ref()
	if r == nil {
		return ""
	}
	p := m.fl.Edit(r.At)
	ln, pg := f.U64(p, r.Pos+8), f.U64(p, r.Pos)
	toEnd := uint64(len(m.fl.Pages)) - pg*uint64(m.fl.PS)
	v := []uint64{ln + 1, ln - 1, 0, uint64(m.fl.PS), toEnd, toEnd + 1, 1 << 40, 1<<64 - 1, 1 << 63}[m.pick(9)]
	old := put(p, r.Pos+8, 8, v)
	r.Refresh = m.pick(4) != 0
	return fmt.Sprintf("%s: entry %d overflow length %d -> %d (refresh checksum %v)", m.describe(r.At, r.Tree), r.Entry, old, v, r.Refresh)
}

// refShared points one reference into another's value with another length
// and a checksum that matches neither: the second read finds the page
// already marked as checked.
func (m *mutator) refShared() string {
	if len(m.fl.Refs) < 2 {
		return ""
	}
	a, b := m.ref(), m.ref()
	if a == b {
		return ""
	}
	pa := m.fl.Node(a.At)
	pg, ln := f.U64(pa, a.Pos), f.U64(pa, a.Pos+8)
	pb := m.fl.Edit(b.At)
	put(pb, b.Pos, 8, pg)
	nl := []uint64{ln - 1, ln + 1, 1, ln}[m.pick(4)]
	put(pb, b.Pos+8, 8, nl)
	put(pb, b.Pos+16, 4, uint64(m.rng.Uint32()))
	b.Refresh = false
	return fmt.Sprintf("%s: entry %d overflow -> page %d length %d (the value of %s entry %d), wrong checksum",
		m.describe(b.At, b.Tree), b.Entry, pg, nl, m.describe(a.At, a.Tree), a.Entry)
}

func (m *mutator) branchChild() string {
	l, t, what := m.anyNode(false, true)
	if what == "" {
		return ""
	}
	p := m.fl.Edit(l)
	nd := node(p)
	i := m.pick(nd.n())
	var v uint64
	if t.Blocks && p[f.PgLevel] == 1 {
		v = m.blockOffset()
	} else {
		v = m.pageNumber(t)
		if m.pick(3) == 0 {
			v = nd.child(m.pick(nd.n()))
		}
	}
	old := put(p, nd.childPos(i), 8, v)
	return fmt.Sprintf("%s: child %d %d -> %d", what, i, old, v)
}

func (m *mutator) branchBefore() string {
	l, _, what := m.anyNode(false, true)
	if what == "" {
		return ""
	}
	p := m.fl.Edit(l)
	nd := node(p)
	i := m.pick(nd.n())
	pos := nd.beforePos(i)
	v := m.number(f.U64(p, pos), 8)
	if nd.n() > 1 && m.pick(3) == 0 { // a neighbour's count
		v = f.U64(p, nd.beforePos(m.pick(nd.n())))
	}
	old := put(p, pos, 8, v)
	return fmt.Sprintf("%s: before %d %d -> %d", what, i, old, v)
}

func (m *mutator) key() string {
	l, _, what := m.anyNode(true, true)
	if what == "" {
		return ""
	}
	p := m.fl.Edit(l)
	nd := node(p)
	i := m.pick(nd.n())
	pos, kl := nd.keyPos(i)
	if kl == 0 {
		return ""
	}
	old := fmt.Sprintf("%x", p[pos:pos+kl])
	switch m.pick(4) {
	case 0: // a neighbour's key (same length only)
		j := m.pick(nd.n())
		if jp, jl := nd.keyPos(j); jl == kl {
			copy(p[pos:pos+kl], append([]byte(nil), p[jp:jp+jl]...))
		}
	case 1:
		p[pos+kl-1]++
	case 2:
		p[pos+kl-1]--
	default:
		m.rng.Read(p[pos : pos+kl])
	}
	return fmt.Sprintf("%s: key %d %s -> %x", what, i, old, p[pos:pos+kl])
}

// leafClaims sets the leaf8 claims (consecutive keys, fixed-size values) on
// a page that may not satisfy them.
func (m *mutator) leafClaims() string {
	t := m.tree(func(t *Tree) bool { return t.Array && len(t.Leaves) > 0 })
	if t == nil {
		return ""
	}
	l := t.Leaves[m.pick(len(t.Leaves))]
	p := m.fl.Edit(l)
	v := uint64(f.PageLeaf8) | uint64([]byte{f.Leaf8Seq, f.Leaf8Fixed, f.Leaf8Seq | f.Leaf8Fixed, 0}[m.pick(4)])
	old := put(p, f.PgType, 1, v)
	return fmt.Sprintf("%s: type %#x -> %#x", m.describe(l, t), old, v)
}

// ---- catalog, footer, header -----------------------------------------------

func (m *mutator) treeName(t *Tree) string {
	if t.Index < 0 {
		return fmt.Sprintf("table %q", m.fl.Cat.Tables[t.Table].Name)
	}
	return fmt.Sprintf("table %q index %q", m.fl.Cat.Tables[t.Table].Name, m.fl.Cat.Tables[t.Table].Indexes[t.Index].Name)
}

func (m *mutator) catalogTree() string {
	t := m.tree(nil)
	d := t.Desc(m.fl.Cat)
	fields := []*uint64{&d.Rows, &d.Root, &d.Depth, &d.Leaves, &d.FirstPage, &d.LastPage}
	names := []string{"rows", "root", "depth", "leaves", "first page", "last page"}
	i := m.pick(len(fields))
	old := *fields[i]
	v := m.number(old, 8)
	switch {
	case i == 1 && m.pick(2) == 0:
		if t.Blocks && d.Depth == 1 {
			v = m.blockOffset()
		} else {
			v = m.pageNumber(t)
		}
	case i == 2 && m.pick(2) == 0:
		v = []uint64{f.MaxDepth, f.MaxDepth + 1, old + 1, old - 1}[m.pick(4)]
	case (i == 4 || i == 5) && m.pick(2) == 0:
		v = []uint64{0, 1, m.fl.NPages(), m.fl.NPages() - 1, old + 1, old - 1}[m.pick(6)]
	}
	*fields[i] = v
	return fmt.Sprintf("%s: %s %d -> %d", m.treeName(t), names[i], old, v)
}

// swapTree gives one tree another's descriptor (a table an index's tree, an
// int64 table a string table's tree, two tables one tree).
func (m *mutator) swapTree() string {
	a, b := m.tree(nil), m.tree(nil)
	if a == b {
		return ""
	}
	da, db := a.Desc(m.fl.Cat), b.Desc(m.fl.Cat)
	*da = *db
	return fmt.Sprintf("%s gets the tree of %s", m.treeName(a), m.treeName(b))
}

func (m *mutator) catalogCompression() string {
	ti := m.pick(len(m.fl.Cat.Tables))
	ct := &m.fl.Cat.Tables[ti]
	switch m.pick(3) {
	case 0:
		old := ct.Compression
		ct.Compression = byte([]int{0, 1, 2, 3, 255}[m.pick(5)])
		return fmt.Sprintf("table %q: compression %d -> %d", ct.Name, old, ct.Compression)
	case 1:
		old := ct.Level
		ct.Level = []int64{-1, 5, 22, 1 << 40, -(1 << 40)}[m.pick(5)]
		return fmt.Sprintf("table %q: level %d -> %d", ct.Name, old, ct.Level)
	}
	// a dictionary somewhere else: another table's, a tree page, the header
	o := m.fl.Cat.Tables[m.pick(len(m.fl.Cat.Tables))]
	oldOff, oldLen := ct.DictOffset, ct.DictLen
	switch m.pick(3) {
	case 0:
		ct.DictOffset, ct.DictLen = o.DictOffset, o.DictLen
	case 1:
		ct.DictOffset, ct.DictLen = m.pageNumber(m.fl.Trees[0])*uint64(m.fl.PS), uint64(m.fl.PS)
	default:
		ct.DictLen = m.number(ct.DictLen, 8) & 0xFFFFF
	}
	return fmt.Sprintf("table %q: dictionary (%d, %d) -> (%d, %d)", ct.Name, oldOff, oldLen, ct.DictOffset, ct.DictLen)
}

func (m *mutator) catalogEncoding() string {
	ti := m.pick(len(m.fl.Cat.Tables))
	ct := &m.fl.Cat.Tables[ti]
	old := ct.Encoding
	// keyenc's encoding bytes: [kind][nparts][parts...]; 7 is composite
	encs := [][]byte{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {7, 2, 2, 1}, {9, 0}}
	ct.Encoding = encs[m.pick(len(encs))]
	if o := m.fl.Cat.Tables[m.pick(len(m.fl.Cat.Tables))]; m.pick(2) == 0 {
		ct.Encoding = o.Encoding
	}
	return fmt.Sprintf("table %q: encoding %x -> %x", ct.Name, old, ct.Encoding)
}

func (m *mutator) catalogUnique() string {
	t := m.tree(func(t *Tree) bool { return t.Index >= 0 })
	if t == nil {
		return ""
	}
	ix := &m.fl.Cat.Tables[t.Table].Indexes[t.Index]
	ix.Unique = !ix.Unique
	return fmt.Sprintf("%s: unique -> %v", m.treeName(t), ix.Unique)
}

func (m *mutator) duplicateTables() string {
	ti := m.pick(len(m.fl.Cat.Tables))
	n := []int{1, 2, 50, 1000}[m.pick(4)]
	DuplicateTable(m.fl, ti, n)
	return fmt.Sprintf("table %q copied %d times (same tree, same dictionary)", m.fl.Cat.Tables[ti].Name, n)
}

func (m *mutator) footerWrap() string {
	v := WrapPageCount(m.fl, uint(m.pick(3)))
	return fmt.Sprintf("page count %d -> %d (times the page size it wraps to the catalog offset)", m.fl.NPages(), v)
}

func (m *mutator) headerPageSize() string {
	old := f.U32(m.fl.Pages, f.HdrPageSize)
	v := uint64(f.MinPageSize) << uint(m.pick(8))
	put(m.fl.Pages, f.HdrPageSize, 4, v)
	return fmt.Sprintf("page size %d -> %d", old, v)
}

// ---- blocks and dictionaries -----------------------------------------------

func (m *mutator) block() *Block {
	if len(m.fl.Blocks) == 0 {
		return nil
	}
	return m.fl.Blocks[m.pick(len(m.fl.Blocks))]
}

func (m *mutator) blockHeader() string {
	b := m.block()
	if b == nil {
		return ""
	}
	h := m.fl.Pages[b.Off:]
	if m.pick(2) == 0 {
		cl := uint64(f.U32(h, 4))
		v := []uint64{cl + 1, cl - 1, 0, uint64(m.fl.PS), 1<<32 - 1, uint64(len(m.fl.Pages)) - b.Off - f.BlockHeaderSize}[m.pick(6)] & 0xFFFFFFFF
		old := put(h, 4, 4, v)
		return fmt.Sprintf("block at %d: clen %d -> %d", b.Off, old, v)
	}
	v := uint64([]byte{0, 1, 2, 255}[m.pick(4)])
	old := put(h, 8, 1, v)
	return fmt.Sprintf("block at %d: method %d -> %d", b.Off, old, v)
}

// blockBody replaces a leaf block with one that decodes to the wrong size,
// or lies about its size, at the end of the page area.
func (m *mutator) blockBody() string {
	b := m.block()
	if b == nil {
		return ""
	}
	kind := m.fl.Cat.Tables[b.Tree.Table].Compression
	var body []byte
	var what string
	switch m.pick(4) {
	case 0:
		sz := []uint64{uint64(m.fl.PS) + 1, 2 * uint64(m.fl.PS), 1 << 20, 64 << 20}[m.pick(4)]
		body, what = ZstdBomb(sz), fmt.Sprintf("a zstd frame decoding to %d bytes", sz)
	case 1:
		claim := []uint64{uint64(m.fl.PS), 1 << 30, 1<<64 - 1}[m.pick(3)]
		body, what = ZstdLiar(b.Raw[:m.fl.PS/2], claim), fmt.Sprintf("a zstd frame claiming %d bytes", claim)
	case 2:
		claim := []uint64{uint64(m.fl.PS), 1 << 30, 1<<32 - 1}[m.pick(3)]
		body, what = S2Liar(b.Raw[:m.fl.PS/2], claim), fmt.Sprintf("an S2 block claiming %d bytes", claim)
	default:
		enc, _ := m.fl.codecs[b.Tree.Table].encodeBlock(b.Raw, false)
		body = enc[f.BlockHeaderSize:]
		body = body[:len(body)-1-m.pick(len(body)/2+1)]
		what = "its own body cut short"
	}
	off := m.fl.AppendBytes(MakeBlock(body, f.BlockCompressed))
	m.fl.MoveBlock(b, off)
	return fmt.Sprintf("block of table compression %d moved to %d: %s", kind, off, what)
}

func (m *mutator) dictionary() string {
	var tis []int
	for i, ct := range m.fl.Cat.Tables {
		if ct.DictLen > 0 {
			tis = append(tis, i)
		}
	}
	if len(tis) == 0 {
		return ""
	}
	ct := &m.fl.Cat.Tables[tis[m.pick(len(tis))]]
	d := m.fl.Pages[ct.DictOffset : ct.DictOffset+ct.DictLen]
	switch m.pick(3) {
	case 0:
		i := m.pick(len(d))
		d[i] ^= byte(1 + m.pick(255))
		return fmt.Sprintf("table %q: dictionary byte %d changed", ct.Name, i)
	case 1:
		CorruptDictionary(d)
		return fmt.Sprintf("table %q: dictionary entropy tables overwritten", ct.Name)
	}
	old := ct.DictLen
	ct.DictLen = []uint64{old - 1, 8, 1, old / 2}[m.pick(4)]
	return fmt.Sprintf("table %q: dictionary length %d -> %d", ct.Name, old, ct.DictLen)
}

// ---- shared by edits and the named cases -----------------------------------

// DuplicateTable appends n copies of table ti to the catalog under new
// names: the same tree, dictionary and indexes.
func DuplicateTable(fl *File, ti, n int) {
	src := fl.Cat.Tables[ti]
	for i := 0; i < n; i++ {
		c := src
		c.Name = fmt.Sprintf("%s~%d", src.Name, i)
		fl.Cat.Tables = append(fl.Cat.Tables, c)
	}
}

// WrapPageCount sets the footer's page count to the real count plus
// 2^(64 - log2 page size) << extra: times the page size it wraps around to
// the real catalog offset, so a reader that checks the product alone
// believes a count of 2^48 pages (64 KiB pages) or more.
func WrapPageCount(fl *File, extra uint) uint64 {
	shift := uint(0)
	for 1<<shift != fl.PS {
		shift++
	}
	v := fl.NPages() + uint64(1)<<(64-shift+extra%shift)
	fl.PageCount = &v
	return v
}

// CorruptDictionary keeps a zstd dictionary's magic and id (bytes 0..7) and
// overwrites the entropy tables after them, so it still looks like a
// dictionary but does not parse.
func CorruptDictionary(d []byte) {
	for i := 8; i < len(d) && i < 200; i++ {
		d[i] = 0xFF
	}
}

// ---- hash indexes ------------------------------------------------------------

// hashTable picks a table with a hash index (-1: none has one).
func (m *mutator) hashTable() int {
	var ts []int
	for ti := range m.fl.HashPages {
		ts = append(ts, ti)
	}
	if len(ts) == 0 {
		return -1
	}
	sort.Ints(ts)
	return ts[m.pick(len(ts))]
}

// hashSlot rewrites a slot of a hash page: emptied, pointed at another
// entry, page (a branch, another tree's, one past the file, a hash page)
// or fingerprint, or random bits.
func (m *mutator) hashSlot() string {
	ti := m.hashTable()
	if ti < 0 {
		return ""
	}
	pgs := m.fl.HashPages[ti]
	pg := pgs[m.pick(len(pgs))]
	p := m.fl.Node(Loc{Pgno: pg, Block: -1})
	j := f.HashHeaderSlots + m.pick(m.fl.PS/f.HashSlotSize-f.HashHeaderSlots)
	for tries := 0; tries < 64 && f.U64(p, j*f.HashSlotSize) == 0; tries++ { // prefer an occupied slot
		j = f.HashHeaderSlots + m.pick(m.fl.PS/f.HashSlotSize-f.HashHeaderSlots)
	}
	old := f.U64(p, j*f.HashSlotSize)
	fp, lpg, idx := f.HashSlotFields(old)
	var v uint64
	switch m.pick(6) {
	case 0:
		v = 0
	case 1:
		v = f.HashSlot(uint64(fp), lpg, int(m.number(uint64(idx), 2)))
	case 2:
		v = f.HashSlot(uint64(fp), m.pageNumber(m.tree(nil))&0xffffffff, idx)
	case 3:
		v = f.HashSlot(uint64(fp), []uint64{0, 1, m.fl.NPages(), pg, 0xffffffff}[m.pick(5)], idx)
	case 4:
		v = f.HashSlot(uint64(m.rng.Intn(1<<16)), lpg, idx)
	default:
		v = m.rng.Uint64()
	}
	f.PutU64(p, j*f.HashSlotSize, v)
	return fmt.Sprintf("table %d hash page %d slot %d: %#x -> %#x", ti, pg, j, old, v)
}

// catalogHash edits a table's hash descriptor: its pages moved onto the
// tree's, the file's end or nothing, its probe bound past the limit.
func (m *mutator) catalogHash() string {
	ti := m.pick(len(m.fl.Cat.Tables))
	h := &m.fl.Cat.Tables[ti].Hash
	tr := &m.fl.Cat.Tables[ti].Tree
	old := *h
	switch m.pick(5) {
	case 0:
		h.FirstPage, h.LastPage = tr.FirstPage, tr.LastPage
	case 1:
		h.LastPage = m.fl.NPages() + uint64(m.pick(3))
	case 2:
		h.FirstPage, h.LastPage = h.LastPage, h.FirstPage
	case 3:
		h.MaxProbe = []uint64{0, f.HashMaxProbe + 1, 1 << 40}[m.pick(3)]
	default:
		h.FirstPage = m.number(h.FirstPage, 8)
	}
	return fmt.Sprintf("table %d hash %+v -> %+v", ti, old, *h)
}
