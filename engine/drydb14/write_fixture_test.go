package drydb14

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
	"github.com/drydb/drydb/internal/fixture14"
)

// buildOptions reads how a fixture was built (its .expected.json's
// build_options) as the writer's Options.
func buildOptions(t *testing.T, path string) *Options {
	t.Helper()
	b, err := os.ReadFile(strings.TrimSuffix(path, ".drydb") + ".expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var e struct {
		BuildOptions struct {
			PageSize  int     `json:"page_size"`
			Eytzinger bool    `json:"eytzinger_digests"`
			Filter    *string `json:"page_filter"`
		} `json:"build_options"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return &Options{PageSize: e.BuildOptions.PageSize, Eytzinger: e.BuildOptions.Eytzinger, Zstd: e.BuildOptions.Filter != nil}
}

func mustEnc(t *testing.T, id string) Encoding {
	t.Helper()
	e, err := EncodingOf(id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

type memRow struct{ key, val []byte }

type memEntry struct {
	key []byte
	row uint64
}

// memTable is a table held in memory in drydb's encodings, the writer's input.
type memTable struct {
	name    string
	enc     string // 1.4 encoding id
	rows    []memRow
	indexes []memIndex
}

type memIndex struct {
	name    string
	unique  bool
	enc     string
	entries []memEntry
}

// nativeOf is the drydb encoding the writer is given for a 1.4 encoding.
func nativeOf(t *testing.T, id string) keyenc.Encoding { return mustEnc(t, id).Native(false) }

// sources turns memTables into the writer's input, sorting rows and entries
// into drydb order (the builder's job in production).
func sources(t *testing.T, mts []*memTable) []TableSource {
	out := make([]TableSource, len(mts))
	for i, mt := range mts {
		rows := mt.rows
		sort.Slice(rows, func(a, b int) bool { return bytes.Compare(rows[a].key, rows[b].key) < 0 })
		out[i] = TableSource{Name: mt.name, Key: nativeOf(t, mt.enc), Rows: func(yield func(k, v []byte) error) error {
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
			out[i].Indexes = append(out[i].Indexes, IndexSource{Name: mi.name, Unique: mi.unique, Key: nativeOf(t, mi.enc),
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
func fixtureTables(t *testing.T, e *fixture14.Expected) []*memTable {
	var mts []*memTable
	for _, et := range e.Tables {
		mt := &memTable{name: et.Name, enc: et.Primary.Encoding}
		enc := mustEnc(t, mt.enc)
		row := map[string]uint64{}
		for i, r := range et.Rows {
			mt.rows = append(mt.rows, memRow{enc.AppendNative(nil, r[0]), r[1]})
			row[string(r[0])] = uint64(i)
		}
		for _, ei := range et.Indexes {
			mi := memIndex{name: ei.Name, unique: ei.IsUnique, enc: ei.Encoding}
			ienc := mustEnc(t, mi.enc)
			for j := range ei.Entries {
				en, err := ei.Entry(j)
				if err != nil {
					t.Fatal(err)
				}
				r, ok := row[string(en.PK)]
				if !ok {
					t.Fatalf("%s/%s: entry %d names an unknown row %x", et.Name, ei.Name, j, en.PK)
				}
				mi.entries = append(mi.entries, memEntry{ienc.AppendNative(nil, en.Key), r})
			}
			mt.indexes = append(mt.indexes, mi)
		}
		mts = append(mts, mt)
	}
	return mts
}

func loadFixture(t *testing.T, path string) *fixture14.Expected {
	t.Helper()
	e, err := fixture14.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func writeFile(t *testing.T, path string, ts []TableSource, o *Options) {
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

// rebuildFixtures writes each fixture again from its .expected.json, with
// the options it was built with, and hands check the fixture's path, the
// rebuilt file and its options.
func rebuildFixtures(t *testing.T, check func(t *testing.T, p, out string, e *fixture14.Expected, o *Options)) {
	paths, err := fixture14.Paths()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".drydb")
		t.Run(name, func(t *testing.T) {
			e, o := loadFixture(t, p), buildOptions(t, p)
			out := filepath.Join(t.TempDir(), name+".drydb")
			writeFile(t, out, sources(t, fixtureTables(t, e)), o)
			check(t, p, out, e, o)
		})
	}
}

// TestWriteMatchesFixtures rebuilds every fixture from its expected rows:
// the unfiltered ones must come out byte for byte as drydb-rs wrote them
// (same packing, blob rule, write order and layout), and every one must read
// back through drydb's reader as the fixture does. The zstd one differs in
// its compressed frames only.
func TestWriteMatchesFixtures(t *testing.T) {
	rebuildFixtures(t, func(t *testing.T, p, out string, _ *fixture14.Expected, o *Options) {
		got, _ := os.ReadFile(out)
		want, _ := os.ReadFile(p)
		if !o.Zstd && !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Fatalf("%d bytes, want %d; first difference at offset %d", len(got), len(want), i)
		}
		_, gotTables, err := readAll(got)
		if err != nil {
			t.Fatalf("drydb's reader: %v", err)
		}
		_, wantTables, err := readAll(want)
		if err != nil {
			t.Fatal(err)
		}
		if len(gotTables) != len(wantTables) {
			t.Fatalf("%d tables, want %d", len(gotTables), len(wantTables))
		}
		for i := range wantTables {
			g, w := gotTables[i], wantTables[i]
			if len(g.Rows) != len(w.Rows) || len(g.Indexes) != len(w.Indexes) {
				t.Fatalf("table %d: %d rows %d indexes, want %d, %d", i, len(g.Rows), len(g.Indexes), len(w.Rows), len(w.Indexes))
			}
			for j := range w.Rows {
				if !bytes.Equal(g.Rows[j].Key, w.Rows[j].Key) || !bytes.Equal(g.Rows[j].Value, w.Rows[j].Value) {
					t.Fatalf("table %d row %d differs", i, j)
				}
			}
			for k := range w.Indexes {
				if len(g.Indexes[k]) != len(w.Indexes[k]) {
					t.Fatalf("table %d index %d: %d entries, want %d", i, k, len(g.Indexes[k]), len(w.Indexes[k]))
				}
				for j, we := range w.Indexes[k] {
					if ge := g.Indexes[k][j]; !bytes.Equal(ge.Key, we.Key) || ge.Row != we.Row {
						t.Fatalf("table %d index %d entry %d: %x row %d, want %x row %d", i, k, j, ge.Key, ge.Row, we.Key, we.Row)
					}
				}
			}
		}
	})
}
