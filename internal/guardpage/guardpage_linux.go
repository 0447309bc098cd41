//go:build linux

// Package guardpage gives tests a page of memory that a page which cannot
// be read follows, so that a kernel which loads a byte past the end of its
// input (an unmasked vector load for the last few bytes, say) crashes the
// test instead of passing it.
package guardpage

import (
	"os"
	"syscall"
	"testing"
)

// New returns a readable and writable page whose next page cannot be
// read, unmapped when t ends; it skips t where the system refuses the
// mapping.
func New(t testing.TB) []byte {
	ps := os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*ps, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[ps:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return mem[:ps:ps]
}
