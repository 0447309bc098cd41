// Package nilsimsa computes nilsimsa digests: 256-bit locality-sensitive
// hashes of byte streams, used to spot near-duplicate messages (spam
// templates, reposted text). Similar inputs give digests that differ in few
// bits; Score turns the difference into the reference scale from -128
// (opposite) through 0 (unrelated) to 128 (identical digests).
//
// Digests match the reference implementation (cmeclax's nilsimsa, Perl's
// Digest::Nilsimsa, Python's nilsimsa from diffeo/py-nilsimsa) byte for
// byte, in the same hex form:
//
//	d := nilsimsa.Sum([]byte("A short test message"))
//	fmt.Printf("%x\n", d)
//
// # Algorithm
//
// A window slides over the input bytes, holding the current byte and the
// four before it. For each new byte c, the trigrams that pair c with two of
// the earlier bytes (up to eight of them) are hashed to one of 256 buckets
// by the Tran53 hash, and the bucket counts. When the input ends, bit i of
// the digest is set when bucket i holds more than the mean count. Digest
// bytes are written from bucket 255 down to bucket 0, so the first hex
// digits show the highest buckets.
//
// Nilsimsa works on bytes: text in any encoding, invalid UTF-8 included, is
// hashed as it is. Inputs of fewer than three bytes have no trigrams and
// give the all-zero digest.
package nilsimsa

import (
	"encoding/binary"
	"math/bits"
)

// Size is the length of a digest in bytes.
const Size = 32

// tran is the permutation of Tran53, the reference's trigram hash table.
var tran = [256]byte{
	0x02, 0xD6, 0x9E, 0x6F, 0xF9, 0x1D, 0x04, 0xAB, 0xD0, 0x22, 0x16, 0x1F, 0xD8, 0x73, 0xA1, 0xAC,
	0x3B, 0x70, 0x62, 0x96, 0x1E, 0x6E, 0x8F, 0x39, 0x9D, 0x05, 0x14, 0x4A, 0xA6, 0xBE, 0xAE, 0x0E,
	0xCF, 0xB9, 0x9C, 0x9A, 0xC7, 0x68, 0x13, 0xE1, 0x2D, 0xA4, 0xEB, 0x51, 0x8D, 0x64, 0x6B, 0x50,
	0x23, 0x80, 0x03, 0x41, 0xEC, 0xBB, 0x71, 0xCC, 0x7A, 0x86, 0x7F, 0x98, 0xF2, 0x36, 0x5E, 0xEE,
	0x8E, 0xCE, 0x4F, 0xB8, 0x32, 0xB6, 0x5F, 0x59, 0xDC, 0x1B, 0x31, 0x4C, 0x7B, 0xF0, 0x63, 0x01,
	0x6C, 0xBA, 0x07, 0xE8, 0x12, 0x77, 0x49, 0x3C, 0xDA, 0x46, 0xFE, 0x2F, 0x79, 0x1C, 0x9B, 0x30,
	0xE3, 0x00, 0x06, 0x7E, 0x2E, 0x0F, 0x38, 0x33, 0x21, 0xAD, 0xA5, 0x54, 0xCA, 0xA7, 0x29, 0xFC,
	0x5A, 0x47, 0x69, 0x7D, 0xC5, 0x95, 0xB5, 0xF4, 0x0B, 0x90, 0xA3, 0x81, 0x6D, 0x25, 0x55, 0x35,
	0xF5, 0x75, 0x74, 0x0A, 0x26, 0xBF, 0x19, 0x5C, 0x1A, 0xC6, 0xFF, 0x99, 0x5D, 0x84, 0xAA, 0x66,
	0x3E, 0xAF, 0x78, 0xB3, 0x20, 0x43, 0xC1, 0xED, 0x24, 0xEA, 0xE6, 0x3F, 0x18, 0xF3, 0xA0, 0x42,
	0x57, 0x08, 0x53, 0x60, 0xC3, 0xC0, 0x83, 0x40, 0x82, 0xD7, 0x09, 0xBD, 0x44, 0x2A, 0x67, 0xA8,
	0x93, 0xE0, 0xC2, 0x56, 0x9F, 0xD9, 0xDD, 0x85, 0x15, 0xB4, 0x8A, 0x27, 0x28, 0x92, 0x76, 0xDE,
	0xEF, 0xF8, 0xB2, 0xB7, 0xC9, 0x3D, 0x45, 0x94, 0x4B, 0x11, 0x0D, 0x65, 0xD5, 0x34, 0x8B, 0x91,
	0x0C, 0xFA, 0x87, 0xE9, 0x7C, 0x5B, 0xB1, 0x4D, 0xE5, 0xD4, 0xCB, 0x10, 0xA2, 0x17, 0x89, 0xBC,
	0xDB, 0xB0, 0xE2, 0x97, 0x88, 0x52, 0xF7, 0x48, 0xD3, 0x61, 0x2C, 0x3A, 0x2B, 0xD1, 0x8C, 0xFB,
	0xF1, 0xCD, 0xE4, 0x6A, 0xE7, 0xA9, 0xFD, 0xC4, 0x37, 0xC8, 0xD2, 0xF6, 0xDF, 0x58, 0x72, 0x4E,
}

