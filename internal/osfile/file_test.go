package osfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// tempDir is t.TempDir without its check that removal worked: the Windows
// build of these tests also runs under Wine (make test-windows), whose
// Wine 8 lacks the file-disposition call Go's RemoveAll makes there.
func tempDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "osfile-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestOpenErrors(t *testing.T) {
	dir := tempDir(t)
	for _, tc := range []struct {
		name, path, op string
		err            error
	}{
		{"missing", filepath.Join(dir, "nope"), "open", os.ErrNotExist},
		{"directory", dir, "open", syscall.EISDIR},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Open(tc.path)
			var pe *os.PathError
			if f != nil || !errors.As(err, &pe) || pe.Op != tc.op || pe.Path != tc.path || !errors.Is(err, tc.err) {
				t.Fatalf("Open(%s) = %v, %v; want a PathError %q wrapping %v", tc.path, f, err, tc.op, tc.err)
			}
		})
	}
}

func TestMapAndChanged(t *testing.T) {
	path := filepath.Join(tempDir(t), "f")
	want := bytes.Repeat([]byte("drydb"), 3000)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Size != int64(len(want)) {
		t.Fatalf("Size %d, want %d", f.Size, len(want))
	}
	data, err := f.Map()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("mapping differs from the file")
	}
	if f.Changed() {
		t.Fatal("Changed before any write")
	}
	// The mapping outlives the file (engine.Open closes it at once).
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, want) {
		t.Fatal("mapping differs after Close")
	}
	if err := Unmap(data); err != nil {
		t.Fatal(err)
	}

	// A write in place (a new size) is seen by a file kept open.
	g, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := os.WriteFile(path, append(want, 'x'), 0o644); err != nil {
		t.Fatal(err)
	}
	if !g.Changed() {
		t.Fatal("Changed is false after the file grew")
	}
}

func TestEmptyFileMapsToNil(t *testing.T) {
	path := filepath.Join(tempDir(t), "empty")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if data, err := f.Map(); data != nil || err != nil {
		t.Fatalf("Map of an empty file = %d bytes, %v; want nil, nil", len(data), err)
	}
}

func TestAlloc(t *testing.T) {
	const n = 1 << 20
	b, err := Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != n || b[0] != 0 || b[n-1] != 0 {
		t.Fatalf("Alloc(%d): %d bytes, not zeroed", n, len(b))
	}
	b[0], b[n-1] = 1, 2 // writable
	if err := Free(b); err != nil {
		t.Fatal(err)
	}
}

func TestProcessGone(t *testing.T) {
	if ProcessGone(os.Getpid()) {
		t.Fatal("this process is gone")
	}
	// Pids are small positive numbers on both systems; this one is not used
	// (Linux's pid_max is at most 2^22, Windows' pids are multiples of 4).
	if !ProcessGone(1<<30 + 1) {
		t.Fatal("pid 2^30+1 exists")
	}
}
