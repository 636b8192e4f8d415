package engine

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/drydb/drydb/internal/osfile"
)

// cache holds decoded leaf pages of compressed tables. Its memory is one
// anonymous mapping outside the Go heap, cut into page-sized slots, because
// the C ABI hands out pointers into decoded pages and C may not hold
// pointers into Go memory. The size is bounded: capacity = CacheBytes /
// page size slots.
//
// Lookups (the hot path) take one shard's read lock and pin the slot; a
// pinned slot is never evicted. Misses are serialised by missMu only while a
// slot is chosen and the key inserted as "loading"; the block is decoded
// outside every lock, and concurrent readers of a loading page wait for it,
// so each page is decoded once. Eviction is CLOCK (a referenced bit per slot
// gives recently used pages a second chance), which resists scans better
// than LRU and costs the hit path no write when the bit is already set.
//
// When every slot is pinned, a page is decoded into a transient mapping of
// its own, held by a slot of its own outside the array, and unmapped when
// released.
//
// A pin is a *slot (see node and Value): releasing one is a single atomic
// add on the slot, with no lookup through the tree, DB or cache.
type cache struct {
	all []byte // the one mapping: mem, then hintMem
	mem []byte // the slots' pages
	ps  int
	// slots come in chunks made as the clock hand first reaches them, so
	// that opening a file costs nothing per slot (a 64 MiB cache of 4 KiB
	// pages has 16,384): the hand starts at slot 0 and moves on, so a chunk
	// not made yet holds only free slots. See slot and slotAt.
	chunks []atomic.Pointer[[slotChunk]slot]
	nslots int
	shards [cacheShards]cacheShard
	missMu sync.Mutex
	// hints maps a hash of the packed key to a slot so that hits take no
	// lock: pin the slot, then check its tag. Hints may be stale or
	// collide; the locked map stays the source of truth. See hintGroup.
	// They live in an anonymous mapping (hintMem): zeroed by the kernel
	// page by page as they are touched, not at open, and not scanned by
	// the collector.
	hints     []atomic.Uint64
	hintMem   []byte // a part of all
	hintShift uint
	// words holds each slot's pin, tag and ref words, in the same mapping
	// as the hints (after them): the C library takes cache hits of
	// drydb_get without entering Go (capi/fast.c, cache_leaf) and must
	// pin, check and mark slots exactly as get does here, so these words
	// may not live in the Go heap. See slotWords.
	words   []slotWords
	oldHits atomic.Uint64 // hits of slots since evicted
	hand    int
	reach   int // slots the hand has handed out: 0..reach-1 (missMu)
	freed   atomic.Bool

	transPages atomic.Int64 // transient pages not yet released

	misses, evictions atomic.Uint64
}

const cacheShards = 32

type cacheShard struct {
	mu sync.RWMutex
	m  map[cacheKey]int32
	_  [32]byte // keep shards on separate cache lines
}

type cacheKey struct {
	t   *tree
	off uint64
}

// slotWords are the words of a slot that readers outside Go touch too. C
// mirrors this struct (struct drydb__slot_words in capi/fast.h; a test
// checks the offsets).
type slotWords struct {
	// pin packs two counters so that a hit costs one atomic add: the low
	// 32 bits are the pin count (an int32, offset by evicting while the
	// slot changes hands), the high 32 bits the pins taken since the slot
	// was loaded, which are its hits (folded into oldHits before they wrap
	// and when the slot is evicted; a C reader that would make them wrap
	// backs off and lets Go take the hit).
	pin atomic.Uint64
	// tag is the packed key of the page, set only once it is decoded
	// without error (so a matching tag means a readable page) and cleared
	// when the slot is claimed for eviction; 0 = none.
	tag atomic.Uint64
	// ref is CLOCK's referenced bit (0 or 1).
	ref atomic.Uint64
}

type slot struct {
	*slotWords // nil only for a transient page's slot
	key        cacheKey
	used       bool
	ready      chan struct{} // closed when loaded; nil once settled
	err        error
	// trans is set only on the slot of a transient page; it lives outside
	// the array and is never shared, so unpin frees the page instead.
	trans *transient
}

type transient struct {
	c     *cache
	mem   []byte
	freed atomic.Bool // a second Release must not unmap a reused address
}

