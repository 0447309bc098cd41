//go:build linux

package index

import (
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// TestNearMaskGuardPage places slices of every length 0..64 right before a
// page that cannot be read: an implementation that loads a fingerprint past
// the end of its slice (say an unmasked vector load for the last few)
// crashes the test instead of passing it.
func TestNearMaskGuardPage(t *testing.T) {
	ps := os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*ps, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[ps:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	page := unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), ps/8)
	q := r.Uint64()
	for i := range page {
		page[i] = q ^ 1<<r.UintN(64)
	}
	for n := 0; n <= 64; n++ {
		fps := page[len(page)-n:]
		for _, k := range []int{-1, 0, 1, 2, 64} {
			checkNearMask(t, fps, q, k, nil)
		}
	}
}
