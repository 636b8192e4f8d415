package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/drydb/drydb/engine/drydb14"
	"github.com/drydb/drydb/engine/keyenc"
	"github.com/drydb/drydb/internal/fixture14"
)

func openVerified(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(path, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// fill14 adds tables of every key kind 1.4 holds, with blobs, both index
// kinds and an empty table.
func fill14(t *testing.T, b *Builder, comp CompressionKind) {
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	items, err := b.Table("items", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: Compression{Kind: comp}})
	must(err)
	byGroup, err := items.AddIndex("by_group", &IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	must(err)
	byName, err := items.AddIndex("by_name", &IndexOptions{Unique: true, Encoding: keyenc.Encoding{Kind: keyenc.String}})
	must(err)
	for i := int64(-300); i < 700; i++ {
		v := fmt.Appendf(nil, "value %d", i)
		switch {
		case i == 5:
			v = bytes.Repeat([]byte("b"), 70000)
		case i%50 < 2: // consecutive empty values: their index entries must keep their rows
			v = nil
		}
		k := int64Key(i * 1000)
		must(items.AppendRow(k, v, IndexEntry{byGroup, int64Key(i % 3)}, IndexEntry{byName, fmt.Appendf(nil, "n%05d", i+300)}))
	}
	names, err := b.Table("names", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Bytes}})
	must(err)
	for _, k := range []string{"", "a", "\xff", "日本"} {
		must(names.Append([]byte(k), []byte("v"+k)))
	}
	ids, err := b.Table("ids", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.UUID}})
	must(err)
	ul, err := b.Table("ulids", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.ULID}})
	must(err)
	for i := 0; i < 50; i++ {
		var u [16]byte
		u[0], u[3], u[6], u[15] = byte(i*37), byte(i), 0x70, byte(i)
		must(ids.Append(u[:], u[:4]))
		must(ul.Append(u[:], nil))
	}
	_, err = b.Table("empty", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	must(err)
}

// TestBuildDryDB14: a Builder with Format FormatDryDB14 writes a 1.4 file
// (BuildToFile and BuildTo) that opens with the same contents as the native
// build of the same rows; zstd tables make it a zstd file.
func TestBuildDryDB14(t *testing.T) {
	for _, comp := range []CompressionKind{CompressNone, CompressZstd} {
		t.Run(comp.String(), func(t *testing.T) {
			dir := t.TempDir()
			b, err := NewBuilder(&BuilderOptions{PageSize: 1024})
			if err != nil {
				t.Fatal(err)
			}
			fill14(t, b, CompressNone) // the reference: 1.4 files read back uncompressed
			if _, err := b.BuildToFile(filepath.Join(dir, "native.drydb")); err != nil {
				t.Fatal(err)
			}
			b, err = NewBuilder(&BuilderOptions{PageSize: 1024, Format: FormatDryDB14, TempDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			fill14(t, b, comp)
			p14 := filepath.Join(dir, "v14.drydb")
			rep, err := b.BuildToFile(p14)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(p14)
			if err != nil {
				t.Fatal(err)
			}
			if string(data[:6]) != "DRY\x00\x01\x04" || rep.Bytes != uint64(len(data)) || len(rep.Tables) != 5 {
				t.Fatalf("header %x, report %d bytes (file %d), %d tables", data[:6], rep.Bytes, len(data), len(rep.Tables))
			}
			if zstd := data[6] == 1; zstd != (comp == CompressZstd) {
				t.Fatalf("filter count %d", data[6])
			}
			want := dumpDB(t, openVerified(t, filepath.Join(dir, "native.drydb")))
			if got := dumpDB(t, openVerified(t, p14)); !slices.Equal(got, want) {
				t.Fatalf("1.4 build reads back differently:\n%.2000s\nwant\n%.2000s", got, want)
			}
			b, err = NewBuilder(&BuilderOptions{PageSize: 1024, Format: FormatDryDB14, TempDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			fill14(t, b, comp)
			var buf bytes.Buffer
			if _, err := b.BuildTo(&buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), data) {
				t.Fatal("BuildTo and BuildToFile wrote different 1.4 files")
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "drydb-*")); len(left) != 0 {
				t.Fatalf("temporary files left: %v", left)
			}
		})
	}
}

// TestBuildDryDB14Refuses: what 1.4 cannot hold is refused when declared,
// naming the table or index and the reason.
func TestBuildDryDB14Refuses(t *testing.T) {
	if _, err := NewBuilder(&BuilderOptions{Format: "drydb-9"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `"drydb-9"`) {
		t.Fatalf("unknown format: %v", err)
	}
	for _, c := range []struct {
		name string
		add  func(b *Builder) error
		want string
	}{
		{"composite key", func(b *Builder) error {
			_, err := b.Table("pairs", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Composite, Parts: []keyenc.Kind{keyenc.Int64, keyenc.String}}})
			return err
		}, `table "pairs": drydb: not representable in DryDB 1.4: composite keys`},
		{"float key", func(b *Builder) error {
			_, err := b.Table("f", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Float64}})
			return err
		}, `table "f": drydb: not representable in DryDB 1.4: float64 keys`},
		{"uint64 index", func(b *Builder) error {
			tb, err := b.Table("t", nil)
			if err != nil {
				return err
			}
			_, err = tb.AddIndex("by_u", &IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.Uint64}})
			return err
		}, `table "t" index "by_u": drydb: not representable in DryDB 1.4: uint64 keys`},
		{"s2", func(b *Builder) error {
			_, err := b.Table("s", &TableOptions{Compression: Compression{Kind: CompressS2}})
			return err
		}, `table "s": DryDB 1.4 has no S2 compression`},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := NewBuilder(&BuilderOptions{Format: FormatDryDB14})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			err = c.add(b)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}

