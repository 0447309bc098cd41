package analysis

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A CharFilter rewrites text before it is tokenized. Filter appends the
// result to dst and returns it; it must not keep src or dst.
type CharFilter interface {
	Filter(dst, src []byte) []byte
}

// Normalize appends to dst the normalized form of src and returns the
// extended slice. The normalized form is:
//
//   - invalid UTF-8 read as U+FFFD, one per invalid byte;
//   - control characters (Unicode Cc other than whitespace) and format
//     characters (Cf) dropped, ZERO WIDTH (NON-)JOINER included: inside
//     words they are invisible, and copies with them strewn in (or left
//     out, as Persian often writes them) are the same text; so are the
//     Hangul fillers and the combining grapheme joiner, which show
//     nothing either (see invisible);
//   - the optional marks of Arabic (harakat, tatweel) and Hebrew (points
//     and cantillation) dropped (see optionalMark): a text with its
//     vowels marked and the same text without are one text;
//   - Unicode NFKC, which also folds full-width and half-width forms;
//   - the curly quotation marks ‘ ’ ‚ ‛ read as the ASCII apostrophe ',
//     and “ ” „ ‟ as the ASCII quotation mark ": word processors and
//     content systems curl them, so "don’t" and "don't" are one word;
//   - simple case folding to lower case, with ß and ẞ folded to "ss";
//   - every run of white space (Unicode White_Space) replaced by one ASCII
//     space, with no space at the start or the end, and none next to a
//     character of Chinese or Japanese (Han, Kana, CJK punctuation), which
//     put no spaces between words: there a space or a line break is
//     layout (text wrapped by hand, spaced out, or spaced from Latin words
//     and numbers, as in "在 GitHub 上" for "在GitHub上"). A space before a
//     combining mark stays.
//
// Normalize is idempotent: normalizing its output again changes nothing.
// Its output is valid UTF-8. ASCII text takes a byte-at-a-time fast path
// with exactly the same result and does not allocate when dst has room,
// and so do the Latin, Greek and Cyrillic letters that need no context
// (see latin.go); other non-ASCII text needs scratch space, which a
// Scratch keeps between calls.
func Normalize(dst, src []byte) []byte {
	var s Scratch
	return s.Normalize(dst, src)
}

// Normalizer is a CharFilter that applies Normalize, after an optional
// HTML-to-text step. The zero value normalizes plain text.
type Normalizer struct {
	// HTML, when true, first converts src from HTML to text with StripHTML.
	// Default false.
	HTML bool
}

// Filter appends the normalized form of src to dst. With HTML set it
// allocates a temporary buffer; callers on a hot path should keep their own
// buffer and call StripHTML and Normalize themselves.
func (n Normalizer) Filter(dst, src []byte) []byte {
	if n.HTML {
		src = StripHTML(nil, src)
	}
	return Normalize(dst, src)
}

// Scratch holds the buffers of the non-ASCII path of Normalize, so that a
// caller that normalizes many texts allocates only until the buffers have
// grown. The zero value is ready to use. A Scratch must not be used by two
// goroutines at once.
type Scratch struct {
	a, b []byte
	out  []byte    // NormalizedLen's output for non-ASCII text
	it   norm.Iter // reused: norm.Form.Append allocates a buffer per call
}

