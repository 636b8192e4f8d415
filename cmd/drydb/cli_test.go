package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/drydb/drydb/engine"
)

// These tests drive the built binary, as a user or a script would: output,
// exit codes, bad input and damaged files.

var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "drydb-cli-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "drydb")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		panic("building drydb: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	out, err string
	code     int
}

func (r result) String() string {
	return "exit " + itoa(r.code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err
}

func itoa(i int) string {
	return strings.TrimSpace(strings.Repeat(" ", 0) + func() string { b, _ := json.Marshal(i); return string(b) }())
}

// drydb runs the binary in dir with stdin (may be empty) and a private HOME.
func drydb(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "DRYDB_HISTORY=")
	cmd.Stdin = strings.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{so.String(), se.String(), code}
}

func expect(t *testing.T, r result, code int, wantOut ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got:\n%s", code, r)
	}
	for _, w := range wantOut {
		if !strings.Contains(r.out+r.err, w) {
			t.Fatalf("output lacks %q:\n%s", w, r)
		}
	}
}

// writtenVersion is the format version the engine writes (and reads back).
func writtenVersion(t *testing.T, path string) uint32 {
	t.Helper()
	db, err := engine.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return db.Info().FormatVersion
}

func testdata(name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return p
}

// shop builds the fixture used by most tests: users (int64 keys, JSON rows,
// a unique and a non-unique index) and orders (string keys, MessagePack
// rows, an int64 index).
func shop(t *testing.T, extra ...string) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	args := append([]string{"build", "shop.drydb"}, extra...)
	args = append(args, "-k", "id", "-e", "int64", "--unique-index", "email", "--index", "city", testdata("users.csv"),
		"-k", "order", "--value-format", "msgpack", "--index", "user:int64", testdata("orders.jsonl"))
	r := drydb(t, dir, "", args...)
	expect(t, r, 0, "built shop.drydb: 2 tables, 17 rows")
	return dir, "shop.drydb"
}

func TestUsageAndHelp(t *testing.T) {
	dir := t.TempDir()
	expect(t, drydb(t, dir, ""), 2, "usage: drydb COMMAND")
	expect(t, drydb(t, dir, "", "help"), 0, "commands:", "build", "verify", "shell")
	expect(t, drydb(t, dir, "", "help", "scan"), 0, "usage: drydb scan FILE", "--offset")
	expect(t, drydb(t, dir, "", "get", "-h"), 0, "usage: drydb get FILE KEY")
	expect(t, drydb(t, dir, "", "build", "-h"), 0, "--unique-index", "--skip-bad")
	expect(t, drydb(t, dir, "", "frobnicate"), 2, `unknown command "frobnicate"`)
	expect(t, drydb(t, dir, "", "get"), 2, "missing FILE")
	expect(t, drydb(t, dir, "", "get", "--bogus", "x"), 2, "flag provided but not defined")
	expect(t, drydb(t, dir, "", "get", "missing.drydb", "1"), 1, "drydb: missing.drydb: no such file")
	r := drydb(t, dir, "", "build", "out.drydb")
	expect(t, r, 2, "no INPUT files")
	expect(t, drydb(t, dir, "", "build", testdata("users.csv"), "out.drydb"), 2, "looks like an input file")
}

