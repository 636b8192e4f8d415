package drydb14

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/drydb/drydb/internal/fixture14"
	"github.com/klauspost/compress/zstd"
)

func fixture(t testing.TB, name string) []byte {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(fixturePaths(t)[0]), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func put32(off int, v uint32) func([]byte) []byte {
	return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[off:], v); return b }
}

func put64(off int, v uint64) func([]byte) []byte {
	return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return b }
}

// TestHostileCrafted: edits of tiny_p4096.drydb at the offsets its README annotates, each giving a
// classified error that says what is wrong.
func TestHostileCrafted(t *testing.T) {
	tiny := fixture(t, "tiny_p4096.drydb")
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		want string
	}{
		{"page count past the directory", put32(14, 3), "do not end"},
		{"page count negative", put32(14, 0xffffffff), "do not end"},
		{"directory position 0", put64(18, 0), "do not end"},
		{"directory position huge", put64(18, 1<<62), "do not end"},
		{"page size 0", put32(8, 0), "page size"},
		{"table name not UTF-8", func(b []byte) []byte { b[30] = 0xff; return b }, "not UTF-8"},
		{"table name length huge", put32(26, 0x7fffffff), "runs past"},
		{"table name length negative", put32(26, 0xfffffff0), "runs past"},
		{"unknown encoding", func(b []byte) []byte { b[41] = '5'; return b }, "unknown key encoding"},
		{"filter id from the descriptors", func(b []byte) []byte { b[6] = 1; return b }, "filter"},
		{"is_unique 2", func(b []byte) []byte { b[42] = 2; return b }, "is_unique"},
		{"primary value kind PageRef", func(b []byte) []byte { b[43] = 2; return b }, "primary index"},
		{"root past the pages", put64(44, 2), "not one of the file's"},
		{"two trees share a page", put64(71, 0), "used twice"},
		{"page offset before the descriptors", put64(317, 10), "out of order"},
		{"pages out of order", put64(325, 79), "out of order"},
		{"page length huge", put32(79, 0x7fffffff), "page length"},
		{"page length below the prefix", put32(79, 3), "page length"},
		{"entry count huge", put32(87, 0x7fffffff), "entry count"},
		{"entry count negative", put32(87, 0x80000000), "entry count"},
		{"leaf claims to be internal", put32(83, 0xc01), ""},
		{"unknown flag", put32(83, 0x1c00), "kind word"},
		{"OmittedKeys without CompactMeta", put32(83, 0x800), "OmittedKeys"},
		{"left sibling is itself", put64(91, 0), "sibling"},
		{"right sibling is itself", put64(99, 0), "right sibling"},
		{"keys out of order (digest of an omitted key)", put64(107, 0x8000000000000002), "does not follow"},
		{"compact offset past the page", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[141:], 0x7000); return b }, "outside"},
		{"blob bit on an inline value", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[143:], 0x8047); return b }, "blob reference"},
		{"last compact offset is not the page length", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[147:], 74); return b }, "last compact offset"},
		{"index digest wrong", put64(190, 0x6200000000000000), "digest"},
		{"index key length past its payload", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[224:], 40); return b }, "longer than"},
		{"index key without rid", func(b []byte) []byte { binary.LittleEndian.PutUint16(b[224:], 0); return b }, ""},
		{"PageRef to no page", put64(236, 5), "names no value"},
		{"PageRef length off by one", put32(248, 2), "names no value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(tc.edit(bytes.Clone(tiny)))
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a corrupt-file error containing %q", err, tc.want)
			}
		})
	}
}

// TestHostileZstd: zstd pages that lie about their size, or decode to more than a page.
func TestHostileZstd(t *testing.T) {
	data := fixture(t, "zstd_p4096.drydb")
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// The largest tree page (blob pages have no entries, and may decode to up to MaxBlob).
	var off, end int64
	for i := int64(0); i < f.npages; i++ {
		o, e := f.pageOff(i), f.pageEnd(i)
		if binary.LittleEndian.Uint32(data[o+offCount:]) > 0 && e-o > end-off {
			off, end = o, e
		}
	}
	enc, _ := zstd.NewWriter(nil)
	defer enc.Close()
	for _, tc := range []struct {
		name  string
		frame []byte
		want  string
	}{
		// 1 MiB of zeros compresses to a few dozen bytes; a tree page may decode to 4096.
		{"bomb", enc.EncodeAll(make([]byte, 1<<20), nil), "content size"},
		{"garbage", bytes.Repeat([]byte{0x28}, 40), "zstd"},
		{"short frame", enc.EncodeAll([]byte("x"), nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if int64(PrefixSize+len(tc.frame)) > end-off {
				t.Fatalf("frame of %d bytes does not fit the page's %d", len(tc.frame), end-off)
			}
			b := bytes.Clone(data)
			copy(b[off+PrefixSize:], tc.frame)
			binary.LittleEndian.PutUint32(b[off:], uint32(PrefixSize+len(tc.frame)))
			_, _, err := readAll(b)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a corrupt-file error containing %q", err, tc.want)
			}
		})
	}
}

// TestHostileRandom: truncations and bit flips of every fixture never panic or hang. Without
// checksums, a flipped bit in a value goes unnoticed (docs/DRYDB14.md), so a read may succeed;
// what it may not do is crash, loop, or read outside the file.
func TestHostileRandom(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	rng := rand.New(rand.NewPCG(14, 14))
	for _, path := range fixturePaths(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var failed, ok int
		for i := 0; i < n; i++ {
			b, edit := fixture14.Mutate(data, rng)
			start := time.Now()
			_, _, err := readAll(b)
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%s, %s: %v", filepath.Base(path), edit, d)
			}
			if err == nil {
				ok++
			} else if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
				t.Fatalf("%s, %s: unclassified error %v", filepath.Base(path), edit, err)
			} else {
				failed++
			}
		}
		t.Logf("%s: %d refused, %d read", filepath.Base(path), failed, ok)
	}
}

// FuzzRead: go test -fuzz FuzzRead ./engine/drydb14 (the seeds are the fixtures).
func FuzzRead(f *testing.F) {
	for _, path := range fixturePaths(f) {
		if data, err := os.ReadFile(path); err == nil && len(data) < 100_000 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := readAll(data)
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) {
			t.Fatalf("unclassified error %v", err)
		}
	})
}

// TestCSharpVariants: what DryDB's C# builder writes differently from the Rust crate that made
// the fixtures (LAYOUT-1.4.md) is read too.
func TestCSharpVariants(t *testing.T) {
	tiny := fixture(t, "tiny_p4096.drydb")
	for _, tc := range []struct {
		name    string
		edit    func([]byte) []byte
		entries int
	}{
		// An empty tree has root -1 and no page (the crate writes an empty leaf).
		{"index root -1", put64(71, ^uint64(0)), 0},
		// A non-unique index digest over index key ‖ rid: "a" ‖ rid 1 -> 0x6101000000000000.
		{"digest of the composite key", put64(198, 0x6101000000000000), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, tds, err := readAll(tc.edit(bytes.Clone(tiny)))
			if err != nil {
				t.Fatal(err)
			}
			if len(tds[0].Rows) != 4 || len(tds[0].Indexes[0]) != tc.entries {
				t.Fatalf("%d rows, %d index entries", len(tds[0].Rows), len(tds[0].Indexes[0]))
			}
		})
	}
}
