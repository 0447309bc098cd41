package similarity

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
)

func TestCompare(t *testing.T) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog while the cat sleeps ", 20)
	edited := strings.Replace(long, "lazy", "sleepy", 1)
	tests := []struct {
		name   string
		a, b   string
		lo, hi Scores // each score must lie within [lo, hi]
	}{
		{"equal", "Hello world", "Hello world", sc(1, 1, 1), sc(1, 1, 1)},
		{"case and spaces", "Hello   World", "hello world", sc(1, 1, 1), sc(1, 1, 1)},
		{"both empty", "", "", sc(1, 1, 1), sc(1, 1, 1)},
		{"one empty", "", "some text", sc(0, 0, 0), sc(0, 0, 0)},
		{"unrelated", "alpha beta gamma", "delta epsilon zeta", sc(0, 0, 0), sc(0.1, 0, 0.5)},
		// Two of eight distinct 3-grams are shared: " b " and " c ".
		{"reordered words", "a b c d", "d c b a", sc(0.25, 1, 0), sc(0.25, 1, 0.5)},
		{"one word edited in a long text", long, edited, sc(0.8, 0.99, 0.99), sc(0.999, 1, 1)},
		// Seed 000's pair: two characters differ out of 17.
		{"chinese", "你妈妈喊你回家吃饭哦,回家罗回家罗", "你妈妈叫你回家吃饭啦,回家罗回家罗",
			sc(0.5, 0.8, 1-2.0/16), sc(0.8, 0.95, 1-2.0/16)}, // the comma not counted
	}
	for _, tt := range tests {
		got := Compare(NewSketch([]byte(tt.a)), NewSketch([]byte(tt.b)))
		in := func(v, lo, hi float64) bool { return v >= lo-1e-12 && v <= hi+1e-12 }
		if !in(got.Jaccard, tt.lo.Jaccard, tt.hi.Jaccard) || !in(got.Cosine, tt.lo.Cosine, tt.hi.Cosine) ||
			!in(got.Levenshtein, tt.lo.Levenshtein, tt.hi.Levenshtein) {
			t.Errorf("%s: Compare = %+v, want between %+v and %+v", tt.name, got, tt.lo, tt.hi)
		}
		if back := Compare(NewSketch([]byte(tt.b)), NewSketch([]byte(tt.a))); back != got {
			t.Errorf("%s: Compare is not symmetric: %+v and %+v", tt.name, got, back)
		}
	}
}

func TestShingles(t *testing.T) {
	tests := []struct {
		text string
		want []string // the grams, before hashing
	}{
		{"", nil},
		{"ab", []string{"ab"}},
		{"hello", []string{"hel", "ell", "llo"}},
		{"a b", []string{"a b"}},
		{"你好世界", []string{"你好", "好世", "世界"}},
		{"a你好", []string{"a你好", "你好"}},
		{"好", []string{"好"}},
		{"abab", []string{"aba", "bab"}},
		{"aaaa", []string{"aaa"}},
	}
	for _, tt := range tests {
		var want []uint64
		for _, g := range tt.want {
			want = append(want, keyOf(g))
		}
		slices.Sort(want)
		want = slices.Compact(want)
		if got := shingles([]rune(tt.text)); !slices.Equal(got, want) {
			t.Errorf("shingles(%q) = %x, want the keys of %q", tt.text, got, tt.want)
		}
	}
}

// keyOf returns gramKey of the runes of the gram g (one to three runes).
func keyOf(g string) uint64 {
	rs := append([]rune(g), -1, -1)
	return gramKey(rs[0], rs[1], rs[2])
}

// TestGramKeysDistinct checks that grams that differ have different keys,
// on grams built to share bits once packed: runes at the ends of their
// range, and grams of different lengths that hold the same runes.
func TestGramKeysDistinct(t *testing.T) {
	edge := []rune{0, 1, 'a', 0x7ff, 0xffff, 0x100000, utf8.MaxRune}
	seen := map[uint64]string{}
	add := func(g []rune) {
		k := gramKey(append(g, -1, -1)[0], append(g, -1, -1)[1], append(g, -1, -1)[2])
		if old, ok := seen[k]; ok && old != string(g) {
			t.Fatalf("grams %q and %q have the same key %x", old, string(g), k)
		}
		seen[k] = string(g)
	}
	for _, x := range edge {
		add([]rune{x})
		for _, y := range edge {
			add([]rune{x, y})
			for _, z := range edge {
				add([]rune{x, y, z})
			}
		}
	}
	if want := len(edge) + len(edge)*len(edge) + len(edge)*len(edge)*len(edge); len(seen) != want {
		t.Fatalf("%d distinct keys, want %d", len(seen), want)
	}
}

