package neardup

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/internal/testtext"
	"github.com/neardup/neardup/simhash"
	"github.com/neardup/neardup/weight"
)

func mustPipeline(tb testing.TB, p Pipeline, bits int) Fingerprinter {
	tb.Helper()
	f, err := NewPipeline(p, bits)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func TestPipelineEmptyAndWidth(t *testing.T) {
	for _, bits := range []int{64, 128} {
		f := mustPipeline(t, DefaultPipeline(), bits)
		if f.Bits() != bits {
			t.Fatalf("Bits() = %d", f.Bits())
		}
		for _, empty := range []string{"", "   ", "\u200b\u00ad", "\x00\x01"} {
			fp := f.Fingerprint([]byte(empty))
			if fp.Bits() != bits || fp != (Fingerprint{bits: bits}) {
				t.Errorf("%d bits: Fingerprint(%q) = %v, want 0", bits, empty, fp)
			}
		}
	}
	if _, err := NewPipeline(DefaultPipeline(), 32); !errors.Is(err, ErrWidth) {
		t.Fatalf("NewPipeline(32 bits) error = %v", err)
	}
}

// TestPipelineNoWords checks the texts that have no words (punctuation,
// symbols, emoji): each pipeline fingerprints them by their characters, so
// that they do not all share the fingerprint 0 and each is not a candidate
// of every other one, and a folded form of one such text (full width)
// keeps its fingerprint. Texts of only stop words take the same rule.
func TestPipelineNoWords(t *testing.T) {
	texts := []string{"!!!", "???", "... ---", "\U0001F600\U0001F600\U0001F389", "\U0001F621\U0001F480\U0001F44E", "\u3002\u3002\u3002", "#$%&*+<=>@^|~"}
	pipes := append(fastPipes(t), Pipeline{Shingle: 3}, Pipeline{StopWords: analysis.EnglishStopWords()})
	for _, p := range pipes {
		for _, bits := range []int{64, 128} {
			f := mustPipeline(t, p, bits)
			seen := map[Fingerprint]string{}
			for _, text := range texts {
				fp := f.Fingerprint([]byte(text))
				if fp == (Fingerprint{bits: bits}) {
					t.Fatalf("%+v/%d: Fingerprint(%q) = 0", p, bits, text)
				}
				if other, ok := seen[fp]; ok {
					t.Fatalf("%+v/%d: %q and %q share the fingerprint %v", p, bits, text, other, fp)
				}
				seen[fp] = text
			}
			if a, b := f.Fingerprint([]byte("!!! ???")), f.Fingerprint([]byte("\uff01\uff01\uff01  \uff1f\uff1f\uff1f")); a != b {
				t.Errorf("%+v/%d: full-width punctuation %v, ASCII %v", p, bits, b, a)
			}
		}
	}
	stop := mustPipeline(t, Pipeline{StopWords: analysis.EnglishStopWords()}, 64)
	if fp := stop.Fingerprint([]byte("the of and")); fp == (Fingerprint{bits: 64}) {
		t.Errorf("stop words only: fingerprint 0")
	}
	tw := newTwins(t, fastPipes(t))
	for _, text := range texts {
		tw.check(t, []byte(text))
	}
}

// TestPipelineString checks the description of a pipeline that messages
// give: the fields that differ from the default, as --pipeline reads them.
func TestPipelineString(t *testing.T) {
	for _, c := range []struct {
		p    Pipeline
		want string
	}{
		{Pipeline{}, "default"},
		{DefaultPipeline(), "default"},
		{Pipeline{Shingle: 3, Weighting: weight.TF}, "Shingle=3,Weighting=tf"},
		{Pipeline{HTML: true, CJK: CJKBigram}, "HTML=true,CJK=bigram"},
		{Pipeline{Units: UnitChars}, "Units=chars,Shingle=5"},
		{Pipeline{Weighting: weight.TFIDF, StopWords: analysis.EnglishStopWords()}, "Weighting=tfidf,StopWords=(a list)"},
	} {
		if got := c.p.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
}

func TestPipelineValidate(t *testing.T) {
	bad := []Pipeline{
		{Units: "bytes"}, {CJK: "trigram"}, {Shingle: -1}, {Shingle: MaxShingle + 1},
		{Weighting: "bm25"}, {TopN: -2},
	}
	for _, p := range bad {
		if err := p.Validate(); !errors.Is(err, ErrPipeline) {
			t.Errorf("Validate(%+v) = %v, want ErrPipeline", p, err)
		}
		if _, err := NewPipeline(p, 64); !errors.Is(err, ErrPipeline) {
			t.Errorf("NewPipeline(%+v) = %v, want ErrPipeline", p, err)
		}
	}
	if err := (Pipeline{}).Validate(); err != nil {
		t.Fatalf("zero Pipeline: %v", err)
	}
}

// TestPipelineNormalizes checks that texts equal after normalization have
// the same fingerprint, in every configuration.
func TestPipelineNormalizes(t *testing.T) {
	a := "The Quick  Brown Fox jumps over the lazy dog. 中文测试文本"
	b := "the quick brown fox\tjumps over the LAZY dog. 中文测试文本\x01"
	for _, p := range sweep() {
		f := mustPipeline(t, p, 64)
		if fa, fb := f.Fingerprint([]byte(a)), f.Fingerprint([]byte(b)); fa != fb {
			t.Errorf("%+v: %v != %v", p, fa, fb)
		}
	}
}

// testIDF is a small IDF table, so tests need not load the shipped one.
var testIDF = weight.NewIDF(map[uint64]float64{simhash.Hash64([]byte("fox")): 5}, 10, 2)

// sweep returns a set of pipelines covering every mode.
func sweep() []Pipeline {
	var ps []Pipeline
	for _, u := range []Units{UnitWords, UnitChars} {
		for _, c := range []CJKMode{CJKUnigram, CJKBigram} {
			for _, w := range weight.Schemes() {
				for _, sh := range []int{1, 3} {
					ps = append(ps, Pipeline{Units: u, CJK: c, Weighting: w, Shingle: sh, IDF: testIDF})
				}
			}
		}
	}
	return append(ps, Pipeline{TopN: 5}, Pipeline{HTML: true})
}

// TestPipelineHTML checks that markup does not change the fingerprint of
// the text it holds.
func TestPipelineHTML(t *testing.T) {
	f := mustPipeline(t, Pipeline{HTML: true}, 64)
	g := mustPipeline(t, DefaultPipeline(), 64)
	html := "<html><head><style>p{color:red}</style><script>var a=1;</script></head><body><p>Fish &amp; <b>chips</b> today</p></body></html>"
	if f.Fingerprint([]byte(html)) != g.Fingerprint([]byte("fish & chips today")) {
		t.Fatal("HTML pipeline does not reduce the page to its text")
	}
}

// TestPipelineMainText checks that with MainText two pages of one text
// in different furniture (menus, banners, sidebars, footers) have one
// fingerprint, that of the text, and that HTML alone counts the
// furniture.
func TestPipelineMainText(t *testing.T) {
	text := "The river rose through the night and by morning the old town square stood under water."
	a := "<html><body><nav>Home News Sport Weather Contact</nav><article><p>" + text + "</p></article><footer>Copyright 2026 Daily Example</footer></body></html>"
	b := "<html><body><header><h1>Morning Post</h1><nav>Front page, Politics, Business</nav></header><div><p>" + text + "</p></div><aside>Most read: ten recipes</aside></body></html>"
	f := mustPipeline(t, Pipeline{MainText: true}, 64)
	plain := mustPipeline(t, DefaultPipeline(), 64).Fingerprint([]byte(text))
	if fa, fb := f.Fingerprint([]byte(a)), f.Fingerprint([]byte(b)); fa != plain || fb != plain {
		t.Errorf("MainText: %v and %v, want both the text's %v", fa, fb, plain)
	}
	h := mustPipeline(t, Pipeline{HTML: true}, 64)
	if d, _ := Distance(h.Fingerprint([]byte(a)), h.Fingerprint([]byte(b))); d < 6 {
		t.Errorf("HTML alone: the pages %d bits apart, want their furniture to count", d)
	}
	if got := (Pipeline{MainText: true}).String(); got != "MainText=true" {
		t.Errorf("String() = %q, want MainText=true", got)
	}
}

// TestPipelineFoldAccents checks that with FoldAccents a text and its
// copy without accents have one fingerprint, at both widths and through
// HTML, that without it they are far apart, and that the setting shows in
// the pipeline's description.
func TestPipelineFoldAccents(t *testing.T) {
	accented := "Le théâtre était fermé à cause de la grève générale; l'œuvre de Łukasz à Αθήνα. Её зелёная ёлка, за́мок, всё."
	plain := "Le theatre etait ferme a cause de la greve generale; l'oeuvre de Lukasz a Αθηνα. Ее зеленая елка, замок, все."
	for _, bits := range []int{64, 128} {
		f := mustPipeline(t, Pipeline{FoldAccents: true}, bits)
		if a, b := f.Fingerprint([]byte(accented)), f.Fingerprint([]byte(plain)); a != b {
			t.Errorf("%d bits, folding: %v and %v differ", bits, a, b)
		}
		g := mustPipeline(t, DefaultPipeline(), bits)
		if d, _ := Distance(g.Fingerprint([]byte(accented)), g.Fingerprint([]byte(plain))); d < 8 {
			t.Errorf("%d bits, not folding: %d bits apart, want the accented words to count", bits, d)
		}
	}
	h := mustPipeline(t, Pipeline{FoldAccents: true, HTML: true}, 64)
	f := mustPipeline(t, Pipeline{FoldAccents: true}, 64)
	if h.Fingerprint([]byte("<p>caf&eacute; cr&egrave;me</p>")) != f.Fingerprint([]byte("cafe creme")) {
		t.Error("HTML with accented entities: not the folded text's fingerprint")
	}
	if got := (Pipeline{FoldAccents: true}).String(); got != "FoldAccents=true" {
		t.Errorf("String() = %q, want FoldAccents=true", got)
	}
}

// TestPipelineConcurrent fingerprints from several goroutines and compares
// with a serial run (run with -race).
func TestPipelineConcurrent(t *testing.T) {
	f := mustPipeline(t, DefaultPipeline(), 128)
	docs := make([][]byte, 50)
	want := make([]Fingerprint, len(docs))
	for i := range docs {
		docs[i] = []byte(randomText(rand.New(rand.NewPCG(uint64(i), 7)), 200))
		want[i] = f.Fingerprint(docs[i])
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range docs {
				j := (i + g) % len(docs)
				if got := f.Fingerprint(docs[j]); got != want[j] {
					t.Errorf("doc %d: %v != %v", j, got, want[j])
				}
			}
		})
	}
	wg.Wait()
}

