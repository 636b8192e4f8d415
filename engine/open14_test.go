package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/drydb/drydb/engine/drydb14"
	"github.com/drydb/drydb/internal/fixture14"
)

type row14 struct{ k, v []byte }

func native14(t *testing.T, enc string, k []byte) []byte {
	e, err := drydb14.EncodingOf(enc)
	if err != nil {
		t.Fatal(err)
	}
	return e.AppendNative(nil, k)
}

// TestOpen14Fixtures opens every DryDB 1.4 fixture through Open and OpenBytes and checks every
// read against its .expected.json: scans both ways, Get and GetMany of every key, counts and
// cursors over ranges with every bound kind, every index entry (index key, primary key, value),
// index Get/Count per key (where DryDB's C# reader is wrong on non-unique indexes), and Verify.
func TestOpen14Fixtures(t *testing.T) {
	paths, err := fixture14.Paths()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			exp, err := fixture14.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			db, err := Open(path, &Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if src := db.Info().Metadata[Source14]; !bytes.HasPrefix(src, []byte("DryDB 1.4")) {
				t.Errorf("metadata %s = %q", Source14, src)
			}
			if len(db.OwnImage()) == 0 {
				t.Error("no image of its own")
			}
			var names []string
			for _, et := range exp.Tables {
				names = append(names, et.Name)
			}
			if !slices.Equal(db.Tables(), names) {
				t.Fatalf("tables %v, want %v", db.Tables(), names)
			}
			for _, et := range exp.Tables {
				tb, err := db.Table(et.Name)
				if err != nil {
					t.Fatal(err)
				}
				rows := make([]row14, len(et.Rows))
				for i, r := range et.Rows {
					rows[i] = row14{native14(t, et.Primary.Encoding, r[0]), r[1]}
				}
				checkTable14(t, tb, rows)
				for _, ex := range et.Indexes {
					checkIndex14(t, tb, &ex, et.Primary.Encoding)
				}
			}
			if err := db.Verify(); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			db2, err := OpenBytes(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if db2.Tables()[0] != names[0] {
				t.Errorf("OpenBytes: tables %v", db2.Tables())
			}
			db2.Close()
		})
	}
}

func checkTable14(t *testing.T, tb *Table, rows []row14) {
	t.Helper()
	if tb.Len() != uint64(len(rows)) {
		t.Fatalf("table %q: %d rows, want %d", tb.Name(), tb.Len(), len(rows))
	}
	// The whole table forwards and backwards.
	c := tb.NewCursor(Bound{}, Bound{})
	i := 0
	for ok := c.First(); ok; ok = c.Next() {
		if i >= len(rows) || !bytes.Equal(c.Key(), rows[i].k) || !bytes.Equal(c.Value(), rows[i].v) {
			t.Fatalf("table %q scan row %d: %x", tb.Name(), i, c.Key())
		}
		i++
	}
	for ok := c.Last(); ok; ok = c.Prev() {
		i--
		if !bytes.Equal(c.Key(), rows[i].k) {
			t.Fatalf("table %q reverse scan row %d: %x", tb.Name(), i, c.Key())
		}
	}
	if c.Err() != nil || i != 0 {
		t.Fatalf("table %q: %v, %d rows left", tb.Name(), c.Err(), i)
	}
	c.Close()
	keys := make([][]byte, len(rows))
	for i, r := range rows {
		keys[i] = r.k
		v, err := tb.Get(r.k)
		if err != nil || !bytes.Equal(v, r.v) {
			t.Fatalf("table %q Get(%x): %.20x, %v", tb.Name(), r.k, v, err)
		}
	}
	vals, found := make([][]byte, len(keys)), make([]bool, len(keys))
	if err := tb.GetMany(keys, vals, found); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if !found[i] || !bytes.Equal(vals[i], rows[i].v) {
			t.Fatalf("table %q GetMany row %d", tb.Name(), i)
		}
	}
	if len(rows) == 0 {
		return
	}
	// Ranges between sampled rows with every pair of bound kinds, in both directions.
	step := max(1, len(rows)/7)
	for a := 0; a < len(rows); a += step {
		for b := a; b < len(rows); b += step {
			for _, lk := range []BoundKind{Inclusive, Exclusive, Unbounded} {
				for _, hk := range []BoundKind{Inclusive, Exclusive, Unbounded} {
					lo, hi := Bound{Kind: lk, Key: rows[a].k}, Bound{Kind: hk, Key: rows[b].k}
					from, to := a, b+1
					if lk == Exclusive {
						from++
					} else if lk == Unbounded {
						from = 0
					}
					if hk == Exclusive {
						to--
					} else if hk == Unbounded {
						to = len(rows)
					}
					want := max(0, to-from)
					n, err := tb.Count(lo, hi)
					if err != nil || n != uint64(want) {
						t.Fatalf("table %q Count(%v, %v) = %d, %v, want %d", tb.Name(), lo, hi, n, err, want)
					}
					c := tb.NewCursor(lo, hi)
					got := 0
					for ok := c.Last(); ok; ok = c.Prev() {
						if !bytes.Equal(c.Key(), rows[to-1-got].k) {
							t.Fatalf("table %q range (%v, %v) backwards row %d", tb.Name(), lo, hi, got)
						}
						got++
					}
					c.Close()
					if got != want {
						t.Fatalf("table %q range (%v, %v): %d rows, want %d", tb.Name(), lo, hi, got, want)
					}
				}
			}
		}
	}
}

