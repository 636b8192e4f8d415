package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/drydb/drydb/internal/rangevec"
)

// TestSharedRanges builds the tables of tests/vectors/ranges.json with
// "drydb build" (CSV inputs, the value column stored raw) and runs every
// case through "drydb range --json" and "drydb count": "default" is the
// positional form "range FILE LO HI" (half-open [LO, HI)), the explicit
// forms are --from/--after and --to/--before.
func TestSharedRanges(t *testing.T) {
	vec, err := rangevec.Load(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ranges.drydb")
	args := []string{"build", db, "-q", "--page-size", "512"}
	for _, tb := range vec.Tables {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		composite := tb.Name == "pairs"
		if composite {
			w.Write([]string{"s", "n", "v"})
			args = append(args, "--key", "s,n", "-e", "composite(string,int64)")
		} else {
			w.Write([]string{"k", "v"})
			var kind string
			json.Unmarshal(tb.Key, &kind)
			args = append(args, "--key", "k", "-e", kind)
		}
		for _, r := range tb.Rows {
			var k any
			d := json.NewDecoder(bytes.NewReader(r))
			d.UseNumber()
			if err := d.Decode(&k); err != nil {
				t.Fatal(err)
			}
			if composite {
				p := k.([]any)
				w.Write([]string{p[0].(string), p[1].(json.Number).String(), "v:" + string(r)})
			} else {
				w.Write([]string{caseText(k), "v:" + string(r)})
			}
		}
		w.Flush()
		in := filepath.Join(dir, tb.Name+".csv")
		if err := os.WriteFile(in, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--value", "v", in)
	}
	expect(t, drydb(t, dir, "", args...), 0)

	for i, c := range vec.Cases {
		var q []string
		lo, hi := boundText(t, c.Lo), boundText(t, c.Hi)
		loIn, hiIn, _ := c.Inclusive()
		if c.Bounds == "default" {
			q = []string{"--", lo, hi}
		} else {
			if lo != "" {
				q = append(q, map[bool]string{true: "--from", false: "--after"}[loIn], lo)
			}
			if hi != "" {
				q = append(q, map[bool]string{true: "--to", false: "--before"}[hiIn], hi)
			}
		}
		name := strconv.Itoa(i) + " " + c.Table + " " + strings.Join(q, " ")
		common := []string{db, "-t", c.Table, "--json"}
		if c.Reverse {
			common = append(common, "--reverse")
		}
		r := drydb(t, dir, "", append(append([]string{"range"}, common...), q...)...)
		if r.code != 0 {
			t.Fatalf("case %s: %s", name, r)
		}
		var got []any
		for _, line := range strings.Split(strings.TrimSpace(r.out), "\n") {
			if line == "" {
				continue
			}
			var row struct {
				Key   json.RawMessage
				Value string
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatalf("case %s: %v in %q", name, err, line)
			}
			if row.Value != "v:"+string(row.Key) {
				t.Errorf("case %s: row %s has value %q", name, row.Key, row.Value)
			}
			got = append(got, jsonValue(t, row.Key))
		}
		var want []any
		for _, k := range c.Keys {
			want = append(want, jsonValue(t, k))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("case %s: keys %v, want %v", name, got, want)
		}
		r = drydb(t, dir, "", append(append([]string{"count"}, common...), q...)...)
		var n struct{ Count uint64 }
		if err := json.Unmarshal([]byte(r.out), &n); err != nil || n.Count != c.Count {
			t.Errorf("case %s: count %s, want %d", name, r, c.Count)
		}
	}
}

func jsonValue(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func caseText(v any) string {
	if n, ok := v.(json.Number); ok {
		return n.String()
	}
	return v.(string)
}

// boundText is a bound of the shared file as the CLI takes it: "" for none,
// a number or text as is, a (possibly partial) tuple as ("a", 1).
func boundText(t *testing.T, raw json.RawMessage) string {
	v := jsonValue(t, raw)
	switch x := v.(type) {
	case nil:
		return ""
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			if s, ok := p.(string); ok {
				parts[i] = strconv.Quote(s)
			} else {
				parts[i] = caseText(p)
			}
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return caseText(v)
}
