package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// drydb shard builds range shards and their manifest from CSV/JSONL inputs
// (through build) or from a drydb file, and every command reads the
// manifest as the one file it came from.
func TestShard(t *testing.T) {
	dir, f := shop(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"from a drydb file", []string{"shard", f, "-o", "a.manifest", "--shards", "3", "--jobs", "2"}},
		{"from the inputs", []string{"shard", "-o", "b.manifest", "--shards=4", "-k", "id", "-e", "int64", "--unique-index", "email", "--index", "city", testdata("users.csv"),
			"-k", "order", "--value-format", "msgpack", "--index", "user:int64", testdata("orders.jsonl")}},
		{"hash, from a drydb file", []string{"shard", f, "--hash", "-o", "h.manifest", "--shards", "3"}},
		{"hash, from the inputs", []string{"shard", "-o", "i.manifest", "--shards=5", "--partition", "hash", "-k", "id", "-e", "int64", "--unique-index", "email", "--index", "city", testdata("users.csv"),
			"-k", "order", "--value-format", "msgpack", "--index", "user:int64", testdata("orders.jsonl")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var man string
			for i, a := range c.args {
				if a == "-o" {
					man = c.args[i+1]
				}
			}
			expect(t, drydb(t, dir, "", c.args...), 0, "built "+man+": ", "2 tables, 17 rows")
			expect(t, drydb(t, dir, "", "verify", man), 0, "ok: 2 tables")
			expect(t, drydb(t, dir, "", "info", man), 0, "shards:", "index email on email (unique, string, 11 entries)")
			if strings.HasPrefix(c.name, "hash") {
				expect(t, drydb(t, dir, "", "info", man), 0, "partition:    hash")
				// row numbers are refused, clearly
				r := drydb(t, dir, "", "scan", man, "-t", "users", "--offset", "2")
				if r.code == 0 || !strings.Contains(r.out+r.err, "hash-partitioned") {
					t.Fatalf("scan --offset of a hash manifest: %s", r)
				}
			}
			// every read as on the file the shards came from (hash shards too:
			// their cursors merge the shards in key order)
			for _, q := range [][]string{
				{"scan", "-t", "users"},
				{"range", "-t", "users", "3", "11", "--reverse"},
				{"count", "-t", "users", "2", "10"},
				{"get", "-t", "users", "1", "7", "12", "0", "99", "-3"},
				{"get", "-t", "users", "--index", "city", "London"},
				{"scan", "-t", "orders"},
				{"get", "-t", "orders", "--index", "user", "3"},
			} {
				want := drydb(t, dir, "", append([]string{q[0], f}, q[1:]...)...)
				got := drydb(t, dir, "", append([]string{q[0], man}, q[1:]...)...)
				// (absent keys make get exit 1, on both)
				if want.out == "" || got.code != want.code || got.out != want.out || got.err != want.err {
					t.Fatalf("%v: one file gives\n%s\nthe manifest gives\n%s", q, want, got)
				}
			}
		})
	}
	// a missing shard is named
	shards, _ := filepath.Glob(filepath.Join(dir, "a-*-00002.drydb"))
	if len(shards) != 1 {
		t.Fatalf("shard files: %v", shards)
	}
	os.Remove(shards[0])
	expect(t, drydb(t, dir, "", "verify", "a.manifest"), 1, filepath.Base(shards[0]))
	// --gc: the shards of older builds go once manifest and shards are older
	// than --grace; the current ones stay
	expect(t, drydb(t, dir, "", "shard", f, "-o", "g.manifest", "--shards", "2"), 0, "built")
	first, _ := filepath.Glob(filepath.Join(dir, "g-*.drydb"))
	expect(t, drydb(t, dir, "", "shard", f, "-o", "g.manifest", "--shards", "3", "--hash"), 0, "built")
	expect(t, drydb(t, dir, "", "shard", "--gc", "g.manifest"), 0, "0 old shard files removed")
	expect(t, drydb(t, dir, "", "shard", "--gc", "g.manifest", "--grace", "0s"), 0, "removed "+filepath.Base(first[0]), "2 old shard files removed")
	if now, _ := filepath.Glob(filepath.Join(dir, "g-*.drydb")); len(first) != 2 || len(now) != 3 {
		t.Fatalf("shards before %v, after gc %v", first, now)
	}
	expect(t, drydb(t, dir, "", "verify", "g.manifest"), 0, "ok")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"shard", "--gc", "a.manifest", "b.manifest"}, "one MANIFEST"},
		{[]string{"shard", f, "--shards", "2"}, "missing -o"},
		{[]string{"shard", f, "-o", "x.manifest"}, "missing --shards"},
		{[]string{"shard", "-o", "x.manifest", "--shards", "2"}, "missing INPUT"},
		{[]string{"shard", "nope.drydb", "-o", "x.manifest", "--shards", "2"}, "no such file"},
		{[]string{"shard", f, "-o", "x.manifest", "--shards", "2", "--partition", "list"}, "range or hash"},
	} {
		r := drydb(t, dir, "", c.args...)
		if r.code == 0 || !strings.Contains(r.out+r.err, c.want) {
			t.Fatalf("%v: %s, want %q", c.args, r, c.want)
		}
	}
}
