package main

/*
#include "cdefs.h"
#include "drydb_columnar.h"
*/
import "C"

import (
	"encoding/binary"
	"math"
	"sync"
	"unsafe"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

// The columnar calls (drydb_columnar.h): rows in and out as columns, one
// call per chunk, keys encoded and decoded here rather than per row in the
// binding's language. The reads are answered in C (colfast.c) where fast.c
// can; the Go halves here answer the rest, under tableCall (the database's
// reference and memory faults armed), and copy every answer into the
// caller's columns before they return, so no pointer into the mapping
// leaves the call.

const (
	convRaw  = C.DRYDB__CONV_RAW
	convI64  = C.DRYDB__CONV_I64
	convU64  = C.DRYDB__CONV_U64
	convF64  = C.DRYDB__CONV_F64
	convKey  = C.DRYDB__CONV_KEY
	codeFull = C.DRYDB__FULL
)

// maxColBytes bounds the bytes of one column (the caller's buffers).
const maxColBytes = C.DRYDB__MAX_COL_BYTES

// convKind is the key kind a conversion belongs to.
var convKind = map[C.uint32_t]keyenc.Kind{convI64: keyenc.Int64, convU64: keyenc.Uint64, convF64: keyenc.Float64}

// mem views n bytes of caller memory at p (NULL only when n is 0).
func mem(p unsafe.Pointer, n uint64, what string) ([]byte, C.int) {
	if n == 0 {
		return nil, codeOK
	}
	if p == nil || n > maxColBytes {
		return nil, failf(codeInvalid, "%s: NULL data, or %d bytes", what, n)
	}
	return unsafe.Slice((*byte)(p), int(n)), codeOK
}

// colIn is an input column (struct drydb__colin) of n items.
type colIn struct {
	data  []byte  // the items' bytes, from offsets[0] on
	o32   []int32 // offsets, rebased by data: item i is data[o[i]-o[0]:o[i+1]-o[0]]
	o64   []int64
	width int
	conv  C.uint32_t
}

func openColIn(p *C.struct_drydb__colin, n int, what string) (c colIn, rc C.int) {
	if p == nil {
		return c, failf(codeInvalid, "NULL %s column", what)
	}
	if p.reserved != 0 || p.conv > convKey {
		return c, failf(codeInvalid, "%s column: unknown conversion %d or reserved field set", what, uint32(p.conv))
	}
	c.conv = p.conv
	if p.offsets == nil {
		if c.conv != convRaw && c.conv != convKey && p.width != 8 {
			return c, failf(codeInvalid, "%s column: a numeric column has width 8, not %d", what, uint32(p.width))
		}
		c.width = int(p.width)
		c.data, rc = mem(unsafe.Pointer(p.data), uint64(n)*uint64(p.width), what+" column")
		return c, rc
	}
	if c.conv != convRaw && c.conv != convKey {
		return c, failf(codeInvalid, "%s column: numbers have no offsets", what)
	}
	var first, last int64
	switch p.offset_size {
	case 4:
		c.o32 = unsafe.Slice((*int32)(p.offsets), n+1)
		first, last, rc = checkOffsets(c.o32, what)
	case 8:
		c.o64 = unsafe.Slice((*int64)(p.offsets), n+1)
		first, last, rc = checkOffsets(c.o64, what)
	default:
		return c, failf(codeInvalid, "%s column: offsets of %d bytes (4 or 8)", what, uint32(p.offset_size))
	}
	if rc != codeOK {
		return c, rc
	}
	c.data, rc = mem(unsafe.Add(unsafe.Pointer(p.data), first), uint64(last-first), what+" column")
	return c, rc
}

// checkOffsets checks that offsets are >= 0, non-decreasing and items
// within DRYDB_MAX_LEN, and returns the first and last.
func checkOffsets[T int32 | int64](o []T, what string) (int64, int64, C.int) {
	if o[0] < 0 {
		return 0, 0, failf(codeInvalid, "%s column: negative offset %d", what, int64(o[0]))
	}
	for i := 1; i < len(o); i++ {
		if d := int64(o[i]) - int64(o[i-1]); d < 0 || d > maxLen {
			return 0, 0, failf(codeInvalid, "%s column: item %d has offsets %d..%d", what, i-1, int64(o[i-1]), int64(o[i]))
		}
	}
	return int64(o[0]), int64(o[len(o)-1]), codeOK
}

// at is item i.
func (c *colIn) at(i int) []byte {
	switch {
	case c.o32 != nil:
		b := c.o32[0]
		return c.data[c.o32[i]-b : c.o32[i+1]-b]
	case c.o64 != nil:
		b := c.o64[0]
		return c.data[c.o64[i]-b : c.o64[i+1]-b]
	}
	return c.data[i*c.width : (i+1)*c.width]
}

// keyCols makes keys from input columns: one column, or one per part of a
// composite key.
type keyCols struct {
	cols []colIn
	esc  []bool // composite string and bytes parts, escaped and terminated
	buf  []byte
}

func openKeyCols(enc keyenc.Encoding, n int, nkeys C.size_t, p *C.struct_drydb__colin) (k keyCols, rc C.int) {
	parts := []keyenc.Kind{enc.Kind}
	if enc.Kind == keyenc.Composite && (nkeys != 1 || p == nil || p.conv != convKey) {
		parts = enc.Parts
	}
	if uint64(nkeys) != uint64(len(parts)) || p == nil {
		return k, failf(codeInvalid, "%d key columns for a %s key (one per part)", uint64(nkeys), enc)
	}
	for i, part := range parts {
		c, rc := openColIn((*C.struct_drydb__colin)(unsafe.Add(unsafe.Pointer(p), uintptr(i)*unsafe.Sizeof(*p))), n, "key")
		if rc != codeOK {
			return k, rc
		}
		if c.conv == convKey && nkeys != 1 {
			return k, failf(codeInvalid, "key column %d: encoded keys come in one column", i)
		}
		if c.conv != convRaw && c.conv != convKey && convKind[c.conv] != part {
			return k, failf(codeInvalid, "key column %d: numbers of %s for a %s key part", i, convKind[c.conv], part)
		}
		k.cols = append(k.cols, c)
		k.esc = append(k.esc, enc.Kind == keyenc.Composite && c.conv != convKey && part.Width() == 0)
	}
	return k, codeOK
}

// asIs says whether the items are the keys themselves.
func (k *keyCols) asIs() bool {
	c := k.cols[0].conv
	return len(k.cols) == 1 && (c == convRaw || c == convKey) && !k.esc[0]
}

// key is row i's key, valid until the next call (the engine copies it).
// Keys are not validated here: the engine's Append does it, and reads call
// Validate.
func (k *keyCols) key(i int) ([]byte, error) {
	if k.asIs() {
		return k.cols[0].at(i), nil
	}
	b := k.buf[:0]
	var err error
	for j := range k.cols {
		c := &k.cols[j]
		item := c.at(i)
		switch c.conv {
		case convI64:
			b = keyenc.AppendInt64(b, int64(binary.NativeEndian.Uint64(item)))
		case convU64:
			b = keyenc.AppendUint64(b, binary.NativeEndian.Uint64(item))
		case convF64:
			if b, err = keyenc.AppendFloat64(b, math.Float64frombits(binary.NativeEndian.Uint64(item))); err != nil {
				return nil, err
			}
		default:
			if k.esc[j] {
				b, _ = keyenc.AppendComponent(b, keyenc.Bytes, item) // escaping only; Validate checks UTF-8
			} else {
				b = append(b, item...)
			}
		}
	}
	k.buf = b
	return b, nil
}

//export drydb__builder_append_columns
func drydb__builder_append_columns(h C.uintptr_t, n, nkeys C.size_t, keys, vals *C.struct_drydb__colin) (rc C.int) {
	defer guard(&rc)
	t, rc := getTBuilder(h)
	if rc != codeOK {
		return rc
	}
	defer t.bo.mu.Unlock()
	if uint64(n) > maxBatch {
		return failf(codeInvalid, "drydb__builder_append_columns: n = %d exceeds %d", uint64(n), maxBatch)
	}
	if n == 0 {
		return codeOK
	}
	kc, rc := openKeyCols(t.enc, int(n), nkeys, keys)
	if rc != codeOK {
		return rc
	}
	vc, rc := openColIn(vals, int(n), "value")
	if rc != codeOK {
		return rc
	}
	if vc.conv != convRaw {
		return failf(codeInvalid, "value column: values are bytes (no conversion)")
	}
	for i := 0; i < int(n); i++ {
		k, err := kc.key(i)
		if err == nil {
			err = t.tb.Append(k, vc.at(i)) // Append copies
		}
		if err != nil {
			return failItem(err, i)
		}
	}
	return codeOK
}

// colOut is an output column (struct drydb__colout) of up to rows items.
type colOut struct {
	want  bool
	data  []byte
	used  int
	o32   []int32
	o64   []int64
	base  uint64
	width int
	conv  C.uint32_t
	what  string
	first int // the index of item 0 in the caller's call, for messages
}

func openColOut(p *C.struct_drydb__colout, rows int, what string, kind keyenc.Kind) (c colOut, rc C.int) {
	c.what = what
	if p == nil {
		return c, codeOK
	}
	c.want = true
	if p.reserved != 0 || p.conv > convF64 {
		return c, failf(codeInvalid, "%s column: unknown conversion %d or reserved field set", what, uint32(p.conv))
	}
	if c.data, rc = mem(unsafe.Pointer(p.data), uint64(p.cap), what+" column"); rc != codeOK {
		return c, rc
	}
	c.base, c.width, c.conv = uint64(p.base), int(p.width), p.conv
	if c.conv != convRaw && (convKind[c.conv] != kind || p.offsets != nil || p.width != 8) {
		return c, failf(codeInvalid, "%s column: numbers of %s need a %s table and width 8 without offsets", what, convKind[c.conv], convKind[c.conv])
	}
	if p.offsets == nil {
		if c.width == 0 {
			return c, failf(codeInvalid, "%s column: no offsets and width 0", what)
		}
		return c, codeOK
	}
	switch p.offset_size {
	case 4:
		if c.base+uint64(p.cap) > math.MaxInt32 {
			return c, failf(codeInvalid, "%s column: 4-byte offsets cannot reach %d + %d bytes", what, c.base, uint64(p.cap))
		}
		c.o32 = unsafe.Slice((*int32)(p.offsets), rows+1)
		c.o32[0] = int32(c.base)
	case 8:
		if c.base > maxColBytes {
			return c, failf(codeInvalid, "%s column: base %d", what, c.base)
		}
		c.o64 = unsafe.Slice((*int64)(p.offsets), rows+1)
		c.o64[0] = int64(c.base)
	default:
		return c, failf(codeInvalid, "%s column: offsets of %d bytes (4 or 8)", what, uint32(p.offset_size))
	}
	return c, codeOK
}

// openValues is openColOut for values, which are bytes (no conversion).
func openValues(p *C.struct_drydb__colout, rows int) (colOut, C.int) {
	c, rc := openColOut(p, rows, "value", keyenc.Bytes)
	if rc == codeOK && c.conv != convRaw {
		rc = failf(codeInvalid, "value column: values are bytes (no conversion)")
	}
	return c, rc
}

// take returns how many of items, to be items from.., fit the column (all
// when it is not wanted), or an error for a fixed-width column given
// another length.
func (c *colOut) take(from int, items [][]byte) (int, C.int) {
	if !c.want {
		return len(items), codeOK
	}
	left := len(c.data) - c.used
	if c.o32 == nil && c.o64 == nil {
		for j, b := range items {
			if len(b) != c.width {
				return 0, failf(codeInvalid, "%s column: item %d is %d bytes, not %d", c.what, c.first+from+j, len(b), c.width)
			}
		}
		return min(len(items), left/c.width), codeOK
	}
	for j, b := range items {
		if left -= len(b); left < 0 {
			return j, codeOK
		}
	}
	return len(items), codeOK
}

// write writes items (checked by take) as items from.. . The loops are
// per conversion so that a batch costs a few instructions per row.
func (c *colOut) write(from int, items [][]byte) {
	if !c.want {
		return
	}
	d := c.data[c.used:]
	switch c.conv {
	case convI64:
		for j, b := range items {
			binary.NativeEndian.PutUint64(d[j*8:], binary.BigEndian.Uint64(b)^(1<<63))
		}
	case convU64:
		for j, b := range items {
			binary.NativeEndian.PutUint64(d[j*8:], binary.BigEndian.Uint64(b))
		}
	case convF64:
		for j, b := range items {
			f, _ := keyenc.DecodeFloat64(b) // the engine checked the page; an odd key reads as 0
			binary.NativeEndian.PutUint64(d[j*8:], math.Float64bits(f))
		}
	}
	if c.conv != convRaw {
		c.used += 8 * len(items)
		return
	}
	o := 0
	switch {
	case c.o32 != nil:
		offs := c.o32[from+1 : from+1+len(items)]
		base := int32(c.base) + int32(c.used)
		for j, b := range items {
			o += copy(d[o:], b)
			offs[j] = base + int32(o)
		}
	case c.o64 != nil:
		offs := c.o64[from+1 : from+1+len(items)]
		base := int64(c.base) + int64(c.used)
		for j, b := range items {
			o += copy(d[o:], b)
			offs[j] = base + int64(o)
		}
	default:
		for _, b := range items {
			o += copy(d[o:], b)
		}
	}
	c.used += o
}

// colScratch is a get_many chunk's keys and answers, pooled; cleared before
// pooling so that no slice into a mapping stays reachable (see
// manyScratch.release).
type colScratch struct {
	enc   []byte
	ends  []int
	keys  [][]byte
	vals  [][]byte
	found []bool
	kb    [][]byte // a cursor batch
	vb    [][]byte
}

var colScratches = sync.Pool{New: func() any {
	return &colScratch{kb: make([][]byte, colBatch), vb: make([][]byte, colBatch)}
}}

func (s *colScratch) release() {
	clear(s.keys[:cap(s.keys)])
	clear(s.vals[:cap(s.vals)])
	clear(s.kb)
	clear(s.vb)
	if cap(s.enc) > 1<<20 {
		s.enc = nil
	}
	colScratches.Put(s)
}

// colBatch is the rows looked up or walked at a time: the scratch stays
// small and a full column wastes at most one batch of lookups.
const colBatch = 1024

// drydb__col_get_many_go is drydb__cols_get_many's Go half (colfast.c
// answers in C what it can): every key kind, page and error. first is the
// index of key 0 in the caller's call (colfast.c hands over columns moved
// on to where it stopped), for messages.
//
//export drydb__col_get_many_go
func drydb__col_get_many_go(h C.uintptr_t, first, n, nkeys C.size_t, keys *C.struct_drydb__colin, vals *C.struct_drydb__colout, found *C.uint8_t, done *C.size_t) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc != codeOK {
		return rc
	}
	t := c.t
	if done == nil || found == nil || vals == nil || uint64(n) > maxBatch {
		return failf(codeInvalid, "drydb__cols_get_many: NULL done, found or values, or n = %d exceeds %d", uint64(n), maxBatch)
	}
	*done = 0
	if n == 0 {
		return codeOK
	}
	kc, rc := openKeyCols(t.enc, int(n), nkeys, keys)
	if rc != codeOK {
		return rc
	}
	vo, rc := openValues(vals, int(n))
	if rc != codeOK {
		return rc
	}
	vo.first = int(first)
	fs := unsafe.Slice((*byte)(unsafe.Pointer(found)), int(n))
	// absent keys: an empty item, or width zero bytes
	var absent []byte
	if vo.o32 == nil && vo.o64 == nil {
		absent = make([]byte, vo.width)
	}
	s := colScratches.Get().(*colScratch)
	defer s.release()
	for from := 0; from < int(n); from += colBatch {
		to := min(from+colBatch, int(n))
		// the chunk's keys: encoded ones one after another in s.enc
		// (sliced once it stops growing), raw ones in place
		s.enc, s.ends, s.keys = s.enc[:0], s.ends[:0], s.keys[:0]
		for i := from; i < to; i++ {
			k, err := kc.key(i)
			if err == nil {
				err = t.enc.Validate(k)
			}
			if err != nil {
				return failf(codeBadKey, "key %d: %v", int(first)+i, err)
			}
			if kc.asIs() {
				s.keys = append(s.keys, k)
			} else {
				s.enc = append(s.enc, k...)
				s.ends = append(s.ends, len(s.enc))
			}
		}
		for j, e := range s.ends {
			b := 0
			if j > 0 {
				b = s.ends[j-1]
			}
			s.keys = append(s.keys, s.enc[b:e:e])
		}
		s.vals = resize(s.vals, len(s.keys))
		s.found = resize(s.found, len(s.keys))
		if err := t.t.GetMany(s.keys, s.vals, s.found); err != nil {
			return fail(err)
		}
		for j, ok := range s.found[:len(s.keys)] {
			if !ok {
				s.vals[j] = absent
			}
		}
		fit, rc := vo.take(from, s.vals[:len(s.keys)])
		if rc != codeOK {
			return rc
		}
		vo.write(from, s.vals[:fit])
		for j, ok := range s.found[:fit] {
			fs[from+j] = 0
			if ok {
				fs[from+j] = 1
			}
		}
		*done = C.size_t(from + fit)
		if fit < len(s.keys) {
			return codeFull // *done keys answered
		}
	}
	return codeOK
}

