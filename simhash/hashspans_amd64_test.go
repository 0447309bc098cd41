package simhash

import (
	"math/rand/v2"
	"testing"
)

// TestAppendHash64LowerWide compares AppendHash64Lower, eight tokens at a
// time with AVX-512 where the processor has it, with Hash64 of each token
// lowered, on random texts of 0 to 300 bytes (letters of both cases, the
// bytes around them, any byte) cut into random tokens of 0 to 20 bytes,
// which may overlap, sit at either end, or number more than eight too
// long or too near an end; and the same with the eight-lane code
// switched off.
func TestAppendHash64LowerWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const alphabet = "aAzZmM@[`{09_. ABCXYZ"
	was := useAVX512
	t.Cleanup(func() { useAVX512 = was })
	for _, wide := range []bool{true, false} {
		if wide && !was {
			continue
		}
		useAVX512 = wide
		for round := range 3000 {
			text := make([]byte, rng.IntN(301))
			for i := range text {
				if round%4 == 3 {
					text[i] = byte(rng.IntN(256))
				} else {
					text[i] = alphabet[rng.IntN(len(alphabet))]
				}
			}
			var spans []uint32
			for range rng.IntN(40) {
				s := rng.IntN(len(text) + 1)
				e := min(len(text), s+rng.IntN(21))
				if round%5 == 0 { // long tokens, many left out
					e = min(len(text), s+rng.IntN(40))
				}
				spans = append(spans, uint32(s), uint32(e))
			}
			got, _ := AppendHash64Lower([]uint64{1}, text, spans, nil)
			if len(got) != 1+len(spans)/2 || got[0] != 1 {
				t.Fatalf("AppendHash64Lower kept %d values (first %d), want 1 and %d more", len(got), got[0], len(spans)/2)
			}
			for k := range len(spans) / 2 {
				tok := text[spans[2*k]:spans[2*k+1]]
				if want := Hash64(lowerASCII(tok)); got[1+k] != want {
					t.Fatalf("wide %t: token %d %q of %q: %#x, want %#x", wide, k, tok, text, got[1+k], want)
				}
			}
		}
	}
}
