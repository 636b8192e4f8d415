package drydb14

// The independent check of issue 20: files drydb's 1.4 writer makes are read
// by the Rust crate drydb 0.1.0+drydb1.4 (tests/drydb14/rustcheck, built
// once with cargo into build/rustcheck), which verifies them and dumps their
// contents; the dump must be exactly what was written.

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/drydb/drydb/internal/fixture14"
)

var crateCheck struct {
	once sync.Once
	path string
	err  error
}

// crateChecker returns the crate-check binary: DRYDB14_CRATE_CHECK if set,
// else one cargo build of tests/drydb14/rustcheck (about 2.5 minutes the
// first time on a 2-core machine, then reused). Without cargo the test is
// skipped, saying so.
func crateChecker(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DRYDB14_CRATE_CHECK"); p != "" {
		return p
	}
	cargo, err := findCargo()
	if err != nil {
		t.Skip("cargo not found (PATH, $CARGO_HOME/bin, ~/.cargo/bin): the DryDB 1.4 crate check (Rust crate drydb 0.1.0+drydb1.4) is skipped; install Rust (cargo) to run it")
	}
	crateCheck.once.Do(func() {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			crateCheck.err = err
			return
		}
		target := filepath.Join(root, "build", "rustcheck")
		cmd := exec.Command(cargo, "build", "--release", "--quiet", "--locked",
			"--manifest-path", filepath.Join(root, "tests", "drydb14", "rustcheck", "Cargo.toml"),
			"--target-dir", target)
		if out, err := cmd.CombinedOutput(); err != nil {
			crateCheck.err = fmt.Errorf("cargo build of the crate check: %v\n%s", err, out)
			return
		}
		crateCheck.path = filepath.Join(target, "release", "drydb14-crate-check")
	})
	if crateCheck.err != nil {
		t.Fatal(crateCheck.err)
	}
	return crateCheck.path
}

// findCargo looks for cargo on PATH, then where rustup installs it (a CI
// shell need not have ~/.cargo/bin on its PATH).
func findCargo() (string, error) {
	p, err := exec.LookPath("cargo")
	if err == nil {
		return p, nil
	}
	home, _ := os.UserHomeDir()
	for _, dir := range []string{os.Getenv("CARGO_HOME"), filepath.Join(home, ".cargo")} {
		if c := filepath.Join(dir, "bin", "cargo"); dir != "" && fileExists(c) {
			return c, nil
		}
	}
	return "", err
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// crateDump is crate-check's output (the .expected.json shape; entries'
// primary key field is null).
type crateDump struct {
	PageSize int      `json:"page_size"`
	Filters  []string `json:"filters"`
	fixture14.Expected
}

func readByCrate(t *testing.T, bin, path string) *crateDump {
	t.Helper()
	cmd := exec.Command(bin, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the crate rejects %s: %v: %s", path, err, stderr.String())
	}
	var d crateDump
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("crate-check output: %v", err)
	}
	return &d
}

// field is one JSON field in a comparable form.
func field(t *testing.T, m json.RawMessage) string {
	var v any
	if err := json.Unmarshal(m, &v); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(v)
}

