package drydb14

// The DryDB 1.4 writer. It is a port of the drydb-rs builder (crate drydb
// 0.1.0+drydb1.4, builder/mod.rs and builder/tree.rs), which is itself a port
// of upstream DryDB's TreeBuilder: the same packing arithmetic, blob rule,
// write order and layout choice, so an unfiltered file is byte-identical to
// the one drydb-rs writes from the same rows (the fixtures under
// tests/drydb14/fixtures check this). The layout is drawn in layout.go and
// described in tests/drydb14/fixtures/LAYOUT-1.4.md.
//
// Input comes in drydb's own key encodings, already sorted (a native table
// is); the writer translates each key to the 1.4 byte layout (i64
// little-endian, uuidv7 in .NET Guid layout), which keeps the order because
// every mapping below is order-preserving.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"

	"github.com/drydb/drydb/engine/keyenc"
)

// 1.4 layout constants (the writer's own; the rest are in layout.go)
const (
	// The page size bounds are the reader's (layout.go), so that drydb reads
	// whatever it writes; drydb-rs's builder takes 60 bytes and up.
	MinPageSize     = minPageSize
	MaxPageSize     = maxPageSize
	DefaultPageSize = 4096
	noPage          = -1
)

// maxZstdValue is the longest value written to a zstd file: what drydb's
// reader decodes from a zstd blob page (MaxBlob). A plain file's values are
// bounded by 1.4's 32-bit page length only. A variable so that a test can
// lower it.
var maxZstdValue = MaxBlob - PrefixSize

// ErrUnsupported is wrapped by the error for a table or index that 1.4
// cannot represent (its message names it and says why).
var ErrUnsupported = errors.New("drydb: not representable in DryDB 1.4")

// Options configure Write. The zero value writes 4096-byte pages, no filter.
type Options struct {
	// PageSize is the 1.4 page size, MinPageSize to MaxPageSize (0 means 4096).
	// Pages up to 32767 bytes use compact metadata, larger ones classic.
	PageSize int
	// Zstd compresses every page with the DryDB.ZstdCompression filter.
	Zstd bool
	// Eytzinger stores each page's digests in Eytzinger (BFS) order.
	Eytzinger bool
}

// TableSource is one table to write. Rows yields the rows in key order
// (drydb's order of Key's encoding); it may be called twice (emptyTwins).
// Each Index's Entries yields (index key, row number) in index key order,
// rows ascending within equal keys; row numbers count Rows' rows from 0.
// Slices given to yield may be reused after it returns.
type TableSource struct {
	Name    string
	Key     keyenc.Encoding
	Rows    func(yield func(key, val []byte) error) error
	Indexes []IndexSource
}

// IndexSource is a secondary index of a TableSource.
type IndexSource struct {
	Name    string
	Unique  bool
	Key     keyenc.Encoding
	Entries func(yield func(ikey []byte, row uint64) error) error
}

// Report says what Write wrote.
type Report struct {
	Bytes int64
	Pages int64
}

// KeyType returns the 1.4 key encoding that holds keys of drydb encoding e
// (order-preserving: see Encoding.Native), or an error wrapping
// ErrUnsupported saying why there is none.
func KeyType(e keyenc.Encoding) (Encoding, error) {
	id := ""
	switch e.Kind {
	case keyenc.Int64:
		id = "i64"
	case keyenc.Bytes, keyenc.String:
		id = "ascii" // 1.4's ascii keys are any bytes, compared bytewise
	case keyenc.UUID:
		id = "uuidv7"
	case keyenc.ULID:
		id = "ulid"
	case keyenc.Uint64:
		return Encoding{}, fmt.Errorf("%w: uint64 keys (1.4's only integer key is the signed i64, which would reorder keys of 2^63 and above)", ErrUnsupported)
	case keyenc.Float64:
		return Encoding{}, fmt.Errorf("%w: float64 keys (1.4 has no floating-point key type)", ErrUnsupported)
	case keyenc.Composite:
		return Encoding{}, fmt.Errorf("%w: composite keys (1.4 keys are a single i64, ascii, uuidv7 or ulid)", ErrUnsupported)
	default:
		return Encoding{}, fmt.Errorf("%w: key encoding %s", ErrUnsupported, e)
	}
	return EncodingOf(id)
}

