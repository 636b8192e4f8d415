package engine

import (
	"bytes"
	"fmt"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Rebuild by merge.
//
// A merge builder starts from an open database: every table and index of
// the base is carried into the new file, and the caller gives changes only:
// upserts (TableBuilder.Append/AppendRow, any order, spilled like any other
// rows) and deletes (TableBuilder.Delete). Build walks the base tree's
// leaves in order beside the sorted changes. A leaf that no change falls
// into (by the base tree's own separators) is copied whole: a plain page
// gets new leaf links and checksum, a compressed table's block is copied
// byte for byte without being decoded. Only the leaves that changes fall
// into are decoded and rewritten row by row. Index trees are merged the
// same way: entries of replaced or deleted rows are dropped, entries of
// upserted rows (given with AppendRow or made by a re-supplied index
// function) are added.
//
// When the page size or a table's compression changes, its leaves cannot
// be copied, and the table is rebuilt from the merged rows instead
// (materialize): still one ordered pass, no sort.
//
// Overflow values: the base table's overflow area is copied in front of
// the new values, so that the base rows' references shift by one constant
// (zero for the first table of a file). Values of replaced or deleted rows
// stay in that area as unreferenced bytes; a full rebuild drops them.

// tableMerge is the merge state of a table seeded from the base.
type tableMerge struct {
	base *Table
	dels *sorter
	// changed holds the primary keys of base rows that were replaced or
	// deleted, whose index entries the index merge drops; kept only for
	// tables with indexes, one map entry per such row.
	changed map[string]struct{}
	// The base's overflow area [ovfFirst, ovfFirst+ovfPages) is copied to
	// page ovfNew of the new file.
	ovfFirst, ovfPages, ovfNew uint64
	scratch                    []byte // a decoded base block
}

// NewMergeBuilder returns a Builder seeded from base: every table of base
// (with its key encoding, compression and indexes) is in it, and the
// Build methods write base's rows with the changes given since applied.
// Get a seeded table with Table(name, nil) (or with options, to change its
// compression: then its rows are re-encoded), then Append or AppendRow
// upserts and Delete removes keys. A key is changed at most once per
// merge: upserted twice, or upserted and deleted, is refused by Build.
// Deleting a key base does not hold does nothing.
//
// Indexes: AddIndex with the name of a base index returns it; its options
// must match the base's except Func, which (when given) runs on upserted
// rows only. Without Func, upserted rows get the entries given with them
// (AppendRow, IndexBuilder.Add for a key upserted in this merge). Entries
// of replaced and deleted rows are dropped in any case. New indexes on
// seeded tables are refused (build from scratch to add one).
//
// opts.PageSize 0 keeps base's page size; nil Metadata keeps base's. base
// must stay open until the build ends. Build time is roughly linear in the
// changed leaves plus a copy of the rest of the file.
func NewMergeBuilder(base *DB, opts *BuilderOptions) (*Builder, error) {
	if base == nil || base.closed.Load() {
		return nil, ErrClosed
	}
	if base.shards != nil {
		return nil, fmt.Errorf("%w: a sharded database cannot be the base of a merge: merge into its shards", ErrInvalid)
	}
	var o BuilderOptions
	if opts != nil {
		o = *opts
	}
	if o.PageSize == 0 {
		o.PageSize = base.ps
	}
	if o.Metadata == nil {
		o.Metadata = base.info.Metadata
	}
	b, err := NewBuilder(&o)
	if err != nil {
		return nil, err
	}
	for _, bt := range base.tables {
		t, err := b.Table(bt.name, &TableOptions{Encoding: bt.enc, Compression: bt.comp})
		if err != nil {
			b.Close()
			return nil, err
		}
		for _, bix := range bt.indexes {
			ix, err := t.AddIndex(bix.name, &IndexOptions{Unique: bix.unique, Encoding: bix.enc})
			if err != nil {
				b.Close()
				return nil, err
			}
			ix.base = bix
		}
		t.m = &tableMerge{base: bt, dels: newSorter(b.opts.TempDir, &b.budget)}
	}
	b.base = base
	return b, nil
}

// seeded is Table's hook for merge builders: a table of the base is
// returned as it is (opts nil) or with its compression and hash mode
// changed. (A base's table is rewritten with HashAuto: whether it gets a
// hash index is decided as for a new table.)
func (b *Builder) seeded(name string, opts *TableOptions) (*TableBuilder, bool, error) {
	t := b.byName[name]
	if b.base == nil || t == nil || t.m == nil {
		return nil, false, nil
	}
	if opts == nil {
		return t, true, nil
	}
	if !bytes.Equal(opts.Encoding.Marshal(), t.opts.Encoding.Marshal()) {
		return nil, true, fmt.Errorf("%w: table %q: a merge keeps the key encoding (%v), got %v", ErrInvalid, name, t.opts.Encoding, opts.Encoding)
	}
	if err := checkCompression(opts.Compression); err != nil {
		return nil, true, fmt.Errorf("table %q: %w", name, err)
	}
	if err := checkCodec(opts.Codec); err != nil {
		return nil, true, fmt.Errorf("table %q: %w", name, err)
	}
	if err := checkHash(*opts); err != nil {
		return nil, true, fmt.Errorf("table %q: %w", name, err)
	}
	t.opts.Compression = opts.Compression
	t.opts.Hash = opts.Hash
	if opts.Codec != "" { // "" keeps the base's, carried in the metadata
		t.opts.Codec = opts.Codec
	}
	return t, true, nil
}

// seededIndex is AddIndex's hook for merge builders (see NewMergeBuilder).
func (t *TableBuilder) seededIndex(name string, opts *IndexOptions) (*IndexBuilder, bool, error) {
	if t.m == nil {
		return nil, false, nil
	}
	for _, ix := range t.indexes {
		if ix.name != name {
			continue
		}
		if opts != nil {
			if opts.Unique != ix.opts.Unique || !bytes.Equal(opts.Encoding.Marshal(), ix.opts.Encoding.Marshal()) {
				return nil, true, fmt.Errorf("%w: table %q: index %q: a merge keeps the index's unique flag and encoding", ErrInvalid, t.name, name)
			}
			ix.opts.Func = opts.Func
		}
		return ix, true, nil
	}
	return nil, true, fmt.Errorf("%w: table %q: a merge cannot add index %q (its entries for unchanged rows are unknown); build from scratch", ErrInvalid, t.name, name)
}

// Delete removes the row of key from a table seeded by NewMergeBuilder;
// a key base does not hold is ignored. The key is copied.
func (t *TableBuilder) Delete(key []byte) error {
	if err := t.b.usable(); err != nil {
		return err
	}
	if t.m == nil {
		return fmt.Errorf("%w: table %q: Delete needs a builder made by NewMergeBuilder", ErrInvalid, t.name)
	}
	if len(key) > t.maxKey {
		return fmt.Errorf("%w: table %q: deleted key of %d bytes exceeds the limit of %d bytes", ErrKeyTooLarge, t.name, len(key), t.maxKey)
	}
	if err := t.opts.Encoding.Validate(key); err != nil {
		return fmt.Errorf("table %q: deleted key: %w", t.name, err)
	}
	return t.m.dels.add(key, nil, false)
}

func (m *tableMerge) close() {
	m.dels.close()
}

// copyable reports whether the base's leaves can be copied: same page
// size, same compression (the base's dictionary is then reused).
func (m *tableMerge) copyable(t *TableBuilder) bool {
	return t.b.ps == m.base.db.ps && t.opts.Compression == m.base.comp
}

// noteChanged records a base row that was replaced or deleted.
func (m *tableMerge) noteChanged(t *TableBuilder, pk []byte) {
	if len(t.indexes) == 0 {
		return
	}
	if m.changed == nil {
		m.changed = map[string]struct{}{}
	}
	m.changed[string(pk)] = struct{}{}
}

// changeStream yields a table's changes in key order: upserts (from the
// table's rows) and deletes.
type changeStream struct {
	t          *TableBuilder
	ups, dels  iter
	uk, uv     []byte
	uref, uok  bool
	dk, lastDk []byte
	dok        bool
	// the current change
	key, val []byte
	ref, del bool
	ok       bool
}

func (m *tableMerge) changes(t *TableBuilder) (*changeStream, error) {
	s := &changeStream{t: t}
	var err error
	if s.ups, err = t.rows.iterate(); err != nil {
		return nil, err
	}
	if s.dels, err = m.dels.iterate(); err != nil {
		return nil, err
	}
	s.uk, s.uv, s.uref, s.uok = s.ups.next()
	s.pullDel()
	return s, s.pick()
}

// pullDel moves to the next distinct deleted key.
func (s *changeStream) pullDel() {
	for {
		s.dk, _, _, s.dok = s.dels.next()
		if !s.dok || s.lastDk == nil || !bytes.Equal(s.dk, s.lastDk) {
			return
		}
	}
}

func (s *changeStream) pick() error {
	if err := s.ups.err(); err != nil {
		return err
	}
	if err := s.dels.err(); err != nil {
		return err
	}
	switch {
	case s.uok && s.dok:
		c := bytes.Compare(s.uk, s.dk)
		if c == 0 {
			return fmt.Errorf("%w: table %q: key %s is both upserted and deleted", ErrInvalid, s.t.name, quoteKey(s.uk))
		}
		s.del = c > 0
	case s.uok:
		s.del = false
	case s.dok:
		s.del = true
	default:
		s.ok = false
		return nil
	}
	s.ok = true
	if s.del {
		s.key, s.val, s.ref = s.dk, nil, false
	} else {
		s.key, s.val, s.ref = s.uk, s.uv, s.uref
	}
	return nil
}

func (s *changeStream) advance() error {
	if s.del {
		s.lastDk = append(s.lastDk[:0], s.dk...)
		s.pullDel()
	} else {
		s.uk, s.uv, s.uref, s.uok = s.ups.next()
	}
	return s.pick()
}

// before reports whether the current change falls before hi (nil: no
// upper limit).
func (s *changeStream) before(hi []byte) bool {
	return s.ok && (hi == nil || bytes.Compare(s.key, hi) < 0)
}

// leafWalker yields the leaves of a tree in key order, each with the
// separator in front of it (nil for the first) and its row count, all read
// from the branches: a leaf to be copied is never decoded.
type leafWalker struct {
	tr    *tree
	stack []walkFrame
	first bool // depth 1: the root leaf is still to come
}

type walkFrame struct {
	p    []byte
	i    int
	lo   []byte // separator in front of the page
	rows uint64 // rows below the page
}

type walkLeaf struct {
	ref  uint64
	sep  []byte
	rows uint64
}

func newLeafWalker(tr *tree) (*leafWalker, error) {
	w := &leafWalker{tr: tr}
	switch d := tr.desc.Depth; {
	case d == 1:
		w.first = true
	case d > 1:
		p, err := tr.page(tr.desc.Root, int(d)-1)
		if err != nil {
			return nil, err
		}
		w.stack = append(w.stack, walkFrame{p: p, rows: tr.desc.Rows})
	}
	return w, nil
}

func (w *leafWalker) next() (walkLeaf, bool, error) {
	if w.first {
		w.first = false
		return walkLeaf{ref: w.tr.desc.Root, rows: w.tr.desc.Rows}, true, nil
	}
	for len(w.stack) > 0 {
		top := &w.stack[len(w.stack)-1]
		n := nodeN(top.p)
		if top.i >= n {
			w.stack = w.stack[:len(w.stack)-1]
			continue
		}
		i := top.i
		top.i++
		child := branchChild(top.p, i)
		sep := top.lo
		if i > 0 {
			sep = branchKey(top.p, i)
		}
		rows := top.rows - branchBefore(top.p, i)
		if i+1 < n {
			rows = branchBefore(top.p, i+1) - branchBefore(top.p, i)
		}
		if rows > top.rows {
			return walkLeaf{}, false, w.tr.corrupt(child, "row counts do not match the branches")
		}
		lvl := nodeLevel(top.p) - 1
		if lvl == 0 {
			return walkLeaf{ref: child, sep: sep, rows: rows}, true, nil
		}
		p, err := w.tr.page(child, lvl)
		if err != nil {
			return walkLeaf{}, false, err
		}
		w.stack = append(w.stack, walkFrame{p: p, lo: sep, rows: rows})
	}
	return walkLeaf{}, false, nil
}

// leftmost returns the reference of a non-empty tree's first leaf.
func leftmost(tr *tree) (uint64, error) {
	ref := tr.desc.Root
	for lvl := int(tr.desc.Depth) - 1; lvl > 0; lvl-- {
		p, err := tr.page(ref, lvl)
		if err != nil {
			return 0, err
		}
		ref = branchChild(p, 0)
	}
	return ref, nil
}

// copyOverflow writes the base table's overflow area (its pages before
// the dictionary and the leaves) at the start of the new table's region.
func (m *tableMerge) copyOverflow(o *out) error {
	tr := &m.base.tree
	m.ovfNew = o.pgno()
	m.ovfFirst = tr.desc.FirstPage
	if tr.desc.Depth == 0 {
		return nil
	}
	first, err := leftmost(tr)
	if err != nil {
		return err
	}
	db := m.base.db
	end := first // a plain tree's first leaf page
	if tr.codec != nil {
		end = (first - uint64(len(tr.codec.dictBytes))) >> db.pshift
	}
	if end < m.ovfFirst || end > tr.desc.LastPage {
		return tr.corrupt(first, "first leaf outside the table's region")
	}
	m.ovfPages = end - m.ovfFirst
	o.write(db.data[m.ovfFirst<<db.pshift : end<<db.pshift])
	return o.err
}

// delta is what a base overflow reference's page number gains in the new
// file (mod 2^64).
func (m *tableMerge) delta() uint64 { return m.ovfNew - m.ovfFirst }

// block returns the bytes of the base block at off, checksum checked.
func (m *tableMerge) block(off uint64) ([]byte, error) {
	tr := &m.base.tree
	db := m.base.db
	end := tr.desc.LastPage << db.pshift
	if off < tr.desc.FirstPage<<db.pshift || off+f.BlockHeaderSize > end {
		return nil, tr.corrupt(off, "block outside the table's region")
	}
	clen := uint64(f.U32(db.data, int(off)+4))
	if clen > uint64(f.MaxBlockLen(db.ps)) || off+f.BlockHeaderSize+clen > end {
		return nil, tr.corrupt(off, "block length out of range")
	}
	blk := db.data[off : off+f.BlockHeaderSize+clen]
	if f.CRC(blk[4:]) != f.U32(blk, 0) {
		return nil, tr.corrupt(off, "block checksum mismatch")
	}
	return blk, nil
}

// leaf reads a base leaf to be rewritten. A block is decoded into the
// merge's own buffer, not kept in the base's page cache: each is read once,
// and caching it would only evict the pages of the base's readers.
func (m *tableMerge) leaf(ref uint64) (node, error) {
	tr := &m.base.tree
	if tr.codec == nil {
		return tr.child(ref, 0)
	}
	if m.scratch == nil {
		m.scratch = make([]byte, tr.db.ps)
	}
	p, err := tr.db.cache.decode(tr, ref, m.scratch)
	return node{p: p}, err
}

// rows writes the table's leaves: the base's merged with the changes.
// emit is the regular path for an upserted row (index functions, checks of
// IndexBuilder.Add entries).
func (m *tableMerge) rows(t *TableBuilder, tw *treeWriter, emit func(k, v []byte, isRef bool) error) error {
	cs, err := m.changes(t)
	if err != nil {
		return err
	}
	tr := &m.base.tree
	w, err := newLeafWalker(tr)
	if err != nil {
		return err
	}
	rebase := uint64(0)
	if m.ovfPages > 0 {
		rebase = m.delta()
	}
	var ref [f.OverflowRefSize]byte
	cur, ok, err := w.next()
	for ok && err == nil {
		var nxt walkLeaf
		var nok bool
		if nxt, nok, err = w.next(); err != nil {
			return err
		}
		var hi []byte
		if nok {
			hi = nxt.sep
		}
		if !cs.before(hi) {
			err = m.copyLeaf(tw, cur, rebase)
			cur, ok = nxt, nok
			continue
		}
		var nd node
		if nd, err = m.leaf(cur.ref); err != nil {
			return err
		}
		p, n := nd.p, nodeN(nd.p)
		for i := 0; err == nil; {
			in := cs.before(hi)
			if i < n {
				k := leafKey(p, i)
				c := -1
				if in {
					c = bytes.Compare(k, cs.key)
				}
				if c < 0 { // an unchanged row
					v, isRef := leafVal(p, i)
					if isRef {
						copy(ref[:], v)
						// tw adds the blob's first page, which follows the copied area
						f.PutU64(ref[:], 0, f.U64(v, 0)-m.ovfFirst-m.ovfPages)
						v = ref[:]
					}
					err = tw.add(k, v, isRef)
					i++
					continue
				}
				if c == 0 {
					m.noteChanged(t, k)
					i++
				}
			} else if !in {
				break
			}
			if !cs.del {
				if err = emit(cs.key, cs.val, cs.ref); err != nil {
					break
				}
			}
			err = cs.advance()
		}
		tr.release(nd)
		cur, ok = nxt, nok
	}
	if err != nil {
		return err
	}
	for ; cs.ok; err = cs.advance() { // an empty base
		if err != nil {
			return err
		}
		if !cs.del {
			if err := emit(cs.key, cs.val, cs.ref); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyLeaf copies an unchanged base leaf into the new tree.
func (m *tableMerge) copyLeaf(tw *treeWriter, l walkLeaf, rebase uint64) error {
	tr := &m.base.tree
	if tr.codec != nil && rebase == 0 {
		blk, err := m.block(l.ref)
		if err != nil {
			return err
		}
		return tw.copyLeaf(nil, blk, l.sep, l.rows, 0)
	}
	nd, err := m.leaf(l.ref)
	if err != nil {
		return err
	}
	defer tr.release(nd)
	if uint64(nodeN(nd.p)) != l.rows {
		return tr.corrupt(l.ref, "row counts do not match the leaves")
	}
	return tw.copyLeaf(nd.p, nil, l.sep, l.rows, rebase)
}

// copyLeaf appends a finished leaf: a page p (which gets new links, and
// whose overflow references gain rebase) or, in a compressed tree, a block
// blk taken verbatim. sepKey is a separator valid in front of it: greater
// than every key written so far, at most its first key.
func (t *treeWriter) copyLeaf(p, blk, sepKey []byte, rows, rebase uint64) error {
	if t.n > 0 {
		if err := t.finishLeaf(); err != nil {
			return err
		}
	}
	s := sep{rows: rows}
	if t.rows > 0 {
		if sepKey == nil {
			return fmt.Errorf("drydb: %s: merge: a copied leaf has no separator", t.name)
		}
		s.key = t.saveSep(sepKey)
	}
	if blk != nil {
		s.child = t.o.off
		if t.hash != nil { // its keys are in the block: decode it
			raw, err := t.codec.decode(make([]byte, t.ps), blk, t.ps, int64(s.child))
			if err != nil {
				return err
			}
			if err := t.hash.addBlock(raw, s.child); err != nil {
				return err
			}
		}
		t.o.write(blk)
		t.afterCopy = true // its last key is not known without decoding it
	} else {
		q := t.pending
		copy(q, p)
		if rebase != 0 {
			for i := 0; i < nodeN(q); i++ {
				if v, isRef := leafVal(q, i); isRef {
					f.PutU64(v, 0, f.U64(v, 0)+rebase)
				}
			}
		}
		t.lastKey = append(t.lastKey[:0], leafKey(q, nodeN(q)-1)...)
		t.afterCopy = false
		if t.codec != nil {
			s.child = t.o.off
			if t.hash != nil {
				if err := t.hash.addBlock(q, s.child); err != nil {
					return err
				}
			}
			if err := t.codec.writeBlock(t.o, q); err != nil {
				return err
			}
		} else {
			f.PutU32(q, f.PgPrev, 0)
			var err error
			if s.child, err = t.holdLeaf(); err != nil {
				return err
			}
		}
	}
	t.level = append(t.level, s)
	t.leaves++
	t.rows += rows
	t.reset()
	return t.o.err
}

// writeMerged writes a seeded index: the base's entries without those of
// changed rows, merged with the entries added in this build.
func (ix *IndexBuilder) writeMerged(o *out) (f.Index, TableReport, error) {
	ci := f.Index{Name: ix.name, Unique: ix.opts.Unique, Encoding: ix.opts.Encoding.Marshal()}
	rep := TableReport{Name: ix.name}
	start := o.off
	tw := newTreeWriter(o, fmt.Sprintf("index %q", ix.name), nil)
	adds, err := ix.entries.iterate()
	if err != nil {
		return ci, rep, err
	}
	ak, _, _, aok := adds.next()
	changed := ix.t.m.changed
	gone := func(k []byte) bool {
		if len(changed) == 0 {
			return false
		}
		_, pk, _ := splitIndexKey(k)
		_, g := changed[string(pk)]
		return g
	}
	var prev []byte
	havePrev := false
	unique := func(k []byte) error {
		ik, _, _ := splitIndexKey(k)
		if ix.opts.Unique && havePrev && bytes.Equal(ik, prev) {
			return fmt.Errorf("%w: unique index %q has index key %s twice", ErrDuplicateKey, ix.name, showKey(ix.opts.Encoding, unescapeKey(ik)))
		}
		prev, havePrev = append(prev[:0], ik...), true
		return nil
	}
	add := func(k []byte) error {
		if err := unique(k); err != nil {
			return err
		}
		return tw.add(k, nil, false)
	}
	tr := &ix.base.tree
	w, err := newLeafWalker(tr)
	if err != nil {
		return ci, rep, err
	}
	cur, ok, err := w.next()
	for ok && err == nil {
		var nxt walkLeaf
		var nok bool
		if nxt, nok, err = w.next(); err != nil {
			break
		}
		var hi []byte
		if nok {
			hi = nxt.sep
		}
		var p []byte
		if p, err = tr.page(cur.ref, 0); err != nil {
			break
		}
		n := nodeN(p)
		touched := aok && (hi == nil || bytes.Compare(ak, hi) < 0)
		for i := 0; i < n && !touched; i++ {
			touched = gone(leafKey(p, i))
		}
		if !touched {
			if err = unique(leafKey(p, 0)); err == nil {
				err = tw.copyLeaf(p, nil, cur.sep, uint64(n), 0)
				ik, _, _ := splitIndexKey(leafKey(p, n-1))
				prev = append(prev[:0], ik...)
			}
			cur, ok = nxt, nok
			continue
		}
		for i := 0; err == nil; {
			in := aok && (hi == nil || bytes.Compare(ak, hi) < 0)
			if i < n && (!in || bytes.Compare(leafKey(p, i), ak) < 0) {
				if k := leafKey(p, i); !gone(k) {
					err = add(k)
				}
				i++
				continue
			}
			if !in {
				break
			}
			if err = add(ak); err == nil {
				ak, _, _, aok = adds.next()
			}
		}
		cur, ok = nxt, nok
	}
	for ; err == nil && aok; ak, _, _, aok = adds.next() { // an empty base
		err = add(ak)
	}
	if err == nil {
		err = adds.err()
	}
	if err != nil {
		return ci, rep, err
	}
	return ix.finish(tw, ci, rep, start)
}

// materialize turns a seeded table whose leaves cannot be copied into an
// ordinary one: the merged rows go to a new sorter (in order, so it never
// sorts), base values re-checked against the new options, and the indexes
// get the base's entries of unchanged rows unless their function runs
// again over every row.
func (m *tableMerge) materialize(t *TableBuilder) error {
	cs, err := m.changes(t)
	if err != nil {
		return err
	}
	rows := newSorter(t.b.opts.TempDir, &t.b.budget)
	c := m.base.NewCursor(All, All)
	defer c.Close()
	addBase := func(k, v []byte) error {
		if err := t.checkRow(k, v); err != nil {
			return err
		}
		if len(v) > f.OverflowThreshold(t.b.ps) {
			ref, err := t.writeBlob(v)
			if err != nil {
				return err
			}
			return rows.add(k, ref, true)
		}
		return rows.add(k, v, false)
	}
	ok := c.First()
	for err == nil && (ok || cs.ok) {
		cmp := -1
		if ok && cs.ok {
			cmp = bytes.Compare(c.Key(), cs.key)
		} else if !ok {
			cmp = 1
		}
		if cmp < 0 {
			v := c.Value()
			if err = c.Err(); err == nil {
				err = addBase(c.Key(), v)
			}
			ok = c.Next()
			continue
		}
		if cmp == 0 {
			m.noteChanged(t, c.Key())
			ok = c.Next()
		}
		if !cs.del {
			err = rows.add(cs.key, cs.val, cs.ref)
		}
		if err == nil {
			err = cs.advance()
		}
	}
	if err == nil {
		err = c.Err()
	}
	if err != nil {
		rows.close()
		return err
	}
	t.rows.close()
	t.rows = rows
	for _, ix := range t.indexes {
		if ix.opts.Func == nil {
			if err := m.carryEntries(t, ix); err != nil {
				return err
			}
		}
		ix.base = nil
	}
	t.m = nil
	m.close()
	return nil
}

// carryEntries adds the base index's entries of unchanged rows to ix.
func (m *tableMerge) carryEntries(t *TableBuilder, ix *IndexBuilder) error {
	tr := &ix.base.tree
	w, err := newLeafWalker(tr)
	if err != nil {
		return err
	}
	for {
		l, ok, err := w.next()
		if err != nil || !ok {
			return err
		}
		p, err := tr.page(l.ref, 0)
		if err != nil {
			return err
		}
		for i := 0; i < nodeN(p); i++ {
			k := leafKey(p, i)
			if _, pk, _ := splitIndexKey(k); m.changed != nil {
				if _, g := m.changed[string(pk)]; g {
					continue
				}
			}
			if len(k) > t.maxKey {
				return fmt.Errorf("%w: index %q: an entry of %d bytes exceeds the limit of %d bytes", ErrKeyTooLarge, ix.name, len(k), t.maxKey)
			}
			if err := ix.entries.add(k, nil, false); err != nil {
				return err
			}
		}
	}
}