func TestBuildAndInfo(t *testing.T) {
	dir, f := shop(t, "--meta", "owner=tests")
	r := drydb(t, dir, "", "info", f)
	expect(t, r, 0, "format version: "+strconv.Itoa(int(writtenVersion(t, filepath.Join(dir, f)))), "page size:      4096", "table users", "key encoding: int64",
		"values:       json", "index email on email (unique, string, 11 entries)", "index city on city (string, 12 entries)",
		"table orders", "values:       msgpack", "owner = tests")
	r = drydb(t, dir, "", "info", f, "--json")
	expect(t, r, 0)
	var fi fileInfo
	if err := json.Unmarshal([]byte(r.out), &fi); err != nil {
		t.Fatalf("info --json: %v\n%s", err, r.out)
	}
	if len(fi.Tables) != 2 || fi.Tables[1].Name != "users" || fi.Tables[1].Rows != 12 || len(fi.Tables[1].Indexes) != 2 || fi.Metadata["owner"] != "tests" {
		t.Fatalf("info --json: %+v", fi)
	}
	expect(t, drydb(t, dir, "", "tables", f), 0, "orders\t5 rows\tstring\tindexes: user", "users\t12 rows\tint64\tindexes: city, email")
	r = drydb(t, dir, "", "tables", f, "--json")
	var tl []map[string]any
	if err := json.Unmarshal([]byte(r.out), &tl); err != nil || len(tl) != 2 {
		t.Fatalf("tables --json: %v %s", err, r.out)
	}
}

// TestBuildHash: --hash per input (sticky, as --compression), shown by info.
func TestBuildHash(t *testing.T) {
	dir := t.TempDir()
	r := drydb(t, dir, "", "build", "h.drydb", "-k", "order", "a="+testdata("orders.jsonl"),
		"--hash", "off", "b="+testdata("orders.jsonl"),
		"--hash", "on", "-k", "id", "-e", "int64", "c="+testdata("users.csv"))
	expect(t, r, 0, "built h.drydb: 3 tables")
	r = drydb(t, dir, "", "info", "h.drydb", "--json")
	var fi fileInfo
	if err := json.Unmarshal([]byte(r.out), &fi); err != nil {
		t.Fatalf("info --json: %v\n%s", err, r.out)
	}
	if len(fi.Tables) != 3 || !fi.Tables[0].HashIndex || fi.Tables[1].HashIndex || !fi.Tables[2].HashIndex {
		t.Fatalf("hash indexes: %+v", fi.Tables)
	}
	expect(t, drydb(t, dir, "", "info", "h.drydb", "-t", "a"), 0, "hash index:   yes")
	expect(t, drydb(t, dir, "", "get", "h.drydb", "-t", "b", "a2"), 0, `"sku":"SKU-200"`)
	expect(t, drydb(t, dir, "", "get", "h.drydb", "-t", "a", "a2"), 0, `"sku":"SKU-200"`)
	expect(t, drydb(t, dir, "", "verify", "h.drydb"), 0)
	expect(t, drydb(t, dir, "", "build", "x.drydb", "--hash", "maybe", testdata("orders.jsonl")), 2, "--hash must be auto, on or off")
}

