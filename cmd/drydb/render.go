package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"github.com/drydb/drydb/cmd/drydb/internal/msgpack"
	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

// Value formats a table can be built with. The choice is stored in the file's
// metadata under metaValueFormat+table, so readers know a value is JSON or
// MessagePack without guessing.
const (
	fmtRaw     = "raw"
	fmtJSON    = "json"
	fmtMsgpack = "msgpack"

	metaValueFormat = "drydb.cli.value_format."
	metaColumns     = "drydb.cli.columns."
	metaKeyColumns  = "drydb.cli.key_columns."
	metaIndexCols   = "drydb.cli.index_columns."
)

// valueFormat returns how the table's values are stored: as drydb build
// recorded it, else the codec any builder recorded (engine.Table.Codec: a
// Python table built with codec="json" shows as JSON), else "".
func valueFormat(db *engine.DB, table string) string {
	if f := db.Info().Metadata[metaValueFormat+table]; len(f) > 0 {
		return string(f)
	}
	if t, err := db.Table(table); err == nil {
		return t.Codec()
	}
	return ""
}

// renderer turns keys and values into text or JSON for one table.
type renderer struct {
	enc    keyenc.Encoding
	vfmt   string // the table's stored value format
	mode   string // --values: auto, text, hex, json
	asJSON bool   // --json output
}

func newRenderer(c *ctx, t *engine.Table) (*renderer, error) {
	r := &renderer{enc: t.Encoding(), vfmt: valueFormat(c.db, t.Name()), mode: c.o.values, asJSON: c.o.json}
	switch r.mode {
	case "", "auto", "text", "hex", "json":
	default:
		return nil, usagef("--values must be auto, text, hex or json, not %q", r.mode)
	}
	return r, nil
}

// keyText is the key as the user would type it back.
func keyText(enc keyenc.Encoding, key []byte) string {
	return keyenc.FormatKey(enc, key)
}

// printable reports whether b is UTF-8 text without control characters
// (tab excepted) that would garble a terminal.
func printable(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r != '\t' && !unicode.IsPrint(r) && !unicode.IsSpace(r) || r == '\n' || r == '\r' {
			return false
		}
	}
	return true
}

// valueText renders a value for text output: MessagePack and JSON rows as
// JSON, printable values as they are, anything else as hex:-prefixed hex.
func (r *renderer) valueText(v []byte) string {
	switch r.mode {
	case "hex":
		return "hex:" + hex.EncodeToString(v)
	case "text":
		if printable(v) {
			return string(v)
		}
		return "hex:" + hex.EncodeToString(v)
	case "json":
		if j, ok := r.decodeJSON(v, true); ok {
			return string(j)
		}
	default:
		if r.vfmt == fmtMsgpack || r.vfmt == fmtJSON {
			if j, ok := r.decodeJSON(v, false); ok {
				return string(j)
			}
		}
	}
	if printable(v) {
		return string(v)
	}
	return "hex:" + hex.EncodeToString(v)
}

// decodeJSON returns the value as compact JSON when the table stores JSON or
// MessagePack (or, when force is set, when the bytes happen to parse as
// either).
func (r *renderer) decodeJSON(v []byte, force bool) ([]byte, bool) {
	tryJSON := r.vfmt == fmtJSON || force && r.vfmt != fmtMsgpack
	tryMsgpack := r.vfmt == fmtMsgpack || force && r.vfmt != fmtJSON
	if tryJSON && json.Valid(v) {
		return compactJSON(v), true
	}
	if tryMsgpack {
		if d, err := msgpack.Decode(v); err == nil {
			if j, err := msgpack.AppendJSON(nil, d); err == nil {
				return j, true
			}
		}
	}
	return nil, false
}

func compactJSON(v []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return v
	}
	return b.Bytes()
}

// valueJSON renders a value for --json output: decoded JSON for JSON and
// MessagePack tables, a string for text, and {"hex": ...} for binary so a
// script can tell them apart.
func (r *renderer) valueJSON(v []byte) []byte {
	if r.mode != "text" && r.mode != "hex" {
		if j, ok := r.decodeJSON(v, r.mode == "json"); ok {
			return j
		}
	}
	if r.mode != "hex" && utf8.Valid(v) {
		return jsonString(string(v))
	}
	return []byte(`{"hex":"` + hex.EncodeToString(v) + `"}`)
}

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// keyJSON renders a key as native JSON: numbers for integer and float keys,
// an array for composite keys, strings otherwise (raw bytes in FormatKey's
// escaped form).
func keyJSON(enc keyenc.Encoding, key []byte) []byte {
	if enc.Kind == keyenc.Composite {
		vals, err := keyenc.DecodeComposite(enc.Parts, key)
		if err != nil {
			return jsonString(keyText(enc, key))
		}
		out := []byte{'['}
		for i, v := range vals {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, anyJSON(enc.Parts[i], v)...)
		}
		return append(out, ']')
	}
	text := keyText(enc, key)
	switch enc.Kind {
	case keyenc.Int64, keyenc.Uint64, keyenc.Float64:
		if json.Valid([]byte(text)) && isNumber(text) {
			return []byte(text)
		}
	}
	return jsonString(text)
}

// anyJSON renders one decoded composite component.
func anyJSON(k keyenc.Kind, v any) []byte {
	switch x := v.(type) {
	case []byte:
		return jsonString(keyText(keyenc.Encoding{Kind: keyenc.Bytes}, x))
	case string:
		return jsonString(x)
	case fmt.Stringer:
		return jsonString(x.String())
	}
	b, err := json.Marshal(v)
	if err != nil {
		return jsonString(fmt.Sprint(v))
	}
	return b
}
