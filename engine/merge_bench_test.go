package engine

import (
	"fmt"
	"io"
	"math/rand"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// BenchmarkMerge compares merging 1% and 10% changes (half replaced rows,
// a quarter new keys, a quarter deletes, in random order) into 1,000,000
// rows with a full rebuild of 1,000,000 rows from sorted input, in the same
// run; files go to io.Discard. The targets: merge1% <= 0.3x full,
// merge10% <= 0.6x.
func BenchmarkMerge(b *testing.B) {
	const rows = 1_000_000
	val := func(i int64) []byte { return []byte(fmt.Sprintf("value-%012d", i)) }
	for _, comp := range []Compression{{}, {Kind: CompressZstd}} {
		full := func() []byte {
			bd, _ := NewBuilder(nil)
			defer bd.Close()
			tb, _ := bd.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
			for i := int64(0); i < rows; i++ {
				if err := tb.Append(keyenc.EncodeInt64(2*i), val(i)); err != nil {
					b.Fatal(err)
				}
			}
			img, _, err := bd.BuildToBytes()
			if err != nil {
				b.Fatal(err)
			}
			return img
		}
		base, err := OpenBytes(full(), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%v/full", comp.Kind), func(b *testing.B) {
			for range b.N {
				bd, _ := NewBuilder(nil)
				tb, _ := bd.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
				for i := int64(0); i < rows; i++ {
					tb.Append(keyenc.EncodeInt64(2*i), val(i))
				}
				if _, err := bd.BuildTo(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, pct := range []int{1, 10} {
			r := rand.New(rand.NewSource(int64(pct)))
			n := rows * pct / 100
			b.Run(fmt.Sprintf("%v/merge%d%%", comp.Kind, pct), func(b *testing.B) {
				for range b.N {
					mb, err := NewMergeBuilder(base, nil)
					if err != nil {
						b.Fatal(err)
					}
					tb, _ := mb.Table("t", nil)
					seen := map[int64]bool{}
					for len(seen) < n {
						i := r.Int63n(rows)
						if seen[i] {
							continue
						}
						seen[i] = true
						switch len(seen) % 4 {
						case 0, 1:
							err = tb.Append(keyenc.EncodeInt64(2*i), val(-i))
						case 2:
							err = tb.Append(keyenc.EncodeInt64(2*i+1), val(i))
						case 3:
							err = tb.Delete(keyenc.EncodeInt64(2 * i))
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					if _, err := mb.BuildTo(io.Discard); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		base.Close()
	}
}
