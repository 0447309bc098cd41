package similarity

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
)

func TestEditRunes(t *testing.T) {
	tests := []struct{ text, want string }{
		{"", ""},
		{"hello world", "hello world"},
		{"谢谢分享！！", "谢谢分享"},
		{"谢谢分享", "谢谢分享"},
		{"He came home late. The door was locked.", "he came home late the door was locked"},
		{"He came home late.The door was locked.", "he came home latethe door was locked"},
		{"a - b", "a b"},
		{"don't", "dont"},
		{"great 😀😀", "great"},
		{"😀 great", "great"},
		{"3.14 + 2 = 5.14", "314 2 514"},
		{"!!!", "!!!"},           // nothing else: the text is its punctuation
		{"😀😀", "😀😀"},             // and its symbols
		{"! ?", "! ?"},           // with its spaces
		{"é", "é"},               // NFKC composes it
		{"e\u0301x", "éx"},       // and this
		{"x \u0301", "x \u0301"}, // a lone mark is kept, after its space
		{"great ❤️", "great"},    // the variation selector goes with its heart
		{"❤️ great ❤️❤️", "great"},
		{"#\ufe0f\u20e3 tag", "tag"},       // and the keycap with its #
		{"a !\u0301 b", "a b"},             // any mark after punctuation
		{"1\ufe0f\u20e3", "1\ufe0f\u20e3"}, // marks after a number stay with it
		{"❤️", "❤️"},                       // a symbol alone keeps its marks
		{"Ⅻ 第二", "xii第二"},                  // no space next to Han once normalized
		{"你妈妈喊你回家吃饭哦,回家罗回家罗", "你妈妈喊你回家吃饭哦回家罗回家罗"},
	}
	for _, tt := range tests {
		norm := analysis.Normalize(nil, []byte(tt.text))
		rs := runes(norm)
		got := string(EditRunes(rs))
		if got != tt.want {
			t.Errorf("EditRunes(%q) = %q, want %q", tt.text, got, tt.want)
		}
		if n, ok := ASCIIEditLen([]byte(tt.text)); ok && n != utf8.RuneCountInString(tt.want) {
			t.Errorf("ASCIIEditLen(%q) = %d, want %d", tt.text, n, utf8.RuneCountInString(tt.want))
		}
		if n := EditLen(norm); n != utf8.RuneCountInString(tt.want) {
			t.Errorf("EditLen(%q) = %d, want %d", tt.text, n, utf8.RuneCountInString(tt.want))
		}
		if s := NewSketch([]byte(tt.text)); string(s.EditRunes()) != tt.want || s.Len() != utf8.RuneCountInString(tt.want) {
			t.Errorf("NewSketch(%q): EditRunes %q and Len %d, want %q and %d", tt.text, string(s.EditRunes()), s.Len(), tt.want, utf8.RuneCountInString(tt.want))
		}
	}
	// Nothing to drop: the runes themselves, not a copy.
	rs := []rune("plain words only")
	if got := EditRunes(rs); &got[0] != &rs[0] {
		t.Errorf("EditRunes of a text without punctuation made a copy")
	}
}