// compareTables checks what the crate read against what was expected:
// tables in order, every row, every index entry (key, rid, value, and the
// PageRef when the expectation has one).
func compareTables(t *testing.T, got, want []fixture14.Table) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d tables, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Name != w.Name || g.Primary.Encoding != w.Primary.Encoding {
			t.Fatalf("table %d: %s(%s), want %s(%s)", i, g.Name, g.Primary.Encoding, w.Name, w.Primary.Encoding)
		}
		if len(g.Rows) != len(w.Rows) {
			t.Fatalf("table %s: %d rows, want %d", w.Name, len(g.Rows), len(w.Rows))
		}
		for j := range w.Rows {
			if !bytes.Equal(g.Rows[j][0], w.Rows[j][0]) || !bytes.Equal(g.Rows[j][1], w.Rows[j][1]) {
				t.Fatalf("table %s row %d: %.40x, want %.40x", w.Name, j, g.Rows[j], w.Rows[j])
			}
		}
		if len(g.Indexes) != len(w.Indexes) {
			t.Fatalf("table %s: %d indexes, want %d", w.Name, len(g.Indexes), len(w.Indexes))
		}
		for k, wi := range w.Indexes {
			gi := g.Indexes[k]
			if gi.Name != wi.Name || gi.Encoding != wi.Encoding || gi.IsUnique != wi.IsUnique || len(gi.Entries) != len(wi.Entries) {
				t.Fatalf("table %s index %d: %s(%s, unique %v, %d entries), want %s(%s, unique %v, %d entries)", w.Name, k,
					gi.Name, gi.Encoding, gi.IsUnique, len(gi.Entries), wi.Name, wi.Encoding, wi.IsUnique, len(wi.Entries))
			}
			for j, we := range wi.Entries {
				ge := gi.Entries[j]
				for _, f := range []int{0, 1, 2, 4} { // key, rid, value, PageRef
					if f < len(we) && f < len(ge) && field(t, ge[f]) != field(t, we[f]) {
						t.Fatalf("table %s index %s entry %d field %d: %.60s, want %.60s", w.Name, wi.Name, j, f, ge[f], we[f])
					}
				}
			}
		}
	}
}

// TestCrateReadsFixtureRebuilds rebuilds every fixture (zstd included) from
// its expected rows and has the crate read the result: contents and PageRefs
// must be the fixture's (a zstd file's frames differ, its decoded pages do
// not).
func TestCrateReadsFixtureRebuilds(t *testing.T) {
	bin := crateChecker(t)
	rebuildFixtures(t, func(t *testing.T, _, out string, e *fixture14.Expected, o *Options) {
		d := readByCrate(t, bin, out)
		if o.Zstd != (len(d.Filters) == 1) {
			t.Fatalf("filters %v", d.Filters)
		}
		compareTables(t, d.Tables, e.Tables)
	})
}

