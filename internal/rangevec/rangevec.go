// Package rangevec reads tests/vectors/ranges.json, the range and count
// cases every language runs (schema: tests/vectors/README.md), for the Go
// tests of the engine and the CLI.
package rangevec

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// File is the decoded case file. Keys stay raw JSON: int64 keys include
// -2^63 and 2^63-1, which a float64 would not hold.
type File struct {
	Tables []struct {
		Name string
		Key  json.RawMessage // "int64", "string" or ["string", "int64"]
		Rows []json.RawMessage
	}
	Cases []Case
}

// Case is one range: bounds "default" ([lo, hi)) or "[]", "[)", "(]", "()";
// Lo and Hi are a key, a shorter composite list (a key prefix) or null.
type Case struct {
	Table   string
	Lo, Hi  json.RawMessage
	Bounds  string
	Reverse bool
	Keys    []json.RawMessage
	Count   uint64
}

// Inclusive says whether each end of the case's bounds includes its key.
func (c *Case) Inclusive() (lo, hi bool, ok bool) {
	switch c.Bounds {
	case "default", "[)":
		return true, false, true
	case "[]":
		return true, true, true
	case "(]":
		return false, true, true
	case "()":
		return false, false, true
	}
	return false, false, false
}

// Load reads the file from the repository whose root is root.
func Load(root string) (*File, error) {
	raw, err := os.ReadFile(filepath.Join(root, "tests", "vectors", "ranges.json"))
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return &f, nil
}
