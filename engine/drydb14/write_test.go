package drydb14

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// TestWriteRefuses: what 1.4 cannot hold is refused with an error naming the
// table (and index) and the reason, before anything is written.
func TestWriteRefuses(t *testing.T) {
	rows := func(kv ...[]byte) func(func(k, v []byte) error) error {
		return func(yield func(k, v []byte) error) error {
			for _, k := range kv {
				if err := yield(k, []byte("v")); err != nil {
					return err
				}
			}
			return nil
		}
	}
	entries := func(keys ...string) func(func([]byte, uint64) error) error {
		return func(yield func([]byte, uint64) error) error {
			for i, k := range keys {
				if err := yield([]byte(k), uint64(i)); err != nil {
					return err
				}
			}
			return nil
		}
	}
	str := keyenc.Encoding{Kind: keyenc.String}
	defer func(m int) { maxZstdValue = m }(maxZstdValue)
	maxZstdValue = 4000
	for _, c := range []struct {
		name   string
		tables []TableSource
		opts   Options
		want   []string
		unsup  bool
	}{
		{"composite key", []TableSource{{Name: "pairs", Key: keyenc.Encoding{Kind: keyenc.Composite, Parts: []keyenc.Kind{keyenc.Int64, keyenc.String}}, Rows: rows()}},
			Options{}, []string{`table "pairs"`, "composite keys"}, true},
		{"float key", []TableSource{{Name: "f", Key: keyenc.Encoding{Kind: keyenc.Float64}, Rows: rows()}},
			Options{}, []string{`table "f"`, "floating-point"}, true},
		{"uint64 key", []TableSource{{Name: "u", Key: keyenc.Encoding{Kind: keyenc.Uint64}, Rows: rows()}},
			Options{}, []string{`table "u"`, "2^63"}, true},
		{"float index", []TableSource{{Name: "t", Key: str, Rows: rows(), Indexes: []IndexSource{{Name: "by_f", Key: keyenc.Encoding{Kind: keyenc.Float64}, Entries: entries()}}}},
			Options{}, []string{`table "t" index "by_f"`, "floating-point"}, true},
		{"page size", []TableSource{{Name: "t", Key: str, Rows: rows()}},
			Options{PageSize: 32}, []string{"page size 32"}, false},
		{"key too long for the page", []TableSource{{Name: "t", Key: str, Rows: rows(bytes.Repeat([]byte("k"), 200))}},
			Options{PageSize: 256}, []string{`table "t"`, "200 byte key", "two separators"}, false},
		{"rows out of order", []TableSource{{Name: "t", Key: str, Rows: rows([]byte("b"), []byte("a"))}},
			Options{}, []string{`table "t"`, "out of order"}, false},
		{"unique index duplicate", []TableSource{{Name: "t", Key: str, Rows: rows([]byte("a"), []byte("b")),
			Indexes: []IndexSource{{Name: "u", Unique: true, Key: str, Entries: entries("x", "x")}}}},
			Options{}, []string{`table "t" index "u"`, "key x twice"}, false},
		{"zstd value longer than the reader decodes", []TableSource{{Name: "t", Key: str, Rows: func(yield func(k, v []byte) error) error {
			return yield([]byte("k"), make([]byte, 5000))
		}}}, Options{Zstd: true}, []string{`table "t"`, "5000 byte value", "zstd"}, false},
		{"entry names a missing row", []TableSource{{Name: "t", Key: str, Rows: rows([]byte("a")),
			Indexes: []IndexSource{{Name: "n", Key: str, Entries: entries("x", "y")}}}},
			Options{}, []string{`index "n"`, "row 1 of a table of 1 rows"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fh, err := os.Create(filepath.Join(t.TempDir(), "out.drydb"))
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			_, err = Write(fh, c.tables, &c.opts)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if errors.Is(err, ErrUnsupported) != c.unsup {
				t.Errorf("errors.Is(ErrUnsupported) = %v", !c.unsup)
			}
		})
	}
}

// TestKeyType: each drydb key encoding 1.4 holds maps to the 1.4 encoding
// whose Native is it again (so a round trip keeps the kind; string and bytes
// both become ascii, read back as string when every key is UTF-8).
func TestKeyType(t *testing.T) {
	for _, k := range []keyenc.Kind{keyenc.Int64, keyenc.Bytes, keyenc.UUID, keyenc.ULID} {
		e, err := KeyType(keyenc.Encoding{Kind: k})
		if err != nil || e.Native(false).Kind != k {
			t.Errorf("%s: %v %v", k, e.ID, err)
		}
	}
}
