package eval

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Corpus is a collection of documents with known duplicate groups: the
// planted copies of a document, and texts that are identical after
// whitespace and case folding, share a group.
type Corpus struct {
	Texts []string
	// Group[i] is the truth group of text i; texts alone in their group
	// have no duplicate.
	Group []int
	// Planted is the number of planted copies.
	Planted int
	// Natural is the number of texts that repeat an earlier one exactly
	// (after whitespace and case folding) in the input.
	Natural int
}

// PlantOptions configures Plant.
type PlantOptions struct {
	// Originals is how many texts get copies; 0 means 10% of the texts.
	Originals int
	// Copies is the number of edited copies of each original; 0 means 2.
	Copies int
	// Kinds and Rates are the edits drawn from for each copy: one kind and
	// one rate at random. Empty means EditKinds() and 0.01, 0.03, 0.05.
	Kinds []EditKind
	Rates []float64
	// Seed seeds the choice of originals, the edits and the final order.
	Seed uint64
}

// Plant returns texts with edited copies of some of them added, shuffled,
// and the truth groups.
func Plant(texts []string, o PlantOptions) *Corpus {
	if o.Copies == 0 {
		o.Copies = 2
	}
	if o.Originals == 0 {
		o.Originals = max(1, len(texts)/10)
	}
	o.Originals = min(o.Originals, len(texts))
	if len(o.Kinds) == 0 {
		o.Kinds = EditKinds()
	}
	if len(o.Rates) == 0 {
		o.Rates = []float64{0.01, 0.03, 0.05}
	}
	ed := NewEditor(o.Seed, Vocabulary(texts, 20000))
	c := &Corpus{}
	byKey := map[string]int{}
	for _, t := range texts {
		k := foldKey(t)
		g, ok := byKey[k]
		if ok {
			c.Natural++
		} else {
			g = len(byKey)
			byKey[k] = g
		}
		c.Texts = append(c.Texts, t)
		c.Group = append(c.Group, g)
	}
	for _, i := range ed.rng.Perm(len(texts))[:o.Originals] {
		for range o.Copies {
			e := Edit{o.Kinds[ed.rng.IntN(len(o.Kinds))], o.Rates[ed.rng.IntN(len(o.Rates))]}
			c.Texts = append(c.Texts, ed.Apply(texts[i], e))
			c.Group = append(c.Group, c.Group[i])
			c.Planted++
		}
	}
	perm := ed.rng.Perm(len(c.Texts))
	texts2, groups2 := make([]string, len(perm)), make([]int, len(perm))
	for to, from := range perm {
		texts2[to], groups2[to] = c.Texts[from], c.Group[from]
	}
	c.Texts, c.Group = texts2, groups2
	return c
}

// foldKey folds whitespace runs and case: texts with the same key are exact
// duplicates for the truth.
func foldKey(t string) string { return strings.ToLower(strings.Join(strings.Fields(t), " ")) }

// Deduper decides, in order, which documents duplicate an earlier kept one:
// it returns for each document the index of the kept document it duplicates,
// or -1 when it is kept. This is what `neardup dedup` does.
type Deduper interface {
	Dedup(ctx context.Context, texts []string) ([]int, error)
}

// Clusterer groups documents: it returns a cluster label per document. This
// is what `neardup cluster` does.
type Clusterer interface {
	Cluster(ctx context.Context, texts []string) ([]int, error)
}

// PairScore is pair precision and recall of a set of found pairs against the
// true pairs.
type PairScore struct {
	Name  string `json:"name"`
	Found int    `json:"found"` // pairs reported
	True  int    `json:"true"`  // true pairs
	Confusion
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// Docs counts documents: removed (dedup) or placed in a cluster of two
	// or more; DocsShould is how many a perfect run would.
	Docs       int `json:"docs"`
	DocsShould int `json:"docs_should"`
}

// CorpusReport is the result of EvaluateCorpus.
type CorpusReport struct {
	Texts   int         `json:"texts"`
	Planted int         `json:"planted"`
	Natural int         `json:"natural"`
	Groups  int         `json:"groups"` // truth groups of two or more
	Seed    uint64      `json:"seed"`
	Results []PairScore `json:"results"`
	// Extra lists, for each result, up to 5 found pairs that are not in
	// the truth, for reading: natural near-duplicates the truth misses, or
	// real false alarms.
	Extra map[string][][2]string `json:"extra,omitempty"`
}

// ScoreDedup scores a dedup decision (dupOf[i] = kept document or -1) by
// pairs: each (i, dupOf[i]) is a found pair; the true pairs are, for each
// document with an earlier document of its group, one such pair (the
// decision only has to name one). A found pair is correct when both are in
// the same group.
func ScoreDedup(name string, group, dupOf []int) (PairScore, [][2]int) {
	s := PairScore{Name: name}
	seen := map[int]bool{}
	should := 0
	for _, g := range group {
		if seen[g] {
			should++
		}
		seen[g] = true
	}
	s.True, s.DocsShould = should, should
	var wrong [][2]int
	for i, j := range dupOf {
		if j < 0 {
			continue
		}
		s.Found++
		s.Docs++
		if group[i] == group[j] {
			s.TP++
		} else {
			s.FP++
			wrong = append(wrong, [2]int{j, i})
		}
	}
	s.FN = should - s.TP
	return s.finish(), wrong
}

