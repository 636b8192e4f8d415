// Command gen writes the corruption test corpus every language's reader
// checks (tests/c/test_corrupt.c, bindings/python/tests/test_corrupt.py,
// bindings/csharp/tests/CorruptTests.cs):
//
//	base.drydb     a small file (512-byte pages, < 200 KB) using every
//	               feature: a plain int64 table with overflow values, a
//	               zstd+dictionary table, an S2 table, a string-keyed table
//	               with a unique and a non-unique index
//	expected.json  its contents: every key and value (hex) of each table,
//	               absent keys, range counts, index entries
//	manifest.json  the variants: file name, kind, what was changed
//	v*.drydb       corrupted copies of base.drydb: single bit flips spread
//	               over every page, zeroed pages, truncations (page
//	               boundaries and mid-page), appended garbage, overwritten
//	               16-byte runs
//
// The variants come from a fixed seed, so the same offsets are damaged on
// every run (the base file differs between runs only in its build time and
// build id). The generated files are not committed: the readers run
//
//	go run ./tests/corrupt/gen OUTDIR
//
// from the repository root at test time.
package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

const pageSize = 512

type countCase struct {
	Lo     *string `json:"lo"` // hex; null when unbounded
	LoKind int     `json:"lo_kind"`
	Hi     *string `json:"hi"`
	HiKind int     `json:"hi_kind"`
	Count  uint64  `json:"count"`
}

type indexDesc struct {
	Name    string      `json:"name"`
	Unique  bool        `json:"unique"`
	KeyKind int         `json:"key_kind"`
	Entries [][2]string `json:"entries"` // [index key hex, primary key hex] in order
}

type tableDesc struct {
	Name        string      `json:"name"`
	KeyKind     int         `json:"key_kind"`
	Compression int         `json:"compression"`
	Rows        uint64      `json:"rows"`
	Entries     [][2]string `json:"entries"` // [key hex, value hex] in key order
	Missing     []string    `json:"missing"` // keys (hex) that are not present
	Counts      []countCase `json:"counts"`
	Indexes     []indexDesc `json:"indexes"`
}

type expected struct {
	Comment  string      `json:"_comment"`
	PageSize int         `json:"page_size"`
	FileSize int         `json:"file_size"`
	Tables   []tableDesc `json:"tables"`
}

type variant struct {
	File   string `json:"file"`
	Kind   string `json:"kind"` // bitflip, zeropage, truncate, append, overwrite
	Offset int    `json:"offset"`
	Length int    `json:"length"` // bytes changed (bitflip: 1), new length (truncate), bytes appended (append)
	Detail string `json:"detail"`
}

