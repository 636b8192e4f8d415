package drydb14

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// ErrCorrupt is wrapped by every error about a file that breaks the 1.4 layout; *CorruptError
// says where.
var ErrCorrupt = errors.New("drydb: corrupt DryDB 1.4 file")

// ErrVersion is returned for a DryDB file of a version other than 1.4.
var ErrVersion = errors.New("drydb: unsupported DryDB format version")

// CorruptError says where a check failed: the page ordinal (-1: not in a page) and the file
// offset of the structure.
type CorruptError struct {
	Page   int64
	Offset int64
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Page < 0 {
		return fmt.Sprintf("drydb: corrupt DryDB 1.4 file at offset %d: %s", e.Offset, e.Reason)
	}
	return fmt.Sprintf("drydb: corrupt DryDB 1.4 page %d at offset %d: %s", e.Page, e.Offset, e.Reason)
}

func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

func corruptAt(off int64, format string, args ...any) error {
	return &CorruptError{Page: -1, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// Is reports whether data begins like a DryDB file of any version (the caller then gets either a
// 1.4 file or ErrVersion from Parse, never a native-format error).
func Is(data []byte) bool { return len(data) >= len(Magic) && string(data[:len(Magic)]) == Magic }

// File is a parsed 1.4 file. Its methods are not safe for concurrent use (one zstd decoder, one
// page-use map). Slices it returns point into data or into decoded pages; they stay valid while
// data does.
type File struct {
	PageSize int
	Filter   string // "" or ZstdFilter
	Tables   []Table

	data    []byte
	npages  int64
	dirPos  int64
	descEnd int64
	zd      *zstd.Decoder
	// use records what each page was read as, so that no page is used twice: a tree that
	// points into itself (a cycle) or at another tree's page, or a blob shared by two values,
	// is refused, and the work of reading a file is bounded by its size.
	use []uint8
}

const (
	useNone = iota
	useTree
	useBlob
)

// Table is a 1.4 table: its primary tree and secondary indexes in file order.
type Table struct {
	Name    string
	Primary Tree
	Indexes []Tree
}

// Tree is one index descriptor.
type Tree struct {
	Name      string
	Enc       Encoding
	Unique    bool
	Root      int64 // page ordinal; -1: no page (an empty tree, as the C# builder writes it)
	valueKind uint8
	descOff   int64
}

// Parse checks the header, filters, table descriptors and page directory of data. Trees are
// read (and checked) by ReadTable.
func Parse(data []byte) (*File, error) {
	if !Is(data) {
		return nil, corruptAt(0, "no DryDB magic")
	}
	if len(data) < HeaderSize {
		return nil, corruptAt(0, "file of %d bytes is shorter than the %d-byte header", len(data), HeaderSize)
	}
	if data[offMajor] != Major || data[offMinor] != Minor {
		return nil, fmt.Errorf("%w %d.%d: drydb reads DryDB files of format 1.4 only", ErrVersion, data[offMajor], data[offMinor])
	}
	f := &File{data: data}
	ps := int32(binary.LittleEndian.Uint32(data[offPageSize:]))
	if ps < minPageSize || ps > maxPageSize {
		return nil, corruptAt(offPageSize, "page size %d is outside %d..%d", ps, minPageSize, maxPageSize)
	}
	f.PageSize = int(ps)
	pc := int64(int32(binary.LittleEndian.Uint32(data[offPageCount:])))
	f.dirPos = int64(binary.LittleEndian.Uint64(data[offDirPos:]))
	size := int64(len(data))
	// The directory is the end of the file: dirPos + 8*pc == size, checked without overflow.
	if pc < 0 || f.dirPos < HeaderSize || f.dirPos > size || (size-f.dirPos)%8 != 0 || (size-f.dirPos)/8 != pc {
		return nil, corruptAt(offPageCount, "page count %d and directory position %d do not end the %d-byte file", pc, f.dirPos, size)
	}
	f.npages = pc
	r := &reader{b: data[:f.dirPos], off: HeaderSize}
	nf := int(binary.LittleEndian.Uint16(data[offFilters:]))
	for i := 0; i < nf; i++ {
		id := r.str(int(r.u8()))
		if r.err != nil {
			return nil, r.err
		}
		if id != ZstdFilter {
			return nil, corruptAt(int64(r.off), "unknown filter %q (DryDB 1.4 defines only %q)", id, ZstdFilter)
		}
		if f.Filter != "" {
			// Upstream DryDB's filter chaining is broken; the Rust crate refuses such files too.
			return nil, corruptAt(int64(r.off), "more than one filter")
		}
		f.Filter = id
	}
	nt := int(binary.LittleEndian.Uint16(data[offTables:]))
	for i := 0; i < nt && r.err == nil; i++ {
		var t Table
		nl := r.i32()
		t.Name = r.str(nl)
		t.Primary = f.descriptor(r)
		ni := int(r.u16())
		for j := 0; j < ni && r.err == nil; j++ {
			t.Indexes = append(t.Indexes, f.descriptor(r))
		}
		if r.err == nil {
			if err := f.checkTable(&t); err != nil {
				return nil, err
			}
		}
		f.Tables = append(f.Tables, t)
	}
	if r.err != nil {
		return nil, r.err
	}
	f.descEnd = int64(r.off)
	// Pages follow the descriptors in ordinal order, each before the next.
	prev := f.descEnd
	for i := int64(0); i < f.npages; i++ {
		off := f.pageOff(i)
		if off < prev || off > f.dirPos-PrefixSize {
			return nil, corruptAt(f.dirPos+8*i, "page %d at offset %d is outside %d..%d or out of order", i, off, prev, f.dirPos-PrefixSize)
		}
		prev = off + PrefixSize
	}
	f.use = make([]uint8, f.npages)
	return f, nil
}

func (f *File) descriptor(r *reader) Tree {
	t := Tree{descOff: int64(r.off)}
	nl, el := int(r.u16()), int(r.u16())
	t.Name = r.str(nl)
	id := r.str(el)
	u := r.u8()
	t.valueKind = r.u8()
	t.Root = r.i64()
	if r.err != nil {
		return t
	}
	var ok bool
	if t.Enc, ok = encodingByID(id); !ok {
		r.fail("index %q has unknown key encoding %q", t.Name, id)
	}
	if u > 1 {
		r.fail("index %q: is_unique is %d", t.Name, u)
	}
	t.Unique = u == 1
	if t.Root < -1 || t.Root >= f.npages {
		r.fail("index %q: root page %d is not one of the file's %d pages", t.Name, t.Root, f.npages)
	}
	return t
}

func (f *File) checkTable(t *Table) error {
	if !t.Primary.Unique || t.Primary.valueKind != valueRaw {
		return corruptAt(t.Primary.descOff, "table %q: primary index is not unique raw data", t.Name)
	}
	for _, ix := range t.Indexes {
		if ix.valueKind != valuePageRef {
			return corruptAt(ix.descOff, "table %q, index %q: value kind %d (want %d, PageRef)", t.Name, ix.Name, ix.valueKind, valuePageRef)
		}
	}
	return nil
}

// Close releases the zstd decoder.
func (f *File) Close() {
	if f.zd != nil {
		f.zd.Close()
		f.zd = nil
	}
}

func (f *File) pageOff(ord int64) int64 {
	return int64(binary.LittleEndian.Uint64(f.data[f.dirPos+8*ord:]))
}

// pageEnd is where page ord must end: the next page, or the directory.
func (f *File) pageEnd(ord int64) int64 {
	if ord+1 < f.npages {
		return f.pageOff(ord + 1)
	}
	return f.dirPos
}

func (f *File) corrupt(ord int64, format string, args ...any) error {
	off := int64(-1)
	if ord >= 0 && ord < f.npages {
		off = f.pageOff(ord)
	}
	return &CorruptError{Page: ord, Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// page returns page ord as a reader sees it (decoded, with page_length rewritten to its decoded
// length), marking it used as u. limit bounds the decoded length.
func (f *File) page(ord int64, u uint8, limit int) ([]byte, error) {
	if ord < 0 || ord >= f.npages {
		return nil, corruptAt(-1, "page ordinal %d is not one of the file's %d pages", ord, f.npages)
	}
	if f.use[ord] != useNone {
		return nil, f.corrupt(ord, "page is used twice (a cycle, or a page shared by two trees or values)")
	}
	f.use[ord] = u
	off := f.pageOff(ord)
	stored := int64(int32(binary.LittleEndian.Uint32(f.data[off:])))
	if stored < PrefixSize || stored > f.pageEnd(ord)-off {
		return nil, f.corrupt(ord, "page length %d is outside %d..%d", stored, PrefixSize, f.pageEnd(ord)-off)
	}
	raw := f.data[off : off+stored]
	if f.Filter == "" {
		if stored > int64(limit) {
			return nil, f.corrupt(ord, "page of %d bytes exceeds the limit of %d", stored, limit)
		}
		return raw, nil
	}
	var h zstd.Header
	if err := h.Decode(raw[PrefixSize:]); err != nil || !h.HasFCS || h.FrameContentSize > uint64(limit-PrefixSize) {
		return nil, f.corrupt(ord, "zstd frame without a content size of at most %d bytes (%v)", limit-PrefixSize, err)
	}
	if f.zd == nil {
		zd, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxBlob), zstd.WithDecoderMaxWindow(MaxBlob))
		if err != nil {
			return nil, fmt.Errorf("drydb: zstd: %w", err)
		}
		f.zd = zd
	}
	want := PrefixSize + int(h.FrameContentSize)
	p := make([]byte, PrefixSize, want)
	copy(p, raw[:PrefixSize])
	p, err := f.zd.DecodeAll(raw[PrefixSize:], p)
	if err != nil || len(p) != want {
		return nil, f.corrupt(ord, "zstd frame does not decode to its %d bytes (%v)", h.FrameContentSize, err)
	}
	binary.LittleEndian.PutUint32(p[offPageLen:], uint32(want))
	return p, nil
}

// blob returns the value stored on blob page ord. Only a zstd blob is limited (to MaxBlob): a
// plain one is bytes of the file.
func (f *File) blob(ord int64) ([]byte, error) {
	limit := MaxBlob
	if f.Filter == "" {
		limit = math.MaxInt
	}
	p, err := f.page(ord, useBlob, limit)
	if err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint32(p[offKind:]) != 0 || binary.LittleEndian.Uint32(p[offCount:]) != 0 {
		return nil, f.corrupt(ord, "referenced as a blob but its kind word or entry count is not 0")
	}
	return p[PrefixSize:], nil
}

// reader reads descriptors with bounds checks; the first failure sticks.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = corruptAt(int64(r.off), format, args...)
	}
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.fail("field of %d bytes runs past the descriptors", n)
		return nil
	}
	b := r.b[r.off : r.off+n]
	r.off += n
	return b
}

func (r *reader) u8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if b := r.take(2); b != nil {
		return binary.LittleEndian.Uint16(b)
	}
	return 0
}

func (r *reader) i32() int {
	if b := r.take(4); b != nil {
		return int(int32(binary.LittleEndian.Uint32(b)))
	}
	return 0
}

func (r *reader) i64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (r *reader) str(n int) string {
	b := r.take(n)
	if r.err == nil && !utf8.Valid(b) {
		r.fail("name is not UTF-8")
	}
	return string(b)
}
