package engine

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A sharded database is a manifest file naming shard files (ordinary drydb
// files) and, per table, which part of the table each shard holds. Opening
// the manifest gives one DB whose tables span the shards. docs/FORMAT.md
// ("Sharded databases") is the format's definition.

// ManifestMagic starts every manifest file; its header line is
// "drydb-shards <version> <crc32 of the body, 8 hex digits> <body length>\n".
const ManifestMagic = "drydb-shards "

// ManifestVersion is the manifest format version this engine writes and reads.
const ManifestVersion = 1

// maxManifest bounds the manifest read at open: a manifest lists shards and
// key bounds, never data.
const maxManifest = 64 << 20

// Partition kinds of a sharded table.
const (
	PartitionRange = "range" // shard i holds keys [First_i, Last_i], in key order
	PartitionHash  = "hash"  // shard i holds the keys with fnv1a64(key) % len(Parts) == i
)

// Manifest is the body of a manifest file.
type Manifest struct {
	Version int
	Shards  []string // file names relative to the manifest's directory
	Tables  []ManifestTable
}

// ManifestTable says how one table is spread over the shards.
type ManifestTable struct {
	Name      string
	Partition string
	Parts     []ManifestPart
}

// ManifestPart is a table's part in one shard. For range tables only shards
// holding rows are listed, in key order; for hash tables every hash slot is
// listed, slot i first.
type ManifestPart struct {
	Shard int
	First []byte // range: the part's first and last key (encoded); nil for hash
	Last  []byte
	Rows  uint64
}

// ShardHash is the hash routing keys of hash-partitioned tables: FNV-1a,
// 64 bits, over the encoded key.
func ShardHash(key []byte) uint64 {
	h := uint64(14695981039346656037) // written out: package hash/fnv costs the C library kilobytes
	for _, b := range key {
		h = (h ^ uint64(b)) * 1099511628211
	}
	return h
}

// HashSlot is the slot (part number) of an encoded key in a hash table of
// slots parts: the one routing rule readers and every builder use.
func HashSlot(key []byte, slots int) int { return int(ShardHash(key) % uint64(slots)) }

// EncodeManifest returns the manifest file's bytes: the header line, then a
// body of lines (not JSON: encoding/json would grow the C library by a
// tenth of its size):
//
//	shard <quoted file name>
//	table <quoted name> range|hash
//	part <shard number> <rows> [x<first key, hex> x<last key, hex>]
//
// each table followed by its parts.
func EncodeManifest(m *Manifest) ([]byte, error) {
	mm := *m
	mm.Version = ManifestVersion
	if err := mm.check(); err != nil {
		return nil, err
	}
	var body []byte
	for _, s := range mm.Shards {
		body = fmt.Appendf(body, "shard %s\n", strconv.Quote(s))
	}
	for _, t := range mm.Tables {
		body = fmt.Appendf(body, "table %s %s\n", strconv.Quote(t.Name), t.Partition)
		for _, p := range t.Parts {
			body = fmt.Appendf(body, "part %d %d", p.Shard, p.Rows)
			if t.Partition == PartitionRange {
				body = fmt.Appendf(body, " x%x x%x", p.First, p.Last) // x: an empty key is a field too
			}
			body = append(body, '\n')
		}
	}
	hdr := fmt.Sprintf("%s%d %08x %d\n", ManifestMagic, ManifestVersion, crc32.ChecksumIEEE(body), len(body))
	return append([]byte(hdr), body...), nil
}

// parseManifestBody reads EncodeManifest's body lines.
func parseManifestBody(body []byte) (*Manifest, error) {
	m := &Manifest{Version: ManifestVersion}
	for n, line := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		if !m.parseLine(line) {
			return nil, manifestErr("line " + strconv.Itoa(n+2) + " malformed: " + strconv.Quote(line))
		}
	}
	return m, nil
}

