// Package format is the one place that knows drydb's on-disk byte layout.
// Everything else in the engine goes through these constants and accessors;
// docs/FORMAT.md describes the same layout for humans.
//
// File layout (P = page size, a power of two from 512 to 65536):
//
//	page 0            file header (HeaderSize bytes used, rest zero)
//	pages 1..         table regions, one after another. A table region is
//	                  [overflow values][leaf pages or leaf blocks][branch pages]
//	catalog           at CatalogOffset (page aligned), CatalogLen bytes
//	footer            the last FooterSize bytes of the file
//
// Page header (every page of a plain tree, every decoded leaf block):
//
//	0  crc32c   u32  Castagnoli CRC of bytes [4, P)
//	4  type     u8   PageLeaf or PageBranch
//	5  level    u8   0 for leaves, parent = child + 1
//	6  n        u16  entries
//	8  prev     u32  leaf: previous leaf page (0 = none); branch: 0
//	12 next     u32  leaf: next leaf page (0 = none); branch: 0
//	8  scale    u64  branch8 instead of prev and next: interpolation factor
//	                 (PgScale), 0 = none
//	16 slots    n x u16 entry offsets, in key order
//
// Leaf entry:  klen u16 | vlen u16 (bit 15 = overflow) | key | value
// Overflow value reference (the value bytes of an overflow entry):
//
//	pgno u64 | length u64 | crc32c u32
//
// Branch entry: child u64 | before u64 | klen u16 | key
// child is a page number (plain tables, and every branch level above 1) or the
// byte offset of a leaf block (compressed tables, level-1 branches); before is
// the number of rows in the node's subtree that precede this child; key is a
// separator: every key in child i is >= key i (key 0 is stored empty).
package format

import (
	"encoding/binary"
	"hash/crc32"
)

// Magic starts and ends every drydb file. The leading 0x89 byte and the CR LF
// make it fail any text-based or ASCII-magic reader (the C# DryDB's included)
// at the first byte, and detect line-ending translation.
var Magic = [8]byte{0x89, 'D', 'R', 'Y', 'D', 'B', '\r', '\n'}

