package index

// nearMask32Generic tests up to 64 32-bit keys against a query at once:
// bit i of the result (i < len(h)) is set exactly when
// bits.OnesCount32(h[i]^q) <= k; every other bit is zero. A negative k
// gives 0, and a k of 32 or more sets all len(h) low bits. Of a slice
// longer than 64 only the first 64 keys are tested.
//
// It is the portable version, one key at a time and without branches.
// Callers use nearMask32 (nearmask32_amd64.go, nearmask32_other.go), which
// has the same contract and, where useAVX512 is set, runs
// nearMask32AVX512: sixteen keys per instruction.
func nearMask32Generic(h []uint32, q uint32, k int) uint64 {
	return nearMaskPortable(h, q, k)
}
