// Package harness builds the valid seed files that hostile crafts attacks
// from, reads a file through every read call of the engine's Go API
// (Exercise), and runs each read in a child process under a time and
// memory limit (RunChild), so that a crash, hang or memory blow-up fails a
// run instead of ending it. It imports the engine, which hostile itself
// must not (the engine's tests import hostile).
package harness

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/internal/hostile"
	"github.com/drydb/drydb/engine/keyenc"
)

// Seed is a valid file and keys worth probing in each table: a sample of
// its rows, overflow values' keys included.
type Seed struct {
	Name   string
	Data   []byte
	Probes map[string][][]byte
}

type tableSpec struct {
	name     string
	enc      keyenc.Kind
	comp     engine.Compression
	rows     int
	sparse   bool // int keys spread unevenly (no consecutive-key pages)
	fixedVal int  // values of one size (pages claim fixed-size entries), 0: varied
	overflow []int
	indexes  bool // a unique and a non-unique index
	hash     engine.HashMode
}

type seedSpec struct {
	pageSize int
	tables   []tableSpec
}

var (
	zstd     = engine.Compression{Kind: engine.CompressZstd}
	zstdDict = engine.Compression{Kind: engine.CompressZstd, Dictionary: true}
	s2       = engine.Compression{Kind: engine.CompressS2}
)

// seedSpecs: the shapes hostile.Cases name, and mixed files for the fuzzer
// (every page layout, compression kind, overflow values, unique and
// non-unique indexes, page sizes 512, 4096 and 65536).
var seedSpecs = map[string]seedSpec{
	hostile.SeedPlainDense: {512, []tableSpec{{name: "d", enc: keyenc.Int64, rows: 1500, fixedVal: 24, overflow: []int{100, 700, 1300}, indexes: true}}},
	hostile.SeedZstd:       {512, []tableSpec{{name: "z", enc: keyenc.Int64, comp: zstd, rows: 3000, overflow: []int{5, 2000}}}},
	hostile.SeedZstdDict:   {4096, []tableSpec{{name: "zd", enc: keyenc.String, comp: zstdDict, rows: 3000}}},
	hostile.SeedPage64K:    {65536, []tableSpec{{name: "w", enc: keyenc.String, rows: 3000, overflow: []int{10}}}},
	hostile.SeedPage16K:    {16384, []tableSpec{{name: "w", enc: keyenc.String, rows: 3000, overflow: []int{10}}}},
	hostile.SeedStringInt: {512, []tableSpec{
		{name: "s", enc: keyenc.String, rows: 800},
		{name: "i", enc: keyenc.Int64, rows: 800, sparse: true}}},
	hostile.SeedPlainString: {512, []tableSpec{{name: "p", enc: keyenc.String, rows: 3000}}},
	"mixed-512": {512, []tableSpec{
		{name: "dense", enc: keyenc.Int64, rows: 600, fixedVal: 16},
		{name: "sparse", enc: keyenc.Int64, rows: 500, sparse: true, overflow: []int{3, 250}, indexes: true},
		{name: "str", enc: keyenc.String, rows: 400, overflow: []int{7, 300}, indexes: true},
		{name: "zstd", enc: keyenc.Int64, comp: zstd, rows: 500, overflow: []int{9}, hash: engine.HashOn},
		{name: "dict", enc: keyenc.String, comp: zstdDict, rows: 600, indexes: true},
		{name: "s2", enc: keyenc.Bytes, comp: s2, rows: 400, overflow: []int{4}},
		{name: "empty", enc: keyenc.Bytes}}},
	"mixed-4096": {4096, []tableSpec{
		{name: "dense", enc: keyenc.Uint64, rows: 3000, fixedVal: 40, overflow: []int{1500}},
		{name: "str", enc: keyenc.String, rows: 2000, overflow: []int{11, 1999}, indexes: true},
		{name: "dict", enc: keyenc.Int64, comp: zstdDict, rows: 3000, sparse: true, indexes: true},
		{name: "s2", enc: keyenc.String, comp: s2, rows: 2000, hash: engine.HashOn}}},
	"s2-64k": {65536, []tableSpec{
		{name: "s2", enc: keyenc.Int64, comp: s2, rows: 4000, overflow: []int{17}, hash: engine.HashOn},
		{name: "plain", enc: keyenc.Int64, rows: 5000, fixedVal: 12, indexes: true}}},
}

// FuzzSeeds names the seeds the fuzzer starts from.
var FuzzSeeds = []string{"mixed-512", "mixed-4096", "s2-64k", hostile.SeedPlainDense, hostile.SeedZstd, hostile.SeedStringInt}