type manifest struct {
	Comment  string    `json:"_comment"`
	Base     string    `json:"base"`
	Expected string    `json:"expected"`
	PageSize int       `json:"page_size"`
	Seed     int64     `json:"seed"`
	Variants []variant `json:"variants"`
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func i64(v int64) []byte { return keyenc.EncodeInt64(v) }

func buildBase(path string) {
	b, err := engine.NewBuilder(&engine.BuilderOptions{PageSize: pageSize,
		Metadata: map[string][]byte{"source": []byte("tests/corrupt/gen")}})
	check(err)
	defer b.Close()

	// plain: int64 keys 0, 3, ..., 897 (300 rows); every 37th value is an
	// overflow value of 1100+ bytes, the others short text.
	t, err := b.Table("plain", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	check(err)
	for i := int64(0); i < 300; i++ {
		k := 3 * i
		var v []byte
		if i%37 == 5 {
			v = make([]byte, 1100+int(i)*3)
			for j := range v {
				v[j] = byte(int(i)*7 + j*13)
			}
		} else {
			v = []byte(strings.Repeat(fmt.Sprintf("plain-%d;", k), int(i%4)+1))
		}
		check(t.Append(i64(k), v))
	}

	// zdict: string keys, zstd with a trained dictionary, JSON-like values.
	z, err := b.Table("zdict", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.String},
		Compression: engine.Compression{Kind: engine.CompressZstd, Dictionary: true}})
	check(err)
	for i := 0; i < 400; i++ {
		v := fmt.Sprintf(`{"id":%d,"name":"user-%d","email":"user%d@example.org","tags":["alpha","beta","gamma"],"score":%d}`, i, i, i, i*17%1000)
		check(z.Append([]byte(fmt.Sprintf("z%05d", i*5)), []byte(v)))
	}

	// snappy: bytes keys (with 0x00 and 0xFF bytes), S2.
	s, err := b.Table("snappy", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Bytes},
		Compression: engine.Compression{Kind: engine.CompressS2}})
	check(err)
	for i := 0; i < 250; i++ {
		k := []byte{byte(i / 60 * 0x3F), byte(i), 0x00, 0xFF, byte(i * 7)}[:2+i%4]
		v := bytes.Repeat([]byte(fmt.Sprintf("s2 value %d|", i)), 1+i%6)
		check(s.Append(k, v))
	}

	// people: string keys with a unique string index (by_name) and a
	// non-unique int64 index (by_group).
	p, err := b.Table("people", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.String}})
	check(err)
	byName, err := p.AddIndex("by_name", &engine.IndexOptions{Unique: true, Encoding: keyenc.Encoding{Kind: keyenc.String}})
	check(err)
	byGroup, err := p.AddIndex("by_group", &engine.IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	check(err)
	for i := 0; i < 240; i++ {
		k := []byte(fmt.Sprintf("p%04d", i))
		check(p.Append(k, []byte(fmt.Sprintf("person %d of group %d", i, i%7))))
		check(byName.Add([]byte(fmt.Sprintf("name-%04d", 999-i)), k))
		check(byGroup.Add(i64(int64(i%7)), k))
	}
	_, err = b.BuildToFile(path)
	check(err)
}

func hx(b []byte) string { return hex.EncodeToString(b) }

func ptr(s string) *string { return &s }

func walkCount(keys [][]byte, lo []byte, lk int, hi []byte, hk int) uint64 {
	var n uint64
	for _, k := range keys {
		if lk == 1 && bytes.Compare(k, lo) < 0 || lk == 2 && bytes.Compare(k, lo) <= 0 {
			continue
		}
		if hk == 1 && bytes.Compare(k, hi) > 0 || hk == 2 && bytes.Compare(k, hi) >= 0 {
			continue
		}
		n++
	}
	return n
}

