package testtext

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestGenerators(t *testing.T) {
	tests := []struct {
		name  string
		gen   func(*rand.Rand, int) string
		n     int
		count func(string) int
	}{
		{"English", English, 500, func(s string) int { return len(strings.Fields(s)) }},
		{"Accented", Accented, 500, func(s string) int { return len(strings.Fields(s)) }},
		{"Russian", Russian, 500, func(s string) int { return len(strings.Fields(s)) }},
		{"Chinese", Chinese, 1000, func(s string) int {
			return strings.Count(s, "") - 1 - strings.Count(s, "\n") - strings.Count(s, "。") -
				strings.Count(s, "，") - strings.Count(s, "、") - strings.Count(s, "；")
		}},
	}
	for _, tt := range tests {
		a := tt.gen(rand.New(rand.NewPCG(1, 2)), tt.n)
		b := tt.gen(rand.New(rand.NewPCG(1, 2)), tt.n)
		c := tt.gen(rand.New(rand.NewPCG(3, 4)), tt.n)
		if a != b {
			t.Errorf("%s: same seed, different text", tt.name)
		}
		if a == c {
			t.Errorf("%s: different seeds, same text", tt.name)
		}
		// At least n units (words, or characters other than punctuation),
		// and not much more.
		if got := tt.count(a); got < tt.n || got > tt.n+60 {
			t.Errorf("%s: %d units for n = %d", tt.name, got, tt.n)
		}
		if !utf8.ValidString(a) {
			t.Errorf("%s: invalid UTF-8", tt.name)
		}
	}
}
