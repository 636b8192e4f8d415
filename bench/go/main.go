// Command bench/go is the Go harness of drydb's benchmark suite: the shapes
// of bench/c (see bench/README.md) for three Go stores, measured the same way
// and printed as the same JSON lines, with "lang":"go".
//
//	go run ./bench/go ROWS DATADIR [-stores drydb,bbolt,array] [-shapes get_one,...]
//
// env: BENCH_REPS (5), BENCH_BUILD_REPS (3), BENCH_TARGET_MS (25).
// bench/run builds it into bench/out/bench_go and runs it once per row count.
//
// Stores (stores.go): drydb (the engine package, zero-copy Get, GetMany,
// Cursor, Count), bbolt (go.etcd.io/bbolt: one long-lived read-only
// transaction, built with FillPercent 1.0) and array (a sorted []int64 with
// sort.Search: the Go floor).
//
// Timing follows bench/c/driver.c: time.Now (monotonic); each shape is
// calibrated once so that one repetition of `ops` operations lasts about
// BENCH_TARGET_MS, then run BENCH_REPS times; the median of the
// per-repetition ns/op is reported. Every store passes the correctness
// checks (get(123), get(N) absent, get(N-1), the 100-row scan, the 8,000-row
// count, a get_many batch) before anything is timed.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	streamKeys = 1 << 20
	batch      = 256
	vlen       = 13
)

// store is what every Go store implements. Keys are 8 bytes (encodeKey),
// values 13 bytes; build input is sorted. Returned values may point into the
// store (zero-copy) and stay valid until the next call.
type store interface {
	name() string
	config() string
	version() string
	// build writes a new database at path, durable (synced) when it returns.
	build(path string, keys, vals [][]byte) error
	open(path string) error
	close()
	get(k []byte) ([]byte, bool)
	// getMany fills vals[i] (nil when absent) and returns how many were
	// found; ok is false for stores without a native batch call.
	getMany(keys, vals [][]byte) (n int, ok bool)
	// scan visits lo <= key <= hi in order, reading every value; it returns
	// the rows and the sum of len(v) + v[len(v)-1] (as bench/c does).
	scan(lo, hi []byte) (rows int, sum uint64)
	count(lo, hi []byte) int
}

var allStores = map[string]func() store{
	"drydb": func() store { return &drydbStore{} },
	"bbolt": func() store { return &boltStore{} },
	"array": func() store { return &arrayStore{} },
}

// encodeKey: int64 -> 8 bytes big-endian with the sign bit flipped.
func encodeKey(k int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(k)^(1<<63))
	return b[:]
}

func decodeKey(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)) }

// value: "value-" + 7 digits.
func value(k int64) []byte { return fmt.Appendf(nil, "value-%07d", k) }

// lcg: seed = seed*1664525 + 1013904223 (uint32), as in bench/c/bench.h.
func lcg(seed *uint32) uint32 {
	*seed = *seed*1664525 + 1013904223
	return *seed
}

var sink uint64 // keeps results alive

type bench struct {
	s          store
	n          int64
	path       string
	reps       int
	buildReps  int
	targetNs   float64
	stream     [][]byte // streamKeys keys (LCG seed 42)
	streamPos  int
	manyVals   [][]byte
	random     [][]byte // the 1,000-key sequence of get_random (LCG seed 1)
	shapesWant map[string]bool
}

func (b *bench) wanted(shape string) bool { return b.shapesWant == nil || b.shapesWant[shape] }

func die(s store, n int64, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench_go %s: %s (rows=%d)\n", s.name(), fmt.Sprintf(format, args...), n)
	os.Exit(1)
}

