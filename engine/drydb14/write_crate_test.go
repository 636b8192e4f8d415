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
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
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
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skip("cargo not found: the DryDB 1.4 crate check (Rust crate drydb 0.1.0+drydb1.4) is skipped; install Rust (cargo) to run it")
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

// crateDump is crate-check's output (the .expected.json shape; entries'
// primary key field is null).
type crateDump struct {
	PageSize int        `json:"page_size"`
	Filters  []string   `json:"filters"`
	Tables   []expTable `json:"tables"`
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

// compareTables checks what the crate read against what was expected:
// tables in order, every row, every index entry (key, rid, value, and the
// PageRef when the expectation has one).
func compareTables(t *testing.T, got, want []expTable) {
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
			if g.Rows[j] != w.Rows[j] {
				t.Fatalf("table %s row %d: %.40v, want %.40v", w.Name, j, g.Rows[j], w.Rows[j])
			}
		}
		if len(g.Indexes) != len(w.Indexes) {
			t.Fatalf("table %s: %d indexes, want %d", w.Name, len(g.Indexes), len(w.Indexes))
		}
		for k, wi := range w.Indexes {
			gi := g.Indexes[k]
			if gi.Name != wi.Name || gi.Encoding != wi.Encoding || gi.Unique != wi.Unique || len(gi.Entries) != len(wi.Entries) {
				t.Fatalf("table %s index %d: %s(%s, unique %v, %d entries), want %s(%s, unique %v, %d entries)", w.Name, k,
					gi.Name, gi.Encoding, gi.Unique, len(gi.Entries), wi.Name, wi.Encoding, wi.Unique, len(wi.Entries))
			}
			for j, we := range wi.Entries {
				ge := gi.Entries[j]
				same := fmt.Sprint(ge[:3]) == fmt.Sprint(we[:3])
				if len(we) > 4 && we[4] != nil {
					same = same && fmt.Sprint(ge[4]) == fmt.Sprint(we[4])
				}
				if !same {
					t.Fatalf("table %s index %s entry %d: %.80v, want %.80v", w.Name, wi.Name, j, ge, we)
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
	dir := fixtureDir(t)
	bin := crateChecker(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	for _, p := range paths {
		name := filepath.Base(p[:len(p)-len(".expected.json")])
		t.Run(name, func(t *testing.T) {
			e := readExpected(t, p)
			o := &Options{PageSize: e.Header.PageSize, Eytzinger: e.BuildOptions.Eytzinger, Zstd: e.BuildOptions.Filter != nil}
			out := filepath.Join(t.TempDir(), name+".drydb")
			writeFile(t, out, tables(fixtureTables(t, e)), o)
			d := readByCrate(t, bin, out)
			if o.Zstd != (len(d.Filters) == 1) {
				t.Fatalf("filters %v", d.Filters)
			}
			compareTables(t, d.Tables, e.Tables)
		})
	}
}

// genTables makes tables of every key type: blobs (values of 70,000 bytes
// and of about a page), 0-byte values, unique and non-unique indexes whose
// runs span leaves, and an empty table with an index.
func genTables() []*memTable {
	i64 := &memTable{name: "items", typ: TypeI64}
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
	byCode := memIndex{name: "by_code", unique: true, typ: TypeASCII}
	byGroup := memIndex{name: "by_group", typ: TypeI64}
	byTag := memIndex{name: "by_tag", typ: TypeASCII}
	for i := range i64.rows {
		byCode.entries = append(byCode.entries, memEntry{fmt.Appendf(nil, "c-%016x", uint64(i)*0x9e3779b97f4a7c15), uint64(i)})
		byGroup.entries = append(byGroup.entries, memEntry{binary.BigEndian.AppendUint64(nil, uint64(i%4)^1<<63), uint64(i)})
		byTag.entries = append(byTag.entries, memEntry{[]byte([]string{"red", "green", "blue", ""}[i%4]), uint64(i)})
	}
	i64.indexes = []memIndex{byCode, byGroup, byTag}

	str := &memTable{name: "strings", typ: TypeASCII}
	for _, k := range []string{"", "a", "a\x00", "\x00", "\xff", "\xff\xff\xff\xff\xff\xff\xff\xff\xff", "naïve", "日本語", "😀"} {
		str.rows = append(str.rows, memRow{[]byte(k), []byte("v:" + k)})
	}
	for i := 0; i < 300; i++ {
		str.rows = append(str.rows, memRow{fmt.Appendf(nil, "collide!%03d", i), fmt.Appendf(nil, "%d", i)})
	}
	str.rows = append(str.rows, memRow{[]byte("long/" + string(bytes.Repeat([]byte("k"), 40))), bytes.Repeat([]byte("L"), 20000)})

	uuids := &memTable{name: "uuids", typ: TypeUUIDv7}
	ulids := &memTable{name: "ulids", typ: TypeULID}
	byTS := memIndex{name: "by_ts", typ: TypeUUIDv7}
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
	tables([]*memTable{uuids})
	uuids.indexes = []memIndex{byTS}

	empty := &memTable{name: "empty", typ: TypeI64, indexes: []memIndex{{name: "by_key", unique: true, typ: TypeULID}}}
	return []*memTable{i64, str, uuids, ulids, empty}
}

// expectedOf is what the crate must read back from mts: keys in 1.4 layout,
// rids counted per index key, values resolved.
func expectedOf(t *testing.T, mts []*memTable) []expTable {
	var out []expTable
	for _, mt := range mts {
		et := expTable{Name: mt.name, Rows: [][2]string{}}
		et.Primary.Encoding = mt.typ
		for _, r := range mt.rows {
			k, err := appendKey(nil, mt.typ, r.key)
			if err != nil {
				t.Fatal(err)
			}
			et.Rows = append(et.Rows, [2]string{hex.EncodeToString(k), hex.EncodeToString(r.val)})
		}
		for _, mi := range mt.indexes {
			ei := expIndex{Name: mi.name, Encoding: mi.typ, Unique: mi.unique}
			rid := 0
			for j, e := range mi.entries {
				k, err := appendKey(nil, mi.typ, e.key)
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
					ridv = float64(rid)
				}
				ei.Entries = append(ei.Entries, []any{hex.EncodeToString(k), ridv, hex.EncodeToString(mt.rows[e.row].val)})
			}
			et.Indexes = append(et.Indexes, ei)
		}
		out = append(out, et)
	}
	return out
}

// TestCrateReadsWrittenFiles writes generated tables at page sizes 256, 4096
// and 65536 (compact, and classic metadata), with and without zstd and
// Eytzinger digests, and checks the crate reads back exactly the rows and
// index entries written.
func TestCrateReadsWrittenFiles(t *testing.T) {
	bin := crateChecker(t)
	mts := genTables()
	ts := tables(mts) // sorts rows and entries into the order the crate returns
	want := expectedOf(t, mts)
	for _, o := range []Options{
		{PageSize: 256}, {PageSize: 4096}, {PageSize: 65536},
		{PageSize: 256, Zstd: true}, {PageSize: 4096, Zstd: true}, {PageSize: 65536, Zstd: true},
		{PageSize: 4096, Eytzinger: true}, {PageSize: 512, Eytzinger: true, Zstd: true},
	} {
		t.Run(fmt.Sprintf("p%d-zstd=%v-eytzinger=%v", o.PageSize, o.Zstd, o.Eytzinger), func(t *testing.T) {
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
