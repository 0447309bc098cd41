package server

import (
	"errors"

	"github.com/neardup/neardup"
)

// Under neardup.Options.RuleScoreOnly (serve --scores rule) a duplicate's
// match holds the score of the measure its rule decided by and 0 for the
// others, which a reader takes for "not similar at all". The API sends
// those as null instead. The engine does not say which rule decided a
// match (the Short or the Long one, by the longer text's length, which the
// server does not know for a stored text), but it gives the match that
// rule's score as its Similarity, so the measure is the one of the two
// rules' whose score equals it.

// scoresOut is the API's form of a match's scores: a measure the engine
// did not compute is null.
type scoresOut struct {
	neardup.Scores
	// none holds a bit for each measure not computed (noJaccard...).
	none uint8
}

// The bits of scoresOut.none.
const (
	noJaccard uint8 = 1 << iota
	noCosine
	noLevenshtein
	noScores = noJaccard | noCosine | noLevenshtein
)

// errNonFinite is MarshalJSON's error for a NaN or an infinity, which JSON
// cannot hold.
var errNonFinite = errors.New("server: a score is not a finite number")

// MarshalJSON encodes s as a JSON object of the three measures, each a
// number or, when not computed, null.
func (s scoresOut) MarshalJSON() ([]byte, error) {
	b, ok := appendScores(nil, s)
	if !ok {
		return nil, errNonFinite
	}
	return b, nil
}

// scoring says which of a match's scores the engine computes.
type scoring struct {
	// ruleOnly is Options.RuleScoreOnly.
	ruleOnly bool
	// tiny, short and long are the bits of the measures of the policy's
	// rules (tiny 0 when the policy has no tiny texts).
	tiny, short, long uint8
}

func newScoring(ruleOnly bool, p neardup.Policy) scoring {
	sc := scoring{ruleOnly: ruleOnly, short: measureBit(p.Short.Measure), long: measureBit(p.Long.Measure)}
	if p.TinyLength > 0 {
		sc.tiny = measureBit(p.Tiny.Measure)
	}
	return sc
}

// measureBit is the bit of scoresOut.none for m.
func measureBit(m neardup.Measure) uint8 {
	switch m {
	case neardup.Jaccard:
		return noJaccard
	case neardup.Cosine:
		return noCosine
	case neardup.Levenshtein:
		return noLevenshtein
	}
	return 0
}

// score is the score of the measure whose bit is bit.
func score(s neardup.Scores, bit uint8) float64 {
	switch bit {
	case noJaccard:
		return s.Jaccard
	case noCosine:
		return s.Cosine
	}
	return s.Levenshtein
}

// scores returns m's scores in the API's form. A match found by
// fingerprint alone has none computed, and a long one no Levenshtein ratio
// (neardup.Scores.LevenshteinSkipped). Otherwise, under RuleScoreOnly,
// the computed one is the measure of the rule that decided, whose score is
// m.Similarity: of the rules' measures, the one whose score equals it.
// Several do when it is 0 (a rule that takes a score of 0, a rare
// setting), and they are then all sent; none does for a store without texts, which
// decides by distance alone and computes none.
func (sc scoring) scores(m neardup.Match, byFingerprint bool) scoresOut {
	out := scoresOut{Scores: m.Scores}
	if byFingerprint {
		out.none = noScores // no text to compare
		return out
	}
	if m.Scores.LevenshteinSkipped {
		out.none |= noLevenshtein // long texts: not computed
	}
	if !sc.ruleOnly {
		return out
	}
	computed := uint8(0)
	for _, bit := range []uint8{sc.tiny, sc.short, sc.long} {
		if bit != 0 && score(m.Scores, bit) == m.Similarity {
			computed |= bit
		}
	}
	out.none = noScores &^ computed
	return out
}
