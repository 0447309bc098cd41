package neardup

import (
	"fmt"

	"github.com/neardup/neardup/similarity"
)

// Measure names a similarity measure a Policy rule can require.
type Measure string

// The measures of package similarity.
const (
	// Jaccard is the Jaccard similarity of the texts' character-gram sets
	// (3 runes, 2 from a CJK character; see similarity.NewSketch).
	Jaccard Measure = "jaccard"
	// Cosine is the cosine similarity of the texts' term-frequency vectors.
	Cosine Measure = "cosine"
	// Levenshtein is 1 - edit distance / length of the longer text, over
	// the normalized texts without their punctuation and symbols
	// (similarity.EditRunes), which the fingerprint does not read either;
	// for texts of two sentences or more, the higher of that and the
	// ratio with the sentences of one in the order of the other's
	// (similarity.EditRatio), so that a copy with its sentences moved is
	// confirmed as its copy in order is.
	Levenshtein Measure = "levenshtein"
)

// Rule is the test one length class of texts must pass to be called
// near-duplicates.
type Rule struct {
	// MaxDistance is the largest Hamming distance, for 64-bit
	// fingerprints, at which a stored text is a candidate. It scales with
	// the width: 128-bit fingerprints allow twice as many bits (which the
	// engine finds by searching each 64-bit half at MaxDistance).
	MaxDistance int
	// Measure is the similarity a candidate is confirmed with.
	Measure Measure
	// MinSimilarity is the smallest Measure score that confirms a
	// candidate; 0 accepts every candidate within MaxDistance (trusting
	// the fingerprint alone).
	MinSimilarity float64
}

// Policy decides whether a candidate the index returns is a near-duplicate.
// SimHash alone is reliable on long texts and weak on short ones (on texts
// under a few hundred characters, one edited word often moves 8 to 12 bits,
// while long near-duplicates mostly stay within a few bits), so
// a Policy has two rules: Short for pairs of short texts (a wider distance,
// confirmed by edit distance), Long for the rest, and may have a third,
// Tiny, for pairs of texts of a few words, which one edited word moves
// farther still.
//
// The numbers are plain fields so that they can be tuned with evidence; the
// defaults are documented at DefaultPolicy.
type Policy struct {
	// ShortLength is the length in runes under which a text is short,
	// counted as the Levenshtein ratio counts them (similarity.Sketch.Len:
	// normalized, without punctuation and symbols). A pair is judged by
	// the Short rule when its shorter text is short and its longer one
	// under a quarter more (ShortLength + ShortLength/4), so that a copy
	// a little longer than its original, a footer added, is judged as the
	// original is; by the Long rule otherwise.
	ShortLength int
	// Short is the rule for pairs of short texts.
	Short Rule
	// TinyLength is the length in runes, counted as for ShortLength, under
	// which a text is tiny: a pair is judged by the Tiny rule when its
	// shorter text is tiny and its longer one under a quarter more. 0
	// means no text is tiny. It is at most ShortLength.
	TinyLength int
	// Tiny is the rule for pairs of tiny texts (when TinyLength > 0).
	Tiny Rule
	// TinyWords is the most words two tiny texts may have (and 4 the
	// fewest) for the Tiny rule to judge them by its measure alone,
	// whatever their distance, when they are one word apart: a word replaced, inserted or deleted
	// (similarity.OneWordApart, each Han, Kana or Hangul character a
	// word). One edited word can move the fingerprint of a text of a few
	// words farther than any distance an index searches at a sane cost,
	// and the engine finds those pairs by their deletion keys instead
	// (similarity.DeletionKeys), TinyWords+1 of them a text at most. 0
	// turns this off; otherwise it is 4 to 64 (Validate refuses 1 to 3,
	// which would count no text).
	TinyWords int
	// Long is the rule for the other pairs.
	Long Rule
	// DistinctNumbers, if set, turns down every pair whose texts do not
	// hold the same numbers in the same order (similarity.SameNumbers),
	// whatever their scores: two verification codes, two prices or two
	// versions of one template are then different texts. Off by default,
	// for which a repost with one date or figure changed, and templated
	// spam with a new code, are duplicates. Without texts to compare
	// (Options.DropText) it does nothing.
	DistinctNumbers bool
	// DistinctNegation, if set, turns down every pair whose texts do not
	// hold as many words of negation each (similarity.SameNegation: not,
	// never, n't, 不, 没, ...), whatever their scores: "The patient is
	// allergic to penicillin." and "The patient is not allergic to
	// penicillin." are then different texts. Off by default, for which a
	// copy with one word changed is a duplicate whatever the word. Without
	// texts to compare (Options.DropText) it does nothing.
	DistinctNegation bool
}

