package keyenc

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// AppendComponent appends one composite part holding v. Accepted Go types:
// int64 or int (Int64), uint64 or uint (Uint64), float64 (Float64), string
// (String, valid UTF-8), []byte (Bytes), any 16-byte array type (UUID and
// ULID: UUIDValue, ULIDValue, uuid.UUID, ulid.ULID, [16]byte). A value of the wrong type, a NaN or a
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
	case UUID, ULID:
		if x, ok := bytes16(v); ok {
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
// UUIDValue, ULIDValue). The key must hold every part and nothing more;
// anything else is an error wrapping ErrBadKey, never a panic.
func DecodeComposite(parts []Kind, key []byte) ([]any, error) {
	vals := make([]any, 0, len(parts))
	err := walkComposite(parts, key, func(k Kind, raw []byte) error {
		var v any
		var err error
		switch k {
		case Int64:
			v, err = DecodeInt64(raw)
		case Uint64:
			v, err = DecodeUint64(raw)
		case Float64:
			v, err = DecodeFloat64(raw)
		case UUID:
			v = UUIDValue(raw)
		case ULID:
			v = ULIDValue(raw)
		case String:
			v = string(raw)
		default:
			v = raw
		}
		vals = append(vals, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return vals, nil
}

// walkComposite checks a full composite key part by part and, when part is
// not nil, hands it each part's kind and bytes (unescaped for strings and
// bytes). Validate walks with nil: no allocation, and the C library does
// not link the value types' packages.
func walkComposite(parts []Kind, key []byte, part func(k Kind, raw []byte) error) error {
	return walkParts(parts, key, false, part)
}

// walkParts is walkComposite; with prefix set the key may end after any
// whole part (a tuple prefix, none included).
func walkParts(parts []Kind, key []byte, prefix bool, part func(k Kind, raw []byte) error) error {
	if len(parts) == 0 || len(parts) > MaxParts {
		return badKey("a composite key has 1 to %d parts, got %d", MaxParts, len(parts))
	}
	for i, k := range parts {
		if prefix && len(key) == 0 {
			return nil
		}
		var raw []byte
		if w := k.Width(); w > 0 {
			if len(key) < w {
				return badKey("composite part %d (%s) needs %d bytes, %d left", i, k, w, len(key))
			}
			raw, key = key[:w], key[w:]
			if k == Float64 && part == nil {
				if _, err := DecodeFloat64(raw); err != nil {
					return err
				}
			}
		} else {
			if k != String && k != Bytes {
				return badKey("%s cannot be a composite part", k)
			}
			var err error
			if raw, key, err = unescape(key, part != nil, k == String); err == errNotUTF8 {
				return badKey("composite part %d (string) is not valid UTF-8", i)
			} else if err != nil {
				return badKey("composite part %d (%s): %s", i, k, err)
			}
		}
		if part != nil {
			if err := part(k, raw); err != nil {
				return err
			}
		}
	}
	if len(key) != 0 {
		return badKey("%d bytes after the last composite part", len(key))
	}
	return nil
}

var errNotUTF8 = errors.New("not valid UTF-8")

// unescape reads one escaped part off b. Its errors are bare reasons; the
// caller says which part and wraps ErrBadKey. With str the part must be
// UTF-8: each run between escapes is checked, which is the same as checking
// the unescaped part since a 0x00 byte is a character of its own. Without
// keep it only checks and allocates nothing (raw is nil).
func unescape(b []byte, keep, str bool) (raw, rest []byte, err error) {
	var out []byte
	if keep {
		out = []byte{}
	}
	for {
		i := bytes.IndexByte(b, 0)
		if i < 0 || i+1 >= len(b) {
			return nil, nil, errors.New("no 0x00 0x01 terminator")
		}
		if str && !utf8.Valid(b[:i]) {
			return nil, nil, errNotUTF8
		}
		if keep {
			out = append(out, b[:i]...)
		}
		switch b[i+1] {
		case 1:
			return out, b[i+2:], nil
		case 0xFF:
			if keep {
				out = append(out, 0)
			}
			b = b[i+2:]
		default:
			return nil, nil, fmt.Errorf("0x00 followed by 0x%02x (want 0xff or 0x01)", b[i+1])
		}
	}
}