// layout is one tree's page layout.
type layout struct{ eytzinger, compact, omitted bool }

// chooseLayout is drydb-rs's choose_layout: compact metadata on pages up to
// 32767 bytes; key bytes omitted where the digest is the key (i64), never
// with Eytzinger digests and never on a non-unique index (its rid would be
// lost).
func chooseLayout(ps int, eytzinger bool, enc Encoding, allowOmit bool) layout {
	compact := ps <= compactMaxPage
	return layout{eytzinger: eytzinger, compact: compact,
		omitted: allowOmit && compact && !eytzinger && enc.exact}
}

func (l layout) flags() uint32 {
	var f uint32
	if l.eytzinger {
		f |= FlagEytzinger
	}
	if l.compact {
		f |= FlagCompactMeta
	}
	if l.omitted {
		f |= FlagOmittedKeys
	}
	return f
}

func completeSize(n int) int {
	m := 1
	for m < n+1 {
		m <<= 1
	}
	return m - 1
}

func (l layout) digestArea(n int) int {
	if l.eytzinger {
		return 8 * completeSize(n)
	}
	return 8 * n
}

func (l layout) leafMeta(n int) int {
	switch {
	case !l.compact:
		return 8 * n // off i32, key_len u16, val_len u16
	case l.omitted:
		return 2 * (n + 1)
	}
	return 2 * (n + 1 + n)
}

func (l layout) internalMeta(n int) int {
	switch {
	case !l.compact:
		return 6 * n // off i32, key_len u16
	case l.omitted:
		return 0
	}
	return 2 * (n + 1)
}

func (l layout) storedKeyLen(n int) int {
	if l.omitted {
		return 0
	}
	return n
}

// checkKeyFits is drydb-rs's check_key_fits: the key must fit an empty leaf
// as a blob reference, and two separators of its length an internal page
// (else a level never shrinks and the build never ends).
func checkKeyFits(ps int, l layout, keyLen int) error {
	if keyLen > math.MaxUint16 {
		return fmt.Errorf("a %d byte key is longer than 1.4's 65535-byte key limit", keyLen)
	}
	k := l.storedKeyLen(keyLen)
	if need := PrefixSize + l.leafMeta(1) + l.digestArea(1) + k + 8; need > ps {
		return fmt.Errorf("a %d byte key needs a leaf page of at least %d bytes, but the page size is %d", keyLen, need, ps)
	}
	if need := PrefixSize + l.internalMeta(2) + l.digestArea(2) + 2*(k+8); need > ps {
		return fmt.Errorf("a %d byte key needs an internal page of at least %d bytes to hold two separators, but the page size is %d", keyLen, need, ps)
	}
	return nil
}

// pageRef is where a value is: a page ordinal and the value's bytes in the
// decoded page.
type pageRef struct {
	page        int64
	start, size uint32
}

func (r pageRef) encode(b *[pageRefSize]byte) []byte {
	binary.LittleEndian.PutUint64(b[0:], uint64(r.page))
	binary.LittleEndian.PutUint32(b[8:], r.start)
	binary.LittleEndian.PutUint32(b[12:], r.size)
	return b[:]
}

// sink writes pages in ordinal order and keeps the page directory. Right
// siblings and roots are back-patched; the patches are kept and written at
// the end, after the buffered pages are flushed.
type sink struct {
	out     io.WriterAt
	w       *bufio.Writer
	pos     int64
	dir     []int64
	patches []patch
	zenc    *zstd.Encoder
	zbuf    []byte
}

type patch struct {
	off int64
	val []byte
}

func (s *sink) raw(b []byte) error {
	n, err := s.w.Write(b)
	s.pos += int64(n)
	return err
}

