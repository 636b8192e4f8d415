// Command bench/go is the Go harness of drydb's benchmark suite: the
// operations of bench/c (see bench/README.md) for the Go stores, on the rows
// of one key shape (a bench/shapes.py file), measured the same way and
// printed as the same JSON lines, with "lang":"go".
//
//	go run ./bench/go ROWSFILE DATADIR [-stores drydb,drydb_zstd,bbolt,array] [-ops get_one,...]
//
// env: BENCH_REPS (5), BENCH_BUILD_REPS (3), BENCH_TARGET_MS (25).
// bench/run builds it into bench/out/bench_go and runs it once per row count
// and shape.
//
// Stores (stores.go): drydb (the engine package, zero-copy Get, GetMany,
// Cursor, Count), drydb_zstd (the same with zstd pages, GetPinned), bbolt
// (go.etcd.io/bbolt: one long-lived read-only transaction, built with
// FillPercent 1.0) and array (the Go floor: a sorted []int64 with
// sort.Search for integer keys, a sorted []string with slices.BinarySearch
// for the others).
//
// Timing follows bench/c/driver.c: time.Now (monotonic); each shape is
// calibrated once so that one repetition of `ops` operations lasts about
// BENCH_TARGET_MS, then run BENCH_REPS times; the median of the
// per-repetition ns/op is reported. Every store passes the correctness
// checks (the values of keys 123 and N-1, the absent key, the 100-row scan,
// the 8,000-row count, a get_many batch) before anything is timed.
package main

import (
	"bytes"
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
	randomKeys = 1000
	batch      = 256
)

// store is what every Go store implements. Keys are the rows file's bytes
// (one width per shape), build input is sorted. Returned values may point
// into the store (zero-copy) and stay valid until the next call.
type store interface {
	name() string
	config() string
	version() string
	// build writes a new database at path, durable (synced) when it
	// returns; kind says what the keys are (stores with typed keys use it).
	build(path string, kind keyKind, keys, vals [][]byte) error
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
	"drydb":      func() store { return &drydbStore{} },
	"drydb_zstd": func() store { return &drydbStore{zstd: true} },
	"bbolt":      func() store { return &boltStore{} },
	"array":      func() store { return &arrayStore{} },
}

// keyKind is the rows file's key kind (bench/shapes.py).
type keyKind uint32

const (
	kindInt64  keyKind = 0 // 8 bytes big-endian, sign bit flipped
	kindString keyKind = 1 // UTF-8
	kindUUID   keyKind = 2 // 16 bytes, RFC order
)

func decodeKey(b []byte) int64 { return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)) }

// rows are one shape's rows, read from a bench/shapes.py file (its
// docstring has the format).
type rows struct {
	shape      string
	kind       keyKind
	keys, vals [][]byte // slices of one buffer
	miss       []byte   // a key that is not in the table
}

func readRows(path string) (*rows, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	const hdr = 48
	le := binary.LittleEndian
	if len(b) < hdr || string(b[:8]) != "DRYBENCH" || le.Uint32(b[8:]) != 1 {
		return nil, fmt.Errorf("%s: not a bench/shapes.py rows file of version 1", path)
	}
	klen, n := int(le.Uint32(b[12:])), le.Uint64(b[16:])
	r := &rows{shape: strings.TrimRight(string(b[24:40]), "\x00"), kind: keyKind(le.Uint32(b[40:]))}
	if (klen != 8 && klen != 16) || n < 9000 || n > 1<<30 || r.kind > kindUUID ||
		uint64(len(b)) < hdr+uint64(klen)*(n+1)+n {
		return nil, fmt.Errorf("%s: bad header (klen %d, %d rows, kind %d; 9,000 rows at least)", path, klen, n, r.kind)
	}
	o := hdr
	r.miss = b[o : o+klen : o+klen]
	o += klen
	r.keys, r.vals = make([][]byte, n), make([][]byte, n)
	for i := range r.keys {
		r.keys[i] = b[o : o+klen : o+klen]
		o += klen
	}
	vl, p := b[o:o+int(n)], o+int(n)
	for i, l := range vl {
		if p+int(l) > len(b) {
			return nil, fmt.Errorf("%s: truncated", path)
		}
		r.vals[i] = b[p : p+int(l) : p+int(l)]
		p += int(l)
	}
	if p != len(b) {
		return nil, fmt.Errorf("%s: %d bytes, its header says %d", path, len(b), p)
	}
	return r, nil
}