func TestGet(t *testing.T) {
	dir, f := shop(t)
	expect(t, drydb(t, dir, "", "get", f, "-t", "users", "3"), 0, `{"id":"3","name":"Grace Hopper"`)
	// A negative key is an argument, not a flag.
	expect(t, drydb(t, dir, "", "get", f, "-t", "users", "-3"), 0, "Négative Ünïcode")
	r := drydb(t, dir, "", "get", f, "-t", "users", "1", "99")
	expect(t, r, 1, "1\t{\"id\":\"1\"", "drydb: not found: 99")
	expect(t, drydb(t, dir, "", "get", f, "-t", "users", "abc"), 1, `bad int64 key: "abc" is not an int64`)
	expect(t, drydb(t, dir, "", "get", f, "1"), 2, "the file has 2 tables (orders, users)")
	expect(t, drydb(t, dir, "", "get", f, "-t", "nope", "1"), 1, `no table "nope"`)
	// MessagePack rows print as JSON; --values hex shows the bytes.
	expect(t, drydb(t, dir, "", "get", f, "-t", "orders", "b1"), 0, `{"order":"b1","user":1,"sku":"SKU-300","qty":5,"price":1.25,"shipping":{"city":"London","days":2}}`)
	expect(t, drydb(t, dir, "", "get", f, "-t", "orders", "a2", "--values", "hex"), 0, "hex:86a56f72646572a26132")
	r = drydb(t, dir, "", "get", f, "-t", "orders", "a1", "--json")
	var row struct {
		Key   string
		Value map[string]any
	}
	if err := json.Unmarshal([]byte(r.out), &row); err != nil || row.Key != "a1" || row.Value["qty"] != 2.0 {
		t.Fatalf("get --json: %v %s", err, r.out)
	}
	// Index lookups: a unique index, and a non-unique one listing every row.
	expect(t, drydb(t, dir, "", "get", f, "-t", "users", "-i", "email", "ken@example.com"), 0, "ken@example.com\t8\t")
	r = drydb(t, dir, "", "get", f, "-t", "users", "--index", "city", "Berkeley")
	expect(t, r, 0, "Berkeley\t8\t", "Berkeley\t9\t")
	expect(t, drydb(t, dir, "", "get", f, "-t", "users", "--index", "city", "Paris"), 1, "not found: Paris")
	expect(t, drydb(t, dir, "", "get", f, "-t", "orders", "--index", "user", "1"), 0, "1\ta1\t", "1\tb1\t")
	expect(t, drydb(t, dir, "", "get", f, "-t", "users", "--index", "nope", "x"), 1, `no index "nope" (indexes: city, email)`)
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func firstCols(s string) string {
	var out []string
	for _, l := range lines(s) {
		out = append(out, strings.SplitN(l, "\t", 2)[0])
	}
	return strings.Join(out, " ")
}

func TestScanRangePrefixCount(t *testing.T) {
	dir, f := shop(t)
	u := []string{f, "-t", "users"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"keys"}, "-3 1 2 3 4 5 6 7 8 9 10 12"},
		{[]string{"scan", "--offset", "2", "--limit", "3"}, "2 3 4"},
		{[]string{"keys", "--reverse", "-n", "3"}, "12 10 9"},
		{[]string{"keys", "-r", "--offset", "2", "-n", "2"}, "9 8"},
		{[]string{"keys", "--offset", "100"}, ""},
		{[]string{"range", "2", "5"}, "2 3 4"},
		{[]string{"range", "--after", "2", "--to", "5"}, "3 4 5"},
		{[]string{"range", "--from", "9", "--reverse"}, "12 10 9"},
		{[]string{"range", "", "2"}, "-3 1"},
		{[]string{"range", "4", "--offset", "1", "-n", "2"}, "5 6"},
		{[]string{"keys", "--from", "5", "--offset", "2", "-r"}, "9 8 7 6 5"},
		{[]string{"keys", "-i", "city", "--prefix", "Ber"}, "Berkeley Berkeley"},
		{[]string{"prefix", "-i", "city", "L"}, "London London"},
		{[]string{"range", "-i", "city", "M", "--reverse", "-n", "2"}, "Zürich Wilmslow"},
	}
	for _, c := range cases {
		args := append([]string{c.args[0]}, append(append([]string{}, u...), c.args[1:]...)...)
		r := drydb(t, dir, "", args...)
		expect(t, r, 0)
		if got := firstCols(r.out); got != c.want {
			t.Errorf("%v: got %q want %q", c.args, got, c.want)
		}
	}
	r := drydb(t, dir, "", "values", f, "-t", "users", "-n", "1")
	expect(t, r, 0, `{"id":"-3"`)
	expect(t, drydb(t, dir, "", "prefix", f, "-t", "orders", "b"), 0, "b1\t", "b2\t")
	expect(t, drydb(t, dir, "", "prefix", f, "-t", "users", "1"), 2, "prefix needs a string, bytes or composite key")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"count", f, "-t", "users"}, "12"},
		{[]string{"count", f, "-t", "users", "2", "5"}, "3"},
		{[]string{"count", f, "-t", "users", "--from", "5"}, "7"},
		{[]string{"count", f, "-t", "orders", "--prefix", "a"}, "2"},
		{[]string{"count", f, "-t", "users", "-i", "city", "--prefix", "L"}, "2"},
		{[]string{"count", f, "-t", "users", "-i", "email"}, "11"},
	} {
		r := drydb(t, dir, "", c.args...)
		expect(t, r, 0)
		if strings.TrimSpace(r.out) != c.want {
			t.Errorf("%v: got %q want %s", c.args, r.out, c.want)
		}
	}
	expect(t, drydb(t, dir, "", "count", f, "-t", "users", "--json"), 0, `{"count":12}`)
	r = drydb(t, dir, "", "scan", f, "-t", "users", "-n", "2", "--json")
	for _, l := range lines(r.out) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["key"] == nil || m["value"] == nil {
			t.Fatalf("scan --json line %q: %v", l, err)
		}
	}
	expect(t, drydb(t, dir, "", "range", f, "-t", "users", "--from", "1", "--after", "2"), 2, "at most one lower")
}

