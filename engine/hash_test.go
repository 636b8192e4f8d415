package engine

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	f "github.com/drydb/drydb/engine/internal/format"
	"github.com/drydb/drydb/engine/keyenc"
)

// hashShape is a table shape: its encoding and key i.
type hashShape struct {
	name string
	enc  keyenc.Encoding
	key  func(i int) []byte
}

var hashShapes = []hashShape{
	{"string", keyenc.Encoding{Kind: keyenc.String}, func(i int) []byte { return []byte(fmt.Sprintf("user:%08d", i*7)) }},
	{"bytes-short", keyenc.Encoding{Kind: keyenc.Bytes}, func(i int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(i*3))[1:] }},
	{"uuid", keyenc.Encoding{Kind: keyenc.UUID}, func(i int) []byte {
		k := make([]byte, 16)
		binary.BigEndian.PutUint64(k, uint64(i)<<20|0x7000)
		binary.BigEndian.PutUint64(k[8:], uint64(i)*0x9E3779B97F4A7C15)
		return k
	}},
	{"int64-sparse", keyenc.Encoding{Kind: keyenc.Int64}, func(i int) []byte { return int64Key(int64(i)*37 - 5000) }},
	{"int64-dense", keyenc.Encoding{Kind: keyenc.Int64}, func(i int) []byte { return int64Key(int64(i)) }},
}

