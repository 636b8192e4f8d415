package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

// drydbRev is set by bench/run (-ldflags "-X main.drydbRev=$(git describe ...)").
var drydbRev = "devel"

func modVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "?"
}

// ---------------------------------------------------------------- drydb

// drydbStore is drydb's engine package; with zstd it is the store
// "drydb_zstd": the same table with zstd pages, read with GetPinned (the
// engine's no-copy get of compressed tables).
type drydbStore struct {
	zstd   bool
	db     *engine.DB
	t      *engine.Table
	found  []bool
	bval   [][]byte     // NextBatch buffer, reused
	pinned engine.Value // zstd: the last get's value, released at the next get
}

func (s *drydbStore) name() string {
	if s.zstd {
		return "drydb_zstd"
	}
	return "drydb"
}

func (s *drydbStore) config() string {
	c := "engine package: Int64 / String / UUID table by shape, uncompressed, 4 KiB pages; Open maps the file; zero-copy Table.Get; "
	if s.zstd {
		c = "engine package: Int64 / String / UUID table by shape, zstd pages (default level, no dictionary), 4 KiB pages; " +
			"Table.GetPinned, released at the next get; "
	}
	return c + "GetMany 256 keys per call; scans: NewCursor(Incl, Incl), NextBatch of values only (keys nil), 128 rows per call; Table.Count"
}

func (*drydbStore) version() string {
	return fmt.Sprintf("engine @ %s, %s", drydbRev, runtime.Version())
}

var engineKinds = map[keyKind]keyenc.Kind{kindInt64: keyenc.Int64, kindString: keyenc.String, kindUUID: keyenc.UUID}

func (s *drydbStore) build(path string, kind keyKind, keys, vals [][]byte) error {
	b, err := engine.NewBuilder(nil)
	if err != nil {
		return err
	}
	defer b.Close()
	opts := &engine.TableOptions{Encoding: keyenc.Encoding{Kind: engineKinds[kind]}}
	if s.zstd {
		opts.Compression = engine.Compression{Kind: engine.CompressZstd}
	}
	t, err := b.Table("bench", opts)
	if err != nil {
		return err
	}
	for i := range keys {
		if err := t.Append(keys[i], vals[i]); err != nil {
			return err
		}
	}
	_, err = b.BuildToFile(path) // synced, renamed, directory synced
	return err
}

func (s *drydbStore) open(path string) error {
	db, err := engine.Open(path, nil)
	if err != nil {
		return err
	}
	t, err := db.Table("bench")
	if err != nil {
		db.Close()
		return err
	}
	s.db, s.t = db, t
	if s.found == nil {
		s.found = make([]bool, batch)
	}
	return nil
}

func (s *drydbStore) close() {
	s.pinned.Release()
	s.pinned = engine.Value{}
	s.db.Close()
	s.db, s.t = nil, nil
}

func (s *drydbStore) get(k []byte) ([]byte, bool) {
	if s.zstd {
		s.pinned.Release()
		v, err := s.t.GetPinned(k)
		s.pinned = v
		if err != nil {
			if err == engine.ErrNotFound {
				return nil, false
			}
			panic(err)
		}
		return v.Data, true
	}
	v, err := s.t.Get(k)
	if err != nil {
		if err == engine.ErrNotFound {
			return nil, false
		}
		panic(err)
	}
	return v, true
}

func (s *drydbStore) getMany(keys, vals [][]byte) (int, bool) {
	if err := s.t.GetMany(keys, vals, s.found); err != nil {
		panic(err)
	}
	n := 0
	for _, f := range s.found[:len(keys)] {
		if f {
			n++
		}
	}
	return n, true
}

func (s *drydbStore) scan(lo, hi []byte) (int, uint64) {
	if s.bval == nil {
		s.bval = make([][]byte, 128)
	}
	c := s.t.NewCursor(engine.Incl(lo), engine.Incl(hi))
	rows, sum := 0, uint64(0)
	for ok := c.First(); ok; ok = c.Next() {
		n := c.NextBatch(nil, s.bval, false) // the shape reads values: no keys
		for _, v := range s.bval[:n] {
			sum += uint64(len(v)) + uint64(v[len(v)-1])
		}
		rows += n
	}
	if err := c.Err(); err != nil {
		panic(err)
	}
	c.Close()
	return rows, sum
}

func (s *drydbStore) count(lo, hi []byte) int {
	n, err := s.t.Count(engine.Incl(lo), engine.Incl(hi))
	if err != nil {
		panic(err)
	}
	return int(n)
}

// ---------------------------------------------------------------- bbolt

type boltStore struct {
	db *bolt.DB
	tx *bolt.Tx
	bk *bolt.Bucket
}

var bucketName = []byte("bench")

func (*boltStore) name() string { return "bbolt" }
func (*boltStore) config() string {
	return "go.etcd.io/bbolt: Options{ReadOnly: true}, one long-lived read-only tx, zero-copy Bucket.Get; " +
		"Cursor Seek/Next for scans; no batch get; count walks the cursor (no subtree counts); " +
		"build: one Update tx, sorted Puts, FillPercent 1.0, synced commit"
}
func (*boltStore) version() string { return "bbolt " + modVersion("go.etcd.io/bbolt") }

