package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"

	f "github.com/drydb/drydb/engine/internal/format"
)

// TestSearch8 checks the interpolation searches of key-array pages against
// sort.Search on key sets that interpolate well and badly: every probe key
// is each key, its neighbours and the extremes.
func TestSearch8(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	gen := map[string]func(m int) []uint64{
		"dense": func(m int) []uint64 {
			ks := make([]uint64, m)
			for i := range ks {
				ks[i] = 1<<63 + uint64(i)
			}
			return ks
		},
		"stride1000": func(m int) []uint64 {
			ks := make([]uint64, m)
			for i := range ks {
				ks[i] = 5 + 1000*uint64(i)
			}
			return ks
		},
		"random": func(m int) []uint64 {
			set := map[uint64]bool{}
			for len(set) < m {
				set[r.Uint64()] = true
			}
			ks := make([]uint64, 0, m)
			for k := range set {
				ks = append(ks, k)
			}
			return ks
		},
		"squares": func(m int) []uint64 { // skewed: most keys near the start
			ks := make([]uint64, m)
			for i := range ks {
				ks[i] = uint64(i) * uint64(i) * uint64(i) * uint64(i)
			}
			return ks
		},
		"outlier": func(m int) []uint64 { // one huge key stretches the line
			ks := make([]uint64, m)
			for i := range ks {
				ks[i] = uint64(i)
			}
			ks[m-1] = math.MaxUint64
			return ks
		},
		"full-span": func(m int) []uint64 {
			ks := make([]uint64, m)
			for i := range ks {
				ks[i] = uint64(i)
			}
			ks[0], ks[m-1] = 0, math.MaxUint64
			return ks
		},
	}
	for name, g := range gen {
		for _, m := range []int{1, 2, 3, 7, 64, 163, 500} {
			t.Run(fmt.Sprintf("%s/%d", name, m), func(t *testing.T) {
				ks := g(m)
				sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
				page := make([]byte, 16+8*m)
				for i, k := range ks {
					binary.BigEndian.PutUint64(page[16+8*i:], k)
				}
				binary.LittleEndian.PutUint16(page[6:], uint16(m))
				// the same page with the builder's claims: a scaled branch,
				// and a consecutive-key leaf when the keys are consecutive
				claimed := append([]byte(nil), page...)
				claimed[f.PgType] = f.PageLeaf8
				if ks[m-1]-ks[0] == uint64(m-1) {
					claimed[f.PgType] |= f.Leaf8Seq
				}
				if m > 1 {
					binary.LittleEndian.PutUint64(claimed[f.PgScale:], scale8(claimed[16+8:]))
				}
				probes := []uint64{0, 1, math.MaxUint64, math.MaxUint64 - 1, 1 << 63}
				for _, k := range ks {
					probes = append(probes, k-1, k, k+1)
				}
				for _, k := range probes {
					le := sort.Search(m, func(i int) bool { return ks[i] > k })
					if got := upperBound8(page[16:], k); got != le {
						t.Fatalf("upperBound8(%#x) = %d, want %d", k, got, le)
					}
					lb := sort.Search(m, func(i int) bool { return ks[i] >= k })
					i, found := leafSearch8(page, k)
					if i != lb || found != (lb < m && ks[lb] == k) {
						t.Fatalf("leafSearch8(%#x) = %d %v, want %d", k, i, found, lb)
					}
					want := 0
					if le2 := sort.Search(m-1, func(i int) bool { return ks[i+1] > k }); le2 > 0 {
						want = le2
					}
					if got := branchSearch8(page, k); got != want {
						t.Fatalf("branchSearch8(%#x) = %d, want %d", k, got, want)
					}
					if got := branchSearch8(claimed, k); got != want {
						t.Fatalf("scaled branchSearch8(%#x) = %d, want %d", k, got, want)
					}
					if i, found := leafSearch8(claimed, k); i != lb || found != (lb < m && ks[lb] == k) {
						t.Fatalf("leafSearch8 with flags %#x (%#x) = %d %v, want %d", claimed[f.PgType], k, i, found, lb)
					}
				}
			})
		}
	}
}

// TestHeadsFirst checks the head search (halving, then counting the last
// headsCount or fewer) against sort.Search: every count of heads on both
// sides of headsCount, searches from entry 0 and 1, heads with runs of equal
// values and at the ends of the uint32 range, and every probe between.
func TestHeadsFirst(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	for n := 1; n <= 4*headsCount+3; n++ {
		for _, dup := range []int{1, 3} { // dup 3: runs of equal heads
			hs := make([]uint32, n)
			for i := range hs {
				switch {
				case i == 0 && n > 2:
					hs[i] = 0
				case i == n-1 && n > 2:
					hs[i] = math.MaxUint32
				default:
					hs[i] = uint32(r.Intn(40*n/dup)) * uint32(dup) * 1000
				}
			}
			sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
			heads := make([]byte, 4*n)
			for i, h := range hs {
				binary.BigEndian.PutUint32(heads[4*i:], h)
			}
			probes := []uint32{0, 1, math.MaxUint32, math.MaxUint32 - 1}
			for _, h := range hs {
				probes = append(probes, h, h-1, h+1)
			}
			for from := 0; from <= 1 && from < n; from++ {
				for _, h := range probes {
					want := from + sort.Search(n-from, func(i int) bool { return hs[from+i] >= h })
					if got := headsFirst(heads, from, n, h); got != want {
						t.Fatalf("n %d from %d dup %d head %d: got %d, want %d", n, from, dup, h, got, want)
					}
				}
			}
		}
	}
}
