// Command shard measures reads of a sharded database (a manifest of range
// shards) against the same rows in one file, through the Go engine:
// get (random existing keys), a 100-row scan that crosses a shard boundary,
// and a count over a range that crosses one. It prints one JSON line per
// (layout, operation) with the median ns/op over the reps, then the ratios
// manifest/one file.
//
//	go run ./bench/shard -rows 1000000 -shards 8 -reps 7
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

func main() {
	rows := flag.Int("rows", 1_000_000, "rows")
	shards := flag.Int("shards", 8, "shards of the manifest")
	reps := flag.Int("reps", 7, "repetitions; the median is reported")
	target := flag.Duration("target", 200*time.Millisecond, "time per repetition")
	dir := flag.String("dir", "", "working directory (default: a temporary one, removed)")
	flag.Parse()
	if *dir == "" {
		d, err := os.MkdirTemp("", "drydb-shard-bench-")
		check(err)
		defer os.RemoveAll(d)
		*dir = d
	}
	one := filepath.Join(*dir, "one.drydb")
	man := filepath.Join(*dir, "sharded.manifest")
	b, err := engine.NewBuilder(nil)
	check(err)
	t, err := b.Table("t", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	check(err)
	val := make([]byte, 32)
	for i := 0; i < *rows; i++ {
		binary.LittleEndian.PutUint64(val, uint64(i))
		check(t.Append(keyenc.EncodeInt64(int64(i)), val))
	}
	_, err = b.BuildToFile(one)
	check(err)
	src, err := engine.Open(one, nil)
	check(err)
	start := time.Now()
	_, err = engine.BuildShards(src, man, &engine.ShardOptions{Shards: *shards})
	check(err)
	fmt.Fprintf(os.Stderr, "%d rows, %d shards built from one file in %s\n", *rows, *shards, time.Since(start).Round(time.Millisecond))
	src.Close()

	keys := make([][]byte, 1<<16)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range keys {
		keys[i] = keyenc.EncodeInt64(int64(r.IntN(*rows)))
	}
	// the boundary between the first two shards: row rows/shards
	edge := int64(*rows / *shards)
	lo, hi := keyenc.EncodeInt64(edge-50), keyenc.EncodeInt64(edge+50)

	medians := map[string]map[string]float64{}
	for _, layout := range []string{"one", "manifest"} {
		path := one
		if layout == "manifest" {
			path = man
		}
		db, err := engine.Open(path, nil)
		check(err)
		tbl, err := db.Table("t")
		check(err)
		ops := map[string]func(n int){
			"get": func(n int) {
				for i := 0; i < n; i++ {
					if _, err := tbl.Get(keys[i&(len(keys)-1)]); err != nil {
						panic(err)
					}
				}
			},
			"scan100_across_boundary": func(n int) {
				for i := 0; i < n; i++ {
					c := tbl.NewCursor(engine.Incl(lo), engine.Excl(hi))
					got := 0
					for ok := c.First(); ok; ok = c.Next() {
						_ = c.Key()
						_ = c.Value()
						got++
					}
					c.Close()
					if got != 100 {
						panic(fmt.Sprint("scan read ", got))
					}
				}
			},
			"count_across_boundary": func(n int) {
				for i := 0; i < n; i++ {
					if c, err := tbl.Count(engine.Incl(lo), engine.Excl(hi)); err != nil || c != 100 {
						panic(fmt.Sprint(c, err))
					}
				}
			},
		}
		medians[layout] = map[string]float64{}
		for _, name := range []string{"get", "scan100_across_boundary", "count_across_boundary"} {
			op := ops[name]
			op(1000) // warm: pages checked, shards opened
			n := 1000
			for {
				s := time.Now()
				op(n)
				if d := time.Since(s); d >= *target/4 {
					n = int(float64(n) * float64(*target) / float64(d))
					break
				}
				n *= 4
			}
			var ns []float64
			for k := 0; k < *reps; k++ {
				s := time.Now()
				op(n)
				ns = append(ns, float64(time.Since(s).Nanoseconds())/float64(n))
			}
			sort.Float64s(ns)
			med := ns[len(ns)/2]
			medians[layout][name] = med
			line, _ := json.Marshal(map[string]any{"layout": layout, "shards": *shards, "rows": *rows, "op": name,
				"ns_per_op": round(med), "ops_per_rep": n, "reps": roundAll(ns)})
			fmt.Println(string(line))
		}
		db.Close()
	}
	for _, name := range []string{"get", "scan100_across_boundary", "count_across_boundary"} {
		fmt.Printf("ratio manifest/one %-24s %.2fx (%.1f / %.1f ns)\n", name, medians["manifest"][name]/medians["one"][name],
			medians["manifest"][name], medians["one"][name])
	}
}

func round(f float64) float64 { return float64(int(f*10+0.5)) / 10 }

func roundAll(fs []float64) []float64 {
	out := make([]float64, len(fs))
	for i, f := range fs {
		out[i] = round(f)
	}
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "shard bench:", err)
		os.Exit(1)
	}
}
