package keyenc

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FormatKey renders an encoded key as text (see the package comment). A
// key that does not decode is shown as "hex:" and its bytes in hex; every
// key that Validate accepts round-trips through ParseKey.
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
		return UUIDValue(key).String()
	case ULID:
		return ULIDValue(key).String()
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
	case UUIDValue:
		return x.String()
	case ULIDValue:
		return x.String()
	}
	return fmt.Sprint(v)
}

// escapeBytes writes the bytes text form. The backslash is always escaped
// so that \x in the text is always an escape, and a leading "hex:" has its
// h escaped so that ParseKey does not read the rest as hex.
func escapeBytes(b []byte) string {
	var sb strings.Builder
	for i, c := range b {
		if i == 0 && bytes.HasPrefix(b, []byte("hex:")) {
			sb.WriteString(`\x68`)
			continue
		}
		if c >= 0x20 && c < 0x7F && c != '\\' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "\\x%02x", c)
		}
	}
	return sb.String()
}

// ParseKey parses the text form of a key of encoding e (see the package
// comment for the grammar). For a composite encoding, fewer elements than
// parts give the key prefix of that tuple prefix. Errors wrap ErrBadKey.
func ParseKey(e Encoding, text string) ([]byte, error) {
	if err := e.Check(); err != nil {
		return nil, err
	}
	if e.Kind != Composite {
		return parseScalar(e.Kind, text)
	}
	elems, err := parseTuple(text)
	if err != nil {
		return nil, err
	}
	if len(elems) > len(e.Parts) {
		return nil, badKey("%d values for %s", len(elems), e)
	}
	var dst []byte
	for i, el := range elems {
		k := e.Parts[i]
		var b []byte
		switch {
		case el.quoted && k == String:
			// Quoted text is literal: no hex: or \x processing beyond
			// the Go unquoting already done.
			if !utf8.ValidString(el.text) {
				return nil, badKey("part %d: string is not valid UTF-8", i)
			}
			b = []byte(el.text)
		case el.quoted && k == Bytes:
			b = []byte(el.text)
		default:
			if b, err = parseScalar(k, el.text); err != nil {
				return nil, err
			}
		}
		if k.Width() > 0 {
			dst = append(dst, b...)
		} else {
			dst = appendEscaped(dst, b)
		}
	}
	return dst, nil
}

func parseScalar(k Kind, s string) ([]byte, error) {
	switch k {
	case Bytes:
		if h, ok := strings.CutPrefix(s, "hex:"); ok {
			b, err := hex.DecodeString(h)
			if err != nil {
				return nil, badKey("bad hex %q", h)
			}
			return b, nil
		}
		return unescapeText(s)
	case String:
		// Taken as it is, so that every valid string key round-trips.
		if !utf8.ValidString(s) {
			return nil, badKey("string key is not valid UTF-8")
		}
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
		if err != nil {
			return nil, badKey("%q is not a float64", s)
		}
		return EncodeFloat64(v) // refuses NaN
	case UUID:
		u, err := ParseUUID(strings.TrimSpace(s))
		if err != nil {
			return nil, err
		}
		return u[:], nil
	case ULID:
		u, err := ParseULID(strings.TrimSpace(s))
		if err != nil {
			return nil, err
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

// tupleElem is one element of a tuple text. quoted elements were Go
// quoted strings and are already unquoted.
type tupleElem struct {
	text   string
	quoted bool
}

// parseTuple splits (1, "a,b", 2.5) into its elements, unquoting quoted
// ones. A bare value without parentheses is a one-element tuple.
func parseTuple(s string) ([]tupleElem, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") {
		if len(s) < 2 || !strings.HasSuffix(s, ")") {
			return nil, badKey("unclosed tuple %q", s)
		}
		s = s[1 : len(s)-1]
	}
	var out []tupleElem
	for s = strings.TrimSpace(s); s != ""; {
		var el tupleElem
		if s[0] == '"' || s[0] == '`' {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return nil, badKey("bad quoted string in %q", s)
			}
			el.text, _ = strconv.Unquote(q)
			el.quoted = true
			s = strings.TrimSpace(s[len(q):])
		} else {
			i := strings.IndexByte(s, ',')
			if i < 0 {
				i = len(s)
			}
			el.text = strings.TrimSpace(s[:i])
			s = s[i:]
		}
		out = append(out, el)
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
