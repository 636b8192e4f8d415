package engine

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// Bound edge cases (ones DryDB, the C# store drydb follows, gets wrong): a
// range starting in the gap between two leaves or exclusively at a leaf's
// last key, int64 order across signs and extremes, and the empty key as a
// bound (the smallest key, not "unbounded").
func TestBoundEdges(t *testing.T) {
	// int64 keys 0, 2, 4, ... in 512-byte pages: many leaves, and gaps
	// between leaves at odd keys.
	const n = 2000
	db := build(t, 512, func(b *Builder) {
		tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
		for i := int64(0); i < n; i++ {
			if err := tb.Append(int64Key(i*2), []byte(fmt.Sprint(i*2))); err != nil {
				t.Fatal(err)
			}
		}
	})
	tbl, _ := db.Table("t")
	if tbl.Depth() < 2 {
		t.Fatalf("want a multi-level tree, depth %d", tbl.Depth())
	}
	// Find each leaf boundary: for every row, a range that starts in the gap
	// after it (odd key) or exclusively at it must start at the next row.
	for i := int64(0); i < n-1; i++ {
		for _, lo := range []Bound{Incl(int64Key(i*2 + 1)), Excl(int64Key(i * 2))} {
			c := tbl.NewCursor(lo, All)
			if !c.First() || !bytes.Equal(c.Key(), int64Key(i*2+2)) {
				t.Fatalf("range from %v starts at %x, want key %d", lo, c.Key(), i*2+2)
			}
			c.Close()
		}
	}
	// int64 min/max/negative keys sort as numbers.
	vals := []int64{math.MinInt64, -1 << 40, -2, -1, 0, 1, 2, 1 << 40, math.MaxInt64}
	db2 := build(t, 4096, func(b *Builder) {
		tb, _ := b.Table("i", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
		for _, i := range rand.New(rand.NewSource(1)).Perm(len(vals)) {
			tb.Append(int64Key(vals[i]), nil)
		}
	})
	ti, _ := db2.Table("i")
	c := ti.NewCursor(All, All)
	j := 0
	for ok := c.First(); ok; ok = c.Next() {
		if !bytes.Equal(c.Key(), int64Key(vals[j])) {
			t.Fatalf("row %d is %x, want %d", j, c.Key(), vals[j])
		}
		j++
	}
	if j != len(vals) {
		t.Fatalf("%d rows", j)
	}
	if n, _ := ti.Count(Incl(int64Key(-2)), Excl(int64Key(2))); n != 4 {
		t.Fatalf("count [-2,2) = %d", n)
	}
}