// lcg: seed = seed*1664525 + 1013904223 (uint32), as in bench/c/bench.h.
func lcg(seed *uint32) uint32 {
	*seed = *seed*1664525 + 1013904223
	return *seed
}

var sink uint64 // keeps results alive

type bench struct {
	s         store
	r         *rows
	n         int64
	path      string
	reps      int
	buildReps int
	targetNs  float64
	stream    [][]byte // streamKeys keys (LCG seed 42)
	streamPos int
	manyVals  [][]byte
	random    [][]byte // the randomKeys keys of get_random (LCG seed 1), repeating
	opsWant   map[string]bool
}

func (b *bench) wanted(op string) bool { return b.opsWant == nil || b.opsWant[op] }

func (b *bench) die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench_go %s: %s (%s, rows=%d)\n", b.s.name(), fmt.Sprintf(format, args...), b.r.shape, b.n)
	os.Exit(1)
}

// lcgKeys draws count keys of the table by row number (LCG % N), copied
// into one buffer in the order used (as bench/c does): reading the next key
// of a stream is then sequential, not a cache miss of its own.
func (b *bench) lcgKeys(seed uint32, count int) [][]byte {
	kl := len(b.r.miss)
	buf, out := make([]byte, 0, kl*count), make([][]byte, count)
	for i := range out {
		buf = append(buf, b.r.keys[lcg(&seed)%uint32(b.n)]...)
		out[i] = buf[kl*i : kl*i+kl : kl*i+kl]
	}
	return out
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
func emit(storeName, data, shape string, rows int64, reps []float64, ops int64, extra [][2]any) {
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
	field("data", data)
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
	emit(b.s.name(), b.r.shape, shape, b.n, r, ops, extra)
}

// ---- operations: each runs ops of them ----

func (b *bench) getOne(ops int64) {
	k := b.r.keys[123]
	var s uint64
	for i := int64(0); i < ops; i++ {
		if v, ok := b.s.get(k); ok {
			s += uint64(len(v)) + uint64(v[len(v)-1])
		}
	}
	sink += s
}

// the same randomKeys keys, repeating
func (b *bench) getRandom(ops int64) {
	var s uint64
	for i := int64(0); i < ops; i++ {
		if v, ok := b.s.get(b.random[i%randomKeys]); ok {
			s += uint64(len(v)) + uint64(v[len(v)-1])
		}
	}
	sink += s
}

func (b *bench) getStream(ops int64) {
	var s uint64
	for i := int64(0); i < ops; i++ {
		if v, ok := b.s.get(b.stream[b.streamPos]); ok {
			s += uint64(len(v)) + uint64(v[len(v)-1])
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

// rows 2000..2099 by position: 100 rows whatever the key shape
func (b *bench) scan100(ops int64) {
	lo, hi := b.r.keys[2000], b.r.keys[2099]
	var s uint64
	for i := int64(0); i < ops; i++ {
		n, sum := b.s.scan(lo, hi)
		s += uint64(n) + sum
	}
	sink += s
}

// rows 1000..8999
func (b *bench) count8000(ops int64) {
	lo, hi := b.r.keys[1000], b.r.keys[8999]
	var s uint64
	for i := int64(0); i < ops; i++ {
		s += uint64(b.s.count(lo, hi))
	}
	sink += s
}

func (b *bench) openGet(ops int64) {
	k := b.r.keys[123]
	var s uint64
	for i := int64(0); i < ops; i++ {
		if err := b.s.open(b.path); err != nil {
			b.die("open: %v", err)
		}
		if v, ok := b.s.get(k); ok {
			s += uint64(len(v)) + uint64(v[len(v)-1])
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
	s, r := b.s, b.r
	for _, i := range []int64{123, b.n - 1} {
		if v, ok := s.get(r.keys[i]); !ok || !bytes.Equal(v, r.vals[i]) {
			b.die("get(key %d) wrong: %q, %v", i, v, ok)
		}
	}
	if _, ok := s.get(r.miss); ok {
		b.die("get(absent key) found a value")
	}
	var want uint64
	for _, v := range r.vals[2000:2100] {
		want += uint64(len(v)) + uint64(v[len(v)-1])
	}
	if rows, sum := s.scan(r.keys[2000], r.keys[2099]); rows != 100 || sum != want {
		b.die("scan [key 2000, key 2099] wrong: %d rows, sum %d (want 100, %d)", rows, sum, want)
	}
	if c := s.count(r.keys[1000], r.keys[8999]); c != 8000 {
		b.die("count [key 1000, key 8999] wrong: %d", c)
	}
	if got, ok := s.getMany(b.stream[:batch], b.manyVals); ok {
		if got != batch {
			b.die("get_many found %d of %d", got, batch)
		}
		seed := uint32(42)
		for i, v := range b.manyVals[:batch] {
			if !bytes.Equal(v, r.vals[lcg(&seed)%uint32(b.n)]) {
				b.die("get_many value %d wrong", i)
			}
		}
	}
}

func (b *bench) runStore() {
	s := b.s
	// build: always done once (it makes the file the other operations read)
	br := 1
	if b.wanted("build") {
		br = b.buildReps
	}
	r := make([]float64, br)
	for i := range r {
		b.removeFiles()
		runtime.GC()
		t0 := time.Now()
		if err := s.build(b.path, b.r.kind, b.r.keys, b.r.vals); err != nil {
			b.die("build: %v", err)
		}
		r[i] = float64(time.Since(t0).Nanoseconds()) / float64(b.n)
	}
	if b.wanted("build") {
		emit(s.name(), b.r.shape, "build", b.n, r, b.n, [][2]any{
			{"rows_per_s", math.Round(1e9 / median(r))},
			{"file_bytes", treeBytes(b.path)},
			{"version", s.version()},
			{"config", s.config()},
		})
	}

	if err := s.open(b.path); err != nil {
		b.die("open: %v", err)
	}
	b.check()
	_, hasMany := s.getMany(b.stream[:1], b.manyVals)

	if b.wanted("get_one") {
		b.run("get_one", b.getOne, 1000)
	}
	if b.wanted("get_random") {
		b.run("get_random", b.getRandom, randomKeys)
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
	stores := flag.String("stores", "drydb,drydb_zstd,bbolt,array", "comma-separated stores")
	ops := flag.String("ops", "", "comma-separated operations (default: all)")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: bench_go [-stores drydb,drydb_zstd,bbolt,array] [-ops ...] ROWSFILE DATADIR\n")
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
	rs, err := readRows(pos[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench_go:", err)
		os.Exit(2)
	}
	dir := pos[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "bench_go:", err)
		os.Exit(1)
	}
	b := &bench{
		r:         rs,
		n:         int64(len(rs.keys)),
		reps:      envInt("BENCH_REPS", 5, 1, 64),
		buildReps: envInt("BENCH_BUILD_REPS", 3, 1, 64),
		targetNs:  25e6,
		manyVals:  make([][]byte, batch),
	}
	if ms, err := strconv.ParseFloat(os.Getenv("BENCH_TARGET_MS"), 64); err == nil && ms > 0 {
		b.targetNs = ms * 1e6
	}
	if *ops != "" {
		b.opsWant = map[string]bool{}
		for _, s := range strings.Split(*ops, ",") {
			b.opsWant[strings.TrimSpace(s)] = true
		}
	}
	// the get workloads' keys, drawn from the table's keys by row number
	b.stream = b.lcgKeys(42, streamKeys)
	b.random = b.lcgKeys(1, randomKeys)

	for _, name := range strings.Split(*stores, ",") {
		mk, ok := allStores[strings.TrimSpace(name)]
		if !ok {
			fmt.Fprintf(os.Stderr, "bench_go: unknown store %q (have drydb, drydb_zstd, bbolt, array)\n", name)
			os.Exit(2)
		}
		b.s = mk()
		b.path = filepath.Join(dir, fmt.Sprintf("go-%s-%s-%d.db", b.s.name(), rs.shape, b.n))
		b.runStore()
	}
	if sink == 42 {
		fmt.Fprintln(os.Stderr)
	}
}