// NormalizedLen returns the length in runes of the normalized form of src,
// utf8.RuneCount(Normalize(nil, src)). ASCII text is counted without being
// written out, eight bytes at a time while they are printable or white
// space.
func (s *Scratch) NormalizedLen(src []byte) int {
	n, space := 0, false // runes out, and whether the last one is a space
	i := 0
	for ; i+8 <= len(src); i += 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		if x&swarHigh != 0 {
			break // a non-ASCII byte
		}
		kept := swarAtLeast(x, 0x21) &^ swarAtLeast(x, 0x7f)
		white := swarAtLeast(x, 0x20)&^swarAtLeast(x, 0x21) | swarAtLeast(x, '\t')&^swarAtLeast(x, '\r'+1)
		if kept|white != swarHigh {
			break // a control byte, which the loop below drops
		}
		// A white-space byte right after a printable one (in this word,
		// or the last rune out) starts a run that puts out one space.
		after := kept << 8
		if n > 0 && !space {
			after |= 0x80
		}
		n += bits.OnesCount64(kept) + bits.OnesCount64(white&after)
		space = n > 0 && x>>56 <= ' ' // the last byte is white space
	}
	for _, c := range src[i:] {
		switch v := asciiNorm[c]; {
		case v > normSlow:
			n++
			space = false
		case v == normSpace:
			if n > 0 && !space {
				n++
				space = true
			}
		case v == normSlow:
			s.out = s.Normalize(s.out[:0], src)
			return utf8.RuneCount(s.out)
		}
	}
	if space {
		n--
	}
	return n
}

// swarHigh is the top bit of each byte of a word.
const swarHigh = 0x8080808080808080

// swarAtLeast sets the top bit of each byte of x, all below 0x80, that is
// at least lo (from 1 to 0x80), and clears the rest.
func swarAtLeast(x uint64, lo byte) uint64 {
	return (x + (0x80-uint64(lo))*0x0101010101010101) & swarHigh
}

// nfkc appends the NFKC form of src to dst.
func (s *Scratch) nfkc(dst, src []byte) []byte {
	n := norm.NFKC.QuickSpan(src)
	dst = append(dst, src[:n]...)
	if n == len(src) {
		return dst
	}
	s.it.Init(norm.NFKC, src[n:])
	for !s.it.Done() {
		dst = append(dst, s.it.Next()...)
	}
	return dst
}

// Normalize is the package function Normalize, reusing the buffers of s.
//
// Runs of ASCII are handled byte by byte;
// each run of non-ASCII bytes goes through the full Unicode path together
// with the tail of the output that it may combine with (back to the last
// normalization boundary), so the split never changes the result.
func (s *Scratch) Normalize(dst, src []byte) []byte {
	start := len(dst)
	dst = slices.Grow(dst, len(src))
	// ASCII output is never longer than its input, so the fast loop writes
	// by index into the spare capacity.
	out := dst[:cap(dst)]
	j := start
	// pend is where a space after a Chinese or Japanese character would
	// go: it is written only if a combining mark follows (see unspaced).
	pend := -1
	var tab *[0x800]simpleRune // the Latin fast path's table, once needed
	for i := 0; i < len(src); {
		v := asciiNorm[src[i]]
		if v > normSlow {
			out[j] = v
			j++
			i++
			continue
		}
		switch v {
		case normSpace:
			// A space goes out at once unless one is there already; a
			// trailing one is cut at the end.
			if j > start && out[j-1] != ' ' {
				if out[j-1] >= utf8.RuneSelf && spacedFrom(out[start:j]) {
					pend = j
				} else {
					out[j] = ' '
					j++
				}
			}
			i++
		case normDrop:
			i++
		default:
			if latinFast && tab == nil {
				tab = simpleRunes()
			}
			if tab != nil {
				if k, l := foldSimple(tab, src, i, out, j); k > i {
					// Letters and marks of the Latin fast path (see
					// simpleRunes): written as ASCII bytes are, and a
					// space held after a Chinese character goes, as
					// before a letter.
					i, j = k, l
					continue
				}
			}
			// The run takes in control bytes too (they are dropped all
			// the same), so that marks separated only by controls do not
			// each take the output tail back through NFKC.
			k := i + 1
			for k < len(src) && (src[k] >= utf8.RuneSelf || asciiNorm[src[k]] == normDrop) {
				k++
			}
			space, held := pend == j, false
			pend = -1
			switch {
			case space:
			case j > start && out[j-1] == ' ':
				space = true
				j--
			default:
				if c := lastKept(src[:i]); 'A' <= c && c <= 'Z' {
					// The letter just written goes to the slow path as
					// it was: the marks that follow may compose with it,
					// and I with a dot above composes into U+0130, which
					// folds to "i", where "i" and the dot stay two
					// characters.
					out[j-1], held = c, true
				}
			}
			dst, space = s.slow(out[:j], start, space, src[i:k], held)
			if space {
				if spacedFrom(dst[start:]) {
					pend = len(dst)
				} else {
					dst = append(dst, ' ')
				}
			}
			i = k
			dst = slices.Grow(dst, len(src)-i)
			out = dst[:cap(dst)]
			j = len(dst)
		}
	}
	if j > start && out[j-1] == ' ' {
		j--
	}
	return out[:j]
}

