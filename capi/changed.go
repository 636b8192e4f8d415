package main

import (
	"os"
	"sync"
	"syscall"
)

// A database file written or truncated in place while it is open breaks
// what the library relies on: pages are checked once, when first read, and
// trusted after that (docs/RELIABILITY.md). A truncation faults on the lost
// pages and is reported as DRYDB_CORRUPT (SetPanicOnFault, fast.c's
// handler). A rewrite can instead put bytes in an already checked page that
// send a read out of the page's bounds: Go's bounds check stops it with a
// panic, which every export recovers. That panic is then reported as
// DRYDB_CORRUPT too when an open file has changed since it was opened (as
// DRYDB_INTERNAL otherwise: a bug). Replacing a file by renaming a new one
// over it (what drydb's own builds do) changes nothing under open handles.

// file is a mapped database file, kept open so that fstat tells whether the
// inode behind the mapping changed.
type file struct {
	f    *os.File
	name string
	at   stamp
}

// stamp is what a write or truncation of a file changes.
type stamp struct {
	size         int64
	mtime, ctime syscall.Timespec
}

func stampOf(fi os.FileInfo) stamp {
	s := stamp{size: fi.Size()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.mtime, s.ctime = st.Mtim, st.Ctim
	}
	return s
}

// openFiles holds the file of every open database (keyed by *dbObj).
var openFiles sync.Map

// changedFile returns the name of an open database file that changed since
// it was opened, or "". Called only on a recovered panic.
func changedFile() string {
	name := ""
	openFiles.Range(func(_, v any) bool {
		fl := v.(*file)
		fi, err := fl.f.Stat()
		if err != nil || stampOf(fi) != fl.at {
			name = fl.name
			return false
		}
		return true
	})
	return name
}