func TestBadInputFails(t *testing.T) {
	dir := t.TempDir()
	r := drydb(t, dir, "", "build", "out.drydb", "-e", "int64", testdata("bad.csv"))
	expect(t, r, 1, "bad.csv:4: 3 fields, the header has 2", "no output written")
	if _, err := os.Stat(filepath.Join(dir, "out.drydb")); !os.IsNotExist(err) {
		t.Fatal("a failed build left an output file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("a failed build left files: %v", ents)
	}
	r = drydb(t, dir, "", "build", "out.drydb", "-e", "int64", "--skip-bad", testdata("bad.csv"))
	expect(t, r, 0, "skipped ", "bad.csv:4:", `bad.csv:5: key id: "four" is not an int64`, "3 rows", "skipped 2 bad lines")
	expect(t, drydb(t, dir, "", "keys", "out.drydb"), 0, "1\n2\n5\n")

	// A broken JSON line.
	in := filepath.Join(dir, "x.jsonl")
	os.WriteFile(in, []byte("{\"k\":\"a\"}\n{\"k\":\n[1]\n"), 0o644)
	expect(t, drydb(t, dir, "", "build", "j.drydb", in), 1, "x.jsonl:2: invalid JSON")
	expect(t, drydb(t, dir, "", "build", "j.drydb", "--skip-bad", in), 0, "x.jsonl:3: expected a JSON object", "1 rows")

	// Duplicate keys fail the build (the engine names the key).
	dup := filepath.Join(dir, "dup.csv")
	os.WriteFile(dup, []byte("k,v\na,1\nb,2\na,3\n"), 0o644)
	r = drydb(t, dir, "", "build", "d.drydb", dup)
	expect(t, r, 1, "duplicate")
	// With --sorted the CLI sees it and names the line.
	expect(t, drydb(t, dir, "", "build", "d.drydb", "--sorted", dup), 1, "dup.csv:4: key a is out of order")
	expect(t, drydb(t, dir, "", "build", "d.drydb", "--sorted", "-e", "int64", testdata("unsorted.csv")), 1, "unsorted.csv:4: key 2 is out of order")
	if _, err := os.Stat(filepath.Join(dir, "d.drydb")); !os.IsNotExist(err) {
		t.Fatal("a failed build left an output file")
	}
	// Unknown format, missing input, bad option values.
	expect(t, drydb(t, dir, "", "build", "o.drydb", "nope.txt"), 2, "cannot tell the format")
	expect(t, drydb(t, dir, "", "build", "o.drydb", "missing.csv"), 1, "missing.csv: no such file")
	expect(t, drydb(t, dir, "", "build", "o.drydb", "-e", "int65", testdata("users.csv")), 2, "bad key encoding")
	expect(t, drydb(t, dir, "", "build", "o.drydb", "--compression", "lz9", testdata("users.csv")), 2, "--compression must be")
	expect(t, drydb(t, dir, "", "build", "o.drydb", "--page-size", "1000", testdata("users.csv")), 2, "page size")
	expect(t, drydb(t, dir, "", "build", "o.drydb", "-k", "nope", testdata("users.csv")), 1, `users.csv:2: no key column "nope"`)
}

func TestEncodingsAndFormats(t *testing.T) {
	dir := t.TempDir()
	// TSV with float keys, CSV with a composite key, stdin input, zstd.
	r := drydb(t, dir, "", "build", "m.drydb", "-e", "float64", "--value", "message", testdata("events.tsv"),
		"-k", "team,player", "-e", "composite(string,int64)", "-c", "zstd", "--infer-types", "--value-format", "msgpack", testdata("scores.csv"))
	expect(t, r, 0, "events", "4 rows", "scores", "6 rows", "zstd")
	expect(t, drydb(t, dir, "", "keys", "m.drydb", "-t", "events"), 0, "-2.25\n1.5\n3\n1000\n")
	expect(t, drydb(t, dir, "", "get", "m.drydb", "-t", "events", "1e3"), 0, "done\n")
	expect(t, drydb(t, dir, "", "get", "m.drydb", "-t", "events", "-2.25"), 0, `clock skew "small"`)
	r = drydb(t, dir, "", "keys", "m.drydb", "-t", "scores")
	expect(t, r, 0)
	if got := strings.Join(lines(r.out), " "); got != `("blue", 1) ("blue", 3) ("green", 1) ("red", 1) ("red", 2) ("red", 10)` {
		t.Fatalf("composite keys: %q", got)
	}
	expect(t, drydb(t, dir, "", "get", "m.drydb", "-t", "scores", `("red", 10)`), 0, `{"team":"red","player":10,"score":1}`)
	expect(t, drydb(t, dir, "", "prefix", "m.drydb", "-t", "scores", `("red")`), 0, `("red", 1)`, `("red", 10)`)
	expect(t, drydb(t, dir, "", "count", "m.drydb", "-t", "scores", "--prefix", "(blue)"), 0, "2\n")
	r = drydb(t, dir, "", "keys", "m.drydb", "-t", "scores", "--json", "-n", "1")
	expect(t, r, 0, `{"key":["blue",1]}`)
	expect(t, drydb(t, dir, "", "info", "m.drydb", "-t", "scores"), 0, "compression:  zstd", "composite(string,int64)")
	expect(t, drydb(t, dir, "", "verify", "m.drydb"), 0, "ok: 2 tables, 10 rows")

	// JSON Lines from standard input, uuid keys and raw bytes values.
	in := `{"id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8","blob":"a\u0001b"}` + "\n" + `{"id":"00000000-0000-0000-0000-000000000001","blob":"plain"}` + "\n"
	r = drydb(t, dir, in, "build", "u.drydb", "--format", "jsonl", "-e", "uuid", "--value", "blob", "things=-")
	expect(t, r, 0, "things", "2 rows")
	expect(t, drydb(t, dir, "", "scan", "u.drydb"), 0, "00000000-0000-0000-0000-000000000001\tplain\n6ba7b810-9dad-11d1-80b4-00c04fd430c8\thex:610162\n")
	expect(t, drydb(t, dir, "", "get", "u.drydb", "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", "--values", "text"), 0, "hex:610162")

	// Bytes keys with \x escapes and the hex: form.
	os.WriteFile(filepath.Join(dir, "b.csv"), []byte("k,v\nab,1\n\"a\x01\",2\n"), 0o644)
	expect(t, drydb(t, dir, "", "build", "b.drydb", "-e", "bytes", "b.csv"), 0)
	expect(t, drydb(t, dir, "", "keys", "b.drydb"), 0, "a\\x01\nab\n")
	expect(t, drydb(t, dir, "", "get", "b.drydb", `a\x01`), 0, `"v":"2"`)
	expect(t, drydb(t, dir, "", "get", "b.drydb", "hex:6162"), 0, `"v":"1"`)
}

func TestExportRoundTrip(t *testing.T) {
	dir, f := shop(t)
	r := drydb(t, dir, "", "export", f, "-t", "orders", "-o", "orders.jsonl")
	expect(t, r, 0)
	b, _ := os.ReadFile(filepath.Join(dir, "orders.jsonl"))
	orig, _ := os.ReadFile(testdata("orders.jsonl"))
	if got, want := string(b), strings.ReplaceAll(string(orig), "\n\n", "\n"); got != want {
		t.Fatalf("export of orders differs from the input:\n%s\nwant:\n%s", got, want)
	}
	// CSV export of JSON rows reproduces the columns; building from it gives
	// the same rows.
	expect(t, drydb(t, dir, "", "export", f, "-t", "users", "--format", "csv", "-o", "users.csv"), 0)
	expect(t, drydb(t, dir, "", "build", "again.drydb", "-e", "int64", "users.csv"), 0, "12 rows")
	a := drydb(t, dir, "", "scan", f, "-t", "users")
	bb := drydb(t, dir, "", "scan", "again.drydb")
	if a.out != bb.out {
		t.Fatalf("round trip through CSV changed rows:\n%s\n---\n%s", a.out, bb.out)
	}
	r = drydb(t, dir, "", "dump", f)
	expect(t, r, 0)
	if n := len(lines(r.out)); n != 17 {
		t.Fatalf("dump: %d lines", n)
	}
	for _, l := range lines(r.out) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["table"] == nil {
			t.Fatalf("dump line %q: %v", l, err)
		}
	}
	expect(t, drydb(t, dir, "", "export", f, "-t", "users", "--format", "xml"), 2, "--format must be")
}

