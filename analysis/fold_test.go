package analysis

import (
	"bytes"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

func TestFoldAccents(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Le théâtre était fermé à cause de la grève générale.", "Le theatre etait ferme a cause de la greve generale."},
		{"e\u0301 E\u0301\u0327", "e E"}, // decomposed already
		{"Ærø, Łódź, Đakovo, Ħal, ıl, œuvre", "AEro, Lodz, Dakovo, Hal, il, oeuvre"},
		{"ǿ ǆ ﬁ ｅ́", "o dz fi e"},                                                                      // marks and compatibility forms of Latin letters
		{"Αθήνα, ΐ", "Αθηνα, ι"},                                                                       // Greek
		{"e\u200d\u0301", "e\u200d"},                                                                   // a format character between letter and mark
		{"हिन्दी ไทย", "हिन्दी ไทย"},                                                                   // other scripts keep their marks
		{"中文 \u0301 1\u0301 = \u0338 ≠", "中文 \u0301 1\u0301 = \u0338 ≠"},                               // marks after no letter, and symbols, stay
		{"Ёлка, ёжик и всё", "Елка, ежик и все"},                                                       // ё as Russian mostly writes it
		{"за́мок замо́к Москва̀ е\u0308 Е\u0301\u0308", "замок замок Москва е Е"},                      // stress marks, and ё decomposed
		{"ѐ ѝ Ѐ Ѝ", "е и Е И"},                                                                         // Bulgarian and Macedonian stressed vowels
		{"й ї ў ќ ѓ і\u0308 и\u0306 к\u0301 о\u0308 ӧ", "й ї ў ќ ѓ і\u0308 и\u0306 к\u0301 о\u0308 ӧ"}, // letters of their own, marks that make them
		{"bad \xff\u0301 byte", "bad \xff\u0301 byte"},                                                 // invalid UTF-8 stays, and breaks the letter
		{"plain ASCII, 123!", "plain ASCII, 123!"},
	} {
		if got := string(FoldAccents(nil, []byte(c.in))); got != c.want {
			t.Errorf("FoldAccents(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Appends to dst.
	if got := string(FoldAccents([]byte("x:"), []byte("é"))); got != "x:e" {
		t.Errorf("FoldAccents appended %q, want %q", got, "x:e")
	}
}

// TestFoldAccentsAllocs: with room in dst, folding allocates nothing.
func TestFoldAccentsAllocs(t *testing.T) {
	src := []byte("Ça déjà été l'œuvre d'un garçon très âgé — Αθήνα, Łódź")
	dst := make([]byte, 0, 4*len(src))
	if n := testing.AllocsPerRun(100, func() { dst = FoldAccents(dst[:0], src) }); n != 0 {
		t.Fatalf("FoldAccents allocated %v times a call, want 0", n)
	}
}

func FuzzFoldAccents(f *testing.F) {
	for _, s := range []string{"café", "e\u0301", "\xff\u0301", "Ærø", "ǆ", "ΐ", "हिन्दी", "e\u200d\u0301", "中 \u0301", "a\x01\u0301", "ẛ̣", "Ǻ"} {
		f.Add([]byte(s))
	}
	f.Add([]byte("Ёлка за́мок е\u0308 ї"))
	f.Fuzz(func(t *testing.T, src []byte) {
		once := FoldAccents(nil, src)
		if n := Normalize(nil, once); bytes.ContainsAny(n, "ёЁѐЀѝЍ") {
			t.Fatalf("FoldAccents(%q) normalized to %q: a Cyrillic letter it folds", src, n)
		}
		if twice := FoldAccents(nil, once); !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent: %q -> %q -> %q", src, once, twice)
		}
		if utf8.Valid(src) && !utf8.Valid(once) {
			t.Fatalf("FoldAccents(%q) = %q, not valid UTF-8", src, once)
		}
		// No Latin or Greek letter keeps a mark once normalized: the
		// normalizer's NFKC cannot compose one back.
		norm := Normalize(nil, once)
		prevLatin := false
		for _, r := range string(norm) {
			if prevLatin && unicode.Is(unicode.Mn, r) {
				t.Fatalf("FoldAccents(%q) normalized to %q: a mark after a Latin or Greek letter", src, norm)
			}
			if !unicode.Is(unicode.Mn, r) {
				prevLatin = unicode.In(r, unicode.Latin, unicode.Greek) && !hasMarkedDecomposition(r)
				if unicode.In(r, unicode.Latin, unicode.Greek) && hasMarkedDecomposition(r) {
					t.Fatalf("FoldAccents(%q) normalized to %q: %q keeps its accent", src, norm, r)
				}
			}
		}
	})
}

// hasMarkedDecomposition reports whether r decomposes (NFKD) into runes
// among which is a nonspacing mark.
func hasMarkedDecomposition(r rune) bool {
	for _, d := range norm.NFKD.String(string(r)) {
		if unicode.Is(unicode.Mn, d) {
			return true
		}
	}
	return false
}

// TestFoldClassOf checks the ranges of foldClassOf against the Unicode
// tables they stand for, for every non-ASCII rune.
func TestFoldClassOf(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		want := foldOther
		switch {
		case unicode.Is(unicode.Cyrillic, r) && unicode.IsLetter(r) && r < 0x460:
			want = foldCyrillicLetter
		case unicode.Is(unicode.Mn, r):
			want = foldMark
		case unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r):
			want = foldInert
		case unicode.In(r, unicode.Latin, unicode.Greek):
			want = foldLetter
		}
		if got := foldClassOf(r); got != want {
			t.Fatalf("foldClassOf(%U) = %d, want %d", r, got, want)
		}
	}
}
