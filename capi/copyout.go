package main

/*
#include <string.h>
#include "cdefs.h"
#include "drydb_bindings.h"
*/
import "C"

import (
	"runtime/debug"
	"sync"
	"unsafe"
)

// The bindings' copy-out calls (drydb_bindings.h), Go half: what copyout.c
// cannot answer in C (tables without a fast path, a fault while copying,
// argument errors) and everything that only Go answers (rows by number,
// indexes, cursors, metadata, names). Each runs the read that drydb.h's
// call of the same name runs, inside the same database reference (close
// waits for it) and with memory faults armed, and copies the answer into
// the caller's columns before it leaves: a file that shrank is
// DRYDB_CORRUPT, never a fault in the caller.

// outCols is the caller's columns (struct drydb__col), filled a row at a
// time.
type outCols struct {
	buf  [3][]byte
	lens [3][]C.size_t
	used [3]int
	want [3]bool
	n    int // rows written
}

// openCols checks k columns at p for up to rows rows; column 0 must be
// wanted when need0 is set.
func openCols(p *C.struct_drydb__col, k, rows int, need0 bool) (o outCols, rc C.int) {
	if p == nil {
		return o, failf(codeInvalid, "NULL columns")
	}
	for i, c := range unsafe.Slice(p, k) {
		if c.lens == nil {
			continue
		}
		if uint64(c.cap) > maxLen || (c.buf == nil && c.cap != 0) {
			return o, failf(codeInvalid, "column %d: NULL buffer of %d bytes, or more than DRYDB_MAX_LEN", i, uint64(c.cap))
		}
		o.want[i] = true
		o.lens[i] = unsafe.Slice(c.lens, rows)
		if c.cap > 0 {
			o.buf[i] = unsafe.Slice((*byte)(unsafe.Pointer(c.buf)), int(c.cap))
		}
	}
	if need0 && !o.want[0] {
		return o, failf(codeInvalid, "column 0 has NULL lens")
	}
	return o, codeOK
}

// row copies the wanted fields of one row (a, b, c for columns 0, 1, 2) and
// returns codeOK; when one of them does not fit, it writes nothing but the
// row's lengths (at row o.n) and returns DRYDB__FULL.
func (o *outCols) row(a, b, c []byte) C.int {
	f := [3][]byte{a, b, c}
	for i := range f {
		if o.want[i] && len(f[i]) > len(o.buf[i])-o.used[i] {
			for j := range f {
				if o.want[j] {
					o.lens[j][o.n] = C.size_t(len(f[j]))
				}
			}
			return C.DRYDB__FULL
		}
	}
	for i := range f {
		if o.want[i] {
			o.used[i] += copy(o.buf[i][o.used[i]:], f[i])
			o.lens[i][o.n] = C.size_t(len(f[i]))
		}
	}
	o.n++
	return codeOK
}

// pairs is row for a batch of keys (column 0) and values (column 2; vs nil:
// keys only), in one tight loop: the rows that fit are copied and their
// number returned; when that is fewer than len(ks), the lengths of the row
// that did not fit are written as row's are.
func (o *outCols) pairs(ks, vs [][]byte) int {
	kb, kl, ku := o.buf[0], o.lens[0], o.used[0]
	vb, vl, vu := o.buf[2], o.lens[2], o.used[2]
	// the rows that fit, their lengths written
	m, r, kn, vn := 0, o.n, ku, vu
	for ; m < len(ks); m, r = m+1, r+1 {
		k := len(ks[m])
		if k > len(kb)-kn {
			break
		}
		if vs != nil {
			v := len(vs[m])
			if v > len(vb)-vn {
				break
			}
			vn += v
			vl[r] = C.size_t(v)
		}
		kn += k
		kl[r] = C.size_t(k)
	}
	// keys lying one after another in the file (an 8-byte-key leaf's) in
	// one copy
	for i := 0; i < m; {
		p, n := unsafe.SliceData(ks[i]), len(ks[i])
		j := i + 1
		for n > 0 && j < m && len(ks[j]) > 0 && unsafe.SliceData(ks[j]) == (*byte)(unsafe.Add(unsafe.Pointer(p), n)) {
			n += len(ks[j])
			j++
		}
		if n > 0 {
			ku += copy(kb[ku:], unsafe.Slice(p, n))
		}
		i = j
	}
	if vs != nil {
		for _, v := range vs[:m] {
			vu += copy(vb[vu:], v)
		}
	}
	o.used[0], o.used[2], o.n = ku, vu, r
	if m < len(ks) {
		var v []byte
		if vs != nil {
			v = vs[m]
		}
		o.row(ks[m], nil, v) // does not fit either: records the lengths
	}
	return m
}

