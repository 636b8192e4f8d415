package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
	"github.com/drydb/drydb/internal/rangevec"
)

// rangeKey encodes a JSON key of the shared file (int64, string or a
// [string, int64] list, possibly shorter: a key prefix).
func rangeKey(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // int64 extremes do not survive float64
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	part := func(v any) any {
		if n, ok := v.(json.Number); ok {
			i, err := n.Int64()
			if err != nil {
				t.Fatal(err)
			}
			return i
		}
		return v
	}
	switch x := v.(type) {
	case []any:
		parts := []keyenc.Kind{keyenc.String, keyenc.Int64}
		vals := make([]any, len(x))
		for i := range x {
			vals[i] = part(x[i])
		}
		k, err := keyenc.EncodeComposite(parts[:len(vals)], vals)
		if err != nil {
			t.Fatal(err)
		}
		return k
	case string:
		return []byte(x)
	default:
		return keyenc.EncodeInt64(part(x).(int64))
	}
}

// TestSharedRanges runs every case of tests/vectors/ranges.json through
// Count and a cursor walk. Go has no default convention of its own (every
// call takes two Bounds); "default" is the agreed [lo, hi).
func TestSharedRanges(t *testing.T) {
	vec, err := rangevec.Load("..")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512}) // several leaves per table
	encs := map[string]keyenc.Encoding{
		"ints":  {Kind: keyenc.Int64},
		"strs":  {Kind: keyenc.String},
		"pairs": {Kind: keyenc.Composite, Parts: []keyenc.Kind{keyenc.String, keyenc.Int64}},
	}
	for _, tb := range vec.Tables {
		w, err := b.Table(tb.Name, &TableOptions{Encoding: encs[tb.Name], Codec: "raw"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tb.Rows {
			if err := w.Append(rangeKey(t, r), append([]byte("v:"), r...)); err != nil {
				t.Fatal(err)
			}
		}
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenBytes(data, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, c := range vec.Cases {
		tb, err := db.Table(c.Table)
		if err != nil {
			t.Fatal(err)
		}
		end := func(raw json.RawMessage, inclusive, lower bool) Bound {
			if string(raw) == "null" {
				return All
			}
			kind := Exclusive
			if inclusive {
				kind = Inclusive
			}
			if raw[0] == '[' {
				// A full composite key and a key prefix take the same path:
				// a full key is the only key with itself as its prefix.
				return PrefixBound(rangeKey(t, raw), kind, lower)
			}
			return Bound{Kind: kind, Key: rangeKey(t, raw)}
		}
		loIn, hiIn, ok := c.Inclusive()
		if !ok {
			t.Fatalf("case %d: bounds %q", i, c.Bounds)
		}
		lo, hi := end(c.Lo, loIn, true), end(c.Hi, hiIn, false)
		name := fmt.Sprintf("case %d %s %s %s %s reverse=%v", i, c.Table, c.Lo, c.Hi, c.Bounds, c.Reverse)
		n, err := tb.Count(lo, hi)
		if err != nil || n != c.Count {
			t.Errorf("%s: Count = %d, %v; want %d", name, n, err, c.Count)
		}
		var got, vals [][]byte
		cur := tb.NewCursor(lo, hi)
		step, ok := cur.Next, cur.First()
		if c.Reverse {
			step, ok = cur.Prev, cur.Last()
		}
		for ; ok; ok = step() {
			got, vals = append(got, cur.Key()), append(vals, cur.Value())
		}
		if err := cur.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(c.Keys) {
			t.Errorf("%s: %d rows, want %d", name, len(got), len(c.Keys))
			continue
		}
		for j, k := range c.Keys {
			if !bytes.Equal(got[j], rangeKey(t, k)) || string(vals[j]) != "v:"+string(k) {
				t.Errorf("%s: row %d = %x %q, want %s", name, j, got[j], vals[j], k)
			}
		}
	}
	for _, tb := range vec.Tables {
		tab, _ := db.Table(tb.Name)
		if tab.Codec() != "raw" {
			t.Errorf("table %s: Codec() = %q, want raw", tb.Name, tab.Codec())
		}
	}
}

// TestCodecRecorded: TableOptions.Codec is stored as metadata and read back
// by Table.Codec; files without it (and other tables) say ""; the Python
// binding's older key is still read; bad names are refused.
func TestCodecRecorded(t *testing.T) {
	b, _ := NewBuilder(&BuilderOptions{Metadata: map[string][]byte{"codec:old": []byte("msgpack")}})
	for name, codec := range map[string]string{"j": "json", "none": "", "old": ""} {
		w, err := b.Table(name, &TableOptions{Codec: codec})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Append([]byte("k"), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Table("bad", &TableOptions{Codec: "a\nb"}); err == nil {
		t.Error("a codec name with a newline was accepted")
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, want := range map[string]string{"j": "json", "none": "", "old": "msgpack"} {
		tab, _ := db.Table(name)
		if got := tab.Codec(); got != want {
			t.Errorf("%s: Codec() = %q, want %q", name, got, want)
		}
	}
	if got := string(db.Info().Metadata[CodecMetaPrefix+"j"]); got != "json" {
		t.Errorf("metadata %sj = %q", CodecMetaPrefix, got)
	}
}

// TestPrefixBoundAllFF: past a prefix of 0xFF bytes there is no key; the
// bounds say so instead of wrapping around.
func TestPrefixBoundAllFF(t *testing.T) {
	b, _ := NewBuilder(nil)
	w, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Composite, Parts: []keyenc.Kind{keyenc.Int64, keyenc.Int64}}})
	for _, k := range [][2]int64{{1, 1}, {1<<63 - 1, 1}, {1<<63 - 1, 2}} {
		key, _ := keyenc.EncodeComposite([]keyenc.Kind{keyenc.Int64, keyenc.Int64}, []any{k[0], k[1]})
		_ = w.Append(key, nil)
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	db, _ := OpenBytes(data, nil)
	defer db.Close()
	tab, _ := db.Table("t")
	top := keyenc.EncodeInt64(1<<63 - 1)
	for _, c := range []struct {
		lo, hi Bound
		want   uint64
	}{
		{PrefixBound(top, Exclusive, true), All, 0},
		{PrefixBound(top, Inclusive, true), All, 2},
		{All, PrefixBound(top, Inclusive, false), 3},
		{All, PrefixBound(top, Exclusive, false), 1},
		{PrefixBound(top, Unbounded, true), All, 3},
	} {
		if n, err := tab.Count(c.lo, c.hi); err != nil || n != c.want {
			t.Errorf("Count(%v, %v) = %d, %v; want %d", c.lo.Kind, c.hi.Kind, n, err, c.want)
		}
	}
}

// TestDuplicateKeyShownDecoded: a duplicate key is named as the key it is
// (42, ("a", 1)), not as its encoded bytes.
func TestDuplicateKeyShownDecoded(t *testing.T) {
	comp := keyenc.Encoding{Kind: keyenc.Composite, Parts: []keyenc.Kind{keyenc.String, keyenc.Int64}}
	ck, _ := keyenc.EncodeComposite(comp.Parts, []any{"a", int64(1)})
	for _, c := range []struct {
		enc  keyenc.Encoding
		key  []byte
		want string
	}{
		{keyenc.Encoding{Kind: keyenc.Int64}, keyenc.EncodeInt64(42), `table "t" has key 42 twice`},
		{comp, ck, `table "t" has key ("a", 1) twice`},
		{keyenc.Encoding{Kind: keyenc.String}, []byte("dup"), `table "t" has key "dup" twice`},
	} {
		b, _ := NewBuilder(nil)
		w, _ := b.Table("t", &TableOptions{Encoding: c.enc})
		_ = w.Append(c.key, nil)
		_ = w.Append(c.key, nil)
		_, _, err := b.BuildToBytes()
		if !errors.Is(err, ErrDuplicateKey) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.enc, err, c.want)
		}
	}
}
