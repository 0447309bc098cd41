package simhash

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/zeebo/xxh3"
)

// XXH3-64 constants for inputs of up to 16 bytes (seed 0, default secret).
const (
	xxhPrime2    = 0xc2b2ae3d27d4eb4f
	xxhPrime3    = 0x165667b19e3779f9
	secret1to3   = 0xbe4ba423 ^ 0x396cfeb8                 // secret[0:4] ^ secret[4:8]
	secret4to8   = 0x1cad21f72c81017c ^ 0xdb979083e96dd4de // secret[8:16] ^ secret[16:24]
	secret9to16a = 0x1f67b3b7a4a44072 ^ 0x78e5c0cc4ee679cb // secret[24:32] ^ secret[32:40]
	secret9to16b = 0x2172ffcc7dd05a82 ^ 0x8e2443f7744608b8 // secret[40:48] ^ secret[48:56]
	hashEmpty    = 0x2d06800538d394c2                      // XXH3-64 of no bytes
)

// Hash64Lower returns Hash64 of token with its ASCII upper-case letters
// (A to Z) lowered, every other byte unchanged, without copying tokens of
// up to 16 bytes: it reads them eight bytes at a time and lowers the words
// it reads. Longer tokens are lowered into buf, which is grown as needed
// and returned for reuse.
func Hash64Lower(token, buf []byte) (uint64, []byte) { return hashLower(token, buf) }

// AppendHash64Lower appends to dst Hash64Lower of each token
// text[spans[2k]:spans[2k+1]], in order, and returns the extended slice and
// buf, as Hash64Lower. It hashes the tokens in one loop, with no call per
// token of up to 16 bytes and no branch on their length: from the eight
// bytes that start a token and the eight that end it (read from text around
// it), it computes XXH3's three formulas for 1-3, 4-8 and 9-16 bytes and
// keeps the one for its length. A branch on the length would be
// mispredicted for about every other word of prose; the two extra formulas
// cost less. Where the processor has AVX-512, the tokens of up to 8 bytes
// are hashed eight at a time, each in a 64-bit lane (hashSpans8AVX512).
func AppendHash64Lower(dst []uint64, text []byte, spans []uint32, buf []byte) ([]uint64, []byte) {
	dst, out := grow(dst, len(spans)/2)
	var later [8]int
	var nl int
	if useAVX512 {
		later, nl = hashSpansWide(out, text, spans)
	} else {
		later, nl = hashSpans(out, text, spans)
	}
	if nl <= len(later) {
		for _, k := range later[:nl] {
			out[k], buf = hashLower(text[spans[2*k]:spans[2*k+1]], buf)
		}
		return dst, buf
	}
	for k := range out {
		s, e := int(spans[2*k]), int(spans[2*k+1])
		if n := e - s; uint(n-1) >= 16 || e < 8 || s > len(text)-8 {
			out[k], buf = hashLower(text[s:e], buf)
		}
	}
	return dst, buf
}

// hashSpans sets out[k] to the hash of each token k of AppendHash64Lower
// that is 1 to 16 bytes long and at least eight bytes from either end of
// the text. It returns the first tokens it leaves out and their number.
// It makes no call and keeps few values, so that the compiler keeps them
// in registers.
func hashSpans(out []uint64, text []byte, spans []uint32) (later [8]int, nl int) {
	for k := range out {
		s, e := int(spans[2*k]), int(spans[2*k+1])
		n := e - s
		if uint(n-1) >= 16 || e < 8 || s > len(text)-8 {
			if nl < len(later) {
				later[nl] = k
			}
			nl++
			continue
		}
		lo := lower64(binary.LittleEndian.Uint64(text[s:]))   // bytes s to s+7
		hi := lower64(binary.LittleEndian.Uint64(text[e-8:])) // bytes e-8 to e-1
		var h uint64
		if n > 8 {
			// 9 to 16 bytes: lo and hi are the first and last eight
			lo, hi = lo^secret9to16a, hi^secret9to16b
			m1, m0 := bits.Mul64(lo, hi)
			h = avalanche(uint64(n) + bits.ReverseBytes64(lo) + hi + (m1 ^ m0))
		} else {
			// 4 to 8 bytes: the first four, the last four; 1 to 3 bytes:
			// the first, the middle and the last
			h = rrmxmx((hi>>32+lo<<32)^secret4to8, uint64(n))
			if h1 := small(lo&0xff, lo>>(8*(n>>1))&0xff, hi>>56, uint64(n)); n < 4 {
				h = h1
			}
		}
		out[k] = h
	}
	return later, nl
}

