// Command goreader is the Go reader of the load test: THREADS goroutines
// (default 8) read one file for LOAD_SECONDS seconds through the engine,
// checking every answer against the formulas of tests/load/README.md, then
// print one JSON line. Build and run it with -race.
//
//	go run -race ./tests/load/goreader FILE
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

const (
	intRows  = 200000
	kmin     = -300000
	kmax     = kmin + 3*(intRows-1)
	nameRows = 100000
	groups   = 500
	perGroup = nameRows / groups
)

func intVal(k int64) []byte {
	a := k
	if a < 0 {
		a = -a
	}
	rep := "v" + strconv.FormatInt(k, 10) + ";"
	n := int64(len(rep)) + a*31%251
	if a%97 == 0 {
		n = int64(len(rep)) + 1025 + a%3000
	}
	out := make([]byte, 0, n+int64(len(rep)))
	for int64(len(out)) < n {
		out = append(out, rep...)
	}
	return out[:n]
}

func nameKey(i int64) []byte { return []byte(fmt.Sprintf("user:%07d", i)) }

func nameVal(i int64) []byte {
	v := fmt.Sprintf("name-%d/grp%03d/", i, i%groups)
	return append([]byte(v), bytes.Repeat([]byte("x"), int(i%50))...)
}

func grpKey(g int64) []byte { return []byte(fmt.Sprintf("grp%03d", g)) }

// firstIdx: index of the first int key >= x; lastIdx: of the last key <= x
// (-1 if none). Keys are kmin + 3*i.
func firstIdx(x int64) int64 {
	s := x - kmin
	if s <= 0 {
		return 0
	}
	return (s + 2) / 3
}

func lastIdx(x int64) int64 {
	s := x - kmin
	if s < 0 {
		return -1
	}
	if s/3 > intRows-1 {
		return intRows - 1
	}
	return s / 3
}

type rng struct{ s uint64 }

func (r *rng) next() uint64 { // xorshift64*
	r.s ^= r.s >> 12
	r.s ^= r.s << 25
	r.s ^= r.s >> 27
	return r.s * 2685821657736338717
}
func (r *rng) n(m int64) int64 { return int64(r.next() % uint64(m)) }

type worker struct {
	r      rng
	ints   [2]*engine.Table
	names  *engine.Table
	ix     *engine.Index
	ops    int64
	errors int64
	msgs   []string
	keys   [][]byte
	vals   [][]byte
	found  []bool
}

func (w *worker) fail(format string, args ...any) {
	w.errors++
	if len(w.msgs) < 5 {
		w.msgs = append(w.msgs, fmt.Sprintf(format, args...))
	}
}

func (w *worker) randIntKey(present bool) int64 {
	if present {
		return kmin + 3*w.r.n(intRows)
	}
	if w.r.n(2) == 0 {
		return kmin + 3*w.r.n(intRows) + 1 + w.r.n(2) // in a gap
	}
	if w.r.n(2) == 0 {
		return kmin - 1 - w.r.n(1000)
	}
	return kmax + 1 + w.r.n(1000)
}

func isPresent(k int64) bool { return k >= kmin && k <= kmax && (k-kmin)%3 == 0 }