func (s *sink) patchAt(off int64, val []byte) {
	s.patches = append(s.patches, patch{off, append([]byte(nil), val...)})
}

// nextPage is the ordinal and offset the next page gets.
func (s *sink) nextPage() (int64, int64) { return int64(len(s.dir)), s.pos }

// page writes a whole unfiltered page. With the zstd filter, everything after
// the prefix becomes one zstd frame (recording its content size) and the
// stored page_length becomes 28 + the frame's length.
func (s *sink) page(p []byte) error {
	s.dir = append(s.dir, s.pos)
	if s.zenc == nil {
		return s.raw(p)
	}
	s.zbuf = s.zenc.EncodeAll(p[PrefixSize:], append(s.zbuf[:0], p[:PrefixSize]...))
	if len(s.zbuf) > math.MaxInt32 {
		return fmt.Errorf("drydb: a compressed page of %d bytes exceeds 1.4's 32-bit page length", len(s.zbuf))
	}
	binary.LittleEndian.PutUint32(s.zbuf, uint32(len(s.zbuf)))
	return s.raw(s.zbuf)
}

// level is the page being filled on one level of a tree.
type level struct {
	payload  []byte
	sizes    [][2]int // stored key length, payload length
	blob     []bool   // leaf: the payload is a blob ordinal
	blobRefs []pageRef
	digests  []uint64
	firstKey []byte
	hasFirst bool
	prevOrd  int64
	prevOff  int64
}

func (lv *level) reset() {
	lv.payload = lv.payload[:0]
	lv.sizes = lv.sizes[:0]
	lv.blob = lv.blob[:0]
	lv.blobRefs = lv.blobRefs[:0]
	lv.digests = lv.digests[:0]
	lv.hasFirst = false
}

func (lv *level) setFirst(key []byte) {
	lv.firstKey = append(lv.firstKey[:0], key...)
	lv.hasFirst = true
}

// maxLevels stops a tree that fails to shrink (it cannot with keys that
// passed checkKeyFits; a backstop as in drydb-rs).
const maxLevels = 64

// treeWriter bulk-loads one B+tree bottom-up, one page buffer per level.
type treeWriter struct {
	s       *sink
	ps      int
	lay     layout
	enc     Encoding
	nonUniq bool
	levels  []*level
	scratch []byte
	// onRef receives where each leaf value landed, in key order (the
	// primary tree's values, which index entries point at).
	onRef func(pageRef)
}

func newTree(s *sink, ps int, lay layout, enc Encoding, nonUniq bool, onRef func(pageRef)) *treeWriter {
	return &treeWriter{s: s, ps: ps, lay: lay, enc: enc, nonUniq: nonUniq, onRef: onRef,
		levels: []*level{{prevOrd: noPage, prevOff: noPage}}}
}

func (t *treeWriter) digest(key []byte) uint64 {
	if t.nonUniq {
		key = key[:len(key)-ridSize]
	}
	return t.enc.digest(key)
}

func (t *treeWriter) inlineNeeds(storedKey, valLen int) int {
	lv := t.levels[0]
	n := len(lv.sizes) + 1
	return PrefixSize + t.lay.leafMeta(n) + t.lay.digestArea(n) + len(lv.payload) + storedKey + valLen
}

