// Package msgpack is the small MessagePack encoder and decoder the drydb CLI
// needs to store whole rows as MessagePack values and to show them as JSON.
// It covers the types that arrive from CSV, TSV and JSON Lines input (maps,
// arrays, strings, integers, floats, booleans, nil and binary), keeps map
// order (a row's columns stay in file order) and does not pull in a
// dependency for what is a few hundred lines.
package msgpack

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// KV is one entry of an ordered map.
type KV struct {
	Key   string
	Value any
}

// Map is a map that keeps its keys in insertion order, so a row encoded from
// a CSV line decodes with its columns in the same order.
type Map []KV

// ErrTruncated is returned by Decode when the input ends inside a value.
var ErrTruncated = errors.New("msgpack: truncated input")

// Append encodes v and appends it to dst. Supported types: nil, bool, all Go
// integer types, float32, float64, string, []byte, json.Number, []any,
// Map and map[string]any (written in sorted key order, for determinism).
func Append(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, 0xc0), nil
	case bool:
		if x {
			return append(dst, 0xc3), nil
		}
		return append(dst, 0xc2), nil
	case int:
		return appendInt(dst, int64(x)), nil
	case int8:
		return appendInt(dst, int64(x)), nil
	case int16:
		return appendInt(dst, int64(x)), nil
	case int32:
		return appendInt(dst, int64(x)), nil
	case int64:
		return appendInt(dst, x), nil
	case uint:
		return appendUint(dst, uint64(x)), nil
	case uint8:
		return appendUint(dst, uint64(x)), nil
	case uint16:
		return appendUint(dst, uint64(x)), nil
	case uint32:
		return appendUint(dst, uint64(x)), nil
	case uint64:
		return appendUint(dst, x), nil
	case float32:
		dst = append(dst, 0xca)
		return binary.BigEndian.AppendUint32(dst, math.Float32bits(x)), nil
	case float64:
		dst = append(dst, 0xcb)
		return binary.BigEndian.AppendUint64(dst, math.Float64bits(x)), nil
	case json.Number:
		// Integers stay integers (exact for 64-bit ids); anything else is a
		// float, which is what a JSON reader would have made of it anyway.
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return appendInt(dst, i), nil
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return appendUint(dst, u), nil
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return dst, fmt.Errorf("msgpack: bad number %q", string(x))
		}
		return Append(dst, f)
	case string:
		return appendStr(dst, x), nil
	case []byte:
		n := len(x)
		switch {
		case n < 1<<8:
			dst = append(dst, 0xc4, byte(n))
		case n < 1<<16:
			dst = append(dst, 0xc5)
			dst = binary.BigEndian.AppendUint16(dst, uint16(n))
		default:
			dst = append(dst, 0xc6)
			dst = binary.BigEndian.AppendUint32(dst, uint32(n))
		}
		return append(dst, x...), nil
	case []any:
		dst = appendLen(dst, len(x), 0x90, 0xdc, 0xdd)
		var err error
		for _, e := range x {
			if dst, err = Append(dst, e); err != nil {
				return dst, err
			}
		}
		return dst, nil
	case Map:
		dst = appendLen(dst, len(x), 0x80, 0xde, 0xdf)
		var err error
		for _, kv := range x {
			dst = appendStr(dst, kv.Key)
			if dst, err = Append(dst, kv.Value); err != nil {
				return dst, err
			}
		}
		return dst, nil
	case Ext:
		n := len(x.Data)
		switch n {
		case 1, 2, 4, 8, 16:
			dst = append(dst, 0xd4+byte(bitsLen(n)))
		default:
			switch {
			case n < 1<<8:
				dst = append(dst, 0xc7, byte(n))
			case n < 1<<16:
				dst = append(dst, 0xc8)
				dst = binary.BigEndian.AppendUint16(dst, uint16(n))
			default:
				dst = append(dst, 0xc9)
				dst = binary.BigEndian.AppendUint32(dst, uint32(n))
			}
		}
		dst = append(dst, byte(x.Type))
		return append(dst, x.Data...), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		m := make(Map, len(keys))
		for i, k := range keys {
			m[i] = KV{k, x[k]}
		}
		return Append(dst, m)
	}
	return dst, fmt.Errorf("msgpack: cannot encode %T", v)
}

// Marshal encodes v into a new slice.
func Marshal(v any) ([]byte, error) { return Append(nil, v) }

// bitsLen is log2 of a fixext size (1, 2, 4, 8 or 16).
func bitsLen(n int) int {
	i := 0
	for n > 1 {
		n >>= 1
		i++
	}
	return i
}

