package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// model is the reference a table is checked against: a sorted slice.
type model struct {
	keys [][]byte
	vals [][]byte
}

func (m *model) lower(k []byte) int {
	return sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], k) >= 0 })
}

// rows returns the model's rows [a, b) between two bounds.
func (m *model) rows(lo, hi Bound) (int, int) {
	a, b := 0, len(m.keys)
	switch lo.Kind {
	case Inclusive:
		a = m.lower(lo.Key)
	case Exclusive:
		a = sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], lo.Key) > 0 })
	}
	switch hi.Kind {
	case Inclusive:
		b = sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], hi.Key) > 0 })
	case Exclusive:
		b = m.lower(hi.Key)
	}
	if b < a {
		b = a
	}
	return a, b
}

func randKey(r *rand.Rand, maxLen int) []byte {
	n := r.Intn(maxLen + 1)
	if r.Intn(4) == 0 {
		n = r.Intn(min(maxLen, 12) + 1)
	}
	k := make([]byte, n)
	for i := range k {
		switch r.Intn(4) {
		case 0:
			k[i] = 0
		case 1:
			k[i] = 0xFF
		default:
			k[i] = byte(r.Intn(256))
		}
	}
	return k
}

func randModel(r *rand.Rand, rows, maxKey, maxVal int) *model {
	seen := map[string]bool{}
	m := &model{}
	for len(m.keys) < rows {
		k := randKey(r, maxKey)
		if seen[string(k)] {
			continue
		}
		seen[string(k)] = true
		vl := r.Intn(maxVal + 1)
		if r.Intn(3) > 0 {
			vl = r.Intn(min(maxVal, 40) + 1)
		}
		v := make([]byte, vl)
		r.Read(v)
		m.keys = append(m.keys, k)
		m.vals = append(m.vals, v)
	}
	// shuffle the pairs so the builder sorts
	r.Shuffle(len(m.keys), func(i, j int) {
		m.keys[i], m.keys[j] = m.keys[j], m.keys[i]
		m.vals[i], m.vals[j] = m.vals[j], m.vals[i]
	})
	return m
}

func (m *model) sort() {
	idx := make([]int, len(m.keys))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return bytes.Compare(m.keys[idx[a]], m.keys[idx[b]]) < 0 })
	k2, v2 := make([][]byte, len(idx)), make([][]byte, len(idx))
	for i, j := range idx {
		k2[i], v2[i] = m.keys[j], m.vals[j]
	}
	m.keys, m.vals = k2, v2
}

