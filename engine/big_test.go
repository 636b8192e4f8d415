package engine

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/drydb/drydb/engine/keyenc"
)

// A file over 4 GiB: 64-bit offsets end to end. Opt in with
// DRYDB_BIG_TEST=1 (it writes about 9 GiB: the overflow spill, then the file).
func TestOver4GiB(t *testing.T) {
	if os.Getenv("DRYDB_BIG_TEST") == "" {
		t.Skip("set DRYDB_BIG_TEST=1 to write a 4.5 GiB file")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "big.drydb")
	const n = 4500 // values of 1 MiB
	val := func(i int) []byte {
		v := bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 1<<19)
		binary.BigEndian.PutUint64(v, uint64(i))
		return v
	}
	start := time.Now()
	b, _ := NewBuilder(&BuilderOptions{TempDir: dir})
	tb, _ := b.Table("big", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	for i := 0; i < n; i++ {
		if err := tb.Append(int64Key(int64(i)), val(i)); err != nil {
			t.Fatal(err)
		}
	}
	small, _ := b.Table("small", nil)
	small.Append([]byte("after 4 GiB"), []byte("yes"))
	rep, err := b.BuildToFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Bytes <= 4<<30 {
		t.Fatalf("file is only %d bytes", rep.Bytes)
	}
	t.Logf("built %d bytes in %v", rep.Bytes, time.Since(start))
	db, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, _ := db.Table("big")
	for _, i := range []int{0, 1, 2047, 2048, 4095, 4096, n - 1} {
		v, err := tbl.Get(int64Key(int64(i)))
		if err != nil || !bytes.Equal(v, val(i)) {
			t.Fatalf("value %d: %v", i, err)
		}
	}
	s, _ := db.Table("small")
	if v, err := s.Get([]byte("after 4 GiB")); err != nil || string(v) != "yes" {
		t.Fatal(err)
	}
	start = time.Now()
	if err := db.Verify(); err != nil {
		t.Fatal(err)
	}
	t.Logf("verified in %v", time.Since(start))
}
