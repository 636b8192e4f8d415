package drydb14

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/drydb/drydb/engine/keyenc"
)

// Encoding is a 1.4 key encoding: how its keys are digested, how wide they are, and how they map
// to drydb's key encodings. Every mapping preserves the 1.4 order as plain byte order, so a tree
// whose 1.4 keys ascend has native keys that ascend, and drydb's bounds mean what they mean in 1.4.
type Encoding struct {
	ID    string // "i64", "ascii", "uuidv7", "ulid"
	width int    // key length for fixed-width encodings, 0 for ascii
	exact bool   // the digest is the key (OmittedKeys pages are possible)
}

var encodings = []Encoding{
	{ID: "i64", width: 8, exact: true},
	{ID: "ascii"},
	{ID: "uuidv7", width: 16},
	{ID: "ulid", width: 16},
}

func encodingByID(id string) (Encoding, bool) {
	for _, e := range encodings {
		if e.ID == id {
			return e, true
		}
	}
	return Encoding{}, false
}

// Native returns the drydb key encoding of this 1.4 encoding. ascii becomes string when every key
// of the tree is valid UTF-8 (utf8 says so) and bytes otherwise: 1.4 "ascii" keys are any bytes.
func (e Encoding) Native(utf8 bool) keyenc.Encoding {
	switch e.ID {
	case "i64":
		return keyenc.Encoding{Kind: keyenc.Int64}
	case "uuidv7":
		return keyenc.Encoding{Kind: keyenc.UUID}
	case "ulid":
		return keyenc.Encoding{Kind: keyenc.ULID}
	}
	if utf8 {
		return keyenc.Encoding{Kind: keyenc.String}
	}
	return keyenc.Encoding{Kind: keyenc.Bytes}
}

// check refuses a key of the wrong width.
func (e Encoding) check(k []byte) error {
	if e.width != 0 && len(k) != e.width {
		return fmt.Errorf("%s key of %d bytes (want %d)", e.ID, len(k), e.width)
	}
	return nil
}

// digest is the 1.4 order-preserving digest of key k (already checked for width).
func (e Encoding) digest(k []byte) uint64 {
	switch e.ID {
	case "i64":
		return binary.LittleEndian.Uint64(k) ^ 1<<63
	case "uuidv7":
		a := uint64(binary.LittleEndian.Uint32(k))
		b := uint64(binary.LittleEndian.Uint16(k[4:]))
		c := uint64(binary.LittleEndian.Uint16(k[6:]))
		return a<<32 | b<<16 | c
	}
	// ascii and ulid: the first 8 bytes, big-endian, zero-padded.
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// fromDigest rebuilds the key of an OmittedKeys entry (exact encodings only).
func (e Encoding) fromDigest(d uint64) []byte {
	return binary.LittleEndian.AppendUint64(nil, d^1<<63)
}

// AppendNative appends k in drydb's encoding: i64 little-endian -> int64 (big-endian, sign
// flipped); uuidv7 in .NET's Guid layout (u32, u16, u16 little-endian, then 8 bytes) -> RFC 4122
// bytes, whose byte order is .NET's Guid order; ulid and ascii unchanged.
func (e Encoding) AppendNative(dst, k []byte) []byte {
	switch e.ID {
	case "i64":
		return keyenc.AppendInt64(dst, int64(binary.LittleEndian.Uint64(k)))
	case "uuidv7":
		return append(dst, k[3], k[2], k[1], k[0], k[5], k[4], k[7], k[6],
			k[8], k[9], k[10], k[11], k[12], k[13], k[14], k[15])
	}
	return append(dst, k...)
}

// FromNative is AppendNative's inverse: the 1.4 bytes of a native key (for tests and tools).
func (e Encoding) FromNative(k []byte) ([]byte, error) {
	if e.width != 0 && len(k) != e.width {
		return nil, fmt.Errorf("drydb: %s key of %d bytes (want %d)", e.ID, len(k), e.width)
	}
	switch e.ID {
	case "i64":
		return binary.LittleEndian.AppendUint64(nil, binary.BigEndian.Uint64(k)^1<<63), nil
	case "uuidv7":
		return []byte{k[3], k[2], k[1], k[0], k[5], k[4], k[7], k[6],
			k[8], k[9], k[10], k[11], k[12], k[13], k[14], k[15]}, nil
	}
	return append([]byte(nil), k...), nil
}

// EncodingOf returns the 1.4 encoding with the given id.
func EncodingOf(id string) (Encoding, error) {
	e, ok := encodingByID(id)
	if !ok {
		return Encoding{}, fmt.Errorf("drydb: unknown DryDB 1.4 key encoding %q", id)
	}
	return e, nil
}

func validUTF8(k []byte) bool { return utf8.Valid(k) }
