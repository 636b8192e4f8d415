// Package osfile is the operating system under drydb's file reading: a
// read-only file, its memory mapping, whether it changed since it was
// opened, and anonymous memory for the page cache. The engine (Open) and the
// C library (drydb_open, which keeps the file open to detect rewrites) both
// read files through it, so each system's calls live in one place:
// file_unix.go (open, fstat, mmap) and file_windows.go (CreateFile,
// CreateFileMapping, MapViewOfFile, VirtualAlloc).
//
// Errors are the os package's: *os.PathError with Op "open" or "stat" (a
// directory is refused as Op "open" with syscall.EISDIR), and raw system
// errors from Map, whose callers name the file.
package osfile
