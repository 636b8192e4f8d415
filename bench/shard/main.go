// Command shard measures reads of a sharded database (a manifest of range
// shards) against the same rows in one file, through the Go engine:
// get (random existing keys), a 100-row scan that crosses a shard boundary,
// and a count over a range that crosses one. It prints one JSON line per
// (layout, operation) with the median ns/op over the reps, then the ratios
// manifest/one file: the median of the repetitions' ratios, the two layouts'
// repetitions alternating.
//
//	go run ./bench/shard -rows 1000000 -shards 8 -reps 7
//
// With -one and -manifest it measures those files instead (the same rows:
// bench/shard/spark_build.py passes the databases Spark built), table
// -table, the boundary being the manifest's first part boundary.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
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
	oneFlag := flag.String("one", "", "measure this file (with -manifest) instead of building")
	manFlag := flag.String("manifest", "", "the manifest of the same rows as -one")
	table := flag.String("table", "t", "the table read")
	flag.Parse()
	if *oneFlag != "" {
		measure(*oneFlag, *manFlag, *table, *reps, *target)
		return
	}
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
	measure(one, man, "t", *reps, *target)
}

// measure times gets of random existing keys, a 100-row scan and a count
// across the boundary of the manifest's first two parts, on one and on man.
func measure(one, man, table string, reps int, target time.Duration) {
	db, err := engine.Open(one, nil)
	check(err)
	tbl, err := db.Table(table)
	check(err)
	rows := tbl.Len()
	keys := make([][]byte, 1<<16)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range keys {
		k, _, err := tbl.At(r.Uint64N(rows))
		check(err)
		keys[i] = append([]byte(nil), k...)
	}
	sh, err := engine.Open(man, nil)
	check(err)
	m := sh.Manifest()
	shards := len(m.Shards)
	if len(m.Tables[0].Parts) < 2 {
		check(fmt.Errorf("%s: fewer than 2 parts", man))
	}
	sh.Close()
	// rows edge-50 .. edge+49: the first row of part 1 is row edge
	edge, err := tbl.Rank(m.Tables[0].Parts[1].First)
	check(err)
	lo, _, err := tbl.At(edge - 50)
	check(err)
	lo = append([]byte(nil), lo...)
	hi, _, err := tbl.At(edge + 50)
	check(err)
	hi = append([]byte(nil), hi...)
	db.Close()

	// Both layouts are open at once and their repetitions alternate, so that
	// the machine's drift (a shared 2-core VM) falls on both alike; the
	// ratio reported is the median of the repetitions' ratios.
	runtime.LockOSThread()
	layouts := []string{"one", "manifest"}
	opsOf := map[string]map[string]func(n int){}
	for _, layout := range layouts {
		path := one
		if layout == "manifest" {
			path = man
		}
		db, err := engine.Open(path, nil)
		check(err)
		defer db.Close()
		tbl, err := db.Table(table)
		check(err)
		opsOf[layout] = map[string]func(n int){
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
	}
	names := []string{"get", "scan100_across_boundary", "count_across_boundary"}
	type result struct{ wall, cpu, ratio, cpuRatio float64 }
	results := map[string]result{}
	for _, name := range names {
		for _, layout := range layouts {
			opsOf[layout][name](1000) // warm: pages checked, shards opened
		}
		n := 1000 // calibrated on one file
		for {
			s := time.Now()
			opsOf["one"][name](n)
			if d := time.Since(s); d >= target/4 {
				n = int(float64(n) * float64(target) / float64(d))
				break
			}
			n *= 4
		}
		ns, cpu := map[string][]float64{}, map[string][]float64{}
		var ratios, cpuRatios []float64
		for k := 0; k < reps; k++ {
			for _, layout := range layouts {
				s, c := time.Now(), threadCPU()
				opsOf[layout][name](n)
				cpu[layout] = append(cpu[layout], float64(threadCPU()-c)/float64(n))
				ns[layout] = append(ns[layout], float64(time.Since(s).Nanoseconds())/float64(n))
			}
			ratios = append(ratios, ns["manifest"][k]/ns["one"][k])
			cpuRatios = append(cpuRatios, cpu["manifest"][k]/cpu["one"][k])
		}
		for _, layout := range layouts {
			reps := roundAll(ns[layout])
			line, _ := json.Marshal(map[string]any{"layout": layout, "shards": shards, "rows": rows, "op": name,
				"ns_per_op": round(median(ns[layout])), "cpu_ns_per_op": round(median(cpu[layout])),
				"ops_per_rep": n, "reps": reps})
			fmt.Println(string(line))
			results[layout+"/"+name] = result{wall: median(ns[layout]), cpu: median(cpu[layout])}
		}
		results[name] = result{ratio: median(ratios), cpuRatio: median(cpuRatios)}
	}
	for _, name := range names {
		o, m, r := results["one/"+name], results["manifest/"+name], results[name]
		fmt.Printf("ratio manifest/one %-24s %.2fx (%.1f / %.1f ns)  thread CPU %.2fx (%.1f / %.1f ns)\n", name,
			r.ratio, m.wall, o.wall, r.cpuRatio, m.cpu, o.cpu)
	}
}

// median of xs (sorted in place).
func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

// threadCPU is the calling thread's CPU time in ns (the measuring goroutine
// is locked to its thread): unlike wall time, it does not grow when other
// work on a shared machine preempts the bench.
func threadCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// RUSAGE_THREAD (Linux)
const rusageThread = 1

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
