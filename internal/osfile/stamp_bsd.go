//go:build darwin || freebsd || netbsd || dragonfly

package osfile

import "syscall"

// stamp is what a write or truncation of a file changes.
type stamp struct {
	size         int64
	mtime, ctime syscall.Timespec
}

func stampOf(st *syscall.Stat_t) stamp {
	return stamp{size: st.Size, mtime: st.Mtimespec, ctime: st.Ctimespec}
}