// parseLine adds one body line to m; false when it is malformed. (One
// error for every way a line can be wrong keeps this small: the C library
// carries it.)
func (m *Manifest) parseLine(line string) bool {
	word, rest, _ := strings.Cut(line, " ")
	switch word {
	case "shard":
		name, err := strconv.Unquote(rest)
		m.Shards = append(m.Shards, name)
		return err == nil && len(m.Tables) == 0
	case "table":
		i := strings.LastIndexByte(rest, ' ')
		if i < 0 {
			return false
		}
		name, err := strconv.Unquote(rest[:i])
		m.Tables = append(m.Tables, ManifestTable{Name: name, Partition: rest[i+1:]})
		return err == nil
	case "part":
		f := strings.Fields(rest)
		if len(m.Tables) == 0 {
			return false
		}
		t := &m.Tables[len(m.Tables)-1]
		want := 2
		if t.Partition == PartitionRange {
			want = 4
		}
		if len(f) != want {
			return false
		}
		var p ManifestPart
		sh, err1 := strconv.ParseUint(f[0], 10, 31)
		rows, err2 := strconv.ParseUint(f[1], 10, 64)
		p.Shard, p.Rows = int(sh), rows
		if len(f) == 4 {
			var err3, err4 error
			p.First, err3 = hex.DecodeString(strings.TrimPrefix(f[2], "x"))
			p.Last, err4 = hex.DecodeString(strings.TrimPrefix(f[3], "x"))
			if err3 != nil || err4 != nil || f[2][0] != 'x' || f[3][0] != 'x' {
				return false
			}
		}
		t.Parts = append(t.Parts, p)
		return err1 == nil && err2 == nil
	}
	return false
}

// manifestErr is a manifest's corruption.
// manifestErr is not inlined (an error path: errors.go's corruptAt says why).
//
//go:noinline
func manifestErr(reason string) error {
	return &CorruptError{Page: noPage, Reason: "manifest: " + reason}
}