// describe reads the base file back (verified) into the expectations; the
// counts come from walking the rows, not from Count.
func describe(path string, rnd *rand.Rand) expected {
	db, err := engine.Open(path, &engine.Options{Verify: true})
	check(err)
	defer db.Close()
	st, err := os.Stat(path)
	check(err)
	exp := expected{
		Comment:  "Generated by `go run ./tests/corrupt/gen OUTDIR`. Keys and values are hex. Bound kinds: 0 unbounded, 1 inclusive, 2 exclusive; a null key means unbounded. Entries in key order; index entries in (index key, primary key) order.",
		PageSize: pageSize, FileSize: int(st.Size()),
	}
	for _, name := range db.Tables() {
		t, err := db.Table(name)
		check(err)
		td := tableDesc{Name: name, KeyKind: int(t.Encoding().Kind), Compression: int(t.Compression().Kind), Rows: t.Len()}
		var keys [][]byte
		c := t.NewCursor(engine.Bound{}, engine.Bound{})
		for ok := c.First(); ok; ok = c.Next() {
			keys = append(keys, append([]byte(nil), c.Key()...))
			td.Entries = append(td.Entries, [2]string{hx(c.Key()), hx(c.Value())})
		}
		check(c.Err())
		c.Close()
		if uint64(len(keys)) != t.Len() {
			log.Fatalf("%s: cursor saw %d rows, Len says %d", name, len(keys), t.Len())
		}
		// absent keys of the table's shape: int64 tables get odd gaps
		for i := 0; i < len(keys); i += max(1, len(keys)/12) {
			var m []byte
			if t.Encoding().Kind == keyenc.Int64 {
				v, _ := keyenc.DecodeInt64(keys[i])
				m = i64(v + 1)
			} else {
				m = append(append([]byte(nil), keys[i]...), '~')
			}
			if _, err := t.Get(m); err == nil {
				continue
			}
			td.Missing = append(td.Missing, hx(m))
		}
		// counts: 16 random ranges on present keys and neighbours, plus the whole table
		n := len(keys)
		probe := func() []byte {
			k := keys[rnd.Intn(n)]
			if rnd.Intn(3) == 0 {
				// just after k, as a bound the table takes (bounds are
				// keys: an int64 table's are 8 bytes)
				if t.Encoding().Kind == keyenc.Int64 {
					v, _ := keyenc.DecodeInt64(k)
					return i64(v + 1)
				}
				return append(append([]byte(nil), k...), 0)
			}
			return k
		}
		for j := 0; j < 16; j++ {
			lo, hi := probe(), probe()
			if bytes.Compare(lo, hi) > 0 {
				lo, hi = hi, lo
			}
			lk, hk := 1+rnd.Intn(2), 1+rnd.Intn(2)
			switch j {
			case 0:
				td.Counts = append(td.Counts, countCase{nil, 0, ptr(hx(hi)), hk, walkCount(keys, nil, 0, hi, hk)})
			case 1:
				td.Counts = append(td.Counts, countCase{ptr(hx(lo)), lk, nil, 0, walkCount(keys, lo, lk, nil, 0)})
			default:
				td.Counts = append(td.Counts, countCase{ptr(hx(lo)), lk, ptr(hx(hi)), hk, walkCount(keys, lo, lk, hi, hk)})
			}
		}
		td.Counts = append(td.Counts, countCase{nil, 0, nil, 0, uint64(n)})
		for _, ixName := range t.Indexes() {
			ix, err := t.Index(ixName)
			check(err)
			id := indexDesc{Name: ixName, Unique: ix.Unique(), KeyKind: int(ix.Encoding().Kind)}
			ic := ix.NewCursor(engine.Bound{}, engine.Bound{})
			for ok := ic.First(); ok; ok = ic.Next() {
				id.Entries = append(id.Entries, [2]string{hx(ic.IndexKey()), hx(ic.PrimaryKey())})
			}
			check(ic.Err())
			ic.Close()
			if uint64(len(id.Entries)) != ix.Len() {
				log.Fatalf("%s.%s: cursor saw %d entries, Len says %d", name, ixName, len(id.Entries), ix.Len())
			}
			td.Indexes = append(td.Indexes, id)
		}
		if td.Missing == nil {
			td.Missing = []string{}
		}
		if td.Indexes == nil {
			td.Indexes = []indexDesc{}
		}
		exp.Tables = append(exp.Tables, td)
	}
	return exp
}

