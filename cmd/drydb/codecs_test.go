package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestSharedCodecVectors reads the value-codec vectors (tests/vectors/
// codecs.json, which Python and C# check too): "drydb dump" of the files
// built by the Python binding and by the CLI shows every json and msgpack
// row as the golden file holds it, in the CLI's JSON forms (binary as
// base64, non-finite floats as the strings "NaN", "Infinity", "-Infinity").
func TestSharedCodecVectors(t *testing.T) {
	vecs, err := filepath.Abs(filepath.Join("..", "..", "tests", "vectors"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(vecs, "codecs.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Python's json writes NaN and Infinity bare; the CLI writes them as strings.
	raw = regexp.MustCompile(`([\[,:]\s*)(-?Infinity|NaN)\b`).ReplaceAll(raw, []byte(`$1"$2"`))
	var golden map[string]json.RawMessage
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, which := range []string{"python_built", "cli_built"} {
		var doc struct {
			File   string
			Tables map[string]struct {
				Codec string
				Rows  [][2]json.RawMessage
			}
		}
		if err := json.Unmarshal(golden[which], &doc); err != nil {
			t.Fatal(which, err)
		}
		for name, tb := range doc.Tables {
			if tb.Codec != "json" && tb.Codec != "msgpack" {
				continue
			}
			r := drydb(t, t.TempDir(), "", "dump", filepath.Join(vecs, doc.File), "-t", name)
			expect(t, r, 0)
			got := lines(r.out)
			if len(got) != len(tb.Rows) {
				t.Fatalf("%s %s: %d rows, want %d", doc.File, name, len(got), len(tb.Rows))
			}
			for i, line := range got {
				var row struct{ Key, Value any }
				ld := json.NewDecoder(strings.NewReader(line))
				ld.UseNumber()
				if err := ld.Decode(&row); err != nil {
					t.Fatalf("%s %s: %q: %v", doc.File, name, line, err)
				}
				want := cliForm(t, tb.Rows[i][1])
				if !reflect.DeepEqual(row.Value, want) {
					t.Errorf("%s %s row %d: value %#v, want %#v", doc.File, name, i, row.Value, want)
				}
				checked++
			}
		}
	}
	if checked < 90 {
		t.Fatalf("only %d rows checked", checked)
	}
}

// cliForm is a golden value as the CLI shows it: {"$bytes": hex} as base64.
func cliForm(t *testing.T, m json.RawMessage) any {
	d := json.NewDecoder(bytes.NewReader(m))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var conv func(any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if h, ok := x["$bytes"].(string); ok && len(x) == 1 {
				b, err := hex.DecodeString(h)
				if err != nil {
					t.Fatal(err)
				}
				return base64.StdEncoding.EncodeToString(b)
			}
			for k, e := range x {
				x[k] = conv(e)
			}
		case []any:
			for i, e := range x {
				x[i] = conv(e)
			}
		}
		return v
	}
	return conv(v)
}