// view is the n bytes at p, as the pointer-returning calls give them.
func view(p *C.uint8_t, n C.size_t) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}

// copyOne answers a one-row copy-out call with the pointer call that read
// makes (up to two fields), copying them into columns 0 and 1 of cols.
func copyOne(cols *C.struct_drydb__col, k int, need0 bool, read func(p0 **C.uint8_t, n0 *C.size_t, p1 **C.uint8_t, n1 *C.size_t) C.int) C.int {
	o, rc := openCols(cols, k, 1, need0)
	if rc != codeOK {
		return rc
	}
	var p0, p1 *C.uint8_t
	var n0, n1 C.size_t
	if rc = read(&p0, &n0, &p1, &n1); rc != codeOK {
		return rc
	}
	return o.row(view(p0, n0), view(p1, n1), nil)
}

// ptrs is scratch for the pointers of a batch answered by the pointer
// calls, cleared before pooling (see manyScratch.release).
var ptrs = sync.Pool{New: func() any { return new([]*C.uint8_t) }}

func getPtrs(n int) *[]*C.uint8_t {
	p := ptrs.Get().(*[]*C.uint8_t)
	if cap(*p) < n {
		*p = make([]*C.uint8_t, n)
	}
	*p = (*p)[:n]
	return p
}

func putPtrs(p *[]*C.uint8_t) {
	clear(*p)
	ptrs.Put(p)
}

//export drydb__copy_get_go
func drydb__copy_get_go(h C.uintptr_t, key *C.uint8_t, klen C.size_t, val *C.struct_drydb__col) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc != codeOK {
		return rc
	}
	return copyOne(val, 1, true, func(p **C.uint8_t, n *C.size_t, _ **C.uint8_t, _ *C.size_t) C.int {
		return tableGet(c.t, key, klen, p, n)
	})
}

//export drydb__copy_get_many_go
func drydb__copy_get_many_go(h C.uintptr_t, n C.size_t, keys *C.uint8_t, klens *C.size_t, vals *C.struct_drydb__col, found *C.uint8_t, done *C.size_t) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc != codeOK {
		return rc
	}
	if uint64(n) > maxBatch || done == nil {
		return failf(codeInvalid, "drydb__copy_get_many: NULL done, or n = %d exceeds %d", uint64(n), maxBatch)
	}
	if n == 0 {
		*done = 0
		return codeOK
	}
	o, rc := openCols(vals, 1, int(n), true)
	if rc != codeOK {
		return rc
	}
	ps := getPtrs(int(n))
	defer putPtrs(ps)
	if rc = drydb__get_many_go(h, n, keys, klens, &(*ps)[0], &o.lens[0][0], found); rc != codeOK {
		return rc
	}
	for i, p := range *ps {
		if rc = o.row(view(p, o.lens[0][i]), nil, nil); rc != codeOK {
			break
		}
	}
	*done = C.size_t(o.n)
	return rc
}

