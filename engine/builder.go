package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/drydb/drydb/engine/drydb14"
	f "github.com/drydb/drydb/engine/internal/format"
	"github.com/drydb/drydb/engine/keyenc"
	"github.com/drydb/drydb/internal/osfile"
)

// BuilderOptions configure a Builder. The zero value is usable.
type BuilderOptions struct {
	// PageSize is a power of two from 512 to 65536; 0 means 4096.
	PageSize int
	// MemoryBudget bounds the bytes of rows held in memory before sorted runs
	// are spilled to temporary files; 0 means 256 MiB.
	MemoryBudget int64
	// TempDir holds spilled runs and overflow values; "" means os.TempDir().
	TempDir string
	// Metadata is stored in the file and returned by DB.Info.
	Metadata map[string][]byte
	// Format is the file format built: FormatNative ("" too) or
	// FormatDryDB14 (write14.go: built native in TempDir, then written as
	// DryDB 1.4; Metadata is not stored, 1.4 has no place for it).
	Format string
}

// TableOptions configure one table.
type TableOptions struct {
	Encoding    keyenc.Encoding
	Compression Compression
	// Codec names how the table's values are encoded ("json", "msgpack",
	// "raw" or a user's name; "" records nothing). It is stored as the
	// metadata pair CodecMetaPrefix+table, so files stay format-compatible,
	// and read back by Table.Codec, which readers use as their default.
	Codec string
	// Hash says whether the table gets a hash index (HashAuto: when it
	// pays; see HashMode).
	Hash HashMode
}

// CompressionKind selects a page compressor.
type CompressionKind uint8

const (
	CompressNone CompressionKind = 0
	CompressZstd CompressionKind = 1
	CompressS2   CompressionKind = 2
)

func (k CompressionKind) String() string {
	switch k {
	case CompressNone:
		return "none"
	case CompressZstd:
		return "zstd"
	case CompressS2:
		return "s2"
	}
	return "compression(" + strconv.Itoa(int(k)) + ")"
}

// Compression describes how a table's leaf pages are stored.
type Compression struct {
	Kind CompressionKind
	// Level is the zstd level (1 fastest .. 4 best, as klauspost/compress
	// defines them; 0 means the default).
	Level int
	// Dictionary trains a zstd dictionary from the table's own pages and
	// stores it in the file.
	Dictionary bool
	// Filter names a page filter registered with RegisterFilter, applied to
	// every leaf block after compression (encryption, for example).
	Filter string
}

// IndexOptions configure a secondary index.
type IndexOptions struct {
	Unique   bool
	Encoding keyenc.Encoding
	// Func, if set, is called once per row (in key order, during Build) and
	// emits zero or more index keys for it. key and val are valid only
	// during the call (they point into the builder's buffers, which later
	// builds reuse): copy what must be kept. Without Func the index is fed
	// with IndexBuilder.Add.
	Func func(key, val []byte, emit func(ikey []byte))
}

// Report describes what a build wrote.
type Report struct {
	Bytes  uint64
	Tables []TableReport
}

// TableReport describes one table of a build.
type TableReport struct {
	Name    string
	Rows    uint64
	Pages   uint64 // pages of the table's region, overflow values included
	Bytes   uint64
	Indexes []TableReport
}

// Builder writes a drydb file. Create tables with Table, append rows, then
// call one of the Build methods once. A Builder belongs to one goroutine.
// Always Close it: Close removes temporary files and is a no-op after Build.
type Builder struct {
	opts   BuilderOptions
	ps     int
	budget budget
	tables []*TableBuilder
	byName map[string]*TableBuilder
	done   bool
	// broken is set when an add failed half way (a temporary file could not
	// be written after the row went in but before its index entries did):
	// the builder no longer holds what its caller was told, so every later
	// add and Build return it.
	broken error
	// base is the database a merge builder was seeded from (merge.go).
	base *DB
}

// TableBuilder receives the rows of one table.
type TableBuilder struct {
	b       *Builder
	name    string
	opts    TableOptions
	rows    *sorter
	blob    *os.File // overflow values, page aligned, unlinked
	blobLen uint64
	indexes []*IndexBuilder
	maxKey  int
	added   uint64 // rows accepted so far: "row N" in messages counts from 0
	// refs holds the primary keys that IndexBuilder.Add entries name (value:
	// the index's position in indexes); Build walks them beside the rows and
	// refuses an entry whose row was never added, which would otherwise make
	// a file that fails its own verify. nil until the first Add.
	refs *sorter
	// m is set for a table seeded from a merge builder's base (merge.go).
	m *tableMerge
}