// randomText returns n words drawn from a Zipf-like vocabulary.
func randomText(rng *rand.Rand, n int) string {
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "w%d", int(rng.ExpFloat64()*300))
	}
	return sb.String()
}

// TestPipelineGolden pins fingerprints of the default pipeline and a few
// variants: a change of normalization, tokenization or hashing shows here.
func TestPipelineGolden(t *testing.T) {
	texts := []string{"", "Hello, World!", "The quick brown fox jumps over the lazy dog.",
		"中文分词测试：我们在北京大学学习。", "Ｆｕｌｌ\u3000ｗｉｄｔｈ and café naïve"}
	golden := map[int][]string{
		64: {"0000000000000000", "94456805082048bc", "8212868318d29267", "73e4a53f52d70c02", "cc89dc91e23f7e7f"},
		128: {"00000000000000000000000000000000", "b00900a903020050811849801c121818", "f84121049bb5ae65891a8fe11cbb90bf",
			"9170ffff34fc898673e4a53f52d70c02", "b5cf1e02d890232ff4330db9ae5e5aaf"},
	}
	for bits, want := range golden {
		f := mustPipeline(t, DefaultPipeline(), bits)
		for i, text := range texts {
			if got := f.Fingerprint([]byte(text)).String(); got != want[i] {
				t.Errorf("%d bits: Fingerprint(%q) = %s, want %s", bits, text, got, want[i])
			}
		}
	}
	variants := []struct {
		p    Pipeline
		want string
	}{
		{Pipeline{CJK: CJKUnigram, Shingle: 1, Weighting: weight.TF}, "73e4a53f52d70c02"},
		{Pipeline{Units: UnitChars, Weighting: weight.TF}, "de5231dcf28464eb"},
		{Pipeline{CJK: CJKBigram, Weighting: weight.LogTF, Shingle: 3, TopN: 3}, "170a93a053cfa7bd"},
	}
	for _, v := range variants {
		if got := mustPipeline(t, v.p, 64).Fingerprint([]byte(texts[3])).String(); got != v.want {
			t.Errorf("%+v: %s, want %s", v.p, got, v.want)
		}
	}
}