//export drydb__copy_range_go
func drydb__copy_range_go(h C.uintptr_t, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, flags C.uint32_t, max C.size_t, cols *C.struct_drydb__col, n *C.size_t) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc != codeOK {
		return rc
	}
	if n == nil || uint64(max) > maxBatch {
		return failf(codeInvalid, "drydb__copy_range: NULL count, or max = %d exceeds %d", uint64(max), maxBatch)
	}
	if max == 0 {
		*n = 0
		return codeOK
	}
	m := int(max)
	o, rc := openCols(cols, 2, m, true)
	if rc != codeOK {
		return rc
	}
	ps := getPtrs(2 * m)
	defer putPtrs(ps)
	var vp **C.uint8_t
	var vl *C.size_t
	if o.want[1] {
		vp, vl = &(*ps)[m], &o.lens[1][0]
	}
	var got C.size_t
	if rc = tableRange(c.t, lo, lolen, lokind, hi, hilen, hikind, flags, max, &(*ps)[0], &o.lens[0][0], vp, vl, &got); rc != codeOK {
		return rc
	}
	for i := 0; i < int(got); i++ {
		var v []byte
		if o.want[1] {
			v = view((*ps)[m+i], o.lens[1][i])
		}
		if rc = o.row(view((*ps)[i], o.lens[0][i]), v, nil); rc != codeOK {
			break
		}
	}
	*n = C.size_t(o.n)
	return rc
}

//export drydb__copy_at
func drydb__copy_at(h C.uintptr_t, row C.uint64_t, cols *C.struct_drydb__col) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc != codeOK {
		return rc
	}
	return copyOne(cols, 2, false, func(kp **C.uint8_t, kl *C.size_t, vp **C.uint8_t, vl *C.size_t) C.int {
		return drydb_at(h, row, kp, kl, vp, vl)
	})
}

//export drydb__copy_index_get
func drydb__copy_index_get(h C.uintptr_t, ikey *C.uint8_t, iklen C.size_t, cols *C.struct_drydb__col) (rc C.int) {
	defer guard(&rc)
	x, rc := getIndex(h)
	if rc != codeOK {
		return rc
	}
	defer x.d.leave()
	defer debug.SetPanicOnFault(faults())
	return copyOne(cols, 2, false, func(pp **C.uint8_t, pl *C.size_t, vp **C.uint8_t, vl *C.size_t) C.int {
		return drydb_index_get(h, ikey, iklen, pp, pl, vp, vl)
	})
}

//export drydb__copy_meta
func drydb__copy_meta(h C.uintptr_t, key *C.uint8_t, klen C.size_t, val *C.struct_drydb__col) (rc C.int) {
	defer guard(&rc)
	d, rc := getDB(h)
	if rc != codeOK {
		return rc
	}
	defer d.leave()
	defer debug.SetPanicOnFault(faults())
	return copyOne(val, 1, true, func(p **C.uint8_t, n *C.size_t, _ **C.uint8_t, _ *C.size_t) C.int {
		return drydb_meta_get(h, key, klen, p, n)
	})
}

//export drydb__copy_table_name
func drydb__copy_table_name(h C.uintptr_t, i C.size_t, name *C.struct_drydb__col) (rc C.int) {
	defer guard(&rc)
	d, rc := getDB(h)
	if rc != codeOK {
		return rc
	}
	defer d.leave()
	var p *C.char
	if rc = drydb_table_name(h, i, &p); rc != codeOK {
		return rc
	}
	return nameOut(name, p)
}

//export drydb__copy_index_name
func drydb__copy_index_name(h C.uintptr_t, i C.size_t, name *C.struct_drydb__col) (rc C.int) {
	defer guard(&rc)
	t, rc := getTable(h)
	if rc != codeOK {
		return rc
	}
	defer t.d.leave()
	var p *C.char
	if rc = drydb_table_index_name(h, i, &p); rc != codeOK {
		return rc
	}
	return nameOut(name, p)
}

// nameOut copies a name the database owns (a C string freed at close).
func nameOut(col *C.struct_drydb__col, p *C.char) C.int {
	o, rc := openCols(col, 1, 1, true)
	if rc != codeOK {
		return rc
	}
	return o.row(unsafe.Slice((*byte)(unsafe.Pointer(p)), C.strlen(p)), nil, nil)
}

// The cursor calls read the entry themselves, under the cursor's lock.

