package analysis

import (
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FoldAccents appends to dst the text of src with the accents of its
// Latin and Greek letters and the optional marks of Cyrillic taken off,
// and returns the extended slice:
//
//   - a Latin or Greek letter is replaced by its compatibility
//     decomposition (Unicode NFKD) without its nonspacing marks (Mn):
//     "é" and "e" followed by U+0301 become "e", "ǆ" becomes "dz", "ά"
//     becomes "α";
//   - a nonspacing mark that follows a Latin or Greek letter is dropped
//     (format and control characters between them do not count);
//   - the Latin letters that have no decomposition but are commonly
//     written without their stroke or as two letters are folded too: ø to
//     o, ł to l, đ to d, ħ to h, ŧ to t, dotless ı to i, æ to ae and œ to
//     oe (in both cases);
//   - in Cyrillic, ё is written е (as Russian mostly writes it: "ёлка"
//     and "елка" are one word), the stressed vowels ѐ and ѝ е and и, and
//     the acute and grave stress marks after a vowel are dropped
//     ("за́мок" becomes "замок"); й, ї, ў and the other letters stay;
//   - everything else is copied as it is: other scripts keep their marks
//     (Devanagari and Thai vowel signs, Arabic and Hebrew points, which
//     Normalize treats itself), and invalid UTF-8 bytes stay for
//     Normalize to read.
//
// This is the folding of search engines that match "café" with "cafe"
// (Lucene's ASCII folding, in part): copies of French, Spanish, German,
// Polish or Greek text whose accents were lost (typed without them,
// converted to ASCII, stripped by a template) become the same text. It
// also merges words that accents tell apart, above all in Vietnamese,
// whose letters are Latin with marks (and the Russian все and всё): it is for collections whose
// languages can spare them. FoldAccents is idempotent and allocates only
// when dst has no room; ASCII text is copied unchanged.
func FoldAccents(dst, src []byte) []byte {
	after := afterOther // what the last letter or mark base was
	for i := 0; i < len(src); {
		if src[i] < utf8.RuneSelf {
			j := i + asciiPrefix(src[i:])
			dst = append(dst, src[i:j]...)
			after = afterASCII(src[i:j], after)
			i = j
			continue
		}
		if j := i + hanPrefix(src[i:]); j > i {
			dst = append(dst, src[i:j]...)
			after = afterOther
			i = j
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		b := src[i : i+n]
		i += n
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, b...)
			after = afterOther
			continue
		}
		switch foldClassOf(r) {
		case foldMark:
			if !dropsMark(after, r) {
				dst = append(dst, b...)
			}
		case foldInert:
			dst = append(dst, b...) // transparent, as Normalize drops them
		case foldOther:
			dst = append(dst, b...)
			after = afterOther
		case foldCyrillicLetter:
			var c rune
			c, after = foldCyrillic(r)
			dst = utf8.AppendRune(dst, c)
		case foldLetter:
			after = afterLatin
			d := norm.NFKD.Properties(b).Decomposition()
			if d == nil {
				d = b
			}
			dst = appendUnmarked(dst, d)
		}
	}
	return dst
}

// What the last letter (or mark base) before a nonspacing mark was, for
// FoldAccents.
const (
	afterOther    = iota // a letter of another script, or no letter: marks stay
	afterLatin           // a Latin or Greek letter: every mark goes
	afterCyrillic        // a Cyrillic vowel: stress marks go (dropsMark)
	afterCyrE            // Cyrillic е or Е: stress marks and the diaeresis go
)

// dropsMark reports whether FoldAccents drops the nonspacing mark r after
// a letter of that kind: all of them after Latin and Greek letters, the
// acute and grave stress marks after Cyrillic vowels, and the diaeresis
// of ё written as е and U+0308.
func dropsMark(after int, r rune) bool {
	switch after {
	case afterLatin:
		return true
	case afterCyrillic:
		return r == 0x301 || r == 0x300
	case afterCyrE:
		return r == 0x301 || r == 0x300 || r == 0x308
	}
	return false
}

// foldCyrillic returns what FoldAccents writes for r, a letter of the
// basic Cyrillic block (U+0400 to U+045F), and the kind of letter it is:
// ё becomes е, as Russian is mostly written, and the stressed vowels ѐ
// and ѝ of Bulgarian and Macedonian become е and и; every other letter
// stays (й, ї, ў, ќ and ѓ are letters of their own, not marked ones).
func foldCyrillic(r rune) (rune, int) {
	switch r {
	case 'ё', 'ѐ':
		return 'е', afterCyrE
	case 'Ё', 'Ѐ':
		return 'Е', afterCyrE
	case 'ѝ':
		return 'и', afterCyrillic
	case 'Ѝ':
		return 'И', afterCyrillic
	case 'е', 'Е':
		return r, afterCyrE
	case 'а', 'и', 'о', 'у', 'ы', 'э', 'ю', 'я', 'і', 'ї', 'є',
		'А', 'И', 'О', 'У', 'Ы', 'Э', 'Ю', 'Я', 'І', 'Ї', 'Є':
		return r, afterCyrillic
	}
	return r, afterOther
}