// push appends one entry; keys arrive in order. The blob rule is upstream's:
// a value that does not fit the leaf goes to a blob page if its 8-byte
// ordinal fits; only when even that does not fit is the leaf written first.
func (t *treeWriter) push(key, val []byte) error {
	if t.s.zenc != nil && len(val) > maxZstdValue {
		return fmt.Errorf("a %d byte value exceeds the %d bytes drydb's 1.4 reader decodes from a zstd blob page", len(val), maxZstdValue)
	}
	if len(val) > math.MaxInt32-PrefixSize {
		return fmt.Errorf("a %d byte value exceeds 1.4's 32-bit page length", len(val))
	}
	sk := t.lay.storedKeyLen(len(key))
	if min := PrefixSize + t.lay.leafMeta(1) + t.lay.digestArea(1) + sk + 8; min > t.ps {
		return fmt.Errorf("a %d byte key needs a page of at least %d bytes, but the page size is %d", len(key), min, t.ps)
	}
	lv := t.levels[0]
	if len(lv.sizes) == 0 {
		lv.setFirst(key)
	}
	blob := false
	if t.inlineNeeds(sk, len(val)) > t.ps {
		if t.inlineNeeds(sk, 8) > t.ps && len(lv.sizes) > 0 {
			if err := t.rotate(0, true); err != nil {
				return err
			}
			if len(lv.sizes) == 0 {
				lv.setFirst(key)
			}
		}
		blob = t.inlineNeeds(sk, len(val)) > t.ps
	}
	// Classic metadata stores value lengths in 16 bits with 0xFFFF as the
	// blob marker: longer values always go to a blob page (drydb-rs D6).
	if len(val) >= classicBlob {
		blob = true
	}
	lv.digests = append(lv.digests, t.digest(key))
	if !t.lay.omitted {
		lv.payload = append(lv.payload, key...)
	}
	if blob {
		ord, err := t.blobPage(val)
		if err != nil {
			return err
		}
		lv.payload = binary.LittleEndian.AppendUint64(lv.payload, uint64(ord))
		lv.sizes = append(lv.sizes, [2]int{sk, 8})
		lv.blobRefs = append(lv.blobRefs, pageRef{ord, PrefixSize, uint32(len(val))})
	} else {
		lv.payload = append(lv.payload, val...)
		lv.sizes = append(lv.sizes, [2]int{sk, len(val)})
		lv.blobRefs = append(lv.blobRefs, pageRef{})
	}
	lv.blob = append(lv.blob, blob)
	return nil
}

func putPrefix(p []byte, length int, kind uint32, n int, left, right int64) []byte {
	p = binary.LittleEndian.AppendUint32(p, uint32(length))
	p = binary.LittleEndian.AppendUint32(p, kind)
	p = binary.LittleEndian.AppendUint32(p, uint32(n))
	p = binary.LittleEndian.AppendUint64(p, uint64(left))
	return binary.LittleEndian.AppendUint64(p, uint64(right))
}

// blobPage writes a value on a page of its own: kind 0, no entries, no
// siblings, the value after the prefix.
func (t *treeWriter) blobPage(val []byte) (int64, error) {
	ord, _ := t.s.nextPage()
	p := putPrefix(t.scratch[:0], PrefixSize+len(val), 0, 0, noPage, noPage)
	p = append(p, val...)
	t.scratch = p
	return ord, t.s.page(p)
}

// rotate writes level i's page, links it to its left neighbour and, when
// promote is set, adds its first key to the parent level as a separator.
func (t *treeWriter) rotate(i int, promote bool) error {
	ord, off := t.s.nextPage()
	if err := t.flush(i, ord); err != nil {
		return err
	}
	lv := t.levels[i]
	if lv.prevOff != noPage {
		t.s.patchAt(lv.prevOff+offRight, binary.LittleEndian.AppendUint64(nil, uint64(ord)))
	}
	if promote {
		if i+1 == len(t.levels) {
			if len(t.levels) >= maxLevels {
				return fmt.Errorf("drydb: internal error: the tree reached %d levels", maxLevels)
			}
			t.levels = append(t.levels, &level{prevOrd: noPage, prevOff: noPage})
		}
		sep := lv.firstKey
		pl := t.levels[i+1]
		if len(pl.sizes) == 0 {
			pl.setFirst(sep)
		}
		sk := t.lay.storedKeyLen(len(sep))
		n := len(pl.sizes) + 1
		if PrefixSize+t.lay.internalMeta(n)+t.lay.digestArea(n)+len(pl.payload)+sk+8 > t.ps {
			if err := t.rotate(i+1, true); err != nil {
				return err
			}
			if len(pl.sizes) == 0 {
				pl.setFirst(sep)
			}
		}
		pl.digests = append(pl.digests, t.digest(sep))
		if !t.lay.omitted {
			pl.payload = append(pl.payload, sep...)
		}
		pl.payload = binary.LittleEndian.AppendUint64(pl.payload, uint64(ord))
		pl.sizes = append(pl.sizes, [2]int{sk, 8})
	}
	lv.reset()
	lv.prevOrd, lv.prevOff = ord, off
	return nil
}