func newCache(bytes int64, pageSize int) (*cache, error) {
	n := bytes / int64(pageSize)
	if n < 64 {
		n = 64
	}
	if n > 1<<30 {
		return nil, fmt.Errorf("%w: cache of %d bytes", ErrInvalid, bytes)
	}
	hn := 1
	for hn < 8*int(n) {
		hn <<= 1
	}
	wsize := 0
	if !wordsInGoHeap {
		wsize = int(unsafe.Sizeof(slotWords{}))
	}
	// The pages, then the hints and words, in one mapping: opening and
	// closing a database with a compressed table then maps and unmaps
	// once (an unmap costs every core a TLB flush), not twice. The pages
	// come first, so they stay aligned to the page size.
	pages := int(n) * pageSize
	size := pages + hn*8 + int(n)*wsize
	all := cachePool.take(size, pageSize)
	pooled := all != nil
	if !pooled {
		var err error
		if all, err = osfile.Alloc(size); err != nil {
			return nil, fmt.Errorf("drydb: allocating a page cache of %d bytes: %w", n*int64(pageSize), err)
		}
	}
	// A small cache's hints and words are written a byte a page now.
	// Their first accesses are reads (a hint group, a slot's words) then
	// writes: a fresh anonymous page read first maps the shared zero page,
	// and the write after it replaces that mapping, which flushes the TLB
	// of every core the process runs on (an interprocessor interrupt
	// each): 9% of an open + first get of a compressed table of 10,000
	// rows. Written first, a page is allocated once, with no flush. A
	// large cache's (64 MiB: 1.4 MB of hints and words) would cost far
	// more pages to allocate than a first get touches. (The pages' part
	// is written first by the decoder.)
	if !pooled && len(all)-pages <= 32<<12 {
		for o := pages; o < len(all); o += 4096 {
			all[o] = 0
		}
	}
	c := &cache{all: all, mem: all[:pages:pages], hintMem: all[pages:], ps: pageSize, nslots: int(n),
		chunks: make([]atomic.Pointer[[slotChunk]slot], (n+slotChunk-1)/slotChunk)}
	c.hints = unsafe.Slice((*atomic.Uint64)(unsafe.Pointer(unsafe.SliceData(c.hintMem))), hn)
	if wordsInGoHeap {
		c.words = make([]slotWords, n)
	} else {
		c.words = unsafe.Slice((*slotWords)(unsafe.Pointer(&c.hintMem[hn*8])), n)
	}
	c.hintShift = uint(64 - bits.TrailingZeros(uint(hn)))
	return c, nil
}

const slotChunk = 64

// slot returns slot i. A map entry names only slots that were loaded; a
// hint may name one whose chunk is not made, which a cache that had this
// mapping before loaded (cachePool): such a slot reads as noSlot, empty
// (tag 0, which no page has).
func (c *cache) slot(i int32) *slot {
	if ch := c.chunks[i/slotChunk].Load(); ch != nil {
		return &ch[i%slotChunk]
	}
	return &noSlot
}

var noSlot = slot{slotWords: new(slotWords)}

// slotAt returns slot i, making its chunk first if needed (missMu held).
func (c *cache) slotAt(i int32) *slot {
	ch := c.chunks[i/slotChunk].Load()
	if ch == nil {
		ch = new([slotChunk]slot)
		base := int(i) / slotChunk * slotChunk
		for k := range ch {
			if base+k < c.nslots {
				ch[k].slotWords = &c.words[base+k]
			}
		}
		c.chunks[i/slotChunk].Store(ch)
	}
	return &ch[i%slotChunk]
}

func (c *cache) shard(k cacheKey) *cacheShard {
	h := (k.off/64)*0x9E3779B97F4A7C15 ^ uint64(uintptr(unsafePointer(k.t)))
	return &c.shards[(h>>32)%cacheShards]
}

func (c *cache) slotMem(i int32) []byte {
	o := int(i) * c.ps
	return c.mem[o : o+c.ps : o+c.ps]
}

// evicting is added to a slot's pin count while it changes hands: readers
// that pin it meanwhile see a negative count and back off.
const evicting = -1 << 30

// evictingWord is a pin word holding evicting, with no hits.
var evictingWord = uint64(uint32(int32(evictingPins)))

var evictingPins = evicting

