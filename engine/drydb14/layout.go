// Package drydb14 reads files in DryDB's storage format 1.4 (the format of the C# DryDB, and of the
// Rust crate drydb 0.1.0+drydb1.4). The reader never trusts the file: every offset, length, page
// ordinal and count is checked against the file before it is used, the tree walk has a depth limit
// and visits each page at most once (so cycles end in an error), and zstd pages are decoded with a
// size limit. The layout is described in tests/drydb14/fixtures/LAYOUT-1.4.md; docs/DRYDB14.md says
// what drydb does with it.
//
// This package knows only the 1.4 bytes. It hands out rows and index entries as 1.4 keys converted
// to drydb's key encodings (keys.go); engine translates them into a native image (engine/open14.go).
// It imports nothing from engine, so engine can import it.
package drydb14

// The file, drawn once:
//
//	header(26) | filter ids | table descriptors | pages (ordinal 0..P-1) | page directory (P × i64)
//
// Header:
//
//	0  "DRY\0"
//	4  major u8 = 1
//	5  minor u8 = 4
//	6  filter_count u16
//	8  page_size i32 (advisory: tree pages fit it, blob pages exceed it)
//	12 table_count u16
//	14 page_count i32
//	18 page_directory_position i64
const (
	HeaderSize   = 26
	offMajor     = 4
	offMinor     = 5
	offFilters   = 6
	offPageSize  = 8
	offTables    = 12
	offPageCount = 14
	offDirPos    = 18

	Major = 1
	Minor = 4
)

// Magic is the first four bytes of every DryDB file, whatever its version.
const Magic = "DRY\x00"

// Page prefix (28 bytes, never filtered):
//
//	0  page_length i32 (as stored; a reader rewrites it to the decoded length)
//	4  kind|flags i32
//	8  entry_count i32
//	12 left sibling ordinal i64 (-1: none)
//	20 right sibling ordinal i64 (-1: none)
const (
	PrefixSize = 28
	offPageLen = 0
	offKind    = 4
	offCount   = 8
	offLeft    = 12
	offRight   = 20
)

// Kind word: the low byte is the page kind, bits 9..11 are layout flags.
const (
	kindLeaf     = 0
	kindInternal = 1
	kindMask     = 0xff

	FlagEytzinger   = 0x200 // digests in Eytzinger (BFS) order
	FlagCompactMeta = 0x400 // u16 offsets instead of classic 8-byte records
	FlagOmittedKeys = 0x800 // keys rebuilt from exact digests (i64 only)
	knownFlags      = FlagEytzinger | FlagCompactMeta | FlagOmittedKeys
)

// Metadata records and marks.
const (
	classicLeafRec     = 8      // off i32, key_len u16, val_len u16
	classicInternalRec = 6      // off i32, key_len u16
	classicBlob        = 0xFFFF // val_len meaning "the payload after the key is a blob ordinal"
	compactBlobBit     = 0x8000 // bit 15 of a compact offset: the value is a blob ordinal
	compactMaxPage     = 0x7FFF // compact offsets are 15 bits
	ordinalSize        = 8
	pageRefSize        = 16 // PageRef {page i64, start i32, length i32}
	ridSize            = 4  // non-unique index keys end in rid i32 LE
)

// Value kinds of an index descriptor.
const (
	valueRaw     = 0 // primary: the row's value
	valuePageRef = 2 // secondary: a PageRef to the row's value
)

// ZstdFilter is the id of the only filter 1.4 defines.
const ZstdFilter = "DryDB.ZstdCompression"

// Limits that bound what a hostile file can make the reader do.
const (
	// maxDepth bounds tree height (a real tree of 2^31 pages of two entries has height 31).
	maxDepth = 40
	// minPageSize and maxPageSize bound the advisory page size: tree pages must fit it, so it
	// bounds what decoding a tree page may allocate.
	minPageSize = 64
	maxPageSize = 1 << 20
	// MaxBlob bounds a decoded (zstd) blob page: a frame of a few KiB can claim gigabytes.
	MaxBlob = 256 << 20
)