func (*boltStore) build(path string, _ keyKind, keys, vals [][]byte) error {
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		return err
	}
	err = db.Update(func(tx *bolt.Tx) error {
		bk, err := tx.CreateBucket(bucketName)
		if err != nil {
			return err
		}
		bk.FillPercent = 1.0
		for i := range keys {
			if err := bk.Put(keys[i], vals[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *boltStore) open(path string) error {
	db, err := bolt.Open(path, 0o444, &bolt.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	tx, err := db.Begin(false)
	if err != nil {
		db.Close()
		return err
	}
	bk := tx.Bucket(bucketName)
	if bk == nil {
		tx.Rollback()
		db.Close()
		return errors.New("no bucket \"bench\"")
	}
	s.db, s.tx, s.bk = db, tx, bk
	return nil
}

func (s *boltStore) close() {
	s.tx.Rollback()
	s.db.Close()
	s.db, s.tx, s.bk = nil, nil, nil
}

func (s *boltStore) get(k []byte) ([]byte, bool) {
	v := s.bk.Get(k)
	return v, v != nil
}

func (*boltStore) getMany(keys, vals [][]byte) (int, bool) { return 0, false }

func (s *boltStore) scan(lo, hi []byte) (int, uint64) {
	c := s.bk.Cursor()
	rows, sum := 0, uint64(0)
	for k, v := c.Seek(lo); k != nil && bytes.Compare(k, hi) <= 0; k, v = c.Next() {
		sum += uint64(len(v)) + uint64(v[len(v)-1])
		rows++
	}
	return rows, sum
}

func (s *boltStore) count(lo, hi []byte) int {
	c := s.bk.Cursor()
	n := 0
	for k, _ := c.Seek(lo); k != nil && bytes.Compare(k, hi) <= 0; k, _ = c.Next() {
		n++
	}
	return n
}

// ---------------------------------------------------------------- array

// arrayStore is the floor: sorted keys in memory and a binary search, like
// bench/c/store_array.c. Integer shapes: a []int64 and sort.Search (as
// before the other shapes came); string and UUID shapes: a []string and
// slices.BinarySearch (string(k) in a call that does not keep it makes no
// copy on the heap). File: uint64 n, uint64 klen, the keys, n+1 uint32
// value offsets, the values (little-endian); open reads it whole.
type arrayStore struct {
	ints []int64
	strs []string
	voff []uint32
	vals []byte
}

func (*arrayStore) name() string { return "array" }
func (*arrayStore) config() string {
	return "sorted []int64 + sort.Search (int shapes) or sorted []string + slices.BinarySearch (string, UUID), " +
		"value offsets, in RAM (the floor); open reads the whole file"
}
func (*arrayStore) version() string { return "Go " + runtime.Version() }

func (*arrayStore) build(path string, _ keyKind, keys, vals [][]byte) error {
	le := binary.LittleEndian
	buf := le.AppendUint64(nil, uint64(len(keys)))
	buf = le.AppendUint64(buf, uint64(len(keys[0])))
	for _, k := range keys {
		buf = append(buf, k...)
	}
	off := uint32(0)
	buf = le.AppendUint32(buf, 0)
	for _, v := range vals {
		off += uint32(len(v))
		buf = le.AppendUint32(buf, off)
	}
	for _, v := range vals {
		buf = append(buf, v...)
	}
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err = fh.Write(buf); err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *arrayStore) open(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	le := binary.LittleEndian
	if len(data) < 16 {
		return errors.New("array: short file")
	}
	n, kl := le.Uint64(data), le.Uint64(data[8:])
	if (kl != 8 && kl != 16) || uint64(len(data)) < 16+n*(kl+4)+4 {
		return errors.New("array: bad header")
	}
	keys, o := data[16:16+n*kl], 16+n*kl
	s.voff = make([]uint32, n+1)
	for i := range s.voff {
		s.voff[i] = le.Uint32(data[o+4*uint64(i):])
	}
	s.vals = data[o+4*(n+1):]
	if uint64(len(s.vals)) != uint64(s.voff[n]) {
		return errors.New("array: bad file size")
	}
	s.ints, s.strs = nil, nil
	if kl == 8 {
		s.ints = make([]int64, n)
		for i := range s.ints {
			s.ints[i] = decodeKey(keys[8*i:])
		}
	} else {
		s.strs = make([]string, n)
		for i := range s.strs {
			s.strs[i] = string(keys[kl*uint64(i) : kl*uint64(i+1)])
		}
	}
	return nil
}

func (s *arrayStore) close() { s.ints, s.strs, s.voff, s.vals = nil, nil, nil, nil }

// lowerBound is the first row whose key is >= key; found says it is key.
func (s *arrayStore) lowerBound(key []byte) (int, bool) {
	if s.strs != nil {
		return slices.BinarySearch(s.strs, string(key))
	}
	k := decodeKey(key)
	keys := s.ints
	i := sort.Search(len(keys), func(i int) bool { return keys[i] >= k })
	return i, i < len(keys) && keys[i] == k
}

func (s *arrayStore) value(i int) []byte { return s.vals[s.voff[i]:s.voff[i+1]:s.voff[i+1]] }

func (s *arrayStore) get(key []byte) ([]byte, bool) {
	i, ok := s.lowerBound(key)
	if !ok {
		return nil, false
	}
	return s.value(i), true
}

func (*arrayStore) getMany(keys, vals [][]byte) (int, bool) { return 0, false }

func (s *arrayStore) scan(lo, hi []byte) (int, uint64) {
	i, _ := s.lowerBound(lo)
	end, found := s.lowerBound(hi)
	if found {
		end++
	}
	rows, sum := 0, uint64(0)
	for ; i < end; i++ {
		v := s.value(i)
		sum += uint64(len(v)) + uint64(v[len(v)-1])
		rows++
	}
	return rows, sum
}

func (s *arrayStore) count(lo, hi []byte) int {
	a, _ := s.lowerBound(lo)
	b, found := s.lowerBound(hi)
	if found {
		b++
	}
	return max(0, b-a)
}
