// Package jsonscan decodes the common shapes of JSON that neardup reads in
// bulk (documents sent to the server, lines of a JSONL input) without
// encoding/json's two passes and reflection. Each function declines, by
// returning ok false, whatever it does not handle exactly as encoding/json
// would (escaped surrogates, invalid UTF-8, nested values, any syntax
// error), so that callers fall back to encoding/json and keep its answers
// and its error messages, whose syntax errors SyntaxMessage words better.
package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// String decodes the JSON string starting at b[i] and returns it with
// the index just past its closing quote. It declines control characters
// (a syntax error), invalid UTF-8 and surrogate escapes (which
// encoding/json replaces with U+FFFD), and anything malformed.
func String(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	i++
	start, ascii := i, true
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			if !ascii && !utf8.Valid(b[start:i]) {
				return "", 0, false
			}
			return string(b[start:i]), i + 1, true
		case c == '\\':
			return unescape(b, start)
		case c < 0x20:
			return "", 0, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", 0, false
}

// unescape is String for a string holding escapes; start is the
// index just past its opening quote.
func unescape(b []byte, start int) (string, int, bool) {
	out := make([]byte, 0, len(b)-start)
	for i := start; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			if !utf8.Valid(out) {
				return "", 0, false
			}
			return string(out), i + 1, true
		case c < 0x20:
			return "", 0, false
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 == len(b) {
			return "", 0, false
		}
		switch e := b[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			if i+6 > len(b) {
				return "", 0, false
			}
			r, ok := hex4(b[i+2 : i+6])
			if !ok || r >= 0xd800 && r < 0xe000 {
				return "", 0, false
			}
			out = utf8.AppendRune(out, r)
			i += 6
			continue
		default:
			return "", 0, false
		}
		i += 2
	}
	return "", 0, false
}

// hex4 decodes four hexadecimal digits.
func hex4(h []byte) (rune, bool) {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// Members parses b as one JSON object followed by nothing but white space,
// whose member values are all strings, numbers, true, false or null, and
// calls member for each member in order with its decoded key and its
// value: the decoded string and true for a string, the bytes as written
// and false for the others. It reports false, having perhaps called member
// for some members, when b is anything else.
func Members(b []byte, member func(key string, str string, raw []byte, isString bool)) bool {
	i := SkipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b)
	}
	for {
		key, j, ok := String(b, i)
		if !ok {
			return false
		}
		i = SkipSpace(b, j)
		if i == len(b) || b[i] != ':' {
			return false
		}
		i = SkipSpace(b, i+1)
		if i == len(b) {
			return false
		}
		if b[i] == '"' {
			s, j, ok := String(b, i)
			if !ok {
				return false
			}
			member(key, s, b[i:j], true)
			i = j
		} else {
			j, ok := scalar(b, i)
			if !ok {
				return false
			}
			member(key, "", b[i:j], false)
			i = j
		}
		i = SkipSpace(b, i)
		if i == len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return SkipSpace(b, i+1) == len(b)
		case ',':
			i = SkipSpace(b, i+1)
		default:
			return false
		}
	}
}

// scalar returns the index just past the number, true, false or null that
// starts at b[i], by the JSON grammar.
func scalar(b []byte, i int) (int, bool) {
	for _, lit := range []string{"true", "false", "null"} {
		if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
			return i + len(lit), true
		}
	}
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return start, false
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			return start, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(b, i); j > i {
			i = j
		} else {
			return start, false
		}
	}
	return i, true
}

// digits returns the index of the first byte at or after i that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// SyntaxMessage returns the message of err, a syntax error that
// encoding/json found in data, with the character it names read from data
// as UTF-8: encoding/json quotes the one byte where it stopped, so a
// character of several bytes shows as another one (中 as 'ä', a full-width
// comma as 'ï'). A byte that starts no valid character is named by its
// value.
func SyntaxMessage(data []byte, err *json.SyntaxError) string {
	msg := err.Error()
	i := int(err.Offset) - 1 // the offset is just past the byte
	if i < 0 || i >= len(data) || data[i] < utf8.RuneSelf {
		return msg
	}
	c := data[i]
	shown := "'" + string(rune(c)) + "'" // as encoding/json quotes it
	r, _ := utf8.DecodeRune(data[i:])
	named := "'" + string(r) + "'"
	if r == utf8.RuneError {
		named = fmt.Sprintf("byte 0x%02x (not UTF-8)", c)
	}
	return strings.Replace(msg, "invalid character "+shown, "invalid character "+named, 1)
}
