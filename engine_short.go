package neardup

import (
	"math"

	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/similarity"
)

// shortIndex holds the fingerprints of short texts for the Short rule's
// wider distance, each tagged with its length as the rules count it
// (Engine.normalizedRunes; index.Entry.Tag), so that a query drops the
// candidates whose length rules them out before they are verified.
//
// The Short rule's default measure bounds the lengths of the pairs it can
// accept: a Levenshtein ratio (1 - edits / longer length) of at least r
// needs at least longer - shorter edits, so the shorter text has about r
// times the runes of the longer or more. A candidate of another length
// would be turned down only after its text was read and compared. Texts
// whose length so counted reaches the Policy's ShortCap are not held at
// all: any pair with one of them is judged by the Long rule, whose
// candidates the Long rule's indexes find (see Engine.long). Those from
// ShortLength up to ShortCap are held for their pairs with shorter
// texts, which the Short rule judges.
//
// Tag 0 means the length is unknown (records stored before lengths were,
// or before they were counted as now, see editLengthsMeta, or lengths
// beyond a tag): such candidates are always kept. With a Short
// rule that bounds no length ratio (another measure, or MinSimilarity 0)
// no candidate is dropped.
//
// Splitting the texts by length into several indexes instead, so that a
// query visits only the lengths it may match, was tried: on the texts of
// BenchmarkShortIndexQuery (20 to 500 bytes), 25 classes each a length
// ratio wide took 38 µs a query at 300k texts against 55 µs for one
// index, where each class visited is scanned from cache, but 190 against
// 116 µs at 1M and 175 against 131 µs at 2M, where each class visited pays
// the probes of its own tables. Classes twice as wide did worse at all
// three sizes.
type shortIndex struct {
	ix *index.Index
	// limit is the Policy's ShortCap: texts of that length or more are not
	// held, being judged by the Long rule against any other text.
	limit int
	// near is the Long rule's distance, at the engine's width: matches
	// within it are kept whatever their length.
	near int
	// policy chooses the rule of a pair (Policy.class); bounds are the
	// rules' by class (the long rule's: near, no length bound).
	policy Policy
	bounds [classLong + 1]lengthRule
	// halves is 1 at 64 bits, 2 at 128, where the index holds one half of
	// each fingerprint and is queried at half the distance (see
	// Engine.long).
	halves int
}

// lengthRule is what the short index needs of one rule: its distance at
// the engine's width, and its smallest Levenshtein ratio (0: the rule
// bounds no length ratio).
type lengthRule struct {
	k     int
	ratio float64
}

// ruleBounds returns r's lengthRule at the given width.
func ruleBounds(r Rule, bits int) lengthRule {
	b := lengthRule{k: scale(r.MaxDistance, bits)}
	if r.Measure == Levenshtein {
		b.ratio = r.MinSimilarity
	}
	return b
}

// shortSizes are the short-text index's designs by size (see
// newShortIndex).
var shortSizes = []index.SizedDesign{
	{UpTo: shortSmallUpTo, Design: index.Design{Levels: []index.Level{{Blocks: 5, Key: 1}}}},
	{UpTo: math.MaxInt32, Design: index.Seed4x16()},
}

// shortSmallUpTo is the size of the last full rebuild of the short-text
// index that takes 5/1: the index grows by a quarter before the next, so
// 5/1 serves up to about a million entries.
const shortSmallUpTo = 800_000

