package analysis

import (
	"encoding/binary"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// A Token is one word of a text. Text is a sub-slice of the tokenized text,
// valid only during the call that receives it; Start and End are its byte
// offsets in that text. CJK is true for a token of Han, Kana or Hangul
// characters (one character for the Words tokenizer, a word for Segmenter).
type Token struct {
	Text       []byte
	Start, End int
	CJK        bool
}

// A Tokenizer splits text into tokens and calls emit for each, in order.
type Tokenizer interface {
	Tokenize(text []byte, emit func(Token))
}

// Words is the default Tokenizer. Each Han, Hiragana, Katakana or Hangul
// character (and U+30FC, the Katakana prolonged sound mark) is a token of
// its own. The text between them is split into words by the Unicode word
// boundary rules (UAX #29, github.com/rivo/uniseg), but for one rule: a
// full stop between two letters ends a word, as a space would ("late.the",
// which UAX #29 keeps whole, is "late" and "the"; "3.14" stays one), so
// that a copy whose full stops lost the space after them ("home late.The
// door") has the words of the original. Every word that holds at least one
// letter or number is a token; punctuation, spaces and symbols are not.
// ASCII runs, and texts whose other runes are Latin, Greek or Cyrillic
// letters and common punctuation (see latin.go), take fast paths that
// give exactly the same tokens. Words never allocates and never panics,
// even on text that is not normalized or not valid UTF-8.
type Words struct{}

// Tokenize calls emit for every word token of normalized text (see Words);
// tok is only valid during the call. It is the contract tokenizer of the
// project, shared by fingerprinting and verification.
func Tokenize(text []byte, emit func(tok []byte)) {
	Words{}.Tokenize(text, func(t Token) { emit(t.Text) })
}

// Chars calls emit for every character of normalized text other than the
// spaces, in order; tok is only valid during the call. They are the tokens
// of a text that has no words (Tokenize finds none in punctuation,
// symbols or emoji), for fingerprinting and verification alike.
func Chars(text []byte, emit func(tok []byte)) {
	for i := 0; i < len(text); {
		_, n := utf8.DecodeRune(text[i:])
		if text[i] != ' ' {
			emit(text[i : i+n])
		}
		i += n
	}
}

// Tokenize implements Tokenizer.
//
// It makes one pass over ASCII text: the words of a run (the text between
// white space and CJK characters) are found as the run is scanned and held
// back until the run ends; if the run turns out to hold other non-ASCII
// text, they are dropped and the run is tokenized by uniseg instead.
func (Words) Tokenize(text []byte, emit func(Token)) {
	if isASCII(text) {
		// White space is a word boundary like any other non-word ASCII
		// byte, so ASCII text needs no runs.
		asciiWords(text, 0, len(text), emit)
		return
	}
	if latinFast && len(text) < 1<<32 && latinText(text) { // offsets in 32 bits
		// Likewise text whose other runes are all Latin letters and
		// punctuation of the fast path (no CJK character).
		latinWords(text, 0, len(text), emit)
		return
	}
	n := len(text)
	var held [8][2]int         // words of the current run, not yet emitted
	var tab *[0x800]simpleRune // the Latin fast path's table, once needed
	for i := 0; i < n; {
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				i++
				continue
			}
		} else if r, size := decodeRune(text[i:]); IsCJK(r) {
			emit(Token{Text: text[i : i+size], Start: i, End: i + size, CJK: true})
			i += size
			continue
		}
		s, nh, ascii, latin, overflow := i, 0, true, latinFast && n < 1<<32, false
	run:
		for i < n {
			c := text[i]
			switch {
			case wordByte[c]:
				ws := i
				i = wordEnd(text, i, n)
				if text[ws] == '_' && !hasWordRune(text[ws:i]) {
					continue
				}
				if nh == len(held) {
					overflow = true
					continue
				}
				held[nh] = [2]int{ws, i}
				nh++
			case c < utf8.RuneSelf:
				if asciiSpace[c] {
					break run
				}
				i++
			default:
				r, size := decodeRune(text[i:])
				if IsCJK(r) {
					break run
				}
				ascii = false
				if latin {
					if tab == nil {
						tab = simpleRunes()
					}
					_, latin = latinClass(tab, r)
				}
				i += size
			}
		}
		switch {
		case !ascii && latin:
			latinWords(text, s, i, emit)
		case !ascii:
			unicodeWords(text, s, i, emit)
		case overflow:
			asciiWords(text, s, i, emit)
		default:
			for _, w := range held[:nh] {
				emit(Token{Text: text[w[0]:w[1]], Start: w[0], End: w[1]})
			}
		}
	}
}

