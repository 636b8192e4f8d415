package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/drydb/drydb/engine/keyenc"
)

// shardRows is the test data: row i has int key 3*i in "items" (plain) and
// string key "k%05d" in "names" (S2 pages), and an index "cat" on both.
const shardRows = 3000

func shardFill(b *Builder, rows []int) {
	for _, tc := range []struct {
		name string
		opts TableOptions
		key  func(i int) []byte
	}{
		{"items", TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}}, func(i int) []byte { return keyenc.EncodeInt64(int64(3 * i)) }},
		{"names", TableOptions{Compression: Compression{Kind: CompressS2}}, func(i int) []byte { return []byte(fmt.Sprintf("k%05d", i)) }},
	} {
		tb, err := b.Table(tc.name, &tc.opts)
		if err != nil {
			panic(err)
		}
		tb.AddIndex("cat", &IndexOptions{Func: func(k, v []byte, emit func([]byte)) { emit(v[:2]) }})
		for _, i := range rows {
			tb.Append(tc.key(i), []byte(fmt.Sprintf("c%d value %d", i%7, i)))
		}
	}
}

func shardBuild(t *testing.T, path string, rows []int) {
	t.Helper()
	b, err := NewBuilder(&BuilderOptions{PageSize: 512})
	if err != nil {
		t.Fatal(err)
	}
	shardFill(b, rows)
	if _, err := b.BuildToFile(path); err != nil {
		t.Fatal(err)
	}
}

// shardFixture writes one.drydb (every row) and a manifest of 4 range shards
// of the same rows, and returns their paths.
func shardFixture(t *testing.T) (dir, one, man string) {
	dir = t.TempDir()
	all := make([]int, shardRows)
	for i := range all {
		all[i] = i
	}
	one = filepath.Join(dir, "one.drydb")
	shardBuild(t, one, all)
	cuts := []int{0, 700, 1500, 1501, shardRows} // a one-row shard too
	var names []string
	for s := 0; s+1 < len(cuts); s++ {
		names = append(names, fmt.Sprintf("part-%d.drydb", s))
		shardBuild(t, filepath.Join(dir, names[s]), all[cuts[s]:cuts[s+1]])
	}
	m, err := RangeManifest(dir, names)
	if err != nil {
		t.Fatal(err)
	}
	man = filepath.Join(dir, "db.manifest")
	if err := WriteManifest(man, m); err != nil {
		t.Fatal(err)
	}
	return dir, one, man
}

