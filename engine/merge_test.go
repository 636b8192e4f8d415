package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// mergeSpec is a two-table database (strings "s" with a function index
// and an explicit index, int64 "n" plain) and its changes.
type mergeSpec struct {
	ps        int
	comp      Compression // of table "s"
	newComp   *Compression
	newPS     int
	rows      int
	big       int     // one value in big is an overflow value
	upsert    float64 // fraction of rows replaced
	insert    int     // new keys
	del       float64 // fraction of rows deleted
	delAll    bool
	firstLast bool // upserts of new first and last keys
	nFirst    bool // table "n" before "s": "s"'s overflow references move
}

var (
	strEnc = keyenc.Encoding{Kind: keyenc.String}
	i64Enc = keyenc.Encoding{Kind: keyenc.Int64}
)

// byVal is the function index: the value's first 3 bytes.
func byVal(key, val []byte, emit func([]byte)) { emit(val[:min(3, len(val))]) }

// tagOf is the explicit index's key of a row.
func tagOf(k, v []byte) []byte { return []byte(fmt.Sprintf("t%d", (len(v)+int(k[len(k)-1]))%7)) }

func mergeVal(r *rand.Rand, big int) []byte {
	n := 1 + r.Intn(40)
	if big > 0 && r.Intn(big) == 0 {
		n = 2000 + r.Intn(9000)
	}
	v := make([]byte, n)
	for i := range v {
		v[i] = byte('a' + r.Intn(4))
	}
	return v
}

type rowSet map[string][]byte

