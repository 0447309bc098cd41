// Package similarity measures how alike two texts are, for confirming the
// candidates a fingerprint index returns: Jaccard over shingle sets, cosine
// over sparse term vectors, and Levenshtein distance over runes, each also
// as a ratio from 0 (nothing shared) to 1 (identical).
//
// The low-level measures take prepared inputs (sorted sets, sorted sparse
// vectors, rune slices). A Sketch prepares all of them once per text, so a
// query can be verified against hundreds of candidates cheaply:
//
//	s := similarity.Compare(similarity.NewSketch(a), similarity.NewSketch(b))
package similarity

import "math"

// Jaccard returns |a ∩ b| / |a ∪ b| for two sets given as sorted slices
// without repeats. Two empty sets are identical and give 1; an empty set and
// a non-empty one give 0. The result is undefined for unsorted input.
func Jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := intersect(a, b)
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// intersect counts the elements common to the sorted sets a and b.
func intersect(a, b []uint64) int {
	n, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch x, y := a[i], b[j]; {
		case x < y:
			i++
		case x > y:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// Term is one dimension of a sparse vector: a feature key and its weight.
type Term struct {
	Key    uint64
	Weight float64
}

// Vector is a sparse vector: terms sorted by Key, each key at most once.
type Vector []Term

// Norm returns the Euclidean length of v.
func (v Vector) Norm() float64 {
	s := 0.0
	for _, t := range v {
		s += t.Weight * t.Weight
	}
	return math.Sqrt(s)
}

// Cosine returns the cosine of the angle between a and b: their dot product
// divided by the product of their lengths, in [0, 1] for non-negative
// weights. Two zero vectors give 1 (both texts are empty, so alike); a zero
// vector and a non-zero one give 0. A vector and itself give exactly 1: a
// cosine within 1e-14 of 1, where the rounding of the lengths leaves it, is
// given as 1.
func Cosine(a, b Vector) float64 {
	return cosine(a, b, a.Norm(), b.Norm())
}

// cosine is Cosine with the norms of a and b already known.
func cosine(a, b Vector, na, nb float64) float64 {
	if na == 0 || nb == 0 {
		if na == nb {
			return 1
		}
		return 0
	}
	dot, i, j := 0.0, 0, 0
	for i < len(a) && j < len(b) {
		switch x, y := a[i].Key, b[j].Key; {
		case x < y:
			i++
		case x > y:
			j++
		default:
			dot += a[i].Weight * b[j].Weight
			i++
			j++
		}
	}
	c := dot / (na * nb)
	// The product of the norms, each a rounded square root, misses the
	// dot product of identical vectors by a unit or two in the last place,
	// on either side of 1: a cosine that close to 1 is given as 1.
	if c > 1-cosineSlack {
		return 1
	}
	return c
}

// cosineSlack is how far under 1 a cosine is given as 1: about 45 units in
// the last place, where rounding leaves identical vectors 2 at most. Only
// vectors of thousands of repeats of a word that differ in one of them come
// nearer 1 without being parallel, and no threshold tells them apart.
const cosineSlack = 1e-14