func (w *worker) op() {
	w.ops++
	t := w.ints[w.r.n(2)]
	switch r := w.r.n(100); {
	case r < 35: // point get, present (25) or absent (10)
		k := w.randIntKey(r < 25)
		v, err := t.Get(keyenc.EncodeInt64(k))
		w.checkGet(t.Name(), k, v, err)
	case r < 50: // batch of 64
		n := 64
		ks := make([]int64, n)
		for i := range ks {
			ks[i] = w.randIntKey(w.r.n(10) < 7)
			w.keys[i] = keyenc.EncodeInt64(ks[i])
		}
		if err := t.GetMany(w.keys[:n], w.vals[:n], w.found[:n]); err != nil {
			w.fail("%s GetMany: %v", t.Name(), err)
			return
		}
		for i, k := range ks {
			if w.found[i] != isPresent(k) || (w.found[i] && !bytes.Equal(w.vals[i], intVal(k))) {
				w.fail("%s GetMany key %d: found=%v len=%d", t.Name(), k, w.found[i], len(w.vals[i]))
			}
		}
	case r < 65: // 100-row scan from a random bound
		lo := kmin - 50 + w.r.n(kmax-kmin+100)
		excl := w.r.n(2) == 0
		b := engine.Incl(keyenc.EncodeInt64(lo))
		fi := firstIdx(lo)
		if excl {
			b = engine.Excl(b.Key)
			fi = firstIdx(lo + 1)
		}
		want := max(0, min(int64(100), intRows-fi))
		c := t.NewCursor(b, engine.All)
		defer c.Close()
		got := int64(0)
		if c.First() {
			for got < want {
				n := c.NextBatch(w.keys[:want-got], w.vals[:want-got], false)
				if n == 0 {
					break
				}
				for i := 0; i < n; i++ {
					k := kmin + 3*(fi+got)
					if !bytes.Equal(w.keys[i], keyenc.EncodeInt64(k)) || !bytes.Equal(w.vals[i], intVal(k)) {
						w.fail("%s scan from %d excl=%v row %d: want key %d", t.Name(), lo, excl, got, k)
						return
					}
					got++
				}
				if !c.Next() {
					break
				}
			}
		}
		if c.Err() != nil || got != want {
			w.fail("%s scan from %d excl=%v: %d rows, want %d (err %v)", t.Name(), lo, excl, got, want, c.Err())
		}
	case r < 75: // count
		span := int64(kmax - kmin + 200)
		lo, hi := kmin-100+w.r.n(span), kmin-100+w.r.n(span)
		if lo > hi {
			lo, hi = hi, lo
		}
		lb, hb := engine.Incl(keyenc.EncodeInt64(lo)), engine.Incl(keyenc.EncodeInt64(hi))
		fi, li := firstIdx(lo), lastIdx(hi)
		switch w.r.n(6) {
		case 0:
			lb, fi = engine.All, 0
		case 1:
			hb, li = engine.All, intRows-1
		case 2:
			lb, fi = engine.Excl(lb.Key), firstIdx(lo+1)
		case 3:
			hb, li = engine.Excl(hb.Key), lastIdx(hi-1)
		}
		want := max(int64(0), li-fi+1)
		n, err := t.Count(lb, hb)
		if err != nil || int64(n) != want {
			w.fail("%s count [%d,%d] kinds %d/%d: %d, want %d (err %v)", t.Name(), lo, hi, lb.Kind, hb.Kind, n, want, err)
		}
	case r < 83: // string get
		i := w.r.n(nameRows + nameRows/10)
		k := nameKey(i)
		if w.r.n(4) == 0 {
			k = append(k, 'x') // between two keys
			i = nameRows
		}
		v, err := w.names.Get(k)
		switch {
		case i < nameRows && (err != nil || !bytes.Equal(v, nameVal(i))):
			w.fail("names get %s: %q, %v", k, v, err)
		case i >= nameRows && err != engine.ErrNotFound:
			w.fail("names get absent %s: %q, %v", k, v, err)
		}
	case r < 87: // string batch of 32
		is := make([]int64, 32)
		for j := range is {
			is[j] = w.r.n(nameRows + nameRows/5)
			w.keys[j] = nameKey(is[j])
		}
		if err := w.names.GetMany(w.keys[:32], w.vals[:32], w.found[:32]); err != nil {
			w.fail("names GetMany: %v", err)
			return
		}
		for j, i := range is {
			if w.found[j] != (i < nameRows) || (w.found[j] && !bytes.Equal(w.vals[j], nameVal(i))) {
				w.fail("names GetMany %d: found=%v %q", i, w.found[j], w.vals[j])
			}
		}
	case r < 92: // index get
		g := w.r.n(groups + 50)
		pk, v, err := w.ix.Get(grpKey(g))
		if g < groups {
			if err != nil || !bytes.Equal(pk, nameKey(g)) || !bytes.Equal(v, nameVal(g)) {
				w.fail("index get grp%03d: %q %q %v", g, pk, v, err)
			}
		} else if err != engine.ErrNotFound {
			w.fail("index get absent grp%03d: %v", g, err)
		}
	case r < 96: // index count over [g1, g2] (inclusive) groups
		g1 := w.r.n(groups + 10)
		g2 := g1 + w.r.n(20)
		want := (min(g2, groups-1) - g1 + 1) * perGroup
		if g1 >= groups {
			want = 0
		}
		n, err := w.ix.Count(engine.Incl(grpKey(g1)), engine.Incl(grpKey(g2)))
		if err != nil || int64(n) != want {
			w.fail("index count grp%03d..grp%03d: %d want %d (%v)", g1, g2, n, want, err)
		}
	default: // index scan: up to 100 entries of one group
		g := w.r.n(groups)
		c := w.ix.GetAll(grpKey(g))
		defer c.Close()
		j := int64(0)
		for ok := c.First(); j < 100 && ok; ok, j = c.Next(), j+1 {
			i := g + groups*j
			if !bytes.Equal(c.PrimaryKey(), nameKey(i)) || !bytes.Equal(c.Value(), nameVal(i)) || !bytes.Equal(c.IndexKey(), grpKey(g)) {
				w.fail("index scan grp%03d entry %d: pk %q", g, j, c.PrimaryKey())
				return
			}
		}
		if c.Err() != nil || j != 100 {
			w.fail("index scan grp%03d: %d entries, err %v", g, j, c.Err())
		}
	}
}

