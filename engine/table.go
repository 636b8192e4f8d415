package engine

import (
	"bytes"
	"fmt"

	f "github.com/drydb/drydb/engine/internal/format"

	"github.com/drydb/drydb/engine/keyenc"
)

// Table is one table of an open DB. It is safe for concurrent use.
type Table struct {
	db      *DB
	name    string
	enc     keyenc.Encoding
	comp    Compression
	codec   *blockCodec
	tree    tree
	indexes []*Index
	sh      *shardedTable // set for a table of a sharded database; tree is then empty
}

// BoundKind says how a range end treats its key.
type BoundKind uint8

const (
	Unbounded BoundKind = 0 // no limit on this side; the key is ignored
	Inclusive BoundKind = 1 // the key itself is inside the range
	Exclusive BoundKind = 2 // the key itself is outside the range
)

// Bound is one end of a key range. An empty key is an ordinary key (the
// smallest one); only Kind == Unbounded means "no limit".
type Bound struct {
	Kind BoundKind
	Key  []byte
}

// Incl, Excl and All are shorthands for bounds.
func Incl(k []byte) Bound { return Bound{Kind: Inclusive, Key: k} }
func Excl(k []byte) Bound { return Bound{Kind: Exclusive, Key: k} }

var All = Bound{}

// PrefixBounds returns the range of keys that start with prefix. The empty
// prefix is the whole table; a prefix of 0xFF bytes has no upper bound.
func PrefixBounds(prefix []byte) (lo, hi Bound) {
	lo = Bound{Kind: Inclusive, Key: prefix}
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] != 0xFF {
			up := make([]byte, i+1)
			copy(up, prefix)
			up[i]++
			return lo, Bound{Kind: Exclusive, Key: up}
		}
	}
	return lo, Bound{}
}

// PrefixBound is one end of a range whose key is a key prefix (the first
// parts of a composite key, for example), treating every key with that
// prefix as equal to it: an inclusive lower end starts at the first key
// with the prefix, an exclusive one after the last; an inclusive upper end
// runs through the last key with the prefix, an exclusive one stops before
// the first. lower says which end kind belongs to; Unbounded gives All.
func PrefixBound(prefix []byte, kind BoundKind, lower bool) Bound {
	if kind == Unbounded {
		return All
	}
	if lower == (kind == Inclusive) {
		return Bound{Kind: kind, Key: prefix}
	}
	_, after := PrefixBounds(prefix) // the first key past every key with the prefix
	if after.Kind == Unbounded {
		if lower { // nothing is after a prefix of 0xFF bytes' keys: an empty range
			return Bound{Kind: Exclusive, Key: bytes.Repeat([]byte{0xFF}, f.MaxKeySize(65536)+1)}
		}
		return All
	}
	if lower {
		return Bound{Kind: Inclusive, Key: after.Key}
	}
	return after
}

// Value is a value read from a compressed table: Data stays valid until
// Release. For plain tables Release does nothing and Data stays valid until
// the DB is closed.
//
// Value is kept to four words (the slice and one pointer): the compiler
// keeps structs of at most four words in registers, and a larger Value is
// copied through the stack on every return with loads that straddle two
// stores, a store-forwarding stall that measured about 10 ns per GetPinned.
type Value struct {
	Data []byte
	pin  *slot // the cache slot holding Data; nil when nothing is pinned
}

// Release lets the cache evict the page holding Data. Call it exactly once.
func (v *Value) Release() {
	if v.pin != nil {
		v.pin.unpin()
		v.pin = nil
	}
}

func (t *Table) Name() string              { return t.name }
func (t *Table) Encoding() keyenc.Encoding { return t.enc }
func (t *Table) Compression() Compression  { return t.comp }

// Codec returns the name of the table's value codec as its builder recorded
// it (TableOptions.Codec: "json", "msgpack", "raw" or a user's name), or ""
// when none was recorded (files of older builders).
func (t *Table) Codec() string {
	md := t.db.info.Metadata
	if c, ok := md[CodecMetaPrefix+t.name]; ok {
		return string(c)
	}
	return string(md[legacyCodecMetaPrefix+t.name])
}

// Len returns the number of rows.
func (t *Table) Len() uint64 {
	if t.sh != nil {
		return t.sh.off[len(t.sh.parts)]
	}
	return t.tree.desc.Rows
}

// Depth returns the height of the table's tree (0 for an empty table).
func (t *Table) Depth() int { return int(t.tree.desc.Depth) }

// Hashed reports whether the table has a hash index (TableOptions.Hash).
func (t *Table) Hashed() bool { return t.tree.hash != nil }

// Leaves returns the number of leaf pages (or blocks).
func (t *Table) Leaves() uint64 { return t.tree.desc.Leaves }

// Indexes returns the names of the table's secondary indexes, sorted.
func (t *Table) Indexes() []string {
	names := make([]string, len(t.indexes))
	for i, ix := range t.indexes {
		names[i] = ix.name
	}
	return names
}

// Index returns the named secondary index.
func (t *Table) Index(name string) (*Index, error) {
	for _, ix := range t.indexes {
		if ix.name == name {
			return ix, nil
		}
	}
	return nil, fmt.Errorf("%w: table %q has no index %q", ErrNoIndex, t.name, name)
}

