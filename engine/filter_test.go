package engine

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// xorFilter stands in for an encryption filter.
type xorFilter struct{}

func (xorFilter) Encode(dst, src []byte) ([]byte, error) {
	for _, c := range src {
		dst = append(dst, c^0x5A)
	}
	return dst, nil
}
func (xorFilter) Decode(dst, src []byte) ([]byte, error) { return xorFilter{}.Encode(dst, src) }

func TestFilter(t *testing.T) {
	RegisterFilter("test-xor", xorFilter{})
	b, _ := NewBuilder(nil)
	tb, err := b.Table("secret", &TableOptions{Compression: Compression{Kind: CompressZstd, Filter: "test-xor"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		tb.Append([]byte{byte(i >> 8), byte(i)}, []byte("plaintext-marker"))
	}
	if err := tb.Append([]byte("big"), make([]byte, 5000)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversize value through a filter: %v", err)
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("plaintext-marker")) {
		t.Fatal("filter did not transform the pages")
	}
	db, err := OpenBytes(data, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	tbl, _ := db.Table("secret")
	if v, err := tbl.Get([]byte{1, 2}); err != nil || string(v) != "plaintext-marker" {
		t.Fatal(v, err)
	}
	db.Close()
	// A reader that does not know the filter refuses the file by name.
	filters.Delete("test-xor")
	if _, err := OpenBytes(data, nil); !errors.Is(err, ErrUnknownFilter) || !strings.Contains(err.Error(), "test-xor") {
		t.Fatalf("unknown filter: %v", err)
	}
}

// Many goroutines on a small cache: answers stay right, loads happen once
// per miss, and pinned pages survive eviction.
func TestCacheConcurrent(t *testing.T) {
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
	tb, _ := b.Table("t", &TableOptions{Compression: Compression{Kind: CompressS2}})
	for i := 0; i < 20000; i++ {
		tb.Append(int64Key(int64(i)), int64Key(int64(i*3)))
	}
	data, _, _ := b.BuildToBytes()
	db, err := OpenBytes(data, &Options{CacheBytes: 64 * 512})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, _ := db.Table("t")
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 20000; i++ {
				k := int64((i*7919 + g*13) % 20000)
				v, err := tbl.GetPinned(int64Key(k))
				if err != nil || !bytes.Equal(v.Data, int64Key(k*3)) {
					done <- errors.New("wrong value under concurrency")
					return
				}
				v.Release()
			}
			c := tbl.NewCursor(All, All)
			n := 0
			for ok := c.First(); ok; ok = c.Next() {
				if !bytes.Equal(c.Value(), int64Key(int64(n*3))) {
					done <- errors.New("wrong scan value")
					return
				}
				n++
			}
			c.Close()
			done <- c.Err()
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil && !errors.Is(err, ErrClosed) {
			t.Fatal(err)
		}
	}
	st := db.CacheStats()
	if st.Misses == 0 || st.Evictions == 0 || st.Bytes > st.Capacity {
		t.Fatalf("cache stats %+v", st)
	}
	t.Logf("cache: %+v", st)
}

// TestCacheStatsExact: every lookup of a compressed leaf is one hit or one
// miss, through evictions too (one goroutine, so the count is exact).
func TestCacheStatsExact(t *testing.T) {
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
	tb, _ := b.Table("t", &TableOptions{Compression: Compression{Kind: CompressS2}})
	for i := 0; i < 5000; i++ {
		tb.Append(int64Key(int64(i)), int64Key(int64(i*3)))
	}
	data, _, _ := b.BuildToBytes()
	for _, cacheBytes := range []int64{64 * 512, 1 << 20} {
		db, err := OpenBytes(data, &Options{CacheBytes: cacheBytes})
		if err != nil {
			t.Fatal(err)
		}
		tbl, _ := db.Table("t")
		const gets = 30000
		for i := 0; i < gets; i++ {
			v, err := tbl.GetPinned(int64Key(int64(i * 7919 % 5000)))
			if err != nil {
				t.Fatal(err)
			}
			v.Release()
		}
		st := db.CacheStats()
		if st.Hits+st.Misses != gets || st.Misses == 0 || cacheBytes > 64*512 && st.Hits == 0 {
			t.Fatalf("cache of %d bytes: %+v: hits + misses != %d gets", cacheBytes, st, gets)
		}
		db.Close()
	}
}
