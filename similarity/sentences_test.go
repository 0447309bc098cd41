package similarity

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func sketch(s string) *Sketch { return NewSketch([]byte(s)) }

func TestSplitSentences(t *testing.T) {
	tests := []struct {
		text   string
		want   []string
		spaced bool
	}{
		{"", nil, false},
		{"One sentence only", []string{"one sentence only"}, false},
		{"It rained. We stayed in! Will it clear?", []string{"it rained", "we stayed in", "will it clear"}, true},
		// Not ends: a decimal point, a dot inside a name.
		{"Pi is 3.14 today. See example.com now.", []string{"pi is 314 today", "see examplecom now"}, true},
		// Marks in a run end one sentence; punctuation alone is none.
		{"What?! Yes... !!! Fine.", []string{"what", "yes", "fine"}, true},
		// The marks of a symbol go with it, as EditRunes drops them.
		{"Great ❤️. Thanks ❤️!", []string{"great", "thanks"}, true},
		// Punctuation alone, which EditRunes keeps whole, has none.
		{"!!! ???", nil, false},
		{"今天下雨了，我们没有出门。明天会晴吗？大家都在等着。", []string{"今天下雨了我们没有出门", "明天会晴吗", "大家都在等着"}, false},
		// A full stop after a Han character ends a sentence with no space after it.
		{"下雨了.出门了", []string{"下雨了", "出门了"}, false},
	}
	for _, tt := range tests {
		s := sketch(tt.text).sentences()
		var got []string
		for _, p := range s.parts {
			got = append(got, string(p))
		}
		if !slices.Equal(got, tt.want) || s.spaced != tt.spaced {
			t.Errorf("%q: %q spaced %v, want %q spaced %v", tt.text, got, s.spaced, tt.want, tt.spaced)
		}
	}
}

func TestEditRatioSentencesMoved(t *testing.T) {
	tests := []struct {
		a, b string
		min  float64 // EditRatio at least this
	}{
		{"今天下雨了，我们没有出门。明天会晴吗？大家都在等着。", "明天会晴吗？大家都在等着。今天下雨了，我们没有出门。", 1},
		{"The train was late again. Nobody said a word. We all looked at our phones.",
			"We all looked at our phones. The train was late again. Nobody said a word.", 1},
		// Moved, and one word changed.
		{"The train was late again. Nobody said a word. We all looked at our phones.",
			"We all looked at our phones. The bus was late again. Nobody said a word.", 0.9},
	}
	for _, tt := range tests {
		a, b := sketch(tt.a), sketch(tt.b)
		plain := LevenshteinRatio(a.EditRunes(), b.EditRunes())
		if plain >= 0.8 {
			t.Fatalf("%q and %q: in-order ratio %.3f, the test needs a pair it misses", tt.a, tt.b, plain)
		}
		if got := EditRatio(a, b); got < tt.min {
			t.Errorf("EditRatio(%q, %q) = %.3f, want at least %.3f (in order %.3f)", tt.a, tt.b, got, tt.min, plain)
		}
		if got := Compare(a, b).Levenshtein; got < tt.min {
			t.Errorf("Compare(%q, %q).Levenshtein = %.3f, want at least %.3f", tt.a, tt.b, got, tt.min)
		}
		if got := EditRatioAtLeast(a, b, 0.8); got < tt.min {
			t.Errorf("EditRatioAtLeast(%q, %q, 0.8) = %.3f, want at least %.3f", tt.a, tt.b, got, tt.min)
		}
	}
}