// TestShinglesJaccardOfGrams checks that the Jaccard similarity of two
// sketches' shingles is that of their sets of grams, on random texts of
// ASCII, accents and CJK, short and long (past sortHashes's radix pass).
func TestShinglesJaccardOfGrams(t *testing.T) {
	grams := func(text string) map[string]bool {
		rs := []rune(text)
		set := map[string]bool{}
		for i, r := range rs {
			w := 3
			if analysis.IsCJK(r) {
				w = 2
			}
			if i+w <= len(rs) {
				set[string(rs[i:i+w])] = true
			}
		}
		if len(set) == 0 && len(rs) > 0 {
			set[text] = true
		}
		return set
	}
	alphabet := []rune("abcde fgé 你好世界")
	r := rand.New(rand.NewPCG(3, 4))
	text := func(n int) string {
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(analysis.Normalize(nil, []byte(string(rs)))) // already normalized
	}
	for range 300 {
		a := text(1 + r.IntN(1500))
		b := []rune(a)
		for range r.IntN(20) {
			b[r.IntN(len(b))] = alphabet[r.IntN(len(alphabet))]
		}
		bs := string(analysis.Normalize(nil, []byte(string(b))))
		ga, gb := grams(a), grams(bs)
		inter := 0
		for g := range ga {
			if gb[g] {
				inter++
			}
		}
		want := 1.0
		if len(ga)+len(gb) > 0 {
			want = float64(inter) / float64(len(ga)+len(gb)-inter)
		}
		if got := Jaccard(NewSketch([]byte(a)).Shingles(), NewSketch([]byte(bs)).Shingles()); got != want {
			t.Fatalf("Jaccard of %q and %q = %v, want %v (of the grams)", a, bs, got, want)
		}
	}
}

func TestSketchIDF(t *testing.T) {
	// With "the" weighted 0, texts that share only "the" are orthogonal.
	idf := func(tok []byte) float64 {
		if string(tok) == "the" {
			return 0
		}
		return 1
	}
	a, b := []byte("the cat"), []byte("the dog")
	if c := Compare(NewSketch(a), NewSketch(b)).Cosine; math.Abs(c-0.5) > 1e-12 {
		t.Errorf("tf cosine = %v, want 0.5", c)
	}
	if c := Compare(NewSketchIDF(a, idf), NewSketchIDF(b, idf)).Cosine; c != 0 {
		t.Errorf("tf-idf cosine = %v, want 0", c)
	}
}

// TestSketchIDFOddWeights checks that scores stay in [0, 1] whatever idf
// returns: NaN, negative, infinite, huge or tiny weights, alone or mixed
// with ordinary ones.
func TestSketchIDFOddWeights(t *testing.T) {
	odd := []float64{math.NaN(), -1, math.Inf(-1), math.Inf(1), math.MaxFloat64, 1e300, 1e-300, 5e-324, 0}
	texts := []string{"the cat sat", "the cat sat on the mat", "a dog", "the the the cat"}
	for _, w := range odd {
		// w for every token, for "the" only, or for every token but "the".
		idfs := map[string]func([]byte) float64{
			"all": func([]byte) float64 { return w },
			"the": func(tok []byte) float64 {
				if string(tok) == "the" {
					return w
				}
				return 1
			},
			"other": func(tok []byte) float64 {
				if string(tok) == "the" {
					return 1
				}
				return w
			},
		}
		for name, idf := range idfs {
			for _, a := range texts {
				for _, b := range texts {
					sa, sb := NewSketchIDF([]byte(a), idf), NewSketchIDF([]byte(b), idf)
					if c := Compare(sa, sb).Cosine; !(c >= 0 && c <= 1) {
						t.Errorf("idf %v on %s: cosine of %q and %q = %v", w, name, a, b, c)
					}
					for _, tm := range sa.Vector() {
						if !(tm.Weight >= 0) || math.IsInf(tm.Weight, 0) {
							t.Errorf("idf %v on %s: %q has weight %v", w, name, a, tm.Weight)
						}
					}
				}
				if c := Compare(NewSketchIDF([]byte(a), idf), NewSketchIDF([]byte(a), idf)).Cosine; c != 1 {
					t.Errorf("idf %v on %s: cosine of %q with itself = %v", w, name, a, c)
				}
			}
		}
	}
}

