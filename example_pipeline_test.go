package neardup_test

import (
	"fmt"

	"github.com/neardup/neardup"
)

// Fingerprint two versions of a text with the default pipeline and compare
// them; then change one knob of the pipeline.
func ExampleNewPipeline() {
	f, err := neardup.NewPipeline(neardup.DefaultPipeline(), 64)
	if err != nil {
		panic(err)
	}
	a := f.Fingerprint([]byte("The quick brown fox jumps over the lazy dog."))
	b := f.Fingerprint([]byte("THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG!"))
	d, _ := neardup.Distance(a, b)
	fmt.Println(a, d)

	p := neardup.DefaultPipeline()
	p.Shingle = 1
	g, _ := neardup.NewPipeline(p, 128)
	fmt.Println(g.Fingerprint([]byte("")))
	// Output:
	// 8212868318d29267 0
	// 00000000000000000000000000000000
}
