package eval

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"unicode/utf8"
)

// A Dataset is a set of texts and labelled pairs of them.
type Dataset struct {
	// Name names the dataset in reports.
	Name string
	// Texts holds every text once; pairs refer to them by index.
	Texts []string
	// Pairs are the labelled pairs.
	Pairs []Pair
}

// A Pair is two texts of a Dataset, by index, and whether they are
// near-duplicates.
type Pair struct {
	A, B     int
	Positive bool
	// Tags place the pair in groups for the breakdowns (edit kind, rate,
	// category). A pair with no tag for a dimension counts in every group of
	// that dimension: negatives are shared by all edit kinds, for example.
	// The "length" dimension is added by Evaluate.
	Tags []Tag
}

// A Tag puts a pair in group Value of dimension Dim.
type Tag struct{ Dim, Value string }

// Validate reports the first pair that refers to a missing text.
func (d *Dataset) Validate() error {
	for i, p := range d.Pairs {
		if p.A < 0 || p.A >= len(d.Texts) || p.B < 0 || p.B >= len(d.Texts) {
			return fmt.Errorf("eval: dataset %q: pair %d refers to text %d or %d of %d", d.Name, i, p.A, p.B, len(d.Texts))
		}
	}
	return nil
}

// Length groups, by the rune count of the shorter text of a pair.
const (
	LengthShort  = "<140"
	LengthMedium = "140-500"
	LengthLong   = ">500"
)

// LengthGroup returns the length group of a text of n characters.
func LengthGroup(n int) string {
	switch {
	case n < 140:
		return LengthShort
	case n <= 500:
		return LengthMedium
	}
	return LengthLong
}

// Report is the result of evaluating scorers on a dataset.
type Report struct {
	Dataset   string         `json:"dataset"`
	Texts     int            `json:"texts"`
	Pairs     int            `json:"pairs"`
	Positives int            `json:"positives"`
	Seed      uint64         `json:"seed,omitempty"`
	Notes     []string       `json:"notes,omitempty"`
	Scorers   []ScorerReport `json:"scorers"`
}

// ScorerReport is how one scorer did, overall and by group.
type ScorerReport struct {
	Name    string  `json:"name"`
	Overall Metrics `json:"overall"`
	// Groups maps a dimension ("length", "kind", "rate", ...) to its groups.
	Groups map[string]map[string]Metrics `json:"groups,omitempty"`
	// samples keeps the scored pairs for plots.
	samples []Sample
}

// Samples returns the scored pairs behind the overall metrics.
func (r *ScorerReport) Samples() []Sample { return r.samples }

// Metrics summarizes the samples of one group.
type Metrics struct {
	Pairs     int `json:"pairs"`
	Positives int `json:"positives"`
	AUC       Num `json:"auc"`
	// Default is the scorer's own decision.
	Default Point `json:"default"`
	// Best is the threshold with the highest F1.
	Best Point `json:"best"`
	// P99 is the threshold with the highest recall at precision >= 0.99
	// (absent when none reaches it).
	P99 *Point `json:"p99,omitempty"`
	// ByThreshold tabulates the scorer's thresholds (every k).
	ByThreshold []Point `json:"by_threshold"`
	// Histogram counts positives and negatives by distance.
	Histogram []Bin `json:"histogram"`
}

// A Bin counts the positive and negative pairs with Lo <= distance < Hi
// (the last bin also holds distance == Hi).
type Bin struct {
	Lo  float64 `json:"lo"`
	Hi  float64 `json:"hi"`
	Pos int     `json:"pos"`
	Neg int     `json:"neg"`
}

// Options tunes Evaluate.
type Options struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Seed is recorded in the report.
	Seed uint64
}

// Evaluate scores every pair of d with every scorer and summarizes the
// results. It stops early when ctx is done.
func Evaluate(ctx context.Context, d *Dataset, scorers []Scorer, opts Options) (*Report, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	workers := opts.Workers
	rep := &Report{Dataset: d.Name, Texts: len(d.Texts), Pairs: len(d.Pairs), Seed: opts.Seed}
	lengths := make([]int, len(d.Texts))
	for i, t := range d.Texts {
		lengths[i] = utf8.RuneCountInString(t)
	}
	tags := make([][]Tag, len(d.Pairs))
	for i, p := range d.Pairs {
		if p.Positive {
			rep.Positives++
		}
		n := min(lengths[p.A], lengths[p.B])
		tags[i] = append(slices.Clip(p.Tags), Tag{"length", LengthGroup(n)})
	}
	for _, s := range scorers {
		samples, err := score(ctx, d, s, workers)
		if err != nil {
			return nil, err
		}
		sr := ScorerReport{Name: s.Name(), samples: samples, Groups: map[string]map[string]Metrics{}}
		sr.Overall = summarize(samples, s.Thresholds())
		for dim, groups := range groupSamples(samples, tags) {
			sr.Groups[dim] = map[string]Metrics{}
			for g, ss := range groups {
				sr.Groups[dim][g] = summarize(ss, s.Thresholds())
			}
		}
		rep.Scorers = append(rep.Scorers, sr)
	}
	return rep, nil
}