// hitPin, added to a slot's pin word, takes a pin and counts a hit.
const hitPin = 1<<32 | 1

func (s *slot) pins() int32 { return int32(uint32(s.pin.Load())) }

// take pins the slot and counts a hit; false (and nothing taken) when the
// slot is being evicted.
func (c *cache) take(s *slot) bool {
	v := s.pin.Add(hitPin)
	if int32(uint32(v)) <= 0 {
		s.pin.Add(-hitPin & (1<<64 - 1))
		return false
	}
	if v >= 1<<63 { // the hit count reached 2^31: move it to oldHits
		for v >= 1<<63 {
			if s.pin.CompareAndSwap(v, v-1<<63) {
				c.oldHits.Add(1 << 31)
				break
			}
			v = s.pin.Load()
		}
	}
	return true
}

// claim marks an unpinned slot as evicting (pins taken from then on back
// off) and moves its hits to oldHits.
func (c *cache) claim(s *slot) bool {
	v := s.pin.Load()
	if uint32(v) != 0 || !s.pin.CompareAndSwap(v, evictingWord) {
		return false
	}
	c.oldHits.Add(v >> 32)
	return true
}

func packTag(t *tree, off uint64) uint64 { return uint64(t.cacheID)<<48 | off }

// Hints come in groups of hintWays entries (32 bytes, inside one cache
// line). An entry is (slot index+1)<<32 | fingerprint, the fingerprint
// being 32 other bits of the tag's hash (never 0), so a probe compares
// entries without touching the slots of other pages, and only the one
// whose fingerprint matches is checked against its slot's tag. With two
// buckets a page per ~16 found both taken and took the locked map on every
// hit; with four ways and 8 entries a slot (half a page a group on
// average) a full group is rare.
const hintWays = 4

// hintGroup returns the hint group of a tag and the tag's fingerprint.
func (c *cache) hintGroup(tag uint64) (*[hintWays]atomic.Uint64, uint32) {
	h := tag * HintMul
	g := (h >> c.hintShift) &^ (hintWays - 1)
	return (*[hintWays]atomic.Uint64)(c.hints[g : g+hintWays]), uint32(h>>16) | 1
}

// setHint records slot i, just loaded with tag. It takes an entry that
// already names slot i or is empty, else one that no longer describes its
// slot (the slot was evicted or holds a page whose fingerprint differs),
// else the entry picked by the fingerprint. Loaders of the same group
// race through compare-and-swap; losing only costs a hint.
func (c *cache) setHint(tag uint64, i int32) {
	grp, fp := c.hintGroup(tag)
	want := uint64(i+1)<<32 | uint64(fp)
	for {
		pick := -1
		for w := range grp {
			e := grp[w].Load()
			if e == 0 || int32(e>>32) == i+1 {
				pick = w
				break
			}
			if pick < 0 {
				other := c.slot(int32(e>>32) - 1).tag.Load()
				if other == 0 || c.fingerprint(other) != uint32(e) {
					pick = w
				}
			}
		}
		if pick < 0 {
			pick = int(fp>>1) % hintWays
		}
		old := grp[pick].Load()
		if grp[pick].CompareAndSwap(old, want) {
			return
		}
	}
}

func (c *cache) fingerprint(tag uint64) uint32 {
	_, fp := c.hintGroup(tag)
	return fp
}

// get returns the decoded leaf at block offset off of tree t, pinned.
func (c *cache) get(t *tree, off uint64) (node, error) {
	tag := packTag(t, off)
	grp, fp := c.hintGroup(tag)
	for w := range grp {
		e := grp[w].Load()
		if uint32(e) != fp {
			continue
		}
		j := int32(e>>32) - 1
		s := c.slot(j)
		// The tag is checked before the pin (a hint pointing elsewhere
		// costs no atomic add) and again after it: between the two the
		// slot may have been evicted and reloaded with another page; once
		// pinned it cannot be.
		if s.tag.Load() == tag && c.take(s) {
			if s.tag.Load() == tag {
				if s.ref.Load() == 0 {
					s.ref.Store(1)
				}
				return node{p: c.slotMem(j), pin: s}, nil
			}
			s.pin.Add(-hitPin & (1<<64 - 1)) // not this page after all: no hit
		}
	}
	k := cacheKey{t, off}
	sh := c.shard(k)
	sh.mu.RLock()
	i, ok := sh.m[k]
	if ok {
		s := c.slot(i)
		s.pin.Add(hitPin) // mapped, so not being evicted (that takes sh.mu)
		sh.mu.RUnlock()
		if s.ref.Load() == 0 {
			s.ref.Store(1)
		}
		if ch := s.ready; ch != nil {
			<-ch
		}
		if s.err != nil {
			err := s.err
			s.unpin()
			return node{}, err
		}
		return node{p: c.slotMem(i), pin: s}, nil
	}
	sh.mu.RUnlock()
	return c.load(t, k, sh)
}

