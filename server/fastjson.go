package server

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/jsonscan"
)

// The document and query routes spend much of their time in encoding/json,
// which reads a body twice (once to find the value, once to decode it)
// through reflection. The functions here handle the common shapes
// directly: a document object with only "id" and "text" string members, a
// query object with only "text" and "fingerprint" strings and an integer
// "k", an array of such objects, and the answers of both routes. Whatever
// they do not recognise (other members, escapes they leave alone, invalid
// UTF-8, a k written as a float, a syntax error) they decline, and the
// caller falls back to encoding/json, so the answers and the error messages
// stay those of encoding/json; tests compare the two on random input.

// objectParser parses the object starting at b[i] and returns it with the
// index just past its closing brace; ok is false when it declines the
// object.
type objectParser[T any] func(b []byte, i int) (v T, end int, ok bool)

// fastOne parses b as one object that object accepts, followed by nothing
// but white space. ok is false when b is anything else.
func fastOne[T any](b []byte, object objectParser[T]) (v T, ok bool) {
	v, n, ok := object(b, jsonscan.SkipSpace(b, 0))
	return v, ok && jsonscan.SkipSpace(b, n) == len(b)
}

// fastArray parses b as a JSON array of 1 to max objects that object
// accepts, followed by nothing but white space.
func fastArray[T any](b []byte, max int, object objectParser[T]) ([]T, bool) {
	i := jsonscan.SkipSpace(b, 0)
	if i == len(b) || b[i] != '[' {
		return nil, false
	}
	// Nearly every object has a "text"; an escaped quote in a string
	// does not match.
	vs := make([]T, 0, min(max, 1+bytes.Count(b, []byte(`"text"`))))
	for {
		v, n, ok := object(b, jsonscan.SkipSpace(b, i+1))
		if !ok || len(vs) == max {
			return nil, false
		}
		vs = append(vs, v)
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
	return vs, jsonscan.SkipSpace(b, i+1) == len(b)
}

// fastDocument parses the document object starting at b[i], with only
// "id" and "text" members holding strings (an objectParser).
func fastDocument(b []byte, i int) (in documentIn, end int, ok bool) {
	end, ok = fastObject(b, i, func(key []byte, i int) (int, bool) {
		switch string(key) {
		case "id":
			return stringMember(b, i, &in.ID)
		case "text":
			return stringMember(b, i, &in.Text)
		}
		return 0, false
	})
	return in, end, ok
}

// fastQuery parses the query object starting at b[i], with only "text"
// and "fingerprint" members holding strings and a "k" holding an integer
// written without a fraction or an exponent (an objectParser).
func fastQuery(b []byte, i int) (in queryIn, end int, ok bool) {
	end, ok = fastObject(b, i, func(key []byte, i int) (int, bool) {
		switch string(key) {
		case "text":
			return stringMember(b, i, &in.Text)
		case "fingerprint":
			return stringMember(b, i, &in.Fingerprint)
		case "k":
			j := intEnd(b, i)
			k := new(jsonInt)
			// A number written otherwise, or too large for an int, is
			// left to encoding/json.
			if j == i || k.UnmarshalJSON(b[i:j]) != nil {
				return 0, false
			}
			in.K = k
			return j, true
		}
		return 0, false
	})
	return in, end, ok
}

// stringMember reads the string value starting at b[i] into *field for
// fastObject: the index just past it, or false to decline.
func stringMember(b []byte, i int, field *string) (int, bool) {
	s, j, ok := jsonscan.String(b, i)
	*field = s
	return j, ok
}

// intEnd returns the index just past the integer -?(0|[1-9][0-9]*) that
// starts at b[i], or i when none does. What may follow it in a number, a
// digit after a leading 0, a fraction or an exponent, is no ',' or '}', so
// fastObject declines the object.
func intEnd(b []byte, i int) int {
	j := i
	if j < len(b) && b[j] == '-' {
		j++
	}
	d := j
	if j < len(b) && b[j] == '0' {
		j++
	} else {
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	}
	if j == d {
		return i
	}
	return j
}

// fastObject parses the object starting at b[i] and returns the index just
// past its closing brace. member reads each member: it is called with the
// member's key as written between its quotes and the index of its value,
// and returns the index just past the value, or false to decline the
// object. A key is taken to end at its first quote, so one holding an
// escape is none that member knows, and is declined.
func fastObject(b []byte, i int, member func(key []byte, i int) (int, bool)) (end int, ok bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = jsonscan.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i == len(b) || b[i] != '"' {
			return 0, false
		}
		n := bytes.IndexByte(b[i+1:], '"')
		if n < 0 {
			return 0, false
		}
		key := b[i+1 : i+1+n]
		i = jsonscan.SkipSpace(b, i+2+n)
		if i == len(b) || b[i] != ':' {
			return 0, false
		}
		j, ok := member(key, jsonscan.SkipSpace(b, i+1))
		if !ok {
			return 0, false
		}
		i = jsonscan.SkipSpace(b, j)
		if i == len(b) {
			return 0, false
		}
		switch b[i] {
		case '}':
			return i + 1, true
		case ',':
			i = jsonscan.SkipSpace(b, i+1)
		default:
			return 0, false
		}
	}
}

