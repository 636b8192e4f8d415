package msgpack

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// Encodings checked against the MessagePack specification's examples, so the
// files the CLI writes can be read by any other MessagePack library.
func TestAppendKnownBytes(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{nil, "c0"},
		{true, "c3"},
		{false, "c2"},
		{int64(0), "00"},
		{int64(127), "7f"},
		{int64(128), "cc80"},
		{int64(256), "cd0100"},
		{int64(70000), "ce00011170"},
		{int64(1 << 40), "cf0000010000000000"},
		{int64(-1), "ff"},
		{int64(-32), "e0"},
		{int64(-33), "d0df"},
		{int64(-200), "d1ff38"},
		{int64(-70000), "d2fffeee90"},
		{int64(math.MinInt64), "d38000000000000000"},
		{uint64(math.MaxUint64), "cfffffffffffffffff"},
		{1.5, "cb3ff8000000000000"},
		{"", "a0"},
		{"abc", "a3616263"},
		{[]byte{1, 2}, "c4020102"},
		{[]any{int64(1), "a"}, "9201a161"},
		{Map{{"a", int64(1)}, {"b", nil}}, "82a16101a162c0"},
		{json.Number("12"), "0c"},
		{json.Number("1.5"), "cb3ff8000000000000"},
	}
	for _, c := range cases {
		got, err := Marshal(c.v)
		if err != nil {
			t.Fatalf("%#v: %v", c.v, err)
		}
		if hex.EncodeToString(got) != c.want {
			t.Errorf("%#v: got %x want %s", c.v, got, c.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	long := string(bytes.Repeat([]byte("x"), 70000))
	arr := make([]any, 20)
	for i := range arr {
		arr[i] = int64(i * 1000)
	}
	vals := []any{
		nil, true, false, int64(-5), int64(1 << 33), uint64(math.MaxUint64), 2.25,
		"héllo", long, []byte{0, 255}, arr,
		Map{{"id", int64(7)}, {"name", "x"}, {"tags", []any{"a", "b"}}, {"nested", Map{{"z", 1.0}}}},
		Ext{Type: 5, Data: []byte{1, 2, 3}},
	}
	for _, v := range vals {
		b, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		if !reflect.DeepEqual(got, v) {
			t.Errorf("round trip: got %#v want %#v", got, v)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	bad := []string{"", "a3616", "dc0010", "c1", "82a161", "ce0000", "0101"}
	for _, h := range bad {
		b, _ := hex.DecodeString(h)
		if _, err := Decode(b); err == nil {
			t.Errorf("%s: expected error", h)
		}
	}
	// A huge declared length must fail fast rather than allocate.
	if _, err := Decode([]byte{0xdd, 0xff, 0xff, 0xff, 0xff}); err == nil {
		t.Error("huge array: expected error")
	}
}

func TestAppendJSON(t *testing.T) {
	v := Map{{"b", int64(1)}, {"a", []any{1.5, nil, true, "q\"x"}}, {"bin", []byte{1}}, {"f", 3.0}, {"nan", math.NaN()}}
	got, err := AppendJSON(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":1,"a":[1.5,null,true,"q\"x"],"bin":"AQ==","f":3.0,"nan":"NaN"}`
	if string(got) != want {
		t.Errorf("got %s want %s", got, want)
	}
	if !json.Valid(got) {
		t.Error("not valid JSON")
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{0x82, 0xa1, 0x61, 0x01, 0xa1, 0x62, 0xc0})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Decode(b)
		if err != nil {
			return
		}
		if _, err := AppendJSON(nil, v); err != nil {
			t.Fatal(err)
		}
	})
}