// BuildSeed builds the named seed.
func BuildSeed(name string) (*Seed, error) {
	spec, ok := seedSpecs[name]
	if !ok {
		return nil, fmt.Errorf("harness: no seed %q", name)
	}
	b, err := engine.NewBuilder(&engine.BuilderOptions{PageSize: spec.pageSize})
	if err != nil {
		return nil, err
	}
	defer b.Close()
	s := &Seed{Name: name, Probes: map[string][][]byte{}}
	for _, ts := range spec.tables {
		if err := addTable(b, ts, s); err != nil {
			return nil, fmt.Errorf("harness: seed %s table %s: %w", name, ts.name, err)
		}
	}
	if s.Data, _, err = b.BuildToBytes(); err != nil {
		return nil, err
	}
	return s, nil
}

func addTable(b *engine.Builder, ts tableSpec, s *Seed) error {
	tb, err := b.Table(ts.name, &engine.TableOptions{Encoding: keyenc.Encoding{Kind: ts.enc}, Compression: ts.comp, Hash: ts.hash})
	if err != nil {
		return err
	}
	var uniq, multi *engine.IndexBuilder
	if ts.indexes {
		if uniq, err = tb.AddIndex("uniq", &engine.IndexOptions{Unique: true, Encoding: keyenc.Encoding{Kind: keyenc.Int64}}); err != nil {
			return err
		}
		if multi, err = tb.AddIndex("multi", &engine.IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.String}}); err != nil {
			return err
		}
	}
	ovf := map[int]bool{}
	for _, i := range ts.overflow {
		ovf[i] = true
	}
	var probes [][]byte
	for i := 0; i < ts.rows; i++ {
		k := seedKey(ts, i)
		v := seedValue(ts, i, ovf[i])
		if err := tb.Append(k, v); err != nil {
			return err
		}
		if uniq != nil {
			if err := uniq.Add(keyenc.EncodeInt64(int64(-i)), k); err != nil {
				return err
			}
			if err := multi.Add([]byte(fmt.Sprintf("m%d", i%7)), k); err != nil {
				return err
			}
		}
		if ovf[i] || i%(ts.rows/40+1) == 0 || i == ts.rows-1 {
			probes = append(probes, k)
		}
	}
	sort.Slice(probes, func(i, j int) bool { return bytes.Compare(probes[i], probes[j]) < 0 })
	s.Probes[ts.name] = probes
	return nil
}

func seedKey(ts tableSpec, i int) []byte {
	switch ts.enc {
	case keyenc.Int64:
		if ts.sparse {
			return keyenc.EncodeInt64(int64(i)*int64(i)*7 - 5000)
		}
		return keyenc.EncodeInt64(int64(i))
	case keyenc.Uint64:
		var k [8]byte
		for j, v := 7, uint64(i)+1000; j >= 0; j, v = j-1, v>>8 {
			k[j] = byte(v)
		}
		return k[:]
	}
	return []byte(fmt.Sprintf("key/%05d/%x", i*3, i%11))
}

func seedValue(ts tableSpec, i int, overflow bool) []byte {
	if overflow {
		return bytes.Repeat([]byte(fmt.Sprintf("overflow %d;", i)), 3000)[:20000+i]
	}
	if ts.fixedVal > 0 {
		return []byte(fmt.Sprintf("%0*d", ts.fixedVal, i))
	}
	return []byte(fmt.Sprintf("value %d %s", i, bytes.Repeat([]byte{'a' + byte(i%26)}, i%37)))
}

// WriteCLIKeys writes path, the CLI's view of a crafted file of seed
// seedName for tests/hostile/run.sh: lines "table NAME KEY" (KEY as the
// CLI takes it, in the table's key encoding) and "index TABLE NAME".
func WriteCLIKeys(path, seedName string, probes map[string][][]byte) error {
	var b strings.Builder
	for _, ts := range seedSpecs[seedName].tables {
		enc := keyenc.Encoding{Kind: ts.enc}
		for i, k := range probes[ts.name] {
			if i%4 == 0 && i < 24 { // a few per table
				fmt.Fprintf(&b, "table\t%s\t%s\n", ts.name, keyenc.FormatKey(enc, k))
			}
		}
		if len(probes[ts.name]) == 0 {
			fmt.Fprintf(&b, "table\t%s\t\n", ts.name)
		}
		if ts.indexes {
			fmt.Fprintf(&b, "index\t%s\tuniq\nindex\t%s\tmulti\n", ts.name, ts.name)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