// IndexBuilder receives the entries of one secondary index.
type IndexBuilder struct {
	t       *TableBuilder
	ord     int // position in t.indexes
	name    string
	opts    IndexOptions
	entries *sorter
	buf     []byte
	base    *Index // a merge builder's base index (merge.go)
}

// IndexEntry is an entry of one of a table's secondary indexes, given with
// its row to TableBuilder.AppendRow.
type IndexEntry struct {
	Index *IndexBuilder
	Key   []byte
}

// NewBuilder returns a Builder.
func NewBuilder(opts *BuilderOptions) (*Builder, error) {
	b := &Builder{byName: map[string]*TableBuilder{}}
	if opts != nil {
		b.opts = *opts
	}
	if err := checkFormat(b.opts.Format); err != nil {
		return nil, err
	}
	b.ps = b.opts.PageSize
	if b.ps == 0 {
		b.ps = f.DefaultPageSize
	}
	if b.ps < f.MinPageSize || b.ps > f.MaxPageSize || b.ps&(b.ps-1) != 0 {
		return nil, fmt.Errorf("%w: page size %d is not a power of two from %d to %d", ErrInvalid, b.ps, f.MinPageSize, f.MaxPageSize)
	}
	b.budget.limit = b.opts.MemoryBudget
	if b.budget.limit <= 0 {
		b.budget.limit = 256 << 20
	}
	if b.opts.TempDir == "" {
		b.opts.TempDir = os.TempDir()
	}
	return b, nil
}

// MaxKeySize is the longest key a file with this page size accepts.
func MaxKeySize(pageSize int) int { return f.MaxKeySize(pageSize) }

// Table starts a new table. Names are unique, 1 to 255 bytes of UTF-8.
func (b *Builder) Table(name string, opts *TableOptions) (*TableBuilder, error) {
	if b.done {
		return nil, ErrClosed
	}
	if err := checkName("table", name); err != nil {
		return nil, err
	}
	if t, ok, err := b.seeded(name, opts); ok {
		return t, err
	}
	if _, dup := b.byName[name]; dup {
		return nil, fmt.Errorf("%w: table %q defined twice", ErrInvalid, name)
	}
	t := &TableBuilder{b: b, name: name, maxKey: f.MaxKeySize(b.ps)}
	if opts != nil {
		t.opts = *opts
	}
	if err := t.opts.Encoding.Check(); err != nil {
		return nil, fmt.Errorf("%w: table %q: %v", ErrInvalid, name, err)
	}
	if err := checkCompression(t.opts.Compression); err != nil {
		return nil, fmt.Errorf("table %q: %w", name, err)
	}
	if err := b.check14(fmt.Sprintf("table %q", name), t.opts.Encoding, &t.opts.Compression); err != nil {
		return nil, err
	}
	if err := checkCodec(t.opts.Codec); err != nil {
		return nil, fmt.Errorf("table %q: %w", name, err)
	}
	if err := checkHash(t.opts); err != nil {
		return nil, fmt.Errorf("table %q: %w", name, err)
	}
	t.rows = newSorter(b.opts.TempDir, &b.budget)
	b.tables = append(b.tables, t)
	b.byName[name] = t
	return t, nil
}

// CodecMetaPrefix + a table's name is the metadata key of its value codec.
const CodecMetaPrefix = "drydb.codec."

// legacyCodecMetaPrefix is where the Python binding recorded codecs before
// CodecMetaPrefix; Table.Codec still reads it.
const legacyCodecMetaPrefix = "codec:"

func checkCodec(name string) error {
	if len(name) > 64 || !utf8Valid(name) || strings.ContainsAny(name, "\x00\n") {
		return fmt.Errorf("%w: codec name must be at most 64 bytes of UTF-8 on one line, got %q", ErrInvalid, name)
	}
	return nil
}

// metadata is the options' metadata plus the tables' codec names (a table's
// Codec wins over a pair of the same key given by hand). The caller's map is
// not changed.
func (b *Builder) metadata() map[string][]byte {
	meta := make(map[string][]byte, len(b.opts.Metadata)+len(b.tables))
	for k, v := range b.opts.Metadata {
		meta[k] = v
	}
	for _, t := range b.tables {
		if t.opts.Codec != "" {
			meta[CodecMetaPrefix+t.name] = []byte(t.opts.Codec)
		}
	}
	return meta
}

