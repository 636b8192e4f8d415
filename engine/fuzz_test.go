package engine

import (
	"bytes"
	"errors"
	"testing"

	"github.com/drydb/drydb/engine/keyenc"
)

func seedFile(tb testing.TB, comp Compression, index bool) []byte {
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
	t, _ := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
	var ix *IndexBuilder
	if index {
		ix, _ = t.AddIndex("ix", nil)
	}
	for i := int64(0); i < 40; i++ {
		v := bytes.Repeat([]byte{byte(i)}, int(i%5)*10)
		if i == 3 {
			v = make([]byte, 300) // overflow
		}
		t.Append(int64Key(i), v)
		if ix != nil {
			ix.Add([]byte{byte(i % 3)}, int64Key(i))
		}
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// FuzzOpen opens arbitrary bytes and reads everything it can. Any outcome
// but a panic, a hang or an error other than ErrCorrupt/ErrVersion/
// ErrUnknownFilter is a bug. Seeded with plain files (with an index and an
// overflow value); FuzzOpenCompressed covers compressed tables. They are
// separate because the fuzzer runs compressed opens (zstd decoders and the
// page cache set up per open) hundreds of times more slowly.
func FuzzOpen(f *testing.F) {
	f.Add(seedFile(f, Compression{}, true))
	f.Add(seedFile(f, Compression{}, false))
	f.Fuzz(fuzzRead)
}

// FuzzOpenCompressed is FuzzOpen on zstd and S2 tables.
func FuzzOpenCompressed(f *testing.F) {
	f.Add(seedFile(f, Compression{Kind: CompressZstd}, false))
	f.Add(seedFile(f, Compression{Kind: CompressS2}, true))
	f.Fuzz(fuzzRead)
}

func fuzzRead(t *testing.T, data []byte) {
	db, err := OpenBytes(data, &Options{CacheBytes: 1 << 16})
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrVersion) && !errors.Is(err, ErrUnknownFilter) && !errors.Is(err, ErrInvalid) {
			t.Fatalf("open: unexpected error class: %v", err)
		}
		return
	}
	defer db.Close()
	db.Verify()
	for _, name := range db.Tables() {
		tbl, _ := db.Table(name)
		c := tbl.NewCursor(All, All)
		for ok, n := c.First(), 0; ok && n < 10000; ok, n = c.Next(), n+1 {
			c.Value()
		}
		c.Close()
		tbl.Get(int64Key(3))
		tbl.Count(Incl(int64Key(1)), Excl(int64Key(30)))
		tbl.At(5)
		for _, in := range tbl.Indexes() {
			ix, _ := tbl.Index(in)
			ix.Count(All, All)
			ix.Get([]byte{1})
		}
	}
}

// FuzzBuildRead builds a table from fuzzed rows and checks every row reads back.
func FuzzBuildRead(f *testing.F) {
	f.Add([]byte("a\x00b\x00\xff\xff"), uint8(0))
	f.Add(bytes.Repeat([]byte{7}, 900), uint8(9))
	f.Fuzz(func(t *testing.T, raw []byte, split uint8) {
		// Cut raw into rows: key = chunk, value = chunk reversed.
		step := int(split)%13 + 1
		rows := map[string][]byte{}
		b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
		tb, _ := b.Table("t", &TableOptions{Compression: Compression{Kind: CompressionKind(split % 3)}})
		for i := 0; i < len(raw); i += step {
			k := raw[i:min(len(raw), i+step)]
			if _, dup := rows[string(k)]; dup {
				continue
			}
			v := bytes.Repeat(k, int(split)%40)
			rows[string(k)] = v
			if err := tb.Append(k, v); err != nil {
				t.Fatal(err)
			}
		}
		data, _, err := b.BuildToBytes()
		if err != nil {
			t.Fatal(err)
		}
		db, err := OpenBytes(data, &Options{Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tbl, _ := db.Table("t")
		if tbl.Len() != uint64(len(rows)) {
			t.Fatalf("%d rows, want %d", tbl.Len(), len(rows))
		}
		for k, v := range rows {
			got, err := tbl.Get([]byte(k))
			if err != nil || !bytes.Equal(got, v) {
				t.Fatalf("Get(%x) = %x, %v", k, got, err)
			}
		}
	})
}