func TestEditRatioInOrder(t *testing.T) {
	// One sentence, or texts that share none: the ratio as they run.
	pairs := [][2]string{
		{"A man is playing a guitar.", "A man is playing a flute."},
		{"the cat sat on the mat", "the mat sat on the cat"},
		{"It rained. We stayed in.", "Prices rose. Markets fell."},
		{"今天下雨了。", "明天会晴吗？"},
	}
	for _, p := range pairs {
		a, b := sketch(p[0]), sketch(p[1])
		want := LevenshteinRatio(a.EditRunes(), b.EditRunes())
		if got := EditRatio(a, b); got != want {
			t.Errorf("EditRatio(%q, %q) = %.4f, want the in-order %.4f", p[0], p[1], got, want)
		}
	}
}

// TestEditRatioProperties checks, over texts made of a few shared
// sentences shuffled and edited, that EditRatio is symmetric, in [0, 1],
// at least the in-order ratio, 1 for a text and itself, and that
// EditRatioAtLeast agrees with it about every threshold and, where it
// passes, does not exceed it.
func TestEditRatioProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := []string{"the train was late", "nobody said a word", "we looked at our phones", "it rained all day",
		"下雨了", "大家都在等着", "明天会晴吗", "ok", "a", "3.5 percent"}
	ends := []string{". ", "! ", "? ", "。", "... "}
	text := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(5) {
			s := []rune(pool[rng.IntN(len(pool))])
			if rng.IntN(3) == 0 {
				s[rng.IntN(len(s))] = 'x'
			}
			b.WriteString(string(s))
			b.WriteString(ends[rng.IntN(len(ends))])
		}
		return b.String()
	}
	for range 3000 {
		ta, tb := text(), text()
		a, b := sketch(ta), sketch(tb)
		r, back := EditRatio(a, b), EditRatio(b, a)
		if r != back {
			t.Fatalf("EditRatio(%q, %q) = %v, the other way %v", ta, tb, r, back)
		}
		if r < 0 || r > 1 || r < LevenshteinRatio(a.EditRunes(), b.EditRunes()) {
			t.Fatalf("EditRatio(%q, %q) = %v, in order %v", ta, tb, r, LevenshteinRatio(a.EditRunes(), b.EditRunes()))
		}
		if self := EditRatio(a, sketch(ta)); self != 1 {
			t.Fatalf("EditRatio(%q, itself) = %v", ta, self)
		}
		for _, min := range []float64{0.5, 0.8, 0.9} {
			got := EditRatioAtLeast(a, b, min)
			if (r >= min) != (got >= min) || got >= min && got > r {
				t.Fatalf("EditRatioAtLeast(%q, %q, %v) = %v, EditRatio %v", ta, tb, min, got, r)
			}
		}
	}
}

// BenchmarkEditRatio measures what trying the sentences in another order
// adds to the Levenshtein ratio of two short texts of six sentences each
// (about 70 words, 400 characters), the in-order ratio alone being the
// baseline: a copy with one word changed, a copy with its sentences
// moved, and an unrelated text, which the short rule's candidates mostly
// are. Each round makes the candidate's sketch from its text, as a
// check does for a stored text.
func BenchmarkEditRatio(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	sentence := func() string { return words(r, 12) + ". " }
	var parts []string
	for range 6 {
		parts = append(parts, sentence())
	}
	text := strings.Join(parts, "")
	moved := strings.Join(append(slices.Clone(parts[3:]), parts[:3]...), "")
	var other strings.Builder
	for range 6 {
		other.WriteString(sentence())
	}
	q := sketch(text)
	for _, c := range []struct{ name, text string }{
		{"copy", strings.Replace(text, " the ", " a ", 1)},
		{"moved", moved},
		{"unrelated", other.String()},
	} {
		y := []byte(c.text)
		b.Run(c.name+"/in-order", func(b *testing.B) {
			for b.Loop() {
				sinkFloat = boundedRatio(q.EditRunes(), NewSketch(y).EditRunes(), 0.8)
			}
		})
		b.Run(c.name+"/any-order", func(b *testing.B) {
			for b.Loop() {
				sinkFloat = EditRatioAtLeast(q, NewSketch(y), 0.8)
			}
		})
	}
}

var sinkFloat float64