// flush writes level i's page as ordinal ord.
func (t *treeWriter) flush(i int, ord int64) error {
	lv := t.levels[i]
	leaf := i == 0
	n := len(lv.sizes)
	meta := t.lay.internalMeta(n)
	if leaf {
		meta = t.lay.leafMeta(n)
	}
	base := PrefixSize + t.lay.digestArea(n) + meta
	plen := base + len(lv.payload)
	if plen > t.ps {
		return fmt.Errorf("drydb: internal error: built a %d byte page for a %d byte page size", plen, t.ps)
	}
	kind := t.lay.flags()
	if !leaf {
		kind |= kindInternal
	}
	p := putPrefix(t.scratch[:0], plen, kind, n, lv.prevOrd, noPage)
	if t.lay.eytzinger {
		slots := make([]uint64, completeSize(n))
		next := 0
		scatter(lv.digests, slots, 1, &next)
		for _, d := range slots {
			p = binary.LittleEndian.AppendUint64(p, d)
		}
	} else {
		for _, d := range lv.digests {
			p = binary.LittleEndian.AppendUint64(p, d)
		}
	}
	off := base
	switch {
	case t.lay.compact && (leaf || !t.lay.omitted):
		for j, sz := range lv.sizes {
			slot := uint16(off)
			if leaf && lv.blob[j] {
				slot |= compactBlobBit
			}
			p = binary.LittleEndian.AppendUint16(p, slot)
			off += sz[0] + sz[1]
		}
		p = binary.LittleEndian.AppendUint16(p, uint16(off))
		if leaf && !t.lay.omitted {
			for _, sz := range lv.sizes {
				p = binary.LittleEndian.AppendUint16(p, uint16(sz[0]))
			}
		}
	case !t.lay.compact:
		for j, sz := range lv.sizes {
			p = binary.LittleEndian.AppendUint32(p, uint32(off))
			p = binary.LittleEndian.AppendUint16(p, uint16(sz[0]))
			if leaf {
				vl := uint16(sz[1])
				if lv.blob[j] {
					vl = classicBlob
				}
				p = binary.LittleEndian.AppendUint16(p, vl)
			}
			off += sz[0] + sz[1]
		}
	}
	// (an omitted-keys internal page has no metadata: its payload is the
	// child ordinals alone)
	p = append(p, lv.payload...)
	t.scratch = p
	if err := t.s.page(p); err != nil {
		return err
	}
	if leaf && t.onRef != nil {
		off := base
		for j, sz := range lv.sizes {
			r := lv.blobRefs[j]
			if !lv.blob[j] {
				r = pageRef{ord, uint32(off + sz[0]), uint32(sz[1])}
			}
			t.onRef(r)
			off += sz[0] + sz[1]
		}
	}
	return nil
}

// scatter fills Eytzinger slots (BFS node k at slots[k-1]) with the sorted
// digests by an in-order walk, padding with the maximum digest.
func scatter(sorted, slots []uint64, node int, next *int) {
	if node > len(slots) {
		return
	}
	scatter(sorted, slots, 2*node, next)
	slots[node-1] = math.MaxUint64
	if *next < len(sorted) {
		slots[node-1] = sorted[*next]
		*next++
	}
	scatter(sorted, slots, 2*node+1, next)
}

