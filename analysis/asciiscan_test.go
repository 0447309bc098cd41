package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestASCIIWords compares ASCIIWords (Next, Spans, ResetPlain) with Words on random ASCII texts of
// every length up to 300 bytes (across the 64-byte blocks of the bitmap):
// texts built from the bytes that decide word boundaries (letters of both
// cases, digits, _, the joining marks : . ' , ;, hyphens, @ and / of
// e-mails and URLs, spaces, controls, the neighbours of the letter and
// digit ranges) and texts of any ASCII byte.
func TestASCIIWords(t *testing.T) {
	const alphabet = "aZm09_:.',;-@/ \t\n\x00\x01\x7f`{[/:@AB"
	words := []string{"don't", "3.14", "1,000", "e.g.", "http://example.com/a_b", "me@x.org", "__", "_a", "a_", "x-y", "U.S.A.", "12:30"}
	rng := rand.New(rand.NewPCG(9, 9))
	var w ASCIIWords
	var spans []uint32
	for n := 0; n <= 300; n++ {
		for k := range 40 {
			b := make([]byte, 0, n)
			for len(b) < n {
				switch k % 3 {
				case 0:
					b = append(b, alphabet[rng.IntN(len(alphabet))])
				case 1:
					b = append(b, byte(rng.IntN(128)))
				default:
					b = append(b, words[rng.IntN(len(words))]...)
					b = append(b, " ,.\n"[rng.IntN(4)])
				}
			}
			b = b[:n]
			var want []string
			Words{}.Tokenize(b, func(t Token) { want = append(want, fmt.Sprint(t.Start, t.End)) })
			var got []string
			w.Reset(b)
			for {
				s, e, ok := w.Next()
				if !ok {
					break
				}
				got = append(got, fmt.Sprint(s, e))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q: ASCIIWords %v, Words %v", b, got, want)
			}
			// Spans, after k%3 tokens taken by Next
			w.Reset(b)
			got = got[:0]
			for range k % 3 {
				if s, e, ok := w.Next(); ok {
					got = append(got, fmt.Sprint(s, e))
				}
			}
			spans = w.Spans(spans[:0])
			for j := 0; j < len(spans); j += 2 {
				got = append(got, fmt.Sprint(spans[j], spans[j+1]))
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q: Spans %v, Words %v", b, got, want)
			}
			if _, _, ok := w.Next(); ok {
				t.Fatalf("%q: Next after Spans", b)
			}
			// ResetPlain: the plain test, and the same tokens
			if plain := w.ResetPlain(b); plain != PlainASCII(b) {
				t.Fatalf("%q: ResetPlain %v", b, plain)
			} else if plain {
				spans = w.Spans(spans[:0])
				got = got[:0]
				for j := 0; j < len(spans); j += 2 {
					got = append(got, fmt.Sprint(spans[j], spans[j+1]))
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%q: ResetPlain, Spans %v, Words %v", b, got, want)
				}
			}
		}
	}
}

// TestClassify8 checks the eight-byte classes on every byte value at every
// position, among spaces and among letters.
func TestClassify8(t *testing.T) {
	for _, fill := range []uint64{' ', 'a'} {
		for c := range 256 {
			for k := range 8 {
				x := fill*0x0101010101010101&^(0xff<<(8*k)) | uint64(c)<<(8*k)
				var word, space uint64
				if fill == 'a' {
					word = 0xff &^ (1 << k)
				} else {
					space = 0xff &^ (1 << k)
				}
				if c < 0x80 && wordByte[c] {
					word |= 1 << k
				}
				if c <= 0x20 {
					space |= 1 << k
				}
				gw, gs, gb := classify8(x)
				if gw != word || gs != space || (gb != 0) != !plainByte[c] {
					t.Fatalf("byte %#x at %d among %q: word %08b space %08b bad %#x, want %08b %08b %v",
						c, k, rune(fill), gw, gs, gb, word, space, !plainByte[c])
				}
			}
		}
	}
}
