package compat

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mfonda/simhash"
)

// TestMfondaMatchesPeer compares Mfonda64 with the real package on random
// texts built from pieces that exercise its word pattern: apostrophes,
// URLs, upper case (ASCII and not), digits, punctuation and invalid UTF-8.
func TestMfondaMatchesPeer(t *testing.T) {
	pieces := []string{"word", "Word", "WORD", "don't", "'", " ", "  ", "\t", "\n", "http://example.com/a/b.html",
		"ftp://x", "://", "a://", "a:/b", "x://.", "3.14", "_id", "é", "É", "\u212a", "\u0130", "ß", "你好", "\xff", "\xe4\xbd",
		"-", ",", ".", "/", ":", "a:b", "http://", "HTTP://EXAMPLE.COM"}
	r := rand.New(rand.NewPCG(11, 12))
	n := 5000
	if testing.Short() {
		n = 500
	}
	for range n {
		var sb strings.Builder
		for range r.IntN(12) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := []byte(sb.String())
		want := simhash.Simhash(simhash.NewWordFeatureSet(append([]byte(nil), text...)))
		if got := Mfonda64(text); got != want {
			t.Fatalf("Mfonda64(%q) = %016x, github.com/mfonda/simhash gives %016x", text, got, want)
		}
	}
}