// newShortIndex returns the short-text index for policy p and
// fingerprints of the given width (of which it holds 64 bits), sized for
// expected entries. It has the seeds' four tables of 16-bit blocks, kept
// Wide, so that a query at the Short rule's distance (10 bits by default,
// beyond what any table design answers by exact keys at a sane number of
// tables: SimHash fingerprints of real texts cluster, so a table's bucket
// holds far more than its share) probes every key within 2 bits of its
// own in three tables and within 1 bit in the fourth (multi-index
// hashing, see the index package) once that is cheaper than a linear scan
// of the stored fingerprints. Measured with `neardup bench index --data
// text -k 10 --table-k 3 --design 4/1 --wide`: 50 µs a query at 300k
// entries and 100 µs at 1M, against 71 and 400 µs for the scan, which
// stays the choice below about 200k entries. It costs about 40 bytes an
// entry more than the scan alone.
//
// Up to shortSmallUpTo entries it has five tables of 12- and 13-bit
// blocks instead (5/1: radii 2, 1, 1, 1, 1, 147 bucket lookups against
// 428), which took 20-35% less CPU a query up to 600k entries and about
// as much at 1M; from about 1.5M the seeds' design is as cheap in
// batches and cheaper alone, and its longer keys crowd less as the index
// grows (docs/PERFORMANCE.md, HTTP service, "Twelfth pass").
//
// Tiny texts (Policy.TinyLength) are held with the others, and a tiny
// text's query searches the Tiny rule's distance, dropping the matches
// that are not tiny beyond the Short rule's: one index, so that the
// pairs of a tiny and a short text are found as before.
func newShortIndex(p Policy, bits, expected int) (*shortIndex, error) {
	ix, err := index.New(index.Options{K: 3, ExpectedN: expected, Wide: true, Sizes: shortSizes})
	if err != nil {
		return nil, err
	}
	near := scale(p.Long.MaxDistance, bits)
	s := &shortIndex{ix: ix, limit: p.ShortCap(), near: near, policy: p, halves: max(1, bits/64)}
	s.bounds[classShort], s.bounds[classLong] = ruleBounds(p.Short, bits), lengthRule{k: near}
	if p.TinyLength > 0 {
		s.bounds[classTiny] = ruleBounds(p.Tiny, bits)
	}
	return s, nil
}

// tag returns the tag of a text of n normalized runes: n, or 0 (unknown)
// when n is not positive or does not fit.
func tag(n int) uint16 {
	if n <= 0 || n > math.MaxUint16 {
		return 0
	}
	return uint16(n)
}

// rule returns the bounds of the rule that judges a pair of texts of n
// and m normalized runes (Policy.RuleFor).
func (s *shortIndex) rule(n, m int) lengthRule {
	return s.bounds[s.policy.class(n, m)]
}

// radius returns the distance, at the engine's width, that a query for
// a text of n normalized runes searches: the Short rule's, the Tiny
// rule's too for a text that may be in a tiny pair (under TinyCap), and
// never less than the Long rule's (see query).
func (s *shortIndex) radius(n int) int {
	k := max(s.bounds[classShort].k, s.near)
	if n > 0 && n < s.policy.TinyCap() {
		k = max(k, s.bounds[classTiny].k)
	}
	return k
}

// fits reports whether a text of n normalized runes may be a duplicate
// of a stored text tagged t by the length bound of their pair's rule:
// the difference of their lengths is at most the edits the rule's ratio
// allows the longer one (similarity.MaxEdits, as verification counts them), with
// one edit of slack against rounding.
func (s *shortIndex) fits(n int, t uint16) bool {
	if t == 0 || n <= 0 {
		return true
	}
	m := int(t)
	long := max(n, m)
	r := s.rule(n, m)
	return r.ratio <= 0 || long-min(n, m) <= similarity.MaxEdits(long, r.ratio)+1
}

// add holds e, the fingerprint of a text of n normalized runes (0:
// unknown), unless the text is too long for the Short rule.
func (s *shortIndex) add(e index.Entry, n int) {
	if n < s.limit {
		e.Tag = tag(n)
		s.ix.Add(e)
	}
}

// addBatch is add for every es[i], of length ns[i].
func (s *shortIndex) addBatch(es []index.Entry, ns []int) {
	held := make([]index.Entry, 0, len(es))
	for i, e := range es {
		if ns[i] < s.limit {
			e.Tag = tag(ns[i])
			held = append(held, e)
		}
	}
	s.ix.AddBatch(held)
}