func (w *worker) checkGet(tbl string, k int64, v []byte, err error) {
	if isPresent(k) {
		if err != nil || !bytes.Equal(v, intVal(k)) {
			w.fail("%s get %d: len %d, err %v", tbl, k, len(v), err)
		}
	} else if err != engine.ErrNotFound {
		w.fail("%s get absent %d: len %d, err %v", tbl, k, len(v), err)
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goreader FILE")
		os.Exit(2)
	}
	secs := 60.0
	if s := os.Getenv("LOAD_SECONDS"); s != "" {
		secs, _ = strconv.ParseFloat(s, 64)
	}
	threads := 8
	if s := os.Getenv("THREADS"); s != "" {
		threads, _ = strconv.Atoi(s)
	}
	db, err := engine.Open(os.Args[1], nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "goreader:", err)
		os.Exit(1)
	}
	tabs := func(name string) *engine.Table {
		t, err := db.Table(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "goreader:", err)
			os.Exit(1)
		}
		return t
	}
	ints, zints, names := tabs("ints"), tabs("ints_zstd"), tabs("names")
	ix, err := names.Index("by_grp")
	if err != nil {
		fmt.Fprintln(os.Stderr, "goreader:", err)
		os.Exit(1)
	}
	var stop atomic.Bool
	ws := make([]*worker, threads)
	var wg sync.WaitGroup
	start := time.Now()
	for t := range ws {
		w := &worker{r: rng{uint64(os.Getpid())<<20 ^ uint64(t+1)*0x9E3779B97F4A7C15}, ints: [2]*engine.Table{ints, zints},
			names: names, ix: ix, keys: make([][]byte, 100), vals: make([][]byte, 100), found: make([]bool, 100)}
		ws[t] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					w.fail("panic: %v", p)
				}
			}()
			for !stop.Load() {
				w.op()
			}
		}()
	}
	time.Sleep(time.Duration(secs * float64(time.Second)))
	stop.Store(true)
	wg.Wait()
	el := time.Since(start).Seconds()
	res := map[string]any{"lang": "go", "pid": os.Getpid(), "threads": threads, "seconds": round(el),
		"race": raceEnabled, "gomaxprocs": runtime.GOMAXPROCS(0)}
	var ops, errs int64
	msgs := []string{}
	for _, w := range ws {
		ops += w.ops
		errs += w.errors
		for _, m := range w.msgs {
			if len(msgs) < 5 {
				msgs = append(msgs, m)
			}
		}
	}
	if err := db.Close(); err != nil {
		errs++
		msgs = append(msgs, "close: "+err.Error())
	}
	res["ops"], res["errors"], res["ops_per_s"] = ops, errs, round(float64(ops)/el)
	if len(msgs) > 0 {
		res["first_errors"] = msgs
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}

func round(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }
