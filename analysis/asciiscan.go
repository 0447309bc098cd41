package analysis

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// ASCIIWords finds the word tokens of ASCII text: the tokens Words gives
// for the same text, in order, one by one (Next) or all at once (Spans). It
// first marks the word bytes (letters, digits and _) of the whole text in a
// bitmap, 64 bytes at a time with AVX-512 and eight otherwise, then the
// punctuation that joins two words, and keeps the bitmap's edges: the
// offsets where a word starts or ends, which alternate. Finding a word is
// then two bit scans, whatever its length. The zero value is ready for
// Reset; the bitmap is kept from text to text, so a reused ASCIIWords does
// not allocate. It is not safe for concurrent use.
type ASCIIWords struct {
	text []byte
	// bit i of edges[i/64]: a word starts or ends at text[i] (the first
	// byte of a word, or the first byte after one); starts and ends
	// alternate, and a word at the end of the text ends at len(text)
	edges []uint64
	// bit i of spaces[i/64]: text[i] is white space or a control, which
	// never joins two words
	spaces []uint64
	// the next edge is the lowest bit of cur, or in edges[i+1:]
	i   int
	cur uint64
}

// Reset starts on text, which must be ASCII (bytes below 0x80); a byte
// 0x80 or above is read as a non-word byte, which UAX #29 does not do.
func (w *ASCIIWords) Reset(text []byte) { w.reset(text, false) }

// ResetPlain is Reset if text holds only printable ASCII and ASCII white
// space (as PlainASCII), and reports whether it does, from the same pass
// over the text, which stops at the first 64 bytes that are not. After
// false, w must be Reset before use.
func (w *ASCIIWords) ResetPlain(text []byte) bool { return w.reset(text, true) }

// reset marks the word bytes of text in w.edges and its white space and
// controls in w.spaces, then turns the words into edges (markJoins). It
// reports whether text is plain (see ResetPlain); if it is not and
// plainOnly is set, it stops there.
func (w *ASCIIWords) reset(text []byte, plainOnly bool) bool {
	n := len(text)
	nw := n/64 + 1
	if cap(w.edges) < nw || cap(w.spaces) < nw {
		w.edges = make([]uint64, nw, nw+nw/4)
		w.spaces = make([]uint64, nw, nw+nw/4)
	}
	b, sp := w.edges[:nw], w.spaces[:nw]
	w.edges, w.spaces, w.text = b, sp, text
	plain := true
	for i := 0; i <= n; i += 64 {
		m, s, bad := classify64(text[i:])
		b[i/64], sp[i/64] = m, s
		if bad != 0 {
			if plainOnly {
				return false
			}
			plain = false
		}
	}
	w.markJoins()
	w.i, w.cur = 0, b[0]
	return plain
}

// markJoins sets the bits of the punctuation marks that join the word
// bytes on either side into one word (joinsMid: "don't", "3.14"), so that a
// word is a run of set bits, then turns the runs into their edges. Only a
// non-word byte between two word bytes can join; those are found with
// shifts of the bitmap and checked one by one, and they are rare in most
// text.
func (w *ASCIIWords) markJoins() {
	text, b, sp := w.text, w.edges, w.spaces[:len(w.edges)]
	var prev uint64 // the top bit of the previous bitmap word, unmarked
	var top uint64  // the top bit of the previous bitmap word, marked
	for i, m := range b {
		var next uint64
		if i+1 < len(b) {
			next = b[i+1] << 63
		}
		cand := ^m &^ sp[i] & (m<<1 | prev) & (m>>1 | next)
		prev = m >> 63
		for cand != 0 {
			p := i<<6 + bits.TrailingZeros64(cand)
			cand &= cand - 1
			if joinsMid(text[p-1], text[p], text[p+1]) {
				m |= 1 << (p & 63)
			}
		}
		b[i] = m ^ (m<<1 | top)
		top = m >> 63
	}
}