// query appends to dst the entries within radius(n) of q that a text of
// n normalized runes may be a duplicate of (keeps), and those within the
// Long rule's distance, which the short index alone holds (see
// Engine.long): the most nearest of them, by distance then sequence
// number (most <= 0: all).
func (s *shortIndex) query(q uint64, n, most int, dst []index.Match) []index.Match {
	if n >= s.limit {
		return dst // judged by the Long rule against any text
	}
	return s.ix.QueryNearest(q, s.radius(n)/s.halves, atMost(most), func(m index.Match) bool { return s.keeps(n, m) }, dst)
}

// keeps reports whether m, a match found for a text of n normalized
// runes, may be a duplicate of it: within the Long rule's distance, or
// of a length that may pass its pair's rule (fits) and within that
// rule's distance (the Short rule's for a tiny text and one more than a
// quarter longer, the Long rule's for two texts of ShortLength or more).
// A match of unknown length (tag 0) is kept. keeps accepts a match at
// any smaller distance than one it accepts, as roleWide needs.
func (s *shortIndex) keeps(n int, m index.Match) bool {
	if m.Distance <= s.near {
		return true
	}
	if m.Tag == 0 || n <= 0 {
		return true
	}
	return s.fits(n, m.Tag) && m.Distance <= s.rule(n, int(m.Tag)).k
}

// atMost returns most, or the largest int when most <= 0.
func atMost(most int) int {
	if most <= 0 {
		return math.MaxInt
	}
	return most
}

// queryBatch is query for every qs[i], of length ns[i]: out[i] holds its
// matches, possibly none. The index answers them together
// (index.QueryBatchNearest), in one call for each radius.
func (s *shortIndex) queryBatch(qs []uint64, ns []int, most int) [][]index.Match {
	out := make([][]index.Match, len(qs))
	type group struct {
		qs []uint64
		at []int
	}
	var groups []group
	radii := map[int]int{} // radius to its group
	for i, n := range ns {
		if n >= s.limit {
			continue
		}
		r := s.radius(n)
		g, ok := radii[r]
		if !ok {
			g = len(groups)
			radii[r] = g
			groups = append(groups, group{})
		}
		groups[g].qs, groups[g].at = append(groups[g].qs, qs[i]), append(groups[g].at, i)
	}
	for _, g := range groups {
		keep := func(j int, m index.Match) bool { return s.keeps(ns[g.at[j]], m) }
		for j, ms := range s.ix.QueryBatchNearest(g.qs, s.radius(ns[g.at[0]])/s.halves, atMost(most), keep) {
			out[g.at[j]] = ms
		}
	}
	return out
}

// normalizedRunes returns the length in runes of text as the Policy's
// rules measure it: normalized (analysis.Normalize), without punctuation
// and symbols (similarity.EditLen), the length of its sketch
// (similarity.Sketch.Len). It is 0 only for a text that normalizes to
// nothing.
func (e *Engine) normalizedRunes(text []byte) int {
	if n, ok := similarity.ASCIIEditLen(text); ok {
		return n
	}
	s, _ := e.normScratch.Get().(*normScratch)
	if s == nil {
		s = &normScratch{}
	}
	s.buf = s.s.Normalize(s.buf[:0], text)
	n := similarity.EditLen(s.buf)
	if cap(s.buf) > 1<<16 {
		s.buf = nil // a long text's buffer is not kept
	}
	e.normScratch.Put(s)
	return n
}

// punctuatedMax bounds, in Policy.ShortCap lengths, the texts of more
// runes than Engine.isShort takes whose length as the rules count it is
// measured (similarity.LenUnder), in case punctuation, symbols and white space
// make them short: a text of more runes is long whatever it holds (at the
// default ShortCap of 625, one of 3,125 runes or more).
const punctuatedMax = 5

// normScratch is what normalizedRunes keeps between calls.
type normScratch struct {
	s   analysis.Scratch
	buf []byte
}