// buildSet writes the rows of both tables from scratch.
func buildSet(t *testing.T, ps int, comp Compression, s, n rowSet, nFirst bool) []byte {
	t.Helper()
	b, err := NewBuilder(&BuilderOptions{PageSize: ps, Metadata: map[string][]byte{"m": []byte("1")}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var tn *TableBuilder
	if nFirst {
		tn, _ = b.Table("n", &TableOptions{Encoding: i64Enc})
	}
	ts, _ := b.Table("s", &TableOptions{Encoding: strEnc, Compression: comp})
	if _, err := ts.AddIndex("by_val", &IndexOptions{Encoding: strEnc, Func: byVal}); err != nil {
		t.Fatal(err)
	}
	tag, _ := ts.AddIndex("tag", &IndexOptions{Encoding: strEnc})
	for k, v := range s {
		if err := ts.AppendRow([]byte(k), v, IndexEntry{tag, tagOf([]byte(k), v)}); err != nil {
			t.Fatal(err)
		}
	}
	if !nFirst {
		tn, _ = b.Table("n", &TableOptions{Encoding: i64Enc})
	}
	for k, v := range n {
		if err := tn.Append([]byte(k), v); err != nil {
			t.Fatal(err)
		}
	}
	img, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// dumpDB lists every table's rows and every index's entries.
func dumpDB(t *testing.T, db *DB) []string {
	t.Helper()
	var out []string
	for _, name := range db.Tables() {
		tbl, _ := db.Table(name)
		out = append(out, fmt.Sprintf("table %s %d %v", name, tbl.Len(), tbl.Compression()))
		c := tbl.NewCursor(All, All)
		for ok := c.First(); ok; ok = c.Next() {
			out = append(out, fmt.Sprintf("%q=%q", c.Key(), c.Value()))
		}
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
		c.Close()
		for _, iname := range tbl.Indexes() {
			ix, _ := tbl.Index(iname)
			out = append(out, fmt.Sprintf("index %s %d", iname, ix.Len()))
			ic := ix.NewCursor(All, All)
			for ok := ic.First(); ok; ok = ic.Next() {
				out = append(out, fmt.Sprintf("%q>%q", ic.IndexKey(), ic.PrimaryKey()))
			}
			ic.Close()
		}
	}
	return out
}

func TestMergeMatchesRebuild(t *testing.T) {
	zstd := Compression{Kind: CompressZstd}
	cases := []struct {
		name string
		spec mergeSpec
	}{
		{"plain 1%", mergeSpec{ps: 4096, rows: 3000, upsert: 0.01, insert: 20, del: 0.01}},
		{"plain 30% big values", mergeSpec{ps: 4096, rows: 2000, big: 20, upsert: 0.2, insert: 200, del: 0.1}},
		{"plain 512 first last", mergeSpec{ps: 512, rows: 2000, upsert: 0.05, insert: 5, del: 0.05, firstLast: true}},
		{"plain 64k", mergeSpec{ps: 65536, rows: 5000, big: 50, upsert: 0.02, insert: 50, del: 0.02, firstLast: true}},
		{"delete every row", mergeSpec{ps: 1024, rows: 1500, big: 30, delAll: true}},
		{"delete every row, insert", mergeSpec{ps: 1024, rows: 1500, delAll: true, insert: 40}},
		{"zstd", mergeSpec{ps: 4096, comp: zstd, rows: 4000, upsert: 0.01, insert: 30, del: 0.01, firstLast: true}},
		{"zstd big values", mergeSpec{ps: 1024, comp: zstd, rows: 2000, big: 25, upsert: 0.05, insert: 30, del: 0.05}},
		{"zstd dictionary", mergeSpec{ps: 4096, comp: Compression{Kind: CompressZstd, Dictionary: true}, rows: 4000, upsert: 0.03, insert: 10, del: 0.01}},
		{"zstd big values moved", mergeSpec{ps: 1024, comp: zstd, rows: 2000, big: 25, upsert: 0.05, insert: 30, del: 0.05, nFirst: true}},
		{"s2", mergeSpec{ps: 2048, comp: Compression{Kind: CompressS2}, rows: 3000, big: 40, upsert: 0.1, insert: 10, del: 0.1, firstLast: true}},
		{"no changes", mergeSpec{ps: 4096, rows: 3000, big: 40}},
		{"empty base", mergeSpec{ps: 4096, rows: 0, insert: 500}},
		{"compression changed", mergeSpec{ps: 4096, rows: 3000, big: 40, upsert: 0.05, insert: 10, del: 0.05, newComp: &zstd}},
		{"page size changed", mergeSpec{ps: 4096, comp: zstd, rows: 3000, big: 40, upsert: 0.05, insert: 10, del: 0.05, newPS: 1024}},
	}
	for ci, c := range cases {
		for seed := int64(0); seed < 3; seed++ {
			t.Run(fmt.Sprintf("%s/%d", c.name, seed), func(t *testing.T) {
				testMerge(t, rand.New(rand.NewSource(seed*100+int64(ci))), c.spec)
			})
		}
	}
}

func testMerge(t *testing.T, r *rand.Rand, sp mergeSpec) {
	s, n := rowSet{}, rowSet{}
	for len(s) < sp.rows {
		s["k"+fmt.Sprint(r.Intn(sp.rows*10))] = mergeVal(r, sp.big)
	}
	for len(n) < sp.rows/2 {
		n[string(keyenc.EncodeInt64(int64(r.Intn(sp.rows*10))))] = mergeVal(r, sp.big)
	}
	base, err := OpenBytes(buildSet(t, sp.ps, sp.comp, s, n, sp.nFirst), &Options{CacheBytes: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()

	mb, err := NewMergeBuilder(base, &BuilderOptions{PageSize: sp.newPS})
	if err != nil {
		t.Fatal(err)
	}
	defer mb.Close()
	var topts *TableOptions
	comp := sp.comp
	if sp.newComp != nil {
		comp = *sp.newComp
		topts = &TableOptions{Encoding: strEnc, Compression: comp}
	}
	ts, err := mb.Table("s", topts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.AddIndex("by_val", &IndexOptions{Encoding: strEnc, Func: byVal}); err != nil {
		t.Fatal(err)
	}
	tag, err := ts.AddIndex("tag", nil)
	if err != nil {
		t.Fatal(err)
	}
	tn, _ := mb.Table("n", nil)
	apply := func(tb *TableBuilder, set rowSet, upsert func(k, v []byte) error, newKey func() string) {
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		nu, nd := int(sp.upsert*float64(len(keys))), int(sp.del*float64(len(keys)))
		if sp.delAll {
			nu, nd = 0, len(keys)
		}
		for _, k := range keys[:nu] {
			v := mergeVal(r, sp.big)
			set[k] = v
			if err := upsert([]byte(k), v); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range keys[nu : nu+nd] {
			delete(set, k)
			if err := tb.Delete([]byte(k)); err != nil {
				t.Fatal(err)
			}
		}
		var absent []string
		for i := 0; i < 3; i++ { // keys that are not there, deleted twice
			k := newKey()
			if _, there := set[k]; !there {
				absent = append(absent, k)
				tb.Delete([]byte(k))
				tb.Delete([]byte(k))
			}
		}
		for i := 0; i < sp.insert; i++ {
			k := newKey()
			if _, there := set[k]; there || slices.Contains(keys[:nu+nd], k) || slices.Contains(absent, k) {
				continue
			}
			v := mergeVal(r, sp.big)
			set[k] = v
			if err := upsert([]byte(k), v); err != nil {
				t.Fatal(err)
			}
		}
	}
	i64 := func(v int64) string { return string(keyenc.EncodeInt64(v)) }
	sNew := func() string { return "k" + fmt.Sprint(r.Intn(sp.rows*10+100)) + "x" }
	apply(ts, s, func(k, v []byte) error { return ts.AppendRow(k, v, IndexEntry{tag, tagOf(k, v)}) }, sNew)
	apply(tn, n, tn.Append, func() string { return i64(int64(r.Intn(sp.rows*10 + 100))) })
	if sp.firstLast {
		for _, k := range []string{"a", "a0", "zz", "zzz"} {
			v := mergeVal(r, sp.big)
			s[k] = v
			if err := ts.AppendRow([]byte(k), v, IndexEntry{tag, tagOf([]byte(k), v)}); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range []int64{-5, 1 << 40} {
			n[i64(k)] = []byte("edge")
			if err := tn.Append([]byte(i64(k)), []byte("edge")); err != nil {
				t.Fatal(err)
			}
		}
	}
	merged, _, err := mb.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	ps := sp.ps
	if sp.newPS != 0 {
		ps = sp.newPS
	}
	want := buildSet(t, ps, comp, s, n, sp.nFirst)
	mdb, err := OpenBytes(merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mdb.Close()
	if err := mdb.Verify(); err != nil {
		t.Fatalf("merged file fails Verify: %v", err)
	}
	wdb, err := OpenBytes(want, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer wdb.Close()
	got, exp := dumpDB(t, mdb), dumpDB(t, wdb)
	if !slices.Equal(got, exp) {
		for i := range min(len(got), len(exp)) {
			if got[i] != exp[i] {
				t.Fatalf("merged differs from rebuild at line %d: got %s, want %s (lines %d vs %d)", i, got[i], exp[i], len(got), len(exp))
			}
		}
		t.Fatalf("merged has %d lines, rebuild %d", len(got), len(exp))
	}
	if mdb.Info().PageSize != ps || string(mdb.Info().Metadata["m"]) != "1" {
		t.Fatalf("info %+v", mdb.Info())
	}
}

// Refused merges: every message names what is wrong.
func TestMergeRefusals(t *testing.T) {
	base, err := OpenBytes(buildSet(t, 4096, Compression{}, rowSet{"a": []byte("1"), "b": []byte("2")}, rowSet{}, false), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	cases := []struct {
		name string
		do   func(b *Builder) error
		want string
	}{
		{"upserted twice", func(b *Builder) error {
			ts, _ := b.Table("s", nil)
			ts.Append([]byte("a"), []byte("x"))
			return ts.Append([]byte("a"), []byte("y"))
		}, "twice"},
		{"upserted and deleted", func(b *Builder) error {
			ts, _ := b.Table("s", nil)
			ts.Append([]byte("b"), []byte("x"))
			return ts.Delete([]byte("b"))
		}, "both upserted and deleted"},
		{"new index", func(b *Builder) error {
			ts, _ := b.Table("s", nil)
			_, err := ts.AddIndex("other", nil)
			return err
		}, "cannot add index"},
		{"encoding changed", func(b *Builder) error {
			_, err := b.Table("s", &TableOptions{Encoding: i64Enc})
			return err
		}, "keeps the key encoding"},
		{"unique index changed", func(b *Builder) error {
			ts, _ := b.Table("s", nil)
			_, err := ts.AddIndex("tag", &IndexOptions{Unique: true, Encoding: strEnc})
			return err
		}, "keeps the index's unique flag"},
		{"bad deleted key", func(b *Builder) error {
			tn, _ := b.Table("n", nil)
			return tn.Delete([]byte("short"))
		}, "deleted key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mb, err := NewMergeBuilder(base, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer mb.Close()
			err = c.do(mb)
			if err == nil {
				_, _, err = mb.BuildToBytes()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	b, _ := NewBuilder(nil)
	defer b.Close()
	tb, _ := b.Table("x", nil)
	if err := tb.Delete([]byte("a")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Delete on a plain builder: %v", err)
	}
	base.Close()
	if _, err := NewMergeBuilder(base, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("merge from a closed base: %v", err)
	}
}

// A unique index: an upsert that takes an index key another row keeps is
// refused, one that frees it for another row is not.
func TestMergeUnique(t *testing.T) {
	build := func(rows map[string]string) *DB {
		b, _ := NewBuilder(nil)
		defer b.Close()
		tb, _ := b.Table("t", nil)
		ix, _ := tb.AddIndex("u", &IndexOptions{Unique: true})
		for k, v := range rows {
			tb.AppendRow([]byte(k), []byte(v), IndexEntry{ix, []byte(v)})
		}
		img, _, err := b.BuildToBytes()
		if err != nil {
			t.Fatal(err)
		}
		db, _ := OpenBytes(img, nil)
		return db
	}
	rows := map[string]string{}
	for i := range 2000 {
		rows[fmt.Sprintf("r%05d", i)] = fmt.Sprintf("v%05d", i)
	}
	base := build(rows)
	defer base.Close()
	for _, c := range []struct {
		key, val string
		ok       bool
	}{{"r00010", "v00011x", true}, {"r00010", "v01999", false}, {"r99999", "v00000", false}, {"r00000", "v00000", true}} {
		mb, _ := NewMergeBuilder(base, nil)
		tb, _ := mb.Table("t", nil)
		ix, _ := tb.AddIndex("u", nil)
		tb.AppendRow([]byte(c.key), []byte(c.val), IndexEntry{ix, []byte(c.val)})
		_, _, err := mb.BuildToBytes()
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrDuplicateKey)) {
			t.Errorf("%s=%s: %v", c.key, c.val, err)
		}
		mb.Close()
	}
	// freeing a key and taking it in the same merge
	mb, _ := NewMergeBuilder(base, nil)
	defer mb.Close()
	tb, _ := mb.Table("t", nil)
	ix, _ := tb.AddIndex("u", nil)
	tb.Delete([]byte("r00001"))
	tb.AppendRow([]byte("r01500"), []byte("v00001"), IndexEntry{ix, []byte("v00001")})
	img, _, err := mb.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenBytes(img, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, _ := db.Table("t")
	u, _ := tbl.Index("u")
	if pk, _, err := u.Get([]byte("v00001")); err != nil || !bytes.Equal(pk, []byte("r01500")) {
		t.Fatalf("u[v00001] = %q, %v", pk, err)
	}
}