// drydb__col_range_go is drydb__cols_range's Go half (colfast.c answers
// in C what it can).
//
//export drydb__col_range_go
func drydb__col_range_go(h C.uintptr_t, lo *C.uint8_t, lolen C.size_t, lokind C.int, hi *C.uint8_t, hilen C.size_t, hikind C.int, flags C.uint32_t, skip C.uint64_t, max C.size_t, keys, vals *C.struct_drydb__colout, n *C.size_t) (rc C.int) {
	var c tableCall
	defer c.exit(&rc)
	if rc = c.enter(h); rc != codeOK {
		return rc
	}
	t := c.t
	if n == nil || (keys == nil && vals == nil) || uint64(max) > maxBatch || flags&^C.DRYDB_REVERSE != 0 {
		return failf(codeInvalid, "drydb__cols_range: NULL count, no column, unknown flags %#x, or max = %d exceeds %d", uint32(flags), uint64(max), maxBatch)
	}
	*n = 0
	l, u, rc := bounds(lo, lolen, lokind, hi, hilen, hikind, t.enc, false)
	if rc != codeOK {
		return rc
	}
	ko, rc := openColOut(keys, int(max), "key", t.enc.Kind)
	if rc != codeOK {
		return rc
	}
	vo, rc := openValues(vals, int(max))
	if rc != codeOK {
		return rc
	}
	if max == 0 {
		return codeOK
	}
	cur := t.t.NewCursor(l, u)
	defer cur.Close()
	reverse := flags&C.DRYDB_REVERSE != 0
	ok := seekSkip(cur, uint64(skip), reverse)
	s := colScratches.Get().(*colScratch)
	defer s.release()
	got, m := 0, int(max)
	for ok && got < m {
		want := min(m-got, colBatch)
		var kb, vb [][]byte
		if ko.want {
			kb = s.kb[:want]
		}
		if vo.want {
			vb = s.vb[:want]
		}
		nb := cur.NextBatch(kb, vb, reverse)
		if kb != nil {
			kb = kb[:nb]
		}
		if vb != nil {
			vb = vb[:nb]
		}
		kfit, rc := ko.take(got, kb)
		if rc != codeOK {
			return rc
		}
		vfit, rc := vo.take(got, vb)
		if rc != codeOK {
			return rc
		}
		fit := nb
		if ko.want {
			fit = min(fit, kfit)
		}
		if vo.want {
			fit = min(fit, vfit)
		}
		ko.write(got, kb[:min(fit, len(kb))])
		vo.write(got, vb[:min(fit, len(vb))])
		got += fit
		if fit < nb {
			*n = C.size_t(got)
			return codeFull
		}
		if nb == 0 {
			break
		}
		ok = advance(cur, reverse)
	}
	if err := cur.Err(); err != nil {
		return fail(err)
	}
	*n = C.size_t(got)
	return codeOK
}

// seekSkip puts a fresh cursor on the row skip rows from the start of its
// range in walk order (by row number: O(log n), not skip steps).
func seekSkip(cur *engine.Cursor, skip uint64, reverse bool) bool {
	var ok bool
	if reverse {
		ok = cur.Last()
	} else {
		ok = cur.First()
	}
	if !ok || skip == 0 {
		return ok
	}
	r := cur.Row()
	if reverse {
		if skip > r {
			return false
		}
		return cur.SeekRow(r - skip)
	}
	return cur.SeekRow(r + skip)
}