// appendFast appends v to buf as json.Encoder would (with its final
// newline) when v is a result, a query's answer or a batch of either; it
// reports false, leaving buf in an unknown state, for any other v or one
// it cannot encode.
func appendFast(buf *bytes.Buffer, v any) bool {
	b := buf.AvailableBuffer()
	ok := false
	switch v := v.(type) {
	case resultOut:
		b, ok = appendResult(b, &v)
	case batchOut:
		b, ok = appendResults(b, v.Results, appendResult)
	case queryOut:
		b, ok = appendQuery(b, &v)
	case queryBatchOut:
		b, ok = appendResults(b, v.Results, appendQuery)
	}
	if ok {
		buf.Write(append(b, '\n'))
	}
	return ok
}

// appendResults appends the object {"results": rs}, each element by
// appendOne. ok is false when rs is nil (which encoding/json writes as
// null) or appendOne declines an element.
func appendResults[T any](b []byte, rs []T, appendOne func([]byte, *T) ([]byte, bool)) ([]byte, bool) {
	if rs == nil {
		return b, false
	}
	ok := true
	b = append(b, `{"results":[`...)
	for i := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		var ok1 bool
		b, ok1 = appendOne(b, &rs[i])
		ok = ok && ok1
	}
	return append(b, "]}"...), ok
}

// appendResult appends r as encoding/json encodes it. ok is false when r
// holds a number JSON cannot represent (NaN or an infinity), which
// encoding/json reports as an error.
func appendResult(b []byte, r *resultOut) ([]byte, bool) {
	b = append(b, `{"id":`...)
	b = appendString(b, r.ID)
	if r.Error != nil { // a refused document: its id and error alone
		b = append(b, ',')
		return append(appendError(b, r.Error), '}'), true
	}
	b = append(b, `,"duplicate":`...)
	b = strconv.AppendBool(b, r.Duplicate)
	b = append(b, `,"duplicate_of":`...)
	b = appendStringOrNull(b, r.DuplicateOf)
	b = append(b, `,"distance":`...)
	b = strconv.AppendInt(b, int64(r.Distance), 10)
	b = append(b, `,"similarity":`...)
	b, ok := appendFloat(b, r.Similarity)
	b = append(b, `,"fingerprint":`...)
	b = appendString(b, r.Fingerprint)
	b = append(b, `,"inserted":`...)
	b = strconv.AppendBool(b, r.Inserted)
	b = append(b, `,"matches":`...)
	b, ok1 := appendMatches(b, r.Matches)
	return append(b, '}'), ok && ok1
}

// appendQuery appends q, a query's answer, as encoding/json encodes it
// (queryOut.MarshalJSON). ok is false for a NaN or an infinity.
func appendQuery(b []byte, q *queryOut) ([]byte, bool) {
	b = append(b, '{')
	if q.Error != nil { // a refused query: its error alone
		return append(appendError(b, q.Error), '}'), true
	}
	b = append(b, `"fingerprint":`...)
	b = appendString(b, q.Fingerprint)
	b = append(b, `,"duplicate":`...)
	b = strconv.AppendBool(b, q.Duplicate)
	b = append(b, `,"duplicate_of":`...)
	b = appendStringOrNull(b, q.DuplicateOf)
	b = append(b, `,"matches":`...)
	b, ok := appendMatches(b, q.Matches)
	return append(b, '}'), ok
}

// appendError appends the member "error" holding e.
func appendError(b []byte, e *errorDetail) []byte {
	b = append(b, `"error":{"code":`...)
	b = appendString(b, e.Code)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	return append(b, '}')
}

// appendStringOrNull appends *s as a JSON string, or null when s is nil.
func appendStringOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendMatches appends ms as encoding/json encodes it: null when nil. ok
// is false for a NaN or an infinity.
func appendMatches(b []byte, ms []matchOut) ([]byte, bool) {
	if ms == nil {
		return append(b, "null"...), true
	}
	ok := true
	b = append(b, '[')
	for i := range ms {
		m := &ms[i]
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
	return append(b, ']'), ok
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
