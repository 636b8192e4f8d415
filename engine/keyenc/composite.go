package keyenc

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// AppendComponent appends one composite part holding v. Accepted Go types:
// int64 or int (Int64), uint64 or uint (Uint64), float64 (Float64), string
// (String, valid UTF-8), []byte (Bytes), uuid.UUID or [16]byte (UUID),
// ulid.ULID or [16]byte (ULID). A value of the wrong type, a NaN or a
// non-UTF-8 string is an error wrapping ErrBadKey.
func AppendComponent(dst []byte, k Kind, v any) ([]byte, error) {
	switch k {
	case Int64:
		switch x := v.(type) {
		case int64:
			return AppendInt64(dst, x), nil
		case int:
			return AppendInt64(dst, int64(x)), nil
		}
	case Uint64:
		switch x := v.(type) {
		case uint64:
			return AppendUint64(dst, x), nil
		case uint:
			return AppendUint64(dst, uint64(x)), nil
		}
	case Float64:
		if x, ok := v.(float64); ok {
			return AppendFloat64(dst, x)
		}
	case String:
		if x, ok := v.(string); ok {
			// Validate would refuse the key later; refuse it here, where
			// the caller can still tell which value was wrong.
			if !utf8.ValidString(x) {
				return dst, badKey("string part %q is not valid UTF-8", x)
			}
			return appendEscaped(dst, []byte(x)), nil
		}
	case Bytes:
		if x, ok := v.([]byte); ok {
			return appendEscaped(dst, x), nil
		}
	case UUID:
		switch x := v.(type) {
		case uuid.UUID:
			return append(dst, x[:]...), nil
		case [16]byte:
			return append(dst, x[:]...), nil
		}
	case ULID:
		switch x := v.(type) {
		case ulid.ULID:
			return append(dst, x[:]...), nil
		case [16]byte:
			return append(dst, x[:]...), nil
		}
	default:
		return dst, badKey("%s cannot be a composite part", k)
	}
	return dst, badKey("a %s part cannot hold a %T", k, v)
}

// appendEscaped writes a variable-length part. 0x00 becomes 0x00 0xFF and
// the part ends with 0x00 0x01: the terminator sorts below every escaped or
// plain byte, so a shorter part sorts first, and no part's encoding is a
// prefix of another's, so the parts after it never affect the order.
func appendEscaped(dst, b []byte) []byte {
	for _, c := range b {
		if c == 0 {
			dst = append(dst, 0, 0xFF)
		} else {
			dst = append(dst, c)
		}
	}
	return append(dst, 0, 1)
}

// EncodeComposite encodes vals as a key of the composite encoding parts.
// Fewer values than parts encode a tuple prefix (for prefix queries).
func EncodeComposite(parts []Kind, vals []any) ([]byte, error) {
	if len(vals) > len(parts) {
		return nil, badKey("%d values for %d composite parts", len(vals), len(parts))
	}
	if len(parts) > MaxParts {
		return nil, badKey("a composite key has at most %d parts, got %d", MaxParts, len(parts))
	}
	var dst []byte
	var err error
	for i, v := range vals {
		if dst, err = AppendComponent(dst, parts[i], v); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// DecodeComposite decodes a full composite key into its values (the Go
// types AppendComponent takes: int64, uint64, float64, string, []byte,
// uuid.UUID, ulid.ULID). The key must hold every part and nothing more;
// anything else is an error wrapping ErrBadKey, never a panic.
func DecodeComposite(parts []Kind, key []byte) ([]any, error) {
	if len(parts) == 0 || len(parts) > MaxParts {
		return nil, badKey("a composite key has 1 to %d parts, got %d", MaxParts, len(parts))
	}
	vals := make([]any, 0, len(parts))
	for i, k := range parts {
		if w := k.Width(); w > 0 {
			if len(key) < w {
				return nil, badKey("composite part %d (%s) needs %d bytes, %d left", i, k, w, len(key))
			}
			var v any
			var err error
			switch k {
			case Int64:
				v, err = DecodeInt64(key[:w])
			case Uint64:
				v, err = DecodeUint64(key[:w])
			case Float64:
				v, err = DecodeFloat64(key[:w])
			case UUID:
				v = uuid.UUID(key[:w])
			case ULID:
				v = ulid.ULID(key[:w])
			}
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
			key = key[w:]
			continue
		}
		if k != String && k != Bytes {
			return nil, badKey("%s cannot be a composite part", k)
		}
		raw, rest, err := unescape(key)
		if err != nil {
			return nil, badKey("composite part %d (%s): %s", i, k, err)
		}
		if k == String {
			if !utf8.Valid(raw) {
				return nil, badKey("composite part %d (string) is not valid UTF-8", i)
			}
			vals = append(vals, string(raw))
		} else {
			vals = append(vals, raw)
		}
		key = rest
	}
	if len(key) != 0 {
		return nil, badKey("%d bytes after the last composite part", len(key))
	}
	return vals, nil
}

// unescape reads one escaped part off b. Its errors are bare reasons; the
// caller says which part and wraps ErrBadKey.
func unescape(b []byte) (raw, rest []byte, err error) {
	out := []byte{}
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 || i+1 >= len(b) {
			return nil, nil, errors.New("no 0x00 0x01 terminator")
		}
		out = append(out, b[:i]...)
		switch b[i+1] {
		case 1:
			return out, b[i+2:], nil
		case 0xFF:
			out = append(out, 0)
			b = b[i+2:]
		default:
			return nil, nil, fmt.Errorf("0x00 followed by 0x%02x (want 0xff or 0x01)", b[i+1])
		}
	}
}
