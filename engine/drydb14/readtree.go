package drydb14

import (
	"bytes"
	"cmp"
	"encoding/binary"
)

// PageRef is a secondary index entry's value: where the row's value lies, in the decoded page.
type PageRef struct {
	Page          int64
	Start, Length int32
}

// Row is a primary entry: its key in 1.4 bytes and its value.
type Row struct {
	Key, Value []byte
}

// Entry is a secondary index entry: the index key in 1.4 bytes (the rid of a non-unique index
// stripped), and the row it leads to, as a position in TableData.Rows.
type Entry struct {
	Key []byte
	Row int
}

// TableData is everything a table holds, in the file's order.
type TableData struct {
	Rows    []Row
	Indexes [][]Entry // parallel to Table.Indexes
}

// ReadTable reads and checks every page of t's trees. Checks: page kinds, one layout per tree,
// all leaves at one depth, sibling links on every level, digests equal to their keys' digests
// (Eytzinger padding u64::MAX), keys strictly ascending, every separator equal to the first key of
// its child, every value and PageRef inside its page, every index entry leading to a row whose
// value it names.
func (f *File) ReadTable(t *Table) (*TableData, error) {
	td := &TableData{}
	// refs finds a row by the PageRef of its value. A PageRef cannot always name one row: two
	// consecutive 0-byte values on an OmittedKeys page share (page, start, 0). Those rows have
	// equal (empty) values, so any of them gives the right value; dup keeps the others, and each
	// index hands them out in turn, so that every row gets one entry where it can.
	// Only a table with indexes needs them (they are most of the cost of reading a table).
	var refs map[PageRef]int
	dup := map[PageRef][]int{}
	if len(t.Indexes) > 0 {
		refs = map[PageRef]int{}
	}
	pw := walker{f: f, tr: &t.Primary, emit: func(key, val []byte, ref PageRef) error {
		if refs != nil {
			if first, seen := refs[ref]; seen {
				dup[ref] = append(dup[ref], first)
			}
			refs[ref] = len(td.Rows)
		}
		td.Rows = append(td.Rows, Row{Key: key, Value: val})
		return nil
	}}
	if err := pw.walk(); err != nil {
		return nil, err
	}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		var es []Entry
		turn := map[PageRef]int{}
		var w walker
		w = walker{f: f, tr: ix, emit: func(key, val []byte, _ PageRef) error {
			if len(val) != pageRefSize {
				return w.errf("index %q entry holds %d bytes, not a %d-byte PageRef", ix.Name, len(val), pageRefSize)
			}
			ref := PageRef{Page: int64(binary.LittleEndian.Uint64(val)), Start: int32(binary.LittleEndian.Uint32(val[8:])), Length: int32(binary.LittleEndian.Uint32(val[12:]))}
			row, ok := refs[ref]
			if !ok {
				return w.errf("index %q entry's PageRef (%d, %d, %d) names no value of table %q", ix.Name, ref.Page, ref.Start, ref.Length, t.Name)
			}
			if d := dup[ref]; len(d) > 0 {
				all := append([]int{row}, d...)
				row = all[turn[ref]%len(all)]
				turn[ref]++
			}
			if !ix.Unique {
				key = key[:len(key)-w.ridLen]
			}
			es = append(es, Entry{Key: key, Row: row})
			return nil
		}}
		if err := w.walk(); err != nil {
			return nil, err
		}
		td.Indexes = append(td.Indexes, es)
	}
	return td, nil
}

// walker reads one tree depth first, left to right, which is key order.
type walker struct {
	f     *File
	tr    *Tree
	emit  func(key, val []byte, ref PageRef) error
	flags int32 // the tree's layout flags, from its root
	// height is the depth of the leaves (-1 until the first leaf).
	height int
	// left[d] is the last page visited at depth d (-1: none yet), and right[d] its right link:
	// the next page at depth d must be that page, and name it as its left.
	left, right []int64
	prev        []byte // previous leaf key (composite for non-unique trees), if havePrev
	havePrev    bool
	// ridLen is 4 for a non-unique tree whose keys carry their rid, 0 where keys are omitted
	// (C#-built i64 indexes, D8/D9 of the layout notes), so equal keys may follow each other.
	ridLen int
	page   int64 // the page being read, for errors
}

