package eval

import (
	"context"
	"testing"

	"github.com/neardup/neardup"
)

// The cached policy rule must decide exactly as Policy.Verify does.
func TestPolicyScorerMatchesVerify(t *testing.T) {
	fp, err := neardup.NewPipeline(neardup.DefaultPipeline(), 64)
	if err != nil {
		t.Fatal(err)
	}
	long := generated(12, 150)
	short := generated(12, 12)
	d := MakeEdits("gen", append(long, short...), EditOptions{Rates: []float64{0.02, 0.1, 0.3}, Negatives: 4, Seed: 5})
	c := NewSketches()
	for _, p := range []neardup.Policy{
		neardup.DefaultPolicy(),
		{ShortLength: 200, Short: neardup.Rule{MaxDistance: 12, Measure: neardup.Cosine, MinSimilarity: 0.7}, Long: neardup.Rule{MaxDistance: 5, Measure: neardup.Levenshtein, MinSimilarity: 0.9}},
	} {
		exact, err := NewPolicyScorer("exact", fp, p, c, true)
		if err != nil {
			t.Fatal(err)
		}
		cached, _ := NewPolicyScorer("cached", fp, p, c, false)
		rep, err := Evaluate(context.Background(), d, []Scorer{exact, cached}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := rep.Scorers[0].Samples(), rep.Scorers[1].Samples()
		found := 0
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("pair %d: Verify gives %+v, cached rule %+v", i, a[i], b[i])
			}
			if a[i].Dup {
				found++
			}
		}
		if found == 0 || found == len(a) {
			t.Errorf("policy %+v found %d of %d pairs: test data does not exercise it", p, found, len(a))
		}
	}
}

func TestMeasureScorer(t *testing.T) {
	c := NewSketches()
	for _, m := range []neardup.Measure{neardup.Jaccard, neardup.Cosine, neardup.Levenshtein} {
		s, err := NewMeasureScorer(c, m, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		a, b := s.Prepare([]byte("Hello  World, again")), s.Prepare([]byte("hello world, again"))
		if o := s.Compare(a, b); o.Distance != 0 || !o.Dup {
			t.Errorf("%s: case and spacing changes give %+v", m, o)
		}
		if o := s.Compare(a, s.Prepare([]byte("something else entirely"))); o.Dup || o.Distance < 0.5 {
			t.Errorf("%s: unrelated texts give %+v", m, o)
		}
	}
	if _, err := NewMeasureScorer(c, "overlap", 0.5); err == nil {
		t.Error("unknown measure accepted")
	}
}

// TestPolicyScorerMeasureAs checks that a policy scorer over a pipeline
// that folds accents measures the folded texts once told to (MeasureAs),
// as the engine does: a Polish sentence and its copy without marks, whose
// Levenshtein ratio as they are is 0.67, are then duplicates, by the
// exact and the cached rule alike.
func TestPolicyScorerMeasureAs(t *testing.T) {
	p := neardup.DefaultPipeline()
	p.FoldAccents = true
	fp, err := neardup.NewPipeline(p, 64)
	if err != nil {
		t.Fatal(err)
	}
	a, b := []byte("Zażółć gęślą jaźń, łódź płynie źle po rzece"), []byte("Zazolc gesla jazn, lodz plynie zle po rzece")
	for _, exact := range []bool{true, false} {
		for _, measure := range []bool{false, true} {
			s, err := NewPolicyScorer("policy", fp, neardup.DefaultPolicy(), NewSketches(), exact)
			if err != nil {
				t.Fatal(err)
			}
			if measure {
				s.MeasureAs(neardup.Config{Pipeline: &p})
			}
			if got := s.Compare(s.Prepare(a), s.Prepare(b)); got.Dup != measure {
				t.Errorf("exact %v, MeasureAs %v: %+v; want a duplicate only when measuring the folded texts", exact, measure, got)
			}
		}
	}
}
