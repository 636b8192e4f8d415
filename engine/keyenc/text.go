package keyenc

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// FormatKey renders an encoded key as text (see the package comment). A
// key that does not decode is shown as hex: with that prefix.
func FormatKey(e Encoding, key []byte) string {
	if e.Kind == Composite {
		vals, err := DecodeComposite(e.Parts, key)
		if err != nil {
			return "hex:" + hex.EncodeToString(key)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			switch x := v.(type) {
			case string:
				parts[i] = strconv.Quote(x)
			case []byte:
				parts[i] = strconv.Quote(string(x))
			default:
				parts[i] = formatValue(x)
			}
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	switch e.Kind {
	case Bytes:
		return escapeBytes(key)
	case String:
		return string(key)
	}
	if err := e.Validate(key); err != nil {
		return "hex:" + hex.EncodeToString(key)
	}
	switch e.Kind {
	case Int64:
		v, _ := DecodeInt64(key)
		return formatValue(v)
	case Uint64:
		v, _ := DecodeUint64(key)
		return formatValue(v)
	case Float64:
		v, _ := DecodeFloat64(key)
		return formatValue(v)
	case UUID:
		return uuid.UUID(key).String()
	case ULID:
		return ulid.ULID(key).String()
	}
	return "hex:" + hex.EncodeToString(key)
}

func formatValue(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case uuid.UUID:
		return x.String()
	case ulid.ULID:
		return x.String()
	}
	return fmt.Sprint(v)
}

func escapeBytes(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 0x20 && c < 0x7F && c != '\\' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "\\x%02x", c)
		}
	}
	return sb.String()
}

// ParseKey parses the text form of a key of encoding e.
func ParseKey(e Encoding, text string) ([]byte, error) {
	if e.Kind == Composite {
		vals, err := parseTuple(text)
		if err != nil {
			return nil, err
		}
		if len(vals) > len(e.Parts) {
			return nil, badKey("%d values for %s", len(vals), e)
		}
		var dst []byte
		for i, v := range vals {
			b, err := parseScalar(e.Parts[i], v)
			if err != nil {
				return nil, err
			}
			dst = appendPart(dst, e.Parts[i], b)
		}
		return dst, nil
	}
	return parseScalar(e.Kind, text)
}

func appendPart(dst []byte, k Kind, b []byte) []byte {
	if k.Width() > 0 {
		return append(dst, b...)
	}
	return appendEscaped(dst, b)
}

func parseScalar(k Kind, s string) ([]byte, error) {
	if h, ok := strings.CutPrefix(s, "hex:"); ok && (k == Bytes || k == String) {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, badKey("bad hex %q", h)
		}
		return b, nil
	}
	switch k {
	case Bytes:
		return unescapeText(s)
	case String:
		return []byte(s), nil
	case Int64:
		v, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64)
		if err != nil {
			return nil, badKey("%q is not an int64", s)
		}
		return EncodeInt64(v), nil
	case Uint64:
		v, err := strconv.ParseUint(strings.TrimSpace(s), 0, 64)
		if err != nil {
			return nil, badKey("%q is not a uint64", s)
		}
		return EncodeUint64(v), nil
	case Float64:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) {
			return nil, badKey("%q is not a float64 key", s)
		}
		return EncodeFloat64(v)
	case UUID:
		u, err := uuid.Parse(strings.TrimSpace(s))
		if err != nil {
			return nil, badKey("%q is not a UUID", s)
		}
		return u[:], nil
	case ULID:
		u, err := ulid.ParseStrict(strings.TrimSpace(s))
		if err != nil {
			return nil, badKey("%q is not a ULID", s)
		}
		return u[:], nil
	}
	return nil, badKey("cannot parse a %s key", k)
}

func unescapeText(s string) ([]byte, error) {
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == 'x' {
			if i+4 > len(s) {
				return nil, badKey("short \\x escape in %q", s)
			}
			b, err := hex.DecodeString(s[i+2 : i+4])
			if err != nil {
				return nil, badKey("bad \\x escape in %q", s)
			}
			out = append(out, b[0])
			i += 3
			continue
		}
		out = append(out, s[i])
	}
	return out, nil
}

// parseTuple splits "(1, "a,b", 2.5)" into its elements, unquoting quoted
// ones. A bare value without parentheses is a one-element tuple.
func parseTuple(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") {
		if !strings.HasSuffix(s, ")") {
			return nil, badKey("unclosed tuple %q", s)
		}
		s = s[1 : len(s)-1]
	}
	var out []string
	for s = strings.TrimSpace(s); s != ""; {
		var elem string
		if s[0] == '"' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, badKey("bad quoted string in %q", s)
			}
			elem, _ = strconv.Unquote(q)
			s = strings.TrimSpace(s[len(q):])
		} else {
			i := strings.IndexByte(s, ',')
			if i < 0 {
				i = len(s)
			}
			elem = strings.TrimSpace(s[:i])
			s = s[i:]
		}
		out = append(out, elem)
		if s == "" {
			break
		}
		if s[0] != ',' {
			return nil, badKey("expected ',' in tuple at %q", s)
		}
		s = strings.TrimSpace(s[1:])
	}
	return out, nil
}
