package analysis

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"
)

// withoutLatin runs f with the Latin fast paths off.
func withoutLatin(f func()) {
	latinFast = false
	defer func() { latinFast = true }()
	f()
}

// words returns the tokens Words gives text, with their offsets.
func words(text []byte) []Token {
	var ts []Token
	Words{}.Tokenize(text, func(t Token) {
		t.Text = slices.Clone(t.Text)
		ts = append(ts, t)
	})
	return ts
}

// checkLatin checks that Normalize and Words give src the same results
// with the Latin fast paths as without; Words on src as it is too, not
// normalized.
func checkLatin(t *testing.T, src []byte) {
	t.Helper()
	fast := Normalize(nil, src)
	var slow []byte
	withoutLatin(func() { slow = Normalize(nil, src) })
	if string(fast) != string(slow) {
		t.Fatalf("Normalize(%q) = %q with the Latin fast path, %q without", src, fast, slow)
	}
	for _, text := range [][]byte{fast, src} { // normalized, and as it came
		fw := words(text)
		var sw []Token
		withoutLatin(func() { sw = words(text) })
		if !slices.EqualFunc(fw, sw, func(a, b Token) bool {
			return string(a.Text) == string(b.Text) && a.Start == b.Start && a.End == b.End && a.CJK == b.CJK
		}) {
			t.Fatalf("Words(%q) = %v with the Latin fast path, %v without", text, fw, sw)
		}
	}
}

// TestLatinEveryRune checks every two-byte rune, and the three-byte runes
// the tokenizer's fast path takes, in the contexts where the word-break
// and normalization rules differ: alone, between letters, digits and
// the marks that join them, next to combining marks, controls, capitals,
// spaces and Chinese characters.
func TestLatinEveryRune(t *testing.T) {
	contexts := []string{"%s", "a%sb", "A%sB", "%s%s", "1%s2", "a:%sb", "%s:a", "a'%s", "%s'a", "1,%s", "%s,1", "%s.a", "a.%s",
		"_%s_", "%s\u0301", "%s\x01\u0301", "E%s", "%s\u0308a", "中 %s", "%s 中", "%s 中 a", "x %s y", "I%s", "%s\u200d%s", "%sé", "é%s", "«%s»"}
	runes := []rune{0x2013, 0x2014, 0x2022, 0x20ac}
	for r := rune(0x80); r < 0x800; r++ {
		runes = append(runes, r)
	}
	for _, r := range runes {
		s := string(r)
		for _, c := range contexts {
			text := []byte(c)
			for i := 0; i+2 <= len(text); i++ {
				if text[i] == '%' && text[i+1] == 's' {
					text = slices.Replace(text, i, i+2, []byte(s)...)
					i += len(s) - 1
				}
			}
			checkLatin(t, text)
		}
	}
}

// TestLatinRandom checks random texts of ASCII, accented and other
// letters, marks, punctuation, controls and Chinese.
func TestLatinRandom(t *testing.T) {
	parts := []string{"a", "Z", "e", " ", "  ", "\n", "1", "9", ".", ",", ":", "'", "_", "-", "é", "É", "ß", "ø", "Ł", "ž", "Ω", "ς", "Σ", "я", "Ё",
		"«", "»", "¿", "×", "–", "€", "·", "İ", "ĳ", "ǆ", "\u0301", "\u0308", "\x01", "\u200d", "中", "の", "\xff", "ﬁ", "Å", "µ", "ʼ", "א"}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		var b []byte
		for n := rng.IntN(12); n >= 0; n-- {
			b = append(b, parts[rng.IntN(len(parts))]...)
		}
		checkLatin(t, b)
	}
}

// TestLatinFastPathTaken checks that common European text takes the fast
// paths: no rune of it is left to the general ones.
func TestLatinFastPathTaken(t *testing.T) {
	for _, s := range []string{"Zażółć gęślą jaźń", "Le théâtre était fermé", "Größe Straße", "¿Qué pasó? «Ça va» — 5 €", "Αθήνα", "Москва", "příliš žluťoučký kůň"} {
		for _, r := range string(Normalize(nil, []byte(s))) {
			if _, ok := latinClass(simpleRunes(), r); r >= utf8.RuneSelf && !ok {
				t.Errorf("%q: %q is not on the fast path", s, r)
			}
		}
	}
}
