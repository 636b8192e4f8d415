package engine

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Filter is a custom page transform (encryption is the usual one), applied to
// every leaf block of a table after compression, and undone before
// decompression. Implementations must be safe for concurrent use. Encode and
// Decode append their output to dst and return it.
type Filter interface {
	Encode(dst, src []byte) ([]byte, error)
	Decode(dst, src []byte) ([]byte, error)
}

var filters sync.Map // name -> Filter

// RegisterFilter makes a filter available to builders and readers under
// name. A file that names a filter this process has not registered fails to
// open with ErrUnknownFilter.
func RegisterFilter(name string, flt Filter) {
	if name == "" || flt == nil {
		panic("drydb: RegisterFilter needs a name and a filter")
	}
	filters.Store(name, flt)
}

func lookupFilter(name string) (Filter, error) {
	if name == "" {
		return nil, nil
	}
	v, ok := filters.Load(name)
	if !ok {
		return nil, fmt.Errorf("%w %q (register it with RegisterFilter before opening)", ErrUnknownFilter, name)
	}
	return v.(Filter), nil
}

func checkCompression(c Compression) error {
	switch c.Kind {
	case CompressNone, CompressS2:
		if c.Dictionary {
			return fmt.Errorf("%w: a dictionary needs zstd compression", ErrInvalid)
		}
	case CompressZstd:
		if c.Level < 0 || c.Level > 4 {
			return fmt.Errorf("%w: zstd level %d (want 1 to 4, or 0 for the default)", ErrInvalid, c.Level)
		}
	default:
		return fmt.Errorf("%w: unknown compression %d", ErrInvalid, c.Kind)
	}
	_, err := lookupFilter(c.Filter)
	return err
}

// blockCodec encodes leaf pages into blocks (a builder's, with an encoder)
// or decodes them (a reader's, whose zstd decoder comes from the DB's
// shared set at the first decode).
type blockCodec struct {
	kind    CompressionKind
	enc     *zstd.Encoder
	filter  Filter
	scratch []byte
	ps      int
	pool    sync.Pool
	// reader side: the table's dictionary (in the mapping), nil for none
	dictBytes []byte
}

func newBlockCodec(c Compression, dictBytes []byte, pageSize int) (*blockCodec, error) {
	flt, err := lookupFilter(c.Filter)
	if err != nil {
		return nil, err
	}
	bc := &blockCodec{kind: c.Kind, filter: flt, ps: pageSize}
	if c.Kind == CompressZstd {
		lvl := zstd.SpeedDefault
		if c.Level > 0 {
			lvl = zstd.EncoderLevel(c.Level)
		}
		eopts := []zstd.EOption{zstd.WithEncoderLevel(lvl), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true)}
		if len(dictBytes) > 0 {
			eopts = append(eopts, zstd.WithEncoderDict(dictBytes))
		}
		if bc.enc, err = zstd.NewWriter(nil, eopts...); err != nil {
			return nil, fmt.Errorf("%w: zstd: %v", ErrInvalid, err)
		}
	}
	return bc, nil
}

// newReadCodec makes a reader's codec: no zstd state until the first
// decode. dictBytes lie in the file's mapping.
func newReadCodec(c Compression, dictBytes []byte, pageSize int) (*blockCodec, error) {
	flt, err := lookupFilter(c.Filter)
	if err != nil {
		return nil, err
	}
	return &blockCodec{kind: c.Kind, filter: flt, ps: pageSize, dictBytes: dictBytes}, nil
}

func (bc *blockCodec) close() {
	if bc.enc != nil {
		bc.enc.Close()
	}
}

// MaxDictSize bounds a zstd dictionary a reader accepts (the builder trains
// 16 KiB ones): a decoder keeps a copy and tables derived from it.
const maxDictSize = 1 << 20

// decoders holds the process's zstd decoders, one per (page size,
// dictionary) in use, shared by every table and database that reads with
// them: a decoder costs ~100 KB warm and its dictionary's tables take tens
// of microseconds to build, more than opening a file and reading from it.
// A decoder is made at the first decode that needs it (a file may hold
// thousands of tables sharing one dictionary; opening it makes none), from
// a copy of the dictionary (the file may be unmapped while the decoder
// lives on), and at most maxIdleDecoders stay when unused, so memory does
// not grow with the dictionaries hostile files declare.
var decoders = zstdDecoders{m: map[decoderKey]*zstdDecoder{}}

type zstdDecoders struct {
	mu   sync.Mutex
	m    map[decoderKey]*zstdDecoder
	tick uint64
}

type decoderKey struct {
	ps   int
	dict string // the dictionary's bytes; "" for none
}

