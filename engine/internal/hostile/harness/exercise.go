package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/drydb/drydb/engine"
)

// Result is what reading a file through every read call gave. Anomalies
// are the failures Exercise itself can see (a panic out of the API, an
// error of an unexpected class, a value outside the file, checks that
// disagree); crashes, hangs and memory blow-ups are seen by RunChild.
type Result struct {
	// Open, OpenVerify and Verify are error classes ("ok", "corrupt", ...):
	// open without and with Options.Verify, and DB.Verify after the reads.
	Open, OpenVerify, Verify string
	Calls                    int            // read calls made
	PeakRSS                  int64          // bytes (VmHWM), measured at the end
	FirstCorrupt             string         // the first ErrCorrupt of the run: which check caught the file
	Classes                  map[string]int // calls by result class
	Anomalies                []Anomaly
}

// Anomaly is one failure, by class: "panic" (out of the API),
// "error-class" (an error that is not ErrCorrupt or ErrNotFound),
// "wild-pointer" (a plain table's slice outside the file image),
// "verify-passed-read-corrupt" (Options.Verify passed, a read then found
// corruption), "read-corrupt-verify-passed" and "verify-passed-after-reads"
// (Verify passed after reads that found corruption, or on a file it
// rejected when nothing had been read).
type Anomaly struct {
	Class  string
	Call   string
	Detail string
}

// Detected reports whether the file was reported corrupt by open or by
// Verify, in both passes.
func (r *Result) Detected() bool {
	return r.OpenVerify == "corrupt" && (r.Open == "corrupt" || r.Verify == "corrupt")
}

// ExerciseOptions bound a read.
type ExerciseOptions struct {
	Probes    map[string][][]byte // keys to Get first, per table, in order
	MaxTables int                 // tables read: the first MaxTables-2 and the last 2 (0: 12)
	Steps     int                 // cursor steps per walk (0: 2000)
	// Progress, when set, receives each call's name before it runs, so
	// that the call a crash or hang happened in is known.
	Progress io.Writer
}

// Exercise reads the file at path with every read call of the Go API, in
// two passes: open with Options.Verify then every read (a file Verify
// passed must read without error), and open without it, every read, then
// Verify (a file a read found corrupt must not pass Verify).
func Exercise(path string, o ExerciseOptions) *Result {
	if o.MaxTables == 0 {
		o.MaxTables = 12
	}
	if o.Steps == 0 {
		o.Steps = 2000
	}
	r := &Result{Classes: map[string]int{}}
	x := &exerciser{o: o, r: r}

	// Pass A: verified at open.
	x.pass = "verified"
	var db *engine.DB
	var err error
	x.call("open verify", func() error { db, err = engine.Open(path, &engine.Options{Verify: true}); return err })
	r.OpenVerify = class(err)
	if err == nil {
		x.afterVerify = true
		x.readAll(db)
		x.call("close", db.Close)
		x.afterVerify = false
	}

	// Pass B: checked page by page as read, then verified.
	x.pass, x.sawCorrupt = "lazy", ""
	x.call("open", func() error { db, err = engine.Open(path, nil); return err })
	r.Open = class(err)
	if err != nil {
		r.PeakRSS = peakRSS()
		return r
	}
	x.readAll(db)
	var verr error
	x.call("verify", func() error { verr = db.Verify(); return verr })
	r.Verify = class(verr)
	switch {
	case verr == nil && x.sawCorrupt != "":
		x.anomaly("read-corrupt-verify-passed", "verify", "a read reported "+x.sawCorrupt)
	case verr == nil && r.OpenVerify == "corrupt":
		// Verify's answer must not depend on what was read before it.
		x.anomaly("verify-passed-after-reads", "verify", "open with Verify reported corrupt, Verify after the reads passed")
	}
	x.call("close", db.Close)
	r.PeakRSS = peakRSS()
	return r
}

// peakRSS is this process's peak resident set (VmHWM), which exec resets:
// unlike the rusage a parent gets, it does not count the parent's memory
// that the child was forked with.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func class(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, engine.ErrNotFound):
		return "notfound"
	case errors.Is(err, engine.ErrCorrupt):
		return "corrupt"
	case errors.Is(err, engine.ErrVersion), errors.Is(err, engine.ErrUnknownFilter), errors.Is(err, engine.ErrTooLarge):
		return "refused"
	}
	return "other"
}

