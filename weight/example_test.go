package weight_test

import (
	"fmt"

	"github.com/neardup/neardup/weight"
)

// Weigh the features of a document by tf-idf and keep the top two, the way
// keyword extraction does.
func Example() {
	var b weight.Builder
	b.Add([]uint64{1, 2, 3}) // three documents of a small corpus,
	b.Add([]uint64{1, 2})    // by their feature hashes
	b.Add([]uint64{1})
	idf := b.IDF(1)

	terms := []weight.Term{{Lo: 1, Key: 1}, {Lo: 1, Key: 1}, {Lo: 2, Key: 2}, {Lo: 3, Key: 3}}
	terms = weight.Count(terms)
	weight.TFIDF.Apply(terms, idf)
	for _, t := range weight.Top(terms, 2) {
		fmt.Printf("feature %d: count %d, weight %.3f\n", t.Lo, t.Count, t.Weight)
	}
	// Output:
	// feature 1: count 2, weight 2.000
	// feature 3: count 1, weight 1.693
}