// finish flushes the remaining levels bottom-up and returns the root. A tree
// with no entries gets one empty leaf as its root, as drydb-rs writes (the C#
// builder writes root -1, which its own reader cannot open).
func (t *treeWriter) finish() (int64, error) {
	for {
		flushed := false
		for i := 0; i+1 < len(t.levels); i++ {
			if len(t.levels[i].sizes) > 0 {
				if err := t.rotate(i, true); err != nil {
					return 0, err
				}
				flushed = true
			}
		}
		if !flushed {
			break
		}
	}
	top := t.levels[len(t.levels)-1]
	if len(top.sizes) > 0 || top.prevOrd == noPage {
		if err := t.rotate(len(t.levels)-1, false); err != nil {
			return 0, err
		}
	}
	return top.prevOrd, nil
}

// Write writes a 1.4 file of tables to out from offset 0 (the caller makes
// it atomic: engine.WriteDryDB14 writes a temporary file, syncs and renames
// it). It refuses, before writing anything, a table or index whose key
// encoding 1.4 cannot hold, naming it; and a key that does not fit the page
// size or input out of order, naming the table or index.
//
// Memory: the page directory (8 bytes a page) and, per table with indexes,
// where each row's value landed (16 bytes a row).
func Write(out interface {
	io.Writer
	io.WriterAt
}, tables []TableSource, opts *Options) (*Report, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.PageSize == 0 {
		o.PageSize = DefaultPageSize
	}
	if o.PageSize < MinPageSize || o.PageSize > MaxPageSize {
		return nil, fmt.Errorf("drydb: 1.4 page size %d is outside %d to %d", o.PageSize, MinPageSize, MaxPageSize)
	}
	if len(tables) > math.MaxUint16 {
		return nil, fmt.Errorf("drydb: %d tables; 1.4 holds at most 65535", len(tables))
	}
	plans, err := plan(tables)
	if err != nil {
		return nil, err
	}
	s := &sink{out: out, w: bufio.NewWriterSize(out, 1<<16)}
	hdr := []byte(Magic)
	hdr = append(hdr, Major, Minor)
	filters := 0
	if o.Zstd {
		filters = 1
		// Single-segment frames always record their content size (others
		// omit it below 256 bytes), which readers size the page by; drydb's
		// reader requires it. Zero frames: an empty payload still gets a frame.
		s.zenc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true), zstd.WithSingleSegment(true))
		if err != nil {
			return nil, err
		}
		defer s.zenc.Close()
	}
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(filters))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(o.PageSize))
	hdr = binary.LittleEndian.AppendUint16(hdr, uint16(len(tables)))
	hdr = append(hdr, make([]byte, 12)...) // page count, directory position: patched
	if o.Zstd {
		hdr = append(hdr, byte(len(ZstdFilter)))
		hdr = append(hdr, ZstdFilter...)
	}
	if err := s.raw(hdr); err != nil {
		return nil, writeErr(err)
	}
	for _, p := range plans {
		if err := p.descriptors(s); err != nil {
			return nil, writeErr(err)
		}
	}
	for _, p := range plans {
		if err := p.write(s, &o); err != nil {
			return nil, err
		}
	}
	dirPos, pages := s.pos, int64(len(s.dir))
	if pages > math.MaxInt32 {
		return nil, fmt.Errorf("drydb: %d pages; 1.4 holds at most 2^31-1", pages)
	}
	var b []byte
	for _, off := range s.dir {
		b = binary.LittleEndian.AppendUint64(b[:0], uint64(off))
		if err := s.raw(b); err != nil {
			return nil, writeErr(err)
		}
	}
	b = binary.LittleEndian.AppendUint32(b[:0], uint32(pages))
	s.patchAt(offPageCount, binary.LittleEndian.AppendUint64(b, uint64(dirPos)))
	if err := s.w.Flush(); err != nil {
		return nil, writeErr(err)
	}
	for _, p := range s.patches {
		if _, err := out.WriteAt(p.val, p.off); err != nil {
			return nil, writeErr(err)
		}
	}
	return &Report{Bytes: s.pos, Pages: pages}, nil
}

func writeErr(err error) error { return fmt.Errorf("drydb: writing a 1.4 file: %w", err) }