type exerciser struct {
	o           ExerciseOptions
	r           *Result
	pass        string
	afterVerify bool   // the DB passed Verify at open
	sawCorrupt  string // the first corrupt error of this pass
	// the file image of the open DB, for plain tables' slices
	base, size uintptr
	plain      bool
	sum        byte
}

func (x *exerciser) anomaly(cls, call, detail string) {
	if len(x.r.Anomalies) < 20 {
		x.r.Anomalies = append(x.r.Anomalies, Anomaly{cls, x.pass + ": " + call, detail})
	}
}

// call runs one read call, recovering a panic that escapes the API.
func (x *exerciser) call(name string, fn func() error) {
	if x.o.Progress != nil {
		fmt.Fprintln(x.o.Progress, x.pass+": "+name)
	}
	x.r.Calls++
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				x.anomaly("panic", name, fmt.Sprintf("%v\n%s", p, firstLines(debug.Stack(), 12)))
				err = errPanicked
			}
		}()
		return fn()
	}()
	if err == errPanicked {
		x.r.Classes["panic"]++
		return
	}
	c := class(err)
	x.r.Classes[c]++
	switch c {
	case "corrupt":
		if x.r.FirstCorrupt == "" {
			x.r.FirstCorrupt = err.Error()
		}
		if x.sawCorrupt == "" {
			x.sawCorrupt = name + ": " + err.Error()
		}
		if x.afterVerify {
			x.anomaly("verify-passed-read-corrupt", name, err.Error())
		}
	case "other":
		x.anomaly("error-class", name, err.Error())
	case "refused":
		if name != "open" && name != "open verify" {
			x.anomaly("error-class", name, err.Error())
		}
	}
}

var errPanicked = errors.New("panicked")