func buildModel(t testing.TB, m *model, opts *BuilderOptions, topts *TableOptions) *DB {
	t.Helper()
	b, err := NewBuilder(opts)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.Table("t", topts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.keys {
		if err := tb.Append(m.keys[i], m.vals[i]); err != nil {
			t.Fatal(err)
		}
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenBytes(data, &Options{Verify: true, CacheBytes: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	m.sort()
	return db
}

// randBound picks a bound near or on model keys, or between them.
func randBound(r *rand.Rand, m *model) Bound {
	kind := BoundKind(r.Intn(3))
	var k []byte
	switch {
	case len(m.keys) > 0 && r.Intn(2) == 0:
		k = m.keys[r.Intn(len(m.keys))]
	case len(m.keys) > 0 && r.Intn(2) == 0:
		k = append(append([]byte(nil), m.keys[r.Intn(len(m.keys))]...), 0)
	default:
		k = randKey(r, 8)
	}
	return Bound{Kind: kind, Key: k}
}

func checkTable(t *testing.T, r *rand.Rand, tbl *Table, m *model) {
	t.Helper()
	if tbl.Len() != uint64(len(m.keys)) {
		t.Fatalf("Len = %d, want %d", tbl.Len(), len(m.keys))
	}
	for i, k := range m.keys {
		v, err := tbl.Get(k)
		if err != nil || !bytes.Equal(v, m.vals[i]) {
			t.Fatalf("Get(%x) = %x, %v; want %x", k, v, err, m.vals[i])
		}
		if i%7 == 0 {
			rk, err := tbl.Rank(k)
			if err != nil || rk != uint64(i) {
				t.Fatalf("Rank(%x) = %d, %v; want %d", k, rk, err, i)
			}
			ak, av, err := tbl.At(uint64(i))
			if err != nil || !bytes.Equal(ak, k) || !bytes.Equal(av, m.vals[i]) {
				t.Fatalf("At(%d) = %x, %v", i, ak, err)
			}
		}
	}
	for i := 0; i < 50; i++ {
		k := randKey(r, 10)
		j := m.lower(k)
		present := j < len(m.keys) && bytes.Equal(m.keys[j], k)
		_, err := tbl.Get(k)
		if present != (err == nil) || (!present && !errors.Is(err, ErrNotFound)) {
			t.Fatalf("Get(%x): err %v, present %v", k, err, present)
		}
	}
	if _, _, err := tbl.At(uint64(len(m.keys))); !errors.Is(err, ErrNotFound) {
		t.Fatalf("At(len) = %v", err)
	}
	for i := 0; i < 60; i++ {
		lo, hi := randBound(r, m), randBound(r, m)
		if i == 0 {
			lo, hi = All, All
		}
		a, b := m.rows(lo, hi)
		n, err := tbl.Count(lo, hi)
		if err != nil || n != uint64(b-a) {
			t.Fatalf("Count(%v, %v) = %d, %v; want %d", lo, hi, n, err, b-a)
		}
		c := tbl.NewCursor(lo, hi)
		j := a
		for ok := c.First(); ok; ok = c.Next() {
			if j >= b || !bytes.Equal(c.Key(), m.keys[j]) || !bytes.Equal(c.Value(), m.vals[j]) {
				t.Fatalf("forward scan %v..%v row %d: got %x", lo, hi, j, c.Key())
			}
			j++
		}
		if c.Err() != nil || j != b {
			t.Fatalf("forward scan %v..%v ended at %d, want %d (%v)", lo, hi, j, b, c.Err())
		}
		j = b - 1
		for ok := c.Last(); ok; ok = c.Prev() {
			if j < a || !bytes.Equal(c.Key(), m.keys[j]) {
				t.Fatalf("reverse scan row %d: got %x", j, c.Key())
			}
			j--
		}
		if j != a-1 {
			t.Fatalf("reverse scan ended at %d, want %d", j, a-1)
		}
		// Batches of random sizes, both directions, with keys and values or
		// values only (keys nil), must give the same rows.
		for mode := 0; mode < 4; mode++ {
			reverse, valuesOnly := mode&1 != 0, mode&2 != 0
			bs := 1 + r.Intn(7)
			keys, vals := make([][]byte, bs), make([][]byte, bs)
			if valuesOnly {
				keys = nil
			}
			var ok bool
			j, step := a, 1
			if reverse {
				ok, j, step = c.Last(), b-1, -1
			} else {
				ok = c.First()
			}
			for ok {
				n := c.NextBatch(keys, vals, reverse)
				if n == 0 {
					t.Fatalf("empty batch on a valid cursor")
				}
				for x := 0; x < n; x++ {
					if j < a || j >= b || !valuesOnly && !bytes.Equal(keys[x], m.keys[j]) || !bytes.Equal(vals[x], m.vals[j]) {
						t.Fatalf("batch (reverse %v, values only %v, size %d) row %d: got %x", reverse, valuesOnly, bs, j, vals[x])
					}
					j += step
				}
				if !bytes.Equal(c.Key(), m.keys[j-step]) {
					t.Fatalf("cursor not left on the last row read")
				}
				if reverse {
					ok = c.Prev()
				} else {
					ok = c.Next()
				}
			}
			if c.Err() != nil || (!reverse && j != b) || (reverse && j != a-1) {
				t.Fatalf("batch walk %v..%v reverse %v ended at %d (%v)", lo, hi, reverse, j, c.Err())
			}
		}
		// Seek inside the range
		sk := randBound(r, m).Key
		want := max(m.lower(sk), a)
		if ok := c.Seek(sk); ok != (want < b) || ok && !bytes.Equal(c.Key(), m.keys[want]) {
			t.Fatalf("Seek(%x) in %v..%v = %v, want row %d", sk, lo, hi, ok, want)
		}
		// SeekReverse: last key <= sk
		up := sort.Search(len(m.keys), func(i int) bool { return bytes.Compare(m.keys[i], sk) > 0 })
		wantR := min(up, b) - 1
		if ok := c.SeekReverse(sk); ok != (wantR >= a) || ok && !bytes.Equal(c.Key(), m.keys[wantR]) {
			t.Fatalf("SeekReverse(%x) = %v, want row %d", sk, ok, wantR)
		}
		c.Close()
	}
	// prefixes, including the empty one and ones of 0xFF bytes
	for _, p := range [][]byte{nil, {0}, {0xFF}, {0xFF, 0xFF}, randKey(r, 2)} {
		lo, hi := PrefixBounds(p)
		var want int
		for _, k := range m.keys {
			if bytes.HasPrefix(k, p) {
				want++
			}
		}
		if n, err := tbl.Count(lo, hi); err != nil || n != uint64(want) {
			t.Fatalf("prefix %x count %d, want %d", p, n, want)
		}
	}
}

func TestModel(t *testing.T) {
	pageSizes := []int{512, 1024, 4096, 16384, 65536}
	comps := []Compression{{}, {Kind: CompressZstd}, {Kind: CompressS2}, {Kind: CompressZstd, Dictionary: true}}
	r := rand.New(rand.NewSource(1))
	for _, ps := range pageSizes {
		for ci, comp := range comps {
			for _, rows := range []int{0, 1, 2, 50, 3000} {
				name := fmt.Sprintf("ps%d/%s%d/rows%d", ps, comp.Kind, ci, rows)
				t.Run(name, func(t *testing.T) {
					maxKey := min(MaxKeySize(ps), 40)
					if rows < 100 {
						maxKey = MaxKeySize(ps)
					}
					m := randModel(r, rows, maxKey, ps)
					db := buildModel(t, m, &BuilderOptions{PageSize: ps}, &TableOptions{Compression: comp})
					defer db.Close()
					tbl, err := db.Table("t")
					if err != nil {
						t.Fatal(err)
					}
					checkTable(t, r, tbl, m)
				})
			}
		}
	}
}

// The same checks on int64 tables, whose pages use the key-array layout.
func TestModelInt64(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for _, ps := range []int{512, 4096, 65536} {
		for ci, comp := range []Compression{{}, {Kind: CompressZstd, Dictionary: true}, {Kind: CompressS2}} {
			for _, rows := range []int{0, 1, 3, 5000} {
				t.Run(fmt.Sprintf("ps%d/c%d/rows%d", ps, ci, rows), func(t *testing.T) {
					m := &model{}
					seen := map[int64]bool{}
					for len(m.keys) < rows {
						v := r.Int63n(40000) - 20000
						if rows < 10 {
							v = []int64{-1 << 63, 1<<63 - 1, 0, -1, 1}[len(m.keys)%5]
						}
						if seen[v] {
							continue
						}
						seen[v] = true
						val := make([]byte, r.Intn(30))
						if r.Intn(50) == 0 {
							val = make([]byte, ps) // overflow
						}
						r.Read(val)
						m.keys = append(m.keys, int64Key(v))
						m.vals = append(m.vals, val)
					}
					db := buildModel(t, m, &BuilderOptions{PageSize: ps}, &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
					defer db.Close()
					tbl, _ := db.Table("t")
					checkTable(t, r, tbl, m)
				})
			}
		}
	}
}
