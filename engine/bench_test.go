package engine

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/drydb/drydb/engine/keyenc"
)

// Benchmarks on the dense shape, the one the C# DryDB publishes figures for:
// int64 keys 0..N-1 (big-endian, sign bit flipped), 13-byte values, 4 KiB
// pages. bbolt and a sorted []int64 binary search (the floor) run in the
// same binary so that ratios come from one run: go test -bench . ./engine/

func benchKey(i int64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], uint64(i)^(1<<63))
	return k[:]
}

func benchVal(i int64) []byte { return []byte(fmt.Sprintf("value-%07d", i)) }

var benchFiles sync.Map

func benchDB(b *testing.B, n int, comp Compression) *DB {
	key := fmt.Sprintf("%d-%v", n, comp)
	path, ok := benchFiles.Load(key)
	if !ok {
		dir, _ := os.MkdirTemp("", "drydb-bench")
		p := filepath.Join(dir, "bench.drydb")
		bl, _ := NewBuilder(nil)
		tb, _ := bl.Table("bench", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
		for i := int64(0); i < int64(n); i++ {
			tb.Append(benchKey(i), benchVal(i))
		}
		if _, err := bl.BuildToFile(p); err != nil {
			b.Fatal(err)
		}
		benchFiles.Store(key, p)
		path = p
	}
	db, err := Open(path.(string), &Options{CacheBytes: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

func lcgKeys(n, count int) [][]byte {
	keys := make([][]byte, count)
	seed := uint32(42)
	for i := range keys {
		seed = seed*1664525 + 1013904223
		keys[i] = benchKey(int64(seed % uint32(n)))
	}
	return keys
}

var shapes = []int{10_000, 1_000_000}

func BenchmarkGetSame(b *testing.B) {
	for _, n := range shapes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			db := benchDB(b, n, Compression{})
			defer db.Close()
			t, _ := db.Table("bench")
			k := benchKey(123)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := t.Get(k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchGets(b *testing.B, n, stream int, comp Compression) {
	db := benchDB(b, n, comp)
	defer db.Close()
	t, _ := db.Table("bench")
	keys := lcgKeys(n, stream)
	b.ReportAllocs()
	defer cpuTime(b)()
	if comp.Kind == CompressNone {
		for i := 0; i < b.N; i++ {
			if _, err := t.Get(keys[i%len(keys)]); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	for i := 0; i < b.N; i++ {
		v, err := t.GetPinned(keys[i%len(keys)])
		if err != nil {
			b.Fatal(err)
		}
		v.Release()
	}
}

func BenchmarkGetRandom(b *testing.B) {
	for _, n := range shapes {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchGets(b, n, 1024, Compression{}) })
	}
}

func BenchmarkGetStream(b *testing.B) {
	for _, n := range shapes {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchGets(b, n, 1<<20, Compression{}) })
	}
}

// BenchmarkGetSkewed is GetRandom on keys that interpolation predicts
// badly (i^3: most keys crowd the start of each page), for the cost of the
// search's fallback path.
func BenchmarkGetSkewed(b *testing.B) {
	benchGetsOf(b, func(i int64) ([]byte, []byte) { return benchKey(i * i * i), benchVal(i) })
}

// BenchmarkGetSparse is GetRandom on a table the page claims do not help:
// keys spread unevenly (gaps of 1 to 2,000) and values of 8 to 24 bytes, so
// leaves are searched by interpolation and values found through slots.
func BenchmarkGetSparse(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	k := int64(0)
	benchGetsOf(b, func(int64) ([]byte, []byte) {
		k += 1 + r.Int63n(2000)
		return benchKey(k), make([]byte, 8+r.Intn(17))
	})
}

// benchGetsOf times Get of the LCG's keys on a 10,000-row int64 table whose
// row i is row(i) (called once per row, in order).
func benchGetsOf(b *testing.B, row func(i int64) (key, val []byte)) {
	const n = 10_000
	path := filepath.Join(b.TempDir(), "bench.drydb")
	bl, _ := NewBuilder(nil)
	tb, _ := bl.Table("bench", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	ks := make([][]byte, n)
	for i := range ks {
		var v []byte
		ks[i], v = row(int64(i))
		if err := tb.Append(ks[i], v); err != nil {
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
	defer db.Close()
	t, _ := db.Table("bench")
	keys := make([][]byte, 1024)
	seed := uint32(42)
	for i := range keys {
		seed = seed*1664525 + 1013904223
		keys[i] = ks[seed%n]
	}
	b.ReportAllocs()
	defer cpuTime(b)()
	for i := 0; i < b.N; i++ {
		if _, err := t.Get(keys[i%len(keys)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetCompressed(b *testing.B) {
	for _, c := range []Compression{{Kind: CompressZstd}, {Kind: CompressZstd, Dictionary: true}, {Kind: CompressS2}} {
		b.Run(fmt.Sprintf("%s-dict%v", c.Kind, c.Dictionary), func(b *testing.B) { benchGets(b, 10_000, 1024, c) })
	}
}

func BenchmarkGetParallel8(b *testing.B) {
	for _, n := range shapes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			db := benchDB(b, n, Compression{})
			defer db.Close()
			t, _ := db.Table("bench")
			b.SetParallelism(4) // 4 x GOMAXPROCS(2) = 8 goroutines
			var id int64
			var mu sync.Mutex
			b.RunParallel(func(pb *testing.PB) {
				mu.Lock()
				tid := id
				id++
				mu.Unlock()
				i := int64(0)
				for pb.Next() {
					k := benchKey((tid*1000 + i*7) % int64(n))
					if _, err := t.Get(k); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		})
	}
}

func BenchmarkRange100(b *testing.B) {
	db := benchDB(b, 10_000, Compression{})
	defer db.Close()
	t, _ := db.Table("bench")
	lo, hi := Incl(benchKey(2000)), Incl(benchKey(2099))
	b.ReportAllocs()
	defer cpuTime(b)()
	for i := 0; i < b.N; i++ {
		c := t.NewCursor(lo, hi)
		n := 0
		for ok := c.First(); ok; ok = c.Next() {
			_ = c.Value()
			n++
		}
		if n != 100 {
			b.Fatal(n)
		}
	}
}

func BenchmarkScanAll(b *testing.B) {
	db := benchDB(b, 1_000_000, Compression{})
	defer db.Close()
	t, _ := db.Table("bench")
	c := t.NewCursor(All, All)
	b.ReportAllocs()
	b.ResetTimer()
	rows := 0
	for i := 0; i < b.N; i++ {
		if !c.Next() {
			c.First()
		}
		_ = c.Value()
		rows++
	}
}

func BenchmarkCount8000(b *testing.B) {
	db := benchDB(b, 10_000, Compression{})
	defer db.Close()
	t, _ := db.Table("bench")
	lo, hi := Incl(benchKey(1000)), Incl(benchKey(8999))
	b.ReportAllocs()
	defer cpuTime(b)()
	for i := 0; i < b.N; i++ {
		if n, _ := t.Count(lo, hi); n != 8000 {
			b.Fatal(n)
		}
	}
}

func BenchmarkOpenFirstGet(b *testing.B) {
	for _, n := range shapes {
		for _, comp := range []Compression{{}, {Kind: CompressZstd}, {Kind: CompressZstd, Dictionary: true}} {
			name := fmt.Sprint(n)
			if comp.Kind != CompressNone {
				name += fmt.Sprintf("/%s-dict%v", comp.Kind, comp.Dictionary)
			}
			b.Run(name, func(b *testing.B) { benchOpenFirstGet(b, n, comp) })
		}
	}
}

func benchOpenFirstGet(b *testing.B, n int, comp Compression) {
	db := benchDB(b, n, comp)
	db.Close()
	p, _ := benchFiles.Load(fmt.Sprintf("%d-%v", n, comp))
	for i := 0; i < b.N; i++ {
		db, err := Open(p.(string), nil)
		if err != nil {
			b.Fatal(err)
		}
		t, _ := db.Table("bench")
		if _, err := t.Get(benchKey(123)); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{25_000, 1_000_000} {
		for _, shuffled := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d-shuffled%v", n, shuffled), func(b *testing.B) {
				order := make([]int64, n)
				for i := range order {
					order[i] = int64(i)
				}
				if shuffled {
					rand.New(rand.NewSource(1)).Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
				}
				keys := make([][]byte, n)
				vals := make([][]byte, n)
				for i, k := range order {
					keys[i], vals[i] = benchKey(k), benchVal(k)
				}
				dir := b.TempDir()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					bl, _ := NewBuilder(nil)
					tb, _ := bl.Table("bench", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
					for j := range keys {
						tb.Append(keys[j], vals[j])
					}
					if _, err := bl.BuildToFile(filepath.Join(dir, "b.drydb")); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// Peers measured in the same binary.

func BenchmarkFloorSortedInt64(b *testing.B) {
	for _, n := range shapes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			arr := make([]int64, n)
			for i := range arr {
				arr[i] = int64(i)
			}
			seed := uint32(42)
			ks := make([]int64, 1<<20)
			for i := range ks {
				seed = seed*1664525 + 1013904223
				ks[i] = int64(seed % uint32(n))
			}
			b.Run("random", func(b *testing.B) {
				defer cpuTime(b)()
				for i := 0; i < b.N; i++ {
					k := ks[i%1024]
					if j := sort.Search(len(arr), func(j int) bool { return arr[j] >= k }); arr[j] != k {
						b.Fatal(j)
					}
				}
			})
			b.Run("stream", func(b *testing.B) {
				defer cpuTime(b)()
				for i := 0; i < b.N; i++ {
					k := ks[i%len(ks)]
					if j := sort.Search(len(arr), func(j int) bool { return arr[j] >= k }); arr[j] != k {
						b.Fatal(j)
					}
				}
			})
		})
	}
}

func BenchmarkBolt(b *testing.B) {
	for _, n := range shapes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "bolt.db")
			bdb, err := bolt.Open(p, 0o600, &bolt.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer bdb.Close()
			bdb.Update(func(tx *bolt.Tx) error {
				bk, _ := tx.CreateBucket([]byte("bench"))
				bk.FillPercent = 1.0
				for i := int64(0); i < int64(n); i++ {
					bk.Put(benchKey(i), benchVal(i))
				}
				return nil
			})
			tx, _ := bdb.Begin(false)
			defer tx.Rollback()
			bk := tx.Bucket([]byte("bench"))
			for _, stream := range []int{1024, 1 << 20} {
				keys := lcgKeys(n, stream)
				b.Run(fmt.Sprintf("get-%d", stream), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if bk.Get(keys[i%len(keys)]) == nil {
							b.Fatal("missing")
						}
					}
				})
			}
			if n == 10_000 {
				b.Run("range100", func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						c := bk.Cursor()
						cnt := 0
						end := benchKey(2099)
						for k, _ := c.Seek(benchKey(2000)); k != nil && string(k) <= string(end); k, _ = c.Next() {
							cnt++
						}
						if cnt != 100 {
							b.Fatal(cnt)
						}
					}
				})
			}
		})
	}
}

// GetMany over batches of 256 keys from the non-repeating stream; ns per key.
func BenchmarkGetMany256(b *testing.B) {
	for _, n := range shapes {
		for _, sorted := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d-sorted%v", n, sorted), func(b *testing.B) {
				db := benchDB(b, n, Compression{})
				defer db.Close()
				t, _ := db.Table("bench")
				keys := lcgKeys(n, 1<<16)
				if sorted {
					for i := 0; i+256 <= len(keys); i += 256 {
						batch := keys[i : i+256]
						sort.Slice(batch, func(x, y int) bool { return string(batch[x]) < string(batch[y]) })
					}
				}
				vals, found := make([][]byte, 256), make([]bool, 256)
				b.ResetTimer()
				for i := 0; i < b.N; i += 256 {
					j := i % len(keys)
					if err := t.GetMany(keys[j:j+256], vals, found); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// Compressed tables read through a cache holding 1/16 of the file.
func BenchmarkGetCompressedCache16th(b *testing.B) {
	for _, c := range []Compression{{Kind: CompressZstd}, {Kind: CompressZstd, Dictionary: true}, {Kind: CompressS2}} {
		b.Run(fmt.Sprintf("%s-dict%v", c.Kind, c.Dictionary), func(b *testing.B) {
			db := benchDB(b, 1_000_000, c)
			size := db.Info().FileSize
			db.Close()
			p, _ := benchFiles.Load(fmt.Sprintf("%d-%v", 1_000_000, c))
			db, err := Open(p.(string), &Options{CacheBytes: size / 16})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			t, _ := db.Table("bench")
			keys := lcgKeys(1_000_000, 1<<16)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v, err := t.GetPinned(keys[i%len(keys)])
				if err != nil {
					b.Fatal(err)
				}
				v.Release()
			}
			b.ReportMetric(float64(size), "file-bytes")
		})
	}
}

// Secondary index lookups: a unique index on the value, and a non-unique
// one with 100 rows per index key (counting one key's rows, and walking them).
func BenchmarkIndex(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "ix.drydb")
	bl, _ := NewBuilder(nil)
	tb, _ := bl.Table("bench", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	tb.AddIndex("by_value", &IndexOptions{Unique: true, Func: func(k, v []byte, emit func([]byte)) { emit(v) }})
	tb.AddIndex("by_bucket", &IndexOptions{Func: func(k, v []byte, emit func([]byte)) { emit(v[:len(v)-2]) }})
	for i := int64(0); i < 10_000; i++ {
		tb.Append(benchKey(i), benchVal(i))
	}
	if _, err := bl.BuildToFile(path); err != nil {
		b.Fatal(err)
	}
	db, _ := Open(path, nil)
	defer db.Close()
	t, _ := db.Table("bench")
	byValue, _ := t.Index("by_value")
	byBucket, _ := t.Index("by_bucket")
	vals := make([][]byte, 1024)
	seed := uint32(42)
	for i := range vals {
		seed = seed*1664525 + 1013904223
		vals[i] = benchVal(int64(seed % 10_000))
	}
	b.Run("unique-get", func(b *testing.B) {
		defer cpuTime(b)()
		for i := 0; i < b.N; i++ {
			if _, _, err := byValue.Get(vals[i%len(vals)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("count-100", func(b *testing.B) {
		k := []byte("value-00012")
		defer cpuTime(b)()
		for i := 0; i < b.N; i++ {
			if n, _ := byBucket.Count(Incl(k), Incl(k)); n != 100 {
				b.Fatal(n)
			}
		}
	})
	b.Run("get-all-100", func(b *testing.B) {
		k := []byte("value-00012")
		defer cpuTime(b)()
		for i := 0; i < b.N; i++ {
			c := byBucket.GetAll(k)
			n := 0
			for ok := c.First(); ok; ok = c.Next() {
				c.Value()
				n++
			}
			c.Close()
			if n != 100 {
				b.Fatal(n)
			}
		}
	})
}

func BenchmarkRange100Batch(b *testing.B) {
	db := benchDB(b, 10_000, Compression{})
	defer db.Close()
	t, _ := db.Table("bench")
	lo, hi := Incl(benchKey(2000)), Incl(benchKey(2099))
	keys, vals := make([][]byte, 128), make([][]byte, 128)
	b.ReportAllocs()
	defer cpuTime(b)()
	for i := 0; i < b.N; i++ {
		c := t.NewCursor(lo, hi)
		c.First()
		if n := c.NextBatch(keys, vals, false); n != 100 {
			b.Fatal(n)
		}
	}
}

// BenchmarkRange100Values is Range100Batch reading values only (keys nil).
func BenchmarkRange100Values(b *testing.B) {
	db := benchDB(b, 10_000, Compression{})
	defer db.Close()
	t, _ := db.Table("bench")
	lo, hi := Incl(benchKey(2000)), Incl(benchKey(2099))
	vals := make([][]byte, 128)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := t.NewCursor(lo, hi)
		c.First()
		if n := c.NextBatch(nil, vals, false); n != 100 {
			b.Fatal(n)
		}
	}
}

// BenchmarkGetCompressedParallel is GetCompressed from 8 goroutines on
// GOMAXPROCS threads: hits that take a lock or share a written cache line
// show here.
func BenchmarkGetCompressedParallel(b *testing.B) {
	for _, c := range []Compression{{Kind: CompressZstd}, {Kind: CompressS2}} {
		b.Run(fmt.Sprintf("%s-dict%v", c.Kind, c.Dictionary), func(b *testing.B) {
			db := benchDB(b, 10_000, c)
			defer db.Close()
			t, _ := db.Table("bench")
			keys := lcgKeys(10_000, 1024)
			b.SetParallelism(4)
			b.ReportAllocs()
			b.ResetTimer()
			var next sync.Mutex
			phase := 0
			b.RunParallel(func(pb *testing.PB) {
				// each goroutine its own place in the stream, so that they
				// do not all hit one page at once
				next.Lock()
				i := phase * 131
				phase++
				next.Unlock()
				for pb.Next() {
					v, err := t.GetPinned(keys[i%len(keys)])
					if err != nil {
						b.Fatal(err)
					}
					v.Release()
					i++
				}
			})
		})
	}
}
