package engine

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

// sorter collects (key, value) records within a memory budget and yields them
// in key order. Records are appended to an arena; when the arena outgrows the
// budget it is sorted and spilled to a temporary file as a run, and the runs
// are merged at the end. Input that arrives already sorted is never sorted
// and its runs merge trivially.
//
// A value may instead be a reference to an overflow value already written to
// the table's blob file (ref != nil); refs are kept as fixed 20-byte values
// with the ref flag set.
type sorter struct {
	tempDir string
	budget  *budget
	// The arena is a list of fixed-size chunks rather than one growing
	// slice, so that adding never copies what is already there (on large
	// sorted builds that copying was a fifth of the time). A record never
	// straddles two chunks; rec.off addresses chunk off>>chunkShift.
	chunks [][]byte
	used   int // bytes of the arena in use, tails of full chunks included
	recs   []rec
	sorted bool // every record so far arrived in order
	last   []byte
	runs   []*os.File
	total  uint64
}

// rec points into the arena. prefix holds the first 8 key bytes big-endian so
// that most comparisons during the sort are one integer compare.
type rec struct {
	prefix uint64
	off    uint32
	klen   uint32
	vlen   uint32 // with refFlag set the value is an overflow reference
}

const refFlag = 1 << 31

const (
	chunkShift = 20 // 1 MiB chunks: a record (key + inline value) always fits
	chunkSize  = 1 << chunkShift
)

// budget is shared by every sorter of one Builder.
type budget struct {
	limit int64
	used  int64
}

// Buffers reused across builds. A program that rebuilds small databases
// again and again (a batch job, a test suite, a service rebuilding its
// lookup tables) otherwise allocated ~2.8 MB per 10,000-row build (the
// arena doubling up, the record slice doubling up, a 1 MiB write buffer) and
// spent a quarter of the build in the collector (lock2/unlock2, sweeping).
var (
	chunkPool  = sync.Pool{New: func() any { return new([chunkSize]byte) }}
	recsPool   sync.Pool // *[]rec, len 0
	writerPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 1<<20) }}
)

// firstChunkMax is where the first chunk stops doubling and takes a pooled
// full chunk: a builder may hold many small tables, which should not pin a
// MiB each, while a larger table should not copy its way up to one.
const firstChunkMax = 64 << 10

func getWriter(w io.Writer) *bufio.Writer {
	bw := writerPool.Get().(*bufio.Writer)
	bw.Reset(w)
	return bw
}

// putWriter returns bw once the caller is done with it (flushed or failed).
func putWriter(bw *bufio.Writer) {
	bw.Reset(nil)
	writerPool.Put(bw)
}

func newSorter(dir string, b *budget) *sorter { return &sorter{tempDir: dir, budget: b, sorted: true} }

func keyPrefix(k []byte) uint64 {
	var p [8]byte
	copy(p[:], k)
	return binary.BigEndian.Uint64(p[:])
}

