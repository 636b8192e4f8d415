package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

// A command whose body panics, or faults on memory, ends with one error line
// naming the file and exit 1, on the command line and in the shell (which
// goes on with the next command).
func TestCrashedCommandIsAnError(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ok.drydb")
	writeFile(t, file, 10, nil)
	cases := []struct {
		name string
		body func(*ctx) error
		want string
	}{
		{"panic", func(*ctx) error { panic("boom") }, "internal error (is the file damaged?): boom"},
		{"runtime error", func(c *ctx) error {
			var s []int
			_ = s[len(c.args)+3]
			return nil
		}, "internal error (is the file damaged?): runtime error: index out of range [3]"},
		{"memory fault", func(*ctx) error { return readTruncatedMapping(t, dir) }, "memory fault reading the file (was it truncated or changed while open?)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			commands = append(commands, &command{name: "crash", needsFile: true, setup: setupCommon, run: c.body})
			defer func() { commands = commands[:len(commands)-1] }()
			var out, errb bytes.Buffer
			code := run([]string{"crash", file}, nil, &out, &errb)
			if code != exitFail || !strings.HasPrefix(errb.String(), "drydb: "+file+": "+c.want) || strings.Count(errb.String(), "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 1 and one line with %q", code, errb.String(), c.want)
			}
			// the shell reports it and runs the next command
			stdin := filepath.Join(dir, "stdin")
			os.WriteFile(stdin, []byte("crash\ncount\n"), 0o644)
			in, _ := os.Open(stdin)
			defer in.Close()
			out.Reset()
			errb.Reset()
			code = run([]string{"shell", file}, in, &out, &errb)
			if code != exitFail || !strings.HasPrefix(errb.String(), "drydb: "+file+": "+c.want) || strings.TrimSpace(out.String()) != "10" {
				t.Fatalf("shell: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
			}
		})
	}
}

// readTruncatedMapping maps a one-page file, truncates it and reads the page:
// the fault a database file cut underneath a reader gives (SIGBUS).
func readTruncatedMapping(t *testing.T, dir string) error {
	f, err := os.Create(filepath.Join(dir, "cut"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Truncate(4096)
	m, err := syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	f.Truncate(0)
	faultSink = m[100]
	t.Error("reading past the end of the file did not fault")
	return nil
}

var faultSink byte // a load the compiler keeps

// writeFile builds an int64 table "t" with keys 0..n-1 and 20-byte values;
// big (if not nil) is the value of key 0.
func writeFile(t *testing.T, path string, n int64, big []byte) {
	b, err := engine.NewBuilder(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tb, _ := b.Table("t", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.Int64}})
	for k := int64(0); k < n; k++ {
		v := []byte(strings.Repeat("v", 20))
		if k == 0 && big != nil {
			v = big
		}
		if err := tb.Append(keyenc.EncodeInt64(k), v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.BuildToFile(path); err != nil {
		t.Fatal(err)
	}
}

// The few layout facts craftLyingFile needs (docs/FORMAT.md; cmd/ cannot
// import engine/internal/format).
const (
	hdrPageSize   = 16 // file header: page size u32
	ftrSize       = 64 // footer at the end; page count u64 at 24
	ftrPageCount  = 24
	pgType        = 4 // page: CRC-32C u32 of bytes 4..P at 0, type at 4, n u16 at 6
	pgN           = 6
	pgHdr         = 16
	typeLeaf8     = 3
	vlenOverflow  = 0x8000 // leaf8 entry: vlen u16, bit 15: a 20-byte reference follows
	refPage       = 2      // reference: page u64, length u64, crc u32
	refLen        = 10
	refCRC        = 18
	overflowValue = 2000 // > P/4 at 4 KiB pages: stored as an overflow value
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// craftLyingFile writes a file whose checksums are all valid but whose
// structure lies, as the outside attack battery's files did: key 0's overflow
// value reference points at another leaf page X, with X's checksum as the
// value's, and X's entry count is raised past the page without fixing X's own
// checksum. Reading key 0 vouches for X; reading a key of X then goes out of
// the page. Returns a key stored in X.
func craftLyingFile(t *testing.T, path string) int64 {
	writeFile(t, path, 2000, bytes.Repeat([]byte{'x'}, overflowValue))
	img, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	ps := int(le.Uint32(img[hdrPageSize:]))
	pages := int(le.Uint64(img[len(img)-ftrSize+ftrPageCount:]))
	var leaves []int
	for p := 1; p < pages; p++ {
		if img[p*ps+pgType]&0xF == typeLeaf8 {
			leaves = append(leaves, p)
		}
	}
	if len(leaves) < 2 {
		t.Fatalf("%d leaf8 pages", len(leaves))
	}
	y, x := leaves[0], leaves[len(leaves)-1] // key 0 is in the first leaf
	pg := func(p int) []byte { return img[p*ps : (p+1)*ps] }
	yp, xp := pg(y), pg(x)
	n := int(le.Uint16(yp[pgN:]))
	if k, _ := keyenc.DecodeInt64(yp[pgHdr : pgHdr+8]); k != 0 {
		t.Fatalf("first leaf starts with key %d", k)
	}
	entry := yp[le.Uint16(yp[pgHdr+8*n:]):] // slot 0
	if le.Uint16(entry)&vlenOverflow == 0 {
		t.Fatal("key 0's value is not an overflow value")
	}
	inX, _ := keyenc.DecodeInt64(xp[pgHdr : pgHdr+8])
	le.PutUint16(xp[pgN:], 0xFFFF)
	le.PutUint64(entry[refPage:], uint64(x))
	le.PutUint64(entry[refLen:], uint64(ps))
	le.PutUint32(entry[refCRC:], crc32.Checksum(xp, castagnoli))
	le.PutUint32(yp, crc32.Checksum(yp[4:], castagnoli))
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	return inX
}

// The built binary on a crafted file: an error line and exit 1, never a panic
// trace (the engine should refuse the file itself; the
// CLI's guard is there for whatever it misses).
func TestCraftedFileGivesAnErrorLine(t *testing.T) {
	dir := t.TempDir()
	k := strconv.FormatInt(craftLyingFile(t, filepath.Join(dir, "lies.drydb")), 10)
	check := func(r result, wantOut string) {
		t.Helper()
		if r.code != 1 || !strings.HasPrefix(r.err, "drydb: ") || strings.Contains(r.err, "goroutine ") ||
			strings.Contains(r.err, "panic") || !strings.Contains(r.out, wantOut) {
			t.Fatalf("want exit 1 and an error line:\n%s", r)
		}
	}
	check(drydb(t, dir, "", "get", "lies.drydb", "0", k), "")
	for _, cmd := range []string{"scan", "keys", "values", "count", "stat", "dump", "verify"} {
		r := drydb(t, dir, "", cmd, "lies.drydb")
		if r.code == 0 {
			continue // what the command reads may not reach the lie
		}
		check(r, "")
	}
	// the shell reports it and goes on
	check(drydb(t, dir, "get 0\nget "+k+"\ncount\n", "lies.drydb"), "2000")
}
