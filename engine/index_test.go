package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"sort"
	"testing"
)

// Index model: non-unique index with many duplicates spanning pages.
func TestIndexModel(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	type ent struct{ ik, pk []byte }
	var ents []ent
	rows := map[string][]byte{}
	for _, ps := range []int{512, 4096} {
		for _, comp := range []Compression{{}, {Kind: CompressS2}} {
			ents = ents[:0]
			clear(rows)
			db := build(t, ps, func(b *Builder) {
				tb, _ := b.Table("t", &TableOptions{Compression: comp})
				byCat, _ := tb.AddIndex("cat", &IndexOptions{Func: func(k, v []byte, emit func([]byte)) {
					emit(v[:1])
					if len(v) > 1 && v[1] == 'x' {
						emit(v[:2]) // a second entry for some rows
					}
				}})
				_ = byCat
				ex, _ := tb.AddIndex("explicit", &IndexOptions{})
				for i := 0; i < 3000; i++ {
					k := []byte(fmt.Sprintf("row%05d", i))
					v := []byte{byte('a' + r.Intn(3)), "xy"[r.Intn(2)], byte(i)}
					rows[string(k)] = v
					tb.Append(k, v)
					ik := []byte{byte(r.Intn(4))} // short keys, with 0x00
					if i%5 == 0 {
						ik = nil // empty index key
					}
					ex.Add(ik, k)
					ents = append(ents, ent{ik, k})
				}
			})
			tbl, _ := db.Table("t")
			ix, _ := tbl.Index("explicit")
			sort.Slice(ents, func(i, j int) bool {
				if c := bytes.Compare(ents[i].ik, ents[j].ik); c != 0 {
					return c < 0
				}
				return bytes.Compare(ents[i].pk, ents[j].pk) < 0
			})
			for q := 0; q < 200; q++ {
				mk := func() Bound {
					k := []byte{byte(r.Intn(5))}
					if r.Intn(4) == 0 {
						k = nil
					}
					return Bound{Kind: BoundKind(r.Intn(3)), Key: k}
				}
				lo, hi := mk(), mk()
				var want []ent
				for _, e := range ents {
					if lo.Kind == Inclusive && bytes.Compare(e.ik, lo.Key) < 0 || lo.Kind == Exclusive && bytes.Compare(e.ik, lo.Key) <= 0 {
						continue
					}
					if hi.Kind == Inclusive && bytes.Compare(e.ik, hi.Key) > 0 || hi.Kind == Exclusive && bytes.Compare(e.ik, hi.Key) >= 0 {
						continue
					}
					want = append(want, e)
				}
				if n, err := ix.Count(lo, hi); err != nil || n != uint64(len(want)) {
					t.Fatalf("index count %v..%v = %d, %v; want %d", lo, hi, n, err, len(want))
				}
				c := ix.NewCursor(lo, hi)
				j := 0
				for ok := c.First(); ok; ok = c.Next() {
					if j >= len(want) || !bytes.Equal(c.IndexKey(), want[j].ik) || !bytes.Equal(c.PrimaryKey(), want[j].pk) || !bytes.Equal(c.Value(), rows[string(want[j].pk)]) {
						t.Fatalf("index scan %v..%v entry %d: %x %s", lo, hi, j, c.IndexKey(), c.PrimaryKey())
					}
					j++
				}
				if j != len(want) || c.Err() != nil {
					t.Fatalf("index scan got %d, want %d (%v)", j, len(want), c.Err())
				}
				j = len(want) - 1
				for ok := c.Last(); ok; ok = c.Prev() {
					if !bytes.Equal(c.PrimaryKey(), want[j].pk) {
						t.Fatalf("reverse index scan entry %d", j)
					}
					j--
				}
				c.Close()
			}
			cat, _ := tbl.Index("cat")
			var wantA int
			for _, v := range rows {
				if v[0] == 'a' {
					wantA++
				}
			}
			if n, _ := cat.Count(Incl([]byte("a")), Incl([]byte("a"))); n != uint64(wantA) {
				t.Fatalf("cat a: %d want %d", n, wantA)
			}
			pc := cat.Prefix([]byte("a"))
			var np int
			for ok := pc.First(); ok; ok = pc.Next() {
				np++
			}
			pc.Close()
			if np < wantA {
				t.Fatalf("prefix a: %d", np)
			}
			pk, v, err := cat.Get([]byte("bx"))
			if err != nil || rows[string(pk)][0] != 'b' || !bytes.Equal(v, rows[string(pk)]) {
				t.Fatalf("index get: %s %v", pk, err)
			}
			if _, _, err := cat.Get([]byte("zz")); !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
		}
	}
}