// DefaultPolicy returns the policy the engine uses unless told otherwise:
//
//   - texts of fewer than 500 runes are short, and those of fewer than 64
//     tiny (about eleven English words); a pair is short (tiny) when its
//     shorter text is and its longer one is under a quarter more, 625
//     (80) runes, so that a copy with a footer added is judged as its
//     original is;
//   - a short pair is a near-duplicate when the 64-bit fingerprints are
//     at most 10 bits apart and the Levenshtein ratio (1 - edits / longer
//     length) is at least 0.8; a tiny pair, when they are at most 14 bits
//     apart, or of 4 to 12 words each and one word apart, and the
//     ratio is at least 0.8;
//   - other pairs are near-duplicates when their fingerprints are at most
//     6 bits apart and the Jaccard similarity of their character 3-grams
//     is at least 0.5.
//
// Why these numbers (docs/EVALUATION.md): on long English texts with up
// to 10% of words edited, the default pipeline puts 58% of the copies
// within 3 bits, about 86% within 6, 94% within 8 and 99.6% within 12, while
// unrelated texts stay at least 14 bits apart. The index's cost grows
// steeply with the distance (at 1M random fingerprints, measured with
// `neardup bench index -k K`: p50 0.66 µs at k = 3, 6.9 µs at k = 6, 35 µs
// at k = 8, 1.35 ms at k = 12, slower than a linear scan), and fingerprints
// of text cost more than random ones (at 100k texts, 9.0 µs at k = 6
// against 57 µs at k = 8), so 6 is the widest distance that keeps a check
// near the seeds' 3.6 ms budget at 50M stored texts (docs/EVALUATION.md,
// "What the engine ships"). Collections of a few million texts can afford
// Long.MaxDistance 12 for the best recall. Levenshtein 0.8 is where the
// recall and false-positive curves bend on the short-text corpora (0.7 lets
// 2.5% of MRPC's non-paraphrases through; 0.9 loses 12-19 points of recall).
//
// Tiny texts have few features, so one edited word moves their
// fingerprints farthest: of STS-B sentences of 4 to 7 words with one word
// or character edited, 55% are within 10 bits and 90% within 14 (of 8 to
// 11 words, 79% and 98%). With the tiny rule the policy finds 83% of
// those sentences, against 61% without it (75% at Tiny.MaxDistance 12);
// its cost falls on tiny texts alone: where every text is tiny, two to
// two and a half times the CPU of no tiny rule (1.6 times at 12). The
// deletion keys (TinyWords) find the copies one word apart at any
// distance: 81.0% of the 4-7-word sentences with one edit instead of
// 73.3% (the ratio alone allows 81.2%), and 96.7% of the 8-11-word ones
// instead of 94.8%, for 6-14% more CPU where every text is tiny. The
// ratio still decides: sentences that differ in one word ("A man is
// playing a guitar." and "A man is playing a flute.") are duplicates by
// either rule once their fingerprints are near enough
// (docs/EVALUATION.md, "Tiny texts").
//
// Distances double for 128-bit fingerprints: two within twice the
// distance are within it in their high or their low halves, so the engine
// searches an index of each half at the 64-bit distance, and a 128-bit
// check costs about two 64-bit ones. Without texts to compare
// (Options.DropText) only the distance bounds apply.
func DefaultPolicy() Policy {
	return Policy{
		ShortLength: 500,
		Short:       Rule{MaxDistance: 10, Measure: Levenshtein, MinSimilarity: 0.8},
		TinyLength:  64,
		Tiny:        Rule{MaxDistance: 14, Measure: Levenshtein, MinSimilarity: 0.8},
		TinyWords:   12,
		Long:        Rule{MaxDistance: 6, Measure: Jaccard, MinSimilarity: 0.5},
	}
}

