package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	dir, f := shop(t)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("users.csv", "id,name,email,age,city,_op\n1,,,,,delete\n2,Alan T,alan2@example.com,42,Manchester,\n99,New,new@example.com,1,Paris,upsert\n1000,,,,,delete\n")
	write("o.jsonl", `{"order":"a2","_op":"delete"}`+"\n"+`{"order":"o9","user":3,"total":1}`+"\n")
	expect(t, drydb(t, dir, "", "merge", f, "users.csv", "orders=o.jsonl", "-o", "new.drydb"), 0, "new.drydb", "users                    12 rows")
	expect(t, drydb(t, dir, "", "verify", "new.drydb"), 0, "ok: 2 tables")
	expect(t, drydb(t, dir, "", "get", "new.drydb", "-t", "users", "1"), 1, "not found: 1")
	expect(t, drydb(t, dir, "", "get", "new.drydb", "-t", "users", "2"), 0, `"name":"Alan T"`)
	expect(t, drydb(t, dir, "", "get", "new.drydb", "-t", "users", "--index", "email", "new@example.com"), 0, "99\t")
	expect(t, drydb(t, dir, "", "get", "new.drydb", "-t", "users", "--index", "email", "alan@example.com"), 1, "not found")
	expect(t, drydb(t, dir, "", "get", "new.drydb", "-t", "orders", "o9"), 0, "o9")
	expect(t, drydb(t, dir, "", "get", "new.drydb", "-t", "orders", "a2"), 1, "not found")
	r := drydb(t, dir, "", "get", "new.drydb", "-t", "users", "99")
	expect(t, r, 0)
	if strings.Contains(r.out, "_op") {
		t.Fatalf("the _op column was stored: %s", r.out)
	}
	// the base is replaced in place
	expect(t, drydb(t, dir, "", "merge", f, "users.csv", "-o", f), 0)
	expect(t, drydb(t, dir, "", "count", f, "-t", "users"), 0, "12")

	for _, c := range []struct {
		name string
		args []string
		body string
		code int
		want string
	}{
		{"bad op", []string{"merge", f, "users.csv", "-o", "x.drydb"}, "id,_op\n5,remove\n", 1, `users.csv:2: _op is "remove"`},
		{"key twice", []string{"merge", f, "users.csv", "-o", "x.drydb"}, "id,name\n5,a\n5,b\n", 1, "twice"},
		{"no out", []string{"merge", f, "users.csv"}, "id\n5\n", 2, "missing -o OUT"},
		{"no changes", []string{"merge", f, "-o", "x.drydb"}, "", 2, "no CHANGES"},
		{"unknown table", []string{"merge", f, "nope=users.csv", "-o", "x.drydb"}, "id\n5\n", 2, `no table "nope"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			write("users.csv", c.body)
			expect(t, drydb(t, dir, "", c.args...), c.code, c.want)
			if _, err := os.Stat(filepath.Join(dir, "x.drydb")); err == nil {
				t.Fatal("a failed merge left its output")
			}
		})
	}
}