func buildHash(t testing.TB, ps, rows int, sh hashShape, mode HashMode, val func(i int) []byte) []byte {
	t.Helper()
	b, err := NewBuilder(&BuilderOptions{PageSize: ps})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.Table("t", &TableOptions{Encoding: sh.enc, Hash: mode})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		if err := tb.Append(sh.key(i), val(i)); err != nil {
			t.Fatal(err)
		}
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func hashVal(i int) []byte {
	v := []byte(fmt.Sprintf("value-%d-", i))
	if i%97 == 0 { // now and then an overflow value
		v = bytes.Repeat(v, 200)
	}
	return v
}

// TestHashIndex: every shape, mode and page size gives the rows back,
// through the hash index where the table has one, and Verify passes.
func TestHashIndex(t *testing.T) {
	for _, sh := range hashShapes {
		for _, mode := range []HashMode{HashAuto, HashOn, HashOff} {
			for _, ps := range []int{512, 4096} {
				for _, rows := range []int{1, 5000} {
					t.Run(fmt.Sprintf("%s/%d/%d/%d", sh.name, mode, ps, rows), func(t *testing.T) {
						db, err := OpenBytes(buildHash(t, ps, rows, sh, mode, hashVal), &Options{Verify: true})
						if err != nil {
							t.Fatal(err)
						}
						defer db.Close()
						tbl, _ := db.Table("t")
						want := mode == HashOn || mode == HashAuto && !(sh.name == "int64-dense" || rows == 1 && sh.enc.Kind == keyenc.Int64)
						if got := tbl.tree.hash != nil; got != want {
							t.Fatalf("hash index present: %v, want %v", got, want)
						}
						if got := tbl.Hashed(); got != want {
							t.Fatalf("Hashed() %v, want %v", got, want)
						}
						for i := 0; i < rows; i++ {
							v, err := tbl.Get(sh.key(i))
							if err != nil || !bytes.Equal(v, hashVal(i)) {
								t.Fatalf("row %d: %q, %v", i, v, err)
							}
						}
						// absent keys: between and beyond the rows
						for _, k := range [][]byte{[]byte("user:0000000"), []byte("zzz"), {0xff, 0xff, 0xff}, int64Key(-6000), int64Key(1 << 40)} {
							if sh.enc.Validate(k) != nil {
								continue
							}
							if _, err := tbl.Get(k); !errors.Is(err, ErrNotFound) {
								t.Fatalf("absent key %x: %v", k, err)
							}
						}
					})
				}
			}
		}
	}
}

func TestHashModeRefused(t *testing.T) {
	db := build(t, 4096, func(b *Builder) {
		if _, err := b.Table("x", &TableOptions{Hash: 9}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("unknown hash mode: %v", err)
		}
		// auto on a compressed table: none, and the build works
		tb, err := b.Table("c", &TableOptions{Compression: Compression{Kind: CompressZstd}})
		if err != nil {
			t.Fatal(err)
		}
		tb.Append([]byte("a"), []byte("b"))
	})
	if tbl, _ := db.Table("c"); tbl.Hashed() {
		t.Fatal("compressed table has a hash index")
	}
}

// TestHashCompressed: a compressed table asked for a hash index finds its
// rows through it (block offsets, then the cache), cold and warm.
func TestHashCompressed(t *testing.T) {
	for _, sh := range []hashShape{hashShapes[0], hashShapes[3], hashShapes[4]} {
		for _, kind := range []CompressionKind{CompressZstd, CompressS2} {
			t.Run(fmt.Sprintf("%s/%v", sh.name, kind), func(t *testing.T) {
				const rows = 6000
				db := build(t, 512, func(b *Builder) {
					tb, err := b.Table("t", &TableOptions{Encoding: sh.enc, Compression: Compression{Kind: kind}, Hash: HashOn})
					if err != nil {
						t.Fatal(err)
					}
					for i := 0; i < rows; i++ {
						tb.Append(sh.key(i), hashVal(i))
					}
				})
				tbl, _ := db.Table("t")
				if !tbl.Hashed() {
					t.Fatal("no hash index")
				}
				for round := 0; round < 2; round++ {
					for i := 0; i < rows; i++ {
						v, err := tbl.Get(sh.key(i))
						if err != nil || !bytes.Equal(v, hashVal(i)) {
							t.Fatalf("row %d: %q, %v", i, v, err)
						}
					}
				}
				if _, err := tbl.Get(int64Key(1 << 40)); sh.enc.Kind == keyenc.Int64 && !errors.Is(err, ErrNotFound) {
					t.Fatalf("absent key: %v", err)
				}
			})
		}
	}
}

// hashRegion returns a file's hash pages of table 0 and a function that
// re-seals the page holding slot position s (its checksum), as a crafter
// would.
func hashRegion(t *testing.T, data []byte) (f.Hash, int) {
	t.Helper()
	db, err := OpenBytes(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl := db.tables[0]
	if tbl.tree.hash == nil {
		t.Fatal("no hash index")
	}
	return f.Hash{FirstPage: tbl.tree.hash.first, LastPage: tbl.tree.hash.last, MaxProbe: uint64(tbl.tree.hash.maxProbe)}, db.ps
}

// TestHashHostile: hash pages crafted with valid checksums (slots emptied,
// pointed at other entries, other pages, out of range) never give a wrong
// answer: a get gives the row's value, or ErrCorrupt; Verify names the
// damage.
func TestHashHostile(t *testing.T) {
	sh := hashShapes[0]
	const rows = 3000
	clean := buildHash(t, 4096, rows, sh, HashOn, hashVal)
	h, ps := hashRegion(t, clean)
	slot := func(b []byte, pg uint64, j int) []byte { return b[int(pg)*ps+j*8:][:8] }
	seal := func(b []byte, pg uint64) {
		p := b[int(pg)*ps:][:ps]
		f.PutU32(p, f.PgCRC, f.CRC(p[4:]))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name   string
		mutate func(s uint64) uint64 // one occupied slot's new word
	}{
		{"emptied", func(s uint64) uint64 { return 0 }},
		{"other index", func(s uint64) uint64 { return s&^(0xffff<<48) | uint64(rng.IntN(300))<<48 }},
		{"other page", func(s uint64) uint64 { return s&^(0xffffffff<<16) | (h.FirstPage-1-uint64(rng.IntN(5)))<<16 }},
		{"page out of range", func(s uint64) uint64 { return s&^(0xffffffff<<16) | uint64(h.LastPage+7)<<16 }},
		{"page 0xffffffff", func(s uint64) uint64 { return s | 0xffffffff<<16 }},
		{"hash page", func(s uint64) uint64 { return s&^(0xffffffff<<16) | h.FirstPage<<16 }},
		{"random", func(s uint64) uint64 { return rng.Uint64() }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := append([]byte(nil), clean...)
			changed := 0
			for pg := h.FirstPage; pg < h.LastPage; pg++ {
				for j := f.HashHeaderSlots; j < ps/8; j++ {
					w := slot(data, pg, j)
					if s := le.Uint64(w); s != 0 && rng.IntN(4) == 0 {
						le.PutUint64(w, c.mutate(s))
						changed++
					}
				}
				seal(data, pg)
			}
			if changed == 0 {
				t.Fatal("nothing changed")
			}
			db, err := OpenBytes(data, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			tbl, _ := db.Table("t")
			for i := 0; i < rows; i++ {
				v, err := tbl.Get(sh.key(i))
				if err != nil && !errors.Is(err, ErrCorrupt) || err == nil && !bytes.Equal(v, hashVal(i)) {
					t.Fatalf("row %d: %q, %v", i, v, err)
				}
			}
			if _, err := tbl.Get([]byte("nope")); !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("absent key: %v", err)
			}
			if err := db.Verify(); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Verify: %v", err)
			}
		})
	}
	// A catalog whose hash descriptor points elsewhere is refused at open.
	t.Run("descriptor", func(t *testing.T) {
		db, _ := OpenBytes(clean, nil)
		defer db.Close()
		if db.Info().FormatVersion != 3 {
			t.Fatalf("format version %d", db.Info().FormatVersion)
		}
	})
}

