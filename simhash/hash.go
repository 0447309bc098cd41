package simhash

import (
	"math/bits"

	"github.com/zeebo/xxh3"
)

// Hash64 returns the 64-bit feature hash of token: XXH3-64 with seed 0.
func Hash64(token []byte) uint64 { return xxh3.Hash(token) }

// Hash128 returns the 128-bit feature hash of token: XXH3-128 with seed 0,
// as its high and low halves.
func Hash128(token []byte) (hi, lo uint64) {
	h := xxh3.Hash128(token)
	return h.Hi, h.Lo
}

// Constants of the shingle combiner (the 64-bit primes of XXH64 and the
// finalizer constants of MurmurHash3's fmix64).
const (
	prime1 = 0x9e3779b185ebca87
	prime2 = 0xc2b2ae3d27d4eb4f
	fmixC1 = 0xff51afd7ed558ccd
	fmixC2 = 0xc4ceb9fe1a85ec53
)

// Shingle64 returns the 64-bit feature hash of a shingle (an n-gram of
// tokens) from the Hash64 values of its tokens, in order. A shingle of one
// token hashes to that token's hash, so single-token features keep XXH3
// values (which is what IDF tables are keyed by). For n >= 2:
//
//	h = n * prime2
//	for each token hash t, in order: h = rotl64(h ^ (t * prime1), 31) * prime2
//	return fmix64(h)
//
// where fmix64 is MurmurHash3's finalizer (x ^= x>>33; x *= 0xff51afd7ed558ccd;
// x ^= x>>33; x *= 0xc4ceb9fe1a85ec53; x ^= x>>33), prime1 =
// 0x9e3779b185ebca87 and prime2 = 0xc2b2ae3d27d4eb4f. The order of the tokens
// matters. An empty shingle (n = 0) follows the same formula and hashes to 0.
func Shingle64(hashes []uint64) uint64 {
	if len(hashes) == 1 {
		return hashes[0]
	}
	h := uint64(len(hashes)) * prime2
	for _, t := range hashes {
		h = bits.RotateLeft64(h^(t*prime1), 31) * prime2
	}
	return fmix64(h)
}

// Shingle128 is Shingle64 for 128-bit token hashes: the high halves and the
// low halves are combined separately, the low halves exactly as Shingle64,
// the high halves the same way from the start value n * prime1. his and los
// must have the same length.
func Shingle128(his, los []uint64) (hi, lo uint64) {
	if len(los) == 1 {
		return his[0], los[0]
	}
	h := uint64(len(his)) * prime1
	for _, t := range his {
		h = bits.RotateLeft64(h^(t*prime1), 31) * prime2
	}
	return fmix64(h), Shingle64(los)
}

func fmix64(x uint64) uint64 {
	x ^= x >> 33
	x *= fmixC1
	x ^= x >> 33
	x *= fmixC2
	x ^= x >> 33
	return x
}

// Distance64 returns the Hamming distance between two 64-bit fingerprints.
func Distance64(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// Distance128 returns the Hamming distance between two 128-bit
// fingerprints given as high and low halves.
func Distance128(ahi, alo, bhi, blo uint64) int {
	return bits.OnesCount64(ahi^bhi) + bits.OnesCount64(alo^blo)
}