func checkName(what, name string) error {
	if len(name) == 0 || len(name) > 255 || !utf8Valid(name) {
		return fmt.Errorf("%w: %s name must be 1 to 255 bytes of UTF-8, got %q", ErrInvalid, what, name)
	}
	return nil
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// Name returns the table's name.
func (t *TableBuilder) Name() string { return t.name }

// SetCodec records the name of the table's value codec, as
// TableOptions.Codec does ("" records nothing), for callers that add the
// table before they know it (the C API's drydb_builder_table_codec).
func (t *TableBuilder) SetCodec(name string) error {
	if t.b.done {
		return ErrClosed
	}
	if err := checkCodec(name); err != nil {
		return fmt.Errorf("table %q: %w", t.name, err)
	}
	t.opts.Codec = name
	return nil
}

// Append adds a row. Keys may arrive in any order; duplicates are reported
// by Build. The key and value are copied. An error names the row by the
// number of rows appended to the table before it.
func (t *TableBuilder) Append(key, val []byte) error { return t.AppendRow(key, val) }

// AppendRow adds a row together with entries of the table's secondary
// indexes that point at it, all or nothing: every key is checked before
// anything is added, so a refused row or entry leaves the builder as it
// was. Bindings that compute index keys per row (Python's and C#'s index
// functions) add through it, so that a failure never leaves entries without
// their row.
func (t *TableBuilder) AppendRow(key, val []byte, entries ...IndexEntry) error {
	if err := t.b.usable(); err != nil {
		return err
	}
	if err := t.checkRow(key, val); err != nil {
		return err
	}
	for _, e := range entries {
		if e.Index == nil || e.Index.t != t {
			return fmt.Errorf("%w: %s: an index entry for an index of another table", ErrInvalid, t.row())
		}
		if err := e.Index.check(e.Key, key); err != nil {
			return fmt.Errorf("%s: %w", t.row(), err)
		}
	}
	var err error
	if len(val) > f.OverflowThreshold(t.b.ps) {
		var ref []byte
		if ref, err = t.writeBlob(val); err == nil {
			err = t.rows.add(key, ref, true)
		}
	} else {
		err = t.rows.add(key, val, false)
	}
	if err != nil {
		return err // nothing was added (an overflow value may take space unused)
	}
	t.added++
	for _, e := range entries {
		if err := e.Index.add(e.Key, key); err != nil {
			return t.b.breakOn(err)
		}
	}
	return nil
}

// usable reports why the builder takes no more rows, if it does not.
func (b *Builder) usable() error {
	if b.done {
		return ErrClosed
	}
	return b.broken
}

// breakOn marks the builder broken by err, a failure after part of an add
// went in; see Builder.broken.
func (b *Builder) breakOn(err error) error {
	b.broken = fmt.Errorf("drydb: the builder lost part of an add and cannot build: %w", err)
	return b.broken
}

// checkRow checks what Append refuses, before anything is added.
func (t *TableBuilder) checkRow(key, val []byte) error {
	if len(key) > t.maxKey {
		return fmt.Errorf("%w: %s: key of %d bytes exceeds the limit of %d bytes for %d-byte pages", ErrKeyTooLarge, t.row(), len(key), t.maxKey, t.b.ps)
	}
	if err := t.opts.Encoding.Validate(key); err != nil {
		return fmt.Errorf("%s: %w", t.row(), err)
	}
	if len(val) > f.OverflowThreshold(t.b.ps) {
		if t.opts.Compression.Filter != "" {
			// Overflow values bypass page filters; refuse rather than store
			// them untransformed (an encryption filter would leak them).
			return fmt.Errorf("%w: %s: a value of %d bytes exceeds the %d-byte limit of tables with page filter %q", ErrTooLarge, t.row(), len(val), f.OverflowThreshold(t.b.ps), t.opts.Compression.Filter)
		}
		if uint64(len(val)) > maxValue {
			return fmt.Errorf("%w: %s: value of %d bytes", ErrTooLarge, t.row(), len(val))
		}
	}
	return nil
}

// row names the row being added in messages. Rows are counted from 0 in the
// order they were given to the table (bindings that batch rows count the
// same way, so the number names the same row in every language). Not
// inlined: an error path (errors.go's corruptAt says why).
//
//go:noinline
func (t *TableBuilder) row() string {
	return fmt.Sprintf("table %q, row %d (counted from 0)", t.name, t.added)
}

// MaxKeySize returns the longest key the table accepts.
func (t *TableBuilder) MaxKeySize() int { return t.maxKey }

// maxValue is the longest value (see docs/FORMAT.md).
const maxValue = 1 << 40

// writeBlob stores an overflow value in the table's blob file, page aligned,
// and returns its reference relative to the blob file.
func (t *TableBuilder) writeBlob(val []byte) ([]byte, error) {
	if t.blob == nil {
		fh, err := os.CreateTemp(t.b.opts.TempDir, ".drydb-blob-*")
		if err != nil {
			return nil, fmt.Errorf("drydb: creating overflow file: %w", err)
		}
		os.Remove(fh.Name())
		t.blob = fh
	}
	ps := uint64(t.b.ps)
	pg := t.blobLen / ps
	if _, err := t.blob.WriteAt(val, int64(t.blobLen)); err != nil {
		return nil, fmt.Errorf("drydb: writing overflow value: %w", err)
	}
	t.blobLen += (uint64(len(val)) + ps - 1) / ps * ps
	ref := make([]byte, f.OverflowRefSize)
	f.PutU64(ref, 0, pg)
	f.PutU64(ref, 8, uint64(len(val)))
	f.PutU32(ref, 16, f.CRC(val))
	return ref, nil
}

// AddIndex defines a secondary index on the table.
func (t *TableBuilder) AddIndex(name string, opts *IndexOptions) (*IndexBuilder, error) {
	if t.b.done {
		return nil, ErrClosed
	}
	if err := checkName("index", name); err != nil {
		return nil, err
	}
	if ix, ok, err := t.seededIndex(name, opts); ok {
		return ix, err
	}
	for _, ix := range t.indexes {
		if ix.name == name {
			return nil, fmt.Errorf("%w: table %q: index %q defined twice", ErrInvalid, t.name, name)
		}
	}
	ix := &IndexBuilder{t: t, ord: len(t.indexes), name: name}
	if opts != nil {
		ix.opts = *opts
	}
	if err := ix.opts.Encoding.Check(); err != nil {
		return nil, fmt.Errorf("%w: index %q: %v", ErrInvalid, name, err)
	}
	if err := t.b.check14(fmt.Sprintf("table %q index %q", t.name, name), ix.opts.Encoding, nil); err != nil {
		return nil, err
	}
	ix.entries = newSorter(t.b.opts.TempDir, &t.b.budget)
	t.indexes = append(t.indexes, ix)
	return ix, nil
}

// Add adds an index entry mapping ikey to the primary key pk. The row of pk
// may be appended before or after; Build refuses the file if it never is.
func (ix *IndexBuilder) Add(ikey, pk []byte) error {
	t := ix.t
	if err := t.b.usable(); err != nil {
		return err
	}
	if err := t.opts.Encoding.Validate(pk); err != nil {
		return fmt.Errorf("index %q: primary key: %w", ix.name, err)
	}
	if err := ix.check(ikey, pk); err != nil {
		return err
	}
	if t.refs == nil {
		t.refs = newSorter(t.b.opts.TempDir, &t.b.budget)
	}
	if err := t.refs.add(pk, binary.AppendUvarint(ix.buf[:0], uint64(ix.ord)), false); err != nil {
		return err // nothing was added
	}
	if err := ix.add(ikey, pk); err != nil {
		return t.b.breakOn(err)
	}
	return nil
}

// check refuses an entry that add would refuse, without adding it; the
// stored key is left in ix.buf.
func (ix *IndexBuilder) check(ikey, pk []byte) error {
	if err := ix.opts.Encoding.Validate(ikey); err != nil {
		return fmt.Errorf("index %q: %w", ix.name, err)
	}
	ix.buf = appendIndexKey(ix.buf[:0], ikey, pk)
	if len(ix.buf) > ix.t.maxKey {
		return fmt.Errorf("%w: index %q: index key of %d bytes plus primary key of %d bytes exceed the limit of %d bytes (escaping included)", ErrKeyTooLarge, ix.name, len(ikey), len(pk), ix.t.maxKey)
	}
	return nil
}

// add adds a checked entry (or one from an index function at build time,
// which it checks).
func (ix *IndexBuilder) add(ikey, pk []byte) error {
	if err := ix.check(ikey, pk); err != nil {
		return err
	}
	return ix.entries.add(ix.buf, nil, false)
}

// Close releases temporary files. It is safe to call more than once and
// after Build.
func (b *Builder) Close() error {
	b.done = true
	for _, t := range b.tables {
		t.rows.close()
		if t.refs != nil {
			t.refs.close()
		}
		if t.m != nil {
			t.m.close()
		}
		if t.blob != nil {
			t.blob.Close()
			t.blob = nil
		}
		for _, ix := range t.indexes {
			ix.entries.close()
		}
	}
	return nil
}

// BuildTo writes the database to w. The Builder is consumed.
func (b *Builder) BuildTo(w io.Writer) (*Report, error) {
	if err := b.usable(); err != nil {
		return nil, err
	}
	defer b.Close()
	if b.opts.Format == FormatDryDB14 {
		return b.build14(func(db *DB, o *DryDB14Options) (*drydb14.Report, error) {
			return db.writeDryDB14To(w, b.opts.TempDir, o)
		})
	}
	bw := getWriter(w)
	defer putWriter(bw)
	rep, err := b.build(bw)
	if err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, fmt.Errorf("drydb: writing: %w", err)
	}
	return rep, nil
}

