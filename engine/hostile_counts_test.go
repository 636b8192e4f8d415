package engine_test

import (
	"errors"
	"fmt"
	"testing"

	. "github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/internal/hostile"
)

// Tree descriptors whose counts the region cannot hold are corrupt at open.
// Found by the fuzzer: a zstd table claiming 2^64-1 leaves sized the page
// cache from (leaves+1) x page size, which wrapped to 0, so no cache was
// made and the first get dereferenced nil.
func TestCatalogCountsBoundedByRegion(t *testing.T) {
	for _, seed := range []string{"zstd-int64", "plain-string-int64"} {
		for _, c := range []struct {
			name string
			edit func(leaves, rows *uint64)
		}{
			{"leaves 2^64-1", func(l, r *uint64) { *l = 1<<64 - 1 }},
			{"leaves 2^63-1", func(l, r *uint64) { *l = 1<<63 - 1 }},
			{"leaves 0", func(l, r *uint64) { *l = 0 }},
			{"leaves past the region", func(l, r *uint64) { *l = 1 << 40 }},
			{"rows 2^64-1", func(l, r *uint64) { *r = 1<<64 - 1 }},
			{"rows 0", func(l, r *uint64) { *r = 0 }},
		} {
			t.Run(fmt.Sprintf("%s/%s", seed, c.name), func(t *testing.T) {
				fl, err := hostile.Parse(hostileSeed(t, seed).Data)
				if err != nil {
					t.Fatal(err)
				}
				tr := &fl.Cat.Tables[0].Tree
				c.edit(&tr.Leaves, &tr.Rows)
				data, err := fl.Bytes()
				if err != nil {
					t.Fatal(err)
				}
				db, err := OpenBytes(data, nil)
				if !errors.Is(err, ErrCorrupt) {
					if db != nil {
						db.Close()
					}
					t.Fatalf("open: %v, want corrupt", err)
				}
			})
		}
	}
}
