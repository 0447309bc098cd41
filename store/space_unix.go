//go:build linux || darwin || freebsd

package store

import "golang.org/x/sys/unix"

// DiskFree returns the bytes of the file system holding dir that an
// unprivileged writer may still use (statfs: available blocks times the
// block size); ok is false when it cannot tell.
func DiskFree(dir string) (free int64, ok bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
