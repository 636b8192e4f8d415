package engine

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	f "github.com/drydb/drydb/engine/internal/format"
	"github.com/drydb/drydb/engine/keyenc"
)

// Every single-bit flip of a small multi-page file, and truncation at every
// page boundary: each read returns the right answer or a corrupt error.
func TestCorruptionExhaustive(t *testing.T) {
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
	tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	want := map[int64][]byte{}
	for i := int64(0); i < 60; i++ {
		// consecutive keys and same-size values: the pages carry every claim
		// (format.Leaf8Seq, Leaf8Fixed, a branch scale), which flips must
		// not turn into wrong answers either
		v := []byte(fmt.Sprintf("value %03d", i))
		if i == 7 {
			v = bytes.Repeat([]byte("big"), 200) // an overflow value
		}
		want[i] = v
		tb.Append(int64Key(i), v)
	}
	good, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	var claims [3]int // leaves flagged consecutive, fixed-size; scaled branches
	for pg := 512; pg+512 <= len(good); pg += 512 {
		p := good[pg : pg+512]
		switch {
		case p[f.PgType]&f.PgTypeMask == f.PageLeaf8 && p[f.PgLevel] == 0:
			if p[f.PgType]&f.Leaf8Seq != 0 {
				claims[0]++
			}
			if p[f.PgType]&f.Leaf8Fixed != 0 {
				claims[1]++
			}
		case p[f.PgType] == f.PageBranch8 && le.Uint64(p[f.PgScale:]) != 0:
			claims[2]++
		}
	}
	if claims[0] == 0 || claims[1] == 0 || claims[2] == 0 {
		t.Fatalf("the file should carry every page claim: %v", claims)
	}
	check := func(data []byte) (detected bool) {
		db, err := OpenBytes(data, nil)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("open error %v is not ErrCorrupt", err)
			}
			return true
		}
		defer db.Close()
		tbl, err := db.Table("t")
		if err != nil {
			return true // the name itself was damaged: open found no such table
		}
		for i := int64(0); i < 60; i++ {
			v, err := tbl.Get(int64Key(i))
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Get error %v", err)
				}
				detected = true
				continue
			}
			if !bytes.Equal(v, want[i]) {
				t.Fatalf("silently wrong value for key %d", i)
			}
		}
		if n, err := tbl.Count(All, All); err == nil && n != 60 {
			t.Fatalf("silently wrong count %d", n)
		}
		if err := db.Verify(); err != nil {
			detected = true
		}
		return detected
	}
	var flips, caught, harmless int
	data := make([]byte, len(good))
	for bit := 0; bit < len(good)*8; bit++ {
		copy(data, good)
		data[bit/8] ^= 1 << (bit % 8)
		flips++
		if check(data) {
			caught++
		} else {
			harmless++
		}
	}
	for cut := 0; cut < len(good); cut += 512 {
		if !check(good[:cut:cut]) {
			t.Fatalf("truncation at %d not detected", cut)
		}
	}
	if !check(append(append([]byte(nil), good...), "garbage"...)) {
		t.Fatal("appended garbage not detected")
	}
	t.Logf("%d single-bit flips of a %d-byte file: %d detected, %d harmless (padding), 0 wrong answers, 0 panics; %d truncations detected",
		flips, len(good), caught, harmless, len(good)/512)
}