// tablePlan is a table with its key types resolved and the offsets of the
// root fields to patch.
type tablePlan struct {
	t        *TableSource
	enc      Encoding
	ixEnc    []Encoding
	rootOffs []int64 // primary, then each index
}

func plan(tables []TableSource) ([]*tablePlan, error) {
	plans := make([]*tablePlan, len(tables))
	for i := range tables {
		t := &tables[i]
		p := &tablePlan{t: t}
		var err error
		if p.enc, err = KeyType(t.Key); err != nil {
			return nil, fmt.Errorf("table %q: %w", t.Name, err)
		}
		if len(t.Indexes) > math.MaxUint16 {
			return nil, fmt.Errorf("drydb: table %q has %d indexes; 1.4 holds at most 65535", t.Name, len(t.Indexes))
		}
		for _, ix := range t.Indexes {
			enc, err := KeyType(ix.Key)
			if err != nil {
				return nil, fmt.Errorf("table %q index %q: %w", t.Name, ix.Name, err)
			}
			p.ixEnc = append(p.ixEnc, enc)
		}
		plans[i] = p
	}
	return plans, nil
}

// descriptors writes the table's descriptor: name_len i32, name, the primary
// index descriptor, index_count u16, the index descriptors. Roots are
// placeholders (upstream's: the offset just past the descriptor) until the
// trees exist.
func (p *tablePlan) descriptors(s *sink) error {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(p.t.Name)))
	b = append(b, p.t.Name...)
	if err := s.raw(b); err != nil {
		return err
	}
	if err := p.indexDescriptor(s, p.t.Name+"_pk", p.enc.ID, true, valueRaw); err != nil {
		return err
	}
	if err := s.raw(binary.LittleEndian.AppendUint16(nil, uint16(len(p.t.Indexes)))); err != nil {
		return err
	}
	for i, ix := range p.t.Indexes {
		if err := p.indexDescriptor(s, ix.Name, p.ixEnc[i].ID, ix.Unique, valuePageRef); err != nil {
			return err
		}
	}
	return nil
}

func (p *tablePlan) indexDescriptor(s *sink, name, typ string, unique bool, kind byte) error {
	if len(name) > math.MaxUint16 {
		return fmt.Errorf("index name of %d bytes is too long for 1.4", len(name))
	}
	b := binary.LittleEndian.AppendUint16(nil, uint16(len(name)))
	b = binary.LittleEndian.AppendUint16(b, uint16(len(typ)))
	b = append(b, name...)
	b = append(b, typ...)
	u := byte(0)
	if unique {
		u = 1
	}
	b = append(b, u, kind)
	end := s.pos + int64(len(b)) + 8
	p.rootOffs = append(p.rootOffs, end-8)
	return s.raw(binary.LittleEndian.AppendUint64(b, uint64(end)))
}

// write writes the table's primary tree, then each index tree.
func (p *tablePlan) write(s *sink, o *Options) error {
	t := p.t
	var refs []pageRef
	var onRef func(pageRef)
	if len(t.Indexes) > 0 {
		onRef = func(r pageRef) { refs = append(refs, r) }
	}
	allowOmit := true
	if len(t.Indexes) > 0 && p.enc.exact {
		twins, err := emptyTwins(t)
		if err != nil {
			return fmt.Errorf("drydb: table %q: %w", t.Name, err)
		}
		allowOmit = !twins
	}
	lay := chooseLayout(o.PageSize, o.Eytzinger, p.enc, allowOmit)
	tw := newTree(s, o.PageSize, lay, p.enc, false, onRef)
	var k14, prev []byte
	first := true
	err := t.Rows(func(key, val []byte) error {
		if !first && bytes.Compare(prev, key) >= 0 {
			return fmt.Errorf("%w: keys out of order or repeated", keyenc.ErrBadKey)
		}
		first = false
		prev = append(prev[:0], key...)
		var err error
		if k14, err = p.enc.FromNative(key); err != nil {
			return err
		}
		if err := checkKeyFits(o.PageSize, lay, len(k14)); err != nil {
			return err
		}
		return tw.push(k14, val)
	})
	if err != nil {
		return fmt.Errorf("drydb: table %q: %w", t.Name, err)
	}
	root, err := tw.finish()
	if err != nil {
		return fmt.Errorf("drydb: table %q: %w", t.Name, err)
	}
	s.patchAt(p.rootOffs[0], binary.LittleEndian.AppendUint64(nil, uint64(root)))
	for i := range t.Indexes {
		root, err := p.writeIndex(s, o, i, refs)
		if err != nil {
			return fmt.Errorf("drydb: table %q index %q: %w", t.Name, t.Indexes[i].Name, err)
		}
		s.patchAt(p.rootOffs[1+i], binary.LittleEndian.AppendUint64(nil, uint64(root)))
	}
	return nil
}