// lastKept returns the last byte of src that is not an ASCII control
// character (which Normalize drops), or 0 if there is none.
func lastKept(src []byte) byte {
	for i := len(src) - 1; i >= 0; i-- {
		if asciiNorm[src[i]] != normDrop {
			return src[i]
		}
	}
	return 0
}

// Markers in asciiNorm; every other value is the output byte itself.
const (
	normDrop  = 0 // a control character
	normSpace = 1 // white space
	normSlow  = 2 // a non-ASCII byte
)

// asciiNorm maps each byte to what the fast path writes: the lower-case
// byte for printable ASCII, or a marker.
var asciiNorm = func() (t [256]byte) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	for _, c := range "\t\n\v\f\r " {
		t[c] = normSpace
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = normSlow
	}
	return t
}()

// asciiSpace marks the ASCII bytes that are Unicode White_Space.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// slow normalizes seg, a run of non-ASCII bytes, onto dst. held says
// that the last byte of dst is an ASCII letter not yet folded, which the
// run must take back whether or not it may combine with it.
func (s *Scratch) slow(dst []byte, start int, space bool, seg []byte, held bool) ([]byte, bool) {
	// Take back the tail of the output that the run may combine with.
	a := s.a[:0]
	if !space {
		lb := start + norm.NFKC.LastBoundary(dst[start:])
		if lb < start {
			lb = start
		}
		if held {
			lb = min(lb, len(dst)-1)
		}
		a = append(a, dst[lb:]...)
		dst = dst[:lb]
	}
	inert := true // every rune so far is unchanged by NFKC and folding
	for k := 0; k < len(a); {
		r, n := decodeRune(a[k:])
		inert = inert && isInert(r)
		k += n
	}
	// Invalid bytes become U+FFFD; controls and format characters go.
	// Runes kept as they are are copied in bulk.
	kept := 0 // seg[kept:k] is still to copy
	for k := 0; k < len(seg); {
		r, n := decodeRune(seg[k:])
		fullWidth := r >= 0xff01 && r <= 0xff5e
		quote := r >= 0x2018 && r <= 0x201f
		if !fullWidth && !quote && r != 0x3000 && !dropRune(r) && (r != utf8.RuneError || n > 1) {
			inert = inert && isInert(r)
			k += n
			continue
		}
		a = append(a, seg[kept:k]...)
		switch {
		case fullWidth:
			// Full-width ASCII: its NFKC decomposition is the ASCII
			// character, which composes with nothing before it, so
			// mapping it (and folding its case) here gives the result of
			// NFKC and folding without their slow paths.
			a = append(a, asciiNorm[r-0xfee0])
		case quote:
			// Curly quotation marks, likewise: no character's NFKC form
			// holds one, and the ASCII marks compose with nothing.
			a = append(a, "''''\"\"\"\""[r-0x2018])
		case r == 0x3000:
			a = append(a, ' ') // IDEOGRAPHIC SPACE, likewise
			inert = false      // white space to fold
		case r == utf8.RuneError:
			a = utf8.AppendRune(a, r)
		}
		k += n
		kept = k
	}
	a = append(a, seg[kept:]...)
	if inert {
		// Nothing to normalize, fold or drop, and no white space.
		s.a = a
		if len(a) > 0 && space {
			if r, _ := decodeRune(a); !unspaced(dst[start:], r) {
				dst = append(dst, ' ')
			}
			space = false
		}
		return append(dst, a...), space
	}
	b := s.nfkc(s.b[:0], a)
	// Fold case until stable (folding may denormalize, NFKC may unfold).
	for range 3 {
		var changed bool
		a, changed = foldCase(a[:0], b)
		if !changed {
			break
		}
		b = s.nfkc(b[:0], a)
	}
	s.a, s.b = a, b
	for k := 0; k < len(b); {
		r, n := decodeRune(b[k:])
		if r > 0x3000 && r < 0xfeff {
			// Common case (CJK): neither space nor dropped.
			if space && !unspaced(dst[start:], r) {
				dst = append(dst, ' ')
			}
			space = false
			dst = append(dst, b[k:k+n]...)
		} else if unicode.IsSpace(r) {
			space = len(dst) > start
		} else if !dropRune(r) {
			if space && !unspaced(dst[start:], r) {
				dst = append(dst, ' ')
			}
			space = false
			dst = append(dst, b[k:k+n]...)
		}
		k += n
	}
	return dst, space
}

