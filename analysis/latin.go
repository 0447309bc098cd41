package analysis

import (
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/unicode/norm"
)

// The Latin fast paths: European text in Latin, Greek or Cyrillic letters
// is ASCII but for its accented or other letters, a few of them a word.
// Normalize writes such a letter, case-folded, as the ASCII loop writes an
// ASCII byte, where the general path takes each one through NFKC, and
// Words splits a run of such letters, ASCII and common punctuation by the
// UAX #29 rules that apply to them, as it does ASCII, instead of by
// uniseg. Both give exactly the results of the general paths (tests
// compare them), for about ten times the speed.

// latinFast turns the Latin fast paths on; the tests turn them off to
// compare them with the general paths.
var latinFast = true

// simpleRune describes a non-ASCII rune of the fast paths (simpleRunes).
type simpleRune struct {
	// fold is its normalized and case-folded form, n bytes of it (n is
	// 0 for a rune that is not on the fast paths).
	fold [2]byte
	n    uint8
	// class is its UAX #29 word-break class: wbLetter or wbOther.
	class uint8
}

// simpleRunes describes the two-byte runes (U+0080 to U+07FF) whose
// normalized form is a letter or a punctuation mark that needs no context:
// NFKC leaves it alone and it composes with nothing before it, and its
// case-folded form (one or two bytes, no longer than it) is such a rune
// too, or ASCII. Of the letters only those of Latin, Greek and Cyrillic
// are taken, which UAX #29 calls ALetter; of the rest only the
// punctuation and symbols that are no word-break class of their own
// (« » ¡ ¿ § ° ± and the like). Others (marks, digits of other scripts,
// Hebrew letters, U+00B7 and the other MidLetter marks, white space,
// controls, format characters) take the general paths.
//
// The table is made on first use (about 1.6 ms, most of it asking uniseg
// for the word-break classes), so that programs that never see such text
// do not pay for it.
var simpleRunes = sync.OnceValue(func() *[0x800]simpleRune {
	t := new([0x800]simpleRune)
	for r := rune(0x80); r < 0x800; r++ {
		class, ok := simpleClass(r)
		if !ok || !settled(r) {
			continue
		}
		f, _ := foldCase(nil, utf8.AppendRune(nil, r))
		if len(f) > utf8.RuneLen(r) || !norm.NFKC.IsNormal(f) {
			continue
		}
		if fr, _ := utf8.DecodeRune(f); fr >= utf8.RuneSelf && !settled(fr) {
			continue
		}
		t[r].n = uint8(copy(t[r].fold[:], f))
		t[r].class = class
	}
	return t
})

// simpleClass returns the word-break class the fast paths give r, and
// whether they take it at all (see simpleRunes): a letter of Latin, Greek
// or Cyrillic that UAX #29 joins with letters, digits and the marks
// between letters as an ASCII letter, or punctuation or a symbol that it
// joins with nothing (class Other), as uniseg reads them.
func simpleClass(r rune) (uint8, bool) {
	s := string(r)
	switch {
	case unicode.IsNumber(r), unicode.IsMark(r), unicode.IsSpace(r), dropRune(r):
		return 0, false
	case unicode.IsLetter(r):
		ok := unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic) &&
			slices.Equal(splitWords("a"+s+"1_b"), []string{"a" + s + "1_b"}) &&
			slices.Equal(splitWords(s+":a"), []string{s + ":a"}) &&
			slices.Equal(splitWords("1."+s), []string{"1", ".", s}) &&
			slices.Equal(splitWords(s+"'"), []string{s, "'"})
		return wbLetter, ok
	case unicode.IsPunct(r), unicode.IsSymbol(r):
		ok := slices.Equal(splitWords("a"+s+"a"), []string{"a", s, "a"}) &&
			slices.Equal(splitWords("1"+s+"1"), []string{"1", s, "1"}) &&
			slices.Equal(splitWords(s+s), []string{s, s})
		return wbOther, ok
	}
	return 0, false
}

