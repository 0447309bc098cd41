package similarity

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGramSetJaccard checks GramSet.Jaccard against Jaccard of the two
// sorted shingle sets, exactly, on random texts from empty to a few
// thousand runes, ASCII, accented and CJK, near copies and not.
func TestGramSetJaccard(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	alphabet := []rune("abcab cde fé 你好世界")
	text := func(n int) string {
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(rs)
	}
	for range 500 {
		a := text([]int{0, 1, 2, 3, 50, 400, 3000}[r.IntN(7)])
		b := a
		if r.IntN(3) == 0 {
			b = text(r.IntN(500))
		} else if len(b) > 0 {
			rs := []rune(b)
			for range r.IntN(30) {
				rs[r.IntN(len(rs))] = alphabet[r.IntN(len(alphabet))]
			}
			b = string(rs)
		}
		sa, sb := NewSketch([]byte(a)), NewSketch([]byte(b))
		want := Jaccard(sa.Shingles(), sb.Shingles())
		g := NewGramSet(sa)
		if g.Len() != len(sa.Shingles()) {
			t.Fatalf("%q: GramSet of %d keys, shingles %d", a, g.Len(), len(sa.Shingles()))
		}
		if got := g.Jaccard(sb); got != want {
			t.Fatalf("%q vs %q: GramSet.Jaccard %v, want %v", a, b, got, want)
		}
	}
}

// TestGramSetZeroKey checks the key 0, which no slot can hold, on sets of
// keys given directly: in both sets, in one only, repeated.
func TestGramSetZeroKey(t *testing.T) {
	jaccard := func(a, b []uint64) float64 {
		a, b = slices.Clone(a), slices.Clone(b)
		slices.Sort(a)
		slices.Sort(b)
		return Jaccard(slices.Compact(a), slices.Compact(b))
	}
	for _, tc := range [][2][]uint64{
		{{0, 5, 7}, {0, 5}},
		{{0, 5, 7}, {5, 7, 9}},
		{{5, 7}, {0, 0, 5}},
		{{0}, {0, 0}},
		{{}, {0}},
		{{}, {}},
		{{1 << 63, 3 << 62, 1}, {3 << 62, 0, 1, 1}},
	} {
		if got, want := newGramSet(tc[0]).jaccard(tc[1]), jaccard(tc[0], tc[1]); got != want {
			t.Errorf("%v vs %v: %v, want %v", tc[0], tc[1], got, want)
		}
	}
}