// classify64 returns the word and space bitmaps of the first 64 bytes of
// text (bit k for byte k; when text is shorter, the bytes past its end
// are read as spaces, which are plain and mark no word) and a value that
// is not 0 if one of them is neither printable ASCII nor ASCII white
// space, as classify8 gives them: with AVX-512 at once
// (classify64AVX512), eight bytes at a time otherwise.
func classify64(text []byte) (m, s, bad uint64) {
	if useAVX512 {
		return classify64AVX512(unsafe.SliceData(text), len(text))
	}
	return classify64Go(text)
}

// classify64Go is classify64 with classify8, eight bytes at a time.
func classify64Go(text []byte) (m, s, bad uint64) {
	k := 0
	for ; k < 64 && k+8 <= len(text); k += 8 {
		wm, sm, bm := classify8(binary.LittleEndian.Uint64(text[k:]))
		m |= wm << k
		s |= sm << k
		bad |= bm
	}
	if k < 64 {
		// the last bytes, fewer than eight, padded with spaces
		var last [8]byte
		copy(last[copy(last[:], text[k:]):], "        ")
		wm, sm, bm := classify8(binary.LittleEndian.Uint64(last[:]))
		m |= wm << k
		s |= sm << k
		bad |= bm
	}
	return m, s, bad
}

// classify8 returns, as eight bits (bit k for byte k of x), the word bytes
// (letters, digits and _) and the white space and control bytes (0x20 and
// below) among the eight bytes of x, and a value that is not 0 if one of
// them is neither printable ASCII nor ASCII white space. Each byte test
// works on seven bits a byte, with sums that never carry into the next byte.
func classify8(x uint64) (word, space, bad uint64) {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	y := x &^ highs
	l := y | 0x20*ones
	letter := (l + (0x80-'a')*ones) &^ (l + (0x80-'z'-1)*ones)
	digit := (y + (0x80-'0')*ones) &^ (y + (0x80-'9'-1)*ones)
	u := y ^ '_'*ones
	under := ^(u + 0x7f*ones | u)
	m := (letter | digit | under) &^ x & highs
	low := ^(y + (0x80-0x21)*ones)                           // y <= 0x20
	ws := (y + (0x80-'\t')*ones) &^ (y + (0x80-'\r'-1)*ones) // \t to \r
	ctrl := low &^ ws & (y ^ 0x20*ones + 0x7f*ones)          // below 0x20, not \t to \r
	del := y + ones                                          // 0x7f
	const pack = 0x0102040810204080
	return (m >> 7) * pack >> 56, (low &^ x & highs >> 7) * pack >> 56, (x | ctrl | del) & highs
}

// Next returns the byte offsets of the next word token, or ok false at the
// end of the text.
func (w *ASCIIWords) Next() (start, end int, ok bool) {
	for {
		s := w.edge()
		if s < 0 {
			return 0, 0, false
		}
		e := w.edge()
		if w.text[s] != '_' || hasWordRune(w.text[s:e]) {
			return s, e, true
		}
	}
}

// edge returns the offset of the next edge, or -1.
func (w *ASCIIWords) edge() int {
	for w.cur == 0 {
		if w.i+1 >= len(w.edges) {
			return -1
		}
		w.i++
		w.cur = w.edges[w.i]
	}
	p := w.i<<6 + bits.TrailingZeros64(w.cur)
	w.cur &= w.cur - 1
	return p
}

// Spans appends to dst the start and end offsets of every word token after
// the last one Next returned (all of them after Reset), two numbers a token,
// and returns the extended slice; Next then returns no more tokens. The
// text must be shorter than 4 GiB. One loop with no call per token, it is
// faster than Next.
func (w *ASCIIWords) Spans(dst []uint32) []uint32 {
	text, edges := w.text, w.edges
	i, cur := w.i, w.cur
	for {
		// the start of a word, then its end: the next two edges
		for cur == 0 {
			if i+1 >= len(edges) {
				w.i, w.cur = i, 0
				return dst
			}
			i++
			cur = edges[i]
		}
		s := i<<6 + bits.TrailingZeros64(cur)
		cur &= cur - 1
		for cur == 0 {
			i++
			cur = edges[i]
		}
		e := i<<6 + bits.TrailingZeros64(cur)
		cur &= cur - 1
		if text[s] != '_' || hasWordRune(text[s:e]) {
			dst = append(dst, uint32(s), uint32(e))
		}
	}
}
