// Package engine reads and writes drydb files: build-once, read-many
// key/value databases in one file.
//
// A file holds any number of named tables. Each table is a sorted B+tree
// whose branches carry row counts, with optional secondary indexes and
// optional zstd or S2 page compression. The file format is described byte
// by byte in docs/FORMAT.md.
//
// # Building
//
// NewBuilder starts a build; Builder.Table adds a table (its key encoding,
// compression, page size); TableBuilder.Append adds rows in any order (a
// memory budget spills sorted runs to temporary files); AddIndex declares a
// secondary index. BuildToFile writes the file atomically (a temporary
// file, fsync, rename, fsync of the directory): readers of the old file are
// never disturbed. BuildTo and BuildToBytes write to an io.Writer or memory.
//
// # Reading
//
// Open memory-maps a file (OpenBytes reads an image in memory) and checks
// its header and catalog; each page is checked against its CRC-32C the
// first time the process touches it (Options.Verify checks everything up
// front). DB.Table finds a table; Table answers Get, GetMany, Count (O(log
// n)), Rank and At (the n-th row, O(log n)), and NewCursor walks a range
// between two Bounds (Incl, Excl, All; PrefixBounds) in either direction.
// Index offers the same over a secondary index, yielding the primary key and
// the row's value.
//
// Keys are compared as plain bytes. Package keyenc encodes typed keys
// (int64, uint64, float64, UUID, ULID, strings, composite tuples) so that
// their byte order is their natural order.
//
// # Errors
//
// Errors wrap the sentinels in errors.go (test with errors.Is): ErrNotFound
// for an absent key, ErrCorrupt (as a *CorruptError naming the page and
// offset) for a file that fails a check, ErrVersion, ErrClosed, ErrInvalid
// and the rest. A file truncated by another process while mapped gives
// ErrCorrupt on the pages it lost, never a crash.
//
// # Concurrency
//
// A DB, its Tables and Indexes may be used by any number of goroutines at
// once. A Cursor, an IndexCursor and a Builder belong to one goroutine at a
// time. Any number of processes may map the same file; reading locks and
// writes nothing.
//
// # Caveats
//
// Values of uncompressed tables are slices of the mapping: valid until
// DB.Close, and never to be modified. Table.Get on a compressed table
// returns a copy; Table.GetPinned returns the cached page's bytes until
// Value.Release. A cursor's Key and Value are valid until it moves or
// closes. Close the DB only after every goroutine is done with it.
//
// Files are mapped with mmap on Unix and with a file mapping
// (CreateFileMapping/MapViewOfFile) on Windows.
package engine