type zstdDecoder struct {
	d       *zstd.Decoder
	users   int
	lastUse uint64
}

const maxIdleDecoders = 32

// acquire returns the decoder for page size ps and dict; release it when
// done.
func (z *zstdDecoders) acquire(ps int, dict []byte) (*zstdDecoder, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.tick++
	if e := z.m[decoderKey{ps, string(dict)}]; e != nil { // no copy to look up
		e.users++
		e.lastUse = z.tick
		return e, nil
	}
	if len(dict) > maxDictSize {
		return nil, fmt.Errorf("%w: zstd dictionary of %d bytes (at most %d)", ErrCorrupt, len(dict), maxDictSize)
	}
	key := decoderKey{ps, string(dict)} // the copy the decoder is made from
	// A block decodes to one page: the decoder refuses more than two while
	// decoding (a small block can claim gigabytes). Two, because the limit
	// also caps the frame's window, which the encoder makes up to twice the
	// input for pages under 4 KiB; decode checks the exact length.
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(2 * uint64(ps))}
	if len(key.dict) > 0 {
		opts = append(opts, zstd.WithDecoderDicts([]byte(key.dict)))
	}
	d, err := zstd.NewReader(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: zstd dictionary: %v", ErrCorrupt, err)
	}
	idle := 0
	var oldKey decoderKey
	var oldest *zstdDecoder
	for k, e := range z.m {
		if e.users == 0 {
			idle++
			if oldest == nil || e.lastUse < oldest.lastUse {
				oldKey, oldest = k, e
			}
		}
	}
	if idle >= maxIdleDecoders {
		oldest.d.Close()
		delete(z.m, oldKey)
	}
	e := &zstdDecoder{d: d, users: 1, lastUse: z.tick}
	z.m[key] = e
	return e, nil
}

func (z *zstdDecoders) release(e *zstdDecoder) {
	z.mu.Lock()
	e.users--
	z.mu.Unlock()
}

// encode turns raw bytes into a block (header included) appended to dst.
func (bc *blockCodec) encode(dst, raw []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, make([]byte, f.BlockHeaderSize)...)
	method := byte(f.BlockPlain)
	body := raw
	switch bc.kind {
	case CompressZstd:
		bc.scratch = bc.enc.EncodeAll(raw, bc.scratch[:0])
	case CompressS2:
		bc.scratch = s2.Encode(bc.scratch[:cap(bc.scratch)], raw)
	}
	if bc.kind != CompressNone && len(bc.scratch) < len(raw) {
		body, method = bc.scratch, f.BlockCompressed
	}
	if bc.filter != nil {
		var err error
		if dst, err = bc.filter.Encode(dst, body); err != nil {
			return nil, fmt.Errorf("drydb: filter: %w", err)
		}
	} else {
		dst = append(dst, body...)
	}
	h := dst[start:]
	if len(h)-f.BlockHeaderSize > f.MaxBlockLen(bc.ps) {
		return nil, fmt.Errorf("%w: filter made a block of %d bytes from a page of %d (limit %d)", ErrInvalid, len(h)-f.BlockHeaderSize, len(raw), f.MaxBlockLen(bc.ps))
	}
	f.PutU32(h, 4, uint32(len(h)-f.BlockHeaderSize))
	h[8] = method
	f.PutU32(h, 0, f.CRC(h[4:]))
	return dst, nil
}

func (bc *blockCodec) writeBlock(o *out, page []byte) error {
	blk, err := bc.encode(nil, page)
	if err != nil {
		return err
	}
	o.write(blk)
	return o.err
}

