package engine

import (
	"errors"
	"fmt"

	"github.com/drydb/drydb/engine/keyenc"
)

// Sentinel errors. Test for them with errors.Is; the returned errors wrap
// them with detail (which table, which key, which page).
var (
	// ErrNotFound is returned by lookups (Get, Index.Get, At) when there is
	// no such row. It is an ordinary status, not a failure.
	ErrNotFound = errors.New("drydb: not found")
	// ErrCorrupt is returned when a checksum, a bound or a structural check
	// fails while reading. The wrapping *CorruptError says where.
	ErrCorrupt = errors.New("drydb: corrupt file")
	// ErrKeyTooLarge is returned by the builder for a key longer than
	// MaxKeySize(pageSize); the message states the limit.
	ErrKeyTooLarge = errors.New("drydb: key too large")
	// ErrDuplicateKey is returned by Build when a table receives the same key
	// twice, or a unique index the same index key twice; the message names
	// the table or index and the key.
	ErrDuplicateKey = errors.New("drydb: duplicate key")
	// ErrClosed is returned by every method of a closed DB, Builder or Cursor.
	ErrClosed = errors.New("drydb: closed")
	// ErrVersion is returned by Open for a file of a format version this
	// engine does not read.
	ErrVersion = errors.New("drydb: unsupported format version")
	// ErrBadKey is returned for a key that does not fit the table's key
	// encoding (a 3-byte key for an int64 table, invalid UTF-8 for a string
	// table).
	ErrBadKey = keyenc.ErrBadKey
	// ErrNoTable is returned by DB.Table for a name the file does not hold.
	ErrNoTable = errors.New("drydb: no such table")
	// ErrNoIndex is returned by Table.Index for a name the table does not have.
	ErrNoIndex = errors.New("drydb: no such index")
	// ErrUnknownFilter is returned by Open (and the builder) for a page filter
	// that has not been registered with RegisterFilter.
	ErrUnknownFilter = errors.New("drydb: unknown page filter")
	// ErrInvalid is returned for an invalid argument or option.
	ErrInvalid = errors.New("drydb: invalid argument")
	// ErrTooLarge is returned when a value or file exceeds a format limit.
	ErrTooLarge = errors.New("drydb: too large")
)

// CorruptError describes a corruption found while reading: the page (or block
// offset) and the file offset where a check failed, and which check.
type CorruptError struct {
	Page   uint64 // page number, or ^0 when the problem is not in a page
	Offset int64  // file offset of the damaged structure
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Page == noPage {
		return fmt.Sprintf("drydb: corrupt file at offset %d: %s", e.Offset, e.Reason)
	}
	return fmt.Sprintf("drydb: corrupt page %d at offset %d: %s", e.Page, e.Offset, e.Reason)
}

func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

const noPage = ^uint64(0)

// corruptAt is not inlined: it is only ever an error path, and its 40-odd
// call sites inlined cost the C library 5 KB (the library has a size
// budget: Makefile, check-size; these error paths' noinlines saved 16 KB).
//
//go:noinline
func corruptAt(off int64, format string, args ...any) error {
	return &CorruptError{Page: noPage, Offset: off, Reason: fmt.Sprintf(format, args...)}
}
