package neardup

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/index"
)

// shortIndex holds the fingerprints of short texts for the Short rule's
// wider distance, split into classes by the length of the normalized text.
//
// The Short rule's default measure bounds the lengths of the pairs it can
// accept: a Levenshtein ratio (1 - edits / longer length) of at least r
// needs at least longer - shorter edits, so the shorter text has at least
// r times the runes of the longer. A query then visits only the classes
// of lengths within that ratio of its own, and a candidate of another
// length, which verification would turn down after reading its text, is
// never found. Texts whose normalized length reaches the Policy's
// ShortLength are not held at all: any pair with one of them is judged by
// the Long rule, whose candidates the index of all texts finds.
//
// Texts of unknown length (records stored before lengths were) go to one
// more class, which every query visits. With a Short rule that bounds no
// length ratio (another measure, or MinSimilarity 0) there is a single
// class of known lengths.
type shortIndex struct {
	lows    []int          // class i holds lengths lows[i] .. lows[i+1]-1; the last one up to limit-1
	limit   int            // the Policy's ShortLength: longer texts are not held
	ratio   float64        // the smallest length ratio of an acceptable pair; 0: no bound
	classes []*index.Index // one per lows entry, then the class of unknown length
}

// minClassGrowth bounds how finely lengths are split when the length
// ratio is close to 1, so that a query visits a bounded number of classes.
const minClassGrowth = 1.125

// newShortIndex returns the short-text index for policy p with expected
// entries in all. Each class has the seeds' four tables of 16-bit blocks,
// kept Wide, so that a query at the Short rule's distance (10 bits by
// default, beyond what any table design answers by exact keys at a sane
// number of tables: SimHash fingerprints of real texts cluster) probes
// every key within 2 bits of its own in three tables and within 1 bit in
// the fourth (multi-index hashing, see the index package) once that is
// cheaper than a linear scan of the class. Measured on one class with
// `neardup bench index --data text -k 10 --table-k 3 --design 4/1 --wide`:
// 50 µs a query at 300k entries and 100 µs at 1M, against 71 and 400 µs
// for the scan, which stays the choice below about 200k entries. It costs
// about 40 bytes an entry more than the scan alone.
func newShortIndex(p Policy, expected int) (*shortIndex, error) {
	s := &shortIndex{limit: p.ShortLength, lows: []int{1}}
	if p.Short.Measure == Levenshtein && p.Short.MinSimilarity > 0 {
		s.ratio = p.Short.MinSimilarity
		// A class spans the ratio once, so a query, which takes in lengths
		// within the ratio either way, visits three classes. Classes twice
		// as wide (two visited) cost 7-12% more CPU on short texts of
		// spread lengths (`neardup bench engine --docs 300000
		// --min-text-bytes 20 --text-bytes 500`): the classes visited hold
		// more of the texts. They cost less when nearly all texts have one
		// length, which then falls in fewer classes.
		growth := max(1/s.ratio, minClassGrowth)
		for {
			lo := s.lows[len(s.lows)-1]
			next := max(lo+1, int(math.Ceil(float64(lo)*growth)))
			if next >= s.limit {
				break
			}
			s.lows = append(s.lows, next)
		}
	}
	per := max(expected/len(s.lows), 1)
	for range len(s.lows) + 1 {
		ix, err := index.New(index.Options{K: 3, ExpectedN: per, Design: index.Seed4x16(), Wide: true})
		if err != nil {
			return nil, err
		}
		s.classes = append(s.classes, ix)
	}
	return s, nil
}

// unknown is the class of texts of unknown length.
func (s *shortIndex) unknown() int { return len(s.classes) - 1 }

// classOf returns the class of a text of n runes, normalized: the class of
// unknown length for n <= 0, and -1 when the text is too long to be held.
func (s *shortIndex) classOf(n int) int {
	switch {
	case n <= 0:
		return s.unknown()
	case n >= s.limit:
		return -1
	}
	// The classes are few (25 at the default policy): a linear search
	// from the top is as fast as a binary one.
	i := len(s.lows) - 1
	for s.lows[i] > n {
		i--
	}
	return i
}

// span returns the classes of known length, first to last, whose texts a
// text of n normalized runes may be a Short-rule duplicate of; first >
// last when there are none. A length ratio is taken with one rune of slack
// each way, against rounding.
func (s *shortIndex) span(n int) (first, last int) {
	if n <= 0 {
		return 0, s.unknown() - 1 // unknown length: every class
	}
	if n >= s.limit {
		return 0, -1 // judged by the Long rule against any text
	}
	if s.ratio == 0 {
		return 0, 0
	}
	lo := int(math.Floor(s.ratio*float64(n))) - 1
	hi := int(math.Ceil(float64(n)/s.ratio)) + 1
	first = s.classOf(max(lo, 1))
	if hi >= s.limit {
		return first, s.unknown() - 1
	}
	return first, s.classOf(hi)
}

