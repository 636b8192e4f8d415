package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	f "github.com/drydb/drydb/engine/internal/format"
	"github.com/drydb/drydb/engine/keyenc"
)

// Key-array pages carry claims that let a search skip reads (format.Leaf8Seq,
// Leaf8Fixed, PgScale). These tests build tables where the claims hold on
// every page, on some and on none, check every answer against the model,
// check that the builder made the claims it should, and that a page whose
// claims lie is reported corrupt (flags) or merely searched the slow way
// (the scale, a hint).

type flagShape struct {
	name string
	key  func(i int) int64 // i-th key, increasing
	val  func(r *rand.Rand, i int) []byte
	// want: every leaf / some leaves / none carries the flag (-1 = don't care)
	seq, fixed int
}

const (
	flagNone = iota
	flagSome
	flagAll
	flagAny = -1
)

func flagShapes() []flagShape {
	fixed13 := func(_ *rand.Rand, i int) []byte { return []byte(fmt.Sprintf("value-%07d", i)) }
	varied := func(r *rand.Rand, _ int) []byte { return make([]byte, r.Intn(40)) }
	return []flagShape{
		{"dense-fixed", func(i int) int64 { return int64(i) }, fixed13, flagAll, flagAll},
		{"dense-negative-fixed", func(i int) int64 { return int64(i) - 2500 }, fixed13, flagAll, flagAll},
		{"dense-empty-values", func(i int) int64 { return int64(i) }, func(*rand.Rand, int) []byte { return nil }, flagAll, flagAll},
		{"dense-varied", func(i int) int64 { return int64(i) }, varied, flagAll, flagAny},
		{"gaps-fixed", func(i int) int64 { return int64(i + i/300*7) }, fixed13, flagSome, flagAll},
		{"sparse-fixed", func(i int) int64 { return int64(i) * 1000 }, fixed13, flagNone, flagAll},
		{"sparse-varied", func(i int) int64 { return int64(i)*3 + int64(i%2) }, varied, flagNone, flagAny},
		{"fixed-one-overflow", func(i int) int64 { return int64(i) }, func(_ *rand.Rand, i int) []byte {
			if i == 2000 {
				return make([]byte, 70000) // overflows: its leaf is not fixed
			}
			return fixed13(nil, i)
		}, flagAll, flagSome},
	}
}

// leafFlags counts the plain leaves of tbl that carry each flag.
func leafFlags(db *DB, tbl *Table) (leaves, seq, fixed int) {
	d := tbl.tree.desc
	for pg := d.FirstPage; pg < d.LastPage; pg++ {
		p := db.data[pg<<db.pshift : (pg+1)<<db.pshift]
		if p[f.PgType]&f.PgTypeMask != f.PageLeaf8 || p[f.PgLevel] != 0 {
			continue
		}
		leaves++
		if p[f.PgType]&f.Leaf8Seq != 0 {
			seq++
		}
		if p[f.PgType]&f.Leaf8Fixed != 0 {
			fixed++
		}
	}
	return
}