func openPair(t *testing.T, one, man string) (a, b *DB) {
	t.Helper()
	a, err := Open(one, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err = Open(man, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

type walked struct {
	keys []string
	rows []uint64
	vals []string
}

// walk moves c with step from its current position, recording every row.
func walk(c *Cursor, ok bool, step func() bool, val func() []byte) walked {
	var w walked
	for ; ok; ok = step() {
		w.keys = append(w.keys, string(c.Key()))
		w.rows = append(w.rows, c.Row())
		w.vals = append(w.vals, string(val()))
	}
	return w
}

func sameWalk(t *testing.T, what string, want, got walked, err1, err2 error) {
	t.Helper()
	if err1 != nil || err2 != nil {
		t.Fatalf("%s: errors %v / %v", what, err1, err2)
	}
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("%s: one file gives %d rows, sharded %d\n%v\n%v", what, len(want.keys), len(got.keys), want, got)
	}
}

// zigzag moves a and b (positioned: ok1, ok2) the same random way, two
// steps forward for one back, and checks they stay on the same row.
func zigzag(t *testing.T, what string, r *rand.Rand, a, b *Cursor, ok1, ok2 bool) {
	t.Helper()
	for s := 0; s < 60 && ok1 && ok2; s++ {
		if r.Intn(3) == 0 {
			ok1, ok2 = a.Prev(), b.Prev()
		} else {
			ok1, ok2 = a.Next(), b.Next()
		}
		if ok1 != ok2 || !bytes.Equal(a.Key(), b.Key()) || ok1 && a.Row() != b.Row() {
			t.Fatalf("%s zig-zag step %d: %v %x / %v %x", what, s, ok1, a.Key(), ok2, b.Key())
		}
	}
}

// boundKeys are keys at and around every shard boundary of the fixture, and
// past both ends.
func boundKeys(tbl string) [][]byte {
	var ks [][]byte
	for _, i := range []int{-1, 0, 1, 699, 700, 701, 1499, 1500, 1501, 1502, 2999, 3000} {
		if tbl == "items" {
			for d := -1; d <= 1; d++ {
				ks = append(ks, keyenc.EncodeInt64(int64(3*i+d)))
			}
		} else {
			ks = append(ks, []byte(fmt.Sprintf("k%05d", i)), []byte(fmt.Sprintf("k%05d!", i)))
		}
	}
	return ks
}

func TestShardedMatchesOneFile(t *testing.T) {
	_, one, man := shardFixture(t)
	a, b := openPair(t, one, man)
	if err := b.Verify(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(22))
	for _, name := range []string{"items", "names"} {
		ta, _ := a.Table(name)
		tb, err := b.Table(name)
		if err != nil {
			t.Fatal(err)
		}
		if ta.Len() != tb.Len() || fmt.Sprint(ta.Indexes()) != fmt.Sprint(tb.Indexes()) || ta.Encoding().String() != tb.Encoding().String() {
			t.Fatalf("%s: shape differs", name)
		}
		if _, ok := tb.Layout(); ok {
			t.Fatal("a sharded table offers a Layout")
		}
		// every row by Get and At, plus the keys around every boundary
		keys := boundKeys(name)
		for n := uint64(0); n < ta.Len(); n++ {
			k1, v1, err1 := ta.At(n)
			k2, v2, err2 := tb.At(n)
			if err1 != nil || err2 != nil || !bytes.Equal(k1, k2) || !bytes.Equal(v1, v2) {
				t.Fatalf("%s At(%d): %x %v / %x %v", name, n, k1, err1, k2, err2)
			}
			keys = append(keys, bytes.Clone(k1))
		}
		if _, _, err := tb.At(ta.Len()); !errors.Is(err, ErrNotFound) {
			t.Fatalf("At past the end: %v", err)
		}
		for _, k := range keys {
			v1, err1 := ta.Get(k)
			v2, err2 := tb.Get(k)
			if !bytes.Equal(v1, v2) || err1 != err2 {
				t.Fatalf("%s Get(%x): %q %v / %q %v", name, k, v1, err1, v2, err2)
			}
			p, err := tb.GetPinned(k)
			if !bytes.Equal(p.Data, v1) || err != err1 {
				t.Fatalf("%s GetPinned(%x): %q %v", name, k, p.Data, err)
			}
			p.Release()
			r1, err1 := ta.Rank(k)
			r2, err2 := tb.Rank(k)
			if r1 != r2 || err1 != nil || err2 != nil {
				t.Fatalf("%s Rank(%x): %d %v / %d %v", name, k, r1, err1, r2, err2)
			}
		}
		// GetMany in random order, found and missing keys mixed
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		v1, f1 := make([][]byte, len(keys)), make([]bool, len(keys))
		v2, f2 := make([][]byte, len(keys)), make([]bool, len(keys))
		if err := ta.GetMany(keys, v1, f1); err != nil {
			t.Fatal(err)
		}
		if err := tb.GetMany(keys, v2, f2); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(v1, f1) != fmt.Sprint(v2, f2) {
			t.Fatalf("%s GetMany differs", name)
		}
		// ranges from and to every boundary, both directions
		bks := boundKeys(name)
		bounds := []Bound{All}
		for _, k := range bks {
			bounds = append(bounds, Incl(k), Excl(k))
		}
		for q := 0; q < 300; q++ {
			lo, hi := bounds[r.Intn(len(bounds))], bounds[r.Intn(len(bounds))]
			what := fmt.Sprintf("%s [%v %x, %v %x]", name, lo.Kind, lo.Key, hi.Kind, hi.Key)
			n1, err1 := ta.Count(lo, hi)
			n2, err2 := tb.Count(lo, hi)
			if n1 != n2 || err1 != nil || err2 != nil {
				t.Fatalf("%s Count: %d %v / %d %v", what, n1, err1, n2, err2)
			}
			ca, cb := ta.NewCursor(lo, hi), tb.NewCursor(lo, hi)
			sameWalk(t, what+" forward", walk(ca, ca.First(), ca.Next, ca.Value), walk(cb, cb.First(), cb.Next, cb.Value), ca.Err(), cb.Err())
			sameWalk(t, what+" backward", walk(ca, ca.Last(), ca.Prev, ca.Value), walk(cb, cb.Last(), cb.Prev, cb.Value), ca.Err(), cb.Err())
			k := bks[r.Intn(len(bks))]
			sameWalk(t, what+" seek", walk(ca, ca.Seek(k), ca.Next, ca.Value), walk(cb, cb.Seek(k), cb.Next, cb.Value), ca.Err(), cb.Err())
			sameWalk(t, what+" seek reverse", walk(ca, ca.SeekReverse(k), ca.Prev, ca.Value), walk(cb, cb.SeekReverse(k), cb.Prev, cb.Value), ca.Err(), cb.Err())
			if ca.SeekExact(k) != cb.SeekExact(k) || !bytes.Equal(ca.Key(), cb.Key()) {
				t.Fatalf("%s SeekExact(%x) differs", what, k)
			}
			row := uint64(r.Intn(shardRows + 1))
			if ca.SeekRow(row) != cb.SeekRow(row) || !bytes.Equal(ca.Key(), cb.Key()) {
				t.Fatalf("%s SeekRow(%d) differs", what, row)
			}
			// a zig-zag walk and batches from a random start, both directions
			zigzag(t, what, r, ca, cb, ca.Seek(k), cb.Seek(k))
			var ok1, ok2 bool
			for _, rev := range []bool{false, true} {
				ok1, ok2 = ca.Seek(k), cb.Seek(k)
				for ok1 && ok2 {
					ka, va := make([][]byte, 7), make([][]byte, 7)
					kb, vb := make([][]byte, 7), make([][]byte, 7)
					n1, n2 := ca.NextBatch(ka, va, rev), cb.NextBatch(kb, vb, rev)
					// a compressed page ends a batch: compare row by row
					m := min(n1, n2)
					if m == 0 || fmt.Sprint(ka[:m], va[:m]) != fmt.Sprint(kb[:m], vb[:m]) {
						t.Fatalf("%s batch differs: %d / %d rows", what, n1, n2)
					}
					// continue both from the last row both read
					last := bytes.Clone(ka[m-1])
					ca.SeekExact(last)
					cb.SeekExact(last)
					if rev {
						ok1, ok2 = ca.Prev(), cb.Prev()
					} else {
						ok1, ok2 = ca.Next(), cb.Next()
					}
					if ok1 != ok2 || !bytes.Equal(ca.Key(), cb.Key()) {
						t.Fatalf("%s after a batch: %v %x / %v %x", what, ok1, ca.Key(), ok2, cb.Key())
					}
				}
			}
			ca.Close()
			cb.Close()
		}
		// the index: every entry in index-key order, merged across shards
		xa, _ := ta.Index("cat")
		xb, err := tb.Index("cat")
		if err != nil {
			t.Fatal(err)
		}
		if xa.Len() != xb.Len() {
			t.Fatalf("index Len %d / %d", xa.Len(), xb.Len())
		}
		iwalk := func(c *IndexCursor, ok bool, step func() bool) walked {
			var w walked
			for ; ok; ok = step() {
				w.keys = append(w.keys, string(c.IndexKey())+"|"+string(c.PrimaryKey()))
				w.vals = append(w.vals, string(c.Value()))
			}
			return w
		}
		cats := [][]byte{nil, []byte("c0"), []byte("c3"), []byte("c6"), []byte("c7"), []byte("c")}
		for _, lo := range cats {
			for _, hi := range cats {
				bl, bh := Incl(lo), Excl(hi)
				if lo == nil {
					bl = All
				}
				if hi == nil {
					bh = All
				}
				what := fmt.Sprintf("%s index [%q %q)", name, lo, hi)
				ia, ib := xa.NewCursor(bl, bh), xb.NewCursor(bl, bh)
				sameWalk(t, what+" forward", iwalk(ia, ia.First(), ia.Next), iwalk(ib, ib.First(), ib.Next), ia.Err(), ib.Err())
				sameWalk(t, what+" backward", iwalk(ia, ia.Last(), ia.Prev), iwalk(ib, ib.Last(), ib.Prev), ia.Err(), ib.Err())
				n1, _ := xa.Count(bl, bh)
				n2, err := xb.Count(bl, bh)
				c2, err2 := ib.Count()
				if n1 != n2 || n2 != c2 || err != nil || err2 != nil {
					t.Fatalf("%s Count %d / %d / %d", what, n1, n2, c2)
				}
				// direction changes in the merge
				zigzag(t, what, r, &ia.Cursor, &ib.Cursor, ia.Seek([]byte("c3")), ib.Seek([]byte("c3")))
				ia.Close()
				ib.Close()
			}
		}
		for _, c := range cats {
			pk1, v1, err1 := xa.Get(c)
			pk2, v2, err2 := xb.Get(c)
			if !bytes.Equal(pk1, pk2) || !bytes.Equal(v1, v2) || err1 != err2 {
				t.Fatalf("index Get(%q): %x %v / %x %v", c, pk1, err1, pk2, err2)
			}
			pa, pb := xa.Prefix(c), xb.Prefix(c)
			sameWalk(t, "prefix", iwalk(pa, pa.First(), pa.Next), iwalk(pb, pb.First(), pb.Next), pa.Err(), pb.Err())
		}
	}
	if _, err := NewMergeBuilder(b, nil); !errors.Is(err, ErrInvalid) {
		t.Fatalf("merge into a manifest: %v", err)
	}
}

func TestShardedDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir, man string)
		open   string // an error Open gives, "" for none
		read   string // an error reading key 2000 gives
	}{
		{"missing shard", func(t *testing.T, dir, man string) {
			os.Remove(filepath.Join(dir, "part-3.drydb"))
		}, "", "shard 3 (part-3.drydb)"},
		{"corrupt shard", func(t *testing.T, dir, man string) {
			p := filepath.Join(dir, "part-3.drydb")
			data, _ := os.ReadFile(p)
			data[len(data)-3] ^= 0xFF // the footer
			os.WriteFile(p, data, 0o644)
		}, "", "shard 3 (part-3.drydb)"},
		{"missing first shard", func(t *testing.T, dir, man string) {
			os.Remove(filepath.Join(dir, "part-0.drydb"))
		}, "shard 0 (part-0.drydb)", ""},
		{"manifest checksum", func(t *testing.T, dir, man string) {
			data, _ := os.ReadFile(man)
			i := bytes.LastIndex(data, []byte("part "))
			data[i+5] ^= 1
			os.WriteFile(man, data, 0o644)
		}, "checksum mismatch", ""},
		{"manifest truncated", func(t *testing.T, dir, man string) {
			data, _ := os.ReadFile(man)
			os.WriteFile(man, data[:len(data)-1], 0o644)
		}, "truncated", ""},
		{"manifest of another version", func(t *testing.T, dir, man string) {
			data, _ := os.ReadFile(man)
			os.WriteFile(man, bytes.Replace(data, []byte("drydb-shards 1 "), []byte("drydb-shards 2 "), 1), 0o644)
		}, "version 2", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _, man := shardFixture(t)
			tc.damage(t, dir, man)
			db, err := Open(man, nil)
			if tc.open != "" {
				if err == nil || !strings.Contains(err.Error(), tc.open) {
					t.Fatalf("Open: %v, want %q", err, tc.open)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			tbl, _ := db.Table("items")
			if _, err := tbl.Get(keyenc.EncodeInt64(3 * 100)); err != nil {
				t.Fatalf("a sound shard: %v", err)
			}
			_, err = tbl.Get(keyenc.EncodeInt64(3 * 2000))
			if err == nil || !strings.Contains(err.Error(), tc.read) {
				t.Fatalf("Get: %v, want %q", err, tc.read)
			}
			c := tbl.NewCursor(All, All)
			n := 0
			for ok := c.First(); ok; ok = c.Next() {
				n++
			}
			if c.Err() == nil || !strings.Contains(c.Err().Error(), tc.read) || n != 1501 {
				t.Fatalf("cursor: %d rows, %v", n, c.Err())
			}
			if err := db.Verify(); err == nil || !strings.Contains(err.Error(), tc.read) {
				t.Fatalf("Verify: %v", err)
			}
		})
	}
}

