package simhash

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestHash64Lower compares Hash64Lower, AppendHash64Lower and Hash3 with
// Hash64 of the token lowered by bytes.Map on random tokens of every length
// up to 40 bytes: ASCII letters of both cases, the bytes around them (@ [ `
// {), and any byte at all; AppendHash64Lower with the token at every offset
// from the start and the end of a text up to 9 bytes.
func TestHash64Lower(t *testing.T) {
	alphabets := []string{
		"aAzZmM@[`{09_.",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz",
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
			// AppendHash64Lower on the token inside a text, with 0 to 9
			// bytes before and after it (it reads around short tokens)
			pre, post := k%10, k/10%10
			text := make([]byte, 0, pre+n+post)
			for range pre {
				text = append(text, byte(rng.IntN(256)))
			}
			text = append(text, tok...)
			for range post {
				text = append(text, byte(rng.IntN(256)))
			}
			spans := []uint32{uint32(pre), uint32(pre + n), 0, uint32(pre)}
			var hs []uint64
			hs, buf = AppendHash64Lower(hs, text, spans, buf)
			if hs[0] != got || hs[1] != Hash64(lowerASCII(text[:pre])) {
				t.Fatalf("AppendHash64Lower in %q: %#x, want %#x %#x", text, hs, got, Hash64(lowerASCII(text[:pre])))
			}
			if n == 3 {
				x := uint32(tok[0]) | uint32(tok[1])<<8 | uint32(tok[2])<<16
				if h := Hash3(x); h != Hash64(tok) {
					t.Fatalf("Hash3(%q) = %#x, want %#x", tok, h, Hash64(tok))
				}
			}
		}
	}
}

// lowerASCII returns a copy of b with its ASCII upper-case letters lowered.
func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
