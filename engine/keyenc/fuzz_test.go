package keyenc

import (
	"bytes"
	"testing"
)

// fuzzParts are the composite encodings the fuzz targets pick from with
// their first input byte.
var fuzzParts = [][]Kind{
	{Bytes, Int64},
	{String, Float64, Bytes},
	{Uint64, String},
	{UUID, ULID, Bytes},
	{Float64},
	{String, String, String},
}

// FuzzDecodeComposite: decoding never panics, and whatever decodes encodes
// back to exactly the same bytes (one encoding per tuple).
func FuzzDecodeComposite(f *testing.F) {
	f.Add(byte(0), []byte{0, 1, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add(byte(0), []byte{'a', 0, 0xFF, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Add(byte(1), []byte{'a', 0, 1, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 1})
	f.Add(byte(4), []byte{0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Add(byte(5), []byte{0, 0xFF, 0, 1, 0, 1, 0xc3, 0xa9, 0, 1})
	f.Fuzz(func(t *testing.T, sel byte, b []byte) {
		parts := fuzzParts[int(sel)%len(fuzzParts)]
		vals, err := DecodeComposite(parts, b)
		// Validate walks the key without decoding it: same verdict, same words
		verr := (Encoding{Kind: Composite, Parts: parts}).Validate(b)
		if (err == nil) != (verr == nil) || err != nil && err.Error() != verr.Error() {
			t.Fatalf("%x: DecodeComposite says %v, Validate says %v", b, err, verr)
		}
		if err != nil {
			return
		}
		k, err := EncodeComposite(parts, vals)
		if err != nil || !bytes.Equal(k, b) {
			t.Fatalf("%x decodes to %q, which encodes to %x (%v)", b, vals, k, err)
		}
	})
}

// FuzzParseKey: parsing never panics, and a parsed key that is valid
// formats to text that parses back to the same key.
func FuzzParseKey(f *testing.F) {
	f.Add("composite(int64,string)", `(1, "x")`)
	f.Add("composite(string,bytes)", `("hex:00", "\\x41")`)
	f.Add("bytes", `\x00ab`)
	f.Add("bytes", `hex:0011ff`)
	f.Add("float64", "-0")
	f.Add("uuid", "0190a6f1-7b2c-7def-8abc-0123456789ab")
	f.Add("ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAV")
	f.Fuzz(func(t *testing.T, enc, text string) {
		e, err := ParseEncoding(enc)
		if err != nil {
			return
		}
		k, err := ParseKey(e, text)
		if err != nil || e.Validate(k) != nil {
			return // composite prefixes do not validate
		}
		out := FormatKey(e, k)
		back, err := ParseKey(e, out)
		if err != nil || !bytes.Equal(back, k) {
			t.Fatalf("%q -> %x -> %q -> %x (%v)", text, k, out, back, err)
		}
	})
}

// FuzzUnmarshalEncoding: catalog bytes from a damaged file never panic, and
// whatever is accepted marshals back to the same bytes.
func FuzzUnmarshalEncoding(f *testing.F) {
	f.Add([]byte{2, 0})
	f.Add([]byte{7, 2, 2, 1})
	f.Add([]byte{7, 1, 7})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := UnmarshalEncoding(b)
		if err != nil {
			return
		}
		if m := e.Marshal(); !bytes.Equal(m, b) {
			t.Fatalf("%x -> %v -> %x", b, e, m)
		}
		if back, err := ParseEncoding(e.String()); err != nil || back.String() != e.String() {
			t.Fatalf("%v: %v", e, err)
		}
	})
}