// genTables makes tables of every key type: blobs (values of 70,000 bytes
// and of about a page), 0-byte values, unique and non-unique indexes whose
// runs span leaves, and an empty table with an index.
func genTables(t *testing.T) []*memTable {
	i64 := &memTable{name: "items", enc: "i64"}
	for _, v := range []int64{-1 << 63, -1<<63 + 1, -1e18, -65536, -257, -256, -1, 0, 1, 255, 256, 65535, 1 << 40, 1<<63 - 1} {
		i64.rows = append(i64.rows, memRow{key: binary.BigEndian.AppendUint64(nil, uint64(v)^1<<63)})
	}
	for i := int64(1000); i < 1600; i++ {
		i64.rows = append(i64.rows, memRow{key: binary.BigEndian.AppendUint64(nil, uint64(i)^1<<63)})
	}
	for i := range i64.rows {
		r := &i64.rows[i]
		switch {
		case i == 3:
			r.val = bytes.Repeat([]byte("B"), 70000)
		case i == 4:
			r.val = bytes.Repeat([]byte("p"), 4000)
		case i%50 == 0:
			r.val = nil
		default:
			r.val = fmt.Appendf(nil, "value-%07d", i)
		}
	}
	// rows are in key order already (the keys above ascend)
	byCode := memIndex{name: "by_code", unique: true, enc: "ascii"}
	byGroup := memIndex{name: "by_group", enc: "i64"}
	byTag := memIndex{name: "by_tag", enc: "ascii"}
	for i := range i64.rows {
		byCode.entries = append(byCode.entries, memEntry{fmt.Appendf(nil, "c-%016x", uint64(i)*0x9e3779b97f4a7c15), uint64(i)})
		byGroup.entries = append(byGroup.entries, memEntry{binary.BigEndian.AppendUint64(nil, uint64(i%4)^1<<63), uint64(i)})
		byTag.entries = append(byTag.entries, memEntry{[]byte([]string{"red", "green", "blue", ""}[i%4]), uint64(i)})
	}
	i64.indexes = []memIndex{byCode, byGroup, byTag}

	str := &memTable{name: "strings", enc: "ascii"}
	for _, k := range []string{"", "a", "a\x00", "\x00", "\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\xff", "naïve", "日本語", "😀"} {
		str.rows = append(str.rows, memRow{[]byte(k), []byte("v:" + k)})
	}
	for i := 0; i < 300; i++ {
		str.rows = append(str.rows, memRow{fmt.Appendf(nil, "collide!%03d", i), fmt.Appendf(nil, "%d", i)})
	}
	str.rows = append(str.rows, memRow{[]byte("long/" + string(bytes.Repeat([]byte("k"), 40))), bytes.Repeat([]byte("L"), 20000)})

	uuids := &memTable{name: "uuids", enc: "uuidv7"}
	ulids := &memTable{name: "ulids", enc: "ulid"}
	byTS := memIndex{name: "by_ts", enc: "uuidv7"}
	for i := 0; i < 200; i++ {
		var u [16]byte
		binary.BigEndian.PutUint64(u[:], uint64(i)*0x0123456789abcdef^uint64(i%3)<<63)
		binary.BigEndian.PutUint64(u[8:], uint64(i))
		u[6] = u[6]&0x0f | 0x70
		uuids.rows = append(uuids.rows, memRow{u[:], []byte(hex.EncodeToString(u[:]))})
		l := u
		l[0] ^= 0x80
		ulids.rows = append(ulids.rows, memRow{l[:], nil})
	}
	for i := range ulids.rows {
		ulids.rows[i].val = []byte{byte(i)}
	}
	for i := range uuids.rows {
		byTS.entries = append(byTS.entries, memEntry{uuids.rows[i%7].key, uint64(i)})
	}
	// the index needs row numbers in key order: sort the rows first.
	sources(t, []*memTable{uuids})
	uuids.indexes = []memIndex{byTS}

	empty := &memTable{name: "empty", enc: "i64", indexes: []memIndex{{name: "by_key", unique: true, enc: "ulid"}}}
	return []*memTable{i64, str, uuids, ulids, empty}
}

// expectedOf is what the crate must read back from mts: keys in 1.4 layout,
// rids counted per index key, values resolved.
func expectedOf(t *testing.T, mts []*memTable) []fixture14.Table {
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var out []fixture14.Table
	for _, mt := range mts {
		et := fixture14.Table{Name: mt.name, Rows: [][2]fixture14.Hex{}}
		et.Primary.Encoding = mt.enc
		enc := mustEnc(t, mt.enc)
		for _, r := range mt.rows {
			k, err := enc.FromNative(r.key)
			if err != nil {
				t.Fatal(err)
			}
			et.Rows = append(et.Rows, [2]fixture14.Hex{k, r.val})
		}
		for _, mi := range mt.indexes {
			ei := fixture14.Index{Name: mi.name, Encoding: mi.enc, IsUnique: mi.unique}
			ienc := mustEnc(t, mi.enc)
			rid := 0
			for j, e := range mi.entries {
				k, err := ienc.FromNative(e.key)
				if err != nil {
					t.Fatal(err)
				}
				var ridv any
				if !mi.unique {
					if j > 0 && bytes.Equal(mi.entries[j-1].key, e.key) {
						rid++
					} else {
						rid = 0
					}
					ridv = rid
				}
				ei.Entries = append(ei.Entries, []json.RawMessage{raw(hex.EncodeToString(k)), raw(ridv), raw(hex.EncodeToString(mt.rows[e.row].val))})
			}
			et.Indexes = append(et.Indexes, ei)
		}
		out = append(out, et)
	}
	return out
}

// writeMatrix is the options generated tables are written with: compact and
// classic metadata, zstd, Eytzinger digests.
var writeMatrix = []Options{
	{PageSize: 256}, {PageSize: 4096}, {PageSize: 65536},
	{PageSize: 256, Zstd: true}, {PageSize: 4096, Zstd: true}, {PageSize: 65536, Zstd: true},
	{PageSize: 4096, Eytzinger: true}, {PageSize: 512, Eytzinger: true, Zstd: true},
}