func checkIndex14(t *testing.T, tb *Table, ex *fixture14.Index, pkEnc string) {
	t.Helper()
	ix, err := tb.Index(ex.Name)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Unique() != ex.IsUnique || ix.Len() != uint64(ex.Count) {
		t.Fatalf("index %q: unique %v, %d entries", ex.Name, ix.Unique(), ix.Len())
	}
	c := ix.NewCursor(Bound{}, Bound{})
	defer c.Close()
	perKey := map[string]int{}
	first := map[string]fixture14.Entry{}
	i := 0
	for ok := c.First(); ok; ok = c.Next() {
		e, err := ex.Entry(i)
		if err != nil {
			t.Fatal(err)
		}
		k := native14(t, ex.Encoding, e.Key)
		if !bytes.Equal(c.IndexKey(), k) || !bytes.Equal(c.PrimaryKey(), native14(t, pkEnc, e.PK)) || !bytes.Equal(c.Value(), e.Value) {
			t.Fatalf("index %q entry %d: %x pk %x, want %x pk %x", ex.Name, i, c.IndexKey(), c.PrimaryKey(), k, e.PK)
		}
		if perKey[string(k)] == 0 {
			first[string(k)] = e
		}
		perKey[string(k)]++
		i++
	}
	if c.Err() != nil || i != ex.Count {
		t.Fatalf("index %q: %d entries, %v", ex.Name, i, c.Err())
	}
	below := 0 // entries with a smaller index key
	for k, e := range first {
		n := perKey[k]
		if got, err := ix.Count(Incl([]byte(k)), Incl([]byte(k))); err != nil || got != uint64(n) {
			t.Fatalf("index %q Count(%x) = %d, %v, want %d", ex.Name, k, got, err, n)
		}
		below = 0
		for k2, n2 := range perKey {
			if k2 < k {
				below += n2
			}
		}
		if got, _ := ix.Count(Excl([]byte(k)), Bound{}); got != uint64(ex.Count-below-n) {
			t.Fatalf("index %q Count(>%x) = %d, want %d", ex.Name, k, got, ex.Count-below-n)
		}
		if got, _ := ix.Count(Bound{}, Excl([]byte(k))); got != uint64(below) {
			t.Fatalf("index %q Count(<%x) = %d, want %d", ex.Name, k, got, below)
		}
		pk, v, err := ix.Get([]byte(k))
		if err != nil || !bytes.Equal(v, e.Value) || !bytes.Equal(pk, native14(t, pkEnc, e.PK)) {
			t.Fatalf("index %q Get(%x) = %x %.20x %v", ex.Name, k, pk, v, err)
		}
	}
}

// TestOpen14Errors: other DryDB versions and damaged headers give classified errors.
func TestOpen14Errors(t *testing.T) {
	paths, err := fixture14.Paths()
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want error
	}{
		{"version 1.3", func(b []byte) []byte { b[5] = 3; return b }, ErrVersion},
		{"version 2.4", func(b []byte) []byte { b[4] = 2; return b }, ErrVersion},
		{"magic only", func(b []byte) []byte { return b[:4] }, ErrCorrupt},
		{"truncated", func(b []byte) []byte { return b[:len(b)-1] }, ErrCorrupt},
		{"appended byte", func(b []byte) []byte { return append(b, 0) }, ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OpenBytes(tc.edit(slices.Clone(good)), nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// BenchmarkOpen14: the cost of opening (translating) a DryDB 1.4 file, per fixture.
//
//	go test -run X -bench Open14 ./engine
func BenchmarkOpen14(b *testing.B) {
	paths, err := fixture14.Paths()
	if err != nil {
		b.Fatal(err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				db, err := OpenBytes(data, nil)
				if err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
		})
	}
}
