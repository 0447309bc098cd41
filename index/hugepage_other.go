//go:build !linux

package index

// makeHuge returns a zeroed slice of n elements; only on Linux does it ask
// for huge pages.
func makeHuge[T word](n int) []T { return make([]T, n) }
