package simhash_test

import (
	"fmt"
	"strings"

	"github.com/neardup/neardup/simhash"
)

// Fingerprint two sentences by their words and compare them.
func Example() {
	fp := func(text string) uint64 {
		var a simhash.Acc64
		for _, w := range strings.Fields(text) {
			a.Add(simhash.Hash64([]byte(w)))
		}
		return a.Sum()
	}
	a := fp("the quick brown fox jumps over the lazy dog near the river bank today")
	b := fp("the quick brown fox jumps over the lazy dog near the river bank tonight")
	c := fp("completely different words share nothing with that sentence at all here")
	fmt.Println(simhash.Distance64(a, b) < simhash.Distance64(a, c))
	fmt.Println(fp(""))
	// Output:
	// true
	// 0
}
