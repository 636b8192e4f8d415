// Package fixture14 loads the DryDB 1.4 fixtures of tests/drydb14/fixtures (files written by the
// Rust crate drydb 0.1.0+drydb1.4, each with an .expected.json of its contents; provenance in that
// directory's README.md) for the Go tests of every package that reads them.
package fixture14

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Dir is the fixture directory.
func Dir() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..", "tests", "drydb14", "fixtures")
}

// Paths returns the nine fixture files.
func Paths() ([]string, error) {
	fs, err := filepath.Glob(filepath.Join(Dir(), "*.drydb"))
	if err == nil && len(fs) != 9 {
		err = fmt.Errorf("want the 9 DryDB 1.4 fixtures in %s, found %d", Dir(), len(fs))
	}
	return fs, err
}

// Expected is the part of a fixture's .expected.json that readers compare. Keys and values are
// the 1.4 bytes.
type Expected struct {
	Tables []Table
}

type Table struct {
	Name    string
	Primary struct {
		Encoding string
	} `json:"primary_index"`
	Count   int
	Rows    [][2]Hex
	Indexes []Index
}

type Index struct {
	Name     string
	Encoding string
	IsUnique bool `json:"is_unique"`
	Count    int
	// Entries are [index key, rid or null, value, primary key, pageref]; Entry gives the parts.
	Entries [][]json.RawMessage
}

// Entry is one index entry: index key (rid stripped), the row's value and primary key.
type Entry struct{ Key, Value, PK []byte }

// Entry decodes entry i.
func (ix *Index) Entry(i int) (Entry, error) {
	e := ix.Entries[i]
	var k, v, pk Hex
	if len(e) < 4 {
		return Entry{}, fmt.Errorf("index %q entry %d has %d fields", ix.Name, i, len(e))
	}
	for j, dst := range map[int]*Hex{0: &k, 2: &v, 3: &pk} {
		if err := json.Unmarshal(e[j], dst); err != nil {
			return Entry{}, err
		}
	}
	return Entry{Key: k, Value: v, PK: pk}, nil
}

// Hex is bytes written as a hex string.
type Hex []byte

func (h *Hex) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := hex.DecodeString(s)
	*h = v
	return err
}

// Load reads the .expected.json beside fixture path.
func Load(path string) (*Expected, error) {
	b, err := os.ReadFile(strings.TrimSuffix(path, ".drydb") + ".expected.json")
	if err != nil {
		return nil, err
	}
	var e Expected
	return &e, json.Unmarshal(b, &e)
}

// Mutate returns a damaged copy of a 1.4 file and what was done: a truncation, 1-4 flipped bits,
// or a 32-bit value (often small: shifted right at random) written over a random place, which
// hits lengths, counts, ordinals and offsets as often as data.
func Mutate(data []byte, rng *rand.Rand) ([]byte, string) {
	b := bytes.Clone(data)
	switch rng.IntN(3) {
	case 0:
		n := rng.IntN(len(b))
		return b[:n], fmt.Sprintf("truncated to %d bytes", n)
	case 1:
		var d []string
		for j := 0; j < 1+rng.IntN(4); j++ {
			o, bit := rng.IntN(len(b)), rng.IntN(8)
			b[o] ^= 1 << bit
			d = append(d, fmt.Sprintf("bit %d of byte %d", bit, o))
		}
		return b, "flipped " + strings.Join(d, ", ")
	}
	o, v := rng.IntN(len(b)-4), rng.Uint32()>>rng.IntN(32)
	binary.LittleEndian.PutUint32(b[o:], v)
	return b, fmt.Sprintf("u32 %d written at offset %d", v, o)
}
