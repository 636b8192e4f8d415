package keyenc

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

var update = flag.Bool("update", false, "rewrite tests/vectors/keys.json")

func TestOrderInt64(t *testing.T) {
	vals := []int64{math.MinInt64, -1 << 40, -2, -1, 0, 1, 2, 1 << 40, math.MaxInt64}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 1000; i++ {
		vals = append(vals, r.Int63()-r.Int63())
	}
	for _, a := range vals {
		for _, b := range vals[:50] {
			if c := bytes.Compare(EncodeInt64(a), EncodeInt64(b)); c != cmp(a, b) {
				t.Fatalf("int64 %d vs %d: %d", a, b, c)
			}
		}
		if d, _ := DecodeInt64(EncodeInt64(a)); d != a {
			t.Fatal(a)
		}
	}
}

func cmp[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestOrderFloat64(t *testing.T) {
	vals := []float64{math.Inf(-1), -math.MaxFloat64, -1e300, -1, -math.SmallestNonzeroFloat64, 0, math.SmallestNonzeroFloat64, 1e-300, 1, 2.5, math.MaxFloat64, math.Inf(1)}
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 500; i++ {
		vals = append(vals, r.NormFloat64()*math.Pow(10, float64(r.Intn(40)-20)))
	}
	for _, a := range vals {
		ea, _ := EncodeFloat64(a)
		for _, b := range vals[:40] {
			eb, _ := EncodeFloat64(b)
			if c := bytes.Compare(ea, eb); c != cmp(a, b) {
				t.Fatalf("float %g vs %g: %d", a, b, c)
			}
		}
		if d, _ := DecodeFloat64(ea); d != a {
			t.Fatal(a)
		}
	}
	negz, _ := EncodeFloat64(math.Copysign(0, -1))
	posz, _ := EncodeFloat64(0)
	if !bytes.Equal(negz, posz) {
		t.Fatal("-0 and +0 differ")
	}
	if _, err := EncodeFloat64(math.NaN()); !errors.Is(err, ErrBadKey) {
		t.Fatal("NaN accepted")
	}
}

func TestComposite(t *testing.T) {
	parts := []Kind{String, Int64, Bytes}
	tuples := [][]any{
		{"", int64(0), []byte{}},
		{"a", int64(-1), []byte{0}},
		{"a", int64(-1), []byte{0, 0}},
		{"a", int64(5), []byte{0xFF}},
		{"a\x00", int64(0), []byte{}},
		{"ab", int64(math.MinInt64), []byte("x")},
		{"b", int64(0), []byte{}},
	}
	var prev []byte
	for i, tu := range tuples {
		k, err := EncodeComposite(parts, tu)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && bytes.Compare(prev, k) >= 0 {
			t.Fatalf("tuple %d does not sort after %d", i, i-1)
		}
		prev = k
		back, err := DecodeComposite(parts, k)
		if err != nil || fmt.Sprint(back) != fmt.Sprint(tu) {
			t.Fatalf("round trip %v -> %v (%v)", tu, back, err)
		}
		pre, _ := EncodeComposite(parts, tu[:1])
		if !bytes.HasPrefix(k, pre) {
			t.Fatal("tuple prefix is not a key prefix")
		}
		if err := (Encoding{Kind: Composite, Parts: parts}).Validate(k); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := DecodeComposite(parts, []byte{'a', 0}); !errors.Is(err, ErrBadKey) {
		t.Fatal(err)
	}
}

func TestValidateAndEncodings(t *testing.T) {
	cases := []struct {
		enc Encoding
		key []byte
		ok  bool
	}{
		{Encoding{Kind: Int64}, make([]byte, 8), true},
		{Encoding{Kind: Int64}, make([]byte, 3), false},
		{Encoding{Kind: UUID}, make([]byte, 16), true},
		{Encoding{Kind: ULID}, make([]byte, 15), false},
		{Encoding{Kind: String}, []byte("héllo"), true},
		{Encoding{Kind: String}, []byte{0xff}, false},
		{Encoding{Kind: Bytes}, nil, true},
	}
	for _, c := range cases {
		if err := c.enc.Validate(c.key); (err == nil) != c.ok {
			t.Errorf("%s %x: %v", c.enc, c.key, err)
		}
	}
	for _, s := range []string{"bytes", "int64", "composite(int64,string,uuid)"} {
		e, err := ParseEncoding(s)
		if err != nil || e.String() != s {
			t.Fatalf("%s: %v %v", s, e, err)
		}
		back, err := UnmarshalEncoding(e.Marshal())
		if err != nil || back.String() != s {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"int32", "composite()", "composite(composite)"} {
		if _, err := ParseEncoding(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if _, err := UnmarshalEncoding([]byte{7, 3, 1}); err == nil {
		t.Fatal("short encoding accepted")
	}
}

func TestTextRoundTrip(t *testing.T) {
	u := uuid.MustParse("0190a6f1-7b2c-7def-8abc-0123456789ab")
	l := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	cases := []struct {
		enc  string
		text string
	}{
		{"int64", "-42"}, {"uint64", "18446744073709551615"}, {"float64", "2.5"},
		{"uuid", u.String()}, {"ulid", l.String()}, {"string", "héllo"},
		{"bytes", `ab\x00\xff`}, {"composite(int64,string)", `(1, "a,b")`},
	}
	for _, c := range cases {
		e, _ := ParseEncoding(c.enc)
		k, err := ParseKey(e, c.text)
		if err != nil {
			t.Fatalf("%s %q: %v", c.enc, c.text, err)
		}
		if got := FormatKey(e, k); got != c.text {
			t.Errorf("%s: %q -> %q", c.enc, c.text, got)
		}
	}
	if _, err := ParseKey(Encoding{Kind: Int64}, "x"); !errors.Is(err, ErrBadKey) {
		t.Fatal(err)
	}
}

func FuzzDecodeComposite(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{'a', 0, 0xFF, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		parts := []Kind{Bytes, Int64}
		if vals, err := DecodeComposite(parts, b); err == nil {
			k, err := EncodeComposite(parts, vals)
			if err != nil || !bytes.Equal(k, b) {
				t.Fatalf("%x does not round trip", b)
			}
		}
	})
}

func FuzzParseKey(f *testing.F) {
	f.Add("composite(int64,string)", `(1, "x")`)
	f.Add("bytes", `\x00ab`)
	f.Fuzz(func(t *testing.T, enc, text string) {
		e, err := ParseEncoding(enc)
		if err != nil {
			return
		}
		if k, err := ParseKey(e, text); err == nil && e.Kind != Composite {
			if err := e.Validate(k); err != nil && e.Kind != String {
				t.Fatalf("parsed key does not validate: %v", err)
			}
		}
	})
}

// Golden vectors shared with the C, Python and C# encoders.
type vec struct {
	Value any    `json:"value"`
	Hex   string `json:"hex"`
}
type compVec struct {
	Parts  []string `json:"parts"`
	Values []any    `json:"values"`
	Hex    string   `json:"hex"`
}

func goldenKeys(t *testing.T) []byte {
	out := map[string]any{}
	var iv []vec
	for _, v := range []int64{math.MinInt64, -1 << 40, -256, -1, 0, 1, 255, 1 << 40, math.MaxInt64} {
		iv = append(iv, vec{v, hex.EncodeToString(EncodeInt64(v))})
	}
	out["int64"] = iv
	var uv []vec
	for _, v := range []uint64{0, 1, 255, 1 << 40, math.MaxUint64} {
		uv = append(uv, vec{fmt.Sprint(v), hex.EncodeToString(EncodeUint64(v))})
	}
	out["uint64"] = uv
	var fv []vec
	for _, v := range []float64{math.Inf(-1), -1e300, -2.5, -1, -math.SmallestNonzeroFloat64, 0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, 1, 2.5, 1e300, math.Inf(1)} {
		e, _ := EncodeFloat64(v)
		var val any = v
		switch {
		case math.IsInf(v, 1):
			val = "inf"
		case math.IsInf(v, -1):
			val = "-inf"
		case v == 0 && math.Signbit(v):
			val = "-0"
		}
		fv = append(fv, vec{val, hex.EncodeToString(e)})
	}
	out["float64"] = fv
	u := uuid.MustParse("0190a6f1-7b2c-7def-8abc-0123456789ab")
	out["uuid"] = []vec{{u.String(), hex.EncodeToString(u[:])}}
	l := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	out["ulid"] = []vec{{l.String(), hex.EncodeToString(l[:])}}
	var cv []compVec
	for _, c := range []struct {
		parts []Kind
		vals  []any
	}{
		{[]Kind{Int64, String}, []any{int64(-1), "abc"}},
		{[]Kind{String, Int64}, []any{"a\x00b", int64(7)}},
		{[]Kind{Bytes, Uint64}, []any{[]byte{0, 0xFF, 1}, uint64(9)}},
		{[]Kind{String, String}, []any{"", ""}},
		{[]Kind{Float64, UUID}, []any{-2.5, u}},
	} {
		k, err := EncodeComposite(c.parts, c.vals)
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, len(c.parts))
		vals := make([]any, len(c.vals))
		for i, p := range c.parts {
			names[i] = p.String()
			switch x := c.vals[i].(type) {
			case []byte:
				vals[i] = map[string]string{"hex": hex.EncodeToString(x)}
			case uuid.UUID:
				vals[i] = x.String()
			case uint64:
				vals[i] = fmt.Sprint(x)
			default:
				vals[i] = x
			}
		}
		cv = append(cv, compVec{names, vals, hex.EncodeToString(k)})
	}
	out["composite"] = cv
	out["_comment"] = "Generated by `go test ./engine/keyenc -run TestGoldenKeys -update`. uint64 values are strings (JSON numbers lose precision); bytes parts are {\"hex\": ...}; floats inf/-inf/-0 as strings."
	b, _ := json.MarshalIndent(out, "", "  ")
	return append(b, '\n')
}

func TestGoldenKeys(t *testing.T) {
	const path = "../../tests/vectors/keys.json"
	want := goldenKeys(t)
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date (run with -update): %v", path, err)
	}
}