// add holds e, the fingerprint of a text of n normalized runes.
func (s *shortIndex) add(e index.Entry, n int) {
	if c := s.classOf(n); c >= 0 {
		s.classes[c].Add(e)
	}
}

// addBatch holds es[i], the fingerprint of a text of ns[i] normalized
// runes, for every i.
func (s *shortIndex) addBatch(es []index.Entry, ns []int) {
	by := make([][]index.Entry, len(s.classes))
	for i, e := range es {
		if c := s.classOf(ns[i]); c >= 0 {
			by[c] = append(by[c], e)
		}
	}
	for c, es := range by {
		if len(es) > 0 {
			s.classes[c].AddBatch(es)
		}
	}
}

// remove drops the entry with the given id from whichever class holds it.
func (s *shortIndex) remove(id uint64) {
	for _, ix := range s.classes {
		if ix.Remove(id) {
			return
		}
	}
}

// expireBefore drops every entry of a time before t.
func (s *shortIndex) expireBefore(t int64) {
	for _, ix := range s.classes {
		ix.ExpireBefore(t)
	}
}

// len returns the number of entries held.
func (s *shortIndex) len() int {
	n := 0
	for _, ix := range s.classes {
		n += ix.Len()
	}
	return n
}

// query appends to dst the entries within k bits of q that a text of n
// normalized runes may be a Short-rule duplicate of.
func (s *shortIndex) query(q uint64, n, k int, dst []index.Match) []index.Match {
	if n >= s.limit {
		return dst // judged by the Long rule against any text
	}
	first, last := s.span(n)
	for c := first; c <= last; c++ {
		dst = s.classes[c].Query(q, k, dst)
	}
	if u := s.classes[s.unknown()]; u.Len() > 0 {
		dst = u.Query(q, k, dst)
	}
	return dst
}

// queryBatch is query for every qs[i] with length ns[i]: out[i] holds its
// matches (nil when there are none). Each class is scanned or probed once
// for all the queries that visit it (index.QueryBatch).
func (s *shortIndex) queryBatch(qs []uint64, ns []int, k int) [][]index.Match {
	out := make([][]index.Match, len(qs))
	by := make([][]int, len(s.classes)) // the queries visiting each class
	for i, n := range ns {
		if n >= s.limit {
			continue // judged by the Long rule against any text
		}
		first, last := s.span(n)
		for c := first; c <= last; c++ {
			by[c] = append(by[c], i)
		}
		by[s.unknown()] = append(by[s.unknown()], i)
	}
	var cqs []uint64
	for c, at := range by {
		ix := s.classes[c]
		switch {
		case len(at) == 0 || ix.Len() == 0:
		case len(at) == 1:
			out[at[0]] = ix.Query(qs[at[0]], k, out[at[0]])
		default:
			cqs = cqs[:0]
			for _, i := range at {
				cqs = append(cqs, qs[i])
			}
			for j, ms := range ix.QueryBatch(cqs, k) {
				out[at[j]] = append(out[at[j]], ms...)
			}
		}
	}
	return out
}

// snapshotNames returns the names of the classes' snapshot files, which
// tell the classes' lengths, so that a snapshot written under another
// policy is not taken for this one's.
func (s *shortIndex) snapshotNames() []string {
	names := make([]string, len(s.classes))
	for c := range s.lows {
		hi := s.limit
		if c+1 < len(s.lows) {
			hi = s.lows[c+1]
		}
		names[c] = "short-" + strconv.Itoa(s.lows[c]) + "-" + strconv.Itoa(hi)
	}
	names[s.unknown()] = "short-unknown"
	return names
}

// normBuf is scratch space for normalizedRunes.
type normBuf struct {
	s analysis.Scratch
	b []byte
}

// normalizedRunes returns the length in runes of text once normalized
// (analysis.Normalize), which is the length the Policy's rules measure.
func (e *Engine) normalizedRunes(text []byte) int {
	nb, _ := e.normScratch.Get().(*normBuf)
	if nb == nil {
		nb = &normBuf{}
	}
	nb.b = nb.s.Normalize(nb.b[:0], text)
	n := utf8.RuneCount(nb.b)
	e.normScratch.Put(nb)
	return n
}
