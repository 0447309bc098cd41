package similarity

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"A man is playing a guitar.", []string{"a", "man", "is", "playing", "a", "guitar"}},
		{"  Hello,   WORLD!! ", []string{"hello", "world"}},
		{"谢谢分享！！", []string{"谢", "谢", "分", "享"}},
		{"iPhone 15 发布了", []string{"iphone", "15", "发", "布", "了"}},
		{"!!!", []string{"!!!"}}, // punctuation alone is kept, as EditRunes keeps it
	} {
		got := NewSketch([]byte(c.text)).Words(nil, -1)
		var want []uint64
		for _, w := range c.want {
			want = append(want, NewSketch([]byte(w)).Words(nil, -1)...)
		}
		if len(want) != len(c.want) || !slices.Equal(got, want) {
			t.Errorf("Words(%q): %d hashes %x, want the %d words %q", c.text, len(got), got, len(c.want), c.want)
		}
	}
	s := NewSketch([]byte("one two three four five"))
	if got := s.Words(nil, 2); len(got) != 3 {
		t.Errorf("Words with most 2 gave %d words, want 3 (one more than most, then it stops)", len(got))
	}
	if got := s.Words(nil, 5); len(got) != 5 {
		t.Errorf("Words with most 5 gave %d words, want all 5", len(got))
	}
}

// wordEdits is the edit distance of two word sequences of small words
// (naiveLevenshtein, a word a rune).
func wordEdits(a, b []uint64) int {
	runes := func(w []uint64) []rune {
		rs := make([]rune, len(w))
		for i, x := range w {
			rs[i] = rune(x)
		}
		return rs
	}
	return naiveLevenshtein(runes(a), runes(b))
}

func TestOneWordApartAndDeletionKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	seq := func(n int) []uint64 {
		w := make([]uint64, n)
		for i := range w {
			w[i] = uint64(rng.IntN(4)) // few distinct words: many near pairs
		}
		return w
	}
	near, shared := 0, 0
	for range 20000 {
		a, b := seq(rng.IntN(7)), seq(rng.IntN(7))
		if rng.IntN(2) == 0 { // b one random edit from a
			b = slices.Clone(a)
			switch i := rng.IntN(len(a) + 1); rng.IntN(3) {
			case 0:
				b = slices.Insert(b, i, uint64(rng.IntN(4)))
			case 1:
				if i < len(b) {
					b = slices.Delete(b, i, i+1)
				}
			default:
				if i < len(b) {
					b[i] = uint64(rng.IntN(4))
				}
			}
		}
		want := wordEdits(a, b) <= 1
		if got := OneWordApart(a, b); got != want {
			t.Fatalf("OneWordApart(%v, %v) = %v, edit distance %d", a, b, got, wordEdits(a, b))
		}
		ka, kb := DeletionKeys(a, nil), DeletionKeys(b, nil)
		if len(ka) != len(a)+1 {
			t.Fatalf("DeletionKeys of %d words gave %d keys", len(a), len(ka))
		}
		share := slices.ContainsFunc(ka, func(k uint64) bool { return slices.Contains(kb, k) })
		if want {
			near++
			if !share {
				t.Fatalf("%v and %v are one word apart but share no deletion key", a, b)
			}
		} else if share {
			shared++
			if wordEdits(a, b) > 2 {
				t.Fatalf("%v and %v, %d words apart, share a deletion key", a, b, wordEdits(a, b))
			}
		}
	}
	if near < 5000 {
		t.Fatalf("only %d of the pairs were one word apart: the test checks too little", near)
	}
	t.Logf("%d pairs one word apart; %d two words apart share a key", near, shared)
}

func TestSameNegation(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"The patient is allergic to penicillin.", "The patient is not allergic to penicillin.", false},
		{"The patient is NOT allergic.", "the patient is not allergic", true},
		{"I do like this design", "I don’t like this design", false}, // a curly apostrophe, read as '
		{"I can't come", "I cannot come", true},
		{"never again", "not again", true}, // one word of negation each
		{"我喜欢这个产品的设计", "我不喜欢这个产品的设计", false},
		{"我没有时间", "我沒有時間", true},
		{"Das ist gut", "Das ist nicht gut", false},
		{"Ce n'est pas vrai", "Ce n'est vrai", false},
		{"no news is good news", "no news is good news!", true},
		{"", "", true},
	} {
		a, b := NewSketch([]byte(c.a)), NewSketch([]byte(c.b))
		if got := SameNegation(a.Runes, b.Runes); got != c.same {
			t.Errorf("SameNegation(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
		if got := SameNegation(b.Runes, a.Runes); got != c.same {
			t.Errorf("SameNegation(%q, %q) = %v, want %v", c.b, c.a, got, c.same)
		}
	}
}

func TestSameNumbers(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"Your code is 482913. It expires in 10 minutes.", "Your code is 573201. It expires in 10 minutes.", false},
		{"Your code is 482913. It expires in 10 minutes.", "your code is 482913, it expires in 10 minutes", true},
		{"no numbers here", "none here either", true},
		{"3.14", "31.4", false},
		{"3.14", "3 14", true},
		{"version 12", "version 1", false},
		{"version 1", "version 12", false},
		{"5 apples and 3 pears", "3 apples and 5 pears", false},
		{"page 7", "page 7 of 9", false},
		{"ＩＤ ４２", "id 42", true}, // full-width digits, folded by NFKC
		{"٤٢ items", "42 items", false},
		{"", "", true},
		{"42", "", false},
	} {
		a, b := NewSketch([]byte(c.a)), NewSketch([]byte(c.b))
		if got := SameNumbers(a.Runes, b.Runes); got != c.same {
			t.Errorf("SameNumbers(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
		if got := SameNumbers(b.Runes, a.Runes); got != c.same {
			t.Errorf("SameNumbers(%q, %q) = %v, want %v", c.b, c.a, got, c.same)
		}
	}
}
