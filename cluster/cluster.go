// Package cluster groups near-duplicate documents: union-find over the
// pairs a fingerprint search found, with the earliest document of each
// group as its representative, and optional verification so that a chain
// of weak links cannot pull unrelated documents into one group.
//
//	groups := cluster.Build(n, pairs, cluster.Options{})
package cluster

import (
	"cmp"
	"slices"
)

// UnionFind is a disjoint-set forest over the items 0..n-1. The root of
// every set is its smallest item, so Find returns the earliest member.
// It is not safe for concurrent use.
type UnionFind struct {
	parent []int32
}

// New returns a UnionFind of n singleton sets. It panics if n is
// negative.
func New(n int) *UnionFind {
	u := &UnionFind{parent: make([]int32, n)}
	for i := range u.parent {
		u.parent[i] = int32(i)
	}
	return u
}

// Len returns the number of items.
func (u *UnionFind) Len() int { return len(u.parent) }

// Find returns the representative (smallest item) of i's set. It halves
// paths as it goes, so a sequence of operations costs nearly linear time.
// It panics unless 0 <= i < Len().
func (u *UnionFind) Find(i int) int {
	p := u.parent
	_ = p[i] // the bounds check, before int32 could wrap i into range
	x := int32(i)
	for p[x] != x {
		p[x] = p[p[x]]
		x = p[x]
	}
	return int(x)
}

// Union merges the sets of a and b and reports whether they were
// different. The merged set's representative is the smaller of the two.
// It panics, leaving the sets as they were, unless a and b are both in
// [0, Len()).
func (u *UnionFind) Union(a, b int) bool {
	ra, rb := u.Find(a), u.Find(b)
	if ra == rb {
		return false
	}
	if ra > rb {
		ra, rb = rb, ra
	}
	// Linking the larger root under the smaller keeps roots minimal; path
	// halving keeps the trees shallow without union by rank.
	u.parent[rb] = int32(ra)
	return true
}

// Pair is a near-duplicate pair of items with their Hamming distance.
type Pair struct {
	A, B     int
	Distance int
}

// Group is a set of two or more items; Representative is the earliest
// (smallest) and Members lists all of them, sorted, representative first.
type Group struct {
	Representative int
	Members        []int
}

// Options configure Build. The zero value joins every pair.
type Options struct {
	// Verify, if set, must accept a pair for it to join (for example a
	// similarity check of the two texts). It is called at most once per
	// pair, plus once per merge when Strict is set.
	Verify func(a, b int) bool
	// Strict also requires Verify to accept the representatives of the
	// two groups a pair would merge, so a group cannot grow through a
	// chain of items each close to the next but not to the first. It has
	// no effect without Verify.
	Strict bool
}

// Build groups n items by the given pairs and returns the groups of two
// or more, ordered by representative. Pairs are considered closest first
// (then in the order given), so with Strict the strongest links decide
// the groups. It does not modify pairs. It panics if n is negative, and
// skips pairs whose items are not in [0, n).
func Build(n int, pairs []Pair, opts Options) []Group {
	u := New(n)
	order := make([]int, len(pairs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(pairs[i].Distance, pairs[j].Distance) })
	for _, i := range order {
		p := pairs[i]
		if p.A == p.B || p.A < 0 || p.B < 0 || p.A >= n || p.B >= n {
			continue
		}
		ra, rb := u.Find(p.A), u.Find(p.B)
		if ra == rb {
			continue
		}
		if opts.Verify != nil {
			if !opts.Verify(p.A, p.B) {
				continue
			}
			if opts.Strict && (ra != p.A || rb != p.B) && !(ra == p.B && rb == p.A) && !opts.Verify(ra, rb) {
				continue
			}
		}
		u.Union(ra, rb)
	}
	return u.Groups(2)
}

// Groups returns the sets of at least minSize items, each sorted, ordered
// by representative.
func (u *UnionFind) Groups(minSize int) []Group {
	byRoot := make(map[int]int) // root -> index in out
	var out []Group
	for i := range u.parent {
		r := u.Find(i)
		gi, ok := byRoot[r]
		if !ok {
			gi = len(out)
			byRoot[r] = gi
			out = append(out, Group{Representative: r})
		}
		out[gi].Members = append(out[gi].Members, i)
	}
	kept := out[:0]
	for _, g := range out {
		if len(g.Members) >= max(minSize, 1) {
			kept = append(kept, g)
		}
	}
	return kept
}