func firstLines(b []byte, n int) string {
	lines := bytes.SplitN(b, []byte("\n"), n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// use checks that a returned slice lies inside the file image (plain
// tables hand out slices of the mapping) and reads every byte of it.
func (x *exerciser) use(name string, b []byte) {
	if len(b) == 0 {
		return
	}
	if x.plain {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if p < x.base || p+uintptr(len(b)) > x.base+x.size || p+uintptr(len(b)) < p {
			x.anomaly("wild-pointer", name, fmt.Sprintf("%d bytes at %#x, file image at %#x+%d", len(b), p, x.base, x.size))
			return
		}
	}
	for _, c := range b {
		x.sum += c
	}
}

func (x *exerciser) readAll(db *engine.DB) {
	x.size = uintptr(db.Info().FileSize)
	names := db.Tables()
	if n := x.o.MaxTables; len(names) > n {
		names = append(names[:n-2:n-2], names[len(names)-2:]...)
	}
	for _, name := range names {
		var t *engine.Table
		x.call("table "+name, func() (err error) { t, err = db.Table(name); return err })
		if t != nil {
			x.table(t)
		}
	}
}

func (x *exerciser) table(t *engine.Table) {
	lay, ok := t.Layout()
	plain := ok && lay.Cache == nil
	x.plain = plain
	if plain {
		x.base = uintptr(lay.Data)
	}
	name := "table " + t.Name() + ": "
	_, _, _, _ = t.Len(), t.Depth(), t.Leaves(), t.Compression() // catalog accessors: reads too
	probes := append([][]byte(nil), x.o.Probes[t.Name()]...)
	for _, k := range probes {
		x.get(name, t, k)
	}
	probes = append(probes, x.walk(name+"walk", t.NewCursor(engine.All, engine.All), false)...)
	probes = append(probes, x.walk(name+"walk back", t.NewCursor(engine.All, engine.All), true)...)
	probes = append(probes, fixedProbes(probes)...)
	if len(probes) > 64 {
		probes = probes[:64]
	}
	for _, k := range probes {
		x.get(name, t, k)
		x.keyReads(name, t, k)
	}
	x.call(name+"get many", func() error {
		vals, found := make([][]byte, len(probes)), make([]bool, len(probes))
		err := t.GetMany(probes, vals, found)
		for _, v := range vals {
			x.use(name+"get many", v)
		}
		return err
	})
	n := t.Len()
	for _, row := range []uint64{0, n / 2, n - 1, n, 1 << 63} {
		x.call(fmt.Sprintf("%sat %d", name, row), func() error {
			k, v, err := t.At(row)
			x.use(name+"at", k)
			x.use(name+"at", v)
			return err
		})
		x.call(fmt.Sprintf("%sseek row %d", name, row), func() error {
			c := t.NewCursor(engine.All, engine.All)
			defer c.Close()
			if c.SeekRow(row) {
				x.use(name+"seek row", c.Key())
				x.use(name+"seek row", c.Value())
				c.Next()
			}
			return c.Err()
		})
	}
	x.batches(name, func() *engine.Cursor { return t.NewCursor(engine.All, engine.All) })
	if len(probes) >= 2 {
		a, b := probes[0], probes[len(probes)/2]
		if bytes.Compare(a, b) > 0 {
			a, b = b, a
		}
		x.walk(name+"bounded walk", t.NewCursor(engine.Incl(a), engine.Excl(b)), false)
		x.call(name+"cursor count", func() error {
			c := t.NewCursor(engine.Excl(a), engine.Incl(b))
			defer c.Close()
			_, err := c.Count()
			return err
		})
		lo, hi := engine.PrefixBounds(a[:len(a)/2])
		x.walk(name+"prefix walk", t.NewCursor(lo, hi), true)
	}
	for _, in := range t.Indexes() {
		var ix *engine.Index
		x.call(name+"index "+in, func() (err error) { ix, err = t.Index(in); return err })
		if ix != nil {
			x.index(name+"index "+in+": ", ix)
		}
	}
}

func (x *exerciser) get(name string, t *engine.Table, k []byte) {
	x.call(fmt.Sprintf("%sget %x", name, k), func() error {
		v, err := t.Get(k)
		x.use(name+"get", v)
		return err
	})
	x.call(fmt.Sprintf("%sget pinned %x", name, k), func() error {
		v, err := t.GetPinned(k)
		x.use(name+"get pinned", v.Data)
		v.Release()
		return err
	})
}

// keyReads are the reads that take a key: rank, counts, seeks.
func (x *exerciser) keyReads(name string, t *engine.Table, k []byte) {
	x.call(fmt.Sprintf("%srank %x", name, k), func() error { _, err := t.Rank(k); return err })
	x.call(fmt.Sprintf("%scount from %x", name, k), func() error { _, err := t.Count(engine.Incl(k), engine.All); return err })
	x.call(fmt.Sprintf("%scount below %x", name, k), func() error { _, err := t.Count(engine.All, engine.Excl(k)); return err })
	seeks := []struct {
		what string
		fn   func(*engine.Cursor) bool
	}{
		{"seek", func(c *engine.Cursor) bool { return c.Seek(k) }},
		{"seek reverse", func(c *engine.Cursor) bool { return c.SeekReverse(k) }},
		{"seek exact", func(c *engine.Cursor) bool { return c.SeekExact(k) }},
	}
	for _, s := range seeks {
		x.call(fmt.Sprintf("%s%s %x", name, s.what, k), func() error {
			c := t.NewCursor(engine.All, engine.All)
			defer c.Close()
			if s.fn(c) {
				x.use(name+s.what, c.Key())
				x.use(name+s.what, c.Value())
				if c.Next() {
					x.use(name+s.what, c.Value())
				}
				if c.Prev() && c.Prev() {
					x.use(name+s.what, c.Value())
				}
			}
			return c.Err()
		})
	}
}

// walk steps a cursor through its range (bounded) and returns a sample of
// the keys it met.
func (x *exerciser) walk(name string, c *engine.Cursor, back bool) [][]byte {
	var keys [][]byte
	x.call(name, func() error {
		defer c.Close()
		ok := c.First()
		if back {
			ok = c.Last()
		}
		for i := 0; ok && i < x.o.Steps; i++ {
			k := c.Key()
			x.use(name, k)
			x.use(name, c.Value())
			_ = c.Row()
			if i < 16 || i%97 == 0 {
				keys = append(keys, append([]byte(nil), k...))
			}
			if back {
				ok = c.Prev()
			} else {
				ok = c.Next()
			}
		}
		return c.Err()
	})
	return keys
}

// batches reads with NextBatch: keys and values forward, values only, and
// backward from the last row.
func (x *exerciser) batches(name string, open func() *engine.Cursor) {
	keys, vals := make([][]byte, 64), make([][]byte, 64)
	for _, mode := range []string{"forward", "values", "reverse"} {
		x.call(name+"next batch "+mode, func() error {
			cur := open()
			defer cur.Close()
			ok := cur.First()
			if mode == "reverse" {
				ok = cur.Last()
			}
			for i := 0; ok && i < x.o.Steps/64+1; i++ {
				var n int
				switch mode {
				case "forward":
					n = cur.NextBatch(keys, vals, false)
				case "values":
					n = cur.NextBatch(nil, vals, false)
				default:
					n = cur.NextBatch(keys, vals, true)
				}
				for j := 0; j < n; j++ {
					if mode != "values" {
						x.use(name+"next batch", keys[j])
					}
					x.use(name+"next batch", vals[j])
				}
				if n == 0 {
					break
				}
				if mode == "reverse" {
					ok = cur.Prev()
				} else {
					ok = cur.Next()
				}
			}
			return cur.Err()
		})
	}
}

func (x *exerciser) index(name string, ix *engine.Index) {
	_, _, _ = ix.Len(), ix.Unique(), ix.Table() // catalog accessors: reads too
	x.call(name+"count", func() error { _, err := ix.Count(engine.All, engine.All); return err })
	var ikeys [][]byte
	walk := func(what string, c *engine.IndexCursor, collect bool) {
		x.call(name+what, func() error {
			defer c.Close()
			for ok, i := c.First(), 0; ok && i < x.o.Steps; ok, i = c.Next(), i+1 {
				ik := c.IndexKey()
				x.use(name+what, c.PrimaryKey())
				x.use(name+what, c.Value())
				if collect && (i < 8 || i%101 == 0) {
					ikeys = append(ikeys, append([]byte(nil), ik...))
				}
			}
			return c.Err()
		})
	}
	walk("walk", ix.NewCursor(engine.All, engine.All), true)
	ikeys = append(ikeys, []byte{}, []byte{0}, []byte("m3"), []byte{0xFF, 0xFF})
	sort.Slice(ikeys, func(i, j int) bool { return bytes.Compare(ikeys[i], ikeys[j]) < 0 })
	if len(ikeys) > 24 {
		ikeys = ikeys[:24]
	}
	for _, k := range ikeys {
		x.call(fmt.Sprintf("%sget %x", name, k), func() error {
			pk, v, err := ix.Get(k)
			x.use(name+"get", pk)
			x.use(name+"get", v)
			return err
		})
		x.call(fmt.Sprintf("%scount %x", name, k), func() error { _, err := ix.Count(engine.Incl(k), engine.Incl(k)); return err })
		walk(fmt.Sprintf("get all %x", k), ix.GetAll(k), false)
		if len(k) > 0 {
			walk(fmt.Sprintf("prefix %x", k[:1]), ix.Prefix(k[:1]), false)
		}
		x.call(fmt.Sprintf("%sseek exact %x", name, k), func() error {
			c := ix.NewCursor(engine.All, engine.All)
			defer c.Close()
			if c.SeekExact(k) {
				x.use(name+"seek exact", c.Value())
				c.Prev()
			}
			if c.Seek(k) {
				x.use(name+"seek", c.PrimaryKey())
				c.Next()
			}
			return c.Err()
		})
	}
	x.batches(name, func() *engine.Cursor { return &ix.NewCursor(engine.All, engine.All).Cursor })
}

// fixedProbes are keys every table is asked about whatever it holds: the
// ends of the key space, and neighbours of keys met.
func fixedProbes(met [][]byte) [][]byte {
	out := [][]byte{{}, {0}, {0xFF, 0xFF, 0xFF}, make([]byte, 8), bytes.Repeat([]byte{0xFF}, 8), {0x80, 0, 0, 0, 0, 0, 0, 0}}
	for i, k := range met {
		if i > 6 {
			break
		}
		if len(k) > 0 {
			up := append([]byte(nil), k...)
			up[len(up)-1]++
			out = append(out, up, k[:len(k)-1])
		}
	}
	return out
}
