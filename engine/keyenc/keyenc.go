// Package keyenc defines drydb's key encodings. Every table compares keys as
// plain bytes (bytes.Compare), so each encoding maps values to bytes whose
// order is the values' order:
//
//	bytes     the bytes themselves
//	string    UTF-8 bytes (validated)
//	int64     8 bytes big-endian with the sign bit flipped
//	uint64    8 bytes big-endian
//	float64   8 bytes: IEEE 754 bits big-endian, sign bit flipped for
//	          positive numbers, every bit flipped for negative ones
//	uuid      16 bytes in RFC 4122 order (as github.com/google/uuid), so that
//	          version 7 UUIDs sort by time
//	ulid      16 bytes (github.com/oklog/ulid/v2's binary form)
//	composite a tuple of the above: fixed-width parts as they are, bytes
//	          and string parts escaped (0x00 -> 0x00 0xFF) and terminated by
//	          0x00 0x01. The escaping keeps tuple order equal to byte order
//	          and makes a prefix of the tuple a byte prefix of the key.
//
// Floats: NaN has no place in a total order, so it is refused (ErrBadKey)
// rather than canonicalised. -0 is encoded as +0, because the two are equal
// as numbers and a table must not hold both; the encoding -0 would have
// (0x7fff_ffff_ffff_ffff) is refused by DecodeFloat64 and Validate, so every
// float key has exactly one encoding.
//
// The Kind numbers are part of the file format and of the C ABI.
//
// # Text form
//
// FormatKey and ParseKey (used by the CLI) write and read keys as text:
//
//	int64, uint64  decimal (ParseKey also takes 0x.. and other Go prefixes)
//	float64        Go 'g' format, shortest round-trip form; +Inf and -Inf
//	uuid           canonical 8-4-4-4-12 lower-case hex
//	ulid           canonical 26-character Crockford base32
//	string         the text as it is, no escapes
//	bytes          printable ASCII as it is and \xNN for every other byte and
//	               for the backslash; ParseKey also takes hex:0011ff. A key
//	               whose text would begin with "hex:" has its h escaped.
//	composite      a tuple: "(" elem { "," elem } ")", blanks around elements
//	               ignored. String and bytes parts are written as Go quoted
//	               strings ("a\x00b"); a quoted element is taken literally.
//	               Other parts are bare, in their scalar form. ParseKey
//	               also takes bare strings (no commas, no surrounding
//	               blanks), bare bytes in the bytes form above, a bare value
//	               without parentheses as a one-element tuple, and fewer
//	               elements than parts: the key prefix for that tuple prefix.
//
// FormatKey falls back to "hex:" and the key's bytes in hex for a key that
// does not decode (it only happens for damaged or foreign data).
package keyenc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// ErrBadKey is wrapped by every error about a key that does not fit its
// encoding.
var ErrBadKey = errors.New("drydb: bad key")

// Kind is a key encoding.
type Kind uint8

const (
	Bytes     Kind = 0
	String    Kind = 1
	Int64     Kind = 2
	Uint64    Kind = 3
	Float64   Kind = 4
	UUID      Kind = 5
	ULID      Kind = 6
	Composite Kind = 7
)

