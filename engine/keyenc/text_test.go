package keyenc

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"
)

func TestTextRoundTrip(t *testing.T) {
	cases := []struct {
		enc  string
		text string
	}{
		{"int64", "-9223372036854775808"}, {"int64", "9223372036854775807"}, {"int64", "0"},
		{"uint64", "18446744073709551615"},
		{"float64", "2.5"}, {"float64", "-1e+300"}, {"float64", "5e-324"}, {"float64", "+Inf"}, {"float64", "-Inf"}, {"float64", "0"},
		{"uuid", "0190a6f1-7b2c-7def-8abc-0123456789ab"}, {"ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		{"string", "héllo"}, {"string", ""}, {"string", " spaced, (x) \"q\" "}, {"string", "hex:41"}, {"string", `a\x41`},
		{"bytes", `ab\x00\xff`}, {"bytes", ""}, {"bytes", `\x5cx41`}, {"bytes", `\x68ex:41`}, {"bytes", "hex"},
		{"composite(int64,string)", `(1, "a,b")`},
		{"composite(string,bytes)", `("hex:41", "\\x41")`},
		{"composite(string,bytes)", `("a\x00\"bé\t", "\x00\xff")`},
		{"composite(bytes,float64,uuid,ulid,uint64)", `("", -0.5, 0190a6f1-7b2c-7def-8abc-0123456789ab, 01ARZ3NDEKTSV4RRFFQ69G5FAV, 3)`},
	}
	for _, c := range cases {
		t.Run(c.enc+"/"+c.text, func(t *testing.T) {
			e, err := ParseEncoding(c.enc)
			if err != nil {
				t.Fatal(err)
			}
			k, err := ParseKey(e, c.text)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Validate(k); err != nil {
				t.Fatal(err)
			}
			if got := FormatKey(e, k); got != c.text {
				t.Errorf("formats as %q", got)
			}
		})
	}
}

func TestParseKeyForms(t *testing.T) {
	cases := []struct {
		enc  string
		text string
		want string // FormatKey of the result
	}{
		{"int64", " 0x10 ", "16"},
		{"float64", "-0", "0"},
		{"float64", "1e21", "1e+21"},
		{"uuid", "0190A6F1-7B2C-7DEF-8ABC-0123456789AB", "0190a6f1-7b2c-7def-8abc-0123456789ab"},
		{"ulid", "01arz3ndektsv4rrffq69g5fav", "01ARZ3NDEKTSV4RRFFQ69G5FAV"},
		{"bytes", "hex:00ff61", `\x00\xffa`},
		{"bytes", `a\`, `a\x5c`}, // a lone backslash is literal
		{"composite(int64,string)", "  ( 1 ,  abc )", `(1, "abc")`},
		{"composite(int64,string)", "7", ""},                           // one-element prefix; not a full key
		{"composite(bytes,int64)", `(hex:0001, 2)`, `("\x00\x01", 2)`}, // bare bytes take the bytes forms
		{"composite(bytes,int64)", `(a\x00, 2)`, `("a\x00", 2)`},
		{"composite(string,int64)", "(`raw\\x`, 2)", `("raw\\x", 2)`},
	}
	for _, c := range cases {
		t.Run(c.enc+"/"+c.text, func(t *testing.T) {
			e, _ := ParseEncoding(c.enc)
			k, err := ParseKey(e, c.text)
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				return
			}
			if got := FormatKey(e, k); got != c.want {
				t.Errorf("formats as %q, want %q", got, c.want)
			}
		})
	}
	// A tuple prefix parses to the byte prefix of the full key.
	e, _ := ParseEncoding("composite(string,int64)")
	full, _ := ParseKey(e, `("a", 1)`)
	pre, _ := ParseKey(e, `("a")`)
	if !bytes.HasPrefix(full, pre) || len(pre) == len(full) {
		t.Fatalf("%x is not a proper prefix of %x", pre, full)
	}
}

func TestParseKeyErrors(t *testing.T) {
	cases := []struct{ enc, text string }{
		{"int64", "x"}, {"int64", "9223372036854775808"}, {"uint64", "-1"},
		{"float64", "NaN"}, {"float64", "1e999x"}, {"uuid", "nope"}, {"ulid", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ"},
		{"bytes", `\x4`}, {"bytes", `\xzz`}, {"bytes", "hex:0"}, {"string", "\xff"},
		{"composite(int64)", "(1, 2)"}, {"composite(int64)", "(1"}, {"composite(int64)", "("},
		{"composite(string)", `("a" "b")`}, {"composite(string)", `("a)`}, {"composite(string)", "(\"\\xff\")"},
		{"composite(int64,string)", `(x, "a")`},
	}
	for _, c := range cases {
		t.Run(c.enc+"/"+c.text, func(t *testing.T) {
			e, _ := ParseEncoding(c.enc)
			if k, err := ParseKey(e, c.text); !errors.Is(err, ErrBadKey) {
				t.Fatalf("parsed as %x, %v", k, err)
			}
		})
	}
	if _, err := ParseKey(Encoding{Kind: 9}, "1"); err == nil {
		t.Fatal("unknown encoding accepted")
	}
}

func TestFormatKeyUndecodable(t *testing.T) {
	cases := []struct {
		enc  Encoding
		key  []byte
		want string
	}{
		{Encoding{Kind: Int64}, []byte{1, 2}, "hex:0102"},
		{Encoding{Kind: Float64}, EncodeUint64(negZero), "hex:7fffffffffffffff"},
		{Encoding{Kind: Composite, Parts: []Kind{String}}, []byte("a"), "hex:61"},
	}
	for _, c := range cases {
		if got := FormatKey(c.enc, c.key); got != c.want {
			t.Errorf("%s %x: %q, want %q", c.enc, c.key, got, c.want)
		}
	}
}

// Every valid full composite key survives FormatKey then ParseKey.
func TestTextRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	e := Encoding{Kind: Composite, Parts: randParts}
	for range 2000 {
		tu := randTuple(r)
		if len(tu) != len(randParts) {
			continue
		}
		k, err := EncodeComposite(randParts, tu)
		if err != nil {
			t.Fatal(err)
		}
		text := FormatKey(e, k)
		back, err := ParseKey(e, text)
		if err != nil || !bytes.Equal(back, k) {
			t.Fatalf("%q -> %q -> %x, %v (want %x)", tu, text, back, err, k)
		}
	}
	for range 2000 {
		b := make([]byte, r.Intn(6))
		r.Read(b)
		if r.Intn(3) == 0 {
			b = append([]byte("hex:"), b...)
		}
		text := FormatKey(Encoding{Kind: Bytes}, b)
		back, err := ParseKey(Encoding{Kind: Bytes}, text)
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("bytes %x -> %q -> %x, %v", b, text, back, err)
		}
	}
}
