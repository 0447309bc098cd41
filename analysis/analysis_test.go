package analysis

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
	"golang.org/x/text/unicode/norm"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"Hello, World!", "hello, world!"},
		{"  lots \t of\n\n  space  ", "lots of space"},
		{"ＨＥＬＬＯ　ｗｏｒｌｄ１２３", "hello world123"}, // full-width letters, digits, ideographic space
		{"ｶﾀｶﾅ", "カタカナ"},                     // half-width katakana
		{"e\u0301cole", "école"},             // composed by NFKC
		{"E\x01\u0301", "é"},                 // control dropped before composing
		{"ﬁne straße", "fine strasse"},       // ligature, sharp s
		{"soft\u00adhyphen zero\u200bwidth", "softhyphen zerowidth"},
		// Invisible letters and mark: the Hangul fillers (full and half
		// width, choseong, jungseong) and the combining grapheme joiner.
		{"fr\u3164ee mo\uffa0ney cl\u115fi\u1160ck he\u034fre", "free money click here"},
		{"jo\u200din\u200cers \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "joiners \u0645\u06cc\u062e\u0648\u0627\u0647\u0645"}, // the zero-width joiners too
		{"bad \xff byte", "bad \ufffd byte"},
		// Arabic harakat and tatweel, Hebrew points: optional, dropped;
		// hamza, which makes another letter, stays.
		{"بِسْمِ اللَّهِ الرَّحْمَٰنِ الرَّحِيمِ", "بسم الله الرحمن الرحيم"},
		{"جميـــل \u0627\u0654", "جميل \u0623"},
		{"שָׁלוֹם", "שלום"},
		{"\ufb1d \ufe76x", "\u05d9 x"},               // their presentation forms give them too
		{"e\u0592\u0301", "é"},                       // dropped before composing
		{"\u0600\u0661\u061c\u0662", "\u0661\u0662"}, // Arabic format characters among them still go
		{"ΣΊΣΥΦΟΣ", "σίσυφοσ"},
		{"中文，测试。", "中文,测试。"},
		{"a\u00a0b\u3000c", "a b c"},
		{"\x00\x01\x7f", ""},
		{"I\u0307stanbul \u0130zmir", "istanbul izmir"},   // NFD and NFC of the dotted capital I
		{"I\x01\u0307", "i"},                              // a control between them
		{"i\u0307", "i\u0307"},                            // a small i keeps its dot
		{"北 京 时间\n今天　上午 。", "北京时间今天上午。"},                  // no spaces between Chinese characters
		{"東京 タワー の よる", "東京タワーのよる"},                       // nor Japanese
		{"中文 English 中文 123 한국 어", "中文english中文123 한국 어"}, // nor next to them, but in Korean
		{"在 GitHub 上，从 7 月 1 日起", "在github上,从7月1日起"},      // spaced from Latin words and numbers
		{"床前明月光，\n疑是地上霜。 你好！ 世界", "床前明月光,疑是地上霜。你好!世界"}, // after punctuation folded to ASCII
		{"中 \u0301", "中 \u0301"}, // a space before a combining mark stays
		{"x 中 , y", "x中, y"},
		{"I don’t ‘know’ “why” „he‟ said‚ ‛so”", "i don't 'know' \"why\" \"he\" said' 'so\""}, // curly quotation marks
		{"“中文”́", "\"中文\"́"},
	}
	var s Scratch
	for _, tt := range tests {
		got := string(Normalize(nil, []byte(tt.in)))
		if got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if n := s.NormalizedLen([]byte(tt.in)); n != utf8.RuneCountInString(tt.want) {
			t.Errorf("NormalizedLen(%q) = %d, want %d", tt.in, n, utf8.RuneCountInString(tt.want))
		}
	}
}

// TestNormalizeForms checks that the canonically equivalent forms of a
// text (composed, decomposed) normalize alike, for upper-case ASCII
// letters, whose fast path writes them lowered, followed by every
// combining mark that composes with some Latin letter.
func TestNormalizeForms(t *testing.T) {
	for c := 'A'; c <= 'Z'; c++ {
		for m := rune(0x300); m < 0x370; m++ {
			text := "x" + string(c) + string(m) + "y"
			nfc, nfd := norm.NFC.String(text), norm.NFD.String(text)
			if a, b := string(Normalize(nil, []byte(nfc))), string(Normalize(nil, []byte(nfd))); a != b {
				t.Errorf("%+q: composed gives %+q, decomposed %+q", text, a, b)
			}
		}
	}
}