// tran3 is Tran53: the bucket of the trigram (a, b, c) in slot n (0..7).
func tran3(a, b, c byte, n byte) byte {
	return (tran[a+n] ^ tran[b]*(n+n+1)) + tran[c^tran[n]]
}

// slotTables holds the parts of tran3 that depend on one byte and the slot,
// precomputed: mul[n][b] = tran[b]*(2n+1) and mix[n][c] = tran[c^tran[n]].
// With them the bulk loop does three loads per trigram and no multiply.
type slotTables struct {
	mul, mix [8][256]byte
}

// tables is computed once when the package is loaded and only read after.
var tables = newSlotTables()

func newSlotTables() *slotTables {
	t := new(slotTables)
	for n := range byte(8) {
		for v := range 256 {
			t.mul[n][v] = tran[v] * (2*n + 1)
			t.mix[n][v] = tran[byte(v)^tran[n]]
		}
	}
	return t
}

// Digest computes a nilsimsa digest incrementally: write the input in any
// number of pieces, then call Sum256. It implements io.Writer and
// hash.Hash. The zero value is ready to use. A Digest is not safe for
// concurrent use.
type Digest struct {
	// lanes counts the buckets of each of the eight trigram slots apart, so
	// that the eight increments per byte rarely hit the same counter back
	// to back (a chain of dependent read-modify-writes). Lanes are folded
	// into total before a 16-bit counter could overflow.
	lanes   [8][256]uint16
	total   [256]uint64
	pending uint64  // bytes counted in lanes since the last fold
	n       uint64  // bytes written
	w       [4]byte // the last four bytes, w[0] the most recent
}

// foldEvery bounds the bytes counted in lanes between folds: a lane counter
// grows by at most one per byte, so it stays below 2^16.
const foldEvery = 1<<16 - 1

// fold moves the lane counts into total.
func (d *Digest) fold() {
	for l := range d.lanes {
		for i, c := range d.lanes[l] {
			d.total[i] += uint64(c)
		}
		d.lanes[l] = [256]uint16{}
	}
	d.pending = 0
}

// New returns a new Digest.
func New() *Digest { return new(Digest) }

// Write adds p to the input. It never returns an error.
func (d *Digest) Write(p []byte) (int, error) {
	i := 0
	// The first four bytes fill the window; they make fewer trigrams.
	for ; i < len(p) && d.n < 4; i++ {
		d.add(p[i])
	}
	for rest := p[i:]; len(rest) > 0; {
		chunk := rest[:min(uint64(len(rest)), foldEvery-d.pending)]
		rest = rest[len(chunk):]
		d.count(chunk)
		d.n += uint64(len(chunk))
		d.pending += uint64(len(chunk))
		if d.pending == foldEvery {
			d.fold()
		}
	}
	return len(p), nil
}

