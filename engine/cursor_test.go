package engine

import (
	"bytes"
	"errors"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// NextBatch needs somewhere to put rows: keys, or values alone.
func TestNextBatchArguments(t *testing.T) {
	db := build(t, 512, func(b *Builder) {
		tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
		for i := int64(0); i < 10; i++ {
			tb.Append(int64Key(i), []byte{byte(i)})
		}
	})
	tbl, _ := db.Table("t")
	c := tbl.NewCursor(All, All)
	c.First()
	if n := c.NextBatch(nil, nil, false); n != 0 || !errors.Is(c.Err(), ErrInvalid) {
		t.Fatalf("NextBatch(nil, nil) = %d, %v; want 0, ErrInvalid", n, c.Err())
	}
	c = tbl.NewCursor(All, All)
	c.First()
	vals := make([][]byte, 4)
	if n := c.NextBatch(nil, vals, false); n != 4 || vals[3][0] != 3 || !bytes.Equal(c.Key(), int64Key(3)) {
		t.Fatalf("values-only batch: %d rows, %x, cursor at %x", n, vals[:n], c.Key())
	}
	if n := c.NextBatch(make([][]byte, 4), make([][]byte, 3), false); n != 0 || !errors.Is(c.Err(), ErrInvalid) {
		t.Fatalf("short vals: %d, %v", n, c.Err())
	}
}
