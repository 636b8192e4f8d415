package engine

import (
	"os"
	"regexp"
	"strconv"
	"testing"
	"unsafe"

	f "github.com/drydb/drydb/engine/internal/format"
)

// TestFastHeaderAgrees checks the page layout constants that the C lookup
// fast path (capi/fast.h) reads pages with against the format package.
func TestFastHeaderAgrees(t *testing.T) {
	src, err := os.ReadFile("../capi/fast.h")
	if err != nil {
		t.Skip("capi/fast.h not found:", err)
	}
	want := map[string]int{
		"DRYDB__PAGE_HDR": f.PageHeaderSize, "DRYDB__PG_LEVEL": f.PgLevel, "DRYDB__PG_N": f.PgN,
		"DRYDB__PG_PREV": f.PgPrev, "DRYDB__PG_NEXT": f.PgNext,
		"DRYDB__LEAF_HDR": f.LeafEntryHeader, "DRYDB__LEAF8_HDR": f.Leaf8EntryHeader,
		"DRYDB__BRANCH_HDR": f.BranchEntryHdr, "DRYDB__OVERFLOW": f.OverflowFlag,
		"DRYDB__PG_TYPE": f.PgType, "DRYDB__PG_SCALE": f.PgScale,
		"DRYDB__LEAF8_SEQ": f.Leaf8Seq, "DRYDB__LEAF8_FIXED": f.Leaf8Fixed,
		"DRYDB__PG_HEADS": f.PgHeads, "DRYDB__HEADS_HDR": f.HeadsHeader, "DRYDB__HEAD_SIZE": f.HeadSize,
	}
	re := regexp.MustCompile(`(?m)^#define (DRYDB__\w+)\s+(0x[0-9a-fA-F]+|\d+)`)
	got := map[string]int{}
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		v, _ := strconv.ParseInt(m[2], 0, 64)
		got[m[1]] = int(v)
	}
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("capi/fast.h %s = %d (present %v), format says %d", name, g, ok, w)
		}
	}
	// The cache's words and hints, which C reads for cache hits.
	cache := map[string]uint64{
		"DRYDB__HINT_MUL": HintMul, "DRYDB__HINT_WAYS": HintWays,
		"DRYDB__SLOT_WORDS": uint64(unsafe.Sizeof(slotWords{})),
	}
	sameDefines(t, "capi/fast.h", string(src), cache)
	// The hash index's constants (capi/hash.h; its hash function is
	// checked against tests/vectors/hash.json by both languages).
	hsrc, err := os.ReadFile("../capi/hash.h")
	if err != nil {
		t.Fatal(err)
	}
	sameDefines(t, "capi/hash.h", string(hsrc), map[string]uint64{"DRYDB__HASH_HDR_SLOTS": f.HashHeaderSlots})
	var w slotWords
	if unsafe.Offsetof(w.pin) != 0 || unsafe.Offsetof(w.tag) != 8 || unsafe.Offsetof(w.ref) != 16 {
		t.Errorf("slotWords is not {pin, tag, ref} as struct drydb__slot_words says")
	}
}

// sameDefines checks that header src (named name) #defines each of want
// with the engine's value.
func sameDefines(t *testing.T, name, src string, want map[string]uint64) {
	t.Helper()
	for _, m := range regexp.MustCompile(`(?m)^#define (DRYDB__\w+)\s+(0x[0-9a-fA-F]+|\d+)`).FindAllStringSubmatch(src, -1) {
		if w, ok := want[m[1]]; ok {
			if g, _ := strconv.ParseUint(m[2], 0, 64); g != w {
				t.Errorf("%s %s = %d, the engine's is %d", name, m[1], g, w)
			}
			delete(want, m[1])
		}
	}
	for n := range want {
		t.Errorf("%s lacks %s", name, n)
	}
}
