package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
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

type drydbStore struct {
	db    *engine.DB
	t     *engine.Table
	found []bool
	bval  [][]byte // NextBatch buffer, reused
}

func (*drydbStore) name() string { return "drydb" }
func (*drydbStore) config() string {
	return "engine package: Int64 table, uncompressed, 4 KiB pages; Open maps the file; zero-copy Table.Get; " +
		"GetMany 256 keys per call; scans: NewCursor(Incl, Incl), NextBatch of values only (keys nil), 128 rows per call; Table.Count"
}
func (*drydbStore) version() string {
	return fmt.Sprintf("engine @ %s, %s", drydbRev, runtime.Version())
}

func (*drydbStore) build(path string, keys, vals [][]byte) error {
	b, err := engine.NewBuilder(nil)
	if err != nil {
		return err
	}
	defer b.Close()
	t, err := b.Table("bench", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
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

func (s *drydbStore) close() { s.db.Close(); s.db, s.t = nil, nil }

func (s *drydbStore) get(k []byte) ([]byte, bool) {
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

func (*boltStore) build(path string, keys, vals [][]byte) error {
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

// arrayStore is the floor: a sorted []int64 in memory and sort.Search, like
// bench/c/store_array.c. File: uint64 n, n int64 keys, n 13-byte values
// (little-endian); open reads it whole.
type arrayStore struct {
	keys []int64
	vals []byte
}

func (*arrayStore) name() string { return "array" }
func (*arrayStore) config() string {
	return "sorted []int64 in RAM + fixed 13-byte values, sort.Search (the floor); open reads the whole file"
}
func (*arrayStore) version() string { return "Go " + runtime.Version() + ", sort.Search" }

func (*arrayStore) build(path string, keys, vals [][]byte) error {
	buf := make([]byte, 0, 8+len(keys)*(8+vlen))
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(keys)))
	for _, k := range keys {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(decodeKey(k)))
	}
	for _, v := range vals {
		if len(v) != vlen {
			return errors.New("array: values must be 13 bytes")
		}
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
	if len(data) < 8 {
		return errors.New("array: short file")
	}
	n := binary.LittleEndian.Uint64(data)
	if uint64(len(data)) != 8+n*(8+vlen) {
		return errors.New("array: bad file size")
	}
	keys := make([]int64, n)
	for i := range keys {
		keys[i] = int64(binary.LittleEndian.Uint64(data[8+8*i:]))
	}
	s.keys, s.vals = keys, data[8+8*n:]
	return nil
}

func (s *arrayStore) close() { s.keys, s.vals = nil, nil }

func (s *arrayStore) lowerBound(k int64) int {
	keys := s.keys
	return sort.Search(len(keys), func(i int) bool { return keys[i] >= k })
}

func (s *arrayStore) get(key []byte) ([]byte, bool) {
	k := decodeKey(key)
	i := s.lowerBound(k)
	if i == len(s.keys) || s.keys[i] != k {
		return nil, false
	}
	return s.vals[i*vlen : i*vlen+vlen : i*vlen+vlen], true
}

func (*arrayStore) getMany(keys, vals [][]byte) (int, bool) { return 0, false }

func (s *arrayStore) scan(lo, hi []byte) (int, uint64) {
	l, u := decodeKey(lo), decodeKey(hi)
	rows, sum := 0, uint64(0)
	for i := s.lowerBound(l); i < len(s.keys) && s.keys[i] <= u; i++ {
		sum += vlen + uint64(s.vals[i*vlen+vlen-1])
		rows++
	}
	return rows, sum
}

func (s *arrayStore) count(lo, hi []byte) int {
	l, u := decodeKey(lo), decodeKey(hi)
	if u < l {
		return 0
	}
	end := len(s.keys)
	if u != math.MaxInt64 {
		end = s.lowerBound(u + 1)
	}
	return end - s.lowerBound(l)
}