func TestShardedHash(t *testing.T) {
	dir := t.TempDir()
	all := make([]int, shardRows)
	for i := range all {
		all[i] = i
	}
	one := filepath.Join(dir, "one.drydb")
	shardBuild(t, one, all)
	const n = 3
	parts := make([][]int, n)
	for _, i := range all {
		s := ShardHash(keyenc.EncodeInt64(int64(3*i))) % n
		parts[s] = append(parts[s], i)
	}
	m := &Manifest{Tables: []ManifestTable{{Name: "items", Partition: PartitionHash}}}
	for s := range n {
		m.Shards = append(m.Shards, fmt.Sprintf("h%d.drydb", s))
		shardBuild(t, filepath.Join(dir, m.Shards[s]), parts[s])
		m.Tables[0].Parts = append(m.Tables[0].Parts, ManifestPart{Shard: s, Rows: uint64(len(parts[s]))})
	}
	man := filepath.Join(dir, "h.manifest")
	if err := WriteManifest(man, m); err != nil {
		t.Fatal(err)
	}
	a, b := openPair(t, one, man)
	if err := b.Verify(); err != nil {
		t.Fatal(err)
	}
	ta, _ := a.Table("items")
	tb, _ := b.Table("items")
	keys := boundKeys("items")
	for _, k := range keys {
		v1, err1 := ta.Get(k)
		v2, err2 := tb.Get(k)
		r1, _ := ta.Rank(k)
		r2, err := tb.Rank(k)
		if !bytes.Equal(v1, v2) || err1 != err2 || r1 != r2 || err != nil {
			t.Fatalf("Get/Rank(%x) differ", k)
		}
	}
	v2, f2 := make([][]byte, len(keys)), make([]bool, len(keys))
	if err := tb.GetMany(keys, v2, f2); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if v, _ := ta.Get(k); !bytes.Equal(v, v2[i]) || f2[i] != (v != nil) {
			t.Fatalf("GetMany(%x) differs", k)
		}
	}
	if n1, _ := ta.Count(Incl(keys[5]), Excl(keys[20])); true {
		if n2, err := tb.Count(Incl(keys[5]), Excl(keys[20])); n1 != n2 || err != nil {
			t.Fatalf("Count %d / %d %v", n1, n2, err)
		}
	}
	// cursors merge the slots in key order
	ca, cb := ta.NewCursor(Incl(keys[4]), All), tb.NewCursor(Incl(keys[4]), All)
	sameWalk(t, "hash forward", walk(ca, ca.First(), ca.Next, ca.Value), walk(cb, cb.First(), cb.Next, cb.Value), ca.Err(), cb.Err())
	sameWalk(t, "hash backward", walk(ca, ca.Last(), ca.Prev, ca.Value), walk(cb, cb.Last(), cb.Prev, cb.Value), ca.Err(), cb.Err())
	if _, _, err := tb.At(0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("At on a hash table: %v", err)
	}
}