func median(v []float64) float64 {
	t := slices.Clone(v)
	slices.Sort(t)
	if len(t)%2 == 1 {
		return t[len(t)/2]
	}
	return (t[len(t)/2-1] + t[len(t)/2]) / 2
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// emit prints one JSON line; the key order matches bench/c.
func emit(storeName, shape string, rows int64, reps []float64, ops int64, extra [][2]any) {
	r := make([]float64, len(reps))
	for i, x := range reps {
		r[i] = round2(x)
	}
	var sb strings.Builder
	field := func(k string, v any) {
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		sb.WriteByte(',')
		sb.Write(kb)
		sb.WriteByte(':')
		sb.Write(vb)
	}
	sb.WriteString(`{"lang":"go"`)
	field("store", storeName)
	field("shape", shape)
	field("rows", rows)
	field("ns_per_op", round2(median(reps)))
	field("ops_per_rep", ops)
	field("reps", r)
	for _, kv := range extra {
		field(kv[0].(string), kv[1])
	}
	sb.WriteString("}\n")
	os.Stdout.WriteString(sb.String())
}

func timeOps(fn func(int64), ops int64) float64 {
	t0 := time.Now()
	fn(ops)
	return float64(time.Since(t0).Nanoseconds())
}

// run calibrates fn (ops operations per call) to ~targetNs per repetition,
// then times reps repetitions.
func (b *bench) run(shape string, fn func(int64), granule int64, extra ...[2]any) {
	runtime.GC()
	ops := granule
	t := timeOps(fn, ops) // warm-up + calibration
	for t < b.targetNs/10 && ops < 1<<40 {
		ops *= 4
		t = timeOps(fn, ops)
	}
	ops = int64(float64(ops) * b.targetNs / math.Max(t, 1))
	ops = ops / granule * granule
	if ops < granule {
		ops = granule
	}
	runtime.GC()
	r := make([]float64, b.reps)
	for i := range r {
		r[i] = timeOps(fn, ops) / float64(ops)
	}
	emit(b.s.name(), shape, b.n, r, ops, extra)
}

// ---- shapes: each runs ops operations ----

func (b *bench) getOne(ops int64) {
	k := encodeKey(123)
	var s uint64
	for i := int64(0); i < ops; i++ {
		if v, ok := b.s.get(k); ok {
			s += uint64(len(v)) + uint64(v[12])
		}
	}
	sink += s
}

// the same 1,000-key LCG sequence (seed 1), repeating; the keys are
// pre-encoded (bench/c encodes each into a stack buffer, a few ns)
func (b *bench) getRandom(ops int64) {
	var s uint64
	for i := int64(0); i < ops; i++ {
		if v, ok := b.s.get(b.random[i%1000]); ok {
			s += uint64(len(v)) + uint64(v[12])
		}
	}
	sink += s
}

func (b *bench) getStream(ops int64) {
	var s uint64
	for i := int64(0); i < ops; i++ {
		if v, ok := b.s.get(b.stream[b.streamPos]); ok {
			s += uint64(len(v)) + uint64(v[12])
		}
		if b.streamPos++; b.streamPos == streamKeys {
			b.streamPos = 0
		}
	}
	sink += s
}

func (b *bench) getManyStream(ops int64) {
	var s uint64
	for i := int64(0); i < ops; i += batch {
		if b.streamPos+batch > streamKeys {
			b.streamPos = 0
		}
		n, _ := b.s.getMany(b.stream[b.streamPos:b.streamPos+batch], b.manyVals)
		s += uint64(n) + uint64(len(b.manyVals[batch-1]))
		b.streamPos += batch
	}
	sink += s
}

func (b *bench) scan100(ops int64) {
	lo, hi := encodeKey(2000), encodeKey(2099)
	var s uint64
	for i := int64(0); i < ops; i++ {
		n, sum := b.s.scan(lo, hi)
		s += uint64(n) + sum
	}
	sink += s
}

func (b *bench) count8000(ops int64) {
	lo, hi := encodeKey(1000), encodeKey(8999)
	var s uint64
	for i := int64(0); i < ops; i++ {
		s += uint64(b.s.count(lo, hi))
	}
	sink += s
}

func (b *bench) openGet(ops int64) {
	k := encodeKey(123)
	var s uint64
	for i := int64(0); i < ops; i++ {
		if err := b.s.open(b.path); err != nil {
			die(b.s, b.n, "open: %v", err)
		}
		if v, ok := b.s.get(k); ok {
			s += uint64(len(v)) + uint64(v[12])
		}
		b.s.close()
	}
	sink += s
}

// ---- one store ----

func treeBytes(path string) int64 {
	var n int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func (b *bench) removeFiles() {
	os.RemoveAll(b.path)
	os.Remove(b.path + "-lock")
}

func (b *bench) check() {
	s, n := b.s, b.n
	if v, ok := s.get(encodeKey(123)); !ok || string(v) != string(value(123)) {
		die(s, n, "get(123) wrong: %q, %v", v, ok)
	}
	if _, ok := s.get(encodeKey(n)); ok {
		die(s, n, "get(N) should be absent")
	}
	if v, ok := s.get(encodeKey(n - 1)); !ok || string(v) != string(value(n-1)) {
		die(s, n, "get(N-1) wrong")
	}
	var want uint64
	for i := int64(2000); i <= 2099; i++ {
		want += vlen + uint64(value(i)[vlen-1])
	}
	if rows, sum := s.scan(encodeKey(2000), encodeKey(2099)); rows != 100 || sum != want {
		die(s, n, "scan [2000,2099] wrong: %d rows, sum %d (want 100, %d)", rows, sum, want)
	}
	if c := s.count(encodeKey(1000), encodeKey(8999)); c != 8000 {
		die(s, n, "count [1000,8999] wrong: %d", c)
	}
	if got, ok := s.getMany(b.stream[:batch], b.manyVals); ok {
		if got != batch {
			die(s, n, "get_many found %d of %d", got, batch)
		}
		for i, v := range b.manyVals[:batch] {
			if string(v) != string(value(decodeKey(b.stream[i]))) {
				die(s, n, "get_many value %d wrong", i)
			}
		}
	}
}

func (b *bench) runStore(keys, vals [][]byte) {
	s := b.s
	// build: always done once (it makes the file the other shapes read)
	br := 1
	if b.wanted("build") {
		br = b.buildReps
	}
	r := make([]float64, br)
	for i := range r {
		b.removeFiles()
		runtime.GC()
		t0 := time.Now()
		if err := s.build(b.path, keys, vals); err != nil {
			die(s, b.n, "build: %v", err)
		}
		r[i] = float64(time.Since(t0).Nanoseconds()) / float64(b.n)
	}
	if b.wanted("build") {
		emit(s.name(), "build", b.n, r, b.n, [][2]any{
			{"rows_per_s", math.Round(1e9 / median(r))},
			{"file_bytes", treeBytes(b.path)},
			{"version", s.version()},
			{"config", s.config()},
		})
	}

	if err := s.open(b.path); err != nil {
		die(s, b.n, "open: %v", err)
	}
	b.check()
	_, hasMany := s.getMany(b.stream[:1], b.manyVals)

	if b.wanted("get_one") {
		b.run("get_one", b.getOne, 1000)
	}
	if b.wanted("get_random") {
		b.run("get_random", b.getRandom, 1000)
	}
	if b.wanted("get_stream") {
		b.streamPos = 0
		b.run("get_stream", b.getStream, 1000)
	}
	if hasMany && b.wanted("get_many_stream") {
		b.streamPos = 0
		b.run("get_many_stream", b.getManyStream, batch, [2]any{"batch", batch})
	}
	if b.wanted("scan_100") {
		b.run("scan_100", b.scan100, 1)
	}
	if b.wanted("count_8000") {
		b.run("count_8000", b.count8000, 1)
	}
	s.close()
	if b.wanted("open_get") {
		b.run("open_get", b.openGet, 1)
	}
	b.removeFiles()
}

func envInt(name string, def, lo, hi int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v >= lo && v <= hi {
		return v
	}
	return def
}

func main() {
	stores := flag.String("stores", "drydb,bbolt,array", "comma-separated stores")
	shapes := flag.String("shapes", "", "comma-separated shapes (default: all)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: bench_go [-stores drydb,bbolt,array] [-shapes ...] ROWS DATADIR\n")
		flag.PrintDefaults()
	}
	// accept flags after the positional arguments too (bench/c style)
	var pos []string
	args := os.Args[1:]
	for len(args) > 0 {
		flag.CommandLine.Parse(args)
		args = flag.Args()
		if len(args) > 0 {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	if len(pos) != 2 {
		flag.Usage()
		os.Exit(2)
	}
	n, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || n < 9000 {
		fmt.Fprintln(os.Stderr, "bench_go: ROWS must be a number >= 9000 (the count shape reads [1000, 8999])")
		os.Exit(2)
	}
	dir := pos[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "bench_go:", err)
		os.Exit(1)
	}
	b := &bench{
		n:         n,
		reps:      envInt("BENCH_REPS", 5, 1, 64),
		buildReps: envInt("BENCH_BUILD_REPS", 3, 1, 64),
		targetNs:  25e6,
		manyVals:  make([][]byte, batch),
	}
	if ms, err := strconv.ParseFloat(os.Getenv("BENCH_TARGET_MS"), 64); err == nil && ms > 0 {
		b.targetNs = ms * 1e6
	}
	if *shapes != "" {
		b.shapesWant = map[string]bool{}
		for _, s := range strings.Split(*shapes, ",") {
			b.shapesWant[strings.TrimSpace(s)] = true
		}
	}

	// build input and key streams (not timed)
	keys, vals := make([][]byte, n), make([][]byte, n)
	kbuf, vbuf := make([]byte, 0, 8*n), make([]byte, 0, vlen*n)
	for i := int64(0); i < n; i++ {
		kbuf = binary.BigEndian.AppendUint64(kbuf, uint64(i)^(1<<63))
		vbuf = fmt.Appendf(vbuf, "value-%07d", i)
		keys[i] = kbuf[8*i : 8*i+8 : 8*i+8]
		vals[i] = vbuf[vlen*i : vlen*i+vlen : vlen*i+vlen]
	}
	seed := uint32(42)
	sbuf := make([]byte, 0, 8*streamKeys)
	b.stream = make([][]byte, streamKeys)
	for i := range b.stream {
		sbuf = binary.BigEndian.AppendUint64(sbuf, uint64(int64(lcg(&seed)%uint32(n)))^(1<<63))
		b.stream[i] = sbuf[8*i : 8*i+8 : 8*i+8]
	}
	seed = 1
	b.random = make([][]byte, 1000)
	for i := range b.random {
		b.random[i] = encodeKey(int64(lcg(&seed) % uint32(n)))
	}

	for _, name := range strings.Split(*stores, ",") {
		mk, ok := allStores[strings.TrimSpace(name)]
		if !ok {
			fmt.Fprintf(os.Stderr, "bench_go: unknown store %q (have drydb, bbolt, array)\n", name)
			os.Exit(2)
		}
		b.s = mk()
		b.path = filepath.Join(dir, fmt.Sprintf("go-%s-%d.db", b.s.name(), n))
		b.runStore(keys, vals)
	}
	if sink == 42 {
		fmt.Fprintln(os.Stderr)
	}
}