// Validate reports whether p is usable.
func (p Policy) Validate() error {
	if p.ShortLength < 0 {
		return fmt.Errorf("neardup: policy short length %d is negative", p.ShortLength)
	}
	if p.TinyLength < 0 || p.TinyLength > p.ShortLength {
		return fmt.Errorf("neardup: policy tiny length %d out of range [0, short length %d]", p.TinyLength, p.ShortLength)
	}
	if p.TinyWords < 0 || p.TinyWords > maxTinyWords || p.TinyWords > 0 && p.TinyWords < minTinyWords {
		// Texts of fewer than minTinyWords words never count: 1 to 3
		// would be 0 under another name.
		return fmt.Errorf("neardup: policy tiny words %d out of range: want 0 (off) or %d to %d", p.TinyWords, minTinyWords, maxTinyWords)
	}
	rules := []struct {
		name string
		r    Rule
	}{{"short", p.Short}, {"long", p.Long}}
	if p.TinyLength > 0 {
		rules = append(rules, struct {
			name string
			r    Rule
		}{"tiny", p.Tiny})
	}
	for _, r := range rules {
		if r.r.MaxDistance < 0 || r.r.MaxDistance > 32 {
			return fmt.Errorf("neardup: policy %s max distance %d out of range [0, 32]", r.name, r.r.MaxDistance)
		}
		switch r.r.Measure {
		case Jaccard, Cosine, Levenshtein:
		case "":
			// A Policy filled in part: only the zero one takes the
			// defaults.
			return fmt.Errorf("neardup: policy %s rule unset (no measure): a Policy given must set every rule; start from DefaultPolicy() and change what differs", r.name)
		default:
			return fmt.Errorf("neardup: policy %s measure %q unknown (want jaccard, cosine or levenshtein)", r.name, r.r.Measure)
		}
		if !(r.r.MinSimilarity >= 0 && r.r.MinSimilarity <= 1) {
			return fmt.Errorf("neardup: policy %s min similarity %v out of range [0, 1]", r.name, r.r.MinSimilarity)
		}
	}
	return nil
}

// maxTinyWords is the largest Policy.TinyWords.
const maxTinyWords = 64

// minTinyWords is the fewest words of a text that Policy.TinyWords counts:
// the texts of fewer words a word apart are too many (every two texts of
// one word are), and their deletion keys too common, for a candidate
// source. At 3 the policy found 81.2% of the one-edit copies of STS-B
// sentences of 4 to 7 words, at 4 81.0%, at 5 79.9% (docs/EVALUATION.md,
// "Deletion keys for tiny texts").
const minTinyWords = 4

// scale returns the distance bound for fingerprints of the given width
// of d, a bound for 64-bit fingerprints: d at 64 bits, 2d at 128.
func scale(d, bits int) int {
	if bits <= 64 {
		return d
	}
	return d * bits / 64
}

// rule returns the rule for a pair of texts of n and m runes.
func (p Policy) rule(n, m int) Rule {
	r, _ := p.RuleFor(n, m)
	return r
}

// The names of a Policy's rules, as RuleFor gives them.
const (
	RuleTiny  = "tiny"
	RuleShort = "short"
	RuleLong  = "long"
)

// RuleFor returns the rule that judges a pair of texts of n and m
// normalized runes, in either order, and its name: Tiny (RuleTiny) when
// the shorter is under TinyLength and the longer under TinyCap, Short
// (RuleShort) when they are under ShortLength and ShortCap, Long
// (RuleLong) otherwise.
func (p Policy) RuleFor(n, m int) (r Rule, name string) {
	c := p.class(n, m)
	return p.ruleOf(c), [...]string{RuleTiny, RuleShort, RuleLong}[c]
}

