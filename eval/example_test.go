package eval_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/neardup/neardup/eval"
)

// Two pairs are near-duplicates, one is not; a word-overlap scorer ranks
// them perfectly and its own decision (overlap >= 0.5) finds both.
func Example() {
	d := &eval.Dataset{
		Name:  "tiny",
		Texts: []string{"the cat sat on the mat", "the cat sat on a mat", "we all scream for ice cream", "we all scream for ice cream now"},
		Pairs: []eval.Pair{{A: 0, B: 1, Positive: true}, {A: 2, B: 3, Positive: true}, {A: 0, B: 2}},
	}
	overlap := &eval.FuncScorer{
		Label: "overlap",
		Prep:  func(t []byte) any { return strings.Fields(string(t)) },
		Sim: func(a, b any) float64 {
			x, y := a.([]string), b.([]string)
			common := 0
			for _, w := range x {
				for _, v := range y {
					if w == v {
						common++
						break
					}
				}
			}
			return float64(common) / float64(max(len(x), len(y)))
		},
		Threshold: 0.5,
	}
	rep, _ := eval.Evaluate(context.Background(), d, []eval.Scorer{overlap}, eval.Options{})
	m := rep.Scorers[0].Overall
	fmt.Printf("AUC %.2f, precision %.2f, recall %.2f\n", float64(m.AUC), m.Default.Precision, m.Default.Recall)
	// Output: AUC 1.00, precision 1.00, recall 1.00
}
