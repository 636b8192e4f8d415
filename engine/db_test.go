package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Open's own errors: each says what and where, and wraps what a caller tests.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.drydb")
	if err := os.WriteFile(short, []byte("drydb"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		is         error
		msg        string
	}{
		{"missing", filepath.Join(dir, "missing.drydb"), fs.ErrNotExist, "open " + filepath.Join(dir, "missing.drydb")},
		{"directory", dir, syscall.EISDIR, "is a directory"},
		{"too short", short, ErrCorrupt, "too short"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, err := Open(c.path, nil)
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "drydb: ") {
				t.Fatalf("%v: want %v and %q", err, c.is, c.msg)
			}
		})
	}
}