// count adds the eight trigrams of every byte of p, with a full window.
func (d *Digest) count(p []byte) {
	w0, w1, w2, w3 := d.w[0], d.w[1], d.w[2], d.w[3]
	l, m, x := &d.lanes, &tables.mul, &tables.mix
	// Slot n counts tran3 of its trigram, spelled out with the tables.
	for _, c := range p {
		l[0][(tran[c]^m[0][w0])+x[0][w1]]++
		l[1][(tran[c+1]^m[1][w0])+x[1][w2]]++
		l[2][(tran[c+2]^m[2][w1])+x[2][w2]]++
		l[3][(tran[c+3]^m[3][w0])+x[3][w3]]++
		l[4][(tran[c+4]^m[4][w1])+x[4][w3]]++
		l[5][(tran[c+5]^m[5][w2])+x[5][w3]]++
		l[6][(tran[w3+6]^m[6][w0])+x[6][c]]++
		l[7][(tran[w3+7]^m[7][w2])+x[7][c]]++
		w0, w1, w2, w3 = c, w0, w1, w2
	}
	d.w = [4]byte{w0, w1, w2, w3}
}

// add takes one byte while the window is not yet full (d.n < 4).
func (d *Digest) add(c byte) {
	w := &d.w
	if d.n >= 2 {
		d.total[tran3(c, w[0], w[1], 0)]++
	}
	if d.n >= 3 {
		d.total[tran3(c, w[0], w[2], 1)]++
		d.total[tran3(c, w[1], w[2], 2)]++
	}
	w[0], w[1], w[2], w[3] = c, w[0], w[1], w[2]
	d.n++
}

// Sum256 returns the digest of the input written so far. It does not
// change the Digest, so more input may follow.
func (d *Digest) Sum256() [Size]byte {
	// The number of trigrams counted: 1 for three bytes, 4 for four, then 8
	// per byte. A bucket is set when its count is above the mean, count >
	// trigrams/256, compared in integers.
	var trigrams uint64
	switch {
	case d.n == 3:
		trigrams = 1
	case d.n == 4:
		trigrams = 4
	case d.n > 4:
		trigrams = 8*d.n - 28
	}
	counts := d.total
	if d.pending > 0 {
		for l := range d.lanes {
			for i, c := range &d.lanes[l] {
				counts[i] += uint64(c)
			}
		}
	}
	var out [Size]byte
	for i, c := range counts {
		if c*256 > trigrams {
			out[Size-1-i/8] |= 1 << (i % 8)
		}
	}
	return out
}

// Sum appends the digest of the input written so far to b and returns the
// result, as hash.Hash requires.
func (d *Digest) Sum(b []byte) []byte {
	s := d.Sum256()
	return append(b, s[:]...)
}

// Reset forgets all input.
func (d *Digest) Reset() { *d = Digest{} }

// Size returns the digest length in bytes, 32.
func (d *Digest) Size() int { return Size }

// BlockSize returns 1: Write takes input of any length equally fast.
func (d *Digest) BlockSize() int { return 1 }

// Sum returns the nilsimsa digest of data.
func Sum(data []byte) [Size]byte {
	var d Digest
	d.Write(data)
	return d.Sum256()
}

// Distance returns the number of bits in which a and b differ, 0 to 256.
func Distance(a, b [Size]byte) int {
	n := 0
	for i := 0; i < Size; i += 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:]))
	}
	return n
}

// Score returns the reference's comparison score of two digests (its
// compare_digests): 128 minus the number of differing bits, from -128 to
// 128. Unrelated inputs score near 0; the reference calls scores above 24
// (three standard deviations) unlikely to be independent.
func Score(a, b [Size]byte) int { return 128 - Distance(a, b) }
