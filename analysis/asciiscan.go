package analysis

import (
	"encoding/binary"
	"math/bits"
)

// ASCIIWords finds the word tokens of ASCII text one by one, without a
// callback: the tokens Words gives for the same text, in order. It first
// marks the word bytes (letters, digits and _) of the whole text in a
// bitmap, eight bytes at a time, then finds each word's ends with bit
// scans, so its cost per word does not depend on the word's length. The
// zero value is ready for Reset; the bitmap is kept from text to text, so
// a reused ASCIIWords does not allocate. It is not safe for concurrent use.
type ASCIIWords struct {
	text []byte
	// bit i of bits[i/64]: text[i] is a word byte or a mark that joins two
	// (see markJoins); bit len(text) is 0
	bits []uint64
	pos  int
}

// Reset starts on text, which must be ASCII (bytes below 0x80); a byte
// 0x80 or above is read as a non-word byte, which UAX #29 does not do.
func (w *ASCIIWords) Reset(text []byte) {
	n := len(text)
	nw := n/64 + 1
	if cap(w.bits) < nw {
		w.bits = make([]uint64, nw, nw+nw/4)
	}
	w.bits = w.bits[:nw]
	w.text, w.pos = text, 0
	i := 0
	for ; i+64 <= n; i += 64 {
		var m uint64
		for k := 0; k < 64; k += 8 {
			m |= wordMask8(binary.LittleEndian.Uint64(text[i+k:])) << k
		}
		w.bits[i/64] = m
	}
	var m uint64
	for k := i; k < n; k++ {
		if wordByte[text[k]] {
			m |= 1 << (k - i)
		}
	}
	w.bits[i/64] = m
	w.markJoins()
}

// markJoins sets the bits of the punctuation marks that join the word
// bytes on either side into one word (joinsMid: "don't", "3.14"), so that a
// word is a run of set bits. Only a non-word byte between two word bytes
// can join; those are found with shifts of the bitmap and checked one by
// one, and they are rare in most text.
func (w *ASCIIWords) markJoins() {
	text, b := w.text, w.bits
	var prev uint64 // the top bit of the previous bitmap word, unmarked
	for i, m := range b {
		var next uint64
		if i+1 < len(b) {
			next = b[i+1] << 63
		}
		cand := ^m & (m<<1 | prev) & (m>>1 | next)
		prev = m >> 63
		for cand != 0 {
			p := i<<6 + bits.TrailingZeros64(cand)
			cand &= cand - 1
			if joinsMid(text[p-1], text[p], text[p+1]) {
				b[i] |= 1 << (p & 63)
			}
		}
	}
}

// wordMask8 returns the word bytes among the eight bytes of x as eight bits,
// bit k for byte k.
func wordMask8(x uint64) uint64 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	y := x &^ highs // seven bits a byte: the sums below never carry
	l := y | 0x20*ones
	letter := (l + (0x80-'a')*ones) &^ (l + (0x80-'z'-1)*ones)
	digit := (y + (0x80-'0')*ones) &^ (y + (0x80-'9'-1)*ones)
	u := y ^ '_'*ones
	under := ^(u + 0x7f*ones | u)
	m := (letter | digit | under) &^ x & highs
	return (m >> 7) * 0x0102040810204080 >> 56
}

// Next returns the byte offsets of the next word token, or ok false at the
// end of the text.
func (w *ASCIIWords) Next() (start, end int, ok bool) {
	text := w.text
	for {
		s := w.nextSet(w.pos)
		if s < 0 {
			w.pos = len(text)
			return 0, 0, false
		}
		e := w.nextClear(s + 1)
		w.pos = e
		if text[s] != '_' || hasWordRune(text[s:e]) {
			return s, e, true
		}
	}
}

// nextSet returns the first word byte at or after p, or -1.
func (w *ASCIIWords) nextSet(p int) int {
	i := p >> 6
	if i >= len(w.bits) {
		return -1
	}
	m := w.bits[i] &^ (1<<(p&63) - 1)
	for m == 0 {
		i++
		if i == len(w.bits) {
			return -1
		}
		m = w.bits[i]
	}
	return i<<6 + bits.TrailingZeros64(m)
}

// nextClear returns the first non-word byte at or after p <= len(text), or
// len(text).
func (w *ASCIIWords) nextClear(p int) int {
	i := p >> 6
	m := ^w.bits[i] &^ (1<<(p&63) - 1)
	for m == 0 {
		i++
		m = ^w.bits[i]
	}
	return i<<6 + bits.TrailingZeros64(m)
}
