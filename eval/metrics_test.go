package eval

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func samples(pos, neg []float64) []Sample {
	var s []Sample
	for _, d := range pos {
		s = append(s, Sample{Distance: d, Positive: true})
	}
	for _, d := range neg {
		s = append(s, Sample{Distance: d})
	}
	return s
}

func TestAUC(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pos, neg []float64
		want     float64
	}{
		{"perfect", []float64{0, 1}, []float64{5, 6}, 1},
		{"inverted", []float64{5, 6}, []float64{0, 1}, 0},
		{"one swap", []float64{1, 3}, []float64{2, 4}, 0.75},
		{"all tied", []float64{2, 2}, []float64{2}, 0.5},
		{"tie and win", []float64{1, 2}, []float64{2, 3}, (1 + 1 + 0.5 + 1) / 4.0},
		{"no negatives", []float64{1}, nil, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := AUC(samples(tc.pos, tc.neg))
			if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("AUC = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSweepAndBest(t *testing.T) {
	// Sorted: 1P 2N 3P 4N.
	s := samples([]float64{1, 3}, []float64{2, 4})
	want := []struct{ t, p, r, f1 float64 }{
		{1, 1, 0.5, 2.0 / 3},
		{2, 0.5, 0.5, 0.5},
		{3, 2.0 / 3, 1, 0.8},
		{4, 0.5, 1, 2.0 / 3},
	}
	got := Sweep(s)
	if len(got) != len(want) {
		t.Fatalf("Sweep gave %d points, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if float64(g.Threshold) != w.t || !near(g.Precision, w.p) || !near(g.Recall, w.r) || !near(g.F1, w.f1) {
			t.Errorf("point %d = %+v, want t=%v p=%v r=%v f1=%v", i, g, w.t, w.p, w.r, w.f1)
		}
	}
	if b := BestF1(got); float64(b.Threshold) != 3 || !near(b.F1, 0.8) {
		t.Errorf("BestF1 = %+v, want F1 0.8 at 3", b)
	}
	if p, ok := AtPrecision(got, 0.99); !ok || float64(p.Threshold) != 1 || !near(p.Recall, 0.5) {
		t.Errorf("AtPrecision(0.99) = %+v, %v; want recall 0.5 at 1", p, ok)
	}
	// Curve at thresholds between and beyond the distances.
	c := Curve(s, []float64{0, 2.5, 10})
	wantTP := []int{0, 1, 2}
	wantFP := []int{0, 1, 2}
	for i := range c {
		if c[i].TP != wantTP[i] || c[i].FP != wantFP[i] || c[i].TP+c[i].FN != 2 || c[i].FP+c[i].TN != 2 {
			t.Errorf("Curve point %d = %+v, want TP %d FP %d", i, c[i], wantTP[i], wantFP[i])
		}
	}
	if c[0].Precision != 1 || c[0].F1 != 0 {
		t.Errorf("empty prediction: precision %v F1 %v, want 1 and 0", c[0].Precision, c[0].F1)
	}
}

func TestDecide(t *testing.T) {
	s := []Sample{{Dup: true, Positive: true}, {Dup: true}, {Positive: true}, {}, {}}
	p := Decide(s)
	if p.Confusion != (Confusion{TP: 1, FP: 1, FN: 1, TN: 2}) || !near(p.F1, 0.5) || !near(p.Confusion.FPR(), 1.0/3) {
		t.Errorf("Decide = %+v", p)
	}
}

func TestNumJSON(t *testing.T) {
	b, err := json.Marshal([]Num{1.5, Num(math.NaN()), Num(math.Inf(1))})
	if err != nil || string(b) != "[1.5,null,null]" {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var back []Num
	if err := json.Unmarshal(b, &back); err != nil || back[0] != 1.5 || !math.IsNaN(float64(back[1])) {
		t.Errorf("Unmarshal = %v, %v", back, err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestNoPositives checks that recall without positives, which is
// undefined, is 0 in the numbers and "-" in the summaries, and that AUC is
// always printed with two decimals.
func TestNoPositives(t *testing.T) {
	c := Confusion{FP: 2, TN: 6}
	if c.Recall() != 0 {
		t.Errorf("recall without positives = %v, want 0", c.Recall())
	}
	p := Decide([]Sample{{Dup: true}, {}})
	if p.Recall != 0 || p.Precision != 0 {
		t.Errorf("Decide without positives = %+v, want recall 0", p)
	}
	r := &Report{Dataset: "d", Scorers: []ScorerReport{
		{Name: "none", Overall: Metrics{AUC: Num(math.NaN()), Default: pointOf(math.NaN(), c), Best: pointOf(0, c)}},
		{Name: "all", Overall: Metrics{AUC: 1, Default: pointOf(math.NaN(), Confusion{TP: 1, TN: 1}), Best: pointOf(0, Confusion{TP: 1, TN: 1})}},
		{Name: "half", Overall: Metrics{AUC: 0.5, Default: pointOf(math.NaN(), Confusion{TP: 1, FN: 1}), Best: pointOf(0, Confusion{TP: 1, FN: 1})}},
	}}
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| none | - | 0.000 | - | 0.000 |", "| all | 1.00 | 1.000 | 1.000 |", "| half | 0.50 | 1.000 | 0.500 |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	cr := &CorpusReport{Results: []PairScore{scoreNoDuplicates()}}
	if err := WriteCorpusSummary(&b, cr); err != nil || !strings.Contains(b.String(), "| dedup | 0 | 0 | 1.0000 | - | 0.0000 |") {
		t.Errorf("corpus summary without true pairs: %v\n%s", err, b.String())
	}
}

// scoreNoDuplicates scores a dedup run on a corpus without duplicates that
// found none.
func scoreNoDuplicates() PairScore {
	s, _ := ScoreDedup("dedup", []int{0, 1, 2}, []int{-1, -1, -1})
	return s
}
