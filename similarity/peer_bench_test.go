package similarity

import (
	"testing"

	"github.com/agnivade/levenshtein"
)

// BenchmarkAgnivade runs the same inputs through github.com/agnivade/levenshtein
// (unbounded, so its bound-10 case costs the full distance) for comparison.
func BenchmarkAgnivade(b *testing.B) {
	benchLevenshtein(b, func(a, b []rune, _ int) int {
		return levenshtein.ComputeDistance(string(a), string(b))
	})
}