// IsCJK reports whether r is a Han, Hiragana, Katakana or Hangul character
// (or U+30FC): the characters that Words makes tokens of their own.
func IsCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case 0x4e00 <= r && r <= 0x9fff, 0xac00 <= r && r <= 0xd7a3, r == 0x30fc:
		// CJK Unified Ideographs and Hangul syllables, checked first.
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// Word-break classes of ASCII bytes (UAX #29).
const (
	wbOther    = iota
	wbLetter   // ALetter
	wbNumber   // Numeric
	wbExtend   // ExtendNumLet: _
	wbMidL     // MidLetter: :
	wbMidNL    // Single_Quote: ' (joins letters, and digits)
	wbMidN     // MidNum: , ; and the full stop . (which UAX #29 has join letters too)
	wbWordMask = 1<<wbLetter | 1<<wbNumber | 1<<wbExtend
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = wbLetter, wbLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = wbNumber
	}
	t['_'], t[':'], t['.'], t['\''], t[','], t[';'] = wbExtend, wbMidL, wbMidN, wbMidNL, wbMidN, wbMidN
	return t
}()

// asciiWords emits the word tokens of text[start:end], which is all ASCII and
// bounded by white space, CJK characters or the ends of the text. It follows
// the UAX #29 rules that apply to ASCII: letters, digits and _ join (WB5,
// WB8-WB10, WB13a/b); a letter, then : or ', then a letter join (WB6/7,
// which also joins by a full stop: Words does not); a digit, then , ; . or
// ', then a digit join (WB11/12).
func asciiWords(text []byte, start, end int, emit func(Token)) {
	text = text[:end]
	i := start
	for i < end {
		if !wordByte[text[i]] {
			i++
			continue
		}
		s := i
		i = wordEnd(text, i, end)
		if text[s] != '_' || hasWordRune(text[s:i]) {
			emit(Token{Text: text[s:i], Start: s, End: i})
		}
	}
}

// wordEnd returns the end of the ASCII word that starts at text[i], a word
// byte, and may run up to end: word bytes, and the punctuation that joins
// two (joinsMid).
func wordEnd(text []byte, i, end int) int {
	for {
		for i < end && wordByte[text[i]] {
			i++
		}
		if i+1 < end && joinsMid(text[i-1], text[i], text[i+1]) {
			i += 2
			continue
		}
		return i
	}
}

// isASCII reports whether b is all ASCII, eight bytes at a time.
func isASCII(b []byte) bool {
	var acc uint64
	for len(b) >= 8 {
		acc |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		acc |= uint64(c)
	}
	return acc&0x8080808080808080 == 0
}

// wordByte marks the ASCII letters, digits and _.
var wordByte = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = wbWordMask>>asciiClass[c]&1 != 0
	}
	return t
}()

// joinsMid reports whether the punctuation mid, between prev and next,
// joins them into one word (WB6/7, WB11/12).
func joinsMid(prev, mid, next byte) bool {
	m := asciiClass[mid&0x7f]
	if mid >= utf8.RuneSelf || m < wbMidL {
		return false
	}
	p, q := asciiClass[prev&0x7f], asciiClass[next&0x7f]
	if next >= utf8.RuneSelf {
		return false
	}
	return p == wbLetter && q == wbLetter && m != wbMidN ||
		p == wbNumber && q == wbNumber && m != wbMidL
}

// unicodeWords emits the word tokens of text[start:end] by UAX #29, each
// word cut at its full stops between two letters (see Words).
func unicodeWords(text []byte, start, end int, emit func(Token)) {
	b := text[start:end]
	state := -1
	pos := start
	for len(b) > 0 {
		var w []byte
		w, b, state = uniseg.FirstWord(b, state)
		for {
			part := w
			i := indexStop(w)
			if i >= 0 {
				part = w[:i]
			}
			if hasWordRune(part) {
				emit(Token{Text: part, Start: pos, End: pos + len(part)})
			}
			pos += len(part)
			if i < 0 {
				break
			}
			pos++ // the full stop
			w = w[i+1:]
		}
	}
}

// indexStop returns the index of the first full stop of w that has a
// letter right after it and one before it (marks after the letter, which
// UAX #29 keeps with it, skipped), or -1.
func indexStop(w []byte) int {
	for i := 1; i+1 < len(w); i++ {
		if w[i] != '.' {
			continue
		}
		next, _ := utf8.DecodeRune(w[i+1:])
		if !unicode.IsLetter(next) {
			continue
		}
		j := i
		for j > 0 {
			prev, size := utf8.DecodeLastRune(w[:j])
			if unicode.Is(unicode.M, prev) {
				j -= size
				continue
			}
			if unicode.IsLetter(prev) {
				return i
			}
			break
		}
	}
	return -1
}

// hasWordRune reports whether w holds a letter or a number.
func hasWordRune(w []byte) bool {
	for k := 0; k < len(w); {
		c := w[k]
		if c < utf8.RuneSelf {
			if cl := asciiClass[c]; cl == wbLetter || cl == wbNumber {
				return true
			}
			k++
			continue
		}
		r, n := utf8.DecodeRune(w[k:])
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
		k += n
	}
	return false
}
