package hostile

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Compression kinds as the catalog stores them (docs/FORMAT.md: 0 none,
// 1 zstd, 2 S2).
const (
	compZstd = 1
	compS2   = 2
)

// codec decodes and re-encodes the leaf blocks of one compressed table, as
// the engine's writer does (zstd with the table's dictionary, or S2; a page
// that does not shrink is stored plain).
type codec struct {
	kind byte
	enc  *zstd.Encoder
	dec  *zstd.Decoder
}

func newCodec(kind byte, dict []byte) (*codec, error) {
	c := &codec{kind: kind}
	switch kind {
	case compZstd:
		eo := []zstd.EOption{zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true)}
		do := []zstd.DOption{zstd.WithDecoderConcurrency(1)}
		if len(dict) > 0 {
			eo = append(eo, zstd.WithEncoderDict(dict))
			do = append(do, zstd.WithDecoderDicts(dict))
		}
		var err error
		if c.enc, err = zstd.NewWriter(nil, eo...); err != nil {
			return nil, err
		}
		if c.dec, err = zstd.NewReader(nil, do...); err != nil {
			return nil, err
		}
	case compS2:
	default:
		return nil, fmt.Errorf("hostile: compression %d", kind)
	}
	return c, nil
}

func (c *codec) decodeBlock(pages []byte, off uint64, ps int) (*Block, error) {
	if off+f.BlockHeaderSize > uint64(len(pages)) {
		return nil, errors.New("block header out of range")
	}
	clen := int(f.U32(pages, int(off)+4))
	body := pages[int(off)+f.BlockHeaderSize : int(off)+f.BlockHeaderSize+clen]
	blk := &Block{Off: off, Span: f.BlockHeaderSize + clen}
	var err error
	switch pages[off+8] {
	case f.BlockPlain:
		blk.Raw, blk.Plain = append([]byte(nil), body...), true
	case f.BlockCompressed:
		if c.kind == compZstd {
			blk.Raw, err = c.dec.DecodeAll(body, nil)
		} else {
			blk.Raw, err = s2.Decode(nil, body)
		}
	default:
		err = fmt.Errorf("block method %d", pages[off+8])
	}
	if err == nil && len(blk.Raw) != ps {
		err = fmt.Errorf("block decodes to %d bytes", len(blk.Raw))
	}
	return blk, err
}

// encodeBlock returns raw as a block, header and checksum included.
func (c *codec) encodeBlock(raw []byte, plain bool) ([]byte, error) {
	body, method := raw, byte(f.BlockPlain)
	if !plain {
		var z []byte
		if c.kind == compZstd {
			z = c.enc.EncodeAll(raw, nil)
		} else {
			z = s2.Encode(nil, raw)
		}
		if len(z) < len(raw) {
			body, method = z, f.BlockCompressed
		}
	}
	return MakeBlock(body, method), nil
}

// MakeBlock returns a block holding body with the given method, its checksum set.
func MakeBlock(body []byte, method byte) []byte {
	b := make([]byte, f.BlockHeaderSize, f.BlockHeaderSize+len(body))
	b = append(b, body...)
	f.PutU32(b, 4, uint32(len(body)))
	b[8] = method
	f.PutU32(b, 0, f.CRC(b[4:]))
	return b
}

// ZstdBomb returns a zstd frame of RLE blocks that decodes to about size
// bytes (rounded up to 128 KiB) while taking 4 bytes per 128 KiB: 120 KB of
// frame for 3.9 GB of output. The frame header states no content size, so a
// decoder learns the size only by decoding.
func ZstdBomb(size uint64) []byte {
	const blockMax = 128 << 10
	b := []byte{0x28, 0xB5, 0x2F, 0xFD, // magic
		0x00,           // frame header descriptor: no content size, no checksum, no dictionary
		(17 - 10) << 3} // window descriptor: 2^17 bytes
	n := (size + blockMax - 1) / blockMax
	for i := uint64(0); i < n; i++ {
		hdr := uint32(blockMax)<<3 | 1<<1 // RLE block of blockMax bytes
		if i == n-1 {
			hdr |= 1 // last block
		}
		b = append(b, byte(hdr), byte(hdr>>8), byte(hdr>>16), 'A')
	}
	return b
}

// ZstdLiar returns a zstd frame whose header claims a content size of
// claim bytes while it holds raw; decoders that trust the header allocate
// claim bytes.
func ZstdLiar(raw []byte, claim uint64) []byte {
	// Single segment, 8-byte content size field, then one raw block.
	b := []byte{0x28, 0xB5, 0x2F, 0xFD, 0xE0}
	b = le.AppendUint64(b, claim)
	hdr := uint32(len(raw))<<3 | 1 // raw block, last
	b = append(b, byte(hdr), byte(hdr>>8), byte(hdr>>16))
	return append(b, raw...)
}

// S2Liar returns an S2 (Snappy-compatible) block whose length preamble
// claims claim bytes while it holds raw as one literal.
func S2Liar(raw []byte, claim uint64) []byte {
	var b []byte
	for v := claim; ; v >>= 7 {
		if v < 0x80 {
			b = append(b, byte(v))
			break
		}
		b = append(b, byte(v)|0x80)
	}
	// one literal: tag 63<<2 says its length-1 follows in 4 bytes
	n := uint32(len(raw) - 1)
	b = append(b, 63<<2, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	return append(b, raw...)
}
