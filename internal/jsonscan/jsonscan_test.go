package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// randomLine returns a JSON object line of random members, sometimes
// broken: cut short, a byte changed, or a value of a kind Members declines.
func randomLine(r *rand.Rand) []byte {
	strs := []string{`""`, `"a"`, `"id"`, `"text"`, `"caf\u00e9 \"q\" \\ \/ \n\t"`, `"日本"`, `"\ud83d\ude00"`,
		"\"bad \xff utf8\"", "\"ctl \x01\"", `"\x"`, `"\u12"`}
	scalars := []string{"0", "-1", "12.5e3", "1E+2", "-0.0", "01", "1.", ".5", "1e", "-", "true", "false", "null", "nul", "tru"}
	nested := []string{"[]", "{}", `[1,"a"]`, `{"k":1}`}
	value := func() string {
		switch n := r.IntN(10); {
		case n < 5:
			return strs[r.IntN(len(strs))]
		case n < 9:
			return scalars[r.IntN(len(scalars))]
		default:
			return nested[r.IntN(len(nested))]
		}
	}
	var b strings.Builder
	b.WriteString([]string{"", " ", "\t"}[r.IntN(3)] + "{")
	for i := range r.IntN(5) {
		if i > 0 {
			b.WriteString([]string{",", ", ", " ,"}[r.IntN(3)])
		}
		b.WriteString(strs[r.IntN(6)] + []string{":", " : "}[r.IntN(2)] + value())
	}
	b.WriteString("}" + []string{"", " ", "\r", "x", "}"}[r.IntN(5)])
	line := []byte(b.String())
	switch r.IntN(6) {
	case 0:
		line = line[:r.IntN(len(line)+1)]
	case 1:
		line[r.IntN(len(line))] = "{}[]\",:\\ a0\x00"[r.IntN(12)]
	}
	return line
}

// TestMembersMatchesEncodingJSON checks Members against encoding/json on
// random lines: whatever Members accepts, encoding/json accepts, with the
// same members (the last of a repeated key winning, as in a map), and
// Members accepts every line of only plain members that encoding/json
// accepts.
func TestMembersMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for range 20000 {
		line := randomLine(r)
		got := map[string]json.RawMessage{}
		ok := Members(line, func(key, str string, raw []byte, isString bool) {
			if isString {
				q, err := json.Marshal(str)
				if err != nil {
					t.Fatal(err)
				}
				raw = q
			}
			got[key] = raw
		})
		var want map[string]json.RawMessage
		err := json.Unmarshal(line, &want)
		if !ok {
			if err == nil && plain(line) {
				t.Errorf("%q: Members declined a line encoding/json reads as %v", line, want)
			}
			continue
		}
		accepted++
		if err != nil {
			t.Fatalf("%q: Members accepted what encoding/json rejects: %v", line, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: members %v, want %v", line, got, want)
		}
		for k, v := range want {
			var a, b any
			if json.Unmarshal(v, &a) != nil || json.Unmarshal(got[k], &b) != nil || !equal(a, b) {
				t.Fatalf("%q: member %q = %s, want %s", line, k, got[k], v)
			}
		}
	}
	if accepted < 2000 {
		t.Fatalf("only %d lines accepted: the test no longer exercises Members", accepted)
	}
}

// plain reports whether the members of line, one of randomLine's, are all
// strings Members decodes exactly (no escaped surrogates, valid UTF-8) or
// scalars: randomLine's strings hold no brackets.
func plain(line []byte) bool {
	_, rest, _ := bytes.Cut(line, []byte("{"))
	return !bytes.ContainsAny(rest, "[{") && utf8.Valid(rest) && !bytes.Contains(rest, []byte(`\ud`))
}

func equal(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func TestString(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`"plain"`, "plain", true},
		{`"a\"b\\c\/d\b\f\n\r\t"`, "a\"b\\c/d\b\f\n\r\t", true},
		{`"\u00e9\u65e5"`, "é日", true},
		{`"日本語"`, "日本語", true},
		{`"\ud83d\ude00"`, "", false}, // surrogates: encoding/json's own rules
		{"\"\xff\"", "", false},
		{"\"a\x01\"", "", false},
		{`"open`, "", false},
		{`"\q"`, "", false},
		{`x`, "", false},
	} {
		got, end, ok := String([]byte(tt.in), 0)
		if ok != tt.ok || ok && (got != tt.want || end != len(tt.in)) {
			t.Errorf("String(%q) = %q, %d, %v; want %q, %v", tt.in, got, end, ok, tt.want, tt.ok)
		}
	}
}

// TestSyntaxMessage checks that a syntax error at a character of several
// bytes names that character, not its first byte read as Latin-1, and
// that a byte that is not UTF-8 is named by its value.
func TestSyntaxMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"text":中文}`, "invalid character '中' looking for beginning of value"},
		{`{"a":1，"b":2}`, "invalid character '，' after object key:value pair"},
		{"{\"text\":\xff}", "invalid character byte 0xff (not UTF-8) looking for beginning of value"},
		{`{"text":x}`, "invalid character 'x' looking for beginning of value"},
	} {
		var v any
		err := json.Unmarshal([]byte(c.in), &v)
		se, ok := err.(*json.SyntaxError)
		if !ok {
			t.Fatalf("%q: %v, want a syntax error", c.in, err)
		}
		if got := SyntaxMessage([]byte(c.in), se); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}
