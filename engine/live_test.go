package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/drydb/drydb/engine/keyenc"
)

// Version v of the live test file: table "t" holds keys k < liveKeys with
// k%5 != v%5, each value naming v and k; table "even" only in even versions.
const liveKeys = 500

func liveIn(k, v int64) bool { return k >= 0 && k < liveKeys && k%5 != v%5 }

func liveVal(k, v int64) []byte { return []byte(fmt.Sprintf("v%08d k%08d", v, k)) }

func buildLive(t testing.TB, path string, v int64) {
	t.Helper()
	b, err := NewBuilder(&BuilderOptions{Metadata: map[string][]byte{"version": []byte(fmt.Sprint(v))}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"t", "even"} {
		if name == "even" && v%2 != 0 {
			continue
		}
		tb, err := b.Table(name, &TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
		if err != nil {
			t.Fatal(err)
		}
		for k := int64(0); k < liveKeys; k++ {
			if liveIn(k, v) {
				if err := tb.Append(int64Key(k), liveVal(k, v)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if _, err := b.BuildToFile(path); err != nil {
		t.Fatal(err)
	}
}

func liveDecode(t testing.TB, b []byte, k int64) int64 {
	var v, kk int64
	if _, err := fmt.Sscanf(string(b), "v%d k%d", &v, &kk); err != nil || kk != k {
		t.Errorf("value %q is not key %d's", b, k)
		return -1
	}
	return v
}

func TestLiveRefreshUnderReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.drydb")
	buildLive(t, path, 0)
	l, err := OpenLive(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var stop atomic.Bool
	var written atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the writer
		defer wg.Done()
		for v := int64(1); !stop.Load(); v++ {
			buildLive(t, path, v)
			written.Store(v)
			time.Sleep(20 * time.Millisecond)
		}
	}()
	tbl := l.Table("t")
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for n := int64(0); !stop.Load(); n++ {
				if r == 0 && n%10 == 0 {
					if _, err := l.Refresh(); err != nil {
						t.Error(err)
						return
					}
				}
				k := (n*7 + int64(r)) % (liveKeys + 5)
				// A snapshot: every read sees one version, and its slices stay
				// valid across refreshes until Release.
				s, err := l.Acquire()
				if err != nil {
					t.Error(err)
					return
				}
				// Seq counts the refreshes that switched; the version the
				// writer numbered is in the metadata (a refresh may skip one).
				var v int64
				fmt.Sscan(string(s.DB().Info().Metadata["version"]), &v)
				tb, err := s.DB().Table("t")
				if err != nil {
					t.Error(err)
					s.Release()
					return
				}
				got, err := tb.Get(int64Key(k))
				n, _ := tb.Count(Bound{}, Bound{})
				time.Sleep(time.Millisecond) // refreshes may happen: got stays mapped
				switch {
				case errors.Is(err, ErrNotFound):
					if liveIn(k, v) {
						t.Errorf("key %d missing in version %d", k, v)
					}
				case err != nil:
					t.Error(err)
				case liveDecode(t, got, k) != v:
					t.Errorf("key %d: value %q in version %d", k, got, v)
				}
				var want uint64
				for x := int64(0); x < liveKeys; x++ {
					if liveIn(x, v) {
						want++
					}
				}
				if n != want {
					t.Errorf("version %d: count %d, want %d", v, n, want)
				}
				s.Release()
				// A LiveTable call: a copy from whichever version is current.
				if b, err := tbl.Get(nil, int64Key(k)); err == nil && !liveIn(k, liveDecode(t, b, k)) {
					t.Errorf("LiveTable.Get key %d: %q", k, b)
				}
			}
		}(r)
	}
	time.Sleep(time.Second)
	stop.Store(true)
	wg.Wait()
	if _, err := l.Refresh(); err != nil {
		t.Fatal(err)
	}
	_, seq, err := l.Version()
	if err != nil || seq < 2 {
		t.Fatalf("version %d after the load (%v): the refreshes did not switch", seq, err)
	}
	n, err := tbl.Len()
	if err != nil {
		t.Fatal(err)
	}
	var want uint64
	for x := int64(0); x < liveKeys; x++ {
		if liveIn(x, written.Load()) {
			want++
		}
	}
	if n != want {
		t.Fatalf("rows %d, want %d of version %d", n, want, written.Load())
	}
}

func TestLiveBadFilesAndVanishedTable(t *testing.T) {
	dir := t.TempDir()
	path, good := filepath.Join(dir, "a.drydb"), filepath.Join(dir, "good.drydb")
	buildLive(t, path, 2)
	buildLive(t, good, 3)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenLive(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	id0, _, _ := l.Version()
	if ch, err := l.Refresh(); ch || err != nil {
		t.Fatalf("refresh of the same file: %v, %v", ch, err)
	}
	pinned, err := l.Acquire()
	if err != nil {
		t.Fatal(err)
	}
	even := l.Table("even")
	flipped := append([]byte{}, data...)
	flipped[len(flipped)-10] ^= 0x40
	for _, c := range []struct {
		name    string
		content []byte // nil: the path is missing
		want    error
	}{
		{"truncated", data[:len(data)/2], ErrCorrupt},
		{"empty", []byte{}, ErrCorrupt},
		{"flipped footer byte", flipped, ErrCorrupt},
		{"missing", nil, os.ErrNotExist},
	} {
		if c.content == nil {
			os.Remove(path)
		} else if err := os.WriteFile(path+".tmp", c.content, 0o644); err != nil || os.Rename(path+".tmp", path) != nil {
			t.Fatal(err)
		}
		ch, err := l.Refresh()
		if ch || !errors.Is(err, c.want) {
			t.Fatalf("%s: refresh gave %v, %v; want %v", c.name, ch, err, c.want)
		}
		if id, seq, _ := l.Version(); id != id0 || seq != 0 {
			t.Fatalf("%s: the version changed", c.name)
		}
		if _, err := even.Get(nil, int64Key(1)); err != nil {
			t.Fatalf("%s: the old version does not answer: %v", c.name, err)
		}
	}
	if err := os.Rename(good, path); err != nil {
		t.Fatal(err)
	}
	if ch, err := l.Refresh(); !ch || err != nil {
		t.Fatalf("refresh to a good file: %v, %v", ch, err)
	}
	if _, err := even.Get(nil, int64Key(1)); !errors.Is(err, ErrNoTable) || !strings.Contains(err.Error(), `"even"`) {
		t.Fatalf("vanished table: %v", err)
	}
	// The pinned version (2) still answers, with its own rows.
	tb, err := pinned.DB().Table("even")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := tb.Get(int64Key(1)); err != nil || liveDecode(t, v, 1) != 2 {
		t.Fatalf("pinned version: %q, %v", v, err)
	}
	pinned.Release()
	pinned.Release() // idempotent
	if pinned.DB().closed.Load() != true {
		t.Fatal("the replaced version stayed open after its last release")
	}
	l.Close()
	if _, err := l.Refresh(); !errors.Is(err, ErrClosed) {
		t.Fatalf("refresh after close: %v", err)
	}
	if _, err := l.Acquire(); !errors.Is(err, ErrClosed) {
		t.Fatalf("acquire after close: %v", err)
	}
}
