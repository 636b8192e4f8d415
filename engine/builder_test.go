package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name string
		fill func(b *Builder) error
		want error
		text string
	}{
		{"duplicate", func(b *Builder) error {
			tb, _ := b.Table("items", nil)
			tb.Append([]byte("a"), nil)
			tb.Append([]byte("dup"), nil)
			return tb.Append([]byte("dup"), nil)
		}, ErrDuplicateKey, `table "items" has key "dup" twice`},
		{"key too large", func(b *Builder) error {
			tb, _ := b.Table("t", nil)
			return tb.Append(make([]byte, 1001), nil)
		}, ErrKeyTooLarge, "limit of 1000 bytes"},
		{"bad int64 key", func(b *Builder) error {
			tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
			return tb.Append([]byte{1, 2, 3}, nil)
		}, ErrBadKey, ""},
		{"unique index duplicate", func(b *Builder) error {
			tb, _ := b.Table("t", nil)
			ix, _ := tb.AddIndex("by_v", &IndexOptions{Unique: true})
			tb.Append([]byte("a"), nil)
			tb.Append([]byte("b"), nil)
			ix.Add([]byte("same"), []byte("a"))
			return ix.Add([]byte("same"), []byte("b"))
		}, ErrDuplicateKey, `unique index "by_v" has index key "same" twice`},
		{"unknown filter", func(b *Builder) error {
			_, err := b.Table("t", &TableOptions{Compression: Compression{Filter: "rot13"}})
			return err
		}, ErrUnknownFilter, "rot13"},
		{"table twice", func(b *Builder) error {
			b.Table("t", nil)
			_, err := b.Table("t", nil)
			return err
		}, ErrInvalid, "defined twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, _ := NewBuilder(nil)
			defer b.Close()
			err := c.fill(b)
			if err == nil {
				_, _, err = b.BuildToBytes()
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) || !strings.HasPrefix(err.Error(), "drydb: ") && !strings.HasPrefix(err.Error(), "table") && !strings.HasPrefix(err.Error(), "index") {
				t.Fatalf("got %v, want %v containing %q", err, c.want, c.text)
			}
		})
	}
	if _, err := NewBuilder(&BuilderOptions{PageSize: 1000}); !errors.Is(err, ErrInvalid) {
		t.Fatal(err)
	}
}

func TestBuildToFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db.drydb")
	mk := func(v string) error {
		b, _ := NewBuilder(nil)
		tb, _ := b.Table("t", nil)
		tb.Append([]byte("k"), []byte(v))
		tb.Append([]byte("k2"), []byte(v))
		if v == "dup" {
			tb.Append([]byte("k2"), nil)
		}
		_, err := b.BuildToFile(path)
		return err
	}
	if err := mk("one"); err != nil {
		t.Fatal(err)
	}
	if err := mk("dup"); !errors.Is(err, ErrDuplicateKey) {
		t.Fatal(err)
	}
	db, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, _ := db.Table("t")
	if v, _ := tbl.Get([]byte("k")); string(v) != "one" {
		t.Fatalf("old file damaged: %q", v)
	}
	db.Close()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("litter after failed build: %v", ents)
	}
	// read-only directory: a clear error, old file intact
	if os.Getuid() != 0 {
		os.Chmod(dir, 0o500)
		defer os.Chmod(dir, 0o700)
		if err := mk("two"); err == nil || !strings.Contains(err.Error(), "drydb: ") {
			t.Fatalf("read-only dir: %v", err)
		}
	}
}

// A build in a subprocess killed with SIGKILL at random moments never
// leaves a partial file at the target path, and the next build cleans the
// temporary file it left.
func TestKilledBuild(t *testing.T) {
	if os.Getenv("DRYDB_KILL_CHILD") != "" {
		b, _ := NewBuilder(nil)
		tb, _ := b.Table("t", nil)
		v := bytes.Repeat([]byte("x"), 100)
		for i := 0; i < 2_000_000; i++ {
			tb.Append([]byte(fmt.Sprintf("%09d", i)), v)
		}
		b.BuildToFile(os.Getenv("DRYDB_KILL_CHILD"))
		os.Exit(0)
	}
	if testing.Short() {
		t.Skip("spawns builds")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "k.drydb")
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 4; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=TestKilledBuild$")
		cmd.Env = append(os.Environ(), "DRYDB_KILL_CHILD="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(200+r.Intn(1500)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if _, err := os.Stat(path); err == nil {
			db, err := Open(path, &Options{Verify: true})
			if err != nil {
				t.Fatalf("file at target after kill is broken: %v", err)
			}
			db.Close()
		}
	}
	b, _ := NewBuilder(nil)
	tb, _ := b.Table("t", nil)
	tb.Append([]byte("a"), nil)
	if _, err := b.BuildToFile(path); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		names := []string{}
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("litter left: %v", names)
	}
}

// Builds share pooled buffers (sorter chunks and record slices, write
// buffers): builds running at once, abandoned builds, builds that spill and
// builds of several tables must never see each other's rows.
func TestBuildsSharePoolsSafely(t *testing.T) {
	cases := []struct {
		name   string
		rows   int
		budget int64
		tables int
		drop   bool // abandoned before Build
	}{
		{"small", 300, 0, 3, false},
		{"past the first chunk", 20_000, 0, 1, false},
		{"several chunks", 60_000, 0, 2, false},
		{"spills", 30_000, 256 << 10, 2, false},
		{"abandoned", 40_000, 0, 2, true},
	}
	val := func(seed, tab, i int) []byte {
		return []byte(fmt.Sprintf("%d/%d/%d/%s", seed, tab, i, strings.Repeat("x", i%40)))
	}
	errs := make(chan error, 64)
	for round := 0; round < 3; round++ {
		done := make(chan struct{})
		for g, c := range cases {
			go func(seed int) {
				defer func() { done <- struct{}{} }()
				b, err := NewBuilder(&BuilderOptions{MemoryBudget: c.budget})
				if err != nil {
					errs <- err
					return
				}
				defer b.Close()
				r := rand.New(rand.NewSource(int64(seed)))
				for tab := 0; tab < c.tables; tab++ {
					tb, err := b.Table(fmt.Sprintf("t%d", tab), &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
					if err != nil {
						errs <- err
						return
					}
					for _, i := range r.Perm(c.rows) {
						if err := tb.Append(int64Key(int64(i)), val(seed, tab, i)); err != nil {
							errs <- err
							return
						}
					}
				}
				if c.drop {
					return
				}
				data, _, err := b.BuildToBytes()
				if err != nil {
					errs <- err
					return
				}
				db, err := OpenBytes(data, &Options{Verify: true})
				if err != nil {
					errs <- err
					return
				}
				defer db.Close()
				for tab := 0; tab < c.tables; tab++ {
					tt, _ := db.Table(fmt.Sprintf("t%d", tab))
					if n := tt.Len(); n != uint64(c.rows) {
						errs <- fmt.Errorf("%s: table %d has %d rows, want %d", c.name, tab, n, c.rows)
						return
					}
					for i := 0; i < c.rows; i++ {
						v, err := tt.Get(int64Key(int64(i)))
						if err != nil || !bytes.Equal(v, val(seed, tab, i)) {
							errs <- fmt.Errorf("%s: table %d row %d: %q, %v", c.name, tab, i, v, err)
							return
						}
					}
				}
			}(round*100 + g)
		}
		for range cases {
			<-done
		}
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
