package engine

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A build into a full disk (a 1 MiB tmpfs) fails with a clear error, leaves
// the previous file intact and no temporary file behind. Needs root to
// mount; skipped otherwise.
func TestDiskFull(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	path := filepath.Join(dir, "full.drydb")
	build := func(rows int) error {
		b, _ := NewBuilder(&BuilderOptions{TempDir: os.TempDir()})
		tb, _ := b.Table("t", nil)
		v := bytes.Repeat([]byte("v"), 200)
		for i := 0; i < rows; i++ {
			tb.Append([]byte{byte(i >> 16), byte(i >> 8), byte(i)}, v)
		}
		_, err := b.BuildToFile(path)
		return err
	}
	if err := build(100); err != nil {
		t.Fatal(err)
	}
	full := build(20000) // ~4 MB: does not fit
	if !errors.Is(full, syscall.ENOSPC) || !strings.HasPrefix(full.Error(), "drydb: ") {
		t.Fatalf("want a drydb error wrapping ENOSPC, got %v", full)
	}
	db, err := Open(path, &Options{Verify: true})
	if err != nil {
		t.Fatalf("old file damaged: %v", err)
	}
	if tbl, _ := db.Table("t"); tbl.Len() != 100 {
		t.Fatal("old file changed")
	}
	db.Close()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("litter on the full disk: %v", ents)
	}
	t.Logf("disk full: %v", full)
}

// A build into a read-only directory (a read-only tmpfs, so that it holds
// for root too) fails with a clear error and leaves the old file alone.
func TestReadOnlyDir(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a read-only tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	path := filepath.Join(dir, "ro.drydb")
	b, _ := NewBuilder(nil)
	tb, _ := b.Table("t", nil)
	tb.Append([]byte("k"), []byte("old"))
	if _, err := b.BuildToFile(path); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only: %v %s", err, out)
	}
	b, _ = NewBuilder(nil)
	tb, _ = b.Table("t", nil)
	tb.Append([]byte("k"), []byte("new"))
	_, roErr := b.BuildToFile(path)
	if roErr == nil || !errors.Is(roErr, syscall.EROFS) || !strings.HasPrefix(roErr.Error(), "drydb: ") {
		t.Fatalf("want a drydb error wrapping EROFS, got %v", roErr)
	}
	db, err := Open(path, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tbl, _ := db.Table("t")
	if v, _ := tbl.Get([]byte("k")); string(v) != "old" {
		t.Fatalf("old file changed: %q", v)
	}
	t.Logf("read-only directory: %v", roErr)
}
