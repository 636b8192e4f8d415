package main

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// The importers read untrusted files: any input must end in records, a
// line-numbered error or EOF, never a panic or an endless loop.

func drain(t *testing.T, next func() (record, error)) {
	for n := 0; n < 100000; n++ {
		_, err := next()
		if err == io.EOF {
			return
		}
		var le *lineError
		if err != nil && !errors.As(err, &le) {
			// Errors without a line number are accepted only from the
			// reader itself (none here: the input is in memory).
			t.Fatalf("error without a line number: %v", err)
		}
		if err != nil {
			return
		}
	}
	t.Fatal("reader did not end")
}

func FuzzCSV(f *testing.F) {
	f.Add([]byte("id,name\n1,a\n2,\"b,c\"\n"), false)
	f.Add([]byte("a\tb\n1\t2\n"), true)
	f.Add([]byte("x\n\"unterminated\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, tsv bool) {
		comma := ','
		if tsv {
			comma = '\t'
		}
		cr, err := newCSVReader("in.csv", bytes.NewReader(data), comma, false)
		if err != nil {
			return
		}
		drain(t, cr.next)
	})
}

func FuzzJSONL(f *testing.F) {
	f.Add([]byte("{\"id\":1,\"tags\":[\"a\",\"b\"]}\n{\"id\":2}\n"))
	f.Add([]byte("{\"a\":{\"b\":{\"c\":[1,2,{\"d\":null}]}}}\n"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, newJSONLReader("in.jsonl", bytes.NewReader(data)).next)
	})
}