// ruleOf returns the rule of the class of pairs c.
func (p Policy) ruleOf(c int) Rule {
	switch c {
	case classTiny:
		return p.Tiny
	case classShort:
		return p.Short
	}
	return p.Long
}

// OneWordApart reports whether the texts whose sketches are a and b, of 4
// to TinyWords words each, are one word apart (similarity.OneWordApart):
// when they are a tiny pair, the Tiny rule judges them whatever their
// distance.
func (p Policy) OneWordApart(a, b *similarity.Sketch) bool {
	if p.TinyWords == 0 {
		return false
	}
	wa := a.Words(nil, p.TinyWords)
	if len(wa) > p.TinyWords || len(wa) < minTinyWords {
		return false
	}
	wb := b.Words(nil, p.TinyWords)
	return len(wb) <= p.TinyWords && len(wb) >= minTinyWords && similarity.OneWordApart(wa, wb)
}

// The classes of pairs, one for each rule, as class gives them.
const (
	classTiny = iota
	classShort
	classLong
)

// class returns the class of a pair of texts of n and m normalized runes
// (see RuleFor).
func (p Policy) class(n, m int) int {
	lo, hi := min(n, m), max(n, m)
	switch {
	case lo < p.TinyLength && hi < p.TinyCap():
		return classTiny
	case lo < p.ShortLength && hi < p.ShortCap():
		return classShort
	}
	return classLong
}

// ShortCap is the length under which a text may be judged by the Short
// (or Tiny) rule, paired with a shorter one: ShortLength and a quarter.
func (p Policy) ShortCap() int { return p.ShortLength + p.ShortLength/4 }

// TinyCap is ShortCap for the Tiny rule: TinyLength and a quarter.
func (p Policy) TinyCap() int { return p.TinyLength + p.TinyLength/4 }

// MaxDistanceAt returns r's distance bound for fingerprints of the given
// width: MaxDistance at 64 bits, scaled in proportion to wider ones.
func (r Rule) MaxDistanceAt(bits int) int { return scale(r.MaxDistance, bits) }

// ToldApartBy returns what tells apart the texts whose sketches are a and
// b, whatever their scores: "numbers" when DistinctNumbers is set and
// their numbers differ (similarity.SameNumbers), "negation" when
// DistinctNegation is set and their words of negation differ
// (similarity.SameNegation), "" otherwise. Verify turns down a pair its
// measure passes when it is not "".
func (p Policy) ToldApartBy(a, b *similarity.Sketch) string {
	switch {
	case p.DistinctNumbers && !similarity.SameNumbers(a.Runes, b.Runes):
		return "numbers"
	case p.DistinctNegation && !similarity.SameNegation(a.Runes, b.Runes):
		return "negation"
	}
	return ""
}

// maxEditRunes is the longest text for which Verify computes the
// Levenshtein ratio when the rule judges by another measure.
const maxEditRunes = 2000

// Verify decides whether two texts, whose sketches are a and b and whose
// bits-wide fingerprints are distance bits apart, are near-duplicates. It
// returns the decision, the score of the rule's measure, and the scores.
// When a or b is nil (texts not kept) it decides by distance alone, taking
// the pair as long unless both are known to be short, and returns
// sim = 1 - distance/bits and zero scores.
//
// A pair farther apart than the rule's distance is turned down on that
// alone, with sim 0 and zero scores, but for a tiny pair one word apart
// (Policy.TinyWords). With DistinctNumbers, a pair whose measure passes
// but whose numbers differ is turned down, with that sim; with
// DistinctNegation, likewise a pair whose words of negation differ. Only the rule's measure is computed
// for a pair within it that the measure turns down (the other scores are
// 0); a duplicate gets every score, except that
// Scores.Levenshtein is left 0, with LevenshteinSkipped set, for pairs
// whose longer text exceeds 2,000 runes unless the rule's measure is
// Levenshtein: edit distance is the costly measure.
func (p Policy) Verify(a, b *similarity.Sketch, distance, bits int) (dup bool, sim float64, s Scores) {
	return p.verify(a, b, distance, bits, true, true, nil)
}