func appendLen(dst []byte, n int, fix, b16, b32 byte) []byte {
	switch {
	case n < 16:
		return append(dst, fix|byte(n))
	case n < 1<<16:
		dst = append(dst, b16)
		return binary.BigEndian.AppendUint16(dst, uint16(n))
	default:
		dst = append(dst, b32)
		return binary.BigEndian.AppendUint32(dst, uint32(n))
	}
}

func appendStr(dst []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		dst = append(dst, 0xa0|byte(n))
	case n < 1<<8:
		dst = append(dst, 0xd9, byte(n))
	case n < 1<<16:
		dst = append(dst, 0xda)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	default:
		dst = append(dst, 0xdb)
		dst = binary.BigEndian.AppendUint32(dst, uint32(n))
	}
	return append(dst, s...)
}

// appendInt uses the smallest encoding, as other encoders do, so values stay
// compact and byte-identical to what common libraries produce.
func appendInt(dst []byte, i int64) []byte {
	if i >= 0 {
		return appendUint(dst, uint64(i))
	}
	switch {
	case i >= -32:
		return append(dst, byte(i))
	case i >= math.MinInt8:
		return append(dst, 0xd0, byte(i))
	case i >= math.MinInt16:
		dst = append(dst, 0xd1)
		return binary.BigEndian.AppendUint16(dst, uint16(i))
	case i >= math.MinInt32:
		dst = append(dst, 0xd2)
		return binary.BigEndian.AppendUint32(dst, uint32(i))
	}
	dst = append(dst, 0xd3)
	return binary.BigEndian.AppendUint64(dst, uint64(i))
}

func appendUint(dst []byte, u uint64) []byte {
	switch {
	case u < 128:
		return append(dst, byte(u))
	case u < 1<<8:
		return append(dst, 0xcc, byte(u))
	case u < 1<<16:
		dst = append(dst, 0xcd)
		return binary.BigEndian.AppendUint16(dst, uint16(u))
	case u < 1<<32:
		dst = append(dst, 0xce)
		return binary.BigEndian.AppendUint32(dst, uint32(u))
	}
	dst = append(dst, 0xcf)
	return binary.BigEndian.AppendUint64(dst, u)
}

// Decode decodes exactly one value from b. Maps decode as Map (any key that
// is not a string is rendered to its JSON text), arrays as []any, integers as
// int64 (uint64 above MaxInt64), floats as float64, bin as []byte. Extension
// types decode as Ext.
func Decode(b []byte) (any, error) {
	d := decoder{b: b}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	if d.off != len(b) {
		return nil, fmt.Errorf("msgpack: %d trailing bytes", len(b)-d.off)
	}
	return v, nil
}

// Ext is a MessagePack extension value, kept opaque.
type Ext struct {
	Type int8
	Data []byte
}

type decoder struct {
	b   []byte
	off int
}

// maxDepth bounds recursion so hostile input cannot blow the stack.
const maxDepth = 512

func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || len(d.b)-d.off < n {
		return nil, ErrTruncated
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p, nil
}

func (d *decoder) uint(n int) (uint64, error) {
	p, err := d.take(n)
	if err != nil {
		return 0, err
	}
	switch n {
	case 1:
		return uint64(p[0]), nil
	case 2:
		return uint64(binary.BigEndian.Uint16(p)), nil
	case 4:
		return uint64(binary.BigEndian.Uint32(p)), nil
	}
	return binary.BigEndian.Uint64(p), nil
}