var kindNames = [...]string{"bytes", "string", "int64", "uint64", "float64", "uuid", "ulid", "composite"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind parses a kind name.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if strings.EqualFold(s, n) {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("drydb: unknown key encoding %q (want one of %s)", s, strings.Join(kindNames[:], ", "))
}

// Width is the encoded width of a fixed-width kind, or 0.
func (k Kind) Width() int {
	switch k {
	case Int64, Uint64, Float64:
		return 8
	case UUID, ULID:
		return 16
	}
	return 0
}

// MaxParts bounds a composite encoding.
const MaxParts = 16

// Encoding is a table's or index's key encoding. Parts is used only by
// Composite.
type Encoding struct {
	Kind  Kind
	Parts []Kind
}

func (e Encoding) String() string {
	if e.Kind != Composite {
		return e.Kind.String()
	}
	p := make([]string, len(e.Parts))
	for i, k := range e.Parts {
		p[i] = k.String()
	}
	return "composite(" + strings.Join(p, ",") + ")"
}

// ParseEncoding parses the String form: "int64", "composite(int64,string)".
func ParseEncoding(s string) (Encoding, error) {
	s = strings.TrimSpace(s)
	if inner, ok := strings.CutPrefix(s, "composite("); ok && strings.HasSuffix(inner, ")") {
		var e Encoding
		e.Kind = Composite
		for _, p := range strings.Split(strings.TrimSuffix(inner, ")"), ",") {
			k, err := ParseKind(strings.TrimSpace(p))
			if err != nil {
				return Encoding{}, err
			}
			e.Parts = append(e.Parts, k)
		}
		return e, e.Check()
	}
	k, err := ParseKind(s)
	if err != nil {
		return Encoding{}, err
	}
	e := Encoding{Kind: k}
	return e, e.Check()
}

// Check reports whether the encoding itself is valid.
func (e Encoding) Check() error {
	if e.Kind > Composite {
		return fmt.Errorf("drydb: unknown key encoding %d", e.Kind)
	}
	if e.Kind != Composite {
		if len(e.Parts) != 0 {
			return fmt.Errorf("drydb: only composite encodings have parts")
		}
		return nil
	}
	if len(e.Parts) == 0 || len(e.Parts) > MaxParts {
		return fmt.Errorf("drydb: a composite encoding needs 1 to %d parts, got %d", MaxParts, len(e.Parts))
	}
	for _, p := range e.Parts {
		if p >= Composite {
			return fmt.Errorf("drydb: composite part %s is not allowed", p)
		}
	}
	return nil
}

// Marshal returns the catalog form: kind, number of parts, parts.
//
// Not inlined: a dozen cold call sites (builds, merges, opens), whose
// copies cost the C library's size budget.
//
//go:noinline
func (e Encoding) Marshal() []byte {
	b := []byte{byte(e.Kind), byte(len(e.Parts))}
	for _, p := range e.Parts {
		b = append(b, byte(p))
	}
	return b
}

// UnmarshalEncoding parses the catalog form (from a possibly damaged file).
func UnmarshalEncoding(b []byte) (Encoding, error) {
	if len(b) < 2 || len(b) != 2+int(b[1]) {
		return Encoding{}, fmt.Errorf("drydb: malformed key encoding %x", b)
	}
	e := Encoding{Kind: Kind(b[0])}
	for _, p := range b[2:] {
		e.Parts = append(e.Parts, Kind(p))
	}
	return e, e.Check()
}

func badKey(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadKey, fmt.Sprintf(format, args...))
}

// Validate checks that key is a valid encoded key of this encoding. Errors
// wrap ErrBadKey and say what was expected.
func (e Encoding) Validate(key []byte) error {
	if e.Kind > Composite {
		return badKey("unknown key encoding %d", uint8(e.Kind))
	}
	switch e.Kind {
	case Bytes:
		return nil
	case String:
		if !utf8.Valid(key) {
			return badKey("string key is not valid UTF-8")
		}
		return nil
	case Composite:
		return walkComposite(e.Parts, key, nil)
	case Float64:
		if len(key) == 8 {
			if _, err := DecodeFloat64(key); err != nil {
				return err
			}
		}
	}
	if w := e.Kind.Width(); len(key) != w {
		return badKey("%s key must be %d bytes, got %d", e.Kind, w, len(key))
	}
	return nil
}

// ValidateBound checks a range bound or a seek key. A bound is a key and
// is checked as one (a bound no key can equal, such as a 3-byte bound of an
// int64 table, is the caller's mistake), except that a composite encoding
// also takes a tuple prefix: the encoding of its first m parts (m >= 0,
// m = 0 being the empty key), which bounds a range by its leading parts.
func (e Encoding) ValidateBound(key []byte) error {
	if e.Kind == Composite {
		return walkParts(e.Parts, key, true, nil)
	}
	return e.Validate(key)
}

// ValidateUpperBound checks an exclusive upper bound (and, as the C API
// uses it, an inclusive lower bound). Besides what ValidateBound takes it
// takes the upper end of a prefix range: the successor of a bound p (p with
// its trailing 0xFF bytes dropped and its last byte incremented, as
// engine.PrefixBounds makes it), which is no key itself but is how the
// bindings bound prefix queries and say partial composite bounds.
func (e Encoding) ValidateUpperBound(key []byte) error {
	err := e.ValidateBound(key)
	if err == nil || len(key) == 0 || key[len(key)-1] == 0 {
		return err // an incremented byte is never 0x00
	}
	// p is key with its last byte decremented and then 0..n bytes 0xFF,
	// where n is the most a bound of the encoding can end with.
	n := e.Kind.Width()
	if e.Kind == Composite {
		n = 0
		for _, k := range e.Parts {
			n += k.Width()
		}
	}
	p := make([]byte, len(key), len(key)+n)
	copy(p, key)
	p[len(p)-1]--
	for i := 0; i <= n; i++ {
		if e.ValidateBound(p) == nil {
			return nil
		}
		p = append(p, 0xFF)
	}
	return err
}