// asciiPrefix returns the length of the ASCII bytes that b starts with,
// eight at a time.
func asciiPrefix(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	return i
}

// hanPrefix returns the length of the characters from U+4000 to U+9FFF
// (CJK ideographs, Yijing symbols: no letters or marks) that b starts
// with, read by their lead bytes alone: three bytes from 0xe4 to 0xe9
// followed by two continuation bytes.
func hanPrefix(b []byte) int {
	i := 0
	for i+3 <= len(b) && b[i] >= 0xe4 && b[i] <= 0xe9 && b[i+1]&0xc0 == 0x80 && b[i+2]&0xc0 == 0x80 {
		i += 3
	}
	return i
}

// afterASCII returns what the last ASCII character of run that is not a
// control (white space counts) leaves for the marks after it: afterLatin
// for a letter, afterOther for anything else; after, when every one is a
// control, which marks see through as Normalize drops them.
func afterASCII(run []byte, after int) int {
	for k := len(run) - 1; k >= 0; k-- {
		if c := run[k]; c >= 0x20 && c != 0x7f || asciiSpace[c] {
			if 'a' <= c|0x20 && c|0x20 <= 'z' {
				return afterLatin
			}
			return afterOther
		}
	}
	return after
}

// What FoldAccents does with a non-ASCII rune (foldClassOf).
const (
	foldOther  = iota // copied; a mark after it stays
	foldLetter        // a Latin or Greek letter: decomposed, marks dropped
	foldMark          // a nonspacing mark: dropped after a letter
	foldInert         // a control or format character: copied, seen through
	// a letter of the basic Cyrillic block: ё folded (foldCyrillic)
	foldCyrillicLetter
)

// foldClassOf returns the class of r, a non-ASCII rune, by ranges for
// the common scripts (Latin, Cyrillic, Chinese, Japanese kana and Korean
// are answered without table searches) and by its Unicode category and
// script otherwise.
func foldClassOf(r rune) int {
	switch {
	case r < 0xa0:
		return foldInert // C1 controls
	case r < 0xc0:
		switch r {
		case 0xaa, 0xba: // ª º
			return foldLetter
		case 0xad: // soft hyphen
			return foldInert
		}
		return foldOther
	case r < 0x250:
		if r == 0xd7 || r == 0xf7 { // × ÷
			return foldOther
		}
		return foldLetter // Latin-1 letters, Latin Extended-A and -B
	case r >= 0x300 && r < 0x370:
		return foldMark // combining diacritical marks
	case r >= 0x400 && r < 0x460:
		return foldCyrillicLetter
	case r >= 0x3400 && r < 0xa000, r >= 0xac00 && r < 0xd7a4, r >= 0x3041 && r < 0x3097, r >= 0x30a1 && r < 0x30fb:
		return foldOther // CJK ideographs, Hangul syllables, kana letters
	case r >= 0x3000 && r < 0x302a:
		return foldOther // CJK punctuation and symbols
	case r >= 0xff00 && r < 0xfff0:
		if r >= 0xff21 && r <= 0xff3a || r >= 0xff41 && r <= 0xff5a {
			return foldLetter // full-width Latin letters
		}
		return foldOther // full-width punctuation, half-width kana and Hangul
	case unicode.Is(unicode.Mn, r):
		return foldMark
	case unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r):
		return foldInert
	case unicode.In(r, unicode.Latin, unicode.Greek):
		return foldLetter
	}
	return foldOther
}

// appendUnmarked appends to dst the runes of d, a Latin or Greek letter
// or its decomposition, but for its nonspacing marks, with the letters of
// strokedLetters folded.
func appendUnmarked(dst, d []byte) []byte {
	for j := 0; j < len(d); {
		r, n := utf8.DecodeRune(d[j:])
		switch s, ok := strokedLetters[r]; {
		case ok:
			dst = append(dst, s...)
		case !unicode.Is(unicode.Mn, r):
			dst = append(dst, d[j:j+n]...)
		}
		j += n
	}
	return dst
}

// strokedLetters are the Latin letters without a decomposition that
// FoldAccents folds, with what it writes for them.
var strokedLetters = map[rune]string{
	'ø': "o", 'Ø': "O",
	'ł': "l", 'Ł': "L",
	'đ': "d", 'Đ': "D",
	'ħ': "h", 'Ħ': "H",
	'ŧ': "t", 'Ŧ': "T",
	'ı': "i",
	'æ': "ae", 'Æ': "AE",
	'œ': "oe", 'Œ': "OE",
}