func (c *cache) load(t *tree, k cacheKey, sh *cacheShard) (node, error) {
	c.missMu.Lock()
	sh.mu.RLock()
	_, ok := sh.m[k]
	sh.mu.RUnlock()
	if ok { // someone loaded it meanwhile
		c.missMu.Unlock()
		return c.get(t, k.off)
	}
	c.misses.Add(1)
	i := c.victim()
	if i < 0 {
		c.missMu.Unlock()
		return c.loadTransient(t, k.off)
	}
	s := c.slot(i) // victim made it
	s.key, s.used, s.err = k, true, nil
	s.ready = make(chan struct{})
	s.ref.Store(1)
	tag := packTag(t, k.off)
	// Hand over: our pin, plus any readers backing off. Adding 1-evicting to
	// the low half carries one into the high half; the -1<<32 undoes it.
	handOver := int64(1-evicting) - 1<<32
	s.pin.Add(uint64(handOver))
	sh.mu.Lock()
	if sh.m == nil {
		sh.m = map[cacheKey]int32{} // made when first needed: an open makes none
	}
	sh.m[k] = i
	sh.mu.Unlock()
	c.missMu.Unlock()

	p, err := c.decode(t, k.off, c.slotMem(i))
	s.err = err
	if err == nil {
		s.tag.Store(tag) // after the page's bytes: see slot.tag
		c.setHint(tag, i)
	}
	close(s.ready)
	if err != nil {
		// Forget the failed page so that a later read tries again.
		sh.mu.Lock()
		delete(sh.m, k)
		sh.mu.Unlock()
		s.unpin()
		return node{}, err
	}
	return node{p: p, pin: s}, nil
}

// decode decodes tree t's leaf block at byte offset off into dst. A block
// lies in its tree's region. Any panic (a fault of a file truncated
// underneath, or a bug) becomes an error here, so that load always settles
// its slot: a slot left loading would block every later reader of the page.
func (c *cache) decode(t *tree, off uint64, dst []byte) (p []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, faultError(r)
		}
	}()
	lo, hi := t.desc.FirstPage<<t.db.pshift, t.desc.LastPage<<t.db.pshift
	if off < lo || off >= hi {
		return nil, corruptAt(int64(off), "%s: leaf block offset outside the table's region", t.name)
	}
	p, err = t.codec.decode(dst, t.db.data[off:hi], c.ps, int64(off))
	if err != nil {
		return nil, err
	}
	if r := checkNode(p, 0, t.width(), t.ovfArea()); r != "" {
		return nil, corruptAt(int64(off), "%s: leaf block: %s", t.name, r)
	}
	return p, nil
}

// victim picks a free or evictable slot (missMu held), or -1 when every
// slot is pinned.
func (c *cache) victim() int32 {
	n := c.nslots
	for step := 0; step < 2*n+1; step++ {
		i := int32(c.hand)
		c.hand = (c.hand + 1) % n
		s := c.slotAt(i)
		if !s.used {
			if c.claim(s) {
				c.reach = max(c.reach, int(i)+1)
				return i
			}
			continue
		}
		if s.pins() != 0 {
			continue
		}
		if s.ref.Load() != 0 {
			s.ref.Store(0)
			continue
		}
		sh := c.shard(s.key)
		sh.mu.Lock()
		// A pin taken from here on (locked or lock-free) sees the evicting
		// count and backs off; one taken before makes the swap fail.
		if !c.claim(s) {
			sh.mu.Unlock()
			continue
		}
		s.tag.Store(0)
		// A slot whose decode failed kept its key but left the map; the
		// page may since live in another slot, whose entry must stay.
		if j, ok := sh.m[s.key]; ok && j == i {
			delete(sh.m, s.key)
		}
		sh.mu.Unlock()
		c.evictions.Add(1)
		s.used = false
		return i
	}
	return -1
}