const (
	// Version is the format version this engine writes; it reads
	// MinVersion..Version. Version 2 added key heads (PgHeads); a version 1
	// file has none and reads as before. Version 3 added hash indexes
	// (PageHash, hash.go): its catalog gives each table a Hash descriptor.
	Version    = 3
	MinVersion = 1

	MinPageSize     = 512
	MaxPageSize     = 65536
	DefaultPageSize = 4096

	// File header, at offset 0.
	HeaderSize     = 32
	HdrMagic       = 0  // [8]byte
	HdrVersion     = 8  // u32
	HdrFlags       = 12 // u32, zero in version 1
	HdrPageSize    = 16 // u32
	HdrReserved    = 20 // u32, zero
	HdrReserved2   = 24 // u32, zero
	HdrCRC         = 28 // u32, crc32c of bytes [0, 28)
	FooterSize     = 64
	FtrCatalogOff  = 0  // u64
	FtrCatalogLen  = 8  // u64
	FtrCatalogCRC  = 16 // u32
	FtrReserved    = 20 // u32
	FtrPageCount   = 24 // u64: pages before the catalog
	FtrFileLen     = 32 // u64: the whole file, footer included
	FtrReserved2   = 40 // [12]byte
	FtrCRC         = 52 // u32, crc32c of footer bytes [0, 52)
	FtrMagic       = 56 // [8]byte
	PageHeaderSize = 16
	PgCRC          = 0
	PgType         = 4
	PgLevel        = 5
	PgN            = 6
	PgPrev         = 8
	PgNext         = 12
	// PgScale (branch8 pages, which have no neighbour links): the factor
	// ceil(2^64 * (m-1) / (key[n-1] - key[1])) of the m = n-1 separators
	// 1..n-1, so that a search guesses a separator's position with one
	// multiplication instead of a division; 0 when not worth it (m < 2, or
	// consecutive separators). Readers treat it as a hint: a guess is always
	// checked against the keys, so a wrong factor costs time, never answers.
	PgScale         = 8
	SlotSize        = 2
	LeafEntryHeader = 4       // klen u16 + vlen u16
	OverflowRefSize = 20      // pgno u64 + length u64 + crc u32
	BranchEntryHdr  = 18      // child u64 + before u64 + klen u16
	OverflowFlag    = 1 << 15 // in vlen: the value is an overflow reference

	PageLeaf   = 1
	PageBranch = 2
	// Pages of trees whose keys are all 8 bytes (int64, uint64, float64
	// tables) keep their keys in one contiguous array, so that a search
	// reads one cache-friendly array instead of chasing slots:
	//
	//	leaf8:   header | n x key [8] | n x slot u16 | entries (vlen u16 | value)
	//	branch8: header | n x key [8] | n x child u64 | n x before u64
	//
	// Entry 0's key in a branch8 page is the first key of child 0 (unused by
	// searches). A leaf8 entry's vlen has the same overflow flag as in leaves.
	PageLeaf8   = 3
	PageBranch8 = 4
	// The type byte's high bits are flags of leaf8 pages, claims about the
	// page that let a search skip reads. Readers check them with the page's
	// structure (a page whose flags lie is corrupt).
	//
	// Leaf8Seq: the keys are consecutive integers (key i = key 0 + i, as
	// big-endian uint64s): dense row ids, the common case. Key k is at
	// k - key 0, found with no other key read.
	//
	// Leaf8Fixed: every value has the same length and none overflows, so
	// entry i lies at slot[0] - i*(P - slot[0]) (entries are laid down from
	// the end of the page in key order): records of a fixed size, also
	// common. A get reads no slot of its own.
	PgTypeMask = 0x0f
	Leaf8Seq   = 0x10
	Leaf8Fixed = 0x20
	// PgHeads (slotted pages, PageLeaf and PageBranch, format version 2):
	// the page carries the keys' heads, so that a search compares integers
	// and reads a key's bytes only on a tie. After the slot array:
	//
	//	prefix u16 | 0 u16 | n x head u32 (big endian)
	//
	// prefix (L) is the length of the prefix that every key of the page
	// shares (a leaf: all its keys; a branch: separators 1..n-1), and
	// head i is bytes [L, L+4) of key i, zero-padded (a branch's entry 0:
	// 0). Heads order like their keys (a smaller head means a smaller key,
	// equal heads say nothing), so a search compares the key's first L
	// bytes with the page's prefix once, then heads, then whole keys only
	// among equal heads. Readers check prefix and heads with the page.
	PgHeads          = 0x40
	HeadsHeader      = 4
	HeadSize         = 4
	Leaf8EntryHeader = 2
	Branch8EntrySize = 24

	// MaxDepth bounds tree height; a file claiming more is corrupt. With a
	// fan-out of at least 3 this covers more rows than a uint64 counts.
	MaxDepth = 48

	// Block header of a compressed table's leaf (at a byte offset, not page aligned):
	//	0 crc32c u32 over bytes [4, 12+clen)
	//	4 clen   u32 stored length of the data that follows the header
	//	8 method u8  BlockPlain, BlockCompressed
	//	9 pad    [3]byte zero
	BlockHeaderSize = 12
	BlockPlain      = 0
	BlockCompressed = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC is the checksum used everywhere in the file: CRC-32C (Castagnoli),
// hardware accelerated on amd64 and arm64.
func CRC(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// UpdateCRC extends a running CRC.
func UpdateCRC(crc uint32, b []byte) uint32 { return crc32.Update(crc, castagnoli, b) }

var le = binary.LittleEndian

func U16(b []byte, off int) uint16 { return le.Uint16(b[off:]) }
func U32(b []byte, off int) uint32 { return le.Uint32(b[off:]) }
func U64(b []byte, off int) uint64 { return le.Uint64(b[off:]) }

func PutU16(b []byte, off int, v uint16) { le.PutUint16(b[off:], v) }
func PutU32(b []byte, off int, v uint32) { le.PutUint32(b[off:], v) }
func PutU64(b []byte, off int, v uint64) { le.PutUint64(b[off:], v) }

// MaxKeySize is the longest key a table with this page size accepts. Four
// branch entries with maximal keys must fit a page, so every branch has a
// fan-out of at least four and a leaf always holds a key with an overflow
// value reference.
func MaxKeySize(pageSize int) int {
	return (pageSize-PageHeaderSize)/4 - BranchEntryHdr - SlotSize
}

// MaxBlockLen is the longest stored block (after the block header) for a
// page size: a compressed block is smaller than its page (else it is stored
// plain, exactly one page), and a filter may add up to a page plus 4 KiB
// (nonces, tags, padding). Readers refuse longer blocks before reading them,
// so a block costs at most this much to check and decode.
func MaxBlockLen(pageSize int) int { return 2*pageSize + 4096 }

// OverflowThreshold is the largest value stored inside a leaf; longer values
// go to overflow pages so that a leaf keeps a useful number of entries.
func OverflowThreshold(pageSize int) int { return pageSize / 4 }
