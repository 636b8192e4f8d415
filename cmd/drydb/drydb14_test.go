package main

import (
	"path/filepath"
	"testing"

	"github.com/drydb/drydb/internal/fixture14"
)

// TestDryDB14Files: the CLI reads DryDB 1.4 files (the C# DryDB's format) like native ones. The
// fixtures are described in tests/drydb14/fixtures/README.md; tiny_p4096 holds -1 -> "",
// 1 -> "a", 7 -> "a", 2^40 -> "xyz" with a non-unique index by_val over the values.
func TestDryDB14Files(t *testing.T) {
	dir := fixture14.Dir()
	tiny := filepath.Join(dir, "tiny_p4096.drydb")
	expect(t, drydb(t, dir, "", "info", tiny), 0, "table t", "key encoding: int64", "index by_val (string, 4 entries)", "drydb.source = DryDB 1.4, 333 bytes, page size 4096")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"keys", tiny}, "-1 1 7 1099511627776"},
		{[]string{"keys", tiny, "--reverse"}, "1099511627776 7 1 -1"},
		{[]string{"range", tiny, "--after", "1", "--to", "7"}, "7"},
		{[]string{"range", tiny, "-1", "7"}, "-1 1"},
		{[]string{"get", tiny, "-i", "by_val", "a"}, "a a"},
		// the C# reader gets exclusive bounds on non-unique indexes wrong
		{[]string{"range", tiny, "-i", "by_val", "--after", "a"}, "xyz"},
		{[]string{"range", tiny, "-i", "by_val", "", "a", "--reverse"}, ""},
		{[]string{"range", tiny, "-i", "by_val", "--to", "a", "--reverse"}, "a a "}, // then "" (row -1)
		{[]string{"count", tiny, "-i", "by_val", "--from", "a"}, "3"},
		{[]string{"get", filepath.Join(dir, "i64_p4096.drydb"), "-t", "items", "-9223372036854775808"}, "min"},
		{[]string{"range", filepath.Join(dir, "i64_p4096.drydb"), "-t", "items", "--after", "-9223372036854775808", "-n", "2"}, "-9223372036854775807 -1000000000000000000"},
		{[]string{"get", filepath.Join(dir, "multi_p4096.drydb"), "-t", "uuids", "01890a5d-ac96-774b-bcce-b302099a8057"}, "01890a5d-ac96-774b-bcce-b302099a8057"},
		{[]string{"get", filepath.Join(dir, "ascii_p4096.drydb"), `\xff`}, "val:ff"}, // not UTF-8: a bytes table
	} {
		r := drydb(t, dir, "", c.args...)
		expect(t, r, 0)
		if got := firstCols(r.out); got != c.want {
			t.Errorf("%v: got %q want %q", c.args, got, c.want)
		}
	}
	expect(t, drydb(t, dir, "", "get", tiny, "-i", "by_val", "a"), 0, "a\t1\ta", "a\t7\ta")
	expect(t, drydb(t, dir, "", "verify", filepath.Join(dir, "zstd_p4096.drydb")), 0, "ok: 2 tables, 500 rows")
}