// ScoreClusters scores cluster labels by pairs: every pair of documents in
// one cluster is a found pair, every pair in one truth group a true pair.
func ScoreClusters(name string, group, label []int) (PairScore, [][2]int) {
	s := PairScore{Name: name}
	byLabel := map[int][]int{}
	for i, l := range label {
		byLabel[l] = append(byLabel[l], i)
	}
	byGroup := map[int]int{}
	for _, g := range group {
		byGroup[g]++
	}
	for _, n := range byGroup {
		s.True += n * (n - 1) / 2
		if n > 1 {
			s.DocsShould += n
		}
	}
	var wrong [][2]int
	keys := make([]int, 0, len(byLabel))
	for l := range byLabel {
		keys = append(keys, l)
	}
	slices.Sort(keys)
	for _, l := range keys {
		members := byLabel[l]
		if len(members) > 1 {
			s.Docs += len(members)
		}
		for x := range members {
			for y := x + 1; y < len(members); y++ {
				s.Found++
				if group[members[x]] == group[members[y]] {
					s.TP++
				} else {
					s.FP++
					if len(wrong) < 5 {
						wrong = append(wrong, [2]int{members[x], members[y]})
					}
				}
			}
		}
	}
	s.FN = s.True - s.TP
	return s.finish(), wrong
}

func (s PairScore) finish() PairScore {
	s.Precision, s.Recall, s.F1 = s.Confusion.Precision(), s.Confusion.Recall(), s.Confusion.F1()
	return s
}

// EvaluateCorpus runs each deduper and clusterer on c and scores them.
func EvaluateCorpus(ctx context.Context, c *Corpus, dedupers map[string]Deduper, clusterers map[string]Clusterer, seed uint64) (*CorpusReport, error) {
	r := &CorpusReport{Texts: len(c.Texts), Planted: c.Planted, Natural: c.Natural, Seed: seed, Extra: map[string][][2]string{}}
	sizes := map[int]int{}
	for _, g := range c.Group {
		sizes[g]++
	}
	for _, n := range sizes {
		if n > 1 {
			r.Groups++
		}
	}
	extra := func(name string, wrong [][2]int) {
		for _, w := range wrong[:min(len(wrong), 5)] {
			r.Extra[name] = append(r.Extra[name], [2]string{clip(c.Texts[w[0]]), clip(c.Texts[w[1]])})
		}
	}
	for _, name := range sortedKeys(dedupers) {
		dupOf, err := dedupers[name].Dedup(ctx, c.Texts)
		if err != nil {
			return nil, fmt.Errorf("eval: dedup %s: %w", name, err)
		}
		if len(dupOf) != len(c.Texts) {
			return nil, fmt.Errorf("eval: dedup %s: %d decisions for %d texts", name, len(dupOf), len(c.Texts))
		}
		s, wrong := ScoreDedup("dedup "+name, c.Group, dupOf)
		r.Results = append(r.Results, s)
		extra(s.Name, wrong)
	}
	for _, name := range sortedKeys(clusterers) {
		labels, err := clusterers[name].Cluster(ctx, c.Texts)
		if err != nil {
			return nil, fmt.Errorf("eval: cluster %s: %w", name, err)
		}
		if len(labels) != len(c.Texts) {
			return nil, fmt.Errorf("eval: cluster %s: %d labels for %d texts", name, len(labels), len(c.Texts))
		}
		s, wrong := ScoreClusters("cluster "+name, c.Group, labels)
		r.Results = append(r.Results, s)
		extra(s.Name, wrong)
	}
	return r, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// clip shortens a text to 200 characters for a report.
func clip(t string) string {
	rs := []rune(strings.Join(strings.Fields(t), " "))
	if len(rs) <= 200 {
		return string(rs)
	}
	return string(rs[:200]) + "…(" + strconv.Itoa(len(rs)) + " chars)"
}

// ScorerDeduper dedups with a Scorer alone: in order, each document is a
// duplicate of the first earlier kept document the scorer calls a duplicate
// of it. It compares all pairs, so it suits corpora of up to some tens of
// thousands of documents; it is the baseline the engine is measured against.
type ScorerDeduper struct{ Scorer Scorer }

// Dedup implements Deduper.
func (d ScorerDeduper) Dedup(ctx context.Context, texts []string) ([]int, error) {
	prepared := make([]any, len(texts))
	if err := parallel(ctx, len(texts), 0, func(i int) { prepared[i] = d.Scorer.Prepare([]byte(texts[i])) }); err != nil {
		return nil, err
	}
	dupOf := make([]int, len(texts))
	var kept []int
	for i := range texts {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("eval: %w", ctx.Err())
		}
		dupOf[i] = -1
		for _, j := range kept {
			if d.Scorer.Compare(prepared[j], prepared[i]).Dup {
				dupOf[i] = j
				break
			}
		}
		if dupOf[i] < 0 {
			kept = append(kept, i)
		}
	}
	return dupOf, nil
}

// ScorerClusterer clusters with a Scorer alone: documents the scorer calls
// duplicates are joined (single linkage, union-find over all pairs).
type ScorerClusterer struct{ Scorer Scorer }

// Cluster implements Clusterer.
func (c ScorerClusterer) Cluster(ctx context.Context, texts []string) ([]int, error) {
	prepared := make([]any, len(texts))
	if err := parallel(ctx, len(texts), 0, func(i int) { prepared[i] = c.Scorer.Prepare([]byte(texts[i])) }); err != nil {
		return nil, err
	}
	parent := make([]int, len(texts))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("eval: %w", ctx.Err())
		}
		for j := i + 1; j < len(texts); j++ {
			if c.Scorer.Compare(prepared[i], prepared[j]).Dup {
				parent[find(j)] = find(i)
			}
		}
	}
	labels := make([]int, len(texts))
	for i := range labels {
		labels[i] = find(i)
	}
	return labels, nil
}