// Get returns the value stored under key, or ErrNotFound. For plain tables
// the value points into the mapping (zero-copy, valid until Close, do not
// modify); for compressed tables it is a copy (use GetPinned to avoid it).
func (t *Table) Get(key []byte) ([]byte, error) {
	if t.codec == nil {
		if t.db.closed.Load() {
			return nil, ErrClosed
		}
		if t.tree.k8 && len(key) == 8 && t.tree.desc.Depth > 0 && t.tree.hash == nil {
			return t.tree.get8(be.Uint64(key)) // one call fewer on the hottest path
		}
		if t.sh != nil {
			v, err := t.sh.get(key)
			if v.pin != nil {
				d := append([]byte(nil), v.Data...)
				v.Release()
				return d, err
			}
			return v.Data, err
		}
		v, err := t.tree.get(key) // plain: nothing pinned
		return v.Data, err
	}
	v, err := t.GetPinned(key)
	if err != nil || v.pin == nil {
		return v.Data, err
	}
	d := append([]byte(nil), v.Data...)
	v.Release()
	return d, nil
}

// GetPinned returns the value under key without copying. Call Release on
// the result when done with it.
//
// get's results pass straight through in registers because Value is four
// words (see Value).
func (t *Table) GetPinned(key []byte) (Value, error) {
	if t.db.closed.Load() {
		return Value{}, ErrClosed
	}
	if t.sh != nil {
		return t.sh.get(key)
	}
	return t.tree.get(key)
}

// GetMany looks up a batch of keys: vals[i] and found[i] receive the result
// for keys[i] (vals and found must be at least as long as keys). Values are
// as Get returns them. A key that falls inside the leaf of the previous key
// is searched there without a new descent, so sorted batches share most of
// their descents.
func (t *Table) GetMany(keys [][]byte, vals [][]byte, found []bool) error {
	if t.db.closed.Load() {
		return ErrClosed
	}
	if len(vals) < len(keys) || len(found) < len(keys) {
		return fmt.Errorf("%w: GetMany needs len(vals) and len(found) >= len(keys)", ErrInvalid)
	}
	if t.sh != nil {
		return t.sh.getMany(keys, vals, found)
	}
	var leaf []byte // plain tables: the last leaf visited
	for i, k := range keys {
		var v []byte
		var err error
		switch {
		case t.codec != nil:
			v, err = t.Get(k)
		case t.tree.k8 || t.tree.hash != nil:
			// a descent (or the hash index's probe) costs less than
			// inLeaf's two key compares; the probe also checks the hash
			// pages the C batch paths then read without entering Go
			var tv Value
			tv, err = t.tree.get(k)
			v = tv.Data
		case leaf != nil && inLeaf(leaf, k):
			j, ok := t.tree.search(leaf, k)
			if !ok {
				err = ErrNotFound
			} else {
				v, err = t.tree.value(leaf, j)
			}
		case t.tree.desc.Depth == 0:
			err = ErrNotFound
		default:
			var nd node
			if nd, _, err = t.tree.descend(k, 0, toKey); err == nil {
				leaf = nd.p
				j, ok := t.tree.search(leaf, k)
				if !ok {
					err = ErrNotFound
				} else {
					v, err = t.tree.value(leaf, j)
				}
			}
		}
		switch err {
		case nil:
			vals[i], found[i] = v, true
		case ErrNotFound:
			vals[i], found[i] = nil, false
		default:
			return err
		}
	}
	return nil
}

// inLeaf reports whether key lies between the leaf's first and last keys,
// where a search of this leaf alone gives the right answer.
func inLeaf(p, key []byte) bool {
	n := nodeN(p)
	return bytes.Compare(key, leafKey(p, 0)) >= 0 && bytes.Compare(key, leafKey(p, n-1)) <= 0
}

// Count returns the number of rows between lo and hi in O(log n).
func (t *Table) Count(lo, hi Bound) (uint64, error) {
	if t.db.closed.Load() {
		return 0, ErrClosed
	}
	if t.sh != nil {
		return t.sh.count(lo, hi)
	}
	return t.tree.count(lo, hi)
}

// Rank returns the number of keys less than key.
func (t *Table) Rank(key []byte) (uint64, error) {
	if t.db.closed.Load() {
		return 0, ErrClosed
	}
	if t.sh != nil {
		return t.sh.rank(key)
	}
	r, _, err := t.tree.rank(key)
	return r, err
}

// At returns row n (0-based, in key order) in O(log n), or ErrNotFound when
// n >= Len(). The slices are as Get returns them.
func (t *Table) At(n uint64) (key, val []byte, err error) {
	if t.db.closed.Load() {
		return nil, nil, ErrClosed
	}
	if t.sh != nil {
		return t.sh.at(n)
	}
	if n >= t.tree.desc.Rows {
		return nil, nil, ErrNotFound
	}
	nd, row, err := t.tree.descend(nil, n, toRow)
	if err != nil {
		return nil, nil, err
	}
	defer t.tree.release(nd)
	i := int(n - row)
	key, val = leafKey(nd.p, i), nil
	if val, err = t.tree.value(nd.p, i); err != nil {
		return nil, nil, err
	}
	if nd.pin != nil {
		key = append([]byte(nil), key...)
		val = append([]byte(nil), val...)
	}
	return key, val, nil
}

// NewCursor returns a cursor over the rows between lo and hi. It starts
// unpositioned: call First, Last, Seek or SeekRow.
func (t *Table) NewCursor(lo, hi Bound) *Cursor {
	if t.sh != nil {
		return newShardCursor(t, "", lo, hi)
	}
	c := &Cursor{tr: &t.tree, closed: &t.db.closed}
	c.init(lo, hi)
	return c
}
