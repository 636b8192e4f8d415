package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/drydb/drydb/cmd/drydb/internal/msgpack"
)

// lineError is a problem with one input record; build reports it as
// FILE:LINE and either fails or, with --skip-bad, counts and skips it.
type lineError struct {
	file string
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg) }

// record is one input row: its columns in file order and the line it
// starts on. CSV and TSV values are strings; JSON Lines values are whatever
// the JSON held (string, json.Number, bool, nil, []any, msgpack.Map).
type record struct {
	line int
	row  msgpack.Map
}

// recordReader yields records until io.EOF. A *lineError is a bad record
// that the caller may skip; any other error ends the input.
type recordReader interface {
	next() (record, error)
}

// csvReader reads CSV (or, with a tab delimiter and lazy quotes, TSV). The
// first record is the header unless noHeader, in which case columns are
// named 1, 2, 3...
type csvReader struct {
	name  string
	r     *csv.Reader
	cols  []string
	plain bool // TSV: no quoting, a record is a line
	br    *bufio.Reader
	line  int
}

func newCSVReader(name string, r io.Reader, comma rune, noHeader bool) (*csvReader, error) {
	cr := &csvReader{name: name}
	if comma == '\t' {
		// TSV has no quoting: a line is a record and fields are split on
		// tabs, so a stray quote in the data is just a character.
		cr.plain = true
		cr.br = bufio.NewReaderSize(r, 1<<20)
	} else {
		cr.r = csv.NewReader(bufio.NewReaderSize(r, 1<<20))
		cr.r.Comma = comma
		cr.r.ReuseRecord = true
	}
	if !noHeader {
		hdr, line, err := cr.read()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: empty input, expected a header line", name)
		}
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for i, h := range hdr {
			h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
			if h == "" {
				return nil, &lineError{name, line, fmt.Sprintf("header column %d is empty", i+1)}
			}
			if seen[h] {
				return nil, &lineError{name, line, fmt.Sprintf("header names column %q twice", h)}
			}
			seen[h] = true
			cr.cols = append(cr.cols, h)
		}
		if cr.r != nil {
			cr.r.FieldsPerRecord = len(cr.cols)
		}
	}
	return cr, nil
}

// read returns the next record's fields and its first line.
func (cr *csvReader) read() ([]string, int, error) {
	if cr.plain {
		for {
			b, err := cr.br.ReadBytes('\n')
			if len(b) == 0 && err != nil {
				return nil, cr.line + 1, err
			}
			cr.line++
			b = bytes.TrimRight(b, "\r\n")
			if len(b) == 0 {
				continue // blank lines carry no row
			}
			return strings.Split(string(b), "\t"), cr.line, nil
		}
	}
	rec, err := cr.r.Read()
	line := cr.line + 1
	if len(rec) > 0 {
		// FieldPos panics when the last Read returned no fields (an
		// error, or EOF): ask only when there is a field.
		line, _ = cr.r.FieldPos(0)
	}
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			msg := pe.Err.Error()
			if errors.Is(pe.Err, csv.ErrFieldCount) {
				msg = fmt.Sprintf("%d fields, the header has %d", len(rec), len(cr.cols))
			}
			return nil, pe.StartLine, &lineError{cr.name, pe.StartLine, msg}
		}
		return nil, line, err
	}
	return rec, line, nil
}

func (cr *csvReader) next() (record, error) {
	fields, line, err := cr.read()
	if err != nil {
		return record{line: line}, err
	}
	if cr.cols == nil {
		for i := range fields {
			cr.cols = append(cr.cols, strconv.Itoa(i+1))
		}
		if cr.r != nil {
			cr.r.FieldsPerRecord = len(cr.cols)
		}
	}
	if len(fields) != len(cr.cols) {
		return record{line: line}, &lineError{cr.name, line, fmt.Sprintf("%d fields, the header has %d", len(fields), len(cr.cols))}
	}
	row := make(msgpack.Map, len(fields))
	for i, f := range fields {
		row[i] = msgpack.KV{Key: cr.cols[i], Value: f}
	}
	return record{line: line, row: row}, nil
}

// jsonlReader reads one JSON object per line; blank lines are skipped.
type jsonlReader struct {
	name string
	br   *bufio.Reader
	line int
}

func newJSONLReader(name string, r io.Reader) *jsonlReader {
	return &jsonlReader{name: name, br: bufio.NewReaderSize(r, 1<<20)}
}

func (jr *jsonlReader) next() (record, error) {
	for {
		b, err := jr.br.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			return record{line: jr.line + 1}, err
		}
		jr.line++
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		v, perr := decodeJSONOrdered(b)
		if perr != nil {
			return record{line: jr.line}, &lineError{jr.name, jr.line, "invalid JSON: " + perr.Error()}
		}
		m, ok := v.(msgpack.Map)
		if !ok {
			return record{line: jr.line}, &lineError{jr.name, jr.line, "expected a JSON object"}
		}
		return record{line: jr.line, row: m}, nil
	}
}

// decodeJSONOrdered parses one JSON value keeping object key order (rows
// keep their column order when re-encoded) and numbers exact.
func decodeJSONOrdered(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	v, err := decodeJSONValue(d, 0)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the value")
	}
	return v, nil
}

func decodeJSONValue(d *json.Decoder, depth int) (any, error) {
	if depth > 256 {
		return nil, errors.New("nested too deeply")
	}
	tok, err := d.Token()
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := msgpack.Map{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				v, err := decodeJSONValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				m = append(m, msgpack.KV{Key: k, Value: v})
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return m, nil
		case '[':
			a := []any{}
			for d.More() {
				v, err := decodeJSONValue(d, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	}
	return tok, nil
}

// lookup finds column name in a row. hint remembers the position found last
// time, since every row of a CSV file has the same layout.
func lookup(row msgpack.Map, name string, hint *int) (any, bool) {
	if i := *hint; i < len(row) && row[i].Key == name {
		return row[i].Value, true
	}
	for i, kv := range row {
		if kv.Key == name {
			*hint = i
			return kv.Value, true
		}
	}
	return nil, false
}

// inferType turns CSV text into a JSON number, boolean or null when it reads
// as one (--infer-types), so JSON and MessagePack rows carry real types.
func inferType(s string) any {
	switch s {
	case "":
		return nil
	case "true":
		return true
	case "false":
		return false
	}
	if c := s[0]; c == '-' || c >= '0' && c <= '9' {
		// Leading zeros ("007", a zip code) stay text: they would not
		// survive the round trip.
		digits := strings.TrimPrefix(s, "-")
		if len(digits) > 1 && digits[0] == '0' && digits[1] != '.' {
			return s
		}
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.Number(s)
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_") && !isInfNaN(f) {
			return json.Number(s)
		}
	}
	return s
}

func isInfNaN(f float64) bool {
	return f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308
}
