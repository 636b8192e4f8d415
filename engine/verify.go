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
	if db.shards != nil {
		return db.verifyShards()
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = faultError(r)
		}
	}()
	v := &verifier{db: db, seen: make([]uint64, (db.npages+63)/64)}
	for _, t := range db.tables {
		v.tree(&t.tree)
		v.hash(&t.tree)
		for _, ix := range t.indexes {
			v.tree(&ix.tree)
			v.index(ix)
		}
	}
	return errors.Join(v.errs...)
}

// verifier walks every tree once. It trusts nothing an earlier read marked
// as checked: every page is checked again (and marked), every block decoded
// from the file (not taken from the cache), every overflow value summed
// again. A page or block reached twice is corrupt, which keeps the walk
// linear in the file: regions are disjoint (checked at open), so a tree's
// pages are its own.
type verifier struct {
	db      *DB
	errs    []error
	seen    []uint64            // pages reached, over all trees
	blocks  map[uint64]struct{} // blocks reached in the current tree
	scratch []byte
	// per tree walk state
	tr       *tree
	lastKey  []byte
	haveLast bool
	rows     uint64
	leaves   uint64
	prevLeaf uint64
	leafRefs []uint64 // a compressed tree's leaf blocks, in key order
}

// fail is not inlined (an error path: errors.go's corruptAt says why).
//
//go:noinline
func (v *verifier) fail(err error) bool {
	if len(v.errs) < 100 {
		v.errs = append(v.errs, err)
	}
	return len(v.errs) < 100
}

func (v *verifier) tree(t *tree) {
	v.tr, v.lastKey, v.haveLast, v.rows, v.leaves, v.prevLeaf, v.leafRefs = t, nil, false, 0, 0, 0, v.leafRefs[:0]
	v.blocks = map[uint64]struct{}{}
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
	p, err := v.load(ref, level)
	if err != nil {
		v.fail(err)
		return 0
	}
	n := nodeN(p)
	if level == 0 {
		v.leaves++
		if t.codec != nil {
			v.leafRefs = append(v.leafRefs, ref)
		}
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
			if val, ovf := leafVal(p, i); ovf {
				if _, err := v.db.overflow(val, true); err != nil {
					v.fail(err)
				}
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

// load reads the node at ref, checking it whatever earlier reads found.
func (v *verifier) load(ref uint64, level int) ([]byte, error) {
	t, db := v.tr, v.db
	if t.codec != nil && level == 0 {
		if _, dup := v.blocks[ref]; dup {
			return nil, t.corrupt(ref, "leaf block reached twice")
		}
		v.blocks[ref] = struct{}{}
		if v.scratch == nil {
			v.scratch = make([]byte, db.ps)
		}
		return db.cache.decode(t, ref, v.scratch)
	}
	if ref < t.desc.FirstPage || ref >= t.desc.LastPage {
		return nil, t.corrupt(ref, "page outside its table's region")
	}
	if v.seen[ref>>6]&(1<<(ref&63)) != 0 {
		return nil, t.corrupt(ref, "page reached twice")
	}
	v.seen[ref>>6] |= 1 << (ref & 63)
	off := ref << db.pshift
	p := db.data[off : off+uint64(db.ps) : off+uint64(db.ps)]
	return p, db.checkAndMark(ref, p, level, t)
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