// TestPipelineShortText checks the documented rule for a text shorter than
// a shingle: its one feature is the shingle of all its tokens, so the
// fingerprint is that feature's hash.
func TestPipelineShortText(t *testing.T) {
	f := mustPipeline(t, Pipeline{Shingle: 3, Weighting: weight.TF}, 64)
	want := simhash.Shingle64([]uint64{simhash.Hash64([]byte("hello")), simhash.Hash64([]byte("world"))})
	if got := f.Fingerprint([]byte("Hello, World!")); got != FromUint64(want) {
		t.Fatalf("got %v, want %016x", got, want)
	}
	// Two features of weight 1: a bit is set only where both have it.
	d := mustPipeline(t, DefaultPipeline(), 64)
	if got, want := d.Fingerprint([]byte("Hello, World!")), simhash.Hash64([]byte("hello"))&simhash.Hash64([]byte("world")); got != FromUint64(want) {
		t.Fatalf("default: got %v, want %016x", got, want)
	}
	// CJK bigrams: 中文 is one bigram token.
	g := mustPipeline(t, Pipeline{CJK: CJKBigram, Shingle: 1}, 64)
	if got := g.Fingerprint([]byte("中文")); got != FromUint64(simhash.Hash64([]byte("中文"))) {
		t.Fatalf("CJK bigram: got %v", got)
	}
	// A lone CJK character is a token by itself.
	if got := g.Fingerprint([]byte("中 abc")); got.Uint64() == 0 {
		t.Fatal("lone CJK character dropped")
	}
}