func (s *sorter) add(key, val []byte, isRef bool) error {
	n := len(key) + len(val)
	if s.used+n+chunkSize > 1<<32-1 || (s.budget.used > s.budget.limit && len(s.recs) > 0) {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if n > chunkSize {
		return fmt.Errorf("%w: record of %d bytes", ErrTooLarge, n)
	}
	if s.sorted && s.total > 0 && bytes.Compare(key, s.last) <= 0 {
		s.sorted = false
	}
	c := s.used >> chunkShift
	if s.used&(chunkSize-1)+n > chunkSize { // the record starts a new chunk
		c++
		s.budget.used += int64(chunkSize - s.used&(chunkSize-1))
		s.used = c << chunkShift
	}
	off := s.used
	o := off & (chunkSize - 1)
	if c == len(s.chunks) {
		// The first chunk starts small and grows (see firstChunkMax); later
		// ones are whole, pooled chunks.
		if c == 0 {
			s.chunks = append(s.chunks, nil)
			if s.recs == nil {
				if r, ok := recsPool.Get().(*[]rec); ok {
					s.recs = *r
				}
			}
		} else {
			s.chunks = append(s.chunks, chunkPool.Get().(*[chunkSize]byte)[:])
		}
	}
	if len(s.chunks[c]) < o+n {
		var grown []byte
		if size := max(2*len(s.chunks[c]), o+n, 4096); size > firstChunkMax {
			grown = chunkPool.Get().(*[chunkSize]byte)[:]
		} else {
			grown = make([]byte, size)
		}
		copy(grown, s.chunks[c][:o])
		s.chunks[c] = grown
	}
	ch := s.chunks[c]
	copy(ch[o:], key)
	copy(ch[o+len(key):], val)
	s.used += n
	s.last = ch[o : o+len(key) : o+len(key)]
	vl := uint32(len(val))
	if isRef {
		vl |= refFlag
	}
	s.recs = append(s.recs, rec{prefix: keyPrefix(key), off: uint32(off), klen: uint32(len(key)), vlen: vl})
	s.budget.used += int64(n + 24)
	s.total++
	return nil
}

func (s *sorter) key(r *rec) []byte {
	o := r.off & (chunkSize - 1)
	return s.chunks[r.off>>chunkShift][o : o+r.klen]
}

func (s *sorter) val(r *rec) []byte {
	o := r.off&(chunkSize-1) + r.klen
	return s.chunks[r.off>>chunkShift][o : o+r.vlen&^refFlag]
}

func (s *sorter) cmp(a, b rec) int {
	if a.prefix != b.prefix {
		if a.prefix < b.prefix {
			return -1
		}
		return 1
	}
	return bytes.Compare(s.key(&a), s.key(&b))
}

func (s *sorter) sortMem() {
	if !s.sorted || len(s.runs) > 0 {
		slices.SortFunc(s.recs, s.cmp)
	}
}

// spill sorts the in-memory records and writes them to a run file.
func (s *sorter) spill() error {
	if len(s.recs) == 0 {
		return nil
	}
	s.sortMem()
	f, err := os.CreateTemp(s.tempDir, ".drydb-run-*")
	if err != nil {
		return fmt.Errorf("drydb: creating sort run: %w", err)
	}
	os.Remove(f.Name()) // unlinked at once: a killed build leaves no litter
	w := getWriter(f)
	defer putWriter(w)
	var hdr [2 * binary.MaxVarintLen64]byte
	for i := range s.recs {
		r := &s.recs[i]
		n := binary.PutUvarint(hdr[:], uint64(r.klen))
		n += binary.PutUvarint(hdr[n:], uint64(r.vlen))
		w.Write(hdr[:n])
		w.Write(s.key(r))
		if _, err := w.Write(s.val(r)); err != nil {
			f.Close()
			return fmt.Errorf("drydb: writing sort run: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("drydb: writing sort run: %w", err)
	}
	s.runs = append(s.runs, f)
	s.budget.used -= int64(s.used + 24*len(s.recs))
	s.used = 0 // the chunks are reused
	s.recs = s.recs[:0]
	s.last = nil
	return nil
}

// iter yields records in key order. Key and value are valid until the next call.
type iter interface {
	next() (key, val []byte, isRef bool, ok bool)
	err() error
}

// iterate returns an iterator over everything added. It may be called more
// than once (the dictionary trainer makes a first pass).
func (s *sorter) iterate() (iter, error) {
	if len(s.runs) == 0 {
		s.sortMem()
		s.sorted = true
		return &memIter{s: s}, nil
	}
	if err := s.spill(); err != nil {
		return nil, err
	}
	m := &mergeIter{}
	for _, f := range s.runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		ri := &runIter{r: bufio.NewReaderSize(f, 256<<10)}
		if ri.advance() {
			m.h = append(m.h, ri)
		} else if ri.e != nil {
			return nil, ri.e
		}
	}
	heap.Init(&m.h)
	return m, nil
}

func (s *sorter) close() {
	for _, f := range s.runs {
		f.Close()
	}
	s.runs = nil
	s.budget.used -= int64(s.used + 24*len(s.recs))
	// Back to the pools: nothing refers to the arena once a table is
	// written or the build abandoned (Func's arguments are documented as
	// valid during the call only).
	for _, ch := range s.chunks {
		if len(ch) == chunkSize {
			chunkPool.Put((*[chunkSize]byte)(ch))
		}
	}
	if cap(s.recs) >= 1024 && cap(s.recs) <= 1<<18 { // up to 6 MB kept
		r := s.recs[:0]
		recsPool.Put(&r)
	}
	s.chunks, s.recs, s.used, s.last = nil, nil, 0, nil
}

type memIter struct {
	s *sorter
	i int
}

func (m *memIter) next() ([]byte, []byte, bool, bool) {
	if m.i >= len(m.s.recs) {
		return nil, nil, false, false
	}
	r := &m.s.recs[m.i]
	m.i++
	return m.s.key(r), m.s.val(r), r.vlen&refFlag != 0, true
}
func (m *memIter) err() error { return nil }

type runIter struct {
	r     *bufio.Reader
	buf   []byte
	key   []byte
	val   []byte
	isRef bool
	e     error
}

func (r *runIter) advance() bool {
	kl, err := binary.ReadUvarint(r.r)
	if err == io.EOF {
		return false
	}
	vl, err2 := binary.ReadUvarint(r.r)
	if err != nil || err2 != nil {
		r.e = fmt.Errorf("drydb: reading sort run: %v", err)
		return false
	}
	isRef := vl&refFlag != 0
	vl &^= refFlag
	n := int(kl + vl)
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	r.buf = r.buf[:n]
	if _, err := io.ReadFull(r.r, r.buf); err != nil {
		r.e = fmt.Errorf("drydb: reading sort run: %v", err)
		return false
	}
	r.key, r.val, r.isRef = r.buf[:kl], r.buf[kl:], isRef
	return true
}

type runHeap []*runIter

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].key, h[j].key) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*runIter)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// mergeIter merges sorted runs. The record it returns is copied out of the
// run's buffer because advancing the run reuses it.
type mergeIter struct {
	h       runHeap
	started bool
	kbuf    []byte
	vbuf    []byte
	e       error
}

func (m *mergeIter) next() ([]byte, []byte, bool, bool) {
	if len(m.h) == 0 || m.e != nil {
		return nil, nil, false, false
	}
	top := m.h[0]
	m.kbuf = append(m.kbuf[:0], top.key...)
	m.vbuf = append(m.vbuf[:0], top.val...)
	isRef := top.isRef
	if top.advance() {
		heap.Fix(&m.h, 0)
	} else {
		if top.e != nil {
			m.e = top.e
		}
		heap.Pop(&m.h)
	}
	return m.kbuf, m.vbuf, isRef, true
}
func (m *mergeIter) err() error { return m.e }
