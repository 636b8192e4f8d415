package engine

import (
	"bytes"
	"fmt"

	"github.com/drydb/drydb/engine/keyenc"
)

// Index is a secondary index of a table: it maps index keys to primary keys
// (and through them to values). Bounds, counts and cursors behave exactly as
// on tables, over index keys. Safe for concurrent use.
type Index struct {
	t      *Table
	name   string
	unique bool
	enc    keyenc.Encoding
	tree   tree
}

func (ix *Index) Name() string              { return ix.name }
func (ix *Index) Unique() bool              { return ix.unique }
func (ix *Index) Encoding() keyenc.Encoding { return ix.enc }
func (ix *Index) Table() *Table             { return ix.t }

// Len returns the number of index entries.
func (ix *Index) Len() uint64 {
	if ix.t.sh != nil {
		return ix.t.sh.indexLen(ix.name) // opens every shard
	}
	return ix.tree.desc.Rows
}

// indexBound translates a bound on index keys into a bound on the stored
// (escaped index key, terminator, primary key) keys; see indexkey.go.
func indexBound(b Bound, upper bool) Bound {
	if b.Kind == Unbounded {
		return b
	}
	k := appendEscaped(make([]byte, 0, len(b.Key)+2), b.Key)
	// Entries of index key k are exactly [k 00 01, k 00 02).
	past := (b.Kind == Exclusive) != upper // lower exclusive or upper inclusive
	if past {
		return Bound{Kind: boolKind(upper), Key: append(k, 0, 2)}
	}
	return Bound{Kind: boolKind(upper), Key: append(k, 0, 1)}
}

func boolKind(upper bool) BoundKind {
	if upper {
		return Exclusive
	}
	return Inclusive
}

// Count returns the number of index entries whose index key lies between lo
// and hi, in O(log n).
func (ix *Index) Count(lo, hi Bound) (uint64, error) {
	if ix.t.db.closed.Load() {
		return 0, ErrClosed
	}
	if ix.t.sh != nil {
		return ix.t.sh.indexCount(ix.name, lo, hi)
	}
	return ix.tree.count(indexBound(lo, false), indexBound(hi, true))
}

// Get returns the primary key and value of the first entry with index key
// ikey, or ErrNotFound. For a compressed table the value is a copy.
func (ix *Index) Get(ikey []byte) (pk, val []byte, err error) {
	if ix.t.db.closed.Load() {
		return nil, nil, ErrClosed
	}
	if ix.t.sh != nil {
		return ix.t.sh.indexGet(ix.name, ikey)
	}
	tr := &ix.tree
	if tr.desc.Depth == 0 {
		return nil, nil, ErrNotFound
	}
	var buf [128]byte
	k := appendIndexKey(buf[:0], ikey, nil) // every entry of ikey starts with k
	nd, row, err := tr.descend(k, 0, toKeyRow)
	if err != nil {
		return nil, nil, err
	}
	i, _ := leafSearch(nd.p, k)
	if i == nodeN(nd.p) { // the first entry >= k starts the next leaf
		if row+uint64(i) >= tr.desc.Rows {
			return nil, nil, ErrNotFound
		}
		if nd, row, err = tr.descend(nil, row+uint64(i), toRow); err != nil {
			return nil, nil, err
		}
		i = 0
	}
	e := leafKey(nd.p, i)
	if !bytes.HasPrefix(e, k) {
		return nil, nil, ErrNotFound
	}
	pk = e[len(k):]
	if val, err = ix.t.Get(pk); err == ErrNotFound {
		err = tr.corrupt(0, fmt.Sprintf("entry points to a missing row of table %q", ix.t.name))
	}
	if err != nil {
		return nil, nil, err
	}
	return pk, val, nil
}

// GetAll returns a cursor over every entry with index key ikey.
func (ix *Index) GetAll(ikey []byte) *IndexCursor {
	return ix.NewCursor(Incl(ikey), Incl(ikey))
}

// NewCursor returns a cursor over the entries whose index key lies between
// lo and hi, ordered by (index key, primary key).
func (ix *Index) NewCursor(lo, hi Bound) *IndexCursor {
	return newIndexCursor(ix, indexBound(lo, false), indexBound(hi, true))
}

// newIndexCursor returns a cursor over the stored entries between lo and hi.
func newIndexCursor(ix *Index, lo, hi Bound) *IndexCursor {
	if ix.t.sh != nil {
		return &IndexCursor{Cursor: *newShardCursor(ix.t, ix.name, lo, hi), ix: ix}
	}
	c := &IndexCursor{ix: ix}
	c.Cursor.tr, c.Cursor.closed = &ix.tree, &ix.t.db.closed
	c.Cursor.init(lo, hi)
	return c
}

// Prefix returns a cursor over the entries whose index key starts with p.
func (ix *Index) Prefix(p []byte) *IndexCursor {
	lo, hi := PrefixBounds(appendEscaped(nil, p))
	return newIndexCursor(ix, lo, hi)
}

// IndexCursor walks index entries. It has every positioning and moving
// method of Cursor (Seek and SeekExact take index keys), and yields the
// index key, the primary key and the row's value. Slices are valid until
// the cursor moves or closes.
type IndexCursor struct {
	Cursor
	ix   *Index
	ikey []byte
	val  Value
	has  bool
}

// Seek moves to the first entry whose index key is >= ikey.
func (c *IndexCursor) Seek(ikey []byte) bool {
	return c.Cursor.Seek(appendIndexKey(nil, ikey, nil))
}

// SeekExact moves to the first entry whose index key is ikey.
func (c *IndexCursor) SeekExact(ikey []byte) bool {
	if !c.Seek(ikey) {
		return false
	}
	if !bytes.Equal(c.IndexKey(), ikey) {
		c.Cursor.unposition()
		return false
	}
	return true
}

// IndexKey returns the current index key.
func (c *IndexCursor) IndexKey() []byte {
	esc, _, ok := c.split()
	if !ok {
		return nil
	}
	if bytes.IndexByte(esc, 0) < 0 {
		return esc
	}
	c.ikey = c.ikey[:0]
	for i := 0; i < len(esc); i++ {
		c.ikey = append(c.ikey, esc[i])
		if esc[i] == 0 {
			i++
		}
	}
	return c.ikey
}

// PrimaryKey returns the current entry's primary key.
func (c *IndexCursor) PrimaryKey() []byte {
	_, pk, _ := c.split()
	return pk
}

func (c *IndexCursor) split() (esc, pk []byte, ok bool) {
	k := c.Cursor.Key()
	if k == nil {
		return nil, nil, false
	}
	esc, pk, ok = splitIndexKey(k)
	if !ok {
		c.err = c.tr.corrupt(0, "malformed index entry")
		c.valid = false
	}
	return esc, pk, ok
}

// Value returns the value of the row the current entry points to.
func (c *IndexCursor) Value() []byte {
	if c.sh != nil {
		return c.shIndexValue()
	}
	pk := c.PrimaryKey()
	if pk == nil && !c.valid {
		return nil
	}
	c.val.Release()
	v, err := c.ix.t.tree.get(pk)
	if err != nil {
		if err == ErrNotFound {
			err = c.tr.corrupt(0, fmt.Sprintf("entry points to a missing row of table %q", c.ix.t.name))
		}
		c.err, c.valid = err, false
		return nil
	}
	c.val = v
	return v.Data
}

// Close releases the cursor's pages.
func (c *IndexCursor) Close() {
	c.val.Release()
	c.Cursor.Close()
}
