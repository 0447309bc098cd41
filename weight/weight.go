// Package weight gives the features of a document their weights before
// SimHash: term frequency, log term frequency, binary, or tf-idf with an
// IDF table that is built from a corpus, saved and loaded, and optionally
// keeps only the top-N heaviest features (keyword extraction in the manner
// of jieba's TF-IDF).
//
//	terms = weight.Count(terms)             // merge repeats, set Count
//	weight.TFIDF.Apply(terms, idf)          // set Weight
//	terms = weight.Top(terms, 20)           // keep 20 keywords
package weight

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Scheme names a weighting of features by their counts.
type Scheme string

// The weighting schemes. The weight of a feature seen count times is:
const (
	TF     Scheme = "tf"     // count
	LogTF  Scheme = "logtf"  // 1 + ln(count)
	Binary Scheme = "binary" // 1
	TFIDF  Scheme = "tfidf"  // count * idf(feature)
)

// Schemes returns the names of the weighting schemes.
func Schemes() []Scheme { return []Scheme{TF, LogTF, Binary, TFIDF} }

// Validate returns an error unless s is one of the schemes.
func (s Scheme) Validate() error {
	if slices.Contains(Schemes(), s) {
		return nil
	}
	return fmt.Errorf("weight: unknown scheme %q (want tf, logtf, binary or tfidf)", string(s))
}

// Term is one distinct feature of a document: its hash (Hi is 0 for 64-bit
// fingerprints), the key its IDF is looked up by (the 64-bit feature hash),
// how often it occurs, and its weight.
type Term struct {
	Hi, Lo uint64
	Key    uint64
	Count  int32
	Weight float64
}

// Count sorts terms by hash and merges the repeats of each feature into one
// Term whose Count is the sum of theirs (a Term's Count of 0 counts as 1).
// It works in place and returns the shortened slice.
func Count(terms []Term) []Term {
	if len(terms) == 0 {
		return terms
	}
	slices.SortFunc(terms, func(a, b Term) int {
		if c := cmp.Compare(a.Hi, b.Hi); c != 0 {
			return c
		}
		return cmp.Compare(a.Lo, b.Lo)
	})
	out := terms[:1]
	out[0].Count = max(out[0].Count, 1)
	for _, t := range terms[1:] {
		last := &out[len(out)-1]
		if t.Hi == last.Hi && t.Lo == last.Lo {
			last.Count += max(t.Count, 1)
			continue
		}
		t.Count = max(t.Count, 1)
		out = append(out, t)
	}
	return out
}

// Weight returns the weight of a feature seen count times (count < 1
// counts as 1) whose IDF is idf (used by TFIDF only).
func (s Scheme) Weight(count int, idf float64) float64 {
	c := float64(max(count, 1))
	switch s {
	case LogTF:
		return 1 + math.Log(c)
	case Binary:
		return 1
	case TFIDF:
		return c * idf
	}
	return c
}

// Apply sets the Weight of every term by the scheme s. idf is used by
// TFIDF only; a nil idf there counts every IDF as 1 (plain tf).
func (s Scheme) Apply(terms []Term, idf *IDF) {
	for i := range terms {
		v := 1.0
		if s == TFIDF {
			v = idf.Lookup(terms[i].Key)
		}
		terms[i].Weight = s.Weight(int(terms[i].Count), v)
	}
}

// Top keeps the n heaviest terms (all of them when n <= 0 or n >= len):
// ties are broken by hash, so the choice is deterministic. It reorders terms
// in place and returns the kept prefix.
func Top(terms []Term, n int) []Term {
	if n <= 0 || n >= len(terms) {
		return terms
	}
	slices.SortFunc(terms, func(a, b Term) int {
		if c := cmp.Compare(b.Weight, a.Weight); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Hi, b.Hi); c != 0 {
			return c
		}
		return cmp.Compare(a.Lo, b.Lo)
	})
	return terms[:n]
}