// TestEditRunesLevenshtein checks the pairs the ratio is for: copies that
// differ in punctuation, symbols or the space after a full stop are equal
// or one edit apart, and texts that differ in words still differ.
func TestEditRunesLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"谢谢分享", "谢谢分享！！", 1},
		{"Great post!!!", "great post", 1},
		{"He came home late. The door was locked.", "He came home late.The door was locked.", 1 - 1.0/37},
		{"thanks 👍", "thanks", 1},
		{"great ❤️", "great ❤", 1},
		{"thanks ❤️", "thanks", 1},
		{"the cat sat on the mat", "the cat sat on a mat", 1 - 3.0/22},
		{"!!!", "???", 0},
		{"!!!", "!!!", 1},
	}
	for _, tt := range tests {
		got := Compare(NewSketch([]byte(tt.a)), NewSketch([]byte(tt.b))).Levenshtein
		if got < tt.want-1e-12 || got > tt.want+1e-12 {
			t.Errorf("Levenshtein(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzEditLen checks that EditLen counts what EditRunes keeps, on any
// normalized text, and that EditRunes keeps no punctuation or symbol
// unless it keeps every rune.
func FuzzEditLen(f *testing.F) {
	for _, s := range []string{"", "a", "谢谢分享！！", "a - b", "!!!", "x \u0301", "  ,a,  ,b, ", "😀 great",
		"A\tB\x1cC\x1fd\x7fe\x00f\r\ng", "x\v\fy", "Don't STOP.Now"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		norm := analysis.Normalize(nil, []byte(text))
		rs := runes(norm)
		edit := EditRunes(rs)
		if n := editCount(rs); n != len(edit) {
			t.Fatalf("editCount(%q) = %d, len(EditRunes) = %d (%q)", norm, n, len(edit), string(edit))
		}
		if n := NewSketch([]byte(text)).Len(); n != len(edit) {
			t.Fatalf("Len of the sketch of %q = %d, len(EditRunes) = %d", text, n, len(edit))
		}
		if n := EditLen(norm); n != len(edit) {
			t.Fatalf("EditLen(%q) = %d, len(EditRunes) = %d (%q)", norm, n, len(edit), string(edit))
		}
		if n, ok := ASCIIEditLen([]byte(text)); ok && n != len(edit) {
			t.Fatalf("ASCIIEditLen(%q) = %d, len(EditRunes) of its normalized form = %d (%q)", text, n, len(edit), string(edit))
		} else if !ok && n != 0 {
			t.Fatalf("ASCIIEditLen(%q) = %d, not ok", text, n)
		}
		if (len(edit) == 0) != (len(rs) == 0) {
			t.Fatalf("EditRunes(%q) = %q: empty for a text that is not, or the reverse", norm, string(edit))
		}
		if len(edit) == len(rs) {
			return
		}
		for i, r := range edit {
			if r == ' ' {
				if i == 0 || i == len(edit)-1 || edit[i-1] == ' ' {
					t.Fatalf("EditRunes(%q) = %q: a space at an end or doubled", norm, string(edit))
				}
				continue
			}
			if !editRune(r) {
				t.Fatalf("EditRunes(%q) = %q keeps %q", norm, string(edit), r)
			}
		}
	})
}

// BenchmarkASCIIEditLen measures the length of a short ASCII text as the
// engine takes it for each short text it checks.
func BenchmarkASCIIEditLen(b *testing.B) {
	text := []byte("The quick brown fox, who had jumped over the lazy dog (twice!), ran home. It was late; the door was locked - so it slept outside, under a tree, until the morning came. ")
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		ASCIIEditLen(text)
	}
}

// TestLenUnder checks that LenUnder gives EditLen of the normalized text
// under the limit, and a length of the limit or more over it, for ASCII
// and other text, and texts of punctuation and symbols mostly.
func TestLenUnder(t *testing.T) {
	const limit = 50
	for _, text := range []string{
		"the cat sat on the mat" + strings.Repeat("!", 300),
		"the cat sat on the mat" + strings.Repeat("！", 300),
		"猫坐在垫子上" + strings.Repeat("。 ", 200),
		strings.Repeat("猫坐在垫子上", 20),
		strings.Repeat("word ", 40),
		strings.Repeat("ｗｏｒｄ ", 40), // full width, folded by NFKC
		strings.Repeat("😀", 300),
	} {
		want := EditLen(analysis.Normalize(nil, []byte(text)))
		got := LenUnder([]byte(text), limit, nil)
		if want < limit && got != want || want >= limit && got < limit {
			t.Errorf("LenUnder(%.40q, %d) = %d, EditLen of the normalized text %d", text, limit, got, want)
		}
	}
}
