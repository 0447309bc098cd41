package analysis

import (
	"bytes"
	"html"
	"unicode/utf8"
)

// StripHTML appends to dst the text of the HTML document src and returns
// the extended slice: tags and comments are dropped (a '>' inside a quoted
// attribute value does not end a tag), the contents of script, style,
// template and noscript elements, which a browser does not show as text,
// are dropped, character references (&amp;, &#233;,
// &#xE9;, and the named references of HTML5) are decoded. Block-level tags
// (everything but a short list of inline ones such as <b> and <a>) become a
// space, so words in separate paragraphs or cells do not run together.
// Malformed markup is never an error: an unterminated tag ends the text.
func StripHTML(dst, src []byte) []byte { return stripHTML(dst, src, false) }

// MainText is StripHTML without the page's furniture: the contents of its
// nav, header, footer and aside elements, the menus, banners, footers and
// sidebars that a site puts around every page and changes from one
// fetch to the next (related stories, dates, counts), are dropped with
// the tags. A page with no text outside them (or whose furniture is never
// closed) gives StripHTML's text instead, so that no page is left empty.
func MainText(dst, src []byte) []byte {
	start := len(dst)
	dst = stripHTML(dst, src, true)
	if !hasWordRune(dst[start:]) {
		dst = stripHTML(dst[:start], src, false)
	}
	return dst
}

// stripHTML is StripHTML, and MainText without its fallback when main is
// set.
func stripHTML(dst, src []byte, main bool) []byte {
	depth := 0 // furniture elements open (main)
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '<':
			var t tag
			i, t = skipTag(src, i, &dst)
			if main && furniture(t.name) {
				switch {
				case t.closing:
					depth = max(depth-1, 0)
				case !t.selfClosing:
					depth++
				}
			}
		case depth > 0:
			i++ // furniture text
		case c == '&':
			i = decodeEntity(src, i, &dst)
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst
}

// tag is what skipTag read of a tag: its element's name, and whether it
// is an end tag or ends with "/>".
type tag struct {
	name                 []byte
	closing, selfClosing bool
}

// furniture reports whether name is an element that MainText drops.
func furniture(name []byte) bool {
	return asciiEqualFold(name, "nav") || asciiEqualFold(name, "header") || asciiEqualFold(name, "footer") || asciiEqualFold(name, "aside")
}

// skipTag skips the tag, comment or raw-text element starting at src[i]
// ('<'), appending a space for block-level tags, and returns the index
// after it and the tag (none for a comment, a lone '<' or a raw-text
// element, whose content it skips).
func skipTag(src []byte, i int, dst *[]byte) (int, tag) {
	rest := src[i:]
	if bytes.HasPrefix(rest, []byte("<!--")) {
		end := bytes.Index(rest[4:], []byte("-->"))
		if end < 0 {
			return len(src), tag{}
		}
		return i + 4 + end + 3, tag{}
	}
	if len(rest) < 2 || !(isASCIILetter(rest[1]) || rest[1] == '/' || rest[1] == '!' || rest[1] == '?') {
		// A lone '<' is text.
		*dst = append(*dst, '<')
		return i + 1, tag{}
	}
	end := tagEnd(rest)
	if end < 0 {
		return len(src), tag{}
	}
	name := rest[1:end]
	if len(name) > 0 && name[0] == '/' {
		name = name[1:]
	}
	n := 0
	for n < len(name) && (isASCIILetter(name[n]) || '0' <= name[n] && name[n] <= '9') {
		n++
	}
	name = name[:n]
	next := i + end + 1
	if closeTag := hiddenEnd(name); rest[1] != '/' && closeTag != nil {
		// Not shown as text: skip to the matching end tag.
		k := indexFold(src[next:], closeTag)
		if k < 0 {
			return len(src), tag{}
		}
		e := bytes.IndexByte(src[next+k:], '>')
		if e < 0 {
			return len(src), tag{}
		}
		*dst = append(*dst, ' ')
		return next + k + e + 1, tag{}
	}
	if !isInline(name) {
		*dst = append(*dst, ' ')
	}
	return next, tag{name: name, closing: rest[1] == '/', selfClosing: rest[end-1] == '/'}
}

// tagEnd returns the index in tag (which starts with '<') of the '>' that
// ends it, or -1: the first one outside a quoted attribute value (a quote
// right after '=' and optional white space, up to the same quote).
func tagEnd(tag []byte) int {
	for k := 1; k < len(tag); k++ {
		switch tag[k] {
		case '>':
			return k
		case '=':
			v := k + 1
			for v < len(tag) && (tag[v] == ' ' || tag[v] == '\t' || tag[v] == '\n' || tag[v] == '\r' || tag[v] == '\f') {
				v++
			}
			if v < len(tag) && (tag[v] == '"' || tag[v] == '\'') {
				q := bytes.IndexByte(tag[v+1:], tag[v])
				if q < 0 {
					return -1
				}
				k = v + 1 + q // the closing quote
			}
		}
	}
	return -1
}

// hiddenEnd returns the start of the end tag of the element name if its
// content is not shown as text (script, style, template, noscript), else
// nil.
func hiddenEnd(name []byte) []byte {
	for _, t := range hiddenTags {
		if asciiEqualFold(name, t[2:]) {
			return []byte(t)
		}
	}
	return nil
}

// hiddenTags are the end tags of the elements whose content StripHTML
// drops.
var hiddenTags = []string{"</script", "</style", "</template", "</noscript"}

// inlineTags are the elements that do not separate words.
var inlineTags = []string{"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font",
	"i", "kbd", "mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var", "wbr"}

func isInline(name []byte) bool {
	for _, t := range inlineTags {
		if asciiEqualFold(name, t) {
			return true
		}
	}
	return false
}

// decodeEntity decodes the character reference at src[i] ('&') onto dst and
// returns the index after it; an unknown or malformed one is kept as text.
func decodeEntity(src []byte, i int, dst *[]byte) int {
	end := i + 1
	for end < len(src) && end-i < 32 && (isASCIILetter(src[end]) || '0' <= src[end] && src[end] <= '9' || src[end] == '#') {
		end++
	}
	if end < len(src) && src[end] == ';' {
		end++
	}
	ref := src[i:end]
	if len(ref) > 1 {
		switch string(ref) {
		case "&amp;":
			*dst = append(*dst, '&')
			return end
		case "&lt;":
			*dst = append(*dst, '<')
			return end
		case "&gt;":
			*dst = append(*dst, '>')
			return end
		case "&quot;":
			*dst = append(*dst, '"')
			return end
		case "&nbsp;":
			*dst = append(*dst, ' ')
			return end
		}
		// html.UnescapeString returns its argument when there is nothing
		// to decode; it allocates only for the rarer references.
		if u := html.UnescapeString(string(ref)); u != string(ref) && utf8.ValidString(u) {
			*dst = append(*dst, u...)
			return end
		}
	}
	*dst = append(*dst, '&')
	return i + 1
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// asciiEqualFold reports whether b equals the lower-case ASCII word s,
// ignoring ASCII case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for k := range b {
		if b[k]|0x20 != s[k] {
			return false
		}
	}
	return true
}

// indexFold returns the index of the first match of the lower-case ASCII
// pattern in b, ignoring ASCII case, or -1.
func indexFold(b, pat []byte) int {
	for k := 0; k+len(pat) <= len(b); k++ {
		if b[k] == '<' && asciiEqualFold(b[k:k+len(pat)], string(pat)) {
			return k
		}
	}
	return -1
}
