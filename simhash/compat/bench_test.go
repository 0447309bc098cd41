package compat

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mfonda/simhash"
)

var sink64 uint64

// benchText returns about n bytes of English-like text, or Chinese text
// when cjk is set, from a fixed seed.
func benchText(n int, cjk bool) []byte {
	r := rand.New(rand.NewPCG(1, 1))
	var sb strings.Builder
	for sb.Len() < n {
		if cjk {
			sb.WriteRune(rune(0x4e00 + r.IntN(3000)))
			if r.IntN(20) == 0 {
				sb.WriteString("，")
			}
			continue
		}
		fmt.Fprintf(&sb, "w%d ", r.IntN(3000))
	}
	return []byte(sb.String())
}

func BenchmarkProfiles(b *testing.B) {
	profiles := []struct {
		name string
		fp   func([]byte) uint64
	}{
		{"classic64", Classic64},
		{"classic128", func(t []byte) uint64 { _, lo := Classic128(t); return lo }},
		{"py-simhash64", PySimhash64},
		{"go-mfonda64", Mfonda64},
		// The original, for comparison with its reimplementation.
		{"peer-mfonda", func(t []byte) uint64 { return simhash.Simhash(simhash.NewWordFeatureSet(t)) }},
	}
	for _, lang := range []string{"en", "zh"} {
		text := benchText(16<<10, lang == "zh")
		for _, p := range profiles {
			b.Run(lang+"/"+p.name, func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					sink64 = p.fp(text)
				}
			})
		}
	}
}