// Fixed-width encoders and decoders. Decoders check the width and return an
// error wrapping ErrBadKey instead of panicking: keys come from files.

// AppendInt64 appends the int64 encoding of v (big-endian, sign bit flipped
// so that negative numbers sort first).
func AppendInt64(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
}

// EncodeInt64 is AppendInt64 into a new slice.
func EncodeInt64(v int64) []byte { return AppendInt64(nil, v) }

// DecodeInt64 decodes an 8-byte int64 key.
func DecodeInt64(b []byte) (int64, error) {
	if len(b) != 8 {
		return 0, badKey("int64 key must be 8 bytes, got %d", len(b))
	}
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)), nil
}

// AppendUint64 appends v big-endian.
func AppendUint64(dst []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(dst, v) }

// EncodeUint64 is AppendUint64 into a new slice.
func EncodeUint64(v uint64) []byte { return AppendUint64(nil, v) }

// DecodeUint64 decodes an 8-byte uint64 key.
func DecodeUint64(b []byte) (uint64, error) {
	if len(b) != 8 {
		return 0, badKey("uint64 key must be 8 bytes, got %d", len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// negZero is the encoding -0 would have; it is never produced (see
// AppendFloat64) and is refused when read.
const negZero = 0x7fff_ffff_ffff_ffff

// AppendFloat64 encodes f order-preservingly. NaN has no place in an order
// and is refused; -0 is encoded as +0 so that a table cannot hold both.
func AppendFloat64(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) {
		return dst, badKey("NaN cannot be a float64 key")
	}
	if f == 0 {
		f = 0 // folds -0 into +0
	}
	u := math.Float64bits(f)
	if u&(1<<63) != 0 {
		u = ^u
	} else {
		u |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(dst, u), nil
}

// EncodeFloat64 is AppendFloat64 into a new slice.
func EncodeFloat64(f float64) ([]byte, error) { return AppendFloat64(nil, f) }

// DecodeFloat64 decodes an 8-byte float key. Encodings AppendFloat64 never
// produces (NaN, -0) are refused, so decode and encode are inverses.
func DecodeFloat64(b []byte) (float64, error) {
	if len(b) != 8 {
		return 0, badKey("float64 key must be 8 bytes, got %d", len(b))
	}
	u := binary.BigEndian.Uint64(b)
	if u == negZero {
		return 0, badKey("float64 key encodes -0 (keys hold +0 only)")
	}
	if u&(1<<63) != 0 {
		u &^= 1 << 63
	} else {
		u = ^u
	}
	f := math.Float64frombits(u)
	if math.IsNaN(f) {
		return 0, badKey("float64 key encodes NaN")
	}
	return f, nil
}

// AppendUUID appends u's 16 bytes in RFC 4122 order, which sorts version 7
// UUIDs by their timestamp. u is any 16-byte array type: UUIDValue,
// github.com/google/uuid's UUID, [16]byte.
func AppendUUID[T ~[16]byte](dst []byte, u T) []byte { return append(dst, u[:]...) }

// EncodeUUID is AppendUUID into a new slice.
func EncodeUUID[T ~[16]byte](u T) []byte { return AppendUUID(nil, u) }

// DecodeUUID decodes a 16-byte uuid key (convert the result to uuid.UUID as
// needed: the layout is the same).
func DecodeUUID(b []byte) (UUIDValue, error) {
	if len(b) != 16 {
		return UUIDValue{}, badKey("uuid key must be 16 bytes, got %d", len(b))
	}
	return UUIDValue(b), nil
}

// AppendULID appends u's 16-byte binary form (48-bit time first, so keys
// sort by time). u is any 16-byte array type: ULIDValue, ulid.ULID, [16]byte.
func AppendULID[T ~[16]byte](dst []byte, u T) []byte { return append(dst, u[:]...) }

// EncodeULID is AppendULID into a new slice.
func EncodeULID[T ~[16]byte](u T) []byte { return AppendULID(nil, u) }

// DecodeULID decodes a 16-byte ulid key (convertible to ulid.ULID).
func DecodeULID(b []byte) (ULIDValue, error) {
	if len(b) != 16 {
		return ULIDValue{}, badKey("ulid key must be 16 bytes, got %d", len(b))
	}
	return ULIDValue(b), nil
}
