package analysis

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/testtext"
)

var (
	sinkBytes []byte
	sinkInt   int
)

func benchTexts() map[string][]byte {
	return map[string][]byte{
		"en": []byte(testtext.English(rand.New(rand.NewPCG(1, 1)), 2000)),
		"zh": []byte(testtext.Chinese(rand.New(rand.NewPCG(2, 2)), 4000)),
	}
}

func BenchmarkNormalize(b *testing.B) {
	for name, text := range benchTexts() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var s Scratch
			buf := make([]byte, 0, 2*len(text))
			for b.Loop() {
				buf = s.Normalize(buf[:0], text)
			}
			sinkBytes = buf
		})
	}
}

// BenchmarkNormalizedLen measures counting the runes of the normalized
// text, against Normalize and a count ("normalize+count").
func BenchmarkNormalizedLen(b *testing.B) {
	for name, text := range benchTexts() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var s Scratch
			n := 0
			for b.Loop() {
				n += s.NormalizedLen(text)
			}
			sinkInt = n
		})
		b.Run(name+"/normalize+count", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			var s Scratch
			buf := make([]byte, 0, 2*len(text))
			n := 0
			for b.Loop() {
				buf = s.Normalize(buf[:0], text)
				n += utf8.RuneCount(buf)
			}
			sinkInt = n
		})
	}
}

func BenchmarkTokenize(b *testing.B) {
	for name, text := range benchTexts() {
		norm := Normalize(nil, text)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				Words{}.Tokenize(norm, func(t Token) { n += len(t.Text) })
			}
			sinkBytes = norm[:n%len(norm)]
		})
	}
}
