package drydb14

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/drydb/drydb/internal/fixture14"
)

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

func fixturePaths(t testing.TB) []string {
	paths, err := fixture14.Paths()
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

// TestFixtures reads every fixture and compares every row and index entry (with the primary key
// worked out from its PageRef) with the fixture's .expected.json.
func TestFixtures(t *testing.T) {
	for _, path := range fixturePaths(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			exp, err := fixture14.Load(path)
			if err != nil {
				t.Fatal(err)
			}
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
					if !bytes.Equal(td.Rows[i].Key, r[0]) || !bytes.Equal(td.Rows[i].Value, r[1]) {
						t.Fatalf("table %q row %d: %x=%.40x, want %x=%.40x", tb.Name, i, td.Rows[i].Key, td.Rows[i].Value, r[0], r[1])
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
					for i := range ex.Entries {
						e, err := ex.Entry(i)
						if err != nil {
							t.Fatal(err)
						}
						row := td.Rows[es[i].Row]
						if !bytes.Equal(es[i].Key, e.Key) || !bytes.Equal(row.Value, e.Value) || !bytes.Equal(row.Key, e.PK) {
							t.Fatalf("index %q entry %d: %x -> pk %x value %.40x, want %x -> %x %.40x", ix.Name, i, es[i].Key, row.Key, row.Value, e.Key, e.PK, e.Value)
						}
					}
				}
			}
		})
	}
}
