package hostile

import (
	"errors"
	"fmt"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Crafted is a hostile file and the lookups that expose it: Probes[table]
// are keys to Get, in order, before any other read (some attacks need a
// first read to make the reader trust a page that a later read uses).
type Crafted struct {
	Data   []byte
	Probes map[string][][]byte
}

// Case is a named attack found by an outside battery (issue 15): Make turns
// a valid file of the shape Seed names into the attack.
type Case struct {
	Name string
	Doc  string
	Seed string
	Make func(seed []byte) (*Crafted, error)
}

// Seed shapes the cases need (the harness builds them with the engine).
const (
	SeedPlainDense  = "plain-int64-dense"  // one plain int64 table, consecutive keys, same-size values, overflow values in several leaves, 512-byte pages
	SeedZstd        = "zstd-int64"         // one zstd int64 table of depth >= 2, 512-byte pages
	SeedZstdDict    = "zstd-dict-string"   // one zstd+dictionary string table
	SeedPage64K     = "plain-64k"          // plain table, 65536-byte pages
	SeedPage16K     = "plain-16k"          // plain table, 16384-byte pages
	SeedStringInt   = "plain-string-int64" // a plain string table "s" then a plain int64 table "i"
	SeedPlainString = "plain-string-deep"  // one plain string table of depth >= 2, 512-byte pages
)

// Cases are the named regression cases, one per finding.
var Cases = []Case{
	{"overflow-trusts-page", "an overflow reference points at the table's last leaf with the checksum of that page; reading the value marks the page checked, and that page claims 65535 consecutive fixed-size entries, so a get of an absent key past the end trusts it", SeedPlainDense, overflowTrustsPage},
	{"zstd-bomb", "a 120 KB zstd block that decodes to 3.9 GB", SeedZstd, zstdBomb(3900 << 20)},
	{"zstd-bomb-64m", "a zstd block that decodes to 64 MB (fails, but after decoding all of it)", SeedZstd, zstdBomb(64 << 20)},
	{"page-count-wrap-64k", "footer page count 2^48 + the real count at 64 KiB pages: times the page size it wraps to the real catalog offset", SeedPage64K, pageCountWrap},
	{"page-count-wrap-16k", "footer page count 2^50 + the real count at 16 KiB pages", SeedPage16K, pageCountWrap},
	{"block-child-into-catalog", "a compressed table's level-1 branch child points 8 bytes into the catalog", SeedZstd, blockChildIntoCatalog},
	{"shared-dictionary-tables", "60,000 zstd tables sharing one dictionary (and one tree) in a 2 MB file", SeedZstdDict, copies(60000)},
	{"int64-table-gets-string-tree", "the int64 table is given the string table's tree, which the reads of the string table check first", SeedStringInt, int64GetsStringTree},
	{"overflow-crc-never-checked", "a second overflow reference into the first one's value, shorter, with a wrong checksum", SeedPlainDense, overflowCRCNeverChecked},
	{"shared-tree-tables", "200,000 tables sharing one tree in a 6.5 MB file (verify walks it 200,000 times)", SeedPlainString, copies(200000)},
	{"corrupt-dictionary", "a zstd dictionary whose checksum is valid and whose content does not parse", SeedZstdDict, corruptDictionary},
}

func craft(fl *File, probes map[string][][]byte) (*Crafted, error) {
	b, err := fl.Bytes()
	if err != nil {
		return nil, err
	}
	return &Crafted{Data: b, Probes: probes}, nil
}

// LeafKey returns key i of a leaf (a copy).
func (fl *File) LeafKey(l Loc, i int) []byte {
	p := node(fl.Node(l))
	pos, n := p.keyPos(i)
	return append([]byte(nil), p[pos:pos+n]...)
}

func overflowTrustsPage(seed []byte) (*Crafted, error) {
	fl, err := Parse(seed)
	if err != nil {
		return nil, err
	}
	t := fl.Trees[0]
	last := t.Leaves[len(t.Leaves)-1]
	var r *Ref
	for _, x := range fl.Refs {
		if x.Tree == t && x.At != last {
			r = x
			break
		}
	}
	if r == nil || last.Block >= 0 {
		return nil, errors.New("hostile: seed has no overflow value outside the last leaf")
	}
	x := fl.Edit(last)
	x[f.PgType] = f.PageLeaf8 | f.Leaf8Seq | f.Leaf8Fixed
	f.PutU16(x, f.PgN, 0xFFFF)
	ref := fl.Edit(r.At)[r.Pos:]
	f.PutU64(ref, 0, last.Pgno)
	f.PutU64(ref, 8, uint64(fl.PS))
	r.Refresh = true
	first := fl.LeafKey(last, 0)
	absent := append([]byte(nil), first...)
	// big-endian key + 60,000: inside the claimed 65,535 entries, past the real ones
	v := uint64(0)
	for _, c := range absent {
		v = v<<8 | uint64(c)
	}
	v += 60000
	for i := 7; i >= 0; i-- {
		absent[i] = byte(v)
		v >>= 8
	}
	name := fl.Cat.Tables[t.Table].Name
	return craft(fl, map[string][][]byte{name: {fl.LeafKey(r.At, r.Entry), absent, absent}})
}

func zstdBomb(size uint64) func([]byte) (*Crafted, error) {
	return func(seed []byte) (*Crafted, error) {
		fl, err := Parse(seed)
		if err != nil {
			return nil, err
		}
		if len(fl.Blocks) == 0 {
			return nil, errors.New("hostile: seed has no compressed leaf")
		}
		b := fl.Blocks[0]
		key := fl.LeafKey(Loc{Block: 0}, 0)
		fl.MoveBlock(b, fl.AppendBytes(MakeBlock(ZstdBomb(size), f.BlockCompressed)))
		return craft(fl, map[string][][]byte{fl.Cat.Tables[b.Tree.Table].Name: {key, key}})
	}
}

func pageCountWrap(seed []byte) (*Crafted, error) {
	fl, err := Parse(seed)
	if err != nil {
		return nil, err
	}
	WrapPageCount(fl, 0)
	return craft(fl, nil)
}

func blockChildIntoCatalog(seed []byte) (*Crafted, error) {
	fl, err := Parse(seed)
	if err != nil {
		return nil, err
	}
	for bi, b := range fl.Blocks {
		if b.Parent.Block < 0 && b.Parent.Pgno != 0 {
			key := fl.LeafKey(Loc{Block: bi}, 0)
			p := node(fl.Edit(b.Parent))
			// inside the catalog: past the page area, short of the file's end
			f.PutU64(p, p.childPos(b.Entry), uint64(len(fl.Pages))+8)
			return craft(fl, map[string][][]byte{fl.Cat.Tables[b.Tree.Table].Name: {key, key}})
		}
	}
	return nil, errors.New("hostile: seed has no compressed tree of depth >= 2")
}

func copies(n int) func([]byte) (*Crafted, error) {
	return func(seed []byte) (*Crafted, error) {
		fl, err := Parse(seed)
		if err != nil {
			return nil, err
		}
		DuplicateTable(fl, 0, n-1)
		return craft(fl, nil)
	}
}

func int64GetsStringTree(seed []byte) (*Crafted, error) {
	fl, err := Parse(seed)
	if err != nil {
		return nil, err
	}
	if len(fl.Cat.Tables) < 2 || fl.Trees[0].Array || !fl.Trees[1].Array {
		return nil, fmt.Errorf("hostile: seed needs a string table then an int64 table")
	}
	fl.Cat.Tables[1].Tree = fl.Cat.Tables[0].Tree
	s := fl.Trees[0]
	probes := map[string][][]byte{}
	for _, l := range s.Leaves { // read every leaf of the string table first
		probes[fl.Cat.Tables[0].Name] = append(probes[fl.Cat.Tables[0].Name], fl.LeafKey(l, 0))
	}
	probes[fl.Cat.Tables[1].Name] = [][]byte{make([]byte, 8), {0x80, 0, 0, 0, 0, 0, 0, 5}}
	return craft(fl, probes)
}

func overflowCRCNeverChecked(seed []byte) (*Crafted, error) {
	fl, err := Parse(seed)
	if err != nil {
		return nil, err
	}
	if len(fl.Refs) < 2 {
		return nil, errors.New("hostile: seed needs two overflow values")
	}
	a, b := fl.Refs[0], fl.Refs[1]
	ra := fl.Node(a.At)[a.Pos:]
	rb := fl.Edit(b.At)[b.Pos:]
	ln := f.U64(ra, 8) - 1
	f.PutU64(rb, 0, f.U64(ra, 0))
	f.PutU64(rb, 8, ln)
	start := f.U64(ra, 0) * uint64(fl.PS)
	f.PutU32(rb, 16, ^f.CRC(fl.Pages[start:start+ln]))
	name := fl.Cat.Tables[a.Tree.Table].Name
	return craft(fl, map[string][][]byte{name: {fl.LeafKey(a.At, a.Entry), fl.LeafKey(b.At, b.Entry)}})
}

func corruptDictionary(seed []byte) (*Crafted, error) {
	fl, err := Parse(seed)
	if err != nil {
		return nil, err
	}
	ct := &fl.Cat.Tables[0]
	if ct.DictLen == 0 {
		return nil, errors.New("hostile: seed has no dictionary")
	}
	CorruptDictionary(fl.Pages[ct.DictOffset : ct.DictOffset+ct.DictLen])
	return craft(fl, nil)
}
