//go:build linux || openbsd || solaris || illumos

package osfile

import "syscall"

// stamp is what a write or truncation of a file changes.
type stamp struct {
	size         int64
	mtime, ctime syscall.Timespec
}

func stampOf(st *syscall.Stat_t) stamp { return stamp{size: st.Size, mtime: st.Mtim, ctime: st.Ctim} }