// decode checks and decodes the block at the start of src into dst, which
// must have capacity for exactly rawLen bytes; the result aliases dst. src
// ends where the block's tree region ends. The checksum is always checked
// here: a block is decoded once per cache load, and decompression costs far
// more than the CRC. Every cost is bounded by the page size: the block's
// length (format.MaxBlockLen), its declared and its decoded size.
func (bc *blockCodec) decode(dst, src []byte, rawLen int, off int64) ([]byte, error) {
	if len(src) < f.BlockHeaderSize {
		return nil, corruptAt(off, "block header past the end of its table's region")
	}
	clen := uint64(f.U32(src, 4))
	if clen > uint64(f.MaxBlockLen(bc.ps)) {
		return nil, corruptAt(off, "block length %d over the limit of %d", clen, f.MaxBlockLen(bc.ps))
	}
	if clen > uint64(len(src)-f.BlockHeaderSize) {
		return nil, corruptAt(off, "block length %d past the end of its table's region", clen)
	}
	blk := src[:f.BlockHeaderSize+int(clen)]
	if f.CRC(blk[4:]) != f.U32(blk, 0) {
		return nil, corruptAt(off, "block checksum mismatch")
	}
	body := blk[f.BlockHeaderSize:]
	method := blk[8]
	var scratch *[]byte
	if bc.filter != nil {
		scratch = bc.getScratch()
		defer bc.pool.Put(scratch)
		var err error
		if *scratch, err = bc.filter.Decode((*scratch)[:0], body); err != nil {
			return nil, corruptAt(off, "filter: %v", err)
		}
		body = *scratch
	}
	dst = dst[:0:rawLen]
	switch {
	case method == f.BlockPlain:
		if len(body) != rawLen {
			return nil, corruptAt(off, "plain block of %d bytes, want %d", len(body), rawLen)
		}
		dst = append(dst, body...)
		return dst, nil
	case method == f.BlockCompressed && bc.kind == CompressZstd:
		// The frame must declare its size (the encoder always does), and
		// that size must be one page.
		var h zstd.Header
		if err := h.Decode(body); err != nil {
			return nil, corruptAt(off, "zstd block header: %v", err)
		}
		if !h.HasFCS || h.FrameContentSize != uint64(rawLen) {
			return nil, corruptAt(off, "zstd block declares %d bytes, want %d", h.FrameContentSize, rawLen)
		}
		e, err := decoders.acquire(bc.ps, bc.dictBytes)
		if err != nil {
			return nil, err
		}
		defer decoders.release(e)
		// Decode into Go memory and copy: the zstd decoder may keep its
		// output as match history, and a decoder must never hold a slice
		// into cache memory that Close (or a transient page's release)
		// unmaps.
		buf := bc.getScratch()
		defer bc.pool.Put(buf)
		out, err := e.d.DecodeAll(body, (*buf)[:0])
		if err != nil || len(out) != rawLen {
			return nil, corruptAt(off, "zstd block does not decode to %d bytes: %v", rawLen, err)
		}
		*buf = out[:0]
		return append(dst, out...), nil
	case method == f.BlockCompressed && bc.kind == CompressS2:
		n, err := s2.DecodedLen(body)
		if err != nil || n != rawLen {
			return nil, corruptAt(off, "s2 block does not decode to %d bytes", rawLen)
		}
		out, err := s2.Decode(dst[:rawLen], body)
		if err != nil || len(out) != rawLen || &out[0] != &dst[:1][0] {
			return nil, corruptAt(off, "s2 block: %v", err)
		}
		return out, nil
	}
	return nil, corruptAt(off, "unknown block method %d", method)
}

func (bc *blockCodec) getScratch() *[]byte {
	if p, ok := bc.pool.Get().(*[]byte); ok {
		return p
	}
	b := make([]byte, 0, bc.ps+64)
	return &b
}

// trainDictionary makes a first pass over the table's rows, lays them out in
// plain leaf pages, and trains a zstd dictionary on a sample of those pages.
func (t *TableBuilder) trainDictionary(ovfBase uint64) ([]byte, error) {
	if t.rows.total < 64 {
		return nil, nil
	}
	sampler := &pageSampler{}
	// estimate leaves to sample about 256 pages evenly
	o := &out{w: sampler, pageSize: t.b.ps, zero: make([]byte, t.b.ps)}
	tw := newTreeWriter(o, fmt.Sprintf("table %q", t.name), nil)
	tw.ovfBase = ovfBase
	tw.k8 = fixed8(t.opts.Encoding)
	it, err := t.rows.iterate()
	if err != nil {
		return nil, err
	}
	for {
		k, v, isRef, ok := it.next()
		if !ok {
			break
		}
		if err := tw.add(k, v, isRef); err != nil {
			return nil, err
		}
	}
	if err := it.err(); err != nil {
		return nil, err
	}
	tw.finish()
	if len(sampler.pages) < 8 {
		return nil, nil
	}
	d, err := dict.BuildZstdDict(sampler.pages, dict.Options{MaxDictSize: 16 << 10, HashBytes: 6, ZstdLevel: zstd.SpeedBestCompression})
	if err != nil {
		// Training can fail on degenerate data; compress without a dictionary.
		return nil, nil
	}
	return d, nil
}

// pageSampler keeps a bounded, evenly spread sample of the pages written to it.
type pageSampler struct {
	pages [][]byte
	seen  int
}

func (s *pageSampler) Write(p []byte) (int, error) {
	const keep = 512
	s.seen++
	if len(s.pages) < keep {
		s.pages = append(s.pages, append([]byte(nil), p...))
	} else if j := int(uint32(s.seen*2654435761) % uint32(s.seen)); j < keep {
		s.pages[j] = append(s.pages[j][:0], p...)
	}
	return len(p), nil
}
