package drydb14

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

// fixtureDir holds the drydb-rs fixtures (shared/fixtures/drydb-1.4, next to
// the repository); DRYDB14_FIXTURES overrides it.
func fixtureDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("DRYDB14_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "fixtures", "drydb-1.4")
	}
	if _, err := os.Stat(filepath.Join(dir, "tiny_p4096.expected.json")); err != nil {
		t.Skipf("DryDB 1.4 fixtures not found in %s (set DRYDB14_FIXTURES): %v", dir, err)
	}
	return dir
}

// expected is the part of a fixture's .expected.json the writer's tests use;
// crate-check dumps files in the same shape (tests/drydb14/rustcheck).
type expected struct {
	Header struct {
		PageSize int `json:"page_size"`
	} `json:"header"`
	BuildOptions struct {
		Eytzinger bool    `json:"eytzinger_digests"`
		Filter    *string `json:"page_filter"`
	} `json:"build_options"`
	Tables []expTable `json:"tables"`
}

type expTable struct {
	Name    string `json:"name"`
	Primary struct {
		Encoding string `json:"encoding"`
	} `json:"primary_index"`
	Rows    [][2]string `json:"rows"`
	Indexes []expIndex  `json:"indexes"`
}

type expIndex struct {
	Name     string `json:"name"`
	Encoding string `json:"encoding"`
	Unique   bool   `json:"is_unique"`
	// [index_key_hex, rid|null, value_hex, primary_key_hex, ...]
	Entries [][]any `json:"entries"`
}

func readExpected(t *testing.T, path string) *expected {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &e
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// encodingOf maps a 1.4 key type to the drydb encoding the writer takes.
var encodingOf = map[string]keyenc.Encoding{
	TypeI64: {Kind: keyenc.Int64}, TypeASCII: {Kind: keyenc.Bytes},
	TypeUUIDv7: {Kind: keyenc.UUID}, TypeULID: {Kind: keyenc.ULID},
}

// fromKey14 turns a key in 1.4 layout into drydb's encoding (the inverse of
// appendKey).
func fromKey14(typ string, k []byte) []byte {
	switch typ {
	case TypeI64:
		return binary.BigEndian.AppendUint64(nil, binary.LittleEndian.Uint64(k)^1<<63)
	case TypeUUIDv7:
		// the swap is its own inverse
		b, _ := appendKey(nil, TypeUUIDv7, k)
		return b
	}
	return k
}

type memRow struct{ key, val []byte }

type memEntry struct {
	key []byte
	row uint64
}

// memTable is a table held in memory in drydb's encodings, the writer's input.
type memTable struct {
	name    string
	typ     string
	rows    []memRow
	indexes []memIndex
}

type memIndex struct {
	name    string
	unique  bool
	typ     string
	entries []memEntry
}

// tables turns memTables into the writer's input, sorting rows and entries
// into drydb order (the builder's job in production).
func tables(mts []*memTable) []Table {
	out := make([]Table, len(mts))
	for i, mt := range mts {
		rows := mt.rows
		sort.Slice(rows, func(a, b int) bool { return bytes.Compare(rows[a].key, rows[b].key) < 0 })
		out[i] = Table{Name: mt.name, Key: encodingOf[mt.typ], Rows: func(yield func(k, v []byte) error) error {
			for _, r := range rows {
				if err := yield(r.key, r.val); err != nil {
					return err
				}
			}
			return nil
		}}
		for _, mi := range mt.indexes {
			es := mi.entries
			sort.SliceStable(es, func(a, b int) bool {
				if c := bytes.Compare(es[a].key, es[b].key); c != 0 {
					return c < 0
				}
				return es[a].row < es[b].row
			})
			out[i].Indexes = append(out[i].Indexes, Index{Name: mi.name, Unique: mi.unique, Key: encodingOf[mi.typ],
				Entries: func(yield func(k []byte, row uint64) error) error {
					for _, e := range es {
						if err := yield(e.key, e.row); err != nil {
							return err
						}
					}
					return nil
				}})
		}
	}
	return out
}

// fixtureTables rebuilds a fixture's input from its .expected.json.
func fixtureTables(t *testing.T, e *expected) []*memTable {
	var mts []*memTable
	for _, et := range e.Tables {
		mt := &memTable{name: et.Name, typ: et.Primary.Encoding}
		row := map[string]uint64{}
		for i, r := range et.Rows {
			mt.rows = append(mt.rows, memRow{fromKey14(mt.typ, unhex(t, r[0])), unhex(t, r[1])})
			row[r[0]] = uint64(i)
		}
		for _, ei := range et.Indexes {
			mi := memIndex{name: ei.Name, unique: ei.Unique, typ: ei.Encoding}
			for _, en := range ei.Entries {
				r, ok := row[en[3].(string)]
				if !ok {
					t.Fatalf("%s/%s: entry names an unknown row %v", et.Name, ei.Name, en[3])
				}
				mi.entries = append(mi.entries, memEntry{fromKey14(mi.typ, unhex(t, en[0].(string))), r})
			}
			mt.indexes = append(mt.indexes, mi)
		}
		mts = append(mts, mt)
	}
	return mts
}

func writeFile(t *testing.T, path string, ts []Table, o *Options) {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := Write(fh, ts, o); err != nil {
		t.Fatalf("Write %s: %v", path, err)
	}
}

// TestWriteMatchesFixtures rebuilds every fixture from its expected rows:
// the unfiltered ones must come out byte for byte as drydb-rs wrote them
// (same packing, blob rule, write order and layout). The zstd one differs in
// its compressed frames only; the crate check compares its contents.
func TestWriteMatchesFixtures(t *testing.T) {
	dir := fixtureDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.expected.json"))
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	for _, p := range paths {
		name := filepath.Base(p[:len(p)-len(".expected.json")])
		t.Run(name, func(t *testing.T) {
			e := readExpected(t, p)
			o := &Options{PageSize: e.Header.PageSize, Eytzinger: e.BuildOptions.Eytzinger, Zstd: e.BuildOptions.Filter != nil}
			out := filepath.Join(t.TempDir(), name+".drydb")
			writeFile(t, out, tables(fixtureTables(t, e)), o)
			got, _ := os.ReadFile(out)
			want, _ := os.ReadFile(filepath.Join(dir, name+".drydb"))
			if o.Zstd {
				if !bytes.Equal(got[:6], want[:6]) || len(got) == 0 {
					t.Fatalf("header %x, want %x", got[:6], want[:6])
				}
				return
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("%d bytes, want %d; first difference at offset %d", len(got), len(want), i)
			}
		})
	}
}
