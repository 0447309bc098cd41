package analysis

import (
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
//     characters (Cf) dropped, except ZERO WIDTH (NON-)JOINER;
//   - Unicode NFKC, which also folds full-width and half-width forms;
//   - simple case folding to lower case, with ß and ẞ folded to "ss";
//   - every run of white space (Unicode White_Space) replaced by one ASCII
//     space, with no space at the start or the end.
//
// Normalize is idempotent: normalizing its output again changes nothing.
// Its output is valid UTF-8. ASCII text takes a byte-at-a-time fast path
// with exactly the same result and does not allocate when dst has room;
// non-ASCII text needs scratch space, which a Scratch keeps between calls.
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
				out[j] = ' '
				j++
			}
			i++
		case normDrop:
			i++
		default:
			k := i + 1
			for k < len(src) && src[k] >= utf8.RuneSelf {
				k++
			}
			space := j > start && out[j-1] == ' '
			if space {
				j--
			}
			dst, space = s.slow(out[:j], start, space, src[i:k])
			if space {
				dst = append(dst, ' ')
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

// slow normalizes seg, a run of non-ASCII bytes, onto dst.
func (s *Scratch) slow(dst []byte, start int, space bool, seg []byte) ([]byte, bool) {
	// Take back the tail of the output that the run may combine with.
	a := s.a[:0]
	if !space {
		lb := start + norm.NFKC.LastBoundary(dst[start:])
		if lb < start {
			lb = start
		}
		a = append(a, dst[lb:]...)
		dst = dst[:lb]
	}
	// Invalid bytes become U+FFFD; controls and format characters go.
	for k := 0; k < len(seg); {
		r, n := utf8.DecodeRune(seg[k:])
		k += n
		if dropRune(r) {
			continue
		}
		a = utf8.AppendRune(a, r)
	}
	b := norm.NFKC.Append(s.b[:0], a...)
	// Fold case until stable (folding may denormalize, NFKC may unfold).
	for range 3 {
		var changed bool
		a, changed = foldCase(a[:0], b)
		if !changed {
			break
		}
		b = norm.NFKC.Append(b[:0], a...)
	}
	s.a, s.b = a, b
	for k := 0; k < len(b); {
		r, n := utf8.DecodeRune(b[k:])
		if unicode.IsSpace(r) {
			space = len(dst) > start
		} else if !dropRune(r) {
			if space {
				dst = append(dst, ' ')
				space = false
			}
			dst = append(dst, b[k:k+n]...)
		}
		k += n
	}
	return dst, space
}

// dropRune reports whether the normalizer removes r: controls that are not
// white space, and format characters other than the joiners.
func dropRune(r rune) bool {
	if r < utf8.RuneSelf {
		return (r < 0x20 || r == 0x7f) && !asciiSpace[r]
	}
	if r == 0x85 { // NEXT LINE is white space
		return false
	}
	if unicode.Is(unicode.Cc, r) {
		return true
	}
	return r != 0x200c && r != 0x200d && unicode.Is(unicode.Cf, r)
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
		r, n := utf8.DecodeRune(src[k:])
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