// fields reads the wanted fields of the current entry: key (the index key
// of index cursors), primary key, value.
func (c *cursorObj) fields(want [3]bool) (k, pk, v []byte, rc C.int) {
	if want[0] {
		if k = c.key(); k == nil && c.c.Err() != nil {
			return nil, nil, nil, fail(c.c.Err())
		}
	}
	if want[1] {
		if pk = c.ic.PrimaryKey(); pk == nil && c.c.Err() != nil {
			return nil, nil, nil, fail(c.c.Err())
		}
	}
	if want[2] {
		if v = c.c.Value(); v == nil && c.c.Err() != nil {
			return nil, nil, nil, fail(c.c.Err())
		}
	}
	return k, pk, v, codeOK
}

// openCursorCols is openCols for a cursor's three columns: a primary key
// only from index cursors.
func (c *cursorObj) openCols(cols *C.struct_drydb__col, rows int, need0 bool) (outCols, C.int) {
	o, rc := openCols(cols, 3, rows, need0)
	if rc == codeOK && o.want[1] && c.ic == nil {
		rc = failf(codeBadHandle, "a primary key is read from index cursors only")
	}
	return o, rc
}

//export drydb__copy_cursor_get
func drydb__copy_cursor_get(h C.uintptr_t, cols *C.struct_drydb__col) (rc C.int) {
	defer guard(&rc)
	c, rc := getCursor(h)
	if rc != codeOK {
		return rc
	}
	defer c.done()
	o, rc := c.openCols(cols, 1, false)
	if rc != codeOK {
		return rc
	}
	if rc = c.onEntry(); rc != codeOK {
		return rc
	}
	defer debug.SetPanicOnFault(faults())
	k, pk, v, rc := c.fields(o.want)
	if rc != codeOK {
		return rc
	}
	return o.row(k, pk, v)
}

//export drydb__copy_cursor_batch
func drydb__copy_cursor_batch(h C.uintptr_t, reverse C.int, max C.size_t, cols *C.struct_drydb__col, n *C.size_t) (rc C.int) {
	defer guard(&rc)
	c, rc := getCursor(h)
	if rc != codeOK {
		return rc
	}
	defer c.done()
	if n == nil || max == 0 || uint64(max) > maxBatch {
		return failf(codeInvalid, "drydb__copy_cursor_batch: NULL count, or max = %d (must be 1..%d)", uint64(max), maxBatch)
	}
	*n = 0
	o, rc := c.openCols(cols, int(max), true)
	if rc != codeOK {
		return rc
	}
	defer debug.SetPanicOnFault(faults())
	if rc = c.begin(reverse != 0); rc != codeOK {
		return rc
	}
	if c.ic == nil && c.tc != nil && !c.tc.Pinned() {
		rc = plainCopy(c, reverse != 0, &o)
	} else {
		for o.n < int(max) && c.c.Valid() {
			k, pk, v, frc := c.fields(o.want)
			if frc != codeOK {
				return frc
			}
			if rc = o.row(k, pk, v); rc != codeOK {
				break // the cursor stays on the row that did not fit
			}
			c.step(reverse != 0)
		}
		if err := c.c.Err(); err != nil {
			return fail(err)
		}
	}
	*n = C.size_t(o.n)
	if rc == codeOK && o.n == 0 {
		return codeNotFound
	}
	return rc
}

// plainCopy is plainBatch into columns: the engine fills a batch of slices
// into the mapping, which are copied; when the columns fill up first, the
// cursor goes back to the row that did not fit.
func plainCopy(c *cursorObj, reverse bool, o *outCols) C.int {
	m := len(o.lens[0])
	tc := c.tc
	if cap(c.gk) < m {
		c.gk, c.gv = make([][]byte, m), make([][]byte, m)
	}
	gk, gv := c.gk[:m], c.gv[:m]
	if !o.want[2] {
		gv = nil
	}
	start := tc.Row()
	got := tc.NextBatch(gk, gv, reverse)
	// no slices into the mapping stay in the cursor (see manyScratch.release)
	defer func() {
		clear(gk)
		clear(gv)
	}()
	if err := tc.Err(); err != nil {
		return fail(err)
	}
	if i := o.pairs(gk[:got], gv); i < got {
		r := start + uint64(i)
		if reverse {
			r = start - uint64(i)
		}
		tc.SeekRow(r)
		return C.DRYDB__FULL
	}
	if got > 0 {
		c.step(reverse)
	}
	return codeOK
}
