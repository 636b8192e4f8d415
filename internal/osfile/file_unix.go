//go:build unix

package osfile

import (
	"os"
	"syscall"
)

// File is an open, read-only file. Plain system calls, not os.Open: an
// *os.File costs a finalizer, a poller probe and, for Fd, two fcntl calls to
// make it blocking again, a sixth of an engine.Open.
type File struct {
	fd    int
	Size  int64 // at Open
	stamp stamp
	id    [2]uint64 // device and inode
}

// Open opens path read-only and reads its size and stamp.
func Open(path string) (*File, error) {
	var fd int
	var err error
	for {
		if fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0); err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
	}
	return &File{fd: fd, Size: st.Size, stamp: stampOf(&st), id: [2]uint64{uint64(st.Dev), uint64(st.Ino)}}, nil
}

// Map maps the file's Size bytes read-only and shared (nil for an empty
// file). The mapping outlives Close; Unmap ends it.
func (f *File) Map() ([]byte, error) {
	if f.Size == 0 {
		return nil, nil
	}
	return syscall.Mmap(f.fd, 0, int(f.Size), syscall.PROT_READ, syscall.MAP_SHARED)
}

// Changed reports whether the file was written or truncated since Open (or
// can no longer be asked).
func (f *File) Changed() bool {
	var st syscall.Stat_t
	return syscall.Fstat(f.fd, &st) != nil || stampOf(&st) != f.stamp
}

// Same reports whether f and o are the same file, unchanged between their
// opens: a builder's rename of a new file over a path makes another one.
func (f *File) Same(o *File) bool { return f.id == o.id && f.stamp == o.stamp }

// Close closes the file (not its mapping).
func (f *File) Close() error { return syscall.Close(f.fd) }

// Unmap ends a mapping made by Map.
func Unmap(b []byte) error { return syscall.Munmap(b) }

// Alloc returns n bytes of zeroed, private, read-write memory outside the
// Go heap (the page cache: its pages are handed to C).
func Alloc(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}

// Free releases memory from Alloc.
func Free(b []byte) error { return syscall.Munmap(b) }

// ProcessGone reports whether no process has the id pid.
func ProcessGone(pid int) bool { return syscall.Kill(pid, 0) == syscall.ESRCH }
