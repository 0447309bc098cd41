package index

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on linux/amd64 and arm64.
const hugePage = 2 << 20

// makeHuge returns a zeroed slice of n elements whose memory the kernel is
// asked to back with transparent huge pages. Tables are read at random
// places, so with 4 KB pages nearly every probe also misses the TLB; with
// 2 MB pages the page walks mostly disappear. The advice is best effort:
// when the kernel refuses it, the slice is an ordinary one.
func makeHuge[T word](n int) []T {
	s := make([]T, n)
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	if size < 2*hugePage {
		return s
	}
	all := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size)
	start := uintptr(unsafe.Pointer(unsafe.SliceData(all)))
	lo := (start+hugePage-1)&^(hugePage-1) - start
	hi := (start+size)&^(hugePage-1) - start
	if hi <= lo {
		return s
	}
	b := all[lo:hi]
	if syscall.Madvise(b, syscall.MADV_HUGEPAGE) != nil {
		return s
	}
	// The slice is all zeros and holds no pointers, so dropping its
	// pages loses nothing: they come back zeroed, now as huge pages,
	// when first written.
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	return s
}