func TestShardHashIsFNV1a(t *testing.T) {
	// the published FNV-1a 64 test vectors: other languages route with it
	for in, want := range map[string]uint64{"": 0xcbf29ce484222325, "a": 0xaf63dc4c8601ec8c, "foobar": 0x85944171f73967e8} {
		if got := ShardHash([]byte(in)); got != want {
			t.Errorf("ShardHash(%q) = %x, want %x", in, got, want)
		}
	}
}

// shardSource is shardFixture's directory and its one file, open.
func shardSource(t *testing.T) (string, *DB) {
	dir, one, _ := shardFixture(t)
	src, err := Open(one, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return dir, src
}

func TestBuildShards(t *testing.T) {
	dir, src := shardSource(t)
	for _, tc := range []struct {
		partition string
		n         int
	}{{"", 1}, {PartitionRange, 5}, {PartitionHash, 1}, {PartitionHash, 4}} {
		man := filepath.Join(dir, fmt.Sprintf("built-%s%d.manifest", tc.partition, tc.n))
		m, err := BuildShards(src, man, &ShardOptions{Shards: tc.n, Jobs: 2, MemoryBudget: 1 << 20, Partition: tc.partition})
		if err != nil {
			t.Fatal(err)
		}
		n, hash := tc.n, tc.partition == PartitionHash
		if len(m.Shards) != n || len(m.Tables) != 2 || len(m.Tables[0].Parts) != n || (m.Tables[1].Partition == PartitionHash) != hash {
			t.Fatalf("manifest: %+v", m)
		}
		db, err := Open(man, &Options{Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"items", "names"} {
			ta, _ := src.Table(name)
			tb, _ := db.Table(name)
			ca, cb := ta.NewCursor(All, All), tb.NewCursor(All, All)
			sameWalk(t, name, walk(ca, ca.First(), ca.Next, ca.Value), walk(cb, cb.First(), cb.Next, cb.Value), ca.Err(), cb.Err())
			xa, _ := ta.Index("cat")
			xb, _ := tb.Index("cat")
			ia, ib := xa.NewCursor(All, All), xb.NewCursor(All, All)
			sameWalk(t, name+" index", walk(&ia.Cursor, ia.First(), ia.Next, ia.Value), walk(&ib.Cursor, ib.First(), ib.Next, ib.Value), ia.Err(), ib.Err())
			if !hash {
				continue
			}
			// every key found where the one file has it (present and absent
			// keys around the test data's edges), counts and ranks agree,
			// row numbers are refused
			for _, k := range boundKeys(name) {
				v1, err1 := ta.Get(k)
				v2, err2 := tb.Get(k)
				r1, _ := ta.Rank(k)
				r2, err := tb.Rank(k)
				if !bytes.Equal(v1, v2) || err1 != err2 || r1 != r2 || err != nil {
					t.Fatalf("%s: Get/Rank(%x): %q %v %d / %q %v %d %v", name, k, v1, err1, r1, v2, err2, r2, err)
				}
			}
			ks := boundKeys(name)
			n1, _ := ta.Count(Incl(ks[4]), Excl(ks[20]))
			if n2, err := tb.Count(Incl(ks[4]), Excl(ks[20])); n1 != n2 || err != nil {
				t.Fatalf("%s: Count %d / %d %v", name, n1, n2, err)
			}
			if _, _, err := tb.At(0); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "hash-partitioned") {
				t.Fatalf("%s: At on a hash table: %v", name, err)
			}
		}
		db.Close()
	}
	// a hash manifest checks that the shards are listed in slot order
	hm, _ := BuildShards(src, filepath.Join(dir, "h.manifest"), &ShardOptions{Shards: 3, Partition: PartitionHash})
	swapped := []string{hm.Shards[1], hm.Shards[0], hm.Shards[2]}
	if _, err := HashManifest(dir, swapped); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "slot order") {
		t.Fatalf("hash shards out of order: %v", err)
	}
	if _, err := BuildShards(src, filepath.Join(dir, "x.manifest"), &ShardOptions{Shards: 2, Partition: "list"}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("unknown partition: %v", err)
	}
	if _, err := BuildShards(src, filepath.Join(dir, "x.manifest"), &ShardOptions{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("0 shards: %v", err)
	}
}

func TestShardGC(t *testing.T) {
	dir, src := shardSource(t)
	man := filepath.Join(dir, "gc.manifest")
	old, err := BuildShards(src, man, &ShardOptions{Shards: 3})
	if err != nil {
		t.Fatal(err)
	}
	reader, err := Open(man, nil) // a reader of the old version, every shard open
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	rt, _ := reader.Table("items")
	walkAll := func() int {
		c := rt.NewCursor(All, All)
		defer c.Close()
		n := 0
		for ok := c.First(); ok; ok = c.Next() {
			n++
		}
		return n
	}
	if n := walkAll(); n != shardRows { // (counts come from the manifest: a walk opens every shard)
		t.Fatal(n)
	}
	cur, err := BuildShards(src, man, &ShardOptions{Shards: 2, Partition: PartitionHash})
	if err != nil {
		t.Fatal(err)
	}
	// files gc must leave: another manifest's shard, a name that only looks
	// like a shard, and an unlisted shard of a build in progress (fresh)
	keep := []string{"other-0123abcd-00000.drydb", "gc-notes.drydb", "gc-0123abcd-0000x.drydb", "gc-fedcba98-00000.drydb"}
	for _, n := range keep {
		os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644)
	}
	exists := func(n string) bool { _, err := os.Stat(filepath.Join(dir, n)); return err == nil }
	// a young manifest: readers of the old version may not have refreshed
	if gone, err := ShardGC(man, time.Hour); len(gone) != 0 || err != nil {
		t.Fatalf("young manifest: removed %v, %v", gone, err)
	}
	past := time.Now().Add(-2 * time.Hour)
	for _, n := range append(append([]string{"gc.manifest"}, old.Shards...), append(cur.Shards, keep[:3]...)...) {
		if err := os.Chtimes(filepath.Join(dir, n), past, past); err != nil {
			t.Fatal(err)
		}
	}
	gone, err := ShardGC(man, time.Hour)
	if err != nil || fmt.Sprint(gone) != fmt.Sprint(old.Shards) {
		t.Fatalf("removed %v (%v), want %v", gone, err, old.Shards)
	}
	for _, n := range append(cur.Shards, keep...) {
		if !exists(n) {
			t.Fatalf("%s removed", n)
		}
	}
	// the new version reads; the old reader's shards stay readable (POSIX)
	db, err := Open(man, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if runtime.GOOS != "windows" {
		if n := walkAll(); n != shardRows {
			t.Fatal(n)
		}
		if _, err := rt.Get(keyenc.EncodeInt64(3 * 2999)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ShardGC(filepath.Join(dir, "none.manifest"), 0); err == nil {
		t.Fatal("gc of a missing manifest")
	}
}
