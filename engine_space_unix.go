//go:build linux || darwin || freebsd

package neardup

import "golang.org/x/sys/unix"

// diskFree returns the bytes of the file system holding dir that an
// unprivileged writer may still use (statfs: available blocks times the
// block size).
func diskFree(dir string) (int64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