func (w *walker) errf(format string, args ...any) error {
	return w.f.corrupt(w.page, "tree %q: "+format, append([]any{w.tr.Name}, args...)...)
}

func (w *walker) walk() error {
	if w.tr.Root < 0 {
		return nil // the C# builder's empty tree
	}
	w.height = -1
	if _, err := w.visit(w.tr.Root, 0); err != nil {
		return err
	}
	for d, r := range w.right {
		if r != -1 {
			w.page = w.left[d]
			return w.errf("last page of level %d has right sibling %d", d, r)
		}
	}
	return nil
}

// visit reads page ord at depth d and returns the first key of its subtree.
func (w *walker) visit(ord int64, d int) ([]byte, error) {
	w.page = ord
	if d >= maxDepth {
		return nil, w.errf("deeper than %d levels", maxDepth)
	}
	p, err := w.f.page(ord, useTree, w.f.PageSize)
	if err != nil {
		return nil, err
	}
	kw := int32(binary.LittleEndian.Uint32(p[offKind:]))
	n := int64(int32(binary.LittleEndian.Uint32(p[offCount:])))
	left := int64(binary.LittleEndian.Uint64(p[offLeft:]))
	right := int64(binary.LittleEndian.Uint64(p[offRight:]))
	kind, flags := kw&kindMask, kw&^kindMask
	if flags&^knownFlags != 0 || kind > kindInternal {
		return nil, w.errf("unknown kind word 0x%x", kw)
	}
	if flags&FlagOmittedKeys != 0 && (flags&FlagCompactMeta == 0 || flags&FlagEytzinger != 0 || !w.tr.Enc.exact) {
		return nil, w.errf("OmittedKeys with flags 0x%x on a %s tree", flags, w.tr.Enc.ID)
	}
	if flags&FlagCompactMeta != 0 && len(p) > compactMaxPage {
		return nil, w.errf("CompactMeta page of %d bytes (at most %d)", len(p), compactMaxPage)
	}
	if d == 0 {
		w.flags = flags
		w.ridLen = 0
		if !w.tr.Unique && flags&FlagOmittedKeys == 0 {
			w.ridLen = ridSize
		}
	} else if flags != w.flags {
		return nil, w.errf("layout flags 0x%x differ from the root's 0x%x", flags, w.flags)
	}
	for len(w.left) <= d {
		w.left, w.right = append(w.left, -1), append(w.right, -1)
	}
	if left != w.left[d] || (w.left[d] != -1 && w.right[d] != ord) {
		return nil, w.errf("sibling links broken at level %d (left %d, expected %d; previous page's right %d)", d, left, w.left[d], w.right[d])
	}
	w.left[d], w.right[d] = ord, right
	if n < 0 || n > int64(len(p)-PrefixSize)/ordinalSize {
		return nil, w.errf("entry count %d does not fit a %d-byte page", n, len(p))
	}
	if n == 0 && (kind == kindInternal || d > 0) {
		return nil, w.errf("empty page below the root or empty internal page")
	}
	pg := nodePage{p: p, n: int(n), flags: flags, leaf: kind == kindLeaf, enc: w.tr.Enc}
	if err := pg.layout(); err != nil {
		return nil, w.errf("%s", err)
	}
	if pg.leaf {
		if w.height == -1 {
			w.height = d
		} else if w.height != d {
			return nil, w.errf("leaf at depth %d, other leaves at depth %d", d, w.height)
		}
		return w.leaf(&pg, ord)
	}
	var first []byte
	for i := 0; i < pg.n; i++ {
		sep, child, err := pg.internal(i)
		if err == nil {
			err = w.checkKey(&pg, i, sep)
		}
		if err != nil {
			return nil, w.errf("entry %d: %s", i, err)
		}
		cf, err := w.visit(child, d+1)
		if err != nil {
			return nil, err
		}
		w.page = ord
		if !bytes.Equal(sep, cf) {
			return nil, w.errf("separator %d (%x) is not the first key of its child (%x)", i, sep, cf)
		}
		if i == 0 {
			first = sep
		}
	}
	return first, nil
}