// TestNormalizedLenWords checks NormalizedLen, which counts printable ASCII
// and white space eight bytes at a time, against the length of Normalize's
// output on random texts of the bytes at the edges of its byte classes:
// runs of white space across word boundaries, leading and trailing white
// space, control bytes and non-ASCII bytes anywhere.
func TestNormalizedLenWords(t *testing.T) {
	alphabet := []byte("aZ~! !\t\n\v\f\r \x1f\x0e\x08\x00\x7f")
	r := rand.New(rand.NewPCG(5, 6))
	var s Scratch
	for range 20000 {
		src := make([]byte, r.IntN(40))
		for i := range src {
			switch r.IntN(40) {
			case 0:
				src[i] = 0xc3 // a non-ASCII byte: invalid alone, é before 0xa9
			case 1:
				src[i] = 0xa9
			default:
				src[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		if n, want := s.NormalizedLen(src), utf8.RuneCount(Normalize(nil, src)); n != want {
			t.Fatalf("NormalizedLen(%q) = %d, want %d", src, n, want)
		}
	}
}

// TestNormalizeAppends checks that Normalize appends to dst and leaves the
// prefix alone.
func TestNormalizeAppends(t *testing.T) {
	got := Normalize([]byte("X "), []byte("Ａb"))
	if string(got) != "X ab" {
		t.Fatalf("got %q", got)
	}
}

func tokens(text string) []string {
	var out []string
	Tokenize([]byte(text), func(tok []byte) { out = append(out, string(tok)) })
	return out
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"hello, world!", []string{"hello", "world"}},
		// A full stop between letters ends a word (UAX #29 would keep
		// "e.g" and "late.the"); between digits it does not.
		{"can't stop e.g. 3.14 1,000 a:b foo_bar __ _x", []string{"can't", "stop", "e", "g", "3.14", "1,000", "a:b", "foo_bar", "_x"}},
		{"he came home late.the door v1.2 a.1 x.y.z", []string{"he", "came", "home", "late", "the", "door", "v1.2", "a", "1", "x", "y", "z"}},
		// The same through uniseg, in runs with other letters than ASCII.
		{"café.the naïve.x ñ.3.14 e\u0301.b", []string{"café", "the", "naïve", "x", "ñ", "3.14", "e\u0301", "b"}},
		{"late. the", []string{"late", "the"}},
		{"a..b 1:2 a,b", []string{"a", "b", "1", "2", "a", "b"}},
		{"中文abc測試", []string{"中", "文", "abc", "測", "試"}},
		{"カタカナとひらがな", []string{"カ", "タ", "カ", "ナ", "と", "ひ", "ら", "が", "な"}},
		{"한국어 café naïve", []string{"한", "국", "어", "café", "naïve"}},
		{"emoji 👍🏽 ok", []string{"emoji", "ok"}},
	}
	for _, tt := range tests {
		if got := tokens(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// referenceWords is the definition the fast path must match: uniseg's
// word segments, cut at each full stop between two letters, that hold a
// letter or a number.
func referenceWords(text []byte) []string {
	var out []string
	state := -1
	for len(text) > 0 {
		var w []byte
		w, text, state = uniseg.FirstWord(text, state)
		for _, part := range cutStops(string(w)) {
			if hasWordRune([]byte(part)) {
				out = append(out, part)
			}
		}
	}
	return out
}

// cutStops cuts w at each full stop with a letter right before it (marks
// aside) and right after it, written out plainly, as the test's own
// statement of the rule.
func cutStops(w string) []string {
	rs := []rune(w)
	var out []string
	from := 0
	for i := 1; i+1 < len(rs); i++ {
		if rs[i] != '.' || !unicode.IsLetter(rs[i+1]) {
			continue
		}
		j := i - 1
		for j > 0 && unicode.Is(unicode.M, rs[j]) {
			j--
		}
		if !unicode.IsLetter(rs[j]) {
			continue
		}
		out = append(out, string(rs[from:i]), ".")
		from = i + 1
	}
	return append(out, string(rs[from:]))
}

// TestASCIIFastPath compares the ASCII fast path with uniseg on random
// ASCII strings drawn from the characters the rules care about.
func TestASCIIFastPath(t *testing.T) {
	const alphabet = "aZ09_:.',;- \t\n!"
	rng := rand.New(rand.NewPCG(1, 2))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	buf := make([]byte, 0, 16)
	for range n {
		buf = buf[:0]
		for range rng.IntN(12) {
			buf = append(buf, alphabet[rng.IntN(len(alphabet))])
		}
		got := tokens(string(buf))
		if want := referenceWords(buf); !slices.Equal(got, want) {
			t.Fatalf("Tokenize(%q) = %q, uniseg gives %q", buf, got, want)
		}
	}
}

func TestStripHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<p>Hello <b>big</b>world</p>", " Hello bigworld "},
		{"a<script>var x = '<p>';</script>b", "a b"},
		{"<STYLE>p{}</STYLE>x<!-- c -->y", " xy"},
		{"fish &amp; chips &lt;3 &eacute;t&#233; &#x4E2D; &bogus; & x", "fish & chips <3 été 中 &bogus; & x"},
		{"1 < 2 <", "1 < 2 <"},
		{"unterminated <a href='x'", "unterminated "},
		{`<a href="/" onclick="if(w>768){m()}">Home</a> <p title = 'a>b' x=y>z`, "Home  z"}, // '>' in quoted values
		{`<a b=>c<a b= >d<a x"y>e`, "cde"},                                                  // unquoted: '>' ends the tag
		{"a<template><p>t</p></template>b<NOSCRIPT>Enable JavaScript</NOSCRIPT>c", "a b c"},
		{"<a title='never closed>text", ""},
	}
	for _, tt := range tests {
		if got := string(StripHTML(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("StripHTML(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestMainText checks that MainText drops the page furniture (nav,
// header, footer and aside, nested or in any case) with what it holds,
// keeps everything else as StripHTML does, and gives StripHTML's text for
// a page with nothing outside its furniture.
func TestMainText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<nav><a href=/>Home</a> | <a>News</a></nav><p>The story.</p><footer>&copy; 2026 Example</footer>", "   The story.   "},
		{"<HEADER><h1>Site</h1><nav>menu</nav></HEADER><article><p>Body &amp; soul</p></article><Aside>Related: <b>other</b></Aside>", "        Body & soul    "},
		{"<p>a</p><aside><aside>deep</aside>still aside</aside><p>b</p>", " a      b "},
		{"<p>x</p><nav/><p>y</p>", " x   y "},                             // a self-closing tag opens nothing
		{"<p>x</p></nav><p>y</p>", " x   y "},                             // nor does a stray end tag close anything
		{"<nav>only the menu</nav>", " only the menu "},                   // nothing else: StripHTML's text
		{"<p>text</p><footer>never closed", " text  "},                    // what came before stays
		{"<header>never closed <p>all of it", " never closed  all of it"}, // nothing before: StripHTML's text
		{"<script>var nav = '<nav>';</script><p>kept</p>", "  kept "},
	}
	for _, tt := range tests {
		if got := string(MainText(nil, []byte(tt.in))); got != tt.want {
			t.Errorf("MainText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := string(MainText([]byte("x:"), []byte("<nav>m</nav>b"))); got != "x:  b" {
		t.Errorf("MainText appended %q, want %q", got, "x:  b")
	}
}

func TestStopWords(t *testing.T) {
	s := EnglishStopWords()
	if !s.Contains([]byte("the")) || s.Contains([]byte("fox")) {
		t.Fatal("English stop words wrong")
	}
	if !NewStopWords("THE").Contains([]byte("the")) {
		t.Fatal("stop words are not normalized")
	}
	var none *StopWords
	if none.Contains([]byte("the")) || !none.Keep(Token{Text: []byte("the")}) {
		t.Fatal("nil StopWords must keep everything")
	}
	a := Analyzer{CharFilters: []CharFilter{Normalizer{}}, TokenFilters: []TokenFilter{s}}
	var got []string
	a.Analyze(nil, []byte("The quick brown FOX"), func(tk Token) { got = append(got, string(tk.Text)) })
	if !slices.Equal(got, []string{"quick", "brown", "fox"}) {
		t.Fatalf("Analyze = %q", got)
	}
}

func TestSegmenter(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the gse dictionary")
	}
	var s Segmenter
	text := []byte("我们在北京大学学习中文 and English")
	var got []string
	s.Tokenize(text, func(tk Token) {
		if !bytes.Equal(text[tk.Start:tk.End], tk.Text) {
			t.Fatalf("offsets of %q wrong", tk.Text)
		}
		got = append(got, string(tk.Text))
	})
	if !slices.Contains(got, "北京大学") || !slices.Contains(got, "english") && !slices.Contains(got, "English") {
		t.Fatalf("segments = %q", got)
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Hello", "ＨＥＬＬＯ", "e\u0301", "\xff\xfe", "a\x01\u0301", "ﬁ ß ẞ", "<p>x</p>", "Σ\u0345", " \t a \x01 \n b  ", "\x01 \x02", "a \x7f",
		"か ゙", "か\u309b", "か \u3099", "中 \u302a", // a space before a combining mark stays
		"Q\u0385", "xQ\u0385y", // a capital before a run that cannot combine with it
		"中 a", "a 中", "中 ,", "中 \u0301 中", "ｶ ﾞ", "中 ｶ", // spaces next to Chinese and Japanese
		"’́", "ŉ", "“中”", // quotation marks
		"بِسْمِ", "e\u0592\u0301", "\ufb1d\u0301", "a\ufe76\u0301", "\u0627\u064e\u0654", "ـ\u0301", // optional marks
		"Zażółć gęślą", "É\u0301", "é\x01\u0301", "中 é", "«Ça» – ¿Qué?"} { // the Latin fast paths
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		once := Normalize(nil, src)
		if !utf8.Valid(once) {
			t.Fatalf("Normalize(%q) = %q, not valid UTF-8", src, once)
		}
		if twice := Normalize(nil, once); !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent: %q -> %q -> %q", src, once, twice)
		}
		if bytes.HasPrefix(once, []byte(" ")) || bytes.HasSuffix(once, []byte(" ")) || bytes.Contains(once, []byte("  ")) {
			t.Fatalf("white space not folded: %q", once)
		}
		var s Scratch
		if again := s.Normalize([]byte("x"), src); string(again[1:]) != string(once) {
			t.Fatalf("Scratch.Normalize differs")
		}
		if n := s.NormalizedLen(src); n != utf8.RuneCount(once) {
			t.Fatalf("NormalizedLen(%q) = %d, want %d", src, n, utf8.RuneCount(once))
		}
		_ = StripHTML(nil, src)
		_ = MainText(nil, src)
		checkLatin(t, src) // the Latin fast paths change nothing
	})
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"hello world", "can't 3.14", "中文abc", "a..b", "\xff", "カタカナ"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		Words{}.Tokenize(text, func(tk Token) {
			if tk.Start < 0 || tk.End > len(text) || tk.Start >= tk.End || !bytes.Equal(text[tk.Start:tk.End], tk.Text) {
				t.Fatalf("bad token %+v in %q", tk, text)
			}
		})
		// Runs without CJK characters or white space must match uniseg.
		if !bytes.ContainsAny(text, " \t\n\v\f\r") && !strings.ContainsFunc(string(text), IsCJK) {
			if got, want := tokens(string(text)), referenceWords(text); !slices.Equal(got, want) {
				t.Fatalf("Tokenize(%q) = %q, uniseg gives %q", text, got, want)
			}
		}
	})
}

// TestFastPathRanges checks, for every code point, the shortcuts the
// normalizer takes for CJK ranges against the Unicode tables they stand
// for, and decodeRune against utf8.DecodeRune.
func TestFastPathRanges(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r > 0x3000 && r < 0xfeff && (unicode.IsSpace(r) || unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)) {
			t.Fatalf("U+%04X is space, Cc or Cf", r)
		}
		if (r >= 0x3000 && r < 0xa000 || r >= 0xac00 && r < 0xd800) && unicode.ToLower(unicode.ToUpper(r)) != r {
			t.Fatalf("U+%04X has a case mapping", r)
		}
		var buf [4]byte
		n := utf8.EncodeRune(buf[:], r)
		b := append(buf[:n:n], 'x')
		gr, gn := decodeRune(b)
		wr, wn := utf8.DecodeRune(b)
		if gr != wr || gn != wn {
			t.Fatalf("decodeRune(U+%04X) = %U %d, want %U %d", r, gr, gn, wr, wn)
		}
	}
	for _, bad := range []string{"\xed\xa0\x80", "\xe0\x80\x80", "\xe4\xb8", "\xe4\x28\xa1"} {
		gr, gn := decodeRune([]byte(bad))
		wr, wn := utf8.DecodeRune([]byte(bad))
		if gr != wr || gn != wn {
			t.Fatalf("decodeRune(%q) = %U %d, want %U %d", bad, gr, gn, wr, wn)
		}
	}
}

// TestInert checks every rune isInert accepts: NFKC and folding leave it
// alone, also next to a combining mark.
func TestInert(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !isInert(r) {
			continue
		}
		s := string(r)
		if got := string(Normalize(nil, []byte("\u0300"+s+"\u0301"))); got != "\u0300"+s+"\u0301" {
			t.Fatalf("U+%04X is not inert: %q", r, got)
		}
		if _, changed := foldCase(nil, []byte(s)); changed {
			t.Fatalf("U+%04X folds", r)
		}
	}
}
