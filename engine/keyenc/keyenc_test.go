package keyenc

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

func TestKindNumbersAndNames(t *testing.T) {
	// The numbers are an on-disk and C ABI contract.
	cases := []struct {
		k    Kind
		n    uint8
		name string
	}{
		{Bytes, 0, "bytes"}, {String, 1, "string"}, {Int64, 2, "int64"}, {Uint64, 3, "uint64"},
		{Float64, 4, "float64"}, {UUID, 5, "uuid"}, {ULID, 6, "ulid"}, {Composite, 7, "composite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if uint8(c.k) != c.n || c.k.String() != c.name {
				t.Fatalf("kind %d is %d %q", c.k, c.n, c.k.String())
			}
			if k, err := ParseKind(c.name); err != nil || k != c.k {
				t.Fatalf("ParseKind(%q) = %v, %v", c.name, k, err)
			}
		})
	}
	if _, err := ParseKind("int32"); err == nil || !strings.HasPrefix(err.Error(), "drydb: ") {
		t.Fatalf("ParseKind(int32): %v", err)
	}
	if got := Kind(9).String(); got != "kind(9)" {
		t.Fatal(got)
	}
}

func TestEncodings(t *testing.T) {
	good := []struct {
		text    string
		marshal []byte
	}{
		{"bytes", []byte{0, 0}},
		{"int64", []byte{2, 0}},
		{"ulid", []byte{6, 0}},
		{"composite(int64,string)", []byte{7, 2, 2, 1}},
		{"composite(bytes,string,int64,uint64,float64,uuid,ulid)", []byte{7, 7, 0, 1, 2, 3, 4, 5, 6}},
		{"composite(" + strings.Repeat("int64,", 15) + "int64)", append([]byte{7, 16}, bytes.Repeat([]byte{2}, 16)...)},
	}
	for _, c := range good {
		t.Run(c.text, func(t *testing.T) {
			e, err := ParseEncoding(c.text)
			if err != nil || e.String() != c.text {
				t.Fatalf("ParseEncoding = %v, %v", e, err)
			}
			if m := e.Marshal(); !bytes.Equal(m, c.marshal) {
				t.Fatalf("Marshal = %x, want %x", m, c.marshal)
			}
			back, err := UnmarshalEncoding(c.marshal)
			if err != nil || back.String() != c.text {
				t.Fatalf("UnmarshalEncoding = %v, %v", back, err)
			}
		})
	}
	if e, err := ParseEncoding(" composite( int64 , STRING ) "); err != nil || e.String() != "composite(int64,string)" {
		t.Fatalf("blanks and case: %v %v", e, err)
	}
	for _, bad := range []string{"", "int32", "composite", "composite()", "composite(composite)",
		"composite(int64,)", "composite(int64", "composite(" + strings.Repeat("int64,", 16) + "int64)"} {
		t.Run("bad/"+bad, func(t *testing.T) {
			if e, err := ParseEncoding(bad); err == nil {
				t.Fatalf("accepted as %v", e)
			}
		})
	}
	badBin := [][]byte{nil, {2}, {7, 0}, {7, 3, 1}, {7, 1, 7}, {7, 1, 9}, {8, 0}, {2, 1, 2}, {2, 0, 0},
		append([]byte{7, 17}, bytes.Repeat([]byte{2}, 17)...)}
	for _, b := range badBin {
		t.Run(fmt.Sprintf("badbin/%x", b), func(t *testing.T) {
			if e, err := UnmarshalEncoding(b); err == nil {
				t.Fatalf("accepted as %v", e)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	comp := Encoding{Kind: Composite, Parts: []Kind{String, Int64}}
	good, _ := EncodeComposite(comp.Parts, []any{"a", int64(1)})
	cases := []struct {
		name string
		enc  Encoding
		key  []byte
		msg  string // "" = valid; else a substring of the error
	}{
		{"int64", Encoding{Kind: Int64}, make([]byte, 8), ""},
		{"int64 short", Encoding{Kind: Int64}, make([]byte, 3), "drydb: bad key: int64 key must be 8 bytes, got 3"},
		{"uint64 long", Encoding{Kind: Uint64}, make([]byte, 9), "uint64 key must be 8 bytes, got 9"},
		{"float64", Encoding{Kind: Float64}, EncodeUint64(1 << 63), ""},
		{"float64 empty", Encoding{Kind: Float64}, nil, "float64 key must be 8 bytes, got 0"},
		{"float64 NaN", Encoding{Kind: Float64}, EncodeUint64(math.MaxUint64), "NaN"},
		{"float64 -0", Encoding{Kind: Float64}, EncodeUint64(negZero), "-0"},
		{"uuid", Encoding{Kind: UUID}, make([]byte, 16), ""},
		{"ulid short", Encoding{Kind: ULID}, make([]byte, 15), "ulid key must be 16 bytes, got 15"},
		{"string", Encoding{Kind: String}, []byte("héllo\x00"), ""},
		{"string bad utf8", Encoding{Kind: String}, []byte{0xff}, "not valid UTF-8"},
		{"bytes empty", Encoding{Kind: Bytes}, nil, ""},
		{"bytes any", Encoding{Kind: Bytes}, []byte{0, 0xff}, ""},
		{"composite", comp, good, ""},
		{"composite truncated", comp, good[:len(good)-1], "needs 8 bytes"},
		{"composite trailing", comp, append(append([]byte{}, good...), 0), "after the last composite part"},
		{"composite unterminated", comp, []byte("a"), "terminator"},
		{"composite bad escape", comp, []byte{'a', 0, 2}, "0x00 followed by 0x02"},
		{"composite bad utf8", comp, append([]byte{0xff, 0, 1}, good[3:]...), "not valid UTF-8"},
		{"composite NUL in string", comp, append([]byte{0xc3, 0xa9, 0, 0xff, 'x', 0, 1}, good[3:]...), ""},
		{"composite utf8 split by escape", comp, append([]byte{0xc3, 0, 0xff, 0xa9, 0, 1}, good[3:]...), "not valid UTF-8"},
		{"unknown kind", Encoding{Kind: 9}, nil, "unknown key encoding 9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.enc.Validate(c.key)
			if c.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "drydb: bad key: ") {
				t.Fatalf("error %v, want ErrBadKey containing %q", err, c.msg)
			}
		})
	}
	// the check on every get of a composite table allocates nothing
	if n := testing.AllocsPerRun(100, func() { _ = comp.Validate(good) }); n != 0 {
		t.Fatalf("Validate of a composite key: %v allocations", n)
	}
}

// Bounds are keys, and of a composite encoding also tuple prefixes.
func TestValidateBound(t *testing.T) {
	comp := Encoding{Kind: Composite, Parts: []Kind{Int64, String, Float64}}
	enc := func(vals ...any) []byte {
		k, err := EncodeComposite(comp.Parts, vals)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	nan := []byte{0xff, 0xf8, 0, 0, 0, 0, 0, 0}
	cases := []struct {
		name string
		enc  Encoding
		key  []byte
		ok   bool
	}{
		{"int64 key", Encoding{Kind: Int64}, EncodeInt64(5), true},
		{"int64 empty", Encoding{Kind: Int64}, nil, false},
		{"int64 9 bytes", Encoding{Kind: Int64}, append(EncodeInt64(5), 0), false},
		{"float64 NaN", Encoding{Kind: Float64}, nan, false},
		{"string empty", Encoding{Kind: String}, nil, true},
		{"string not UTF-8", Encoding{Kind: String}, []byte{0xff}, false},
		{"bytes anything", Encoding{}, []byte{0xff, 0}, true},
		{"composite whole", comp, enc(int64(1), "a", 2.5), true},
		{"composite no parts", comp, nil, true},
		{"composite one part", comp, enc(int64(1)), true},
		{"composite two parts", comp, enc(int64(1), "a"), true},
		{"composite half a part", comp, enc(int64(1))[:5], false},
		{"composite unterminated string", comp, append(enc(int64(1)), 'a'), false},
		{"composite NaN part", comp, append(enc(int64(1), "a"), nan...), false},
		{"composite trailing", comp, append(enc(int64(1), "a", 2.5), 0), false},
	}
	for _, c := range cases {
		err := c.enc.ValidateBound(c.key)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrBadKey)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// An exclusive upper bound may also end a prefix range: the successor of a
// bound, as engine.PrefixBounds makes it.
func TestValidateUpperBound(t *testing.T) {
	i64 := Encoding{Kind: Int64}
	comp := Encoding{Kind: Composite, Parts: []Kind{String, Int64}}
	succ := func(p []byte) []byte { // engine.PrefixBounds's upper end
		q := bytes.TrimRight(p, "\xff")
		q = append([]byte(nil), q...)
		q[len(q)-1]++
		return q
	}
	tuple, _ := EncodeComposite(comp.Parts, []any{"b"})
	whole, _ := EncodeComposite(comp.Parts, []any{"b", int64(-1)}) // ends in 0xFF bytes
	cases := []struct {
		name string
		enc  Encoding
		key  []byte
		ok   bool
	}{
		{"a key", i64, EncodeInt64(7), true},
		{"successor of an int64 key", i64, succ(EncodeInt64(7)), true},
		{"successor of an int64 key ending in 0xFF", i64, succ(EncodeInt64(255)), true},
		{"empty", i64, nil, false},
		{"9 bytes", i64, append(EncodeInt64(7), 1), false},
		{"successor of a string", Encoding{Kind: String}, succ([]byte("a\x7f")), true},
		{"not UTF-8, no successor", Encoding{Kind: String}, []byte{0xff, 0xfe}, false},
		{"successor of a tuple prefix", comp, succ(tuple), true},
		{"successor of a whole tuple ending in 0xFF", comp, succ(whole), true},
		{"half a part, which ends no prefix range", comp, append(append([]byte(nil), tuple...), 1, 2, 0), false},
		{"a bad escape", comp, []byte("b\x00\x05"), false},
	}
	for _, c := range cases {
		err := c.enc.ValidateUpperBound(c.key)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrBadKey)) {
			t.Errorf("%s (%x): %v", c.name, c.key, err)
		}
	}
}

func TestDecodersRefuseWrongWidth(t *testing.T) {
	for _, n := range []int{0, 1, 7, 9, 15, 17} {
		b := make([]byte, n)
		errs := map[string]error{}
		_, errs["int64"] = DecodeInt64(b)
		_, errs["uint64"] = DecodeUint64(b)
		_, errs["float64"] = DecodeFloat64(b)
		_, errs["uuid"] = DecodeUUID(b)
		_, errs["ulid"] = DecodeULID(b)
		for name, err := range errs {
			if !errors.Is(err, ErrBadKey) {
				t.Errorf("%s decoder on %d bytes: %v", name, n, err)
			}
		}
	}
}

func TestFixedRoundTrips(t *testing.T) {
	u := uuid.MustParse("0190a6f1-7b2c-7def-8abc-0123456789ab")
	if d, err := DecodeUUID(EncodeUUID(u)); err != nil || uuid.UUID(d) != u || !bytes.Equal(EncodeUUID(u), u[:]) {
		t.Fatal("uuid", d, err)
	}
	l := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	if d, err := DecodeULID(EncodeULID(l)); err != nil || ulid.ULID(d) != l || !bytes.Equal(EncodeULID(l), l[:]) {
		t.Fatal("ulid", d, err)
	}
	// Append must not disturb what is already in dst.
	if got := AppendInt64([]byte("x"), 0); !bytes.Equal(got, []byte("x\x80\x00\x00\x00\x00\x00\x00\x00")) {
		t.Fatalf("%x", got)
	}
}

func sign[T int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkOrder checks bytes.Compare(enc(a), enc(b)) == cmp(a, b) for all
// pairs, and that decoding gives the value back.
func checkOrder[T any](t *testing.T, vals []T, enc func(T) []byte, dec func([]byte) (T, error), cmp func(a, b T) int, eq func(a, b T) bool) {
	t.Helper()
	keys := make([][]byte, len(vals))
	for i, v := range vals {
		keys[i] = enc(v)
		d, err := dec(keys[i])
		if err != nil || !eq(d, v) {
			t.Fatalf("%v decodes as %v, %v", v, d, err)
		}
	}
	for i := range vals {
		for j := range vals {
			if got, want := bytes.Compare(keys[i], keys[j]), cmp(vals[i], vals[j]); got != want {
				t.Fatalf("%v vs %v: bytes compare %d, values compare %d", vals[i], vals[j], got, want)
			}
		}
	}
}

func TestOrderInt64(t *testing.T) {
	vals := []int64{math.MinInt64, math.MinInt64 + 1, -1 << 40, -256, -2, -1, 0, 1, 2, 255, 256, 1 << 40, math.MaxInt64 - 1, math.MaxInt64}
	r := rand.New(rand.NewSource(1))
	for range 400 {
		vals = append(vals, int64(r.Uint64()), r.Int63n(1000)-500)
	}
	checkOrder(t, vals, EncodeInt64, DecodeInt64, sign[int64], func(a, b int64) bool { return a == b })
}

func TestOrderUint64(t *testing.T) {
	vals := []uint64{0, 1, 255, 256, 1 << 63, 1<<63 - 1, math.MaxUint64 - 1, math.MaxUint64}
	r := rand.New(rand.NewSource(2))
	for range 400 {
		vals = append(vals, r.Uint64(), r.Uint64()>>r.Intn(64))
	}
	checkOrder(t, vals, EncodeUint64, DecodeUint64, sign[uint64], func(a, b uint64) bool { return a == b })
}

func TestOrderFloat64(t *testing.T) {
	vals := []float64{math.Inf(-1), -math.MaxFloat64, -1e300, -2.5, -1, -0x1p-1022, -math.SmallestNonzeroFloat64,
		math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 0x1p-1022 - math.SmallestNonzeroFloat64, 0x1p-1022,
		1e-300, 1, math.Nextafter(1, 2), 2.5, math.MaxFloat64, math.Inf(1)}
	r := rand.New(rand.NewSource(3))
	for len(vals) < 800 {
		// Random bit patterns cover every exponent, subnormals included.
		f := math.Float64frombits(r.Uint64())
		if !math.IsNaN(f) {
			vals = append(vals, f, r.NormFloat64())
		}
	}
	enc := func(f float64) []byte {
		b, err := EncodeFloat64(f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// -0 decodes as +0 (they are equal numbers and share one key).
	checkOrder(t, vals, enc, DecodeFloat64, sign[float64], func(a, b float64) bool { return a == b })
}

func TestFloat64Special(t *testing.T) {
	negz, _ := EncodeFloat64(math.Copysign(0, -1))
	posz, _ := EncodeFloat64(0)
	if !bytes.Equal(negz, posz) || !bytes.Equal(posz, EncodeUint64(1<<63)) {
		t.Fatalf("-0 %x, +0 %x", negz, posz)
	}
	if d, _ := DecodeFloat64(negz); math.Signbit(d) {
		t.Fatal("zero decodes as -0")
	}
	for _, nan := range []float64{math.NaN(), math.Float64frombits(0xfff8000000000001)} {
		if b, err := EncodeFloat64(nan); !errors.Is(err, ErrBadKey) || b != nil {
			t.Fatalf("NaN encoded as %x, %v", b, err)
		}
	}
	if dst, err := AppendFloat64([]byte("k"), math.NaN()); err == nil || string(dst) != "k" {
		t.Fatalf("AppendFloat64(NaN) = %q, %v", dst, err)
	}
	// Every encoding of a NaN, and the never-written -0 encoding, is refused.
	for _, u := range []uint64{math.MaxUint64, 0xfff0000000000001, 0x0007ffffffffffff, 0, negZero} {
		if f, err := DecodeFloat64(EncodeUint64(u)); !errors.Is(err, ErrBadKey) {
			t.Errorf("%016x decodes as %g", u, f)
		}
	}
}

func TestOrderUUIDAndULID(t *testing.T) {
	// v7 UUIDs and ULIDs made later must sort later: the point of RFC 4122
	// byte order and of the ULID binary form.
	base := time.UnixMilli(1_700_000_000_000)
	var prevU, prevL []byte
	for i := range 200 {
		ts := base.Add(time.Duration(i) * time.Millisecond)
		u, err := uuid.NewV7FromReader(strings.NewReader(strings.Repeat("\xff", 64)))
		if err != nil {
			t.Fatal(err)
		}
		// NewV7FromReader uses the clock; put our time in the 48-bit field.
		ms := uint64(ts.UnixMilli())
		for b := range 6 {
			u[b] = byte(ms >> (40 - 8*b))
		}
		l := ulid.MustNew(ulid.Timestamp(ts), bytes.NewReader(bytes.Repeat([]byte{byte(255 - i)}, 10)))
		ku, kl := EncodeUUID(u), EncodeULID(l)
		if prevU != nil && (bytes.Compare(prevU, ku) >= 0 || bytes.Compare(prevL, kl) >= 0) {
			t.Fatalf("step %d: not after the previous one", i)
		}
		prevU, prevL = ku, kl
	}
}

func TestUUIDv7SortsByTime(t *testing.T) {
	a, _ := uuid.NewV7()
	time.Sleep(2 * time.Millisecond)
	b, _ := uuid.NewV7()
	if bytes.Compare(EncodeUUID(a), EncodeUUID(b)) >= 0 {
		t.Fatalf("%s sorts after %s", a, b)
	}
}

func TestCompositeFixed(t *testing.T) {
	parts := []Kind{String, Int64, Bytes}
	tuples := [][]any{
		{"", int64(0), []byte{}},
		{"", int64(1), []byte{}},
		{"\x00", int64(-1), []byte{}},
		{"a", int64(-1), []byte{0}},
		{"a", int64(-1), []byte{0, 0}},
		{"a", int64(-1), []byte{0, 1}},
		{"a", int64(5), []byte{0xFF}},
		{"a\x00", int64(0), []byte{}},
		{"a\x00\x00", int64(0), []byte{}},
		{"a\x01", int64(0), []byte{}},
		{"ab", int64(math.MinInt64), []byte("x")},
		{"a\xc3\xbf", int64(0), []byte{}}, // ÿ: UTF-8 bytes above 0x7f
		{"b", int64(0), []byte{}},
	}
	var prev []byte
	for i, tu := range tuples {
		t.Run(fmt.Sprintf("%q", tu), func(t *testing.T) {
			k, err := EncodeComposite(parts, tu)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && bytes.Compare(prev, k) >= 0 {
				t.Fatalf("does not sort after %q", tuples[i-1])
			}
			prev = k
			back, err := DecodeComposite(parts, k)
			if err != nil || fmt.Sprintf("%q", back) != fmt.Sprintf("%q", tu) {
				t.Fatalf("round trip -> %q (%v)", back, err)
			}
			for n := 0; n <= len(tu); n++ {
				pre, err := EncodeComposite(parts, tu[:n])
				if err != nil || !bytes.HasPrefix(k, pre) {
					t.Fatalf("%d-part prefix %x is not a prefix of %x (%v)", n, pre, k, err)
				}
			}
		})
	}
}

func TestCompositeValueTypes(t *testing.T) {
	u := uuid.MustParse("0190a6f1-7b2c-7def-8abc-0123456789ab")
	l := ulid.MustParse("01ARZ3NDEKTSV4RRFFQ69G5FAV")
	parts := []Kind{Int64, Uint64, UUID, ULID}
	a, err := EncodeComposite(parts, []any{7, uint(8), [16]byte(u), [16]byte(l)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := EncodeComposite(parts, []any{int64(7), uint64(8), u, l})
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("%x != %x (%v)", a, b, err)
	}
	bad := []struct {
		name  string
		parts []Kind
		vals  []any
	}{
		{"int32 for int64", []Kind{Int64}, []any{int32(1)}},
		{"string for bytes", []Kind{Bytes}, []any{"x"}},
		{"bytes for string", []Kind{String}, []any{[]byte("x")}},
		{"bad utf8", []Kind{String}, []any{"\xff"}},
		{"NaN", []Kind{Float64}, []any{math.NaN()}},
		{"too many values", []Kind{Int64}, []any{1, 2}},
		{"nested composite", []Kind{Composite}, []any{1}},
		{"unknown kind", []Kind{9}, []any{1}},
		{"nil", []Kind{UUID}, []any{nil}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			if k, err := EncodeComposite(c.parts, c.vals); !errors.Is(err, ErrBadKey) {
				t.Fatalf("encoded as %x, %v", k, err)
			}
		})
	}
	if _, err := DecodeComposite(nil, nil); !errors.Is(err, ErrBadKey) {
		t.Fatal("no parts accepted")
	}
	if _, err := DecodeComposite([]Kind{Composite}, []byte{0, 1}); !errors.Is(err, ErrBadKey) {
		t.Fatal("nested composite accepted")
	}
}

// tuple parts used by the random composite tests.
var randParts = []Kind{String, Int64, Bytes, Float64, Uint64}

func randTuple(r *rand.Rand) []any {
	// A tiny alphabet with the escape bytes makes collisions, shared
	// prefixes and escapes common.
	alpha := []byte{0x00, 0x00, 0x01, 0xFF, 'a', 'b'}
	str := func(utf bool) []byte {
		b := make([]byte, r.Intn(5))
		for i := range b {
			b[i] = alpha[r.Intn(len(alpha))]
			if utf && b[i] == 0xFF {
				b[i] = 0x7F // 0xFF is not UTF-8
			}
		}
		return b
	}
	n := r.Intn(len(randParts) + 1)
	tu := make([]any, n)
	for i := range tu {
		switch randParts[i] {
		case String:
			tu[i] = string(str(true))
		case Bytes:
			tu[i] = str(false)
		case Int64:
			tu[i] = int64(r.Intn(5) - 2)
		case Uint64:
			tu[i] = []uint64{0, 1, math.MaxUint64}[r.Intn(3)]
		case Float64:
			tu[i] = []float64{math.Inf(-1), -1, math.Copysign(0, -1), 0, 0.5, math.Inf(1)}[r.Intn(6)]
		}
	}
	return tu
}

// compareTuples orders tuples part by part; a proper prefix sorts first.
func compareTuples(a, b []any) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		var c int
		switch x := a[i].(type) {
		case string:
			c = strings.Compare(x, b[i].(string))
		case []byte:
			c = bytes.Compare(x, b[i].([]byte))
		case int64:
			c = sign(x, b[i].(int64))
		case uint64:
			c = sign(x, b[i].(uint64))
		case float64:
			c = sign(x, b[i].(float64))
		}
		if c != 0 {
			return c
		}
	}
	return sign(int64(len(a)), int64(len(b)))
}

func TestOrderCompositeRandom(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	tuples := make([][]any, 600)
	keys := make([][]byte, len(tuples))
	for i := range tuples {
		tuples[i] = randTuple(r)
		var err error
		if keys[i], err = EncodeComposite(randParts, tuples[i]); err != nil {
			t.Fatal(err)
		}
		if len(tuples[i]) == len(randParts) {
			back, err := DecodeComposite(randParts, keys[i])
			if err != nil {
				t.Fatalf("%q: %v", tuples[i], err)
			}
			// -0 comes back as 0, which compares equal.
			if compareTuples(back, tuples[i]) != 0 {
				t.Fatalf("%q decodes as %q", tuples[i], back)
			}
		}
	}
	for i := range tuples {
		for j := range tuples {
			got, want := bytes.Compare(keys[i], keys[j]), compareTuples(tuples[i], tuples[j])
			if got != want {
				t.Fatalf("%q vs %q: bytes %d, tuples %d (%x, %x)", tuples[i], tuples[j], got, want, keys[i], keys[j])
			}
			if len(tuples[i]) <= len(tuples[j]) && compareTuples(tuples[i], tuples[j][:len(tuples[i])]) == 0 &&
				!bytes.HasPrefix(keys[j], keys[i]) {
				t.Fatalf("%q is a tuple prefix of %q but %x is not a prefix of %x", tuples[i], tuples[j], keys[i], keys[j])
			}
		}
	}
}