func (w *walker) leaf(pg *nodePage, ord int64) ([]byte, error) {
	var first []byte
	for i := 0; i < pg.n; i++ {
		key, val, blob, start, err := pg.leafEntry(i)
		if err == nil {
			err = w.checkKey(pg, i, key)
		}
		if err != nil {
			return nil, w.errf("entry %d: %s", i, err)
		}
		if w.havePrev {
			// Equal keys follow each other only in a non-unique tree whose rids were omitted.
			if c := w.compare(w.prev, key); c > 0 || (c == 0 && (w.tr.Unique || w.ridLen != 0)) {
				return nil, w.errf("entry %d: key %x does not follow %x", i, key, w.prev)
			}
		}
		w.prev, w.havePrev = key, true
		if i == 0 {
			first = key
		}
		ref := PageRef{Page: ord, Start: int32(start), Length: int32(len(val))}
		if blob >= 0 {
			if val, err = w.f.blob(blob); err != nil {
				return nil, err
			}
			w.page = ord
			if int64(len(val)) > 1<<31-1 {
				return nil, w.errf("blob of %d bytes", len(val))
			}
			ref = PageRef{Page: blob, Start: PrefixSize, Length: int32(len(val))}
		}
		if err := w.emit(key, val, ref); err != nil {
			return nil, err
		}
	}
	return first, nil
}

// checkKey checks key i's width and digest. A non-unique tree's key is index key ‖ rid; its
// digest is that of the index key (drydb-rs) or of the whole composite (C#): both are accepted.
func (w *walker) checkKey(pg *nodePage, i int, key []byte) error {
	ik := key
	if w.ridLen != 0 {
		if len(key) < ridSize {
			return errf("non-unique index key of %d bytes has no rid", len(key))
		}
		ik = key[:len(key)-ridSize]
	}
	if err := w.tr.Enc.check(ik); err != nil {
		return err
	}
	d := pg.digest(i)
	if d != w.tr.Enc.digest(ik) && (w.ridLen == 0 || d != w.tr.Enc.digest(key)) {
		return errf("digest 0x%x is not that of key %x", d, key)
	}
	return nil
}

// compare orders two keys of the tree in 1.4 order: the encoding's order of the index keys, then
// (non-unique trees) the signed rid.
func (w *walker) compare(a, b []byte) int {
	ia, ib := a[:len(a)-w.ridLen], b[:len(b)-w.ridLen]
	c := w.tr.Enc.compare(ia, ib)
	if c != 0 || w.ridLen == 0 {
		return c
	}
	return cmp.Compare(int32(binary.LittleEndian.Uint32(a[len(ia):])), int32(binary.LittleEndian.Uint32(b[len(ib):])))
}

// compare orders keys (checked for width) as 1.4 does: i64 numerically, uuidv7 as .NET's Guid
// (its digest, then bytes 8..15), ascii and ulid bytewise.
func (e Encoding) compare(a, b []byte) int {
	switch e.ID {
	case "i64":
		return cmp.Compare(int64(binary.LittleEndian.Uint64(a)), int64(binary.LittleEndian.Uint64(b)))
	case "uuidv7":
		if c := cmp.Compare(e.digest(a), e.digest(b)); c != 0 {
			return c
		}
		return bytes.Compare(a[8:], b[8:])
	}
	return bytes.Compare(a, b)
}
