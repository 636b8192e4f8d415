// Command gen writes the shared test vectors every binding reads:
//
//	go_built.drydb  a small database built by the Go engine
//	expected.json   what is in it (every row, absent keys, range counts,
//	                index entries), and the same description of
//	                c_built.drydb (built through the C API by
//	                tests/c/make_vectors.c), which gen reads back and checks
//	                against the rules make_vectors.c follows.
//
// Run from the repository root: go run ./tests/vectors/gen -out tests/vectors
// (make vectors builds c_built.drydb first).
package main

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

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
	Parts       []int       `json:"parts"`
	Compression int         `json:"compression"`
	Rows        uint64      `json:"rows"`
	Entries     [][2]string `json:"entries"` // [key hex, value hex] in key order
	Missing     []string    `json:"missing"` // keys (hex) that are not present
	Counts      []countCase `json:"counts"`
	Indexes     []indexDesc `json:"indexes"`
}

type fileDesc struct {
	File   string            `json:"file"`
	Meta   map[string]string `json:"meta"` // key -> value hex
	Tables []tableDesc       `json:"tables"`
}

type expected struct {
	Comment string    `json:"_comment"`
	Go      fileDesc  `json:"go_built"`
	C       *fileDesc `json:"c_built,omitempty"`
}

func i64(v int64) []byte { return keyenc.EncodeInt64(v) }

func buildGo(path string) {
	b, err := engine.NewBuilder(&engine.BuilderOptions{PageSize: 1024, Metadata: map[string][]byte{"source": []byte("tests/vectors/gen")}})
	check(err)
	defer b.Close()
	// "nums": int64 keys 0, 3, ..., 447 (150 rows), value "n<k>" repeated k%5+1 times;
	// index "tens" (non-unique int64): k/30 -> k; unique index "name" (string): "n<k>" -> k.
	t, err := b.Table("nums", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	check(err)
	tens, err := t.AddIndex("tens", &engine.IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	check(err)
	name, err := t.AddIndex("name", &engine.IndexOptions{Unique: true, Encoding: keyenc.Encoding{Kind: keyenc.String}})
	check(err)
	for k := int64(0); k < 450; k += 3 {
		v := []byte{}
		for r := int64(0); r <= k%5; r++ {
			v = fmt.Appendf(v, "n%d", k)
		}
		check(t.Append(i64(k), v))
		check(tens.Add(i64(k/30), i64(k)))
		check(name.Add(fmt.Appendf(nil, "n%d", k), i64(k)))
	}
	// "blobs": bytes keys with 0x00 and 0xFF bytes, zstd; values up to 1200 bytes
	// (some larger than a 1 KiB page: overflow values).
	bl, err := b.Table("blobs", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Bytes},
		Compression: engine.Compression{Kind: engine.CompressZstd}})
	check(err)
	for i := 0; i < 60; i++ {
		k := []byte{byte(i % 3 * 0x7F), byte(i), 0x00, 0xFF}[:1+i%4]
		k = append(k, byte(i))
		v := make([]byte, i*20)
		for j := range v {
			v[j] = byte(i + j)
		}
		check(bl.Append(k, v))
	}
	// "tuples": composite(int64, string), s2.
	tu, err := b.Table("tuples", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Composite, Parts: []keyenc.Kind{keyenc.Int64, keyenc.String}},
		Compression: engine.Compression{Kind: engine.CompressS2}})
	check(err)
	for a := int64(-3); a <= 3; a++ {
		for _, s := range []string{"", "a", "a\x00", "b", "zz"} {
			k, err := keyenc.EncodeComposite([]keyenc.Kind{keyenc.Int64, keyenc.String}, []any{a, s})
			check(err)
			check(tu.Append(k, fmt.Appendf(nil, "%d/%q", a, s)))
		}
	}
	_, err = b.BuildToFile(path)
	check(err)
}

func hx(b []byte) string { return hex.EncodeToString(b) }

func ptr(s string) *string { return &s }