func TestPageFlagsModel(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, sh := range flagShapes() {
		for _, ps := range []int{512, 4096} {
			for ci, comp := range []Compression{{}, {Kind: CompressZstd}} {
				t.Run(fmt.Sprintf("%s/ps%d/c%d", sh.name, ps, ci), func(t *testing.T) {
					const rows = 5000
					m := &model{}
					present := map[int64]bool{}
					for i := 0; i < rows; i++ {
						k := sh.key(i)
						present[k] = true
						m.keys = append(m.keys, int64Key(k))
						m.vals = append(m.vals, sh.val(r, i))
					}
					db := buildModel(t, m, &BuilderOptions{PageSize: ps}, &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
					defer db.Close()
					tbl, _ := db.Table("t")
					checkTable(t, r, tbl, m)
					// every key's neighbours: the edges of sequences and pages
					for i := 0; i < rows; i++ {
						for _, k := range []int64{sh.key(i) - 1, sh.key(i) + 1} {
							v, err := tbl.Get(int64Key(k))
							if present[k] != (err == nil) || err != nil && !errors.Is(err, ErrNotFound) {
								t.Fatalf("Get(%d) = %x, %v; present %v", k, v, err, present[k])
							}
						}
					}
					if comp.Kind != CompressNone {
						return // leaves are blocks, not pages: flags counted on plain files
					}
					leaves, seq, fixed := leafFlags(db, tbl)
					for _, c := range []struct {
						what      string
						got, want int
					}{{"consecutive", seq, sh.seq}, {"fixed-size", fixed, sh.fixed}} {
						ok := c.want == flagAny ||
							c.want == flagAll && c.got == leaves ||
							c.want == flagNone && c.got == 0 ||
							c.want == flagSome && c.got > 0 && c.got < leaves
						if !ok {
							t.Errorf("%d of %d leaves flagged %s", c.got, leaves, c.what)
						}
					}
					// a tree of more than two levels of evenly spread keys has
					// scaled branches
					if d := tbl.tree.desc; d.Depth > 1 {
						root := db.data[d.Root<<db.pshift:]
						if sh.name == "dense-fixed" && le.Uint64(root[f.PgScale:]) == 0 && nodeN(root) > 2 {
							t.Errorf("root branch of %d entries has no scale", nodeN(root))
						}
					}
				})
			}
		}
	}
}

// rewrite applies edit to page pg of a file image and fixes its checksum.
func rewrite(data []byte, ps int, pg uint64, edit func(p []byte)) {
	p := data[pg*uint64(ps) : (pg+1)*uint64(ps)]
	edit(p)
	f.PutU32(p, f.PgCRC, f.CRC(p[4:]))
}

func buildInt64Image(t *testing.T, ps int, key func(i int) int64, val func(i int) []byte, rows int) []byte {
	t.Helper()
	b, _ := NewBuilder(&BuilderOptions{PageSize: ps})
	tb, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	for i := 0; i < rows; i++ {
		if err := tb.Append(int64Key(key(i)), val(i)); err != nil {
			t.Fatal(err)
		}
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// treeOf returns the descriptor of table "t" in a file image.
func treeOf(t *testing.T, data []byte) f.Tree {
	t.Helper()
	db, err := OpenBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, _ := db.Table("t")
	return tbl.tree.desc
}

// A branch's scale is a hint: any value leaves every answer right.
func TestBranchScaleIsAHint(t *testing.T) {
	const ps, rows = 512, 3000
	key := func(i int) int64 { return int64(i)*5 + int64(i%3) }
	val := func(i int) []byte { return []byte(fmt.Sprint(i)) }
	for _, scale := range []uint64{1, 2, 1 << 32, 1 << 62, 1<<64 - 1, 0x9e3779b97f4a7c15} {
		data := buildInt64Image(t, ps, key, val, rows)
		d := treeOf(t, data)
		branches := 0
		for pg := d.FirstPage; pg < d.LastPage; pg++ {
			p := data[pg*ps : (pg+1)*ps]
			if p[f.PgType] == f.PageBranch8 {
				rewrite(data, ps, pg, func(p []byte) { f.PutU64(p, f.PgScale, scale) })
				branches++
			}
		}
		if branches < 2 {
			t.Fatalf("%d branch pages; the test wants a deeper tree", branches)
		}
		db, err := OpenBytes(data, &Options{Verify: true})
		if err != nil {
			t.Fatalf("scale %#x: %v", scale, err)
		}
		tbl, _ := db.Table("t")
		for i := -1; i <= rows; i++ {
			for _, k := range []int64{key(i), key(i) + 1} {
				v, err := tbl.Get(int64Key(k))
				want := i >= 0 && i < rows && k == key(i)
				if want != (err == nil) || want && string(v) != string(val(i)) {
					t.Fatalf("scale %#x: Get(%d) = %q, %v", scale, k, v, err)
				}
			}
			if i >= 0 && i < rows && i%10 == 0 {
				if rk, err := tbl.Rank(int64Key(key(i))); err != nil || rk != uint64(i) {
					t.Fatalf("scale %#x: Rank(%d) = %d, %v", scale, key(i), rk, err)
				}
			}
		}
		db.Close()
	}
}

// A leaf whose flags claim what its keys or entries do not hold is corrupt,
// found both by Verify and by the first read of the page.
func TestPageFlagsThatLie(t *testing.T) {
	const ps, rows = 512, 200
	cases := []struct {
		name string
		key  func(i int) int64
		val  func(i int) []byte
		set  byte
		leaf bool // edit a leaf (else a branch)
	}{
		{"seq on sparse keys", func(i int) int64 { return int64(i) * 2 }, func(int) []byte { return []byte("abc") }, f.Leaf8Seq, true},
		{"fixed on varied values", func(i int) int64 { return int64(i) }, func(i int) []byte { return make([]byte, i%5) }, f.Leaf8Fixed, true},
		{"unknown flag", func(i int) int64 { return int64(i) }, func(int) []byte { return []byte("abc") }, 0x40, true},
		{"flag on a branch", func(i int) int64 { return int64(i) }, func(int) []byte { return []byte("abc") }, f.Leaf8Seq, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := buildInt64Image(t, ps, c.key, c.val, rows)
			d := treeOf(t, data)
			victim := uint64(0)
			for pg := d.FirstPage; pg < d.LastPage && victim == 0; pg++ {
				p := data[pg*ps : (pg+1)*ps]
				if (p[f.PgLevel] == 0) == c.leaf && p[f.PgType]&c.set == 0 {
					victim = pg
				}
			}
			if victim == 0 {
				t.Fatal("no page to edit")
			}
			rewrite(data, ps, victim, func(p []byte) { p[f.PgType] |= c.set })
			if _, err := OpenBytes(data, &Options{Verify: true}); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Verify: %v, want corrupt", err)
			}
			db, err := OpenBytes(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			tbl, _ := db.Table("t")
			var sawCorrupt bool
			for i := 0; i < rows; i++ {
				v, err := tbl.Get(int64Key(c.key(i)))
				switch {
				case errors.Is(err, ErrCorrupt):
					sawCorrupt = true
				case err != nil || !bytes.Equal(v, c.val(i)):
					t.Fatalf("Get(%d) = %x, %v: a wrong answer", c.key(i), v, err)
				}
			}
			if !sawCorrupt {
				t.Fatal("no read reported the page corrupt")
			}
		})
	}
}

// A tree learns the entry size of its fixed-size leaves as it checks them
// (tree.stride) and uses it only while every leaf checked so far agrees: a
// table whose halves have different value sizes must read right in any
// order, from any number of goroutines.
func TestFixedStrideState(t *testing.T) {
	const ps, rows = 512, 2000
	val := func(i int) []byte {
		n := 9
		if i >= rows/2 {
			n = 20
		}
		v := make([]byte, n)
		for j := range v {
			v[j] = byte(i + j)
		}
		return v
	}
	key := func(i int) int64 { return int64(i) }
	data := buildInt64Image(t, ps, key, val, rows)
	get := func(tbl *Table, i int) {
		v, err := tbl.Get(int64Key(key(i)))
		if err != nil || !bytes.Equal(v, val(i)) {
			t.Errorf("Get(%d) = %x, %v; want %x", i, v, err, val(i))
		}
	}

	db, err := OpenBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	tbl, _ := db.Table("t")
	for i := 0; i < rows/2-200; i++ { // leaves of 9-byte values only
		get(tbl, i)
	}
	if s := tbl.tree.stride.Load(); s != 2+9 {
		t.Fatalf("stride %d after the first half, want 11", s)
	}
	for i := rows - 1; i >= 0; i-- {
		get(tbl, i)
	}
	if s := tbl.tree.stride.Load(); s != -1 {
		t.Fatalf("stride %d after both halves, want -1", s)
	}
	db.Close()

	// first touches racing: every goroutine checks every answer
	for round := 0; round < 5; round++ {
		db, err := OpenBytes(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		tbl, _ := db.Table("t")
		done := make(chan struct{})
		for g := 0; g < 4; g++ {
			go func(g int) {
				defer func() { done <- struct{}{} }()
				r := rand.New(rand.NewSource(int64(round*10 + g)))
				for n := 0; n < 2000; n++ {
					get(tbl, r.Intn(rows))
				}
			}(g)
		}
		for g := 0; g < 4; g++ {
			<-done
		}
		db.Close()
	}
}
