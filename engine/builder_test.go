package engine

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// Index entries must point at rows: an entry whose row never came would make
// a file that fails its own Verify, so Build refuses it and names it.
func TestIndexEntryWithoutRow(t *testing.T) {
	i64 := keyenc.Encoding{Kind: keyenc.Int64}
	cases := []struct {
		name   string
		budget int64 // small: rows and entries spill to sorted runs
		rows   []int64
		pks    []int64 // entries' primary keys (index key "c<pk>")
		want   string  // "" builds; else the message names this entry
	}{
		{"all present", 0, []int64{1, 2, 3}, []int64{3, 1, 2}, ""},
		{"before the first row", 0, []int64{5, 6}, []int64{5, 4, 6}, `index key "c4") for primary key "4"`},
		{"between rows", 0, []int64{1, 3}, []int64{1, 2, 3}, `index key "c2") for primary key "2"`},
		{"after the last row", 0, []int64{1, 2}, []int64{1, 2, 9}, `index key "c9") for primary key "9"`},
		{"no rows at all", 0, nil, []int64{7}, `index key "c7") for primary key "7"`},
		{"spilled runs, all present", 1 << 10, seq(0, 3000), seq(0, 3000), ""},
		{"spilled runs, one missing", 1 << 10, append(seq(0, 1500), seq(1501, 3000)...), seq(0, 3000), `index key "c1500") for primary key "1500"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := NewBuilder(&BuilderOptions{MemoryBudget: c.budget})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			tb, _ := b.Table("items", &TableOptions{Encoding: i64})
			ix, _ := tb.AddIndex("by_c", &IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.String}})
			// a second index names every row too: several entries per row
			both, _ := tb.AddIndex("by_d", &IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.String}})
			// entries first for half of them: the row may come after its entry
			for i, pk := range c.pks {
				if i%2 == 0 {
					addEntry(t, ix, pk)
				}
			}
			for _, r := range c.rows {
				if err := tb.Append(keyenc.EncodeInt64(r), []byte("v")); err != nil {
					t.Fatal(err)
				}
				addEntry(t, both, r)
			}
			for i, pk := range c.pks {
				if i%2 == 1 {
					addEntry(t, ix, pk)
				}
			}
			img, _, err := b.BuildToBytes()
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				db, err := OpenBytes(img, &Options{Verify: true})
				if err != nil {
					t.Fatal(err)
				}
				db.Close()
				return
			}
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), `index "by_c" of table "items"`) ||
				!strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrInvalid naming %s", err, c.want)
			}
		})
	}
}

func seq(from, to int64) []int64 {
	var s []int64
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func addEntry(t *testing.T, ix *IndexBuilder, pk int64) {
	t.Helper()
	if err := ix.Add([]byte("c"+itoa64(pk)), keyenc.EncodeInt64(pk)); err != nil {
		t.Fatal(err)
	}
}

func itoa64(i int64) string { return strconv.FormatInt(i, 10) }

// AppendRow adds a row and its index entries all or nothing: a refused entry
// leaves neither the row nor the entries before it, and the builder builds a
// file that verifies.
func TestAppendRowAllOrNothing(t *testing.T) {
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
	defer b.Close()
	tb, _ := b.Table("t", nil)
	a, _ := tb.AddIndex("a", nil)
	n, _ := tb.AddIndex("n", &IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	other, _ := b.Table("other", nil)
	o, _ := other.AddIndex("o", nil)
	cases := []struct {
		name    string
		entries []IndexEntry
		want    error
		text    string
	}{
		{"bad key of the second index", []IndexEntry{{a, []byte("x")}, {n, []byte{1, 2, 3}}}, ErrBadKey, `table "t", row 1 (counted from 0): index "n"`},
		{"too large with escaping", []IndexEntry{{a, []byte("x")}, {a, make([]byte, 60)}}, ErrKeyTooLarge, `index "a"`},
		{"another table's index", []IndexEntry{{a, []byte("x")}, {o, []byte("y")}}, ErrInvalid, "another table"},
		{"no index", []IndexEntry{{a, []byte("x")}, {}}, ErrInvalid, "another table"},
	}
	if err := tb.AppendRow([]byte("first"), []byte("v"), IndexEntry{a, []byte("x")}, IndexEntry{n, keyenc.EncodeInt64(1)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		err := tb.AppendRow([]byte("refused"), []byte("v"), c.entries...)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Fatalf("%s: got %v, want %v containing %q", c.name, err, c.want, c.text)
		}
	}
	img, rep, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tables[0].Rows != 1 || rep.Tables[0].Indexes[0].Rows != 1 || rep.Tables[0].Indexes[1].Rows != 1 {
		t.Fatalf("refused adds left something: %+v", rep.Tables[0])
	}
	db, err := OpenBytes(img, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// An add that fails half way (a temporary file cannot be written after the
// row went in) breaks the builder: later adds and Build say so instead of
// writing a file without the entry.
func TestBrokenBuilder(t *testing.T) {
	b, _ := NewBuilder(&BuilderOptions{MemoryBudget: 1, TempDir: filepath.Join(t.TempDir(), "gone")})
	defer b.Close()
	tb, _ := b.Table("t", nil)
	ix, _ := tb.AddIndex("i", nil)
	if err := ix.Add([]byte("i1"), []byte("k1")); err != nil { // the entries' sorter now holds one record
		t.Fatal(err)
	}
	// The row is the table's first record (kept in memory); the entry makes
	// the entries' sorter spill over the 1-byte budget, into a missing
	// directory.
	err := tb.AppendRow([]byte("k1"), nil, IndexEntry{ix, []byte("i2")})
	if err == nil || !strings.Contains(err.Error(), "cannot build") {
		t.Fatalf("got %v", err)
	}
	if err2 := tb.Append([]byte("k2"), nil); !errors.Is(err2, err) && err2.Error() != err.Error() {
		t.Fatalf("later append: %v", err2)
	}
	if _, _, err2 := b.BuildToBytes(); err2 == nil || err2.Error() != err.Error() {
		t.Fatalf("build: %v", err2)
	}
}

// Errors of an add name the row by its number in the table (counted from 0
// across every call), not by a position in a batch.
func TestAddErrorsNameTheRow(t *testing.T) {
	b, _ := NewBuilder(nil)
	defer b.Close()
	tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.String}})
	for i := 0; i < 5000; i++ {
		if err := tb.Append([]byte("k"+itoa64(int64(i))), nil); err != nil {
			t.Fatal(err)
		}
	}
	err := tb.Append(make([]byte, tb.MaxKeySize()+1), nil)
	if !errors.Is(err, ErrKeyTooLarge) || !strings.Contains(err.Error(), `table "t", row 5000 (counted from 0): key of 1001 bytes exceeds the limit of 1000 bytes`) {
		t.Fatal(err)
	}
	if err := tb.Append(make([]byte, tb.MaxKeySize()), nil); err != nil { // the limit itself is a key
		t.Fatal(err)
	}
	err = tb.Append([]byte{0xff}, nil)
	if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), "row 5001 ") {
		t.Fatal(err)
	}
}

// BuildToFile replaces a regular file or creates one, and refuses anything
// else without touching it (and without spending the Builder).
func TestBuildToFileRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	cases := []struct {
		path string
		mode os.FileMode
		what string
	}{
		{fifo, os.ModeNamedPipe, "a named pipe"},
		{sub, os.ModeDir, "a directory"},
		{link, os.ModeSymlink, "a symbolic link"},
	}
	b, _ := NewBuilder(nil)
	defer b.Close()
	tb, _ := b.Table("t", nil)
	tb.Append([]byte("k"), []byte("v"))
	for _, c := range cases {
		_, err := b.BuildToFile(c.path)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.what) {
			t.Fatalf("%s: got %v", c.path, err)
		}
		st, err := os.Lstat(c.path)
		if err != nil || st.Mode().Type() != c.mode {
			t.Fatalf("%s was touched: %v %v", c.path, st.Mode(), err)
		}
	}
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Fatalf("the link's target changed: %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Fatalf("litter left: %v", ents)
	}
	// Still usable: the refusals did not spend it.
	if _, err := b.BuildToFile(target); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(target, nil); err != nil {
		t.Fatal(err)
	}
}

// docs/FORMAT.md states the longest key at three page sizes; they are the
// engine's (the 64 KiB figure once said 16,364).
func TestMaxKeySizeAsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`The longest key is .*\(([^)]*)\)`).FindSubmatch(doc)
	if line == nil {
		t.Fatal("FORMAT.md: no longest-key line")
	}
	figures := regexp.MustCompile(`([\d,]+) at (\d+) (KiB|B)`).FindAllSubmatch(line[1], -1)
	if len(figures) != 3 {
		t.Fatalf("FORMAT.md: %q", line[1])
	}
	for _, f := range figures {
		want, _ := strconv.Atoi(strings.ReplaceAll(string(f[1]), ",", ""))
		ps, _ := strconv.Atoi(string(f[2]))
		if string(f[3]) == "KiB" {
			ps <<= 10
		}
		if got := MaxKeySize(ps); got != want {
			t.Errorf("FORMAT.md says %d bytes at %d-byte pages, the engine %d", want, ps, got)
		}
	}
}