func (d *decoder) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("msgpack: nesting too deep")
	}
	p, err := d.take(1)
	if err != nil {
		return nil, err
	}
	c := p[0]
	switch {
	case c <= 0x7f:
		return int64(c), nil
	case c >= 0xe0:
		return int64(int8(c)), nil
	case c&0xf0 == 0x80:
		return d.mapN(int(c&0x0f), depth)
	case c&0xf0 == 0x90:
		return d.arrayN(int(c&0x0f), depth)
	case c&0xe0 == 0xa0:
		return d.str(int(c & 0x1f))
	}
	switch c {
	case 0xc0:
		return nil, nil
	case 0xc2:
		return false, nil
	case 0xc3:
		return true, nil
	case 0xc4, 0xc5, 0xc6:
		n, err := d.uint(1 << (c - 0xc4))
		if err != nil {
			return nil, err
		}
		b, err := d.take(int(n))
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), b...), nil
	case 0xc7, 0xc8, 0xc9:
		n, err := d.uint(1 << (c - 0xc7))
		if err != nil {
			return nil, err
		}
		return d.ext(int(n))
	case 0xca:
		u, err := d.uint(4)
		return float64(math.Float32frombits(uint32(u))), err
	case 0xcb:
		u, err := d.uint(8)
		return math.Float64frombits(u), err
	case 0xcc, 0xcd, 0xce, 0xcf:
		u, err := d.uint(1 << (c - 0xcc))
		if err != nil {
			return nil, err
		}
		if u > math.MaxInt64 {
			return u, nil
		}
		return int64(u), nil
	case 0xd0:
		u, err := d.uint(1)
		return int64(int8(u)), err
	case 0xd1:
		u, err := d.uint(2)
		return int64(int16(u)), err
	case 0xd2:
		u, err := d.uint(4)
		return int64(int32(u)), err
	case 0xd3:
		u, err := d.uint(8)
		return int64(u), err
	case 0xd4, 0xd5, 0xd6, 0xd7, 0xd8:
		return d.ext(1 << (c - 0xd4))
	case 0xd9, 0xda, 0xdb:
		n, err := d.uint(1 << (c - 0xd9))
		if err != nil {
			return nil, err
		}
		return d.str(int(n))
	case 0xdc, 0xdd:
		n, err := d.uint(2 << (c - 0xdc))
		if err != nil {
			return nil, err
		}
		return d.arrayN(int(n), depth)
	case 0xde, 0xdf:
		n, err := d.uint(2 << (c - 0xde))
		if err != nil {
			return nil, err
		}
		return d.mapN(int(n), depth)
	}
	return nil, fmt.Errorf("msgpack: invalid type byte 0x%02x at offset %d", c, d.off-1)
}

func (d *decoder) str(n int) (any, error) {
	b, err := d.take(n)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

func (d *decoder) ext(n int) (any, error) {
	t, err := d.take(1)
	if err != nil {
		return nil, err
	}
	b, err := d.take(n)
	if err != nil {
		return nil, err
	}
	return Ext{Type: int8(t[0]), Data: append([]byte(nil), b...)}, nil
}

func (d *decoder) arrayN(n int, depth int) (any, error) {
	// Every element takes at least one byte: refuse counts the input cannot
	// hold before allocating for them.
	if n > len(d.b)-d.off {
		return nil, ErrTruncated
	}
	a := make([]any, n)
	for i := range a {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a[i] = v
	}
	return a, nil
}

func (d *decoder) mapN(n int, depth int) (any, error) {
	if 2*n > len(d.b)-d.off {
		return nil, ErrTruncated
	}
	m := make(Map, n)
	for i := range m {
		k, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		ks, ok := k.(string)
		if !ok {
			kb, err := AppendJSON(nil, k)
			if err != nil {
				return nil, err
			}
			ks = string(kb)
		}
		m[i] = KV{ks, v}
	}
	return m, nil
}

// AppendJSON writes v (a value from Decode, or any type Append accepts) as
// compact JSON. Binary becomes a base64 string, extensions an object, and
// non-finite floats strings, since JSON has no form for them.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case float64:
		// Named as JavaScript and Python's json name them, which is also
		// how a JSON table's non-finite values (stored as that text) show.
		switch {
		case math.IsNaN(x):
			return append(dst, `"NaN"`...), nil
		case math.IsInf(x, 1):
			return append(dst, `"Infinity"`...), nil
		case math.IsInf(x, -1):
			return append(dst, `"-Infinity"`...), nil
		}
		return appendFloat(dst, x), nil
	case json.Number:
		return append(dst, x...), nil
	case string:
		return appendJSONString(dst, x), nil
	case []byte:
		return appendJSONString(dst, base64.StdEncoding.EncodeToString(x)), nil
	case Ext:
		dst = append(dst, `{"ext":`...)
		dst = strconv.AppendInt(dst, int64(x.Type), 10)
		dst = append(dst, `,"data":`...)
		dst = appendJSONString(dst, base64.StdEncoding.EncodeToString(x.Data))
		return append(dst, '}'), nil
	case []any:
		dst = append(dst, '[')
		var err error
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = AppendJSON(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case Map:
		dst = append(dst, '{')
		var err error
		for i, kv := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, kv.Key)
			dst = append(dst, ':')
			if dst, err = AppendJSON(dst, kv.Value); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// appendFloat formats like encoding/json does, so whole floats print as
// "3" rather than "3e+00".
func appendFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	fmtc := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmtc = 'e'
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, f, fmtc, -1, 64)
	// A whole float keeps a ".0" (as Python's json writes 1.0): readers of
	// the JSON can still tell a msgpack float from an integer.
	if fmtc == 'f' && !bytes.ContainsRune(dst[n:], '.') {
		dst = append(dst, ".0"...)
	}
	return dst
}

func appendJSONString(dst []byte, s string) []byte {
	if utf8.ValidString(s) && !needsEscape(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return append(dst, bytes.TrimRight(buf.Bytes(), "\n")...)
}

func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return true
		}
	}
	return false
}