// describe reads every table of a database into a fileDesc, with counts for
// a spread of ranges computed by walking the rows (not by Count), so the
// expectations do not trust the code under test.
func describe(path string) fileDesc {
	db, err := engine.Open(path, &engine.Options{Verify: true})
	check(err)
	defer db.Close()
	fd := fileDesc{File: filepath.Base(path), Meta: map[string]string{}}
	for k, v := range db.Info().Metadata {
		fd.Meta[k] = hx(v)
	}
	for _, name := range db.Tables() {
		t, err := db.Table(name)
		check(err)
		td := tableDesc{Name: name, KeyKind: int(t.Encoding().Kind), Parts: []int{}, Compression: int(t.Compression().Kind), Rows: t.Len()}
		for _, p := range t.Encoding().Parts {
			td.Parts = append(td.Parts, int(p))
		}
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
		// absent keys: each key with a byte appended (sorts right after it)
		for i := 0; i < len(keys); i += max(1, len(keys)/10) {
			m := append(append([]byte(nil), keys[i]...), 0x00)
			if v, err := t.Get(m); err == nil || v != nil {
				continue
			}
			td.Missing = append(td.Missing, hx(m))
		}
		// counts: bounds on present keys, on gaps, empty key, unbounded;
		// only bounds the table's encoding takes (bounds are keys)
		n := len(keys)
		var probes [][]byte
		for _, i := range []int{0, n / 2, n - 1} {
			if i >= 0 && i < n {
				probes = append(probes, near(t.Encoding(), keys[i])...)
			}
		}
		if t.Encoding().ValidateBound(nil) == nil {
			probes = append(probes, []byte{})
		}
		for _, lo := range probes {
			for _, hi := range probes {
				for _, k := range [][2]int{{1, 1}, {2, 2}, {2, 1}} {
					td.Counts = append(td.Counts, countCase{ptr(hx(lo)), k[0], ptr(hx(hi)), k[1], walkCount(keys, lo, k[0], hi, k[1])})
				}
			}
			td.Counts = append(td.Counts, countCase{ptr(hx(lo)), 1, nil, 0, walkCount(keys, lo, 1, nil, 0)})
			td.Counts = append(td.Counts, countCase{nil, 0, ptr(hx(lo)), 2, walkCount(keys, nil, 0, lo, 2)})
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
			td.Indexes = append(td.Indexes, id)
		}
		fd.Tables = append(fd.Tables, td)
	}
	return fd
}

func cmpB(a, b []byte) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return int(a[i]) - int(b[i])
		}
	}
	return len(a) - len(b)
}

// near returns the bounds at and just after key k that the encoding takes
// (keyenc.ValidateBound): k, k with 0x00 appended (sorts right after it),
// k + 1 as a big-endian number (the next key of a fixed-width kind) and, of
// a composite key, its first part alone (a tuple prefix).
func near(enc keyenc.Encoding, k []byte) [][]byte {
	cands := [][]byte{k, append(append([]byte(nil), k...), 0)}
	if inc := append([]byte(nil), k...); len(inc) > 0 {
		i := len(inc) - 1
		for ; i >= 0 && inc[i] == 0xff; i-- {
			inc[i] = 0
		}
		if i >= 0 {
			inc[i]++
			cands = append(cands, inc)
		}
	}
	if enc.Kind == keyenc.Composite && len(enc.Parts) > 1 && enc.Parts[0].Width() > 0 {
		cands = append(cands, k[:enc.Parts[0].Width()])
	}
	var out [][]byte
	for _, c := range cands {
		if enc.ValidateBound(c) == nil {
			out = append(out, c)
		}
	}
	return out
}

func walkCount(keys [][]byte, lo []byte, lk int, hi []byte, hk int) uint64 {
	var n uint64
	for _, k := range keys {
		if lk == 1 && cmpB(k, lo) < 0 || lk == 2 && cmpB(k, lo) <= 0 {
			continue
		}
		if hk == 1 && cmpB(k, hi) > 0 || hk == 2 && cmpB(k, hi) >= 0 {
			continue
		}
		n++
	}
	return n
}

// checkC verifies c_built.drydb against the rules of tests/c/make_vectors.c.
func checkC(fd fileDesc) {
	rows := map[string]uint64{"ints": 200, "words": 150, "pairs": 100}
	for _, t := range fd.Tables {
		if rows[t.Name] != t.Rows {
			log.Fatalf("c_built: table %s has %d rows, want %d", t.Name, t.Rows, rows[t.Name])
		}
		if t.Name == "ints" {
			for i, e := range t.Entries {
				k := int64(-200 + 2*i)
				v, _ := hex.DecodeString(e[1])
				if e[0] != hx(i64(k)) || string(v) != fmt.Sprintf("i=%d", k) {
					log.Fatalf("c_built: ints row %d is %v", i, e)
				}
			}
		}
	}
	if len(fd.Tables) != 3 {
		log.Fatalf("c_built: %d tables, want 3", len(fd.Tables))
	}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func main() {
	out := flag.String("out", "tests/vectors", "directory for the vectors")
	flag.Parse()
	goPath := filepath.Join(*out, "go_built.drydb")
	buildGo(goPath)
	exp := expected{
		Comment: "Generated by `go run ./tests/vectors/gen` (make vectors). Keys and values are hex. Bound kinds: 0 unbounded, 1 inclusive, 2 exclusive; a null key means unbounded. Entries are in key order; index entries in (index key, primary key) order.",
		Go:      describe(goPath),
	}
	cPath := filepath.Join(*out, "c_built.drydb")
	if _, err := os.Stat(cPath); err == nil {
		c := describe(cPath)
		checkC(c)
		exp.C = &c
	} else {
		log.Printf("%s not found: run make vectors to build it first", cPath)
	}
	j, err := json.Marshal(exp)
	check(err)
	check(os.WriteFile(filepath.Join(*out, "expected.json"), append(j, '\n'), 0o644))
}