var errStop = errors.New("stop")

// emptyTwins reports whether two consecutive rows of t have 0-byte values.
// On an OmittedKeys page (no key bytes between values) their PageRefs would
// be the same (page, offset, 0), and no reader could tell which row an index
// entry leads to: a converted file would lose its index entries' primary
// keys. The primary tree of such a table keeps its keys (a layout every 1.4
// reader reads; drydb-rs would omit them). Costs one more pass over the rows
// of indexed i64 tables.
func emptyTwins(t *TableSource) (bool, error) {
	prevEmpty, twins := false, false
	err := t.Rows(func(_, val []byte) error {
		if len(val) == 0 && prevEmpty {
			twins = true
			return errStop
		}
		prevEmpty = len(val) == 0
		return nil
	})
	if err == errStop {
		err = nil
	}
	return twins, err
}

// writeIndex writes one index tree: each entry's value is the PageRef of its
// row's value. A non-unique index's key is index key ‖ rid (i32 LE, 0, 1, 2,
// … in primary-key order within the key), and its pages always keep their
// key bytes (the digest covers the index key alone).
func (p *tablePlan) writeIndex(s *sink, o *Options, i int, refs []pageRef) (int64, error) {
	ix, enc := &p.t.Indexes[i], p.ixEnc[i]
	lay := chooseLayout(o.PageSize, o.Eytzinger, enc, ix.Unique)
	tw := newTree(s, o.PageSize, lay, enc, !ix.Unique, nil)
	var k14, prev []byte
	var prevRow uint64
	var rid int64
	first := true
	var rb [pageRefSize]byte
	err := ix.Entries(func(ikey []byte, row uint64) error {
		if row >= uint64(len(refs)) {
			return fmt.Errorf("%w: an entry names row %d of a table of %d rows", keyenc.ErrBadKey, row, len(refs))
		}
		c := bytes.Compare(prev, ikey)
		switch {
		case first || c < 0:
			rid = 0
		case c == 0 && ix.Unique:
			return fmt.Errorf("%w: unique index given the key %s twice", keyenc.ErrBadKey, keyenc.FormatKey(ix.Key, ikey))
		case c == 0 && row > prevRow:
			rid++
			if rid > math.MaxInt32 {
				return fmt.Errorf("more than 2^31-1 rows for the key %s", keyenc.FormatKey(ix.Key, ikey))
			}
		default:
			return fmt.Errorf("%w: entries out of order or repeated (index key %s, row %d)", keyenc.ErrBadKey, keyenc.FormatKey(ix.Key, ikey), row)
		}
		first = false
		prev, prevRow = append(prev[:0], ikey...), row
		var err error
		if k14, err = enc.FromNative(ikey); err != nil {
			return err
		}
		if !ix.Unique {
			k14 = binary.LittleEndian.AppendUint32(k14, uint32(rid))
		}
		if err := checkKeyFits(o.PageSize, lay, len(k14)); err != nil {
			return err
		}
		return tw.push(k14, refs[row].encode(&rb))
	})
	if err != nil {
		return 0, err
	}
	return tw.finish()
}
