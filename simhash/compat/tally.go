package compat

import "math/bits"

// tally counts, for each of up to 128 bit positions, how many of the hashes
// added have that bit set, and how many hashes were added. The three
// profiles differ only in how they turn these counts into bits.
type tally struct {
	ones [128]int
	n    int
}

// add counts a 128-bit hash (a 64-bit one has hi = 0).
func (t *tally) add(hi, lo uint64) {
	for ; lo != 0; lo &= lo - 1 {
		t.ones[bits.TrailingZeros64(lo)]++
	}
	for ; hi != 0; hi &= hi - 1 {
		t.ones[64+bits.TrailingZeros64(hi)]++
	}
	t.n++
}

// sum returns the fingerprint whose bit i is set when set(ones[i], n) holds,
// for the low width bits.
func (t *tally) sum(width int, set func(ones, n int) bool) (hi, lo uint64) {
	for i := range width {
		if !set(t.ones[i], t.n) {
			continue
		}
		if i < 64 {
			lo |= 1 << i
		} else {
			hi |= 1 << (i - 64)
		}
	}
	return hi, lo
}

// atLeastHalf is the classic rule: (hashes with the bit) - (hashes without)
// >= 0, so a tie, and an empty document, set the bit.
func atLeastHalf(ones, n int) bool { return 2*ones >= n }

// moreThanHalf is the rule of the Python package: more than half of the
// weight, so a tie clears the bit.
func moreThanHalf(ones, n int) bool { return 2*ones > n }
