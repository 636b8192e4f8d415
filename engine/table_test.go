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

func TestValueSizes(t *testing.T) {
	for _, ps := range []int{512, 4096, 65536} {
		sizes := []int{0, 1, 65535, 65536, 65537, ps/4 - 1, ps / 4, ps/4 + 1, ps - 100, ps, 3*ps + 7, 1 << 20}
		db := build(t, ps, func(b *Builder) {
			tb, _ := b.Table("v", nil)
			for i, s := range sizes {
				v := bytes.Repeat([]byte{byte(i + 1)}, s)
				if err := tb.Append([]byte(fmt.Sprintf("k%02d", i)), v); err != nil {
					t.Fatal(err)
				}
			}
		})
		tbl, _ := db.Table("v")
		for i, s := range sizes {
			v, err := tbl.Get([]byte(fmt.Sprintf("k%02d", i)))
			if err != nil || len(v) != s || (s > 0 && v[s-1] != byte(i+1)) {
				t.Fatalf("ps %d: value %d of %d bytes: got %d, %v", ps, i, s, len(v), err)
			}
		}
	}
}

func TestEmptyThings(t *testing.T) {
	db := build(t, 4096, func(b *Builder) {
		b.Table("empty", nil)
		tb, _ := b.Table("e", nil)
		tb.Append([]byte{}, []byte{})
		tb.Append([]byte{0}, []byte("zero"))
	})
	e, _ := db.Table("empty")
	if e.Len() != 0 {
		t.Fatal("empty table has rows")
	}
	if _, err := e.Get(nil); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	c := e.NewCursor(All, All)
	if c.First() || c.Last() || c.Err() != nil {
		t.Fatal("cursor on empty table")
	}
	tbl, _ := db.Table("e")
	if v, err := tbl.Get(nil); err != nil || len(v) != 0 {
		t.Fatalf("empty key: %v %v", v, err)
	}
	// An empty key as a bound is the smallest key, not "unbounded".
	if n, _ := tbl.Count(Excl(nil), All); n != 1 {
		t.Fatalf("count after empty key = %d", n)
	}
	if n, _ := tbl.Count(All, Incl(nil)); n != 1 {
		t.Fatalf("count up to empty key = %d", n)
	}
	if _, err := db.Table("nope"); !errors.Is(err, ErrNoTable) {
		t.Fatal(err)
	}
}

func TestZeroAllocs(t *testing.T) {
	db := build(t, 4096, func(b *Builder) {
		tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
		for i := int64(0); i < 10000; i++ {
			tb.Append(int64Key(i), []byte("value-0000000"))
		}
	})
	tbl, _ := db.Table("t")
	k := int64Key(1234)
	lo, hi := Incl(int64Key(2000)), Incl(int64Key(2099))
	c := tbl.NewCursor(lo, hi)
	for name, fn := range map[string]func(){
		"Get":   func() { tbl.Get(k) },
		"Count": func() { tbl.Count(lo, hi) },
		"At":    func() { tbl.At(5000) },
		"Cursor": func() {
			for ok := c.First(); ok; ok = c.Next() {
				c.Value()
			}
		},
	} {
		if a := testing.AllocsPerRun(100, fn); a != 0 {
			t.Errorf("%s allocates %.1f times per call", name, a)
		}
	}
}

func TestGetMany(t *testing.T) {
	for _, comp := range []Compression{{}, {Kind: CompressS2}} {
		db := build(t, 512, func(b *Builder) {
			tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
			for i := int64(0); i < 3000; i += 2 {
				tb.Append(int64Key(i), []byte(fmt.Sprint(i)))
			}
		})
		tbl, _ := db.Table("t")
		r := rand.New(rand.NewSource(9))
		keys := make([][]byte, 500)
		for i := range keys {
			keys[i] = int64Key(int64(r.Intn(3100) - 50))
		}
		for _, sorted := range []bool{false, true} {
			if sorted {
				sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
			}
			vals, found := make([][]byte, len(keys)), make([]bool, len(keys))
			if err := tbl.GetMany(keys, vals, found); err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				want, err := tbl.Get(k)
				if found[i] != (err == nil) || !bytes.Equal(vals[i], want) {
					t.Fatalf("GetMany[%d] = %q %v, Get = %q %v", i, vals[i], found[i], want, err)
				}
			}
		}
		if err := tbl.GetMany(keys, nil, nil); !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
	}
}