// Decide is Verify for callers that need only the decision and sim: it
// computes the rule's measure alone, so a duplicate costs what a pair
// turned down does. The other measures, edit distance above all, can cost
// more than the rest of a check.
func (p Policy) Decide(a, b *similarity.Sketch, distance, bits int) (dup bool, sim float64) {
	dup, sim, _ = p.verify(a, b, distance, bits, true, false, nil)
	return dup, sim
}

// verify is Verify. Without exact, a pair the Levenshtein measure turns
// down may stop its edit distance as soon as it exceeds what MinSimilarity
// allows, so its sim (and Scores.Levenshtein) is then an upper bound on
// the ratio, still below MinSimilarity: the engine needs the decision
// only, and unrelated short texts within the Short rule's distance are
// most of what it verifies. Without all, a duplicate gets the rule's
// measure only, like a pair turned down. aSet, if not nil, returns a's
// GramSet, for a caller that compares a with many texts.
func (p Policy) verify(a, b *similarity.Sketch, distance, bits int, exact, all bool, aSet func() *similarity.GramSet) (dup bool, sim float64, s Scores) {
	if bits <= 0 {
		bits = 64
	}
	if a == nil || b == nil {
		r := p.Long // unknown length: judge as long
		return distance <= scale(r.MaxDistance, bits), 1 - float64(distance)/float64(bits), Scores{}
	}
	n := max(a.Len(), b.Len())
	class := p.class(a.Len(), b.Len())
	r := p.ruleOf(class)
	if distance > scale(r.MaxDistance, bits) && !(class == classTiny && p.OneWordApart(a, b)) {
		return false, 0, Scores{}
	}
	switch r.Measure {
	case Jaccard:
		s.Jaccard = jaccard(a, b, aSet)
		sim = s.Jaccard
	case Cosine:
		s.Cosine = a.Cosine(b)
		sim = s.Cosine
	default:
		if exact || r.MinSimilarity <= 0 {
			s.Levenshtein = similarity.EditRatio(a, b)
		} else {
			s.Levenshtein = similarity.EditRatioAtLeast(a, b, r.MinSimilarity)
		}
		sim = s.Levenshtein
	}
	if sim < r.MinSimilarity {
		return false, sim, s
	}
	if p.ToldApartBy(a, b) != "" {
		return false, sim, s
	}
	if !all {
		return true, sim, s
	}
	if r.Measure != Jaccard {
		s.Jaccard = jaccard(a, b, aSet)
	}
	if r.Measure != Cosine {
		s.Cosine = a.Cosine(b)
	}
	if r.Measure != Levenshtein {
		if n <= maxEditRunes {
			s.Levenshtein = similarity.EditRatio(a, b)
		} else {
			s.LevenshteinSkipped = true
		}
	}
	return true, sim, s
}

// jaccard returns the Jaccard similarity of the shingle sets of a and b,
// through a's GramSet when aSet gives it: the same number, without sorting
// b's set.
func jaccard(a, b *similarity.Sketch, aSet func() *similarity.GramSet) float64 {
	if aSet != nil {
		return aSet().Jaccard(b)
	}
	return similarity.Jaccard(a.Shingles(), b.Shingles())
}

// identical is verify for two texts that are the same bytes, of n
// normalized runes: every measure is 1, so no sketch is needed. As verify
// does, it leaves Scores.Levenshtein 0 beyond maxEditRunes unless that is
// the rule's measure, and without all it gives the rule's measure only.
func (p Policy) identical(n int, all bool) (dup bool, sim float64, s Scores) {
	r := p.rule(n, n)
	switch {
	case all:
		s = Scores{Jaccard: 1, Cosine: 1}
		if r.Measure == Levenshtein || n <= maxEditRunes {
			s.Levenshtein = 1
		} else {
			s.LevenshteinSkipped = true
		}
	case r.Measure == Jaccard:
		s.Jaccard = 1
	case r.Measure == Cosine:
		s.Cosine = 1
	default:
		s.Levenshtein = 1
	}
	return r.MinSimilarity <= 1, 1, s
}
