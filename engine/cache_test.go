package engine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/drydb/drydb/engine/keyenc"
)

// cacheDB builds an int64 table of n rows whose value is the key's 8 bytes
// repeated twice, compressed with comp, in 512-byte pages, and opens it
// with a cache of cacheBytes.
func cacheDB(t *testing.T, n int, comp Compression, cacheBytes int64) (*DB, *Table) {
	t.Helper()
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
	tb, err := b.Table("t", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: comp})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		k := int64Key(int64(i))
		tb.Append(k, append(append([]byte(nil), k...), k...))
	}
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenBytes(data, &Options{CacheBytes: cacheBytes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tbl, _ := db.Table("t")
	return db, tbl
}

func wantVal(i int) []byte {
	k := int64Key(int64(i))
	return append(append([]byte(nil), k...), k...)
}

// The compiler keeps only structs of at most four words in registers; a
// larger Value goes through the stack on every GetPinned return, which
// measured about 10 ns a call (store-forwarding stalls).
func TestValueIsFourWords(t *testing.T) {
	if s := unsafe.Sizeof(Value{}); s > 4*unsafe.Sizeof(uintptr(0)) {
		t.Fatalf("Value is %d bytes; keep it to four words", s)
	}
}

// Pinned values keep their bytes while other reads evict everything else,
// and past the last free slot reads go to transient pages, which count in
// Bytes until released and are freed once even when released twice.
func TestCachePinsSurviveEviction(t *testing.T) {
	const n = 20000
	for _, comp := range []Compression{{Kind: CompressS2}, {Kind: CompressZstd}} {
		t.Run(fmt.Sprint(comp.Kind), func(t *testing.T) {
			db, tbl := cacheDB(t, n, comp, 64*512) // the smallest cache: 64 slots
			slots := db.cache.nslots
			if tbl.Leaves() < uint64(4*slots) {
				t.Fatalf("%d leaves: too few to force evictions through %d slots", tbl.Leaves(), slots)
			}
			per := n / int(tbl.Leaves()) // rows per leaf, about
			// Pin slots+8 rows spread about one a leaf (some leaves may get
			// two): more pinned leaves than slots, so the last reads find
			// every slot pinned.
			type held struct {
				v Value
				i int
			}
			var hold []held
			for l := 0; l < slots+8; l++ {
				i := l * per
				v, err := tbl.GetPinned(int64Key(int64(i)))
				if err != nil {
					t.Fatal(err)
				}
				hold = append(hold, held{v, i})
			}
			st := db.CacheStats()
			if st.Bytes <= st.Capacity {
				t.Fatalf("%d pins over %d slots made no transient page: %+v", len(hold), slots, st)
			}
			// Unpinned reads of every other row: they can only use
			// transient pages while the pins hold, then evict freely.
			check := func(when string) {
				for _, h := range hold {
					if !bytes.Equal(h.v.Data, wantVal(h.i)) {
						t.Fatalf("%s: pinned value of row %d changed", when, h.i)
					}
				}
			}
			for i := 0; i < n; i += 7 {
				v, err := tbl.GetPinned(int64Key(int64(i)))
				if err != nil || !bytes.Equal(v.Data, wantVal(i)) {
					t.Fatalf("row %d: %v", i, err)
				}
				v.Release()
			}
			check("after reads through a full cache")
			// Release half the pins, read everything again: evictions now
			// happen, and the rest stay. A transient page released twice
			// (through a stale copy of its Value, against the rules) must
			// not be unmapped twice: the address may be mapped again.
			for j := 0; j < len(hold); j += 2 {
				c := hold[j].v
				hold[j].v.Release()
				hold[j].v.Release() // no-op: Release cleared the pin
				if c.pin.trans != nil {
					c.Release()
				}
			}
			kept := hold[:0]
			for j := 1; j < len(hold); j += 2 {
				kept = append(kept, hold[j])
			}
			hold = kept
			ev := db.CacheStats().Evictions
			for i := 0; i < n; i += 3 {
				v, err := tbl.GetPinned(int64Key(int64(i)))
				if err != nil || !bytes.Equal(v.Data, wantVal(i)) {
					t.Fatalf("row %d: %v", i, err)
				}
				v.Release()
			}
			check("after evictions")
			if db.CacheStats().Evictions == ev {
				t.Fatal("no evictions once slots were free")
			}
			for j := range hold {
				hold[j].v.Release()
			}
			if st := db.CacheStats(); st.Bytes > st.Capacity {
				t.Fatalf("transient pages outlive their release: %+v", st)
			}
			for i := 0; i < db.cache.nslots; i++ {
				if ch := db.cache.chunks[i/slotChunk].Load(); ch != nil {
					if p := ch[i%slotChunk].pins(); p != 0 {
						t.Fatalf("slot %d still has %d pins", i, p)
					}
				}
			}
		})
	}
}

// A cache hit allocates nothing (GetPinned and Release; Get copies).
func TestCacheHitZeroAllocs(t *testing.T) {
	_, tbl := cacheDB(t, 5000, Compression{Kind: CompressZstd}, 1<<20)
	k := int64Key(1234)
	if v, err := tbl.Get(k); err != nil || !bytes.Equal(v, wantVal(1234)) {
		t.Fatal(v, err)
	}
	if a := testing.AllocsPerRun(100, func() {
		v, _ := tbl.GetPinned(k)
		v.Release()
	}); a != 0 {
		t.Errorf("GetPinned+Release allocates %.1f times per call", a)
	}
}

func slotIndex(c *cache, s *slot) int {
	for i := range c.chunks {
		if ch := c.chunks[i].Load(); ch != nil {
			if d := uintptr(unsafe.Pointer(s)) - uintptr(unsafe.Pointer(&ch[0])); d < unsafe.Sizeof(*ch) {
				return i*slotChunk + int(d/unsafe.Sizeof(slot{}))
			}
		}
	}
	return -1
}

// A hint that names the wrong slot (left behind when its page's slot was
// reused by another page) is caught by the tag check: the read gets its
// own page, through the locked map, and the other slot is neither pinned
// nor credited with a hit.
func TestCacheStaleHint(t *testing.T) {
	const n = 5000
	db, tbl := cacheDB(t, n, Compression{Kind: CompressS2}, 1<<20)
	c := db.cache
	va, err := tbl.GetPinned(int64Key(0))
	if err != nil {
		t.Fatal(err)
	}
	vb, err := tbl.GetPinned(int64Key(n - 1))
	if err != nil {
		t.Fatal(err)
	}
	sa, sb := va.pin, vb.pin
	if sa == nil || sb == nil || sa == sb {
		t.Fatal("want two cached leaves")
	}
	va.Release()
	vb.Release()
	grp, fp := c.hintGroup(sa.tag.Load())
	for w := range grp { // every way names b's slot under a's fingerprint
		grp[w].Store(uint64(slotIndex(c, sb)+1)<<32 | uint64(fp))
	}
	hitsB := sb.pin.Load() >> 32
	for r := 0; r < 3; r++ {
		v, err := tbl.GetPinned(int64Key(0))
		if err != nil || !bytes.Equal(v.Data, wantVal(0)) {
			t.Fatalf("read through a stale hint: %x, %v", v.Data, err)
		}
		if v.pin != sa {
			t.Fatalf("read through a stale hint pinned slot %d, want %d", slotIndex(c, v.pin), slotIndex(c, sa))
		}
		v.Release()
	}
	if sb.pins() != 0 || sb.pin.Load()>>32 != hitsB {
		t.Fatalf("the hinted slot was pinned or credited: %d pins, %d hits (had %d)", sb.pins(), sb.pin.Load()>>32, hitsB)
	}
	if st := db.CacheStats(); st.Misses != 2 {
		t.Fatalf("stale hint caused a reload: %+v", st)
	}
}

// After a page is loaded every cached page can be found through its hint
// group (no page is left to the locked map) on the benchmark's shape.
func TestCacheHintsCoverResidentPages(t *testing.T) {
	for _, comp := range []Compression{{Kind: CompressS2}, {Kind: CompressZstd}} {
		db, tbl := cacheDB(t, 20000, comp, 1<<22)
		for i := 0; i < 20000; i += 5 {
			v, err := tbl.GetPinned(int64Key(int64(i)))
			if err != nil {
				t.Fatal(err)
			}
			v.Release()
		}
		c := db.cache
		pages, lost := 0, 0
		for i := 0; i < c.nslots; i++ {
			ch := c.chunks[i/slotChunk].Load()
			if ch == nil {
				continue
			}
			tag := ch[i%slotChunk].tag.Load()
			if tag == 0 {
				continue
			}
			pages++
			grp, fp := c.hintGroup(tag)
			found := false
			for w := range grp {
				e := grp[w].Load()
				found = found || uint32(e) == fp && int(e>>32)-1 == i
			}
			if !found {
				lost++
			}
		}
		// Four ways at half a page a group: a full group is a rare event,
		// so allow one, not a steady share.
		t.Logf("%v: %d pages, %d without a hint", comp.Kind, pages, lost)
		if pages < 100 || lost > 1 {
			t.Fatalf("%v: %d of %d cached pages have no hint", comp.Kind, lost, pages)
		}
	}
}

// flakyFilter fails decoding while fail is set.
type flakyFilter struct{ fail *atomic.Bool }

func (f flakyFilter) Encode(dst, src []byte) ([]byte, error) { return append(dst, src...), nil }
func (f flakyFilter) Decode(dst, src []byte) ([]byte, error) {
	if f.fail.Load() {
		return nil, errors.New("injected decode failure")
	}
	return append(dst, src...), nil
}

// A page whose first decode failed and that then loaded into another slot
// keeps its map entry when the failed slot is evicted: a read through the
// locked map (no hints) still hits it instead of decoding it again.
func TestCacheEvictFailedSlotKeepsPage(t *testing.T) {
	var fail atomic.Bool
	RegisterFilter("test-flaky", flakyFilter{&fail})
	const n = 20000
	db, tbl := cacheDB(t, n, Compression{Kind: CompressS2, Filter: "test-flaky"}, 64*512)
	c := db.cache
	key := int64Key(n / 2)
	fail.Store(true)
	if _, err := tbl.GetPinned(key); err == nil {
		t.Fatal("injected failure did not fail the read")
	}
	fail.Store(false)
	v, err := tbl.GetPinned(key)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	home := v.pin
	// Read every other leaf: the failed slot is evicted on the way, while
	// the pin keeps the page's slot.
	for i := 0; i < n; i += 5 {
		w, err := tbl.GetPinned(int64Key(int64(i)))
		if err != nil {
			t.Fatal(err)
		}
		w.Release()
	}
	if db.CacheStats().Evictions < uint64(c.nslots) {
		t.Fatal("too few evictions to have reused every slot")
	}
	for i := range c.hints {
		c.hints[i].Store(0)
	}
	misses := db.CacheStats().Misses
	w, err := tbl.GetPinned(key)
	if err != nil || !bytes.Equal(w.Data, wantVal(n/2)) {
		t.Fatal(err)
	}
	got := w.pin
	w.Release()
	if got != home || db.CacheStats().Misses != misses {
		t.Fatalf("the page was decoded again (misses %d -> %d)", misses, db.CacheStats().Misses)
	}
}

// A fault while a block is decoded into the cache (the file truncated
// underneath) is an error for that read and for the next read of the same
// block: the slot is settled, not left loading (a second read used to wait
// forever).
func TestCacheFaultWhileDecodingSettles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "z.drydb")
	b, _ := NewBuilder(&BuilderOptions{PageSize: 65536})
	tb, _ := b.Table("z", &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}, Compression: Compression{Kind: CompressZstd}})
	// one leaf block: the root, so a get goes straight to the decode
	for i := int64(0); i < 100; i++ {
		tb.Append(keyenc.EncodeInt64(i), []byte(fmt.Sprintf("value %d of the table", i)))
	}
	if _, err := b.BuildToFile(path); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, _ := db.Table("z")
	if tbl.Depth() != 1 {
		t.Fatalf("depth %d, want a single leaf", tbl.Depth())
	}
	if err := os.Truncate(path, 65536); err != nil { // the header page only
		t.Fatal(err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for i := 0; i < 2; i++ {
		done := make(chan error, 1)
		go func() { // recovering as the C API's exports do
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if r := recover(); r != nil {
					done <- faultError(r)
				}
			}()
			_, err := tbl.Get(keyenc.EncodeInt64(99))
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("read %d: %v, want corrupt", i+1, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("read %d of a block that faulted while decoding hangs", i+1)
		}
	}
}

// Many goroutines on a small cache: answers stay right, loads happen once
// per miss, and pinned pages survive eviction.
func TestCacheConcurrent(t *testing.T) {
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
	tb, _ := b.Table("t", &TableOptions{Compression: Compression{Kind: CompressS2}})
	for i := 0; i < 20000; i++ {
		tb.Append(int64Key(int64(i)), int64Key(int64(i*3)))
	}
	data, _, _ := b.BuildToBytes()
	db, err := OpenBytes(data, &Options{CacheBytes: 64 * 512})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, _ := db.Table("t")
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func(g int) {
			for i := 0; i < 20000; i++ {
				k := int64((i*7919 + g*13) % 20000)
				v, err := tbl.GetPinned(int64Key(k))
				if err != nil || !bytes.Equal(v.Data, int64Key(k*3)) {
					done <- errors.New("wrong value under concurrency")
					return
				}
				v.Release()
			}
			c := tbl.NewCursor(All, All)
			n := 0
			for ok := c.First(); ok; ok = c.Next() {
				if !bytes.Equal(c.Value(), int64Key(int64(n*3))) {
					done <- errors.New("wrong scan value")
					return
				}
				n++
			}
			c.Close()
			done <- c.Err()
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil && !errors.Is(err, ErrClosed) {
			t.Fatal(err)
		}
	}
	st := db.CacheStats()
	if st.Misses == 0 || st.Evictions == 0 || st.Bytes > st.Capacity {
		t.Fatalf("cache stats %+v", st)
	}
	t.Logf("cache: %+v", st)
}

// TestCacheStatsExact: every lookup of a compressed leaf is one hit or one
// miss, through evictions too (one goroutine, so the count is exact).
func TestCacheStatsExact(t *testing.T) {
	b, _ := NewBuilder(&BuilderOptions{PageSize: 512})
	tb, _ := b.Table("t", &TableOptions{Compression: Compression{Kind: CompressS2}})
	for i := 0; i < 5000; i++ {
		tb.Append(int64Key(int64(i)), int64Key(int64(i*3)))
	}
	data, _, _ := b.BuildToBytes()
	for _, cacheBytes := range []int64{64 * 512, 1 << 20} {
		db, err := OpenBytes(data, &Options{CacheBytes: cacheBytes})
		if err != nil {
			t.Fatal(err)
		}
		tbl, _ := db.Table("t")
		const gets = 30000
		for i := 0; i < gets; i++ {
			v, err := tbl.GetPinned(int64Key(int64(i * 7919 % 5000)))
			if err != nil {
				t.Fatal(err)
			}
			v.Release()
		}
		st := db.CacheStats()
		if st.Hits+st.Misses != gets || st.Misses == 0 || cacheBytes > 64*512 && st.Hits == 0 {
			t.Fatalf("cache of %d bytes: %+v: hits + misses != %d gets", cacheBytes, st, gets)
		}
		db.Close()
	}
}

// A closed cache that used few slots keeps its mapping for the next cache of
// its size, its slot words zeroed (its hints, left as they were, then name
// empty slots), and every answer of the next one is right. One that used
// many is unmapped.
func TestCachePoolRecycles(t *testing.T) {
	zero := func(b []byte) bool {
		for _, x := range b {
			if x != 0 {
				return false
			}
		}
		return true
	}
	const n = 3000
	const cacheBytes = 512 * 200 // 200 slots of 512 bytes
	cachePool.mu.Lock()
	cachePool.maps = [poolMaps]keptMap{} // a clean pool
	cachePool.mu.Unlock()
	db, tbl := cacheDB(t, n, Compression{Kind: CompressZstd}, cacheBytes)
	for i := 0; i < n; i += 997 { // a few leaves: a few slots
		if v, err := tbl.Get(int64Key(int64(i))); err != nil || !bytes.Equal(v, wantVal(i)) {
			t.Fatalf("get %d: %x, %v", i, v, err)
		}
	}
	c := db.cache
	if c.reach == 0 || c.reach > poolSlots {
		t.Fatalf("reach %d", c.reach)
	}
	all := c.all
	db.Close()
	if cachePool.maps[0].mem == nil || &cachePool.maps[0].mem[0] != &all[0] {
		t.Fatal("the mapping was not kept")
	}
	db2, tbl2 := cacheDB(t, n, Compression{Kind: CompressZstd}, cacheBytes)
	c2 := db2.cache
	if &c2.all[0] != &all[0] || cachePool.maps[0].mem != nil {
		t.Fatal("the kept mapping was not reused")
	}
	if !zero(c2.hintMem[len(c2.hints)*8:]) {
		t.Fatal("a reused mapping's slot words are not zero")
	}
	for i := 0; i < n; i++ {
		if v, err := tbl2.Get(int64Key(int64(i))); err != nil || !bytes.Equal(v, wantVal(i)) {
			t.Fatalf("get %d after reuse: %x, %v", i, v, err)
		}
	}
	if st := db2.CacheStats(); st.Misses == 0 || c2.reach <= poolSlots {
		t.Fatalf("stats %+v, reach %d", st, c2.reach)
	}
	db2.Close() // used every slot: unmapped, not kept
	if cachePool.maps[0].mem != nil {
		t.Fatal("a cache that used many slots was kept")
	}
}

// A kept mapping goes only to a cache of its size and page size: the two fix
// the layout its stale hints were written for.
func TestCachePoolMatchesLayout(t *testing.T) {
	saved := cachePool.maps
	defer func() { cachePool.maps = saved }()
	mem := make([]byte, 4096)
	cachePool.maps = [poolMaps]keptMap{{mem, 512}}
	if cachePool.take(4096, 1024) != nil || cachePool.take(8192, 512) != nil {
		t.Fatal("a kept mapping went to a cache of another layout")
	}
	if m := cachePool.take(4096, 512); m == nil || &m[0] != &mem[0] || cachePool.maps[0].mem != nil {
		t.Fatal("the kept mapping was not handed out")
	}
}