// checkFixture14 checks every table and index of db against a fixture's
// expected contents (checkTable14, checkIndex14).
func checkFixture14(t *testing.T, db *DB, exp *fixture14.Expected) {
	t.Helper()
	for _, et := range exp.Tables {
		tb, err := db.Table(et.Name)
		if err != nil {
			t.Fatal(err)
		}
		rows := make([]row14, len(et.Rows))
		for i, r := range et.Rows {
			rows[i] = row14{native14(t, et.Primary.Encoding, r[0]), r[1]}
		}
		checkTable14(t, tb, rows)
		for _, ex := range et.Indexes {
			checkIndex14(t, tb, &ex, et.Primary.Encoding)
		}
	}
}

// TestConvertFixturesRoundTrip: every fixture converted 1.4 -> native
// (a merge build of the opened file) -> 1.4 reads back as its
// .expected.json at each step, through drydb's reader.
func TestConvertFixturesRoundTrip(t *testing.T) {
	paths, err := fixture14.Paths()
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			exp, err := fixture14.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			src := openVerified(t, path)
			native := filepath.Join(dir, "native.drydb")
			b, err := NewMergeBuilder(src, &BuilderOptions{TempDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.BuildToFile(native); err != nil {
				t.Fatal(err)
			}
			ndb := openVerified(t, native)
			if d, _ := os.ReadFile(native); bytes.HasPrefix(d, []byte(drydb14.Magic)) {
				t.Fatal("the native conversion is a 1.4 file")
			}
			back := filepath.Join(dir, "back.drydb")
			filter := src.Info().Metadata[Source14]
			if _, err := ndb.WriteDryDB14(back, &DryDB14Options{PageSize: 4096, Zstd: bytes.Contains(filter, []byte(drydb14.ZstdFilter))}); err != nil {
				t.Fatal(err)
			}
			checkFixture14(t, ndb, exp)
			checkFixture14(t, openVerified(t, back), exp)
		})
	}
}