// score prepares each text once and compares every pair, in parallel.
func score(ctx context.Context, d *Dataset, s Scorer, workers int) ([]Sample, error) {
	prepared := make([]any, len(d.Texts))
	if err := parallel(ctx, len(d.Texts), workers, func(i int) {
		prepared[i] = s.Prepare([]byte(d.Texts[i]))
	}); err != nil {
		return nil, err
	}
	samples := make([]Sample, len(d.Pairs))
	if err := parallel(ctx, len(d.Pairs), workers, func(i int) {
		p := d.Pairs[i]
		o := s.Compare(prepared[p.A], prepared[p.B])
		samples[i] = Sample{Distance: o.Distance, Dup: o.Dup, Positive: p.Positive}
	}); err != nil {
		return nil, err
	}
	return samples, nil
}

// parallel calls f(i) for i in [0, n) on workers goroutines (GOMAXPROCS
// when workers <= 0).
func parallel(ctx context.Context, n, workers int, f func(i int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	const chunk = 64
	var (
		mu   sync.Mutex
		next int
		wg   sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				mu.Lock()
				lo := next
				next += chunk
				mu.Unlock()
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+chunk, n); i++ {
					f(i)
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	return nil
}

// groupSamples splits samples by dimension and group. A sample without a
// tag for a dimension goes to every group of it.
func groupSamples(samples []Sample, tags [][]Tag) map[string]map[string][]Sample {
	values := map[string]map[string]bool{}
	for _, ts := range tags {
		for _, t := range ts {
			if values[t.Dim] == nil {
				values[t.Dim] = map[string]bool{}
			}
			values[t.Dim][t.Value] = true
		}
	}
	out := map[string]map[string][]Sample{}
	for dim, vs := range values {
		out[dim] = map[string][]Sample{}
		for i, s := range samples {
			tagged := false
			for _, t := range tags[i] {
				if t.Dim == dim {
					out[dim][t.Value] = append(out[dim][t.Value], s)
					tagged = true
				}
			}
			if !tagged {
				for v := range vs {
					out[dim][v] = append(out[dim][v], s)
				}
			}
		}
	}
	return out
}

func summarize(samples []Sample, thresholds []float64) Metrics {
	m := Metrics{Pairs: len(samples)}
	for _, s := range samples {
		if s.Positive {
			m.Positives++
		}
	}
	m.AUC = Num(AUC(samples))
	m.Default = Decide(samples)
	// Best and P99 are sought within the scorer's own range: a policy
	// gives pairs the index never returns a distance beyond it, and calling
	// those duplicates is not a rule anyone can apply.
	sweep := Sweep(samples)
	if len(thresholds) > 0 {
		last := thresholds[len(thresholds)-1]
		sweep = slices.DeleteFunc(sweep, func(p Point) bool { return float64(p.Threshold) > last })
	}
	m.Best = BestF1(sweep)
	if p, ok := AtPrecision(sweep, 0.99); ok {
		m.P99 = &p
	}
	m.ByThreshold = Curve(samples, thresholds)
	m.Histogram = histogram(samples, thresholds)
	return m
}

// histogram bins samples by the scorer's thresholds: one bin per integer
// distance for fingerprints, twenty for similarities.
func histogram(samples []Sample, thresholds []float64) []Bin {
	if len(thresholds) < 2 {
		return nil
	}
	lo, hi := thresholds[0], thresholds[len(thresholds)-1]
	for _, s := range samples {
		hi = max(hi, s.Distance)
	}
	step := thresholds[1] - thresholds[0]
	n := int(math.Ceil((hi-lo)/step)) + 1
	bins := make([]Bin, n)
	for i := range bins {
		bins[i] = Bin{Lo: lo + float64(i)*step, Hi: lo + float64(i+1)*step}
	}
	for _, s := range samples {
		i := int(math.Floor((s.Distance - lo) / step))
		i = max(0, min(i, n-1))
		if s.Positive {
			bins[i].Pos++
		} else {
			bins[i].Neg++
		}
	}
	return bins
}

// GroupNames returns the groups of a dimension in a stable order: length
// groups short to long, numbers ascending, the rest alphabetically.
func GroupNames(groups map[string]Metrics) []string {
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	rank := map[string]int{LengthShort: 0, LengthMedium: 1, LengthLong: 2}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		ra, oka := rank[a]
		rb, okb := rank[b]
		if oka && okb {
			return ra < rb
		}
		var fa, fb float64
		_, ea := fmt.Sscanf(a, "%g", &fa)
		_, eb := fmt.Sscanf(b, "%g", &fb)
		if ea == nil && eb == nil {
			return fa < fb
		}
		return a < b
	})
	return names
}
