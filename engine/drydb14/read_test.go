package drydb14

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureDir holds the nine DryDB 1.4 files written by the Rust crate drydb 0.1.0+drydb1.4, each
// with its .expected.json (provenance: tests/drydb14/fixtures/README.md).
const fixtureDir = "../../tests/drydb14/fixtures"

// Expected is the part of a fixture's .expected.json that the readers compare.
type Expected struct {
	Tables []struct {
		Name    string
		Primary struct {
			Encoding string
		} `json:"primary_index"`
		Count   int
		Rows    [][2]string
		Indexes []struct {
			Name     string
			Encoding string
			IsUnique bool `json:"is_unique"`
			Count    int
			Entries  [][]any
		}
	}
}

func fixtures(t testing.TB) []string {
	fs, err := filepath.Glob(filepath.Join(fixtureDir, "*.drydb"))
	if err != nil || len(fs) != 9 {
		t.Fatalf("want the 9 fixtures in %s, got %d (%v)", fixtureDir, len(fs), err)
	}
	return fs
}

func loadExpected(t testing.TB, path string) *Expected {
	b, err := os.ReadFile(strings.TrimSuffix(path, ".drydb") + ".expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var e Expected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

func unhex(t testing.TB, s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readAll parses data and reads every table.
func readAll(data []byte) (*File, []*TableData, error) {
	f, err := Parse(data)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var tds []*TableData
	for i := range f.Tables {
		td, err := f.ReadTable(&f.Tables[i])
		if err != nil {
			return nil, nil, err
		}
		tds = append(tds, td)
	}
	return f, tds, nil
}

func TestFixtures(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			exp := loadExpected(t, path)
			f, tds, err := readAll(data)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Tables) != len(exp.Tables) {
				t.Fatalf("%d tables, want %d", len(f.Tables), len(exp.Tables))
			}
			for ti, et := range exp.Tables {
				tb, td := f.Tables[ti], tds[ti]
				if tb.Name != et.Name || tb.Primary.Enc.ID != et.Primary.Encoding || len(td.Rows) != et.Count || len(et.Rows) != et.Count {
					t.Fatalf("table %d: %q %s %d rows, want %q %s %d", ti, tb.Name, tb.Primary.Enc.ID, len(td.Rows), et.Name, et.Primary.Encoding, et.Count)
				}
				for i, r := range et.Rows {
					if !bytes.Equal(td.Rows[i].Key, unhex(t, r[0])) || !bytes.Equal(td.Rows[i].Value, unhex(t, r[1])) {
						t.Fatalf("table %q row %d: %x=%.40x, want %s=%.40s", tb.Name, i, td.Rows[i].Key, td.Rows[i].Value, r[0], r[1])
					}
				}
				if len(tb.Indexes) != len(et.Indexes) {
					t.Fatalf("table %q: %d indexes, want %d", tb.Name, len(tb.Indexes), len(et.Indexes))
				}
				for xi, ex := range et.Indexes {
					ix, es := tb.Indexes[xi], td.Indexes[xi]
					if ix.Name != ex.Name || ix.Enc.ID != ex.Encoding || ix.Unique != ex.IsUnique || len(es) != ex.Count || len(ex.Entries) != ex.Count {
						t.Fatalf("index %d: %q %s unique=%v %d entries, want %q %s %v %d", xi, ix.Name, ix.Enc.ID, ix.Unique, len(es), ex.Name, ex.Encoding, ex.IsUnique, ex.Count)
					}
					for i, e := range ex.Entries {
						row := td.Rows[es[i].Row]
						if !bytes.Equal(es[i].Key, unhex(t, e[0].(string))) || !bytes.Equal(row.Value, unhex(t, e[2].(string))) || !bytes.Equal(row.Key, unhex(t, e[3].(string))) {
							t.Fatalf("index %q entry %d: %x -> pk %x value %.40x, want %v", ix.Name, i, es[i].Key, row.Key, row.Value, e[:4])
						}
					}
				}
			}
		})
	}
}