// editStats fingerprints n documents made by gen, each with one token
// replaced, and returns the mean and largest distance between a document
// and its edit.
func editStats(f Fingerprinter, n int, gen func(*rand.Rand) string, edit func(*rand.Rand, string) string) (meanEdit float64, maxEdit int) {
	for i := range n {
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		doc := gen(rng)
		a := f.Fingerprint([]byte(doc))
		b := f.Fingerprint([]byte(edit(rng, doc)))
		d, _ := Distance(a, b)
		meanEdit += float64(d)
		maxEdit = max(maxEdit, d)
	}
	return meanEdit / float64(n), maxEdit
}

// unrelatedMean returns the mean distance between the fingerprints of
// pairs of documents of n random words each (random letter strings, so
// two documents share no words), over pairs pairs.
func unrelatedMean(f Fingerprinter, pairs, n int) float64 {
	rng := rand.New(rand.NewPCG(3, 3))
	doc := func() []byte {
		var b []byte
		for range n {
			for range 3 + rng.IntN(6) {
				b = append(b, byte('a'+rng.IntN(26)))
			}
			b = append(b, ' ')
		}
		return b
	}
	sum := 0
	for range pairs {
		d, _ := Distance(f.Fingerprint(doc()), f.Fingerprint(doc()))
		sum += d
	}
	return float64(sum) / float64(pairs)
}

// replaceWord replaces one random space-separated word of doc by "zebra".
func replaceWord(rng *rand.Rand, doc string) string {
	words := strings.Split(doc, " ")
	words[rng.IntN(len(words))] = "zebra"
	return strings.Join(words, " ")
}

// replaceRune replaces one random CJK character of doc by 龘.
func replaceRune(rng *rand.Rand, doc string) string {
	rs := []rune(doc)
	for {
		i := rng.IntN(len(rs))
		if rs[i] >= 0x4e00 {
			rs[i] = '龘'
			return string(rs)
		}
	}
}

