package analysis_test

import (
	"fmt"

	"github.com/neardup/neardup/analysis"
)

// Normalize a text, then split it into word tokens. Spaces next to
// Chinese characters go: they are layout, not word boundaries.
func Example() {
	text := []byte("Ｔｈｅ  CAFÉ's menu:\t北京烤鸭 &amp; tea")
	norm := analysis.Normalize(nil, text)
	fmt.Printf("%q\n", norm)
	analysis.Tokenize(norm, func(tok []byte) { fmt.Printf("[%s]", tok) })
	fmt.Println()
	// Output:
	// "the café's menu:北京烤鸭&amp; tea"
	// [the][café's][menu][北][京][烤][鸭][amp][tea]
}
