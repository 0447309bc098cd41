package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wordJaccard is a scorer for tests: Jaccard similarity of lower-cased words.
func wordJaccard(threshold float64) *FuncScorer {
	return &FuncScorer{
		Label: "words",
		Prep: func(text []byte) any {
			set := map[string]bool{}
			for _, w := range strings.Fields(strings.ToLower(string(text))) {
				set[w] = true
			}
			return set
		},
		Sim: func(a, b any) float64 {
			x, y := a.(map[string]bool), b.(map[string]bool)
			inter := 0
			for w := range x {
				if y[w] {
					inter++
				}
			}
			union := len(x) + len(y) - inter
			if union == 0 {
				return 1
			}
			return float64(inter) / float64(union)
		},
		Threshold: threshold,
	}
}

// generated returns count texts of n random words of 2 to 7 letters.
func generated(count, words int) []string {
	ed := NewEditor(42, []string{"abcdefghijklmnopqrstuvwxyz"})
	var out []string
	for range count {
		ws := make([]string, words)
		for j := range ws {
			w := make([]rune, 2+ed.rng.IntN(6))
			for k := range w {
				w[k] = ed.char()
			}
			ws[j] = string(w)
		}
		out = append(out, strings.Join(ws, " "))
	}
	return out
}

func TestEvaluate(t *testing.T) {
	texts := generated(20, 60)
	d := MakeEdits("gen", texts, EditOptions{Kinds: []EditKind{WordDelete, WordSubstitute}, Rates: []float64{0.05, 0.5}, Negatives: 3, Seed: 1})
	rep, err := Evaluate(context.Background(), d, []Scorer{wordJaccard(0.8)}, Options{Workers: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pairs != 20*4+20*3 || rep.Positives != 80 {
		t.Fatalf("report counts %d pairs %d positives", rep.Pairs, rep.Positives)
	}
	s := rep.Scorers[0]
	kinds := s.Groups["kind"]
	if len(kinds) != 2 || kinds["word-delete"].Positives != 40 || kinds["word-delete"].Pairs != 40+60 {
		t.Errorf("kind groups: %+v", kinds)
	}
	// Light edits keep word sets nearly equal: found. Heavy substitutions
	// of random words from 24 do not.
	light, heavy := s.Groups["rate"]["0.05"], s.Groups["rate"]["0.5"]
	if light.Default.Recall < 0.9 || heavy.Default.Recall > light.Default.Recall {
		t.Errorf("recall light %v heavy %v", light.Default.Recall, heavy.Default.Recall)
	}
	n := 0
	for _, m := range s.Groups["length"] {
		n += m.Pairs
	}
	if n != rep.Pairs {
		t.Errorf("length groups hold %d pairs, want %d", n, rep.Pairs)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(rep); err != nil {
		t.Fatalf("report does not encode: %v", err)
	}
	buf.Reset()
	if err := WriteSummary(&buf, rep); err != nil || !strings.Contains(buf.String(), "| words |") || !strings.Contains(buf.String(), "### by kind") {
		t.Errorf("summary: %v\n%s", err, buf.String())
	}
	dir := t.TempDir()
	if err := PlotPR(rep, filepath.Join(dir, "pr.png")); err != nil {
		t.Fatal(err)
	}
	files, err := PlotHistograms(rep, dir, "x-")
	if err != nil || len(files) != 1 {
		t.Fatalf("histograms %v, %v", files, err)
	}
	for _, f := range []string{"pr.png", files[0]} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() < 1000 {
			t.Errorf("plot %s: %v", f, err)
		}
	}
}

func TestEvaluateBadPair(t *testing.T) {
	d := &Dataset{Texts: []string{"a"}, Pairs: []Pair{{A: 0, B: 1}}}
	if _, err := Evaluate(context.Background(), d, nil, Options{}); err == nil {
		t.Error("pair referring to a missing text accepted")
	}
}

func TestEvaluateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := MakeEdits("gen", generated(5, 10), EditOptions{Seed: 1})
	if _, err := Evaluate(ctx, d, []Scorer{wordJaccard(0.5)}, Options{}); err == nil {
		t.Error("cancelled evaluation returned no error")
	}
}

func TestGroupNames(t *testing.T) {
	g := map[string]Metrics{">500": {}, "<140": {}, "140-500": {}}
	if got := strings.Join(GroupNames(g), " "); got != "<140 140-500 >500" {
		t.Errorf("length order %q", got)
	}
	g = map[string]Metrics{"0.1": {}, "0.03": {}, "0.2": {}}
	if got := strings.Join(GroupNames(g), " "); got != "0.03 0.1 0.2" {
		t.Errorf("rate order %q", got)
	}
}
