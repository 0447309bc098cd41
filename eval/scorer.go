package eval

import (
	"fmt"

	"github.com/neardup/neardup"
)

// A Scorer gives a pair of texts a distance (smaller is more alike) and its
// own duplicate decision. Prepare is called once per text and may be called
// from several goroutines at once; Compare receives two values Prepare
// returned.
type Scorer interface {
	// Name names the scorer in reports.
	Name() string
	// Prepare computes what Compare needs about one text (a fingerprint, a
	// sketch, ...).
	Prepare(text []byte) any
	// Compare returns the distance between two prepared texts and whether
	// the scorer calls them near-duplicates.
	Compare(a, b any) Outcome
	// Thresholds returns the distances at which the report tabulates
	// precision and recall ("every k"), in increasing order.
	Thresholds() []float64
}

// An Outcome is what a Scorer says about a pair.
type Outcome struct {
	// Distance is how far apart the two texts are: smaller is more alike.
	Distance float64
	// Dup is the scorer's own decision: the pair is a near-duplicate.
	Dup bool
}

// FingerprintScorer scores pairs by the Hamming distance of their
// fingerprints and calls them duplicates within K bits.
type FingerprintScorer struct {
	name string
	fp   neardup.Fingerprinter
	k    int
	max  int
}

// NewFingerprintScorer returns a scorer named name that compares the
// fingerprints fp makes and calls a pair a duplicate at distance <= k. It
// tabulates every k from 0 to half the fingerprint width (the distance of
// unrelated texts).
func NewFingerprintScorer(name string, fp neardup.Fingerprinter, k int) (*FingerprintScorer, error) {
	if k < 0 || k > fp.Bits() {
		return nil, fmt.Errorf("eval: k %d out of range for %d-bit fingerprints", k, fp.Bits())
	}
	return &FingerprintScorer{name: name, fp: fp, k: k, max: fp.Bits() / 2}, nil
}

// Name returns the scorer's name.
func (s *FingerprintScorer) Name() string { return s.name }

// K returns the distance at or under which the scorer calls a duplicate.
func (s *FingerprintScorer) K() int { return s.k }

// Prepare returns the fingerprint of text.
func (s *FingerprintScorer) Prepare(text []byte) any { return s.fp.Fingerprint(text) }

// Compare returns the Hamming distance of two fingerprints made by Prepare.
func (s *FingerprintScorer) Compare(a, b any) Outcome {
	d, err := neardup.Distance(a.(neardup.Fingerprint), b.(neardup.Fingerprint))
	if err != nil {
		// Both come from the same Fingerprinter, so widths always agree.
		panic(fmt.Sprintf("eval: %v", err))
	}
	return Outcome{Distance: float64(d), Dup: d <= s.k}
}

// Thresholds returns 0, 1, ..., Bits/2.
func (s *FingerprintScorer) Thresholds() []float64 { return intRange(s.max) }

func intRange(max int) []float64 {
	ts := make([]float64, max+1)
	for i := range ts {
		ts[i] = float64(i)
	}
	return ts
}

// FuncScorer adapts a similarity measure in [0, 1] (1 = identical) to a
// Scorer: its distance is 1 - similarity and it calls a duplicate at
// similarity >= Threshold. Its thresholds are 0, 0.05, ..., 1.
type FuncScorer struct {
	// Label names the scorer.
	Label string
	// Prep computes what Sim needs about one text; nil passes the text.
	Prep func(text []byte) any
	// Sim returns the similarity of two prepared texts.
	Sim func(a, b any) float64
	// Threshold is the similarity at or above which a pair is a duplicate.
	Threshold float64
}

// Name returns s.Label.
func (s *FuncScorer) Name() string { return s.Label }

// Prepare returns s.Prep(text), or a copy of text when Prep is nil.
func (s *FuncScorer) Prepare(text []byte) any {
	if s.Prep == nil {
		return string(text)
	}
	return s.Prep(text)
}

// Compare returns 1 - similarity.
func (s *FuncScorer) Compare(a, b any) Outcome {
	sim := s.Sim(a, b)
	return Outcome{Distance: 1 - sim, Dup: sim >= s.Threshold}
}

// Thresholds returns the distances 0, 0.05, ..., 1.
func (s *FuncScorer) Thresholds() []float64 {
	ts := make([]float64, 21)
	for i := range ts {
		ts[i] = float64(i) / 20
	}
	return ts
}
