package analysis

import (
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
// boundary rules (UAX #29, github.com/rivo/uniseg), and every word that
// holds at least one letter or number is a token; punctuation, spaces and
// symbols are not. ASCII runs take a fast path that gives exactly the
// tokens UAX #29 gives. Words never allocates and never panics, even on
// text that is not normalized or not valid UTF-8.
type Words struct{}

// Tokenize calls emit for every word token of normalized text (see Words);
// tok is only valid during the call. It is the contract tokenizer of the
// project, shared by fingerprinting and verification.
func Tokenize(text []byte, emit func(tok []byte)) {
	Words{}.Tokenize(text, func(t Token) { emit(t.Text) })
}

// Tokenize implements Tokenizer.
func (Words) Tokenize(text []byte, emit func(Token)) {
	// Runs of other text between CJK characters. White space is always a
	// word boundary, so ASCII runs end there too and stay short.
	runStart, ascii := 0, true
	flush := func(end int) {
		if end > runStart {
			if ascii {
				asciiWords(text, runStart, end, emit)
			} else {
				unicodeWords(text, runStart, end, emit)
			}
		}
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				flush(i)
				runStart, ascii = i+1, true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(text[i:])
		if IsCJK(r) {
			flush(i)
			emit(Token{Text: text[i : i+n], Start: i, End: i + n, CJK: true})
			runStart, ascii = i+n, true
		} else {
			ascii = false
		}
		i += n
	}
	flush(len(text))
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
	wbMidNL    // MidNumLet and Single_Quote: . '
	wbMidN     // MidNum: , ;
	wbWordMask = 1<<wbLetter | 1<<wbNumber | 1<<wbExtend
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = wbLetter, wbLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = wbNumber
	}
	t['_'], t[':'], t['.'], t['\''], t[','], t[';'] = wbExtend, wbMidL, wbMidNL, wbMidNL, wbMidN, wbMidN
	return t
}()

// asciiWords emits the word tokens of text[start:end], which is all ASCII and
// bounded by white space, CJK characters or the ends of the text. It follows
// the UAX #29 rules that apply to ASCII: letters, digits and _ join (WB5,
// WB8-WB10, WB13a/b); a letter, then : . or ', then a letter join (WB6/7);
// a digit, then , ; . or ', then a digit join (WB11/12).
func asciiWords(text []byte, start, end int, emit func(Token)) {
	i := start
	for i < end {
		if wbWordMask>>asciiClass[text[i]]&1 == 0 {
			i++
			continue
		}
		s := i
		alnum := asciiClass[text[i]] != wbExtend
		prev := asciiClass[text[i]]
		i++
		for i < end {
			c := asciiClass[text[i]]
			if wbWordMask>>c&1 != 0 {
				alnum = alnum || c != wbExtend
				prev = c
				i++
				continue
			}
			if i+1 < end {
				next := asciiClass[text[i+1]]
				if prev == wbLetter && next == wbLetter && (c == wbMidL || c == wbMidNL) ||
					prev == wbNumber && next == wbNumber && (c == wbMidN || c == wbMidNL) {
					prev = next
					i += 2
					continue
				}
			}
			break
		}
		if alnum {
			emit(Token{Text: text[s:i], Start: s, End: i})
		}
	}
}

// unicodeWords emits the word tokens of text[start:end] by UAX #29.
func unicodeWords(text []byte, start, end int, emit func(Token)) {
	b := text[start:end]
	state := -1
	pos := start
	for len(b) > 0 {
		var w []byte
		w, b, state = uniseg.FirstWord(b, state)
		if hasWordRune(w) {
			emit(Token{Text: w, Start: pos, End: pos + len(w)})
		}
		pos += len(w)
	}
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