func (o Options) String() string {
	return fmt.Sprintf("p%d-zstd=%v-eytzinger=%v", o.PageSize, o.Zstd, o.Eytzinger)
}

// TestReaderReadsWrittenFiles: drydb's own 1.4 reader reads generated files
// back as written (the crate test below checks the same files independently).
func TestReaderReadsWrittenFiles(t *testing.T) {
	mts := genTables(t)
	ts := sources(t, mts)
	for _, o := range writeMatrix {
		t.Run(o.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "gen.drydb")
			writeFile(t, out, ts, &o)
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			_, tds, err := readAll(data)
			if err != nil {
				t.Fatal(err)
			}
			for i, mt := range mts {
				enc := mustEnc(t, mt.enc)
				if len(tds[i].Rows) != len(mt.rows) {
					t.Fatalf("table %s: %d rows, want %d", mt.name, len(tds[i].Rows), len(mt.rows))
				}
				for j, r := range tds[i].Rows {
					if !bytes.Equal(enc.AppendNative(nil, r.Key), mt.rows[j].key) || !bytes.Equal(r.Value, mt.rows[j].val) {
						t.Fatalf("table %s row %d differs", mt.name, j)
					}
				}
				for k, mi := range mt.indexes {
					ienc := mustEnc(t, mi.enc)
					for j, e := range tds[i].Indexes[k] {
						if !bytes.Equal(ienc.AppendNative(nil, e.Key), mi.entries[j].key) || uint64(e.Row) != mi.entries[j].row {
							t.Fatalf("table %s index %s entry %d differs", mt.name, mi.name, j)
						}
					}
					if len(tds[i].Indexes[k]) != len(mi.entries) {
						t.Fatalf("table %s index %s: %d entries, want %d", mt.name, mi.name, len(tds[i].Indexes[k]), len(mi.entries))
					}
				}
			}
		})
	}
}

// TestCrateReadsWrittenFiles writes generated tables at page sizes 256, 4096
// and 65536 (compact, and classic metadata), with and without zstd and
// Eytzinger digests, and checks the crate reads back exactly the rows and
// index entries written.
func TestCrateReadsWrittenFiles(t *testing.T) {
	bin := crateChecker(t)
	mts := genTables(t)
	ts := sources(t, mts) // sorts rows and entries into the order the crate returns
	want := expectedOf(t, mts)
	for _, o := range writeMatrix {
		t.Run(o.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "gen.drydb")
			writeFile(t, out, ts, &o)
			d := readByCrate(t, bin, out)
			if d.PageSize != o.PageSize || o.Zstd != (len(d.Filters) == 1) {
				t.Fatalf("page size %d, filters %v", d.PageSize, d.Filters)
			}
			compareTables(t, d.Tables, want)
		})
	}
}

