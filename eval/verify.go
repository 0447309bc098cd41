package eval

import (
	"fmt"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/similarity"
)

// Sketches caches similarity sketches by text and scores by pair, so that
// several measure and policy scorers over one dataset compute each sketch
// and each comparison once. It is safe for concurrent use.
type Sketches struct {
	mu     sync.Mutex
	sketch map[string]*similarity.Sketch
	scores map[scoreKey]float64
	fps    map[fpKey]neardup.Fingerprint
}

type scoreKey struct {
	a, b *similarity.Sketch
	m    neardup.Measure
}

type fpKey struct {
	fp   neardup.Fingerprinter
	text string
}

// NewSketches returns an empty cache.
func NewSketches() *Sketches {
	return &Sketches{
		sketch: map[string]*similarity.Sketch{},
		scores: map[scoreKey]float64{},
		fps:    map[fpKey]neardup.Fingerprint{},
	}
}

// Sketch returns the sketch of text.
func (c *Sketches) Sketch(text []byte) *similarity.Sketch {
	c.mu.Lock()
	s, ok := c.sketch[string(text)]
	c.mu.Unlock()
	if ok {
		return s
	}
	s = similarity.NewSketch(text)
	c.mu.Lock()
	c.sketch[string(text)] = s
	c.mu.Unlock()
	return s
}

// LevenshteinFloor is the smallest Levenshtein ratio Sketches.Score
// computes exactly: below it the edit distance is bounded (much faster on
// long unrelated texts) and the ratio reported is just under the floor. No
// useful near-duplicate threshold lies that low.
const LevenshteinFloor = 0.5

// Score returns the similarity of a and b by measure m, computing only that
// measure.
func (c *Sketches) Score(a, b *similarity.Sketch, m neardup.Measure) float64 {
	key := scoreKey{a, b, m}
	c.mu.Lock()
	s, ok := c.scores[key]
	c.mu.Unlock()
	if ok {
		return s
	}
	switch m {
	case neardup.Jaccard:
		s = similarity.Jaccard(a.Shingles(), b.Shingles())
	case neardup.Cosine:
		s = similarity.Cosine(a.Vector(), b.Vector())
	default:
		n := max(a.Len(), b.Len())
		if n == 0 {
			s = 1
			break
		}
		bound := int(float64(n) * (1 - LevenshteinFloor))
		s = 1 - float64(similarity.Levenshtein(a.EditRunes(), b.EditRunes(), bound))/float64(n)
	}
	c.mu.Lock()
	c.scores[key] = s
	c.mu.Unlock()
	return s
}

// fingerprint returns fp's fingerprint of text, cached.
func (c *Sketches) fingerprint(fp neardup.Fingerprinter, text []byte) neardup.Fingerprint {
	key := fpKey{fp, string(text)}
	c.mu.Lock()
	f, ok := c.fps[key]
	c.mu.Unlock()
	if ok {
		return f
	}
	f = fp.Fingerprint(text)
	c.mu.Lock()
	c.fps[key] = f
	c.mu.Unlock()
	return f
}

// NewMeasureScorer returns a scorer named after the measure ("jaccard",
// "cosine" or "levenshtein") whose distance is 1 - similarity and which
// calls a duplicate at similarity >= threshold.
func NewMeasureScorer(c *Sketches, m neardup.Measure, threshold float64) (*FuncScorer, error) {
	switch m {
	case neardup.Jaccard, neardup.Cosine, neardup.Levenshtein:
	default:
		return nil, fmt.Errorf("eval: unknown measure %q", m)
	}
	return &FuncScorer{
		Label:     string(m),
		Prep:      func(t []byte) any { return c.Sketch(t) },
		Sim:       func(a, b any) float64 { return c.Score(a.(*similarity.Sketch), b.(*similarity.Sketch), m) },
		Threshold: threshold,
	}, nil
}

