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
// inode behind the mapping changed. A plain descriptor, not an *os.File:
// opening one costs a finalizer, a poller probe and, for Fd, two fcntl
// calls, a tenth of drydb_open.
type file struct {
	fd   int
	name string
	at   stamp
}

// stamp is what a write or truncation of a file changes.
type stamp struct {
	size         int64
	mtime, ctime syscall.Timespec
}

func stampOf(st *syscall.Stat_t) stamp {
	return stamp{size: st.Size, mtime: st.Mtim, ctime: st.Ctim}
}

// openFile opens name read-only and reads its stamp.
func openFile(name string) (*file, *syscall.Stat_t, error) {
	var fd int
	var err error
	for {
		if fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, nil, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		syscall.Close(fd)
		return nil, nil, &os.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	return &file{fd: fd, name: name, at: stampOf(&st)}, &st, nil
}

func (fl *file) close() { syscall.Close(fl.fd) }

// openFiles holds the file of every open database (keyed by *dbObj).
var openFiles sync.Map

// changedFile returns the name of an open database file that changed since
// it was opened, or "". Called only on a recovered panic.
func changedFile() string {
	name := ""
	openFiles.Range(func(_, v any) bool {
		fl := v.(*file)
		var st syscall.Stat_t
		if err := syscall.Fstat(fl.fd, &st); err != nil || stampOf(&st) != fl.at {
			name = fl.name
			return false
		}
		return true
	})
	return name
}