// randomTables makes a few tables of random key types, row counts, key and
// value sizes (0 bytes to several pages, so values go inline, to blob pages
// by the fit rule and by size), with a unique and a non-unique index of
// random types.
func randomTables(t *testing.T, r *rand.Rand, ps int) []*memTable {
	types := []string{"i64", "ascii", "uuidv7", "ulid"}
	key := func(typ string, maxLen int) []byte {
		switch typ {
		case "i64":
			return binary.BigEndian.AppendUint64(nil, r.Uint64())
		case "uuidv7", "ulid":
			b := make([]byte, 16)
			for i := range b {
				b[i] = byte(r.IntN(4) * 85) // few distinct bytes: long shared prefixes
			}
			return b
		}
		b := make([]byte, r.IntN(maxLen+1))
		for i := range b {
			b[i] = byte(r.IntN(3) * 127)
		}
		return b
	}
	// keys of up to a fifth of a page fit two separators on any page size
	maxKey := min(ps/5, 300)
	var mts []*memTable
	for ti := 0; ti < 1+r.IntN(3); ti++ {
		mt := &memTable{name: fmt.Sprintf("t%d", ti), enc: types[r.IntN(len(types))]}
		seen := map[string]bool{}
		for n := r.IntN(400); len(mt.rows) < n; {
			k := key(mt.enc, maxKey)
			if seen[string(k)] {
				continue
			}
			seen[string(k)] = true
			v := make([]byte, []int{0, r.IntN(20), r.IntN(ps), r.IntN(3 * ps)}[r.IntN(4)])
			for i := range v {
				v[i] = byte(i * 7)
			}
			mt.rows = append(mt.rows, memRow{k, v})
		}
		sources(t, []*memTable{mt}) // sort the rows: entries name rows by position
		uq := memIndex{name: "u", unique: true, enc: types[r.IntN(len(types))]}
		nu := memIndex{name: "n", enc: types[r.IntN(len(types))]}
		useen, nseen := map[string]bool{}, map[string]bool{}
		for i := range mt.rows {
			if k := key(uq.enc, maxKey-ridSize); !useen[string(k)] {
				useen[string(k)] = true
				uq.entries = append(uq.entries, memEntry{k, uint64(i)})
			}
			for j := r.IntN(3); j > 0; j-- { // 0 to 2 entries a row, few distinct keys
				e := memEntry{key(nu.enc, 2), uint64(r.IntN(len(mt.rows)))}
				if pair := fmt.Sprint(e); !nseen[pair] {
					nseen[pair] = true
					nu.entries = append(nu.entries, e)
				}
			}
		}
		mt.indexes = []memIndex{uq, nu}
		mts = append(mts, mt)
	}
	return mts
}

// TestWriteRandom writes random tables (randomTables) at random page sizes,
// with and without zstd and Eytzinger digests, and reads them back with
// drydb's reader, index entries leading to their own rows (runs 8, 9 and 22
// have indexed i64 tables with consecutive empty values: emptyTwins); the
// crate reads every fourth too, where cargo is.
func TestWriteRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 14))
	bin := ""
	if _, err := findCargo(); err == nil && !testing.Short() {
		bin = crateChecker(t)
	}
	for i := 0; i < 24; i++ {
		o := Options{PageSize: []int{128, 256, 512, 4096, 40000}[r.IntN(5)], Zstd: r.IntN(2) == 0, Eytzinger: r.IntN(3) == 0}
		mts := randomTables(t, r, o.PageSize)
		t.Run(fmt.Sprintf("%d-%s", i, o), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r.drydb")
			writeFile(t, out, sources(t, mts), &o)
			want := expectedOf(t, mts)
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			_, tds, err := readAll(data)
			if err != nil {
				t.Fatalf("drydb's reader: %v", err)
			}
			for ti, mt := range mts {
				if len(tds[ti].Rows) != len(mt.rows) {
					t.Fatalf("table %s: %d rows, want %d", mt.name, len(tds[ti].Rows), len(mt.rows))
				}
				for j, row := range tds[ti].Rows {
					if !bytes.Equal(row.Key, want[ti].Rows[j][0]) || !bytes.Equal(row.Value, want[ti].Rows[j][1]) {
						t.Fatalf("table %s row %d differs", mt.name, j)
					}
				}
				for k, mi := range mt.indexes {
					if len(tds[ti].Indexes[k]) != len(mi.entries) {
						t.Fatalf("table %s index %s: %d entries, want %d", mt.name, mi.name, len(tds[ti].Indexes[k]), len(mi.entries))
					}
					for j, e := range tds[ti].Indexes[k] {
						if e.Row != int(mi.entries[j].row) {
							t.Fatalf("table %s index %s entry %d: row %d, want %d", mt.name, mi.name, j, e.Row, mi.entries[j].row)
						}
					}
				}
			}
			if bin != "" && i%4 == 0 {
				compareTables(t, readByCrate(t, bin, out).Tables, want)
			}
		})
	}
}
