package server

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/jsonscan"
)

// The document routes spend much of their time in encoding/json, which
// reads a body twice (once to find the value, once to decode it) through
// reflection. The functions here handle the common shapes directly: a
// document object with only "id" and "text" string members, an array of
// such objects, and the result a check-and-insert answers. Whatever they do
// not recognise (other members, escapes they leave alone, invalid UTF-8, a
// syntax error) they decline, and the caller falls back to encoding/json,
// so the answers and the error messages stay those of encoding/json; tests
// compare the two on random input.

// fastDocument parses b as one document object with only "id" and "text"
// members holding strings, followed by nothing but white space. ok is false
// when b is anything else.
func fastDocument(b []byte) (in documentIn, ok bool) {
	in, n, ok := fastObject(b, jsonscan.SkipSpace(b, 0))
	return in, ok && jsonscan.SkipSpace(b, n) == len(b)
}

// fastDocuments parses b as a JSON array of 1 to max document objects that
// fastDocument accepts, followed by nothing but white space.
func fastDocuments(b []byte, max int) ([]documentIn, bool) {
	i := jsonscan.SkipSpace(b, 0)
	if i == len(b) || b[i] != '[' {
		return nil, false
	}
	ins := make([]documentIn, 0, min(max, 1+bytes.Count(b, []byte(`"text"`))))
	for {
		in, n, ok := fastObject(b, jsonscan.SkipSpace(b, i+1))
		if !ok || len(ins) == max {
			return nil, false
		}
		ins = append(ins, in)
		i = jsonscan.SkipSpace(b, n)
		if i == len(b) {
			return nil, false
		}
		if b[i] == ']' {
			break
		}
		if b[i] != ',' {
			return nil, false
		}
	}
	return ins, jsonscan.SkipSpace(b, i+1) == len(b)
}

// fastObject parses the document object starting at b[i] and returns it
// with the index just past its closing brace.
func fastObject(b []byte, i int) (in documentIn, end int, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return in, 0, false
	}
	i = jsonscan.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return in, i + 1, true
	}
	for {
		var field *string
		switch {
		case bytes.HasPrefix(b[i:], []byte(`"id"`)):
			field, i = &in.ID, i+4
		case bytes.HasPrefix(b[i:], []byte(`"text"`)):
			field, i = &in.Text, i+6
		default:
			return in, 0, false
		}
		i = jsonscan.SkipSpace(b, i)
		if i == len(b) || b[i] != ':' {
			return in, 0, false
		}
		s, j, ok := jsonscan.String(b, jsonscan.SkipSpace(b, i+1))
		if !ok {
			return in, 0, false
		}
		*field = s
		i = jsonscan.SkipSpace(b, j)
		if i == len(b) {
			return in, 0, false
		}
		switch b[i] {
		case '}':
			return in, i + 1, true
		case ',':
			i = jsonscan.SkipSpace(b, i+1)
		default:
			return in, 0, false
		}
	}
}

// appendFast appends v to buf as json.Encoder would (with its final
// newline) when v is a result or a batch of results; it reports false,
// leaving buf in an unknown state, for any other v or one it cannot encode.
func appendFast(buf *bytes.Buffer, v any) bool {
	b := buf.AvailableBuffer()
	ok := false
	switch v := v.(type) {
	case resultOut:
		b, ok = appendResult(b, &v)
	case batchOut:
		if v.Results == nil {
			return false
		}
		ok = true
		b = append(b, `{"results":[`...)
		for i := range v.Results {
			if i > 0 {
				b = append(b, ',')
			}
			var ok1 bool
			b, ok1 = appendResult(b, &v.Results[i])
			ok = ok && ok1
		}
		b = append(b, "]}"...)
	}
	if ok {
		buf.Write(append(b, '\n'))
	}
	return ok
}

// appendResult appends r as encoding/json encodes it. ok is false when r
// holds a number JSON cannot represent (NaN or an infinity), which
// encoding/json reports as an error.
func appendResult(b []byte, r *resultOut) ([]byte, bool) {
	b = append(b, `{"id":`...)
	b = appendString(b, r.ID)
	if r.Error != nil { // a refused document: its id and error alone
		b = append(b, `,"error":{"code":`...)
		b = appendString(b, r.Error.Code)
		b = append(b, `,"message":`...)
		b = appendString(b, r.Error.Message)
		return append(b, "}}"...), true
	}
	b = append(b, `,"duplicate":`...)
	b = strconv.AppendBool(b, r.Duplicate)
	b = append(b, `,"duplicate_of":`...)
	if r.DuplicateOf == nil {
		b = append(b, "null"...)
	} else {
		b = appendString(b, *r.DuplicateOf)
	}
	b = append(b, `,"distance":`...)
	b = strconv.AppendInt(b, int64(r.Distance), 10)
	b = append(b, `,"similarity":`...)
	b, ok := appendFloat(b, r.Similarity)
	b = append(b, `,"fingerprint":`...)
	b = appendString(b, r.Fingerprint)
	b = append(b, `,"inserted":`...)
	b = strconv.AppendBool(b, r.Inserted)
	b = append(b, `,"matches":`...)
	if r.Matches == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Matches {
			m := &r.Matches[i]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = appendString(b, m.ID)
			b = append(b, `,"distance":`...)
			b = strconv.AppendInt(b, int64(m.Distance), 10)
			var ok1, ok2 bool
			b = append(b, `,"similarity":`...)
			b, ok1 = appendFloat(b, m.Similarity)
			b = append(b, `,"scores":`...)
			b, ok2 = appendScores(b, m.Scores)
			b = append(b, `,"duplicate":`...)
			b = strconv.AppendBool(b, m.Duplicate)
			b = append(b, '}')
			ok = ok && ok1 && ok2
		}
		b = append(b, ']')
	}
	return append(b, '}'), ok
}

// appendScores appends s as its MarshalJSON encodes it: each measure a
// number, or null when not computed. ok is false for a NaN or an infinity.
func appendScores(b []byte, s scoresOut) ([]byte, bool) {
	ok := true
	for _, m := range []struct {
		key  string
		none uint8
		v    float64
	}{{`{"jaccard":`, noJaccard, s.Jaccard}, {`,"cosine":`, noCosine, s.Cosine}, {`,"levenshtein":`, noLevenshtein, s.Levenshtein}} {
		b = append(b, m.key...)
		if s.none&m.none != 0 {
			b = append(b, "null"...)
			continue
		}
		var ok1 bool
		b, ok1 = appendFloat(b, m.v)
		ok = ok && ok1
	}
	return append(b, '}'), ok
}

// appendFloat appends f as encoding/json writes a float64: the shortest
// decimal that reads back as f, in exponent form below 1e-6 and from 1e21.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// encoding/json writes e-7, not e-07.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendString appends s as a JSON string the way encoding/json does by
// default: <, > and & escaped for HTML, invalid UTF-8 as U+FFFD, and the
// line and paragraph separators escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
