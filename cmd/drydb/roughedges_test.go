package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/drydb/drydb/engine"
)

// Tests of issue 18's CLI items, one each.

func TestDuplicateKeyNamesLineAndSkips(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "d.csv")
	os.WriteFile(in, []byte("id,name\n1,a\n2,b\n1,c\n3,d\n"), 0o644)
	expect(t, drydb(t, dir, "", "build", "o.drydb", "--key", "id", "-e", "int64", in), 1,
		"d.csv:4: duplicate key 1 (first on line 2)", "--skip-bad")
	if _, err := os.Stat(filepath.Join(dir, "o.drydb")); err == nil {
		t.Fatal("a failed build left its output")
	}
	expect(t, drydb(t, dir, "", "build", "o.drydb", "--key", "id", "-e", "int64", "--skip-bad", in), 0,
		"skipped", "d.csv:4: duplicate key 1")
	r := drydb(t, dir, "", "keys", "o.drydb")
	expect(t, r, 0)
	if r.out != "1\n2\n3\n" {
		t.Fatalf("keys after skipping the duplicate: %q", r.out)
	}
	// the first row of the key stays
	expect(t, drydb(t, dir, "", "get", "o.drydb", "1"), 0, `"name":"a"`)
}

func TestDirectoryInput(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "data"), 0o755)
	r := drydb(t, dir, "", "build", "o.drydb", "data")
	expect(t, r, 2, "data is a directory", filepath.Join("data", "*.csv"))
	if strings.Contains(r.err, "cannot tell the format") {
		t.Fatalf("directory reported as an unknown format:\n%s", r)
	}
}

func TestLimitOnDumpAndExport(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "n.csv")
	os.WriteFile(in, []byte("id,x\n1,a\n2,b\n3,c\n4,d\n"), 0o644)
	expect(t, drydb(t, dir, "", "build", "o.drydb", "-q", "--key", "id", "-e", "int64", in), 0)
	for _, args := range [][]string{
		{"dump", "o.drydb", "--limit", "2"},
		{"export", "o.drydb", "--limit", "2"},
		{"export", "o.drydb", "--format", "csv", "-n", "2"},
	} {
		r := drydb(t, dir, "", args...)
		expect(t, r, 0)
		lines := strings.Split(strings.TrimSpace(r.out), "\n")
		want := 2
		if strings.Contains(strings.Join(args, " "), "csv") {
			want = 3 // the header too
		}
		if len(lines) != want || strings.Contains(r.out, `"3"`) {
			t.Errorf("%v: %d lines, want %d:\n%s", args, len(lines), want, r.out)
		}
	}
}

// Help writes long flags as the prose does: --compression, not -compression.
func TestHelpShowsDoubleDashFlags(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"build", "range", "export", "merge"} {
		r := drydb(t, dir, "", cmd, "-h")
		expect(t, r, 0, "flags:")
		if m := regexp.MustCompile(`(?m)^  -[a-z][a-z-]+`).FindString(r.out); m != "" {
			t.Errorf("%s -h shows %q with one dash:\n%s", cmd, m, r.out)
		}
	}
	expect(t, drydb(t, dir, "", "build", "-h"), 0, "  --compression", "  -c ")
}

func TestDidYouMean(t *testing.T) {
	dir := t.TempDir()
	expect(t, drydb(t, dir, "", "rnage"), 2, `unknown command "rnage" (did you mean "range"?)`)
	db := sampleDB(t, dir)
	r := drydb(t, dir, "cuont\n", db)
	if !strings.Contains(r.err, `unknown command "cuont" (did you mean "count"?)`) {
		t.Fatalf("shell: no suggestion:\n%s", r)
	}
	if got := didYouMean("zzzzzz", false); got != "" {
		t.Errorf("far-off name got a suggestion: %q", got)
	}
}

// In the shell a listing without --limit prints a page and says so; --limit
// -1 prints every row; the command line is not limited.
func TestShellDefaultListingLimit(t *testing.T) {
	dir := t.TempDir()
	db := sampleDB(t, dir)
	r := drydb(t, dir, "range 1\n", db)
	if n := strings.Count(r.out, "\n"); n != shellListLimit {
		t.Fatalf("shell range printed %d rows, want %d:\n%s", n, shellListLimit, r)
	}
	if !strings.Contains(r.err, "--limit -1 for all") {
		t.Fatalf("no note of the limit:\n%s", r)
	}
	r = drydb(t, dir, "range 1 --limit -1\n", db)
	if n := strings.Count(r.out, "\n"); n != 99 {
		t.Fatalf("shell range --limit -1 printed %d rows, want 99", n)
	}
	r = drydb(t, dir, "", "range", db, "1")
	if n := strings.Count(r.out, "\n"); n != 99 {
		t.Fatalf("command-line range printed %d rows, want 99", n)
	}
}

// Tab after --index completes the index names of the table commands use,
// also when the file has one table and no "use" was given.
func TestShellCompletesIndexNames(t *testing.T) {
	dir := t.TempDir()
	edb, err := engine.Open(sampleDB(t, dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer edb.Close()
	sh := &shell{db: edb}
	for line, want := range map[string][]string{
		"count --index ":        {"by_parity"},
		"range -i by":           {"by_parity"},
		"get -t n --index by_p": {"by_parity"},
	} {
		_, got := sh.complete(line)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("complete(%q) = %v, want %v", line, got, want)
		}
	}
}

// sampleDB builds n.drydb in dir: one table "n", int64 keys 1..99, an index
// by_parity.
func sampleDB(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,parity\n")
	for i := 1; i < 100; i++ {
		b.WriteString(strings.Join([]string{itoa(i), []string{"even", "odd"}[i%2]}, ",") + "\n")
	}
	in := filepath.Join(dir, "n.csv")
	os.WriteFile(in, []byte(b.String()), 0o644)
	expect(t, drydb(t, dir, "", "build", "n.drydb", "-q", "--key", "id", "-e", "int64", "--index", "by_parity=parity", in), 0)
	return filepath.Join(dir, "n.drydb")
}

// The README's CLI quickstart runs as written (its input ships in demo/),
// every command but the interactive shell.
func TestReadmeQuickstart(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var block []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "### CLI":
			in = true
		case in && line == "```":
			if block != nil {
				in = false
			}
		case in && strings.HasPrefix(line, "build/drydb"):
			block = append(block, line)
		}
	}
	if len(block) < 5 {
		t.Fatalf("README's CLI quickstart not found (%d commands)", len(block))
	}
	dir := t.TempDir()
	abs, _ := filepath.Abs(filepath.Join(root, "demo"))
	os.Symlink(abs, filepath.Join(dir, "demo"))
	for _, line := range block {
		line = strings.TrimSpace(strings.SplitN(line, "#", 2)[0])
		for _, cmd := range strings.Split(line, "&&") {
			words := strings.Fields(cmd)[1:]
			if len(words) == 1 { // "drydb FILE": the interactive shell
				continue
			}
			expect(t, drydb(t, dir, "", words...), 0)
		}
	}
	expect(t, drydb(t, dir, "", "get", "shop.drydb", "42"), 0, `"id":"42"`)
}
