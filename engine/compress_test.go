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