func main() {
	log.SetFlags(0)
	if len(os.Args) != 2 {
		log.Fatal("usage: go run ./tests/corrupt/gen OUTDIR")
	}
	out := os.Args[1]
	check(os.MkdirAll(out, 0o755))
	const seed = 20240601
	rnd := rand.New(rand.NewSource(seed))

	basePath := filepath.Join(out, "base.drydb")
	buildBase(basePath)
	base, err := os.ReadFile(basePath)
	check(err)
	if len(base) >= 200<<10 {
		log.Fatalf("base file is %d bytes, over the 200 KB budget", len(base))
	}
	exp := describe(basePath, rnd)
	j, err := json.Marshal(exp)
	check(err)
	check(os.WriteFile(filepath.Join(out, "expected.json"), append(j, '\n'), 0o644))

	size := len(base)
	npages := (size + pageSize - 1) / pageSize // the last "page" holds the catalog and footer
	m := manifest{
		Comment: "Corrupted copies of base.drydb. offset/length: see tests/corrupt/gen. Every read of a variant must give the expected answer or a corrupt error.",
		Base:    "base.drydb", Expected: "expected.json", PageSize: pageSize, Seed: seed,
	}
	add := func(kind string, data []byte, off, length int, detail string) {
		name := fmt.Sprintf("v%03d-%s.drydb", len(m.Variants), kind)
		check(os.WriteFile(filepath.Join(out, name), data, 0o644))
		m.Variants = append(m.Variants, variant{File: name, Kind: kind, Offset: off, Length: length, Detail: detail})
	}
	clone := func() []byte { return append([]byte(nil), base...) }

	// 300 single bit flips, spread over every page: flip i lands in page
	// i*npages/300 at a random offset within it.
	const flips = 300
	for i := 0; i < flips; i++ {
		pg := i * npages / flips
		lo, hi := pg*pageSize, min((pg+1)*pageSize, size)
		off := lo + rnd.Intn(hi-lo)
		bit := rnd.Intn(8)
		d := clone()
		d[off] ^= 1 << bit
		add("bitflip", d, off, 1, fmt.Sprintf("page %d, bit %d", pg, bit))
	}
	// the header's magic and version fields (the version gives a version error)
	for _, hf := range []struct {
		off  int
		what string
	}{{3, "magic"}, {8, "format version"}, {16, "page size"}, {29, "header checksum"}} {
		d := clone()
		d[hf.off] ^= 0x04
		add("bitflip", d, hf.off, 1, "header "+hf.what)
	}
	// the footer: every field region once
	for _, fo := range []int{0, 8, 16, 24, 32, 44, 52, 60} {
		off := size - 64 + fo
		d := clone()
		d[off] ^= 0x01
		add("bitflip", d, off, 1, fmt.Sprintf("footer byte %d", fo))
	}
	// 20 zeroed pages, spread (page 0, the catalog page and pages between)
	for i := 0; i < 20; i++ {
		pg := i * (npages - 1) / 19
		lo, hi := pg*pageSize, min((pg+1)*pageSize, size)
		d := clone()
		clear(d[lo:hi])
		add("zeropage", d, lo, hi-lo, fmt.Sprintf("page %d", pg))
	}
	// truncations: 20 page boundaries, 10 mid-page, the last byte, to zero
	for i := 0; i < 20; i++ {
		n := (1 + i*(npages-2)/19) * pageSize
		add("truncate", base[:n:n], n, n, fmt.Sprintf("at page boundary %d", n/pageSize))
	}
	for i := 0; i < 10; i++ {
		n := rnd.Intn(size-1) + 1
		add("truncate", base[:n:n], n, n, "mid-page")
	}
	add("truncate", base[:size-1], size-1, size-1, "last byte removed")
	add("truncate", []byte{}, 0, 0, "empty file")
	// appended garbage: random bytes, a zero page, a second footer copy
	for i, n := range []int{1, 17, pageSize, 3 * pageSize} {
		g := make([]byte, n)
		if i != 2 {
			rnd.Read(g)
		}
		add("append", append(clone(), g...), size, n, fmt.Sprintf("%d bytes", n))
	}
	add("append", append(clone(), base[size-64:]...), size, 64, "a copy of the footer")
	add("append", append(clone(), base...), size, size, "the whole file again")
	// 10 random 16-byte runs overwritten
	for i := 0; i < 10; i++ {
		off := rnd.Intn(size - 16)
		d := clone()
		rnd.Read(d[off : off+16])
		add("overwrite", d, off, 16, "16 random bytes")
	}
	j, err = json.MarshalIndent(m, "", " ")
	check(err)
	check(os.WriteFile(filepath.Join(out, "manifest.json"), append(j, '\n'), 0o644))
	fmt.Printf("tests/corrupt/gen: %s: base %d bytes, %d pages of %d, %d variants\n", out, size, npages, pageSize, len(m.Variants))
}