// PolicyScorer judges pairs as the engine does: fingerprints from a
// Fingerprinter, then a neardup.Policy. Its distance is 1 - the similarity
// of the rule's measure for candidates within the rule's distance, and 2
// for pairs the index would never return, so its curve shows the effect of
// the similarity threshold at the policy's candidate distances.
type PolicyScorer struct {
	name   string
	fp     neardup.Fingerprinter
	policy neardup.Policy
	cache  *Sketches
	// exact calls Policy.Verify itself; otherwise the decision is made from
	// cached scores by the same rule (much faster when many policies are
	// compared on one dataset).
	exact bool
	// cfg says what of a text the policy measures (MeasureAs).
	cfg neardup.Config
}

type policyPrep struct {
	fp neardup.Fingerprint
	sk *similarity.Sketch
}

// NewPolicyScorer returns a scorer named name for policy p over the
// fingerprints of fp, sharing sketches through c. With exact set it calls
// p.Verify for every pair; otherwise it applies the same rule to scores
// cached in c, which gives the same decisions (a test checks this) at a
// fraction of the cost when many policies are compared.
func NewPolicyScorer(name string, fp neardup.Fingerprinter, p neardup.Policy, c *Sketches, exact bool) (*PolicyScorer, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("eval: policy %s: %w", name, err)
	}
	if fp.Bits() != 64 && fp.Bits() != 128 {
		return nil, fmt.Errorf("eval: policy %s: needs 64- or 128-bit SimHash, not %d bits", name, fp.Bits())
	}
	return &PolicyScorer{name: name, fp: fp, policy: p, cache: c, exact: exact}, nil
}

// MeasureAs makes s measure texts as the engine does when its
// fingerprints are made with cfg (neardup.Config.Measured): the visible
// text of HTML, the text without its accents with FoldAccents. Without it
// s measures texts as they are. It returns s.
func (s *PolicyScorer) MeasureAs(cfg neardup.Config) *PolicyScorer {
	s.cfg = cfg
	return s
}

// Name returns the scorer's name.
func (s *PolicyScorer) Name() string { return s.name }

// Prepare returns the fingerprint of text and the sketch of what the
// policy measures of it.
func (s *PolicyScorer) Prepare(text []byte) any {
	return &policyPrep{fp: s.cache.fingerprint(s.fp, text), sk: s.cache.Sketch(s.cfg.Measured(text))}
}

// Compare judges a pair by the policy.
func (s *PolicyScorer) Compare(a, b any) Outcome {
	x, y := a.(*policyPrep), b.(*policyPrep)
	d, err := neardup.Distance(x.fp, y.fp)
	if err != nil {
		panic(fmt.Sprintf("eval: %v", err))
	}
	bits := s.fp.Bits()
	if s.exact {
		dup, sim := s.policy.Decide(x.sk, y.sk, d, bits)
		if d > s.maxDistance(x.sk, y.sk) {
			return Outcome{Distance: 2, Dup: dup}
		}
		return Outcome{Distance: 1 - sim, Dup: dup}
	}
	r := s.rule(x.sk, y.sk)
	if d > scaleDistance(r.MaxDistance, bits) {
		return Outcome{Distance: 2}
	}
	sim := s.cache.Score(x.sk, y.sk, r.Measure)
	return Outcome{Distance: 1 - sim, Dup: sim >= r.MinSimilarity}
}

// rule is Policy.Verify's choice of rule, by the texts' normalized lengths.
func (s *PolicyScorer) rule(a, b *similarity.Sketch) neardup.Rule {
	r, _ := s.policy.RuleFor(a.Len(), b.Len())
	return r
}

func (s *PolicyScorer) maxDistance(a, b *similarity.Sketch) int {
	return scaleDistance(s.rule(a, b).MaxDistance, s.fp.Bits())
}

// scaleDistance mirrors the policy's scaling of 64-bit bounds to wider
// fingerprints.
func scaleDistance(d, bits int) int {
	if bits <= 64 {
		return d
	}
	return d * bits / 64
}

// Thresholds returns the distances 0, 0.05, ..., 1 (similarity 1 down to 0).
func (s *PolicyScorer) Thresholds() []float64 { return (&FuncScorer{}).Thresholds() }