// hashSpansWide is hashSpans eight tokens at a time (hashSpans8AVX512):
// the tokens that leaves out go through hashSpans one at a time, and the
// last fewer than eight through one call of it.
func hashSpansWide(out []uint64, text []byte, spans []uint32) (later [8]int, nl int) {
	var ptr *byte
	if len(text) > 0 {
		ptr = &text[0]
	}
	k := 0
	for ; k+8 <= len(out); k += 8 {
		for rest := hashSpans8AVX512(&out[k], ptr, len(text), &spans[2*k]); rest != 0; rest &= rest - 1 {
			j := k + bits.TrailingZeros64(rest)
			if _, n := hashSpans(out[j:j+1], text, spans[2*j:2*j+2]); n > 0 {
				if nl < len(later) {
					later[nl] = j
				}
				nl++
			}
		}
	}
	l, n := hashSpans(out[k:], text, spans[2*k:])
	for _, j := range l[:min(n, len(l))] {
		if nl < len(later) {
			later[nl] = k + j
		}
		nl++
	}
	nl += max(0, n-len(l)) // tokens beyond the first eight left out, not listed
	return later, nl
}

// grow returns dst extended by n elements, and those elements.
func grow(dst []uint64, n int) ([]uint64, []uint64) {
	m := len(dst)
	dst = slices.Grow(dst, n)[:m+n]
	return dst, dst[m:]
}

// hashLower is Hash64Lower of token, of any length, with a branch on the
// length.
func hashLower(token, buf []byte) (uint64, []byte) {
	n := len(token)
	switch {
	case n > 16:
		buf = buf[:0]
		for _, c := range token {
			buf = append(buf, lower8(c))
		}
		return xxh3.Hash(buf), buf
	case n > 8:
		lo := lower64(binary.LittleEndian.Uint64(token)) ^ secret9to16a
		hi := lower64(binary.LittleEndian.Uint64(token[n-8:])) ^ secret9to16b
		m1, m0 := bits.Mul64(lo, hi)
		return avalanche(uint64(n) + bits.ReverseBytes64(lo) + hi + (m1 ^ m0)), buf
	case n > 3:
		a := lower64(uint64(binary.LittleEndian.Uint32(token)))
		b := lower64(uint64(binary.LittleEndian.Uint32(token[n-4:])))
		return rrmxmx((b+a<<32)^secret4to8, uint64(n)), buf
	case n > 0:
		c1, c2, c3 := lower8(token[0]), lower8(token[n>>1]), lower8(token[n-1])
		return small(uint64(c1), uint64(c2), uint64(c3), uint64(n)), buf
	}
	return hashEmpty, buf
}

// Hash3 returns Hash64 of the three bytes x&0xff, x>>8&0xff and
// x>>16&0xff, in that order (a CJK character in UTF-8, read little-endian),
// with a few multiplies and shifts.
func Hash3(x uint32) uint64 { return small(uint64(x&0xff), uint64(x>>8&0xff), uint64(x>>16&0xff), 3) }

// small is XXH3-64 of the n = 1 to 3 bytes whose first, middle and last
// are c1, c2 and c3.
func small(c1, c2, c3, n uint64) uint64 {
	acc := c1<<16 | c2<<24 | c3 | n<<8
	acc ^= secret1to3
	acc ^= acc >> 33
	acc *= xxhPrime2
	acc ^= acc >> 29
	acc *= xxhPrime3
	acc ^= acc >> 32
	return acc
}

// lower8 lowers an ASCII upper-case letter.
func lower8(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c
}

// lower64 lowers the ASCII upper-case letters among the eight bytes of x.
func lower64(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	y := x &^ highs                                                        // low seven bits: sums below cannot carry
	upper := (y + (0x80-'A')*ones) &^ (y + (0x80-'Z'-1)*ones) &^ x & highs // 'A' <= byte <= 'Z'
	return x | upper>>2
}

// avalanche is the final mix of XXH3 for inputs of 9 to 240 bytes.
func avalanche(x uint64) uint64 {
	x ^= x >> 37
	x *= 0x165667919e3779f9
	x ^= x >> 32
	return x
}

// rrmxmx is the final mix of XXH3 for inputs of 4 to 8 bytes.
func rrmxmx(h, n uint64) uint64 {
	h ^= bits.RotateLeft64(h, 49) ^ bits.RotateLeft64(h, 24)
	h *= 0x9fb21c651e98df25
	h ^= (h >> 35) + n
	h *= 0x9fb21c651e98df25
	h ^= h >> 28
	return h
}