func TestStat(t *testing.T) {
	dir, f := shop(t)
	expect(t, drydb(t, dir, "", "stat", f), 0, "table users", "depth:           1", "leaf pages:      1", "index users.email", "(estimated)")
	r := drydb(t, dir, "", "stat", f, "--json")
	var s struct {
		PageSize int `json:"page_size"`
		Trees    []treeStat
	}
	if err := json.Unmarshal([]byte(r.out), &s); err != nil || s.PageSize != 4096 || len(s.Trees) != 5 {
		t.Fatalf("stat --json: %v %s", err, r.out)
	}
	// A bigger table goes deeper than one level.
	var big strings.Builder
	big.WriteString("k,v\n")
	for i := 0; i < 5000; i++ {
		big.WriteString(itoa(i) + ",value number " + itoa(i) + "\n")
	}
	os.WriteFile(filepath.Join(dir, "big.csv"), []byte(big.String()), 0o644)
	expect(t, drydb(t, dir, "", "build", "big.drydb", "-e", "int64", "--page-size", "512", "--value", "v", "big.csv"), 0, "5000 rows")
	r = drydb(t, dir, "", "stat", "big.drydb")
	expect(t, r, 0, "leaf pages:")
	if strings.Contains(r.out, "depth:           1\n") {
		t.Fatalf("5000 rows in 512-byte pages in one level:\n%s", r.out)
	}
	// The offset is a seek: the last rows come back directly.
	expect(t, drydb(t, dir, "", "scan", "big.drydb", "--offset", "4998"), 0, "4998\tvalue number 4998\n4999\tvalue number 4999\n")
}

