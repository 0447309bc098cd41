package eval

import (
	"context"
	"testing"
)

func TestScoreDedup(t *testing.T) {
	// Groups: {0,1,2} {3} {4,5}.
	group := []int{0, 0, 0, 1, 2, 2}
	// 1 -> 0 right, 2 -> 0 right, 3 -> 0 wrong, 5 missed.
	s, wrong := ScoreDedup("x", group, []int{-1, 0, 0, 0, -1, -1})
	if s.True != 3 || s.TP != 2 || s.FP != 1 || s.FN != 1 || !near(s.Precision, 2.0/3) || !near(s.Recall, 2.0/3) || len(wrong) != 1 {
		t.Errorf("ScoreDedup = %+v, wrong %v", s, wrong)
	}
}

func TestScoreClusters(t *testing.T) {
	group := []int{0, 0, 0, 1, 2, 2}
	// Clusters {0,1} {2,3} {4,5}: pairs (0,1) right, (2,3) wrong, (4,5) right.
	// True pairs: 3 in group 0, 1 in group 2.
	s, _ := ScoreClusters("x", group, []int{7, 7, 8, 8, 9, 9})
	if s.True != 4 || s.Found != 3 || s.TP != 2 || s.FP != 1 || s.FN != 2 || s.Docs != 6 || s.DocsShould != 5 {
		t.Errorf("ScoreClusters = %+v", s)
	}
}

func TestPlantAndEvaluateCorpus(t *testing.T) {
	texts := generated(40, 50)
	texts = append(texts, texts[3]) // a natural exact repeat
	c := Plant(texts, PlantOptions{Originals: 5, Copies: 2, Kinds: []EditKind{WordDelete}, Rates: []float64{0.02}, Seed: 4})
	if len(c.Texts) != 51 || c.Planted != 10 || c.Natural != 1 {
		t.Fatalf("planted corpus: %d texts, %d planted, %d natural", len(c.Texts), c.Planted, c.Natural)
	}
	sc := wordJaccard(0.9)
	r, err := EvaluateCorpus(context.Background(), c, map[string]Deduper{"words": ScorerDeduper{sc}},
		map[string]Clusterer{"words": ScorerClusterer{sc}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 2 {
		t.Fatalf("results %+v", r.Results)
	}
	for _, s := range r.Results {
		if s.Precision < 0.99 || s.Recall < 0.99 {
			t.Errorf("%s: precision %v recall %v on easy planted copies", s.Name, s.Precision, s.Recall)
		}
	}
	if d := r.Results[0]; d.DocsShould != 11 || d.Docs != 11 {
		t.Errorf("dedup flagged %d of %d", d.Docs, d.DocsShould)
	}
}
