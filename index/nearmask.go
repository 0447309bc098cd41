package index

import "math/bits"

// AnyWithin reports whether some fingerprint of fps is within Hamming
// distance k of q (none is for a negative k). It tests 64 at a time, with
// AVX-512 where the processor has it (F, BW, VBMI, VPOPCNTDQ) and BMI2: about
// 0.15 ns a fingerprint there, against about 1.2 ns one at a time.
func AnyWithin(fps []uint64, q uint64, k int) bool {
	for b := 0; b < len(fps); b += 64 {
		if nearMask(fps[b:min(len(fps), b+64)], q, k) != 0 {
			return true
		}
	}
	return false
}

// Kernel names the implementation of the tests of 64 fingerprints at a
// time (AnyWithin, linear scans, large buckets) that this machine runs,
// chosen once when the package is initialized: "avx512", "avx2" or "go"
// (portable Go). A scan costs several times more in Go than with AVX-512,
// so benchmarks report it beside their figures.
func Kernel() string {
	switch {
	case useAVX512:
		return "avx512"
	case useAVX2:
		return "avx2"
	}
	return "go"
}

// nearMaskGeneric tests up to 64 fingerprints against a query at once. Bit
// i of the result (i < len(fps)) is set exactly when
// bits.OnesCount64(fps[i]^q) <= k; every other bit is zero. A negative k
// gives 0, and a k of 64 or more sets all len(fps) low bits.
//
// fps must hold at most 64 fingerprints (one word of a live bitset); of a
// longer slice only the first 64 are tested.
//
// nearMaskGeneric is the portable version, one fingerprint at a time and
// without branches. Callers use nearMask (nearmask_amd64.go,
// nearmask_other.go), which has the same contract and, on amd64 processors
// with the AVX-512 subsets listed at useAVX512, runs nearMaskAVX512: eight
// fingerprints per instruction, about 0.15 ns per fingerprint for a whole
// word against about 1.2 ns here.
func nearMaskGeneric(fps []uint64, q uint64, k int) uint64 {
	return nearMaskPortable(fps, q, k)
}

// nearMaskPortable is nearMaskGeneric and nearMask32Generic: the same
// test for 64-bit fingerprints and for 32-bit keys, compiled once for each
// (the two types have different shapes, so neither pays for the other).
func nearMaskPortable[T uint32 | uint64](fps []T, q T, k int) uint64 {
	if len(fps) > 64 {
		fps = fps[:64]
	}
	// The slice is walked from its end, each answer shifted in at the
	// bottom, so that no shift count depends on the index. With k1 = k+1
	// clamped to [0, 65] and a distance d in [0, 64], d-k1 cannot overflow
	// and is negative exactly when d <= k: its sign bit is the answer.
	k1 := max(-1, min(k, 64)) + 1
	var m uint64
	i := len(fps)
	for ; i >= 4; i -= 4 {
		f := fps[i-4 : i : i]
		m = m<<4 |
			uint64(bits.OnesCount64(uint64(f[3]^q))-k1)>>63<<3 |
			uint64(bits.OnesCount64(uint64(f[2]^q))-k1)>>63<<2 |
			uint64(bits.OnesCount64(uint64(f[1]^q))-k1)>>63<<1 |
			uint64(bits.OnesCount64(uint64(f[0]^q))-k1)>>63
	}
	for i--; i >= 0; i-- {
		m = m<<1 | uint64(bits.OnesCount64(uint64(fps[i]^q))-k1)>>63
	}
	return m
}