// TestPipelineEditStatistics is the statistical test of the fingerprint:
// a one-word edit of a long English or Chinese document moves few bits,
// while unrelated documents differ in about half the bits. Documents and
// edits come from fixed seeds.
func TestPipelineEditStatistics(t *testing.T) {
	n := 60
	if testing.Short() || pipelineRace {
		n = 15
	}
	for _, bits := range []int{64, 128} {
		f := mustPipeline(t, DefaultPipeline(), bits)
		for _, lang := range []struct {
			name string
			gen  func(*rand.Rand) string
			edit func(*rand.Rand, string) string
		}{
			{"en", func(r *rand.Rand) string { return testtext.English(r, 1500) }, replaceWord},
			{"zh", func(r *rand.Rand) string { return testtext.Chinese(r, 3000) }, replaceRune},
		} {
			meanEdit, maxEdit := editStats(f, n, lang.gen, lang.edit)
			t.Logf("%s %d bits: one edit moves %.2f bits on average (max %d)", lang.name, bits, meanEdit, maxEdit)
			// A one-token edit changes a few of ~1500 features.
			if meanEdit > float64(bits)/32 || maxEdit > bits/8 {
				t.Errorf("%s %d bits: edits move too many bits: mean %.2f, max %d", lang.name, bits, meanEdit, maxEdit)
			}
		}
		// Unrelated documents: each distance is about Binomial(bits, 1/2),
		// sd sqrt(bits)/2; the mean of n pairs is within 5 sd/sqrt(n).
		mean := unrelatedMean(f, n, 300)
		half, sd := float64(bits)/2, math.Sqrt(float64(bits))/2/math.Sqrt(float64(n))
		t.Logf("%d bits: unrelated documents differ in %.2f bits on average", bits, mean)
		if mean < half-5*sd || mean > half+5*sd {
			t.Errorf("%d bits: unrelated documents differ in %.2f bits, want %.0f ± %.2f", bits, mean, half, 5*sd)
		}
	}
}

// TestPipelineSegment runs the gse word segmenter through the pipeline:
// a shared Segmenter, tf-idf, and top-N keywords (the jieba way).
func TestPipelineSegment(t *testing.T) {
	if testing.Short() || pipelineRace {
		t.Skip("loads the gse dictionary")
	}
	seg := new(analysis.Segmenter)
	if err := seg.Load(); err != nil {
		t.Fatal(err)
	}
	p := Pipeline{CJK: CJKSegment, Segmenter: seg, Weighting: weight.TFIDF, IDF: testIDF, TopN: 20}
	f := mustPipeline(t, p, 64)
	rng := rand.New(rand.NewPCG(8, 8))
	doc := testtext.Chinese(rng, 2000)
	a := f.Fingerprint([]byte(doc))
	b := f.Fingerprint([]byte(replaceRune(rng, doc)))
	if a.Uint64() == 0 {
		t.Fatal("empty fingerprint")
	}
	if d, _ := Distance(a, b); d > 8 {
		t.Fatalf("one edit moved %d bits", d)
	}
	// The same Segmenter serves a second pipeline without reloading.
	g := mustPipeline(t, Pipeline{CJK: CJKSegment, Segmenter: seg}, 128)
	if g.Fingerprint([]byte(doc)).Bits() != 128 {
		t.Fatal("width")
	}
}

// TestPipelineASCIIPath checks that the plain-ASCII shortcut (no
// normalization, tokens lowered one by one) gives the fingerprint of the
// full path (normalization, then analysis.Words).
func TestPipelineASCIIPath(t *testing.T) {
	const alphabet = "aBcDeZ09_:.',;- \t\n\r!?AE"
	pipes := []Pipeline{DefaultPipeline(), {Shingle: 2, Weighting: weight.TF},
		{StopWords: analysis.EnglishStopWords()}, {HTML: true}}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, p := range pipes {
		for _, bits := range []int{64, 128} {
			f, g := mustPipeline(t, p, bits), mustPipeline(t, p, bits)
			g.(*pipelineFP).general = true
			for range 300 {
				b := []byte("The ")
				for range rng.IntN(60) {
					b = append(b, alphabet[rng.IntN(len(alphabet))])
				}
				if got, want := f.Fingerprint(b), g.Fingerprint(b); got != want {
					t.Fatalf("%+v, %d bits: %q: ASCII path %v, full path %v", p, bits, b, got, want)
				}
			}
		}
	}
}