// DecodeManifest parses and checks a manifest file's bytes.
func DecodeManifest(data []byte) (*Manifest, error) {
	if !bytes.HasPrefix(data, []byte(ManifestMagic)) {
		return nil, manifestErr("not a manifest (bad magic)")
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 || nl > 100 {
		return nil, manifestErr("header line missing")
	}
	f := strings.Fields(string(data[len(ManifestMagic):nl]))
	if len(f) != 3 {
		return nil, manifestErr("header line malformed")
	}
	if ver, err := strconv.Atoi(f[0]); err != nil || ver != ManifestVersion {
		return nil, fmt.Errorf("%w: manifest has version %s, this engine reads version %d", ErrVersion, f[0], ManifestVersion)
	}
	crc, err1 := strconv.ParseUint(f[1], 16, 32)
	n, err2 := strconv.ParseUint(f[2], 10, 63)
	body := data[nl+1:]
	switch {
	case err1 != nil || err2 != nil:
		return nil, manifestErr("header line malformed")
	case n != uint64(len(body)):
		return nil, manifestErr("body length differs from the header's (truncated or appended to)")
	case crc32.ChecksumIEEE(body) != uint32(crc):
		return nil, manifestErr("checksum mismatch")
	}
	m, err := parseManifestBody(body)
	if err != nil {
		return nil, err
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// check enforces what routing relies on: shard names that stay inside the
// manifest's directory, parts naming real shards, range parts in strictly
// increasing key order without overlap, one hash part per slot.
func (m *Manifest) check() error {
	bad := func(format string, args ...any) error { return manifestErr(fmt.Sprintf(format, args...)) }
	if len(m.Shards) == 0 {
		return bad("no shards")
	}
	seen := map[string]bool{}
	for i, s := range m.Shards {
		if s == "" || filepath.IsAbs(s) || s != filepath.Clean(s) || strings.HasPrefix(s, "..") || seen[s] {
			return bad("shard %d: bad or repeated file name %q (names are relative, below the manifest's directory)", i, s)
		}
		seen[s] = true
	}
	names := map[string]bool{}
	for _, t := range m.Tables {
		if names[t.Name] {
			return bad("table %q appears twice", t.Name)
		}
		names[t.Name] = true
		for i, p := range t.Parts {
			if p.Shard < 0 || p.Shard >= len(m.Shards) {
				return bad("table %q part %d: shard %d out of range", t.Name, i, p.Shard)
			}
		}
		switch t.Partition {
		case PartitionRange:
			for i, p := range t.Parts {
				if p.Rows == 0 || bytes.Compare(p.First, p.Last) > 0 || p.Rows == 1 && !bytes.Equal(p.First, p.Last) {
					return bad("table %q part %d: bad bounds or row count", t.Name, i)
				}
				if i > 0 && bytes.Compare(t.Parts[i-1].Last, p.First) >= 0 {
					return bad("table %q: parts %d and %d overlap or are out of key order", t.Name, i-1, i)
				}
			}
		case PartitionHash:
			if len(t.Parts) == 0 {
				return bad("table %q: hash partition without parts", t.Name)
			}
			for i, p := range t.Parts {
				if p.First != nil || p.Last != nil {
					return bad("table %q part %d: hash parts have no key bounds", t.Name, i)
				}
			}
		default:
			return bad("table %q: unknown partition %q", t.Name, t.Partition)
		}
	}
	return nil
}

// WriteManifest writes m to path atomically (temporary file, fsync, rename,
// fsync of the directory), so readers see the old manifest or the new one.
func WriteManifest(path string, m *Manifest) error {
	data, err := EncodeManifest(m)
	if err != nil {
		return err
	}
	if err := replaceable(path); err != nil {
		return err
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.drydb-tmp-%d-%08x", base, os.Getpid(), rand.Uint32()))
	fh, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("drydb: creating %s: %w", tmp, err)
	}
	_, err = fh.Write(data)
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("drydb: writing manifest %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// RangeManifest describes range-sharded files: shards (paths relative to
// dir) must hold the same tables, each shard's keys all above the previous
// shard's. It reads each shard's first and last key and row count.
func RangeManifest(dir string, shards []string) (*Manifest, error) {
	return shardManifest(dir, shards, PartitionRange)
}

// HashManifest describes hash-sharded files: shard i (paths relative to
// dir) holds, in every table, the keys whose HashSlot among len(shards)
// slots is i; every shard has every table (possibly empty). It reads the
// row counts, and checks each part's first and last key against its slot
// (cheap: it catches shards listed out of order; Verify checks every key).
func HashManifest(dir string, shards []string) (*Manifest, error) {
	return shardManifest(dir, shards, PartitionHash)
}

func shardManifest(dir string, shards []string, partition string) (*Manifest, error) {
	m := &Manifest{Version: ManifestVersion, Shards: shards}
	idx := map[string]int{}
	hash := partition == PartitionHash
	for i, s := range shards {
		db, err := Open(filepath.Join(dir, s), nil)
		if err != nil {
			return nil, fmt.Errorf("shard %d (%s): %w", i, s, err)
		}
		if i == 0 {
			for _, n := range db.Tables() {
				idx[n] = len(m.Tables)
				m.Tables = append(m.Tables, ManifestTable{Name: n, Partition: partition})
			}
		}
		err = m.addShard(i, db, idx)
		db.Close()
		if err != nil {
			return nil, fmt.Errorf("shard %d (%s): %w", i, s, err)
		}
	}
	for _, t := range m.Tables {
		if hash && len(t.Parts) != len(shards) {
			return nil, fmt.Errorf("%w: table %q is not in every shard", ErrInvalid, t.Name)
		}
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("%w (are the shards in key order?)", err)
	}
	return m, nil
}

// addShard adds shard i's part of each table: range parts with their first
// and last keys (tables without rows there are not listed), hash parts with
// those keys checked against the slot.
func (m *Manifest) addShard(i int, db *DB, idx map[string]int) error {
	for _, n := range db.Tables() {
		j, ok := idx[n]
		if !ok {
			return fmt.Errorf("%w: table %q that shard 0 lacks", ErrInvalid, n)
		}
		mt := &m.Tables[j]
		t, _ := db.Table(n)
		p := ManifestPart{Shard: i, Rows: t.Len()}
		for _, r := range []uint64{0, p.Rows - 1} { // the first and last rows
			if p.Rows == 0 {
				break
			}
			k, _, err := t.At(r)
			if err != nil {
				return err
			}
			if mt.Partition == PartitionHash && HashSlot(k, len(m.Shards)) != i {
				return fmt.Errorf("%w: table %q: key %x is not in hash slot %d (are the shards in slot order?)", ErrInvalid, n, k, i)
			}
			p.First, p.Last = p.Last, bytes.Clone(k)
		}
		if mt.Partition == PartitionHash {
			mt.Parts = append(mt.Parts, ManifestPart{Shard: i, Rows: p.Rows})
		} else if p.Rows > 0 {
			mt.Parts = append(mt.Parts, p)
		}
	}
	return nil
}

// shardSet is the shards of an open manifest. Each opens at its first use.
type shardSet struct {
	path  string // the manifest
	dir   string
	names []string
	opts  Options
	mu    sync.Mutex
	dbs   []*DB
}

// open returns shard i, opening it at first use. A failure is not kept: a
// shard copied into place later opens on the next call.
func (s *shardSet) open(i int) (*DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dbs == nil {
		return nil, ErrClosed
	}
	if db := s.dbs[i]; db != nil {
		return db, nil
	}
	db, err := Open(filepath.Join(s.dir, s.names[i]), &s.opts)
	if err != nil {
		return nil, s.wrap(i, err)
	}
	s.dbs[i] = db
	return db, nil
}

// wrap is not inlined (an error path: errors.go's corruptAt says why).
//
//go:noinline
func (s *shardSet) wrap(i int, err error) error {
	return fmt.Errorf("shard %d (%s) of %s: %w", i, s.names[i], s.path, err)
}

func (s *shardSet) close() {
	s.mu.Lock()
	dbs := s.dbs
	s.dbs = nil
	s.mu.Unlock()
	for _, db := range dbs {
		db.Close()
	}
}

// shardedTable routes a table's reads to its parts.
type shardedTable struct {
	set   *shardSet
	name  string
	hash  bool
	parts []ManifestPart
	off   []uint64                // off[i]: rows in parts before i; off[len(parts)] is the total
	tabs  []atomic.Pointer[Table] // part i's table, once its shard is open (one atomic load per read)
	comp  *Compression            // the first part's, which every part must share
	// Range tables of 8-byte keys (int64, uint64, float64): the parts'
	// first and last keys as numbers, so that routing a key compares
	// integers (nil otherwise).
	first8, last8 []uint64
}

// setBounds8 fills first8 and last8 when every part's bounds are 8 bytes.
func (st *shardedTable) setBounds8() {
	if st.hash {
		return
	}
	for _, p := range st.parts {
		if len(p.First) != 8 || len(p.Last) != 8 {
			return
		}
	}
	st.first8, st.last8 = make([]uint64, len(st.parts)), make([]uint64, len(st.parts))
	for i, p := range st.parts {
		st.first8[i], st.last8[i] = be.Uint64(p.First), be.Uint64(p.Last)
	}
}

// below reports whether key sorts before part i's first key.
func (st *shardedTable) below(i int, key []byte) bool {
	if st.first8 != nil && len(key) == 8 {
		return be.Uint64(key) < st.first8[i]
	}
	return bytes.Compare(key, st.parts[i].First) < 0
}

// beyond reports whether key sorts after part i's last key.
func (st *shardedTable) beyond(i int, key []byte) bool {
	if st.last8 != nil && len(key) == 8 {
		return be.Uint64(key) > st.last8[i]
	}
	return bytes.Compare(key, st.parts[i].Last) > 0
}

// table returns part i's table in its shard.
func (st *shardedTable) table(i int) (*Table, error) {
	if t := st.tabs[i].Load(); t != nil {
		return t, nil
	}
	p := st.parts[i]
	db, err := st.set.open(p.Shard)
	if err != nil {
		return nil, err
	}
	t, err := db.Table(st.name)
	if err != nil {
		return nil, st.set.wrap(p.Shard, fmt.Errorf("%w: the manifest lists it", err))
	}
	if st.comp != nil && t.comp != *st.comp {
		// the C API hands out plain tables' values in place: a compressed
		// part under a plain first part would break that
		return nil, st.set.wrap(p.Shard, fmt.Errorf("%w: table %q is compressed differently from its first shard", ErrCorrupt, st.name))
	}
	if t.Len() != p.Rows {
		return nil, st.set.wrap(p.Shard, fmt.Errorf("%w: table %q has %d rows, the manifest says %d", ErrCorrupt, st.name, t.Len(), p.Rows))
	}
	st.tabs[i].Store(t)
	return t, nil
}

// part returns the part that holds key: for range tables the last part
// whose first key is <= key (binary search), -1 when key is below them all.
func (st *shardedTable) part(key []byte) int {
	if st.hash {
		return HashSlot(key, len(st.parts))
	}
	lo, hi := 0, len(st.parts) // written out: sort.Search's closure costs a call per step on every Get
	if st.first8 != nil && len(key) == 8 {
		k := be.Uint64(key)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if st.first8[m] > k {
				hi = m
			} else {
				lo = m + 1
			}
		}
		return lo - 1
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if bytes.Compare(st.parts[m].First, key) > 0 {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}

// clip returns the bounds part i of [a, b) needs: a range's bound is needed
// only in the part where it falls; the parts after (before) it start (end)
// inside the range, and an unbounded side costs no descent.
func clip(i, a, b int, lo, hi Bound) (Bound, Bound) {
	if i > a {
		lo = All
	}
	if i < b-1 {
		hi = All
	}
	return lo, hi
}

// readManifest reads and decodes the manifest at path; size is its length.
func readManifest(path string) (m *Manifest, size int64, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("drydb: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxManifest+1))
	fh.Close()
	if err != nil {
		return nil, 0, fmt.Errorf("drydb: reading %s: %w", path, err)
	}
	if len(data) > maxManifest {
		return nil, 0, fmt.Errorf("%w: manifest %s is larger than %d bytes", ErrTooLarge, path, maxManifest)
	}
	if m, err = DecodeManifest(data); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return m, int64(len(data)), nil
}

// OpenManifest opens a sharded database. Shards open at first use, except
// the first shard (its metadata is the database's) and each table's first
// part, which gives the table's key encoding, compression and indexes (every
// shard of a table is built with the same options).
func OpenManifest(path string, opts *Options) (*DB, error) {
	m, size, err := readManifest(path)
	if err != nil {
		return nil, err
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	verify := o.Verify
	o.Verify = false // Verify below checks every shard and the manifest's claims on them
	set := &shardSet{path: path, dir: filepath.Dir(path), names: m.Shards, opts: o, dbs: make([]*DB, len(m.Shards))}
	db := &DB{byName: map[string]*Table{}, shards: set, manifest: m}
	db.info = Info{FileSize: size}
	if st, err := os.Stat(path); err == nil {
		db.info.Created = st.ModTime()
	}
	// The first shard's metadata is the database's (the bindings record
	// value codecs there; every shard of a build carries the same); so are
	// its format version, page size and build id, while FileSize is the
	// manifest's.
	first, err := set.open(0)
	if err != nil {
		return nil, err
	}
	db.info.Metadata, db.info.FormatVersion, db.info.PageSize, db.info.BuildID =
		first.info.Metadata, first.info.FormatVersion, first.info.PageSize, first.info.BuildID
	for _, mt := range m.Tables {
		st := &shardedTable{set: set, name: mt.Name, hash: mt.Partition == PartitionHash, parts: mt.Parts,
			off: make([]uint64, len(mt.Parts)+1), tabs: make([]atomic.Pointer[Table], len(mt.Parts))}
		for i, p := range mt.Parts {
			st.off[i+1] = st.off[i] + p.Rows
		}
		st.setBounds8()
		t := &Table{db: db, name: mt.Name, sh: st}
		t.tree = tree{db: db, name: fmt.Sprintf("table %q", mt.Name)}
		if len(mt.Parts) > 0 {
			first, err := st.table(0)
			if err != nil {
				set.close()
				return nil, err
			}
			t.enc, t.comp = first.enc, first.comp
			st.comp = &t.comp
			for _, fix := range first.indexes {
				ix := &Index{t: t, name: fix.name, unique: fix.unique, enc: fix.enc}
				ix.tree = tree{db: db, name: fmt.Sprintf("index %q", fix.name)}
				t.indexes = append(t.indexes, ix)
			}
		}
		db.tables = append(db.tables, t)
		db.byName[t.name] = t
	}
	if verify {
		if err := db.Verify(); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// isManifest reports whether the file at path starts with ManifestMagic.
func isManifest(path string) bool {
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	var b [len(ManifestMagic)]byte
	_, err = io.ReadFull(fh, b[:])
	return err == nil && string(b[:]) == ManifestMagic
}

// IsManifest reports whether data (a file's first bytes) is a manifest.
func IsManifest(data []byte) bool { return bytes.HasPrefix(data, []byte(ManifestMagic)) }

// Manifest returns the manifest of a sharded database, nil for one file.
func (db *DB) Manifest() *Manifest { return db.manifest }

// verifyShards checks every shard (Verify of each) and that each holds what
// the manifest says: the tables, row counts and key bounds, and the same
// key encoding and indexes as the first part.
func (db *DB) verifyShards() error {
	set := db.shards
	var errs []error
	for i := range set.names {
		sdb, err := set.open(i)
		if err == nil {
			if err = sdb.Verify(); err != nil {
				err = set.wrap(i, err)
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, t := range db.tables {
		st := t.sh
		for i, p := range st.parts {
			pt, err := st.table(i)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			what := func(format string, args ...any) {
				errs = append(errs, set.wrap(p.Shard, fmt.Errorf("%w: table %q: %s", ErrCorrupt, t.name, fmt.Sprintf(format, args...))))
			}
			if !bytes.Equal(pt.enc.Marshal(), t.enc.Marshal()) || len(pt.indexes) != len(t.indexes) {
				what("key encoding or indexes differ from the table's first shard")
			}
			for j := range min(len(pt.indexes), len(t.indexes)) {
				if pt.indexes[j].name != t.indexes[j].name || !bytes.Equal(pt.indexes[j].enc.Marshal(), t.indexes[j].enc.Marshal()) {
					what("index %q differs from the table's first shard", t.indexes[j].name)
				}
			}
			if st.hash {
				if err := st.checkHashPart(i, pt); err != nil {
					errs = append(errs, err)
				}
				continue
			}
			first, _, err1 := pt.At(0)
			last, _, err2 := pt.At(p.Rows - 1)
			if err := errors.Join(err1, err2); err != nil {
				errs = append(errs, set.wrap(p.Shard, err))
			} else if !bytes.Equal(first, p.First) || !bytes.Equal(last, p.Last) {
				what("keys span %x..%x, the manifest says %x..%x", first, last, p.First, p.Last)
			}
		}
	}
	return errors.Join(errs...)
}

// checkHashPart checks that every key of hash part i hashes to slot i.
func (st *shardedTable) checkHashPart(i int, pt *Table) error {
	c := pt.NewCursor(All, All)
	defer c.Close()
	for ok := c.First(); ok; ok = c.Next() {
		if st.part(c.Key()) != i {
			return st.set.wrap(st.parts[i].Shard, fmt.Errorf("%w: table %q: key %x does not hash to this shard", ErrCorrupt, st.name, c.Key()))
		}
	}
	return c.Err()
}

// notOrdered is the error of row-number reads of hash-partitioned tables.
func (st *shardedTable) notOrdered(what string) error {
	return fmt.Errorf("%w: table %q is hash-partitioned: %s needs a range-partitioned table", ErrInvalid, st.name, what)
}

// The Table and Index methods of sharded tables follow; the Table methods
// call them when t.sh is set.

func (st *shardedTable) get(key []byte) (Value, error) {
	i := st.part(key)
	if i < 0 || !st.hash && st.beyond(i, key) {
		return Value{}, ErrNotFound
	}
	t, err := st.table(i)
	if err != nil {
		return Value{}, err
	}
	if t.codec != nil {
		return t.GetPinned(key)
	}
	// a plain part: Table.Get's hot path, without its layers
	if t.db.closed.Load() {
		return Value{}, ErrClosed
	}
	if t.tree.k8 && len(key) == 8 && t.tree.desc.Depth > 0 {
		v, err := t.tree.get8(be.Uint64(key))
		return Value{Data: v}, err
	}
	return t.tree.get(key)
}

// getMany groups the keys by part and asks each part's table for its keys in
// one GetMany (which shares descents between neighbouring keys).
func (st *shardedTable) getMany(keys, vals [][]byte, found []bool) error {
	byPart := map[int][]int{}
	for i, k := range keys {
		p := st.part(k)
		if p < 0 || !st.hash && st.beyond(p, k) {
			vals[i], found[i] = nil, false
			continue
		}
		byPart[p] = append(byPart[p], i)
	}
	for p, idx := range byPart {
		t, err := st.table(p)
		if err != nil {
			return err
		}
		ks := make([][]byte, len(idx))
		for j, i := range idx {
			ks[j] = keys[i]
		}
		vs, fs := make([][]byte, len(idx)), make([]bool, len(idx))
		if err := t.GetMany(ks, vs, fs); err != nil {
			return err
		}
		for j, i := range idx {
			vals[i], found[i] = vs[j], fs[j]
		}
	}
	return nil
}

// span returns the parts a key range can touch: [a, b).
func (st *shardedTable) span(lo, hi Bound) (a, b int) {
	if st.hash {
		return 0, len(st.parts)
	}
	a, b = 0, len(st.parts)
	if lo.Kind != Unbounded {
		a = max(st.part(lo.Key), 0)
		if a < b && st.beyond(a, lo.Key) {
			a++
		}
	}
	if hi.Kind != Unbounded {
		b = st.part(hi.Key) + 1
	}
	return a, max(a, b)
}

// count adds the counts of the parts the range touches; parts wholly inside
// it count from the manifest, so only the two end parts are opened.
func (st *shardedTable) count(lo, hi Bound) (uint64, error) {
	a, b := st.span(lo, hi)
	var n uint64
	for i := a; i < b; i++ {
		inside := !st.hash && i > a && i < b-1
		if !inside && !st.hash {
			inside = (lo.Kind == Unbounded || st.below(i, lo.Key)) && (hi.Kind == Unbounded || st.beyond(i, hi.Key))
		}
		if inside {
			n += st.parts[i].Rows
			continue
		}
		t, err := st.table(i)
		if err != nil {
			return 0, err
		}
		plo, phi := lo, hi
		if !st.hash {
			plo, phi = clip(i, a, b, lo, hi)
		}
		c, err := t.Count(plo, phi)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

func (st *shardedTable) rank(key []byte) (uint64, error) {
	if st.hash {
		var n uint64
		for i := range st.parts {
			t, err := st.table(i)
			if err != nil {
				return 0, err
			}
			r, err := t.Rank(key)
			if err != nil {
				return 0, err
			}
			n += r
		}
		return n, nil
	}
	i := st.part(key)
	if i < 0 {
		return 0, nil
	}
	if st.beyond(i, key) {
		return st.off[i+1], nil
	}
	t, err := st.table(i)
	if err != nil {
		return 0, err
	}
	r, err := t.Rank(key)
	return st.off[i] + r, err
}

// rowPart returns the part holding global row n (n < total).
func (st *shardedTable) rowPart(n uint64) int {
	return sort.Search(len(st.parts), func(i int) bool { return st.off[i+1] > n })
}

func (st *shardedTable) at(n uint64) (key, val []byte, err error) {
	if st.hash {
		return nil, nil, st.notOrdered("At")
	}
	if n >= st.off[len(st.parts)] {
		return nil, nil, ErrNotFound
	}
	i := st.rowPart(n)
	t, err := st.table(i)
	if err != nil {
		return nil, nil, err
	}
	return t.At(n - st.off[i])
}

// indexCount adds the index's counts over every part.
func (st *shardedTable) indexCount(name string, lo, hi Bound) (uint64, error) {
	var n uint64
	for i := range st.parts {
		ix, err := st.index(i, name)
		if err != nil {
			return 0, err
		}
		c, err := ix.Count(lo, hi)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

func (st *shardedTable) index(i int, name string) (*Index, error) {
	t, err := st.table(i)
	if err != nil {
		return nil, err
	}
	ix, err := t.Index(name)
	if err != nil {
		return nil, st.set.wrap(st.parts[i].Shard, err)
	}
	return ix, nil
}

// indexGet returns the entry of ikey with the smallest primary key over
// every part (index entries live in the shard of their row).
func (st *shardedTable) indexGet(name string, ikey []byte) (pk, val []byte, err error) {
	for i := range st.parts {
		ix, err := st.index(i, name)
		if err != nil {
			return nil, nil, err
		}
		k, v, err := ix.Get(ikey)
		if err == ErrNotFound {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if pk == nil || bytes.Compare(k, pk) < 0 {
			pk, val = k, v
		}
		if !st.hash {
			break // range parts: the first part holding ikey has the smallest key
		}
	}
	if pk == nil {
		return nil, nil, ErrNotFound
	}
	return pk, val, nil
}

// indexLen adds the index's entries over every part (opening every shard).
func (st *shardedTable) indexLen(name string) uint64 {
	var n uint64
	for i := range st.parts {
		if ix, err := st.index(i, name); err == nil {
			n += ix.Len()
		}
	}
	return n
}

// cacheStats adds the page caches of the open shards.
func (s *shardSet) cacheStats() CacheStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cs CacheStats
	for _, db := range s.dbs {
		if db != nil {
			x := db.CacheStats()
			cs.Hits += x.Hits
			cs.Misses += x.Misses
			cs.Evictions += x.Evictions
			cs.Bytes += x.Bytes
			cs.Capacity += x.Capacity
		}
	}
	return cs
}
