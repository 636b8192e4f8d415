package engine

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	f "github.com/drydb/drydb/engine/internal/format"
)

// Key shapes for the heads of slotted pages (format.PgHeads): long shared
// prefixes (the page prefix), keys that are prefixes of others or end in
// zero bytes (heads are zero-padded), runs of keys whose four bytes after
// the prefix agree (ties, searched by whole keys), and keys of the maximum
// size.
var headShapes = []struct {
	name string
	key  func(r *rand.Rand, i, ps int) []byte
}{
	{"user", func(r *rand.Rand, i, ps int) []byte { return []byte(fmt.Sprintf("user:%011d", r.Intn(1<<30))) }},
	{"prefixes", func(r *rand.Rand, i, ps int) []byte {
		k := []byte("shared/prefix/")
		for n := r.Intn(6); n > 0; n-- {
			k = append(k, []byte{0, 'a', 0xFF, 'b'}[r.Intn(4)])
		}
		return k
	}},
	{"ties", func(r *rand.Rand, i, ps int) []byte {
		return []byte(fmt.Sprintf("p%02d-SAME-%06d", r.Intn(3), r.Intn(1_000_000)))
	}},
	{"zeros", func(r *rand.Rand, i, ps int) []byte { return make([]byte, r.Intn(40)) }},
	{"maxsize", func(r *rand.Rand, i, ps int) []byte {
		// keys that differ in their last bytes make separators of
		// nearly the maximum size
		k := make([]byte, MaxKeySize(ps))
		for j := range k {
			k[j] = 'k'
		}
		copy(k[len(k)-4:], fmt.Sprintf("%04d", r.Intn(10_000)))
		return k
	}},
}

func TestModelHeads(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for _, sh := range headShapes {
		for _, ps := range []int{512, 4096} {
			for _, comp := range []Compression{{}, {Kind: CompressZstd}} {
				t.Run(fmt.Sprintf("%s/ps%d/%s", sh.name, ps, comp.Kind), func(t *testing.T) {
					m := &model{}
					seen := map[string]bool{}
					for i := 0; i < 3000 && len(seen) < 2000; i++ {
						k := sh.key(r, i, ps)
						if !seen[string(k)] {
							seen[string(k)] = true
							m.keys = append(m.keys, k)
							m.vals = append(m.vals, []byte(fmt.Sprint(i)))
						}
					}
					db := buildModel(t, m, &BuilderOptions{PageSize: ps}, &TableOptions{Compression: comp})
					defer db.Close()
					tbl, _ := db.Table("t")
					checkTable(t, r, tbl, m)
					if comp.Kind == CompressNone {
						withHeads, without := countHeads(db, &tbl.tree)
						t.Logf("pages with heads %d, without %d", withHeads, without)
						if withHeads == 0 || without != 0 {
							t.Fatalf("pages with heads %d, without %d", withHeads, without)
						}
					}
				})
			}
		}
	}
}

// countHeads counts the pages of a plain tree's region with and without
// format.PgHeads.
func countHeads(db *DB, tr *tree) (with, without int) {
	for pg := tr.desc.FirstPage; pg < tr.desc.LastPage; pg++ {
		p := db.data[pg<<db.pshift : (pg+1)<<db.pshift]
		if typ := p[f.PgType] & f.PgTypeMask; typ == f.PageLeaf || typ == f.PageBranch {
			if p[f.PgType]&f.PgHeads != 0 {
				with++
			} else {
				without++
			}
		}
	}
	return
}

// Heads that lie (a wrong head or prefix) make the page corrupt. (A page
// whose flag is cleared is still a valid page: its heads area is then
// unused bytes, and searches compare whole keys.)
func TestHeadsThatLie(t *testing.T) {
	m := &model{}
	for i := 0; i < 500; i++ {
		m.keys = append(m.keys, []byte(fmt.Sprintf("key-%06d", i*3)))
		m.vals = append(m.vals, []byte("v"))
	}
	for _, edit := range []struct {
		name string
		do   func(p []byte)
	}{
		{"head", func(p []byte) {
			o := f.PageHeaderSize + f.SlotSize*nodeN(p) + f.HeadsHeader + 4*3
			p[o+3]++
		}},
		{"prefix", func(p []byte) { p[f.PageHeaderSize+f.SlotSize*nodeN(p)]++ }},
	} {
		t.Run(edit.name, func(t *testing.T) {
			db := buildModel(t, m, &BuilderOptions{PageSize: 1024}, nil)
			tbl, _ := db.Table("t")
			data := append([]byte(nil), db.data...)
			db.Close()
			pg := tbl.tree.desc.FirstPage // the first leaf
			p := data[pg<<10 : (pg+1)<<10]
			edit.do(p)
			f.PutU32(p, f.PgCRC, f.CRC(p[4:]))
			db2, err := OpenBytes(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			t2, _ := db2.Table("t")
			if _, err := t2.Get(m.keys[0]); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("get: %v, want corrupt", err)
			}
			if err := db2.Verify(); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("verify: %v, want corrupt", err)
			}
		})
	}
}