// FuzzPipeline fingerprints arbitrary bytes with several pipelines: it
// must never panic, and since normalization is idempotent, a text and its
// normalized form must have the same fingerprint.
func FuzzPipeline(f *testing.F) {
	for _, s := range []string{"", "Hello, World!", "中文测试，ＡＢＣ", "\xff\xfe<b>x</b>", "a\x01\u0301 e\u0301", "ｶﾀｶﾅ and 한국어"} {
		f.Add([]byte(s))
	}
	var fps []Fingerprinter
	for _, p := range []Pipeline{DefaultPipeline(), {Shingle: 3, Weighting: weight.TF}, {CJK: CJKUnigram},
		{Units: UnitChars}, {TopN: 4}} {
		for _, bits := range []int{64, 128} {
			fps = append(fps, mustPipeline(f, p, bits))
		}
	}
	html := mustPipeline(f, Pipeline{HTML: true}, 64)
	f.Fuzz(func(t *testing.T, text []byte) {
		norm := analysis.Normalize(nil, text)
		for _, fp := range fps {
			a := fp.Fingerprint(text)
			if a.Bits() != fp.Bits() {
				t.Fatalf("width %d", a.Bits())
			}
			if b := fp.Fingerprint(norm); a != b {
				t.Fatalf("Fingerprint(%q) = %v, of its normal form %q: %v", text, a, norm, b)
			}
		}
		_ = html.Fingerprint(text)
	})
}

// twins are Fingerprinters with their fast paths on and off, and the
// Features of the default pipeline likewise, to compare the fast paths with
// the general path (normalization, then analysis.Words).
type twins struct {
	names          []string
	fast, general  []Fingerprinter
	keys, keysSlow *Features
}

// newTwins makes the twins of pipes at 64 and 128 bits.
func newTwins(tb testing.TB, pipes []Pipeline) *twins {
	tw := &twins{}
	for _, p := range pipes {
		for _, bits := range []int{64, 128} {
			tw.names = append(tw.names, fmt.Sprintf("%+v/%d", p, bits))
			tw.fast = append(tw.fast, mustPipeline(tb, p, bits))
			g := mustPipeline(tb, p, bits)
			g.(*pipelineFP).general = true
			tw.general = append(tw.general, g)
		}
	}
	var err error
	if tw.keys, err = NewFeatures(DefaultPipeline()); err != nil {
		tb.Fatal(err)
	}
	tw.keysSlow, _ = NewFeatures(DefaultPipeline())
	tw.keysSlow.f.general = true
	return tw
}

// check fails tb if a fast path gives another fingerprint or other keys
// for text than the general path.
func (tw *twins) check(tb testing.TB, text []byte) {
	tb.Helper()
	for i, f := range tw.fast {
		if got, want := f.Fingerprint(text), tw.general[i].Fingerprint(text); got != want {
			tb.Fatalf("%s: %q: fast path %v, general path %v", tw.names[i], text, got, want)
		}
	}
	if got, want := tw.keys.Keys(nil, text), tw.keysSlow.Keys(nil, text); fmt.Sprint(got) != fmt.Sprint(want) {
		tb.Fatalf("%q: Keys %x, general path %x", text, got, want)
	}
}

// fastPipes are the pipelines whose fast paths the tests compare with the
// general path: the default, and variants that take part of the fast
// paths (TopN, tf-idf: counted in a Counter; binary and tf weights) or
// none (2-shingles, CJK bigrams, HTML first).
func fastPipes(tb testing.TB) []Pipeline {
	idf := weight.NewIDF(map[uint64]float64{simhash.Hash64([]byte("the")): 5, simhash.Hash64([]byte("don't")): 3,
		simhash.Hash64([]byte("中")): 4}, 10, 2)
	return []Pipeline{DefaultPipeline(), {TopN: 5}, {Weighting: weight.TFIDF, IDF: idf},
		{Weighting: weight.Binary}, {Weighting: weight.TF}, {Shingle: 2}, {CJK: CJKBigram}, {HTML: true}}
}