// loadTransient decodes a page into a mapping of its own, for a read that
// finds every slot pinned. Its slot is allocated here: this path already
// makes two system calls, and hits never come here.
func (c *cache) loadTransient(t *tree, off uint64) (node, error) {
	mem, err := osfile.Alloc(c.ps)
	if err != nil {
		return node{}, fmt.Errorf("drydb: allocating a page: %w", err)
	}
	p, err := c.decode(t, off, mem)
	if err != nil {
		osfile.Free(mem)
		return node{}, err
	}
	c.transPages.Add(1)
	return node{p: p, pin: &slot{trans: &transient{c: c, mem: mem}}}, nil
}

// unpin releases one pin of the slot.
func (s *slot) unpin() {
	if s.trans != nil {
		s.trans.release()
		return
	}
	s.pin.Add(1<<64 - 1) // one pin less
}

func (tp *transient) release() {
	if tp.freed.CompareAndSwap(false, true) {
		osfile.Free(tp.mem)
		tp.c.transPages.Add(-1)
	}
}

func (c *cache) stats() CacheStats {
	var st CacheStats
	st.Hits = c.oldHits.Load()
	c.missMu.Lock()
	for i := range c.chunks {
		if ch := c.chunks[i].Load(); ch != nil {
			for j := range ch {
				if ch[j].slotWords == nil { // past the last slot
					break
				}
				st.Hits += ch[j].pin.Load() >> 32
				if ch[j].used {
					st.Bytes += uint64(c.ps)
				}
			}
		}
	}
	c.missMu.Unlock()
	st.Misses = c.misses.Load()
	st.Evictions = c.evictions.Load()
	st.Bytes += uint64(c.transPages.Load()) * uint64(c.ps)
	st.Capacity = uint64(c.nslots * c.ps)
	return st
}

func (c *cache) free() {
	if c.freed.CompareAndSwap(false, true) && !cachePool.keep(c) {
		osfile.Free(c.all)
	}
}

// cachePool keeps the mappings of a few closed caches that used few slots,
// for the next cache of the same size: a program that opens a compressed
// file, reads a little and closes it (a command, a request handler) would
// otherwise map, fault in and unmap the cache every time, and the unmap
// interrupts every core the process ran on to flush its TLB (with the page
// faults, 30% of an open + first get + close of a compressed table of
// 10,000 rows). A kept mapping is handed out with the words of the slots
// used zeroed: its hints, which name only those slots, then name empty
// ones (tag 0) and are hints of no page, as an evicted page's are; its
// slots' pages are stale, and no reader reads a slot before a load writes
// it. What the pool keeps resident is bounded: at most poolMaps mappings,
// each of a cache that used at most poolSlots slots (about 1.5 MB at 4 KiB
// pages in all).
var cachePool mapPool

type mapPool struct {
	mu   sync.Mutex
	maps [poolMaps]keptMap
}

// keptMap is a kept mapping and its cache's page size: the two fix the
// cache's layout (slots, hints, words), which a reused mapping's stale
// hints must match.
type keptMap struct {
	mem []byte
	ps  int
}

const (
	poolMaps  = 4
	poolSlots = 64
)

// take returns a kept mapping of a cache of size bytes and page size ps,
// or nil.
func (p *mapPool) take(size, ps int) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, m := range p.maps {
		if len(m.mem) == size && m.ps == ps {
			p.maps[i] = keptMap{}
			return m.mem
		}
	}
	return nil
}

// keep keeps c's mapping, its slot words zeroed, if c used few slots and
// there is room. c is closed: no reader of its database runs (the C
// library's have drained; Go's may not read after Close).
func (p *mapPool) keep(c *cache) bool {
	c.missMu.Lock()
	reach := c.reach
	c.missMu.Unlock()
	if reach > poolSlots {
		return false
	}
	clear(c.words[:reach]) // (in the Go heap under -race: the next cache has its own)
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, m := range p.maps {
		if m.mem == nil {
			p.maps[i] = keptMap{c.all, c.ps}
			return true
		}
	}
	return false
}
