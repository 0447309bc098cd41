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
// lowered: Normalize changes nothing else in such text but case, white
// space and the quotation marks “” (to ASCII "), which change no token; the
// ideographs are tokens of their own, and the punctuation above is a word
// boundary that no UAX #29 rule joins across.
func FoldCJK(dst, src []byte) ([]byte, bool) {
	// The output is never longer than src: it is written by index into
	// spare capacity, four bytes at a time (one more than a character).
	start := len(dst)
	dst = slices.Grow(dst, len(src)+4)
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
		// A three-byte character, read with the byte after it (or a 0).
		var x uint32
		if i+4 <= n {
			x = binary.LittleEndian.Uint32(src[i:])
		} else if i+3 == n {
			x = uint32(c) | uint32(src[i+1])<<8 | uint32(src[i+2])<<16
		}
		kind, m := CJKChar(x)
		switch kind {
		case CJKNone:
			return dst[:start], false
		case CJKASCII:
			// in place of the lead byte
			x = x&^0xff | uint32(m)
		}
		binary.LittleEndian.PutUint32(out[j:], x)
		i += 3
		j += 3
		if kind == CJKASCII {
			j -= 2
		}
	}
	return out[:j], true
}

// CJKKind is what CJKChar finds a character to be.
type CJKKind uint8

// The kinds of CJKChar.
const (
	// CJKNone: a character FoldCJK does not take, or not a three-byte
	// character.
	CJKNone CJKKind = iota
	// CJKHan: a CJK Unified Ideograph, a token of its own.
	CJKHan
	// CJKBreak: punctuation that FoldCJK keeps, a word boundary.
	CJKBreak
	// CJKASCII: a full-width form or U+3000, which FoldCJK maps to one
	// ASCII byte.
	CJKASCII
)

// CJKChar returns the kind of the three-byte UTF-8 character held by the
// low three bytes of x (its first byte lowest; the top byte is ignored)
// among the characters FoldCJK takes, and for CJKASCII its ASCII byte
// (full-width letters are not lowered). It has no branch: one table lookup
// for the first two bytes, one bit of a mask for the third.
func CJKChar(x uint32) (CJKKind, byte) {
	row := cjkRow[(x&0x0f)<<6|x>>8&0x3f] & 7
	if x&0xc0c0f0 != 0x8080e0 {
		row = rowNone
	}
	t := x >> 16 & 0x3f
	k := (cjkKind[row] + uint8(cjkShort[row]>>t&1)) * uint8(cjkTake[row]>>t&1)
	return CJKKind(k), byte((x>>8&3)<<6|t) + 0x20
}

// The rows of FoldCJK: the three-byte characters sharing their first two
// bytes.
const (
	rowNone     = iota
	rowHan      // U+4E00 to U+9FFF
	rowPunct    // U+2000 to U+203F: — “ ”
	rowCJK      // U+3000 to U+303F: the ideographic space, 、。〈〉《》「」『』【】
	rowFull     // U+FF00 to U+FF3F: full-width forms from U+FF01
	rowFullHigh // U+FF40 to U+FF7F: full-width forms to U+FF5E
)

// cjkRow is the row of the character whose first two bytes are 0xe0 | i>>6
// and 0x80 | i&0x3f: of a three-byte character c, i is c>>6.
var cjkRow = func() (t [1024]uint8) {
	for c := 0x4e00; c <= 0x9fff; c += 0x40 {
		t[c>>6] = rowHan
	}
	t[0x2000>>6] = rowPunct
	t[0x3000>>6] = rowCJK
	t[0xff00>>6] = rowFull
	t[0xff40>>6] = rowFullHigh
	return t
}()

// cjkKind is the kind of the characters of a row, but for those that
// become ASCII (one more).
var cjkKind = [8]uint8{rowHan: uint8(CJKHan), rowPunct: uint8(CJKBreak), rowCJK: uint8(CJKBreak),
	rowFull: uint8(CJKBreak), rowFullHigh: uint8(CJKBreak)}

// cjkTake[row] has bit k set if FoldCJK takes the character of the row
// whose last byte is 0x80 | k; cjkShort[row], if that character becomes
// one ASCII byte.
var cjkTake, cjkShort = [8]uint64{
	rowHan:      ^uint64(0),
	rowPunct:    1<<0x14 | 1<<0x1c | 1<<0x1d,
	rowCJK:      1<<0 | 1<<1 | 1<<2 | (1<<0x12-1)&^(1<<8-1),
	rowFull:     ^uint64(1),
	rowFullHigh: 1<<0x1f - 1,
}, [8]uint64{
	rowCJK:      1,
	rowFull:     ^uint64(0),
	rowFullHigh: ^uint64(0),
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
