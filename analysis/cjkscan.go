package analysis

import (
	"encoding/binary"
	"slices"
)

// FoldCJK is the normalization of a common kind of Chinese text, which
// needs no Unicode tables: if src holds only
//
//   - printable ASCII and ASCII white space,
//   - CJK Unified Ideographs (U+4E00 to U+9FFF),
//   - the punctuation 、。《》〈〉「」『』【】 (U+3001, U+3002, U+3008 to
//     U+3011), — (U+2014) and “” (U+201C, U+201D),
//   - full-width ASCII forms (U+FF01 to U+FF5E) and the ideographic space
//     (U+3000),
//
// it appends src to dst with the full-width forms mapped to their ASCII
// characters and U+3000 to a space, and returns the extended slice and
// true. Otherwise it returns dst (its spare capacity overwritten) and
// false. For such text, the tokens of Words in Normalize(src) are the
// tokens CJKSpans finds in the result, with the ASCII letters of each
// lowered: Normalize changes nothing else in such text but case and white
// space runs, the ideographs are tokens of their own, and the punctuation
// above is a word boundary that no UAX #29 rule joins across.
func FoldCJK(dst, src []byte) ([]byte, bool) {
	// The output is never longer than src: it is written by index into
	// spare capacity.
	start := len(dst)
	dst = slices.Grow(dst, len(src))
	out := dst[:cap(dst)]
	j := start
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		if c < 0x80 {
			if i+8 <= n && printable8(binary.LittleEndian.Uint64(src[i:])) {
				copy(out[j:j+8], src[i:i+8])
				i += 8
				j += 8
				continue
			}
			if !plainByte[c] {
				return dst[:start], false
			}
			out[j] = c
			i++
			j++
			continue
		}
		if i+3 > n {
			return dst[:start], false
		}
		c1, c2 := src[i+1], src[i+2]
		if c1&0xc0 != 0x80 || c2&0xc0 != 0x80 {
			return dst[:start], false
		}
		switch {
		case c >= 0xe5 && c <= 0xe9 || c == 0xe4 && c1 >= 0xb8: // U+4E00 to U+9FFF
		case c == 0xe3 && c1 == 0x80 && c2 == 0x80: // U+3000
			out[j] = ' '
			i += 3
			j++
			continue
		case c == 0xe3 && c1 == 0x80 && (c2 == 0x81 || c2 == 0x82 || c2 >= 0x88 && c2 <= 0x91):
		case c == 0xe2 && c1 == 0x80 && (c2 == 0x94 || c2 == 0x9c || c2 == 0x9d):
		case c == 0xef && (c1 == 0xbc && c2 >= 0x81 || c1 == 0xbd && c2 <= 0x9e): // U+FF01 to U+FF5E
			out[j] = byte(int(c1&3)<<6|int(c2&0x3f)) + 0x20
			i += 3
			j++
			continue
		default:
			return dst[:start], false
		}
		out[j], out[j+1], out[j+2] = c, c1, c2
		i += 3
		j += 3
	}
	return out[:j], true
}

// plainByte marks printable ASCII and ASCII white space: the bytes that
// normalization changes only by case and by folding white space.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = true
	}
	for _, c := range "\t\n\v\f\r" {
		t[c] = true
	}
	return t
}()

// PlainASCII reports whether b holds only printable ASCII and ASCII white
// space: text that Normalize changes only by case and by folding white
// space. It tests eight bytes at a time and looks at the bytes of flagged
// words only (those with white space, mostly).
func PlainASCII(b []byte) bool {
	for len(b) >= 8 {
		if !printable8(binary.LittleEndian.Uint64(b)) {
			for _, c := range b[:8] {
				if !plainByte[c] {
					return false
				}
			}
		}
		b = b[8:]
	}
	for _, c := range b {
		if !plainByte[c] {
			return false
		}
	}
	return true
}

// printable8 reports whether the eight bytes of x are all printable ASCII
// (0x20 to 0x7e): no high bit, no byte below 0x20 (the borrow of the
// subtraction reaches the high bit of such a byte, if not of one after it),
// no DEL (a zero byte of x ^ DEL).
func printable8(x uint64) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	del := x ^ 0x7f*ones
	return (x|(x-0x20*ones)&^x|(del-ones)&^del)&highs == 0
}

// CJKSpans appends to dst the start and end offsets of every token of text,
// the output of FoldCJK, two numbers a token, and returns the extended
// slice: each ideograph, and each ASCII word (by the rules of Words). On
// other text it never fails, but its tokens are not those of Words. The
// text must be shorter than 4 GiB.
func CJKSpans(dst []uint32, text []byte) []uint32 {
	n := len(text)
	for i := 0; i < n; {
		c := text[i]
		if c >= 0xe0 {
			// in FoldCJK's output, an ideograph (lead byte 0xe4 to 0xe9)
			// or punctuation (0xe2, 0xe3), three bytes
			if c >= 0xe4 && c <= 0xe9 && i+3 <= n {
				dst = append(dst, uint32(i), uint32(i+3))
			}
			i += 3
			continue
		}
		if !wordByte[c] {
			i++
			continue
		}
		s := i
		i = wordEnd(text, i, n)
		if text[s] != '_' || hasWordRune(text[s:i]) {
			dst = append(dst, uint32(s), uint32(i))
		}
	}
	return dst
}
