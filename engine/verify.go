package engine

import (
	"bytes"
	"errors"
	"fmt"
	"runtime/debug"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Verify reads the whole file and checks every checksum and the structure
// of every tree: levels, key order across pages, separators, row counts,
// leaf links, overflow values, and that every index entry points to an
// existing row (and, for unique indexes, that no index key repeats). It
// returns nil or an error joining up to 100 problems, each wrapping
// ErrCorrupt with the page and offset.
func (db *DB) Verify() (err error) {
	if db.closed.Load() {
		return ErrClosed
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = faultError(r)
		}
	}()
	v := &verifier{db: db}
	for _, t := range db.tables {
		v.tree(&t.tree)
		for _, ix := range t.indexes {
			v.tree(&ix.tree)
			v.index(ix)
		}
	}
	return errors.Join(v.errs...)
}

type verifier struct {
	db   *DB
	errs []error
	// per tree walk state
	tr       *tree
	lastKey  []byte
	haveLast bool
	rows     uint64
	leaves   uint64
	prevLeaf uint64
}

func (v *verifier) fail(err error) bool {
	if len(v.errs) < 100 {
		v.errs = append(v.errs, err)
	}
	return len(v.errs) < 100
}

func (v *verifier) tree(t *tree) {
	v.tr, v.lastKey, v.haveLast, v.rows, v.leaves, v.prevLeaf = t, nil, false, 0, 0, 0
	if t.desc.Depth == 0 {
		return
	}
	v.node(t.desc.Root, int(t.desc.Depth)-1, nil, nil)
	if v.rows != t.desc.Rows {
		v.fail(t.corrupt(t.desc.Root, fmt.Sprintf("tree has %d rows, catalog says %d", v.rows, t.desc.Rows)))
	}
	if v.leaves != t.desc.Leaves {
		v.fail(t.corrupt(t.desc.Root, fmt.Sprintf("tree has %d leaves, catalog says %d", v.leaves, t.desc.Leaves)))
	}
	if t.codec == nil && v.prevLeaf != 0 {
		if p, err := t.page(v.prevLeaf, 0); err == nil && f.U32(p, f.PgNext) != 0 {
			v.fail(t.corrupt(v.prevLeaf, "last leaf has a next link"))
		}
	}
}

// node checks the subtree at ref and returns its row count. lo is the
// separator in front of it (every key must be >= lo).
func (v *verifier) node(ref uint64, level int, lo []byte, parentNext []byte) uint64 {
	t := v.tr
	if t.codec == nil || level > 0 {
		if ref < t.desc.FirstPage || ref >= t.desc.LastPage {
			v.fail(t.corrupt(ref, "page outside its table's region"))
			return 0
		}
	}
	nd, err := t.child(ref, level)
	if err != nil {
		v.fail(err)
		return 0
	}
	defer t.release(nd)
	p := nd.p
	n := nodeN(p)
	if level == 0 {
		v.leaves++
		if t.codec == nil {
			if prev := uint64(f.U32(p, f.PgPrev)); prev != v.prevLeaf {
				v.fail(t.corrupt(ref, fmt.Sprintf("prev link %d, want %d", prev, v.prevLeaf)))
			}
			if v.prevLeaf != 0 {
				if pp, err := t.page(v.prevLeaf, 0); err == nil && uint64(f.U32(pp, f.PgNext)) != ref {
					v.fail(t.corrupt(v.prevLeaf, fmt.Sprintf("next link %d, want %d", f.U32(pp, f.PgNext), ref)))
				}
			}
			v.prevLeaf = ref
		}
		for i := 0; i < n; i++ {
			k := leafKey(p, i)
			if v.haveLast && bytes.Compare(k, v.lastKey) <= 0 {
				v.fail(t.corrupt(ref, "keys out of order across pages"))
			}
			if i == 0 && lo != nil && bytes.Compare(k, lo) < 0 {
				v.fail(t.corrupt(ref, "first key below its separator"))
			}
			if _, err := t.value(p, i); err != nil {
				v.fail(err)
			}
			v.lastKey = append(v.lastKey[:0], k...)
			v.haveLast = true
		}
		v.rows += uint64(n)
		return uint64(n)
	}
	var total uint64
	for i := 0; i < n; i++ {
		if branchBefore(p, i) != total {
			v.fail(t.corrupt(ref, fmt.Sprintf("entry %d counts %d rows before it, children hold %d", i, branchBefore(p, i), total)))
			return total
		}
		sep := lo
		if i > 0 {
			sep = append([]byte(nil), branchKey(p, i)...)
			if v.haveLast && bytes.Compare(sep, v.lastKey) <= 0 {
				v.fail(t.corrupt(ref, "separator not above the previous child's keys"))
			}
		}
		total += v.node(branchChild(p, i), level-1, sep, nil)
		if len(v.errs) >= 100 {
			return total
		}
	}
	return total
}

func (v *verifier) index(ix *Index) {
	c := ix.NewCursor(All, All)
	defer c.Close()
	var prev []byte
	for ok := c.First(); ok; ok = c.Next() {
		if ix.unique {
			k := c.IndexKey()
			if prev != nil && bytes.Equal(prev, k) {
				if !v.fail(ix.tree.corrupt(0, "unique index repeats an index key")) {
					return
				}
			}
			prev = append(prev[:0], k...)
		}
		if c.Value() == nil && c.Err() != nil {
			v.fail(c.Err())
			return
		}
	}
	if c.Err() != nil {
		v.fail(c.Err())
	}
}
