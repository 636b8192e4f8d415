package format

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Catalog is the decoded catalog: what the file holds and where.
//
// Encoding (all integers unsigned varints unless noted, strings and byte
// strings as a varint length then the bytes):
//
//	created   i64 little endian (Unix nanoseconds)
//	buildID   [16]byte
//	nmeta     then nmeta x (key bytes, value bytes)
//	ntables   then ntables x Table
//
// Table: name, encoding bytes, Tree, compression u8, level (zigzag varint),
// filter name, dict offset, dict length, dict crc (u32 LE), nindexes,
// then nindexes x (name, unique u8, encoding bytes, Tree), then (version 3
// on) the Hash: first page, last page, max probe.
// Tree: rows, root, depth, leaves, first page, last page.
type Catalog struct {
	Created int64
	BuildID [16]byte
	Meta    []KV
	Tables  []Table
}

type KV struct{ Key, Value []byte }

// Tree locates one B+tree. Depth 0 means an empty tree; depth 1 means the
// root is a leaf. Root is a page number, or a block offset for a depth-1
// block tree. FirstPage and LastPage bound the pages of the table region so
// that the verifier can check that every reference stays inside it.
type Tree struct {
	Rows      uint64
	Root      uint64
	Depth     uint64
	Leaves    uint64
	FirstPage uint64
	LastPage  uint64 // exclusive
}

type Table struct {
	Name        string
	Encoding    []byte
	Tree        Tree
	Compression uint8
	Level       int64
	Filter      string
	DictOffset  uint64
	DictLen     uint64
	DictCRC     uint32
	Indexes     []Index
	Hash        Hash
}

type Index struct {
	Name     string
	Unique   bool
	Encoding []byte
	Tree     Tree
}

// Encode appends the catalog's encoding (format Version) to dst.
func (c *Catalog) Encode(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(c.Created))
	dst = append(dst, c.BuildID[:]...)
	dst = binary.AppendUvarint(dst, uint64(len(c.Meta)))
	for _, kv := range c.Meta {
		dst = appendBytes(dst, kv.Key)
		dst = appendBytes(dst, kv.Value)
	}
	dst = binary.AppendUvarint(dst, uint64(len(c.Tables)))
	for i := range c.Tables {
		t := &c.Tables[i]
		dst = appendBytes(dst, []byte(t.Name))
		dst = appendBytes(dst, t.Encoding)
		dst = t.Tree.encode(dst)
		dst = append(dst, t.Compression)
		dst = binary.AppendVarint(dst, t.Level)
		dst = appendBytes(dst, []byte(t.Filter))
		dst = binary.AppendUvarint(dst, t.DictOffset)
		dst = binary.AppendUvarint(dst, t.DictLen)
		dst = binary.LittleEndian.AppendUint32(dst, t.DictCRC)
		dst = binary.AppendUvarint(dst, uint64(len(t.Indexes)))
		for _, ix := range t.Indexes {
			dst = appendBytes(dst, []byte(ix.Name))
			u := byte(0)
			if ix.Unique {
				u = 1
			}
			dst = append(dst, u)
			dst = appendBytes(dst, ix.Encoding)
			dst = ix.Tree.encode(dst)
		}
		dst = binary.AppendUvarint(dst, t.Hash.FirstPage)
		dst = binary.AppendUvarint(dst, t.Hash.LastPage)
		dst = binary.AppendUvarint(dst, t.Hash.MaxProbe)
	}
	return dst
}

func (t *Tree) encode(dst []byte) []byte {
	for _, v := range []uint64{t.Rows, t.Root, t.Depth, t.Leaves, t.FirstPage, t.LastPage} {
		dst = binary.AppendUvarint(dst, v)
	}
	return dst
}

func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// ErrCatalog is returned (wrapped with detail) for a catalog that does not decode.
var ErrCatalog = errors.New("malformed catalog")

type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrCatalog, what)
	}
}

func (r *reader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail(what)
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) fixed(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.fail(what)
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(what string) []byte {
	n := r.uvarint(what)
	if r.err == nil && n > uint64(len(r.b)) {
		r.fail(what)
		return nil
	}
	return r.fixed(int(n), what)
}

// count reads an element count and refuses one that could not possibly fit
// in the remaining bytes, so a corrupt count cannot make us allocate wildly.
func (r *reader) count(what string, minSize int) int {
	n := r.uvarint(what)
	if r.err == nil && n > uint64(len(r.b)/minSize) {
		r.fail(what + " count")
		return 0
	}
	return int(n)
}

func (r *reader) tree() Tree {
	return Tree{
		Rows: r.uvarint("rows"), Root: r.uvarint("root"), Depth: r.uvarint("depth"),
		Leaves: r.uvarint("leaves"), FirstPage: r.uvarint("first page"), LastPage: r.uvarint("last page"),
	}
}

// DecodeCatalog parses the encoded catalog of a file of format version
// version. It never panics on bad input.
func DecodeCatalog(b []byte, version uint32) (*Catalog, error) {
	r := &reader{b: b}
	c := &Catalog{}
	if created := r.fixed(8, "created"); created != nil {
		c.Created = int64(binary.LittleEndian.Uint64(created))
	}
	copy(c.BuildID[:], r.fixed(16, "build id"))
	nmeta := r.count("metadata", 2)
	for i := 0; i < nmeta && r.err == nil; i++ {
		c.Meta = append(c.Meta, KV{Key: r.bytes("metadata key"), Value: r.bytes("metadata value")})
	}
	ntab := r.count("tables", 10)
	for i := 0; i < ntab && r.err == nil; i++ {
		var t Table
		t.Name = string(r.bytes("table name"))
		t.Encoding = r.bytes("table encoding")
		t.Tree = r.tree()
		if cb := r.fixed(1, "compression"); cb != nil {
			t.Compression = cb[0]
		}
		t.Level = r.varint("level")
		t.Filter = string(r.bytes("filter"))
		t.DictOffset = r.uvarint("dict offset")
		t.DictLen = r.uvarint("dict length")
		if cb := r.fixed(4, "dict crc"); cb != nil {
			t.DictCRC = binary.LittleEndian.Uint32(cb)
		}
		nix := r.count("indexes", 9)
		for j := 0; j < nix && r.err == nil; j++ {
			var ix Index
			ix.Name = string(r.bytes("index name"))
			if ub := r.fixed(1, "unique"); ub != nil {
				ix.Unique = ub[0] == 1
			}
			ix.Encoding = r.bytes("index encoding")
			ix.Tree = r.tree()
			t.Indexes = append(t.Indexes, ix)
		}
		if version >= 3 {
			t.Hash = Hash{FirstPage: r.uvarint("hash first page"), LastPage: r.uvarint("hash last page"),
				MaxProbe: r.uvarint("hash max probe")}
		}
		c.Tables = append(c.Tables, t)
	}
	if r.err == nil && len(r.b) != 0 {
		r.fail("trailing bytes")
	}
	if r.err != nil {
		return nil, r.err
	}
	return c, nil
}