// TestHashKeyGolden pins HashKey to tests/vectors/hash.json, which
// tests/c/test_vectors.c checks capi/hash.h's drydb__hash_key against: a
// reader whose hash differs would never find a slot (every get would fall
// back to the tree, still right but slow), so the two are tested against
// one list. DRYDB_UPDATE_VECTORS=1 rewrites the file (a change of HashKey
// is a format change).
func TestHashKeyGolden(t *testing.T) {
	const path = "../tests/vectors/hash.json"
	type vec struct {
		Key  string `json:"key"`  // hex
		Hash string `json:"hash"` // hex, 16 digits
	}
	type file struct {
		Comment string `json:"comment"`
		Keys    []vec  `json:"keys"`
	}
	if os.Getenv("DRYDB_UPDATE_VECTORS") != "" {
		var keys [][]byte
		for n := 0; n <= 40; n++ { // every tail length, words 0..5
			k := make([]byte, n)
			for i := range k {
				k[i] = byte(i*37 + n)
			}
			keys = append(keys, k)
		}
		keys = append(keys, []byte("user:00000000042"), bytes.Repeat([]byte{0xff}, 16), bytes.Repeat([]byte{0}, 9),
			int64Key(-1), int64Key(0), int64Key(1<<62))
		fl := file{Comment: "format.HashKey of each key (hex): generated by DRYDB_UPDATE_VECTORS=1 go test ./engine -run TestHashKeyGolden"}
		for _, k := range keys {
			fl.Keys = append(fl.Keys, vec{hex.EncodeToString(k), fmt.Sprintf("%016x", f.HashKey(k))})
		}
		b, _ := json.MarshalIndent(fl, "", " ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fl file
	if err := json.Unmarshal(b, &fl); err != nil {
		t.Fatal(err)
	}
	if len(fl.Keys) < 40 {
		t.Fatalf("%s: %d keys", path, len(fl.Keys))
	}
	for _, v := range fl.Keys {
		k, _ := hex.DecodeString(v.Key)
		if got := fmt.Sprintf("%016x", f.HashKey(k)); got != v.Hash {
			t.Errorf("HashKey(%s) = %s, want %s", v.Key, got, v.Hash)
		}
	}
	// distinct keys, distinct hashes (a hash that ignored a byte would repeat)
	seen := map[string]bool{}
	for _, v := range fl.Keys {
		if seen[v.Hash] {
			t.Errorf("hash %s repeats", v.Hash)
		}
		seen[v.Hash] = true
	}
}
