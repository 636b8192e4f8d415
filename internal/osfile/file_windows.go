package osfile

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// File is an open, read-only file. It is shared for reading, writing and
// deleting, so that other processes may open it, and a builder may rename
// a new file over it where Windows allows (not while a view of it is
// mapped: Windows refuses to replace or truncate a mapped file, which is
// also why a truncated mapping, SIGBUS on Unix, cannot happen here).
type File struct {
	h     windows.Handle
	Size  int64 // at Open
	stamp stamp
	id    [3]uint32 // volume serial number and file index
}

// stamp is what a write or truncation of a file changes.
type stamp struct {
	size  int64
	write windows.Filetime
}

func info(h windows.Handle) (windows.ByHandleFileInformation, error) {
	var fi windows.ByHandleFileInformation
	err := windows.GetFileInformationByHandle(h, &fi)
	return fi, err
}

func stampOf(fi *windows.ByHandleFileInformation) stamp {
	return stamp{size: int64(fi.FileSizeHigh)<<32 | int64(fi.FileSizeLow), write: fi.LastWriteTime}
}

// Open opens path read-only and reads its size and stamp.
func Open(path string) (*File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	// BACKUP_SEMANTICS opens a directory too, so that it is refused below
	// as one (as on Unix) rather than as "access denied".
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	fi, err := info(h)
	if err != nil {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if fi.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY != 0 {
		windows.CloseHandle(h)
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
	}
	st := stampOf(&fi)
	return &File{h: h, Size: st.size, stamp: st, id: [3]uint32{fi.VolumeSerialNumber, fi.FileIndexHigh, fi.FileIndexLow}}, nil
}

// Map maps the file's Size bytes read-only (nil for an empty file, which
// Windows cannot map). The view outlives Close; Unmap ends it.
func (f *File) Map() ([]byte, error) {
	if f.Size == 0 {
		return nil, nil
	}
	m, err := windows.CreateFileMapping(f.h, nil, windows.PAGE_READONLY, 0, 0, nil)
	if err != nil {
		return nil, os.NewSyscallError("CreateFileMapping", err)
	}
	defer windows.CloseHandle(m) // the view keeps the section alive
	addr, err := windows.MapViewOfFile(m, windows.FILE_MAP_READ, 0, 0, uintptr(f.Size))
	if err != nil {
		return nil, os.NewSyscallError("MapViewOfFile", err)
	}
	return bytesAt(addr, int(f.Size)), nil
}

// bytesAt is the memory at addr, which the system gave us outside Go's
// heap (a view or VirtualAlloc): read through the address's storage so
// that vet's uintptr check sees no conversion of a computed address.
func bytesAt(addr uintptr, n int) []byte {
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&addr))), n)
}

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// Changed reports whether the file was written or truncated since Open (or
// can no longer be asked).
func (f *File) Changed() bool {
	fi, err := info(f.h)
	return err != nil || stampOf(&fi) != f.stamp
}

// Same reports whether f and o are the same file, unchanged between their
// opens: a builder's rename of a new file over a path makes another one.
func (f *File) Same(o *File) bool { return f.id == o.id && f.stamp == o.stamp }

// Close closes the file (not its mapping).
func (f *File) Close() error { return windows.CloseHandle(f.h) }

// Unmap ends a mapping made by Map.
func Unmap(b []byte) error { return windows.UnmapViewOfFile(addrOf(b)) }

// Alloc returns n bytes of zeroed, read-write memory outside the Go heap
// (the page cache: its pages are handed to C).
func Alloc(n int) ([]byte, error) {
	addr, err := windows.VirtualAlloc(0, uintptr(n), windows.MEM_COMMIT|windows.MEM_RESERVE, windows.PAGE_READWRITE)
	if err != nil {
		return nil, os.NewSyscallError("VirtualAlloc", err)
	}
	return bytesAt(addr, n), nil
}

// Free releases memory from Alloc.
func Free(b []byte) error { return windows.VirtualFree(addrOf(b), 0, windows.MEM_RELEASE) }

// ProcessGone reports whether no process has the id pid (or it has exited).
func ProcessGone(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return err == windows.ERROR_INVALID_PARAMETER
	}
	defer windows.CloseHandle(h)
	var code uint32
	const stillActive = 259
	return windows.GetExitCodeProcess(h, &code) == nil && code != stillActive
}
