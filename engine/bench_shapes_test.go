package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// Benchmarks on variable-length key shapes (the slotted page layout), each
// beside its floor: a binary search over the same keys held sorted in a
// []string in memory ("strings", as bench/go's floor; issue 16's target for
// the Go API is a string get at most 1.5x its time), run in the same binary.
//
//	hex16:  16 hex digits of a 64-bit hash (keys spread evenly)
//	user16: "user:" + 11 digits (long shared prefixes, differing tails)
//	uuid7:  UUIDv7 (48-bit millisecond clock, random tail: shared leading bytes)
//
// Values are 13-36 bytes. go test -run '^$' -bench 'GetShape' ./engine
var keyShapes = []struct {
	name string
	enc  keyenc.Kind
	key  func(r *rand.Rand, i int) []byte
}{
	{"hex16", keyenc.String, func(r *rand.Rand, i int) []byte {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], r.Uint64())
		return []byte(hex.EncodeToString(b[:]))
	}},
	{"user16", keyenc.String, func(r *rand.Rand, i int) []byte { return []byte(fmt.Sprintf("user:%011d", i*7)) }},
	{"uuid7", keyenc.UUID, func(r *rand.Rand, i int) []byte {
		var u [16]byte
		ms := uint64(1_700_000_000_000 + i/4) // ~4 ids per millisecond
		binary.BigEndian.PutUint64(u[:8], ms<<16|0x7000|uint64(r.Intn(1<<12)))
		binary.BigEndian.PutUint64(u[8:], 0x8000_0000_0000_0000|r.Uint64()>>2)
		return u[:]
	}},
}

// shapeKeys returns n distinct sorted keys of a shape.
func shapeKeys(shape int, n int) [][]byte {
	r := rand.New(rand.NewSource(int64(shape) + 7))
	seen := map[string]bool{}
	ks := make([][]byte, 0, n)
	for i := 0; len(ks) < n; i++ {
		k := keyShapes[shape].key(r, i)
		if !seen[string(k)] {
			seen[string(k)] = true
			ks = append(ks, k)
		}
	}
	sort.Slice(ks, func(i, j int) bool { return bytes.Compare(ks[i], ks[j]) < 0 })
	return ks
}

// shapeFiles caches a built table per shape and size across -count runs:
// building the 1M-row tables takes longer than timing them.
var shapeFiles sync.Map

type shapeFile struct {
	ks   [][]byte
	path string
}

// shapeTable returns the sorted keys of shape si at n rows and a file
// holding them in table "t" with values of 13-36 bytes.
func shapeTable(b *testing.B, si, n int) shapeFile {
	id := fmt.Sprint(si, "/", n)
	if sf, ok := shapeFiles.Load(id); ok {
		return sf.(shapeFile)
	}
	ks := shapeKeys(si, n)
	dir, err := os.MkdirTemp("", "drydb-bench")
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "shape.drydb")
	bl, _ := NewBuilder(nil)
	tb, _ := bl.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyShapes[si].enc}})
	r := rand.New(rand.NewSource(1))
	for _, k := range ks {
		if err := tb.Append(k, make([]byte, 13+r.Intn(24))); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := bl.BuildToFile(path); err != nil {
		b.Fatal(err)
	}
	sf := shapeFile{ks, path}
	shapeFiles.Store(id, sf)
	return sf
}

func BenchmarkGetShape(b *testing.B) {
	for si, sh := range keyShapes {
		b.Run(sh.name, func(b *testing.B) {
			for _, n := range shapes {
				b.Run(fmt.Sprint(n), func(b *testing.B) { benchShape(b, si, n) })
			}
		})
	}
}

func benchShape(b *testing.B, si, n int) {
	sf := shapeTable(b, si, n)
	ks := sf.ks
	db, err := Open(sf.path, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	t, _ := db.Table("t")
	stream := make([][]byte, 1<<20)
	seed := uint32(42)
	for i := range stream {
		seed = seed*1664525 + 1013904223
		stream[i] = ks[seed%uint32(n)]
	}
	strs := make([]string, n)
	for i, k := range ks {
		strs[i] = string(k)
	}
	sstream := make([]string, len(stream))
	for i, k := range stream {
		sstream[i] = string(k)
	}
	for _, w := range []struct {
		name  string
		keys  [][]byte
		skeys []string
	}{{"random", stream[:1024], sstream[:1024]}, {"stream", stream, sstream}} {
		b.Run(w.name+"/drydb", func(b *testing.B) {
			b.ReportAllocs()
			defer cpuTime(b)()
			for i := 0; i < b.N; i++ {
				if _, err := t.Get(w.keys[i%len(w.keys)]); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(w.name+"/strings", func(b *testing.B) {
			defer cpuTime(b)()
			for i := 0; i < b.N; i++ {
				k := w.skeys[i%len(w.skeys)]
				lo, hi := 0, len(strs)
				for lo < hi {
					m := int(uint(lo+hi) >> 1)
					if strs[m] < k {
						lo = m + 1
					} else {
						hi = m
					}
				}
				if strs[lo] != k {
					b.Fatal(lo)
				}
			}
		})
	}
}