func TestVerifyAndCorruptFiles(t *testing.T) {
	dir, f := shop(t)
	expect(t, drydb(t, dir, "", "verify", f), 0, "ok: 2 tables, 17 rows, 28 index entries")
	expect(t, drydb(t, dir, "", "verify", f, "--json"), 0, `"ok": true`)
	good, _ := os.ReadFile(filepath.Join(dir, f))

	// Not a drydb file at all.
	os.WriteFile(filepath.Join(dir, "junk.drydb"), []byte("this is not a database, just some text\n"), 0o644)
	expect(t, drydb(t, dir, "", "info", "junk.drydb"), 1, "drydb: junk.drydb:")
	expect(t, drydb(t, dir, "", "verify", "junk.drydb"), 1, "drydb: junk.drydb:")
	// Empty and truncated files.
	os.WriteFile(filepath.Join(dir, "empty.drydb"), nil, 0o644)
	expect(t, drydb(t, dir, "", "verify", "empty.drydb"), 1, "drydb: empty.drydb:")
	os.WriteFile(filepath.Join(dir, "trunc.drydb"), good[:len(good)/2], 0o644)
	expect(t, drydb(t, dir, "", "verify", "trunc.drydb"), 1, "drydb: ")

	// A flipped byte in every page in turn: verify must fail each time
	// (every page has a checksum) and never crash.
	ps := 4096
	for off := ps + 100; off < len(good); off += ps {
		bad := append([]byte(nil), good...)
		bad[off] ^= 0x5a
		name := "flip.drydb"
		os.WriteFile(filepath.Join(dir, name), bad, 0o644)
		r := drydb(t, dir, "", "verify", name)
		if r.code != 1 || !strings.Contains(r.err, "drydb: ") {
			t.Fatalf("flip at %d: %s", off, r)
		}
		if strings.Contains(r.err, "panic") || strings.Contains(r.err, "goroutine") {
			t.Fatalf("flip at %d crashed: %s", off, r)
		}
		// Reading commands fail cleanly too (or succeed if they never
		// touch the damaged page), but never crash.
		r = drydb(t, dir, "", "dump", name)
		if r.code > 1 || strings.Contains(r.err, "goroutine") {
			t.Fatalf("dump after flip at %d: %s", off, r)
		}
	}
	expect(t, drydb(t, dir, "", "verify", dir), 1, "is a directory")
}