// unspaced reports whether the white space between the normalized text
// out and the rune r goes: when r or the last rune of out is of the
// scripts written without spaces between words (see spaceless), where a
// space is a line wrapped by hand or spacing out, not a word boundary. A
// space before a combining mark stays (see spaceless).
func unspaced(out []byte, r rune) bool {
	if spaceless(r) {
		return true
	}
	return !unicode.Is(unicode.M, r) && spacedFrom(out)
}

// spacedFrom reports whether out ends with a rune of the scripts written
// without spaces (see spaceless): a space after it goes unless a
// combining mark follows.
func spacedFrom(out []byte) bool {
	if n := len(out); n >= 2 && out[n-2] >= 0xc2 && out[n-2] <= 0xdf {
		return false // a two-byte rune, below U+0800: Latin, Greek, Cyrillic...
	}
	last, _ := utf8.DecodeLastRune(out)
	return spaceless(last)
}

// spaceless reports whether r is a Han ideograph, a Kana or CJK
// punctuation (U+3001 to U+30FF, U+31F0 to U+31FF): the scripts of
// Chinese and Japanese, written without spaces. Hangul is not: Korean puts
// spaces between words. Nor are the combining marks of that range (the
// Kana sound marks U+3099 and U+309A, the ideographic tone marks): a space
// before one stays, since without it the mark would join the character
// before only on the next normalization, which then would not give back
// the same text (NFKC writes the spacing sound mark U+309B as a space and
// U+3099).
func spaceless(r rune) bool {
	switch {
	case r < 0x3001, 0x302a <= r && r <= 0x302f, r == 0x3099, r == 0x309a:
		return false
	case r <= 0x30ff, 0x31f0 <= r && r <= 0x31ff, 0x3400 <= r && r <= 0x4dbf, 0x4e00 <= r && r <= 0x9fff,
		0xf900 <= r && r <= 0xfaff, 0x20000 <= r && r <= 0x3ffff:
		return true
	}
	return false
}