// BuildToBytes returns the database as a byte slice.
func (b *Builder) BuildToBytes() ([]byte, *Report, error) {
	var buf bytes.Buffer
	rep, err := b.BuildTo(&buf)
	if err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), rep, nil
}

// BuildToFile writes the database to path atomically: it is written to a
// temporary file in the same directory, synced, renamed over path and the
// directory synced. A reader of path sees the old file or the new one, never
// a partial one; a failed build leaves the old file untouched. Temporary
// files left by a killed build are removed by the next build into the same
// directory.
//
// path must name a regular file or nothing: anything else (a device such as
// /dev/null, a FIFO, a directory, a symbolic link) is refused with
// ErrInvalid before the build starts, and the Builder can still build
// elsewhere.
func (b *Builder) BuildToFile(path string) (*Report, error) {
	if err := b.usable(); err != nil {
		return nil, err
	}
	if err := replaceable(path); err != nil {
		return nil, err
	}
	defer b.Close()
	if b.opts.Format == FormatDryDB14 {
		return b.build14(func(db *DB, o *DryDB14Options) (*drydb14.Report, error) { return db.WriteDryDB14(path, o) })
	}
	var rep *Report
	err := writeAtomic(path, func(fh *os.File) (err error) {
		bw := getWriter(fh)
		defer putWriter(bw)
		if rep, err = b.build(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("drydb: writing %s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// writeAtomic writes path with fill through a temporary file in the same
// directory, synced, renamed over path and the directory synced (see
// BuildToFile). A failed fill leaves path untouched.
func writeAtomic(path string, fill func(fh *os.File) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	cleanLitter(dir, base)
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.drydb-tmp-%d-%08x", base, os.Getpid(), rand.Uint32()))
	fh, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("drydb: creating %s: %w", tmp, err)
	}
	ok := false
	defer func() {
		if !ok {
			fh.Close()
			os.Remove(tmp)
		}
	}()
	if err := fill(fh); err != nil {
		return err
	}
	if err := fh.Sync(); err != nil {
		return fmt.Errorf("drydb: syncing %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("drydb: closing %s: %w", path, err)
	}
	if err := replaceable(path); err != nil { // it may have appeared meanwhile
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("drydb: renaming into place: %w", err)
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// replaceable refuses a path that names something other than a regular
// file: renaming over it would replace a device node or a FIFO that other
// programs use (or a symbolic link the user meant to write through) with
// a regular file.
func replaceable(path string) error {
	st, err := os.Lstat(path)
	if err != nil || st.Mode().IsRegular() {
		return nil // absent: created; other errors surface when the file is created
	}
	what := "not a regular file"
	switch m := st.Mode(); {
	case m&os.ModeDir != 0:
		what = "a directory"
	case m&os.ModeSymlink != 0:
		what = "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		what = "a socket"
	case m&os.ModeCharDevice != 0:
		what = "a character device"
	case m&os.ModeDevice != 0:
		what = "a block device"
	}
	return fmt.Errorf("%w: %s is %s, not a regular file: refusing to replace it", ErrInvalid, path, what)
}

// cleanLitter removes temporary files of earlier builds of the same target
// whose process no longer exists.
func cleanLitter(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".drydb-tmp-*"))
	prefix := "." + base + ".drydb-tmp-"
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 {
			continue
		}
		if pid != os.Getpid() && osfile.ProcessGone(pid) {
			os.Remove(m)
		}
	}
}

func globEscape(s string) string {
	r := strings.NewReplacer("*", "\\*", "?", "\\?", "[", "\\[", "\\", "\\\\")
	return r.Replace(s)
}

func (b *Builder) build(w io.Writer) (*Report, error) {
	b.done = true
	o := &out{w: w, pageSize: b.ps, zero: make([]byte, b.ps)}
	hdr := make([]byte, b.ps)
	copy(hdr[f.HdrMagic:], f.Magic[:])
	f.PutU32(hdr, f.HdrVersion, f.Version)
	f.PutU32(hdr, f.HdrPageSize, uint32(b.ps))
	f.PutU32(hdr, f.HdrCRC, f.CRC(hdr[:f.HdrCRC]))
	o.write(hdr)

	cat := &f.Catalog{Created: time.Now().UnixNano()}
	// An identifier, not a secret: math/rand/v2's generator is seeded by the
	// runtime from the system's entropy (crypto/rand would link Go's whole
	// FIPS generator into the C library).
	le.PutUint64(cat.BuildID[:8], rand.Uint64())
	le.PutUint64(cat.BuildID[8:], rand.Uint64())
	meta := b.metadata()
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cat.Meta = append(cat.Meta, f.KV{Key: []byte(k), Value: meta[k]})
	}
	rep := &Report{}
	for _, t := range b.tables {
		start := o.off
		ct, tr, err := t.write(o)
		if err != nil {
			return nil, err
		}
		tr.Bytes = o.off - start
		tr.Pages = (tr.Bytes + uint64(b.ps) - 1) / uint64(b.ps)
		cat.Tables = append(cat.Tables, ct)
		rep.Tables = append(rep.Tables, tr)
	}
	o.pad()
	catOff := o.off
	catBytes := cat.Encode(nil)
	o.write(catBytes)
	ftr := make([]byte, f.FooterSize)
	f.PutU64(ftr, f.FtrCatalogOff, catOff)
	f.PutU64(ftr, f.FtrCatalogLen, uint64(len(catBytes)))
	f.PutU32(ftr, f.FtrCatalogCRC, f.CRC(catBytes))
	f.PutU64(ftr, f.FtrPageCount, catOff/uint64(b.ps))
	f.PutU64(ftr, f.FtrFileLen, o.off+f.FooterSize)
	f.PutU32(ftr, f.FtrCRC, f.CRC(ftr[:f.FtrCRC]))
	copy(ftr[f.FtrMagic:], f.Magic[:])
	o.write(ftr)
	rep.Bytes = o.off
	return rep, o.err
}

// write emits the table's region: overflow values, the dictionary, leaves,
// branches, then each index tree.
func (t *TableBuilder) write(o *out) (f.Table, TableReport, error) {
	ct := f.Table{Name: t.name, Encoding: t.opts.Encoding.Marshal(),
		Compression: uint8(t.opts.Compression.Kind), Level: int64(t.opts.Compression.Level), Filter: t.opts.Compression.Filter}
	rep := TableReport{Name: t.name}
	if t.m != nil && !t.m.copyable(t) {
		if err := t.m.materialize(t); err != nil {
			return ct, rep, err
		}
	}
	firstPage := o.pgno()
	if t.m != nil {
		if err := t.m.copyOverflow(o); err != nil {
			return ct, rep, err
		}
	}
	ovfBase := o.pgno()
	if t.blob != nil {
		if _, err := t.blob.Seek(0, io.SeekStart); err != nil {
			return ct, rep, err
		}
		// The last value may end short of its page: EOF before blobLen is expected.
		if _, err := io.CopyN(&writerFunc{o}, t.blob, int64(t.blobLen)); err != nil && err != io.EOF {
			if o.err != nil {
				return ct, rep, o.err
			}
			return ct, rep, fmt.Errorf("drydb: reading overflow values: %w", err)
		}
		o.pad()
	}
	var codec *blockCodec
	if t.opts.Compression.Kind != CompressNone || t.opts.Compression.Filter != "" {
		var dict []byte
		if t.m != nil { // the base's blocks are copied: same dictionary
			dict = t.m.base.codec.dictBytes
		} else if t.opts.Compression.Dictionary && t.opts.Compression.Kind == CompressZstd {
			var err error
			if dict, err = t.trainDictionary(ovfBase); err != nil {
				return ct, rep, err
			}
		}
		if len(dict) > 0 {
			ct.DictOffset = o.off
			ct.DictLen = uint64(len(dict))
			ct.DictCRC = f.CRC(dict)
			o.write(dict)
		}
		var err error
		if codec, err = newBlockCodec(t.opts.Compression, dict, o.pageSize); err != nil {
			return ct, rep, err
		}
		defer codec.close()
	}
	tw := newTreeWriter(o, fmt.Sprintf("table %q", t.name), codec)
	tw.enc = t.opts.Encoding
	tw.first = firstPage
	tw.ovfBase = ovfBase
	tw.k8 = fixed8(t.opts.Encoding)
	switch {
	case codec == nil && t.opts.Hash != HashOff:
		tw.hash = &hashBuilder{mode: t.opts.Hash}
	case codec != nil && t.opts.Hash == HashOn:
		tw.hash = &hashBuilder{mode: HashOn, offsets: []uint64{}}
	}
	var funcs []*IndexBuilder
	for _, ix := range t.indexes {
		if ix.opts.Func != nil {
			funcs = append(funcs, ix)
		}
	}
	refs, err := t.rowRefs()
	if err != nil {
		return ct, rep, err
	}
	// emit writes one row given to the builder: its index functions run and
	// the IndexBuilder.Add entries naming it are checked off.
	var emitErr error
	emit := func(k, v []byte, isRef bool) error {
		if err := tw.add(k, v, isRef); err != nil {
			return err
		}
		if err := refs.past(k); err != nil {
			return err
		}
		if len(funcs) == 0 {
			return nil
		}
		val := v
		if isRef {
			var err error
			if val, err = t.readBlob(v); err != nil {
				return err
			}
		}
		for _, ix := range funcs {
			ix := ix
			ix.opts.Func(k, val, func(ikey []byte) {
				if emitErr == nil {
					emitErr = ix.add(ikey, k)
				}
			})
			if emitErr != nil {
				return emitErr
			}
		}
		return nil
	}
	if t.m != nil {
		if err := t.m.rows(t, tw, emit); err != nil {
			return ct, rep, err
		}
	} else {
		it, err := t.rows.iterate()
		if err != nil {
			return ct, rep, err
		}
		for {
			k, v, isRef, ok := it.next()
			if !ok {
				break
			}
			if err := emit(k, v, isRef); err != nil {
				return ct, rep, err
			}
		}
		if err := it.err(); err != nil {
			return ct, rep, err
		}
	}
	if err := refs.past(nil); err != nil {
		return ct, rep, err
	}
	tree, err := tw.finish()
	if err != nil {
		return ct, rep, err
	}
	ct.Tree = tree
	if tw.hash != nil {
		ct.Hash = tw.hash.write(o)
	}
	rep.Rows = tree.Rows
	t.rows.close()
	if t.refs != nil {
		t.refs.close()
	}
	for _, ix := range t.indexes {
		ci, ir, err := ix.write(o)
		if err != nil {
			return ct, rep, err
		}
		ct.Indexes = append(ct.Indexes, ci)
		rep.Indexes = append(rep.Indexes, ir)
	}
	return ct, rep, o.err
}

// rowRefs walks the primary keys of IndexBuilder.Add entries (t.refs) in
// key order beside the table's rows, so that an entry whose row was never
// added is refused with the table still being written, in one pass and
// within the memory budget however many entries there are.
type rowRefs struct {
	t      *TableBuilder
	it     iter
	pk, ix []byte // the next primary key and its index's position; pk nil at the end
}

func (t *TableBuilder) rowRefs() (*rowRefs, error) {
	r := &rowRefs{t: t}
	if t.refs == nil {
		return r, nil
	}
	var err error
	if r.it, err = t.refs.iterate(); err != nil {
		return nil, err
	}
	return r, r.next()
}

func (r *rowRefs) next() error {
	k, v, _, ok := r.it.next()
	if !ok {
		r.pk = nil
		return r.it.err()
	}
	r.pk, r.ix = k, v
	return nil
}

// past consumes the entries up to row (every row, in order), or all of them
// when row is nil (the rows ended); an entry before row names a missing row.
func (r *rowRefs) past(row []byte) error {
	for r.pk != nil {
		c := -1
		if row != nil {
			c = bytes.Compare(r.pk, row)
		}
		if c > 0 {
			return nil
		}
		if c < 0 {
			return r.t.missingRow(r.pk, r.ix)
		}
		if err := r.next(); err != nil {
			return err
		}
	}
	return nil
}

// missingRow describes an entry of the index at position ix (uvarint) that
// names pk, which is not a row. The error path looks the entry's index key up
// (one pass over the index's entries) rather than storing it twice.
func (t *TableBuilder) missingRow(pk, ixPos []byte) error {
	n, _ := binary.Uvarint(ixPos)
	ix := t.indexes[n]
	ikey := "(not found)"
	if it, err := ix.entries.iterate(); err == nil {
		for {
			k, _, _, ok := it.next()
			if !ok {
				break
			}
			if esc, p, ok := splitIndexKey(k); ok && bytes.Equal(p, pk) {
				ikey = keyenc.FormatKey(ix.opts.Encoding, unescapeKey(esc))
				break
			}
		}
	}
	return fmt.Errorf("%w: index %q of table %q has an entry (index key %q) for primary key %q, which is not a row of the table",
		ErrInvalid, ix.name, t.name, ikey, keyenc.FormatKey(t.opts.Encoding, pk))
}

// fixed8 reports encodings whose keys are always 8 bytes; their trees get
// the integer-compare fast path (see page.go).
func fixed8(e keyenc.Encoding) bool {
	return e.Kind == keyenc.Int64 || e.Kind == keyenc.Uint64 || e.Kind == keyenc.Float64
}

func (t *TableBuilder) readBlob(ref []byte) ([]byte, error) {
	buf := make([]byte, f.U64(ref, 8))
	if _, err := t.blob.ReadAt(buf, int64(f.U64(ref, 0)*uint64(t.b.ps))); err != nil {
		return nil, fmt.Errorf("drydb: reading overflow value: %w", err)
	}
	return buf, nil
}

func (ix *IndexBuilder) write(o *out) (f.Index, TableReport, error) {
	if ix.base != nil {
		return ix.writeMerged(o)
	}
	ci := f.Index{Name: ix.name, Unique: ix.opts.Unique, Encoding: ix.opts.Encoding.Marshal()}
	rep := TableReport{Name: ix.name}
	start := o.off
	tw := newTreeWriter(o, fmt.Sprintf("index %q", ix.name), nil)
	it, err := ix.entries.iterate()
	if err != nil {
		return ci, rep, err
	}
	var prev []byte
	for {
		k, _, _, ok := it.next()
		if !ok {
			break
		}
		if ix.opts.Unique {
			ik, _, _ := splitIndexKey(k)
			if prev != nil && bytes.Equal(ik, prev) {
				return ci, rep, fmt.Errorf("%w: unique index %q has index key %s twice", ErrDuplicateKey, ix.name, showKey(ix.opts.Encoding, unescapeKey(ik)))
			}
			prev = append(prev[:0], ik...)
		}
		if err := tw.add(k, nil, false); err != nil {
			return ci, rep, err
		}
	}
	if err := it.err(); err != nil {
		return ci, rep, err
	}
	return ix.finish(tw, ci, rep, start)
}

// finish completes an index tree whose entries are all in tw; its region
// started at offset start.
func (ix *IndexBuilder) finish(tw *treeWriter, ci f.Index, rep TableReport, start uint64) (f.Index, TableReport, error) {
	tree, err := tw.finish()
	if err != nil {
		return ci, rep, err
	}
	ci.Tree = tree
	ix.entries.close()
	rep.Rows = tree.Rows
	rep.Bytes = tw.o.off - start
	rep.Pages = rep.Bytes / uint64(tw.o.pageSize)
	return ci, rep, nil
}

type writerFunc struct{ o *out }

func (w *writerFunc) Write(p []byte) (int, error) {
	w.o.write(p)
	return len(p), w.o.err
}

// showKey renders a key of encoding e for a message: decoded (int64 42,
// composite ("a", 1)) rather than as its encoded bytes; bytes and string
// keys, and keys that do not decode, as quoteKey shows them.
func showKey(e keyenc.Encoding, k []byte) string {
	switch e.Kind {
	case keyenc.Bytes, keyenc.String:
		return quoteKey(k)
	}
	if s := keyenc.FormatKey(e, k); !strings.HasPrefix(s, "hex:") && len(s) <= 200 {
		return s
	}
	return quoteKey(k)
}

func quoteKey(k []byte) string {
	if len(k) > 64 {
		return strconv.Quote(string(k[:64])) + "..."
	}
	return strconv.Quote(string(k))
}