func TestShellPiped(t *testing.T) {
	dir, f := shop(t)
	script := strings.Join([]string{
		"# a comment",
		"tables",
		"use users",
		"get 3",
		"count",
		"scan -n 2 --offset 10",
		"keys --index city --prefix Ber",
		`get -i email "ken@example.com"`,
		"use orders",
		"get b2",
		"help count",
		"use nope",
		"get",
		"frob",
		"quit",
		"get a1",
	}, "\n") + "\n"
	r := drydb(t, dir, script, "shell", f)
	expect(t, r, 1, "orders\t5 rows", `"name":"Grace Hopper"`, "12\n", "10\t", "12\t",
		"Berkeley\t8\nBerkeley\t9\n", "ken@example.com\t8\t", `"order":"b2"`, "usage: count [LO [HI]]",
		`no table "nope"`, "missing KEY", `unknown command "frob"`)
	if strings.Contains(r.out, `"order":"a1"`) {
		t.Fatal("commands after quit ran")
	}
	// "drydb FILE" is the shell too, and a clean script exits 0.
	r = drydb(t, dir, "use users\ncount\n", f)
	expect(t, r, 0, "12\n")
	r = drydb(t, dir, "count -t users\n", "shell", "-t", "orders", f)
	expect(t, r, 0, "12\n")
	expect(t, drydb(t, dir, "", "shell"), 2, "shell takes one FILE")
}

func TestProgress(t *testing.T) {
	dir := t.TempDir()
	var big strings.Builder
	big.WriteString("k,v\n")
	for i := 0; i < 200000; i++ {
		big.WriteString(itoa(i) + ",some value text\n")
	}
	os.WriteFile(filepath.Join(dir, "p.csv"), []byte(big.String()), 0o644)
	r := drydb(t, dir, "", "build", "p.drydb", "--progress", "p.csv")
	expect(t, r, 0, "200000 rows")
	if !strings.Contains(r.err, "rows/s") || !strings.Contains(r.err, "reading p") {
		t.Logf("no progress line drawn (build was fast): %q", r.err)
	}
	// Quiet by default when stderr is not a terminal.
	r = drydb(t, dir, "", "build", "p.drydb", "p.csv")
	if r.err != "" {
		t.Fatalf("progress written to a non-terminal: %q", r.err)
	}
	r = drydb(t, dir, "", "build", "p.drydb", "-q", "p.csv")
	if r.out != "" || r.err != "" || r.code != 0 {
		t.Fatalf("--quiet: %s", r)
	}
	r = drydb(t, dir, "", "build", "p.drydb", "--json", "p.csv")
	var sum map[string]any
	if err := json.Unmarshal([]byte(r.out), &sum); err != nil || sum["rows"] != 200000.0 {
		t.Fatalf("build --json: %v %s", err, r.out)
	}
}