// dropRune reports whether the normalizer removes r: controls that are not
// white space, format characters, the invisible letters and mark
// (invisible), and the optional marks of Arabic and Hebrew (optionalMark).
func dropRune(r rune) bool {
	if r < utf8.RuneSelf {
		return (r < 0x20 || r == 0x7f) && !asciiSpace[r]
	}
	if r == 0x85 || r >= 0x2070 && r < 0xfeff { // NEXT LINE is white space; no Cc or Cf in the range
		return r == 0x3164
	}
	if optionalMark(r) || invisible(r) {
		return true
	}
	if unicode.Is(unicode.Cc, r) {
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// invisible reports whether r is one of the characters that show nothing
// but are not format characters, which the normalizer drops as it drops
// those: the Hangul fillers (U+3164 and its half-width form U+FFA0, which
// NFKC makes U+1160, and U+115F), letters to Unicode, and the combining
// grapheme joiner (U+034F), a mark. Strewn inside words they made new
// words: "fr\u3164ee money" was 25 bits from "free money".
func invisible(r rune) bool {
	return r == 0x34f || r == 0x115f || r == 0x1160 || r == 0x3164 || r == 0xffa0
}

// optionalMark reports whether r is a mark that Arabic and Hebrew write or
// leave out at will, which Normalize drops, as Arabic and Hebrew text
// analysis commonly does (Lucene's Arabic normalizer, say): the Arabic
// harakat (tanwin, fatha, damma, kasra, shadda, sukun, U+064B to U+0652)
// and superscript alef (U+0670), the tatweel that stretches a word for
// justification (U+0640), and the Hebrew points and cantillation marks
// (U+0591 to U+05C7, but for the punctuation among them). The Arabic marks
// that combine with a letter into another letter (madda and hamza, U+0653
// to U+0655) stay.
func optionalMark(r rune) bool {
	switch {
	case r >= 0x64b && r <= 0x652, r == 0x670, r == 0x640:
		return true
	case r >= 0x591 && r <= 0x5bd, r == 0x5bf, r == 0x5c1, r == 0x5c2, r == 0x5c4, r == 0x5c5, r == 0x5c7:
		return true
	}
	return false
}

// foldCase appends the case-folded form of src to dst and reports whether
// anything changed. It uses simple folding (lower(upper(r))), plus ß -> ss.
func foldCase(dst, src []byte) ([]byte, bool) {
	changed := false
	for k := 0; k < len(src); {
		c := src[k]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
				changed = true
			}
			dst = append(dst, c)
			k++
			continue
		}
		r, n := decodeRune(src[k:])
		if r >= 0x3000 && r < 0xa000 || r >= 0xac00 && r < 0xd800 {
			// CJK, Kana, Hangul: no case.
			dst = append(dst, src[k:k+n]...)
			k += n
			continue
		}
		k += n
		var f rune
		switch r {
		case 'ß', 'ẞ':
			dst = append(dst, 's', 's')
			changed = true
			continue
		default:
			f = unicode.ToLower(unicode.ToUpper(r))
		}
		if f != r {
			changed = true
		}
		dst = utf8.AppendRune(dst, f)
	}
	return dst, changed
}

// isInert reports whether r is left alone by NFKC and case folding and
// never composes with its neighbours: printable ASCII other than letters
// and < = >, the CJK Unified Ideographs, and common CJK punctuation. A
// run of such runes needs neither NFKC nor folding, which makes Chinese text
// several times faster to normalize.
func isInert(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		// Letters and < = > compose with combining marks.
		return r > ' ' && r < 0x7f && !isASCIILetter(byte(r)) && r != '<' && r != '=' && r != '>'
	case 0x4e00 <= r && r <= 0x9fff:
		return true
	}
	switch r {
	case 0x3001, 0x3002, 0x300a, 0x300b, 0x300c, 0x300d, 0x300e, 0x300f, 0x3010, 0x3011, 0x2014:
		return true
	}
	return false
}

// decodeRune is utf8.DecodeRune with the three-byte sequences of
// U+1000..U+CFFF (CJK and Hangul among them) decoded inline.
func decodeRune(b []byte) (rune, int) {
	if len(b) >= 3 {
		c0, c1, c2 := b[0], b[1], b[2]
		if c0 >= 0xe1 && c0 <= 0xec && c1&0xc0 == 0x80 && c2&0xc0 == 0x80 {
			return rune(c0&0x0f)<<12 | rune(c1&0x3f)<<6 | rune(c2&0x3f), 3
		}
	}
	return utf8.DecodeRune(b)
}