// TestPipelineFusedASCII checks the fast path of the default pipeline on
// plain ASCII (words found by bit scans, hashed while lowered, counted by
// hash) against the general path, on random texts made of the words that
// test the word rules: apostrophes, numbers with dots and commas, hyphens,
// URLs, e-mails, upper case, underscores, words longer than 16 bytes, and
// of any ASCII byte (control characters send the text down the general
// path on both sides).
func TestPipelineFusedASCII(t *testing.T) {
	words := []string{"don't", "O'Neil", "3.14", "1,000,000", "2,5", "e.g.", "x-ray", "--", "http://Example.COM/a_b?q=1",
		"Me@Example.org", "__init__", "_", "A", "THE", "Supercalifragilisticexpialidocious", "ABCDEFGHIJKLMNOPQ", "12:30",
		"a.b.c", "U.S.A.", "it's", "rock'n'roll", "v1.2.3", "\x00", "\x1f", "\x7f", "\t", "\n", "..."}
	tw := newTwins(t, fastPipes(t))
	rng := rand.New(rand.NewPCG(5, 5))
	for k := range 1000 {
		var b []byte
		for range rng.IntN(80) {
			if k%4 == 3 {
				b = append(b, byte(rng.IntN(128)))
				continue
			}
			b = append(b, words[rng.IntN(len(words))]...)
			b = append(b, " ,.;:'-\n"[rng.IntN(8)])
		}
		tw.check(t, b)
	}
}

// mixPieces are the pieces of the random texts of TestPipelineFastPaths and
// the seeds of FuzzPipelineFastPaths: ASCII words and marks, Chinese
// ideographs and punctuation (the text analysis.FoldCJK takes, full-width
// forms among it), and what it refuses: Latin accents and a combining
// accent, Kana, Hangul, emoji, the quotes that join words, controls,
// invalid UTF-8, HTML.
var mixPieces = []string{"The", "don't", "3.14", "1,000", "U.S.A.", "_", "x-ray", "ABCDEFGHIJKLMNOPQR", " ", "  ", "\n", "\t",
	".", ",", ":", "'", "中", "文", "我们", "经济", "发展", "，", "。", "、", "；", "：", "《", "》", "「", "」", "【", "】", "—",
	"“", "”", "（", "）", "！", "？", "Ｈｅｌｌｏ", "１２３", "２０２３年", "\u3000", "ＡＢＣ", "café", "naïve", "e\u0301",
	"ß", "İ", "ﬁ", "あ", "カタカナ", "ｶﾀｶﾅ", "한국어", "😀", "👍🏽", "’", "‘", "\x00", "\x01", "\x7f", "\xff", "\xe4\xb8",
	"<b>", "</p>", "&amp;", "&#20013;", "<script>x=1</script>"}

// randomMix returns a random text of up to n pieces of mixPieces: half the
// time, only of those before "café", which the fast paths take.
func randomMix(rng *rand.Rand, n int) []byte {
	var b []byte
	lim := len(mixPieces)
	if rng.IntN(2) == 0 {
		lim = slices.Index(mixPieces, "café")
	}
	for range rng.IntN(n + 1) {
		b = append(b, mixPieces[rng.IntN(lim)]...)
	}
	return b
}

// TestPipelineFastPaths checks the fast paths (plain ASCII, and Chinese
// through analysis.FoldCJK) against the general path on random mixes of
// ASCII, Chinese, Latin accents, Kana, Hangul, emoji, invalid UTF-8,
// controls and HTML, and on generated English and Chinese documents.
func TestPipelineFastPaths(t *testing.T) {
	tw := newTwins(t, fastPipes(t))
	rng := rand.New(rand.NewPCG(6, 6))
	n := 3000
	if testing.Short() || pipelineRace {
		n = 300
	}
	for k := range n {
		tw.check(t, randomMix(rng, 1+k%60))
	}
	for k := range 20 {
		tw.check(t, []byte(testtext.English(rng, 50*k)))
		tw.check(t, []byte(testtext.Chinese(rng, 100*k)))
		tw.check(t, []byte(testtext.Article(rng, 50*k)))
	}
}

// FuzzPipelineFastPaths checks the fast paths against the general path on
// any text.
func FuzzPipelineFastPaths(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 20 {
		f.Add(randomMix(rng, 20))
	}
	tw := newTwins(f, fastPipes(f))
	f.Fuzz(func(t *testing.T, text []byte) {
		tw.check(t, text)
	})
}