// splitWords returns the words of s by UAX #29 (uniseg).
func splitWords(s string) []string {
	var ws []string
	state := -1
	for len(s) > 0 {
		var w string
		w, s, state = uniseg.FirstWordInString(s, state)
		ws = append(ws, w)
	}
	return ws
}

// settled reports whether NFKC leaves r alone and r composes with nothing
// before it.
func settled(r rune) bool {
	b := utf8.AppendRune(nil, r)
	return norm.NFKC.IsNormal(b) && norm.NFKC.Properties(b).BoundaryBefore()
}

// foldSimple writes to out, from j on, the folded forms of the two-byte
// runes at src[i:] that Normalize may write so, as many as follow one
// another, and returns where it stopped in src and in out. A rune may be
// written so when it is on the fast path (simpleRunes) and what follows
// it cannot combine with it or change how it is normalized: the end of
// the text, printable ASCII or white space, or another such rune (a
// control may hide a mark behind it). tab is simpleRunes(). A folded
// form is no longer than its rune, so out needs no more room than src
// takes.
func foldSimple(tab *[0x800]simpleRune, src []byte, i int, out []byte, j int) (int, int) {
	k := twoByteAt(src, i)
	if k < 0 || tab[k].n == 0 {
		return i, j
	}
	for {
		// The rune at i is on the fast path (k); so is the next, nk,
		// unless it is ASCII or the end.
		next, nk := i+2, -1
		if next < len(src) {
			if c := src[next]; c < utf8.RuneSelf {
				if asciiNorm[c] == normDrop {
					return i, j
				}
			} else if nk = twoByteAt(src, next); nk < 0 || tab[nk].n == 0 {
				return i, j
			}
		}
		sr := &tab[k]
		out[j] = sr.fold[0]
		if sr.n == 2 {
			out[j+1] = sr.fold[1]
		}
		j += int(sr.n)
		if i = next; nk < 0 {
			return i, j
		}
		k = nk
	}
}

// latinClass returns the word-break class of r, a non-ASCII rune of
// normalized text, for latinWords, and whether the fast path takes it: a
// letter or punctuation mark of tab (simpleRunes()), or one of the
// dashes, the bullet and the euro sign.
func latinClass(tab *[0x800]simpleRune, r rune) (uint8, bool) {
	if r < 0x800 {
		sr := tab[r]
		return sr.class, sr.n > 0
	}
	switch r {
	case 0x2013, 0x2014, 0x2022, 0x20ac: // – — • €
		return wbOther, true
	}
	return 0, false
}

// latinWords emits the word tokens of text[start:end], a run of ASCII and
// of the runes latinClass takes, bounded by white space, CJK characters or
// the ends of the text. It follows the rules of asciiWords, with the
// letters of latinClass as ASCII letters (latinSpans), 32 words at a time.
func latinWords(text []byte, start, end int, emit func(Token)) {
	tab := simpleRunes()
	var buf [64]uint32
	for i := start; i < end; {
		var spans []uint32
		spans, i, _ = latinSpans(tab, text[:end], i, buf[:0], len(buf)/2)
		for k := 0; k+1 < len(spans); k += 2 {
			s, e := int(spans[k]), int(spans[k+1])
			emit(Token{Text: text[s:e], Start: s, End: e})
		}
	}
}

// LatinSpans appends to dst the start and end offsets of the word tokens
// of text, normalized, and reports true, when every rune of it beyond
// ASCII is a Latin, Greek or Cyrillic letter or a punctuation mark of the
// fast path (see simpleRunes): the tokens Words gives, in one pass with no
// call per token. For other text it reports false and dst as it was.
func LatinSpans(dst []uint32, text []byte) ([]uint32, bool) {
	if !latinFast || len(text) >= 1<<32 {
		return dst, false
	}
	spans, _, ok := latinSpans(simpleRunes(), text, 0, dst, len(text))
	if !ok {
		return dst, false
	}
	return spans, true
}

