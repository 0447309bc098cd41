//go:build linux

package index

import (
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/neardup/neardup/internal/guardpage"
)

// TestNearMaskGuardPage places slices of every length 0..70 right before a
// page that cannot be read, for nearMask and nearMask32: an implementation
// that loads a value past the end of its slice (say an unmasked vector
// load for the last few) crashes the test instead of passing it.
func TestNearMaskGuardPage(t *testing.T) {
	mem := guardpage.New(t)
	ps := len(mem)
	r := rand.New(rand.NewPCG(5, 6))
	t.Run("64", func(t *testing.T) {
		checkGuardPage(t, unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), ps/8), r.Uint64(), r)
	})
	t.Run("32", func(t *testing.T) {
		checkGuardPage(t, unsafe.Slice((*uint32)(unsafe.Pointer(&mem[0])), ps/4), r.Uint32(), r)
	})
}

// checkGuardPage fills page with values one bit from q and tests the
// slices of every length 0..70 that end at its end.
func checkGuardPage[T uint32 | uint64](t *testing.T, page []T, q T, r *rand.Rand) {
	w := width[T]()
	for i := range page {
		page[i] = q ^ 1<<r.IntN(w)
	}
	for n := 0; n <= 70; n++ {
		fps := page[len(page)-n:]
		for _, k := range []int{-1, 0, 1, 2, w} {
			checkNearMask(t, fps, q, k, nil)
		}
	}
}
