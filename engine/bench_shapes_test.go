package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// Benchmarks on variable-length key shapes (the slotted page layout), each
// beside its floor: a binary search over the same keys held sorted in a
// [][]byte in memory, run in the same binary.
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

func BenchmarkGetShape(b *testing.B) {
	for si, sh := range keyShapes {
		for _, n := range shapes {
			ks := shapeKeys(si, n)
			path := filepath.Join(b.TempDir(), "shape.drydb")
			bl, _ := NewBuilder(nil)
			tb, _ := bl.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: sh.enc}})
			r := rand.New(rand.NewSource(1))
			for _, k := range ks {
				if err := tb.Append(k, make([]byte, 13+r.Intn(24))); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := bl.BuildToFile(path); err != nil {
				b.Fatal(err)
			}
			db, err := Open(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			t, _ := db.Table("t")
			stream := make([][]byte, 1<<20)
			seed := uint32(42)
			for i := range stream {
				seed = seed*1664525 + 1013904223
				stream[i] = ks[seed%uint32(n)]
			}
			for _, w := range []struct {
				name string
				keys [][]byte
			}{{"random", stream[:1024]}, {"stream", stream}} {
				b.Run(fmt.Sprintf("%s/%d/%s/drydb", sh.name, n, w.name), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if _, err := t.Get(w.keys[i%len(w.keys)]); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.Run(fmt.Sprintf("%s/%d/%s/floor", sh.name, n, w.name), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						k := w.keys[i%len(w.keys)]
						lo, hi := 0, len(ks)
						for lo < hi {
							m := int(uint(lo+hi) >> 1)
							if bytes.Compare(ks[m], k) < 0 {
								lo = m + 1
							} else {
								hi = m
							}
						}
						if !bytes.Equal(ks[lo], k) {
							b.Fatal(lo)
						}
					}
				})
			}
			db.Close()
		}
	}
}
