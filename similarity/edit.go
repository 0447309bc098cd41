package similarity

import (
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
)

// EditRunes returns the runes of a normalized text (as analysis.Normalize
// writes it) that the Levenshtein ratio compares: its letters, marks and
// numbers, with one space wherever the text had white space between two of
// them. Punctuation and symbols (emoji too) go, as they do from the words
// the fingerprint is made of: "谢谢分享！！" and "谢谢分享" are the same
// text to both, as are "late. The" and "late.The" but for one space. The
// marks that follow a punctuation mark or a symbol go with it, as the
// fingerprint's words drop them with it: the variation selector of "❤️"
// (U+2764 U+FE0F, the usual form of the red heart) or a keycap around
// "#", so that "great ❤️" and "great" are the same text too. A text of
// punctuation and symbols alone ("!!!", "😀😀") keeps all its runes, as
// its fingerprint is made of them.
//
// It returns rs itself when nothing goes, and a new slice otherwise.
func EditRunes(rs []rune) []rune {
	i := 0
	for i < len(rs) && (rs[i] == ' ' || editRune(rs[i])) {
		i++
	}
	if i == len(rs) {
		return rs // the common case: nothing to drop
	}
	out := make([]rune, 0, len(rs))
	editWalk(rs, func(_ int, r rune) { out = append(out, r) })
	if len(out) == 0 {
		return rs
	}
	return out
}

// editCount returns len(EditRunes(rs)) without making them.
func editCount(rs []rune) int {
	if n := editWalk(rs, nil); n > 0 {
		return n
	}
	return len(rs) // nothing kept: every rune counts
}

// editWalk returns how many runes of rs EditRunes keeps when it drops
// some: the letters, marks and numbers (but the marks of a rune it drops),
// and one space for each run of white space between two of them. It calls
// emit, if not nil, with each and the index in rs of the rune kept (for a
// space, of the rune after it).
func editWalk(rs []rune, emit func(i int, r rune)) int {
	n := 0
	space := false   // white space since the last rune kept
	dropped := false // the last rune but white space went, with its marks
	for i, r := range rs {
		switch {
		case r == ' ':
			space, dropped = true, false
		case dropped && markOf(r):
		case !editRune(r):
			dropped = true
		default:
			dropped = false
			if space && n > 0 {
				n++
				if emit != nil {
					emit(i, ' ')
				}
			}
			n++
			if emit != nil {
				emit(i, r)
			}
			space = false
		}
	}
	return n
}

// markOf reports whether r is a mark (Unicode M), which belongs to the
// rune before it: EditRunes drops one that follows a rune it drops.
func markOf(r rune) bool {
	return r >= 0x300 && unicode.Is(unicode.M, r)
}

// EditLen returns len(EditRunes(the runes of norm)) for a normalized text
// norm, without making them.
func EditLen(norm []byte) int {
	n, all := 0, 0   // runes kept, and runes in all
	space := false   // white space since the last rune kept
	dropped := false // the last rune but white space went (see editWalk)
	for i := 0; i < len(norm); all++ {
		c := norm[i]
		if c < utf8.RuneSelf {
			i++
			switch asciiEdit[c] {
			case editKeep:
				if space && n > 0 {
					n++
				}
				n++
				space, dropped = false, false
			case editSpace:
				space, dropped = true, false
			default:
				dropped = true
			}
			continue
		}
		r, size := utf8.DecodeRune(norm[i:])
		i += size
		switch {
		case dropped && markOf(r):
		case !editRune(r):
			dropped = true
		default:
			if space && n > 0 {
				n++
			}
			n++
			space, dropped = false, false
		}
	}
	if n == 0 {
		return all // nothing kept: every rune counts (0 for an empty text)
	}
	return n
}

// ASCIIEditLen returns EditLen of the normalized form of text
// (analysis.Normalize) when text is ASCII, counted from text itself: case
// folding and the folding of white space change no count, and control
// characters go as punctuation does. ok is false, and n 0, when text has
// a byte outside ASCII, or no letter or digit (its count is then that of
// every rune of its normalized form).
func ASCIIEditLen(text []byte) (n int, ok bool) {
	// Without branches on the classes, which alternate too often to
	// predict: gap is 1 from a space after a rune kept to the next one
	// kept, which counts it.
	var kept, gap, started uint
	for _, c := range text {
		if c >= utf8.RuneSelf {
			return 0, false
		}
		class := uint(asciiEdit[c])
		k, s := class&editKeep, class>>1
		kept += k + k&gap
		gap = (gap | s&started) &^ k
		started |= k
	}
	return int(kept), kept > 0
}

// The classes of asciiEdit.
const (
	editDrop  = 0 // punctuation, symbols, control characters
	editKeep  = 1 // letters and digits
	editSpace = 2 // white space
)

// asciiEdit is the class of each ASCII byte for EditLen and ASCIIEditLen.
var asciiEdit = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			t[c] = editKeep
		case c == ' ', '\t' <= c && c <= '\r':
			t[c] = editSpace
		}
	}
	return t
}()

// editRune reports whether EditRunes keeps r: a letter, mark or number.
func editRune(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return asciiEdit[r] == editKeep
	case 0x4e00 <= r && r <= 0x9fff, 0xac00 <= r && r <= 0xd7a3:
		return true // CJK Unified Ideographs and Hangul syllables: all letters
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N)
}

// LenUnder returns the length of text as the policy's rules count it (the
// EditLen of its normalized form, which measure returns) when that is
// under limit, and a length of limit or more otherwise. ASCII text is
// counted as it is (ASCIIEditLen), and a text of limit letters and digits
// or more, counted before normalization, is long without being measured:
// normalization keeps each (folded, or made two or more by a
// compatibility form), and the rules count every one. A nil measure
// normalizes with analysis.Normalize.
func LenUnder(text []byte, limit int, measure func(text []byte) int) int {
	if n, ok := ASCIIEditLen(text); ok {
		return n
	}
	if hasLetters(text, limit) {
		return limit
	}
	if measure == nil {
		return EditLen(analysis.Normalize(nil, text))
	}
	return measure(text)
}

// hasLetters reports whether text holds n letters and digits or more.
func hasLetters(text []byte, n int) bool {
	for i := 0; i < len(text) && n > 0; {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			if l := c | 0x20; 'a' <= l && l <= 'z' || '0' <= c && c <= '9' {
				n--
			}
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		i += size
		if analysis.IsCJK(r) || unicode.IsLetter(r) || unicode.IsNumber(r) {
			n--
		}
	}
	return n <= 0
}
