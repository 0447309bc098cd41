package neardup_test

import (
	"context"
	"fmt"

	"github.com/neardup/neardup"
)

// An in-memory engine keeps the first of two near-duplicates and names it
// as the original of the second.
func ExampleEngine_CheckAndInsert() {
	e, err := neardup.Open("", nil) // "" = in memory
	if err != nil {
		panic(err)
	}
	defer e.Close()
	ctx := context.Background()
	docs := []neardup.Document{
		{ID: "a", Text: "The quick brown fox jumps over the lazy dog near the river bank today."},
		{ID: "b", Text: "the quick brown fox jumps over the lazy dog, near the river bank today!"},
		{ID: "c", Text: "Stock markets fell sharply on Monday as investors worried about rates."},
	}
	for _, d := range docs {
		r, err := e.CheckAndInsert(ctx, d)
		if err != nil {
			panic(err)
		}
		if r.Duplicate {
			fmt.Printf("%s: duplicate of %s\n", r.ID, *r.DuplicateOf)
		} else {
			fmt.Printf("%s: new, stored %v\n", r.ID, r.Inserted)
		}
	}
	// Output:
	// a: new, stored true
	// b: duplicate of a
	// c: new, stored true
}