// latinSpans appends to spans the start and end offsets of the word
// tokens of text from i on (see latinWords), and returns them with where
// it stopped: after most words, at the end of the text, or at a rune that
// latinClass does not take, which it reports with ok false. A word that
// starts with _ and holds no letter or number is no token, as in
// asciiWords.
func latinSpans(tab *[0x800]simpleRune, text []byte, i int, spans []uint32, most int) (_ []uint32, next int, ok bool) {
	end := len(text)
	for words := 0; i < end && words < most; {
		c, n := asciiClass[text[i]&0x7f], 1
		if k := twoByteAt(text, i); k >= 0 {
			// As in the loop below.
			if tab[k].n == 0 {
				return spans, i, false
			}
			c, n = tab[k].class, 2
		} else if text[i] >= utf8.RuneSelf {
			var ok bool
			if c, n, ok = runeClass(tab, text, i); !ok {
				return spans, i, false
			}
		}
		if wbWordMask>>c&1 == 0 {
			i += n
			continue
		}
		s := i
		prev := c
		for i += n; i < end; {
			if b := text[i]; b < utf8.RuneSelf && wordByte[b] {
				prev = asciiClass[b]
				i++
				continue
			}
			if k := twoByteAt(text, i); k >= 0 {
				// A two-byte letter, as most of Greek and Cyrillic text
				// is, read here rather than by class.
				if sr := &tab[k]; sr.n != 0 && wbWordMask>>sr.class&1 != 0 {
					prev = sr.class
					i += 2
					continue
				}
			}
			c, n := asciiClass[text[i]&0x7f], 1
			if text[i] >= utf8.RuneSelf {
				var ok bool
				if c, n, ok = runeClass(tab, text, i); !ok {
					return spans, i, false
				}
			}
			if wbWordMask>>c&1 != 0 {
				prev = c
				i += n
				continue
			}
			if c >= wbMidL && i+n < end {
				q, m := asciiClass[text[i+n]&0x7f], 1
				if text[i+n] >= utf8.RuneSelf {
					var ok bool
					if q, m, ok = runeClass(tab, text, i+n); !ok {
						return spans, i + n, false
					}
				}
				if prev == wbLetter && q == wbLetter && c != wbMidN || prev == wbNumber && q == wbNumber && c != wbMidL {
					prev = q
					i += n + m
					continue
				}
			}
			break
		}
		if text[s] != '_' || hasWordRune(text[s:i]) {
			spans = append(spans, uint32(s), uint32(i))
			words++
		}
	}
	return spans, i, true
}

// runeClass returns the word-break class of the non-ASCII rune at
// text[i] (latinClass), its length, and whether the fast path takes it.
func runeClass(tab *[0x800]simpleRune, text []byte, i int) (uint8, int, bool) {
	if k := twoByteAt(text, i); k >= 0 {
		sr := &tab[k]
		return sr.class, 2, sr.n != 0
	}
	r, n := decodeRune(text[i:])
	cl, ok := latinClass(tab, r)
	return cl, n, ok
}

// twoByteAt returns the rune at text[i] when it is a well-formed
// two-byte rune (U+0080 to U+07FF: an index of simpleRunes), and -1
// otherwise. It is small enough to be inlined where most letters of
// European text are read.
func twoByteAt(text []byte, i int) int {
	if i+1 < len(text) {
		if c, d := text[i], text[i+1]; c-0xc2 <= 0xdf-0xc2 && d&0xc0 == 0x80 {
			return int(c&0x1f)<<6 | int(d&0x3f)
		}
	}
	return -1
}

// latinText reports whether every non-ASCII rune of text is one that
// latinWords takes (latinClass), so that it may split the whole text.
func latinText(text []byte) bool {
	tab := simpleRunes()
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i += asciiPrefix(text[i:])
			continue
		}
		if c >= 0xc2 && c <= 0xdf && i+1 < len(text) && text[i+1]&0xc0 == 0x80 {
			if tab[rune(c&0x1f)<<6|rune(text[i+1]&0x3f)].n == 0 {
				return false
			}
			i += 2
			continue
		}
		r, n := decodeRune(text[i:])
		if _, ok := latinClass(tab, r); !ok {
			return false
		}
		i += n
	}
	return true
}