// TestSketchShared checks that a sketch whose shingles and vector are
// computed on first use gives the same answers when many goroutines ask
// at once (run with -race) as one built with its weights given up front.
func TestSketchShared(t *testing.T) {
	text := []byte("The quick brown fox jumps over the lazy dog; 狐狸跳过了懒狗。")
	one := func([]byte) float64 { return 1 }
	eager := NewSketchIDF(text, one)
	other := NewSketch([]byte("the quick brown fox jumped over a lazy dog"))
	want := Compare(eager, other)
	lazy := NewSketch(text)
	var wg sync.WaitGroup
	got := make([]Scores, 8)
	for i := range got {
		wg.Go(func() { got[i] = Compare(lazy, other) })
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Fatalf("goroutine %d: %+v, want %+v", i, g, want)
		}
	}
	if !slices.Equal(lazy.Shingles(), eager.Shingles()) || !slices.Equal(lazy.Vector(), eager.Vector()) {
		t.Fatal("lazy and eager sketches differ")
	}
}

func TestSketchInvalidUTF8(t *testing.T) {
	s := NewSketch([]byte("ab\xffcd"))
	if !strings.ContainsRune(string(s.Runes), '\uFFFD') {
		t.Errorf("runes %q: invalid byte not read as U+FFFD", string(s.Runes))
	}
}

func TestScoresJSON(t *testing.T) {
	b, err := json.Marshal(Scores{Jaccard: 0.5, Cosine: 0.25, Levenshtein: 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jaccard":0.5,"cosine":0.25,"levenshtein":1}`; string(b) != want {
		t.Errorf("json %s, want %s", b, want)
	}
}

func ExampleCompare() {
	a := NewSketch([]byte("The cat sat on the mat"))
	b := NewSketch([]byte("the cat sat on a mat"))
	s := Compare(a, b)
	fmt.Printf("jaccard %.2f cosine %.2f levenshtein %.2f\n", s.Jaccard, s.Cosine, s.Levenshtein)
	// Output: jaccard 0.70 cosine 0.87 levenshtein 0.86
}

func ExampleLevenshtein() {
	fmt.Println(Levenshtein([]rune("kitten"), []rune("sitting"), -1))
	fmt.Println(Levenshtein([]rune("kitten"), []rune("sitting"), 1)) // bound 1: stops at 2
	// Output:
	// 3
	// 2
}

var (
	sinkInt    int
	sinkScores Scores
	sinkSketch *Sketch
)

// words returns n pseudo-random English-like words separated by spaces.
func words(r *rand.Rand, n int) string {
	vocab := strings.Fields("the of and to in is was for on that with as by at from his her it an were are which this be or")
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		if r.IntN(3) == 0 {
			sb.WriteString(vocab[r.IntN(len(vocab))])
		} else {
			fmt.Fprintf(&sb, "w%d", r.IntN(5000))
		}
	}
	return sb.String()
}

func BenchmarkLevenshtein(b *testing.B) {
	benchLevenshtein(b, func(a, b []rune, max int) int { return Levenshtein(a, b, max) })
}

