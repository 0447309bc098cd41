package similarity

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b []uint64
		want float64
	}{
		{nil, nil, 1},
		{[]uint64{1}, nil, 0},
		{nil, []uint64{1}, 0},
		{[]uint64{1, 2, 3}, []uint64{1, 2, 3}, 1},
		// The seed's example: S={a,d}, T={a,c,d} gives 2/3.
		{[]uint64{'a', 'd'}, []uint64{'a', 'c', 'd'}, 2.0 / 3},
		{[]uint64{1, 3, 5}, []uint64{2, 4, 6}, 0},
		{[]uint64{1, 2, 3, 4}, []uint64{3, 4, 5, 6}, 2.0 / 6},
	}
	for _, tt := range tests {
		if got := Jaccard(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Jaccard(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := Jaccard(tt.b, tt.a); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Jaccard(%v, %v) = %v, want %v (symmetry)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestCosine(t *testing.T) {
	tests := []struct {
		a, b Vector
		want float64
	}{
		{nil, nil, 1},
		{Vector{{1, 1}}, nil, 0},
		{Vector{{1, 2}, {5, 1}}, Vector{{1, 4}, {5, 2}}, 1},
		{Vector{{1, 1}}, Vector{{2, 1}}, 0},
		// (1,1,0)·(0,1,1) / (√2·√2) = 1/2
		{Vector{{1, 1}, {2, 1}}, Vector{{2, 1}, {3, 1}}, 0.5},
		// (3,4)·(4,3) / 25
		{Vector{{7, 3}, {9, 4}}, Vector{{7, 4}, {9, 3}}, 24.0 / 25},
	}
	for _, tt := range tests {
		if got := Cosine(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestCosineIdentical checks that a vector's cosine with itself is exactly
// 1, as a text's with itself is shown: the rounded lengths alone would leave
// some a unit in the last place off.
func TestCosineIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for n := range 500 {
		v := make(Vector, 1+n%40)
		for i := range v {
			v[i] = Term{Key: uint64(i), Weight: float64(1 + rng.IntN(9))}
			if n%2 == 1 {
				v[i].Weight *= 1 + 9*rng.Float64() // tf-idf weights
			}
		}
		if got := Cosine(v, v); got != 1 {
			t.Fatalf("Cosine(v, v) = %v for %v, want 1", got, v)
		}
	}
	// Close to 1 but not parallel, not rounded up.
	a, b := Vector{{1, 100}, {2, 1}}, Vector{{1, 100}, {2, 2}}
	if got := Cosine(a, b); got >= 1 || got < 0.9999 {
		t.Errorf("Cosine(%v, %v) = %v, want just under 1", a, b, got)
	}
}

// naiveLevenshtein is the textbook full-matrix edit distance, the reference
// the fast versions are checked against.
func naiveLevenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestLevenshteinTable(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"flaw", "lawn", 2},
		{"你妈妈喊你回家吃饭哦,回家罗回家罗", "你妈妈叫你回家吃饭啦,回家罗回家罗", 2},
		{"αβγδ", "αγδε", 2},
		{"intention", "execution", 5},
	}
	for _, tt := range tests {
		a, b := []rune(tt.a), []rune(tt.b)
		if got := Levenshtein(a, b, -1); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if tt.want > 0 {
			if got := Levenshtein(a, b, tt.want-1); got != tt.want {
				t.Errorf("Levenshtein(%q, %q, max %d) = %d, want %d", tt.a, tt.b, tt.want-1, got, tt.want)
			}
		}
	}
}

// randomRunes returns n runes from a small alphabet (so edits line up often)
// mixing ASCII and CJK, to cover both lookup paths of the pattern tables.
func randomRunes(r *rand.Rand, n int) []rune {
	alpha := []rune("abcde 你好世界")
	s := make([]rune, n)
	for i := range s {
		s[i] = alpha[r.IntN(len(alpha))]
	}
	return s
}

// mutate applies k random single-rune edits to s.
func mutate(r *rand.Rand, s []rune, k int) []rune {
	s = append([]rune(nil), s...)
	for range k {
		i := r.IntN(len(s) + 1)
		switch r.IntN(3) {
		case 0:
			s = append(s[:i], append([]rune{'x'}, s[i:]...)...)
		case 1:
			if i < len(s) {
				s = append(s[:i], s[i+1:]...)
			}
		default:
			if i < len(s) {
				s[i] = '界'
			}
		}
	}
	return s
}

func TestLevenshteinMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lengths := []int{0, 1, 5, 63, 64, 65, 127, 128, 129, 200, 500}
	for _, la := range lengths {
		for _, lb := range []int{-1, 0, 3, 64, 130} {
			for range 4 {
				a := randomRunes(r, la)
				var b []rune
				if lb < 0 {
					b = mutate(r, a, 1+r.IntN(20))
				} else {
					b = randomRunes(r, lb)
				}
				want := naiveLevenshtein(a, b)
				if got := Levenshtein(a, b, -1); got != want {
					t.Fatalf("Levenshtein(len %d, len %d) = %d, want %d", len(a), len(b), got, want)
				}
				for _, bound := range []int{0, 1, 3, 10, want - 1, want, want + 1, 1000} {
					if bound < 0 {
						continue
					}
					exp := min(want, bound+1)
					if got := Levenshtein(a, b, bound); got != exp {
						t.Fatalf("Levenshtein(len %d, len %d, max %d) = %d, want %d (distance %d)", len(a), len(b), bound, got, exp, want)
					}
					// The diagonal and block paths directly, whatever
					// Levenshtein would pick.
					if got, _ := diagonal(a, b, bound, 1<<62); got != exp {
						t.Fatalf("diagonal(len %d, len %d, max %d) = %d, want %d", len(a), len(b), bound, got, exp)
					}
					if len(a) > 0 && len(b) > 0 {
						x, y := a, b
						if len(x) < len(y) {
							x, y = y, x
						}
						if len(x)-len(y) <= bound {
							if got := myersBlocks(x, y, bound); min(got, bound+1) != exp {
								t.Fatalf("myersBlocks(len %d, len %d, max %d) = %d, want %d", len(x), len(y), bound, got, exp)
							}
						}
					}
				}
			}
		}
	}
}

func TestLevenshteinRatio(t *testing.T) {
	tests := []struct {
		a, b string
		want float64
	}{
		{"", "", 1},
		{"abcd", "abcd", 1},
		{"abcd", "", 0},
		{"abcd", "wxyz", 0},
		{"kitten", "sitting", 1 - 3.0/7},
	}
	for _, tt := range tests {
		if got := LevenshteinRatio([]rune(tt.a), []rune(tt.b)); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("LevenshteinRatio(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzLevenshtein checks the fast paths against the textbook algorithm on
// arbitrary text (invalid UTF-8 becomes U+FFFD runes) and bounds.
func FuzzLevenshtein(f *testing.F) {
	f.Add("kitten", "sitting", 2)
	f.Add("你妈妈喊你回家吃饭哦", "你妈妈叫你回家吃饭啦", -1)
	f.Add(strings.Repeat("ab", 50), strings.Repeat("ba", 40), 10)
	f.Fuzz(func(t *testing.T, x, y string, bound int) {
		a, b := []rune(x), []rune(y)
		if len(a)*len(b) > 1<<20 {
			return // keep the quadratic reference cheap
		}
		want := naiveLevenshtein(a, b)
		got := Levenshtein(a, b, bound)
		if bound < 0 {
			if got != want {
				t.Fatalf("Levenshtein(%q, %q) = %d, want %d", x, y, got, want)
			}
			return
		}
		if got != min(want, bound+1) {
			t.Fatalf("Levenshtein(%q, %q, max %d) = %d, want %d", x, y, bound, got, min(want, bound+1))
		}
		if r := LevenshteinRatio(a, b); r < 0 || r > 1 {
			t.Fatalf("LevenshteinRatio = %v, outside [0, 1]", r)
		}
	})
}

func TestSortHashes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{0, 1, 2, 63, 64, 100, 255, 511, 512, 1000, 5000} {
		a := make([]uint64, n)
		for i := range a {
			a[i] = r.Uint64()
			if i%10 == 0 {
				a[i] = a[i] & 0xff // small values and repeats too
			}
		}
		want := slices.Clone(a)
		slices.Sort(want)
		sortHashes(a)
		if !slices.Equal(a, want) {
			t.Fatalf("sortHashes of %d values is not sorted", n)
		}
	}
}

// TestFarByTrigrams checks the q-gram filter that lets a bounded
// Levenshtein skip unrelated texts: it must never call texts within the
// bound far (here against the naive distance, for texts edited up to and
// beyond the bound, and for the worst case the lemma allows: substitutions
// three runes apart in a text of distinct runes, each of which removes three
// trigrams, leaving exactly the count the bound needs), and it must call
// most unrelated texts far.
func TestFarByTrigrams(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	alpha := []rune("abcdefghijklmnopqrstuvwxyz .,'ABCDEFGH你好世界")
	text := func(n int) []rune {
		s := make([]rune, n)
		for i := range s {
			s[i] = alpha[r.IntN(len(alpha))]
		}
		return s
	}
	fired, unrelated := 0, 0
	for _, n := range []int{3, 10, 65, 140, 380, 700} {
		for range 30 {
			a := text(n)
			bound := n / 5
			for i, b := range [][]rune{mutate(r, a, bound/2), mutate(r, a, bound), mutate(r, a, bound+5), text(n), text(n * 3 / 4)} {
				x, y := a, b
				if len(x) < len(y) {
					x, y = y, x
				}
				far := farByTrigrams(x, y, bound)
				if d := naiveLevenshtein(x, y); far && d <= bound {
					t.Fatalf("farByTrigrams(len %d, len %d, %d) = true, but the distance is %d", len(x), len(y), bound, d)
				}
				if i >= 3 && n >= 65 { // b is another random text
					unrelated++
					if far {
						fired++
					}
				}
			}
		}
	}
	if fired < unrelated/2 {
		t.Errorf("farByTrigrams called %d of %d unrelated texts far, want most", fired, unrelated)
	}

	// The worst case: m substitutions at runes 2, 5, 8, ... of a text of
	// distinct runes leave len-2-3m shared trigrams, exactly what m allows.
	for _, n := range []int{70, 200, 400} {
		a := make([]rune, n)
		for i := range a {
			a[i] = rune(0x4e00 + i)
		}
		for _, m := range []int{1, 10, (n - 5) / 3} {
			b := slices.Clone(a)
			for e := range m {
				b[2+3*e] = rune(0x10000 + e)
			}
			if farByTrigrams(a, b, m) {
				t.Errorf("n %d: %d substitutions three apart called farther than %d", n, m, m)
			}
			if got := Levenshtein(a, b, m); got != m {
				t.Errorf("n %d: Levenshtein with %d substitutions, bound %d = %d", n, m, m, got)
			}
		}
	}
}
