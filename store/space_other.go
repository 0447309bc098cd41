//go:build !(linux || darwin || freebsd)

package store

// DiskFree cannot tell the free space here: ok is always false, and
// neither the store nor the engine checks it.
func DiskFree(string) (free int64, ok bool) { return 0, false }