// benchLevenshtein measures an edit distance function on near and unrelated
// texts of several lengths; max = -1 means unbounded.
func benchLevenshtein(b *testing.B, dist func(a, b []rune, max int) int) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{32, 140, 350, 1000, 5000} {
		x := []rune(words(r, n))[:n]
		near := mutate(r, x, 1+n/50)
		far := []rune(words(r, n))[:n]
		b.Run(fmt.Sprintf("near/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = dist(x, near, -1)
			}
		})
		b.Run(fmt.Sprintf("far/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = dist(x, far, -1)
			}
		})
		b.Run(fmt.Sprintf("far-bound10/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = dist(x, far, 10)
			}
		})
		// The bound of short-text verification: a ratio of 0.8.
		b.Run(fmt.Sprintf("far-bound20pct/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = dist(x, far, n/5)
			}
		})
		// Texts that share a footer (or header) as long as themselves:
		// the footer is skipped, and what is left is compared under the
		// bound of the whole, 40% of what is left.
		b.Run(fmt.Sprintf("far-shared-footer/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = dist(x, far, 2*n/5)
			}
		})
	}
}

// BenchmarkLevenshteinHan measures Levenshtein on Chinese texts, whose
// runes are outside ASCII: near copies and unrelated texts under the
// short rule's bound (a ratio of 0.8).
func BenchmarkLevenshteinHan(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	han := func(n int) []rune {
		s := make([]rune, n)
		for i := range s {
			s[i] = 0x4e00 + rune(r.IntN(40)*r.IntN(60)) // a skewed draw from 2,400 characters
		}
		return s
	}
	for _, n := range []int{140, 350} {
		x := han(n)
		near := mutate(r, x, 1+n/50)
		far := han(n)
		b.Run(fmt.Sprintf("near/%d", n), func(b *testing.B) {
			for b.Loop() {
				sinkInt = Levenshtein(x, near, n/5)
			}
		})
		b.Run(fmt.Sprintf("far-bound20pct/%d", n), func(b *testing.B) {
			for b.Loop() {
				sinkInt = Levenshtein(x, far, n/5)
			}
		})
		b.Run(fmt.Sprintf("far/%d", n), func(b *testing.B) {
			for b.Loop() {
				sinkInt = Levenshtein(x, far, -1)
			}
		})
	}
}

func BenchmarkCompare(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{30, 200, 1000} {
		text := words(r, n)
		other := strings.Replace(text, " the ", " a ", 2)
		x, y := NewSketch([]byte(text)), NewSketch([]byte(other))
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkScores = Compare(x, y)
			}
		})
	}
}

func BenchmarkNewSketch(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	text := []byte(words(r, 1000))
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		sinkSketch = NewSketch(text)
	}
}

// BenchmarkShingles measures what a long candidate costs before Jaccard:
// its sketch and its shingles, from the text.
func BenchmarkShingles(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{60, 300} { // words: about 350 and 1,700 characters
		text := []byte(words(r, n))
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				sinkShingles = NewSketch(text).Shingles()
			}
		})
	}
}

var sinkShingles []uint64

// BenchmarkVerifyCandidates measures what verification costs per query: one
// query sketch compared with 200 candidate sketches made in advance (near
// duplicates of the query, the case where every measure runs in full).
func BenchmarkVerifyCandidates(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{25, 400} { // words: about 140 and 2,300 characters
		query := words(r, n)
		q := NewSketch([]byte(query))
		cands := make([]*Sketch, 200)
		for i := range cands {
			edited := []rune(query)
			for range 3 {
				edited[r.IntN(len(edited))] = 'x'
			}
			cands[i] = NewSketch([]byte(string(edited)))
		}
		b.Run(fmt.Sprintf("words=%d/candidates=200", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, c := range cands {
					sinkScores = Compare(q, c)
				}
			}
		})
	}
}

// TestSketchNoWords checks the vector of texts without words: their
// characters, so that two different ones have a cosine of 0 (it was 1, as
// for two empty vectors) and a text and its reordering one of 1.
func TestSketchNoWords(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"!!!", "???", 0},
		{"!!!", "! ! !", 1},
		{"\U0001F600\U0001F389", "\U0001F389\U0001F600", 1},
		{"hello", "hello", 1},
		{"", "", 1},
	} {
		if got := NewSketch([]byte(c.a)).Cosine(NewSketch([]byte(c.b))); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("cosine of %q and %q = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// sc returns the Scores of the three measures.
func sc(jaccard, cosine, levenshtein float64) Scores {
	return Scores{Jaccard: jaccard, Cosine: cosine, Levenshtein: levenshtein}
}
