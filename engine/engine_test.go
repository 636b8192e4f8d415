package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	f "github.com/drydb/drydb/engine/internal/format"
	"github.com/drydb/drydb/engine/keyenc"
)

func int64Key(v int64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], uint64(v)^(1<<63))
	return k[:]
}

func build(t testing.TB, ps int, fill func(b *Builder)) *DB {
	t.Helper()
	b, err := NewBuilder(&BuilderOptions{PageSize: ps})
	if err != nil {
		t.Fatal(err)
	}
	fill(b)
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenBytes(data, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// The C# DryDB's known gaps, each as a case.
func TestDryDBGaps(t *testing.T) {
	// int64 keys 0, 2, 4, ... in 512-byte pages: many leaves, and gaps
	// between leaves at odd keys.
	const n = 2000
	db := build(t, 512, func(b *Builder) {
		tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
		for i := int64(0); i < n; i++ {
			if err := tb.Append(int64Key(i*2), []byte(fmt.Sprint(i*2))); err != nil {
				t.Fatal(err)
			}
		}
	})
	tbl, _ := db.Table("t")
	if tbl.Depth() < 2 {
		t.Fatalf("want a multi-level tree, depth %d", tbl.Depth())
	}
	// Find each leaf boundary: for every row, a range that starts in the gap
	// after it (odd key) or exclusively at it must start at the next row.
	for i := int64(0); i < n-1; i++ {
		for _, lo := range []Bound{Incl(int64Key(i*2 + 1)), Excl(int64Key(i * 2))} {
			c := tbl.NewCursor(lo, All)
			if !c.First() || !bytes.Equal(c.Key(), int64Key(i*2+2)) {
				t.Fatalf("range from %v starts at %x, want key %d", lo, c.Key(), i*2+2)
			}
			c.Close()
		}
	}
	// int64 min/max/negative keys sort as numbers.
	vals := []int64{math.MinInt64, -1 << 40, -2, -1, 0, 1, 2, 1 << 40, math.MaxInt64}
	db2 := build(t, 4096, func(b *Builder) {
		tb, _ := b.Table("i", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
		for _, i := range rand.New(rand.NewSource(1)).Perm(len(vals)) {
			tb.Append(int64Key(vals[i]), nil)
		}
	})
	ti, _ := db2.Table("i")
	c := ti.NewCursor(All, All)
	j := 0
	for ok := c.First(); ok; ok = c.Next() {
		if !bytes.Equal(c.Key(), int64Key(vals[j])) {
			t.Fatalf("row %d is %x, want %d", j, c.Key(), vals[j])
		}
		j++
	}
	if j != len(vals) {
		t.Fatalf("%d rows", j)
	}
	if n, _ := ti.Count(Incl(int64Key(-2)), Excl(int64Key(2))); n != 4 {
		t.Fatalf("count [-2,2) = %d", n)
	}
}

func TestValueSizes(t *testing.T) {
	for _, ps := range []int{512, 4096, 65536} {
		sizes := []int{0, 1, 65535, 65536, 65537, ps/4 - 1, ps / 4, ps/4 + 1, ps - 100, ps, 3*ps + 7, 1 << 20}
		db := build(t, ps, func(b *Builder) {
			tb, _ := b.Table("v", nil)
			for i, s := range sizes {
				v := bytes.Repeat([]byte{byte(i + 1)}, s)
				if err := tb.Append([]byte(fmt.Sprintf("k%02d", i)), v); err != nil {
					t.Fatal(err)
				}
			}
		})
		tbl, _ := db.Table("v")
		for i, s := range sizes {
			v, err := tbl.Get([]byte(fmt.Sprintf("k%02d", i)))
			if err != nil || len(v) != s || (s > 0 && v[s-1] != byte(i+1)) {
				t.Fatalf("ps %d: value %d of %d bytes: got %d, %v", ps, i, s, len(v), err)
			}
		}
	}
}

func TestEmptyThings(t *testing.T) {
	db := build(t, 4096, func(b *Builder) {
		b.Table("empty", nil)
		tb, _ := b.Table("e", nil)
		tb.Append([]byte{}, []byte{})
		tb.Append([]byte{0}, []byte("zero"))
	})
	e, _ := db.Table("empty")
	if e.Len() != 0 {
		t.Fatal("empty table has rows")
	}
	if _, err := e.Get(nil); !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	c := e.NewCursor(All, All)
	if c.First() || c.Last() || c.Err() != nil {
		t.Fatal("cursor on empty table")
	}
	tbl, _ := db.Table("e")
	if v, err := tbl.Get(nil); err != nil || len(v) != 0 {
		t.Fatalf("empty key: %v %v", v, err)
	}
	// An empty key as a bound is the smallest key, not "unbounded".
	if n, _ := tbl.Count(Excl(nil), All); n != 1 {
		t.Fatalf("count after empty key = %d", n)
	}
	if n, _ := tbl.Count(All, Incl(nil)); n != 1 {
		t.Fatalf("count up to empty key = %d", n)
	}
	if _, err := db.Table("nope"); !errors.Is(err, ErrNoTable) {
		t.Fatal(err)
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

// Index model: non-unique index with many duplicates spanning pages.
func TestIndexModel(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	type ent struct{ ik, pk []byte }
	var ents []ent
	rows := map[string][]byte{}
	for _, ps := range []int{512, 4096} {
		for _, comp := range []Compression{{}, {Kind: CompressS2}} {
			ents = ents[:0]
			clear(rows)
			db := build(t, ps, func(b *Builder) {
				tb, _ := b.Table("t", &TableOptions{Compression: comp})
				byCat, _ := tb.AddIndex("cat", &IndexOptions{Func: func(k, v []byte, emit func([]byte)) {
					emit(v[:1])
					if len(v) > 1 && v[1] == 'x' {
						emit(v[:2]) // a second entry for some rows
					}
				}})
				_ = byCat
				ex, _ := tb.AddIndex("explicit", &IndexOptions{})
				for i := 0; i < 3000; i++ {
					k := []byte(fmt.Sprintf("row%05d", i))
					v := []byte{byte('a' + r.Intn(3)), "xy"[r.Intn(2)], byte(i)}
					rows[string(k)] = v
					tb.Append(k, v)
					ik := []byte{byte(r.Intn(4))} // short keys, with 0x00
					if i%5 == 0 {
						ik = nil // empty index key
					}
					ex.Add(ik, k)
					ents = append(ents, ent{ik, k})
				}
			})
			tbl, _ := db.Table("t")
			ix, _ := tbl.Index("explicit")
			sort.Slice(ents, func(i, j int) bool {
				if c := bytes.Compare(ents[i].ik, ents[j].ik); c != 0 {
					return c < 0
				}
				return bytes.Compare(ents[i].pk, ents[j].pk) < 0
			})
			for q := 0; q < 200; q++ {
				mk := func() Bound {
					k := []byte{byte(r.Intn(5))}
					if r.Intn(4) == 0 {
						k = nil
					}
					return Bound{Kind: BoundKind(r.Intn(3)), Key: k}
				}
				lo, hi := mk(), mk()
				var want []ent
				for _, e := range ents {
					if lo.Kind == Inclusive && bytes.Compare(e.ik, lo.Key) < 0 || lo.Kind == Exclusive && bytes.Compare(e.ik, lo.Key) <= 0 {
						continue
					}
					if hi.Kind == Inclusive && bytes.Compare(e.ik, hi.Key) > 0 || hi.Kind == Exclusive && bytes.Compare(e.ik, hi.Key) >= 0 {
						continue
					}
					want = append(want, e)
				}
				if n, err := ix.Count(lo, hi); err != nil || n != uint64(len(want)) {
					t.Fatalf("index count %v..%v = %d, %v; want %d", lo, hi, n, err, len(want))
				}
				c := ix.NewCursor(lo, hi)
				j := 0
				for ok := c.First(); ok; ok = c.Next() {
					if j >= len(want) || !bytes.Equal(c.IndexKey(), want[j].ik) || !bytes.Equal(c.PrimaryKey(), want[j].pk) || !bytes.Equal(c.Value(), rows[string(want[j].pk)]) {
						t.Fatalf("index scan %v..%v entry %d: %x %s", lo, hi, j, c.IndexKey(), c.PrimaryKey())
					}
					j++
				}
				if j != len(want) || c.Err() != nil {
					t.Fatalf("index scan got %d, want %d (%v)", j, len(want), c.Err())
				}
				j = len(want) - 1
				for ok := c.Last(); ok; ok = c.Prev() {
					if !bytes.Equal(c.PrimaryKey(), want[j].pk) {
						t.Fatalf("reverse index scan entry %d", j)
					}
					j--
				}
				c.Close()
			}
			cat, _ := tbl.Index("cat")
			var wantA int
			for _, v := range rows {
				if v[0] == 'a' {
					wantA++
				}
			}
			if n, _ := cat.Count(Incl([]byte("a")), Incl([]byte("a"))); n != uint64(wantA) {
				t.Fatalf("cat a: %d want %d", n, wantA)
			}
			pc := cat.Prefix([]byte("a"))
			var np int
			for ok := pc.First(); ok; ok = pc.Next() {
				np++
			}
			pc.Close()
			if np < wantA {
				t.Fatalf("prefix a: %d", np)
			}
			pk, v, err := cat.Get([]byte("bx"))
			if err != nil || rows[string(pk)][0] != 'b' || !bytes.Equal(v, rows[string(pk)]) {
				t.Fatalf("index get: %s %v", pk, err)
			}
			if _, _, err := cat.Get([]byte("zz")); !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
		}
	}
}

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

func TestZeroAllocs(t *testing.T) {
	db := build(t, 4096, func(b *Builder) {
		tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
		for i := int64(0); i < 10000; i++ {
			tb.Append(int64Key(i), []byte("value-0000000"))
		}
	})
	tbl, _ := db.Table("t")
	k := int64Key(1234)
	lo, hi := Incl(int64Key(2000)), Incl(int64Key(2099))
	c := tbl.NewCursor(lo, hi)
	for name, fn := range map[string]func(){
		"Get":   func() { tbl.Get(k) },
		"Count": func() { tbl.Count(lo, hi) },
		"At":    func() { tbl.At(5000) },
		"Cursor": func() {
			for ok := c.First(); ok; ok = c.Next() {
				c.Value()
			}
		},
	} {
		if a := testing.AllocsPerRun(100, fn); a != 0 {
			t.Errorf("%s allocates %.1f times per call", name, a)
		}
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

func TestGetMany(t *testing.T) {
	for _, comp := range []Compression{{}, {Kind: CompressS2}} {
		db := build(t, 512, func(b *Builder) {
			tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
			for i := int64(0); i < 3000; i += 2 {
				tb.Append(int64Key(i), []byte(fmt.Sprint(i)))
			}
		})
		tbl, _ := db.Table("t")
		r := rand.New(rand.NewSource(9))
		keys := make([][]byte, 500)
		for i := range keys {
			keys[i] = int64Key(int64(r.Intn(3100) - 50))
		}
		for _, sorted := range []bool{false, true} {
			if sorted {
				sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
			}
			vals, found := make([][]byte, len(keys)), make([]bool, len(keys))
			if err := tbl.GetMany(keys, vals, found); err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				want, err := tbl.Get(k)
				if found[i] != (err == nil) || !bytes.Equal(vals[i], want) {
					t.Fatalf("GetMany[%d] = %q %v, Get = %q %v", i, vals[i], found[i], want, err)
				}
			}
		}
		if err := tbl.GetMany(keys, nil, nil); !errors.Is(err, ErrInvalid) {
			t.Fatal(err)
		}
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

// Open's own errors: each says what and where, and wraps what a caller tests.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.drydb")
	if err := os.WriteFile(short, []byte("drydb"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		is         error
		msg        string
	}{
		{"missing", filepath.Join(dir, "missing.drydb"), fs.ErrNotExist, "open " + filepath.Join(dir, "missing.drydb")},
		{"directory", dir, syscall.EISDIR, "is a directory"},
		{"too short", short, ErrCorrupt, "too short"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(c.path, nil)
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "drydb: ") {
				t.Fatalf("%v: want %v and %q", err, c.is, c.msg)
			}
		})
	}
}

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
