package main

import (
	"sync"

	"github.com/drydb/drydb/internal/osfile"
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

// file is a mapped database file, kept open so that the system can tell
// whether the file behind the mapping changed (osfile.File.Changed).
type file struct {
	*osfile.File
	name string
}

// openFile opens name read-only.
func openFile(name string) (*file, error) {
	f, err := osfile.Open(name)
	if err != nil {
		return nil, err
	}
	return &file{File: f, name: name}, nil
}

func (fl *file) close() { fl.Close() }

// openFiles holds the file of every open database. A map under a mutex,
// not a sync.Map: it changes only at open and close, and sync.Map's
// methods, inlined at each call, cost the library's size budget 3 KB.
var openFiles struct {
	sync.Mutex
	m map[*dbObj]*file
}

func trackFile(d *dbObj, fl *file) {
	openFiles.Lock()
	defer openFiles.Unlock()
	if fl == nil {
		delete(openFiles.m, d)
		return
	}
	if openFiles.m == nil {
		openFiles.m = map[*dbObj]*file{}
	}
	openFiles.m[d] = fl
}

// changedFile returns the name of an open database file that changed since
// it was opened, or "". Called only on a recovered panic.
func changedFile() string {
	openFiles.Lock()
	defer openFiles.Unlock()
	for _, fl := range openFiles.m {
		if fl.Changed() {
			return fl.name
		}
	}
	return ""
}
