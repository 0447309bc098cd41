package simhash

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestHash64Lower compares Hash64Lower with Hash64 of the token lowered by
// bytes.Map on random tokens of every length up to 40 bytes: ASCII letters
// of both cases, the bytes around them (@ [ ` {), and any byte at all.
func TestHash64Lower(t *testing.T) {
	alphabets := []string{
		"aAzZmM@[`{09_.",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz",
	}
	lowerASCII := func(b []byte) []byte {
		out := make([]byte, len(b))
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out[i] = c
		}
		return out
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var buf []byte
	for n := 0; n <= 40; n++ {
		for k := range 2000 {
			tok := make([]byte, n)
			for i := range tok {
				switch k % 3 {
				case 0, 1:
					a := alphabets[k%2]
					tok[i] = a[rng.IntN(len(a))]
				default:
					tok[i] = byte(rng.IntN(256))
				}
			}
			orig := bytes.Clone(tok)
			var got uint64
			got, buf = Hash64Lower(tok, buf)
			if want := Hash64(lowerASCII(tok)); got != want {
				t.Fatalf("Hash64Lower(%q) = %#x, want %#x", tok, got, want)
			}
			if !bytes.Equal(tok, orig) {
				t.Fatalf("Hash64Lower changed its input %q to %q", orig, tok)
			}
		}
	}
}
