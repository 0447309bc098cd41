package similarity

import (
	"math/bits"
	"sync"
)

// A GramSet holds the shingle set of one text in a hash table, so that the
// Jaccard similarity of that text with many others costs one pass over the
// grams of each, where Jaccard of two Shingles sorts both sets. A GramSet
// is immutable once made and safe to share between goroutines.
type GramSet struct {
	slots []uint64 // the keys; 0 marks an empty slot
	shift uint     // a key's first slot is key >> shift
	zero  bool     // whether the key 0, which no slot can hold, is in the set
	n     int      // the number of keys
}

// NewGramSet returns the shingle set of s (the set s.Shingles returns).
func NewGramSet(s *Sketch) *GramSet {
	kp := gramScratch.Get().(*[]uint64)
	defer gramScratch.Put(kp)
	*kp = appendGrams((*kp)[:0], s.Runes)
	return newGramSet(*kp)
}

// newGramSet returns the set of keys, which may repeat.
func newGramSet(keys []uint64) *GramSet {
	size := tableSize(len(keys))
	g := &GramSet{slots: make([]uint64, size), shift: 64 - uint(bits.Len(uint(size-1)))}
	for _, k := range keys {
		if add(g.slots, g.shift, k, &g.zero) {
			g.n++
		}
	}
	return g
}

// Len returns the number of shingles in the set.
func (g *GramSet) Len() int { return g.n }

// Jaccard returns the Jaccard similarity of g and the shingle set of o,
// exactly as Jaccard(g's shingles, o.Shingles()) would, without making
// o's set: o's grams are counted once each, as found in g or not.
func (g *GramSet) Jaccard(o *Sketch) float64 {
	kp := gramScratch.Get().(*[]uint64)
	defer gramScratch.Put(kp)
	*kp = appendGrams((*kp)[:0], o.Runes)
	return g.jaccard(*kp)
}

// jaccard is Jaccard for the set of keys, which may repeat.
func (g *GramSet) jaccard(keys []uint64) float64 {
	// seen marks the slots of g whose keys o has; others holds o's keys
	// that g lacks, each once.
	sp := seenScratch.Get().(*[]uint64)
	defer seenScratch.Put(sp)
	seen := resize(sp, (len(g.slots)+63)/64)
	op := gramScratch.Get().(*[]uint64)
	defer gramScratch.Put(op)
	others := resize(op, tableSize(len(keys)))
	oshift := 64 - uint(bits.Len(uint(len(others))-1))
	mask := uint64(len(g.slots) - 1)
	inter, only := 0, 0
	zeroSeen, otherZero := false, false
	for _, k := range keys {
		if k == 0 {
			if g.zero && !zeroSeen {
				zeroSeen, inter = true, inter+1
			} else if !g.zero && add(others, oshift, 0, &otherZero) {
				only++
			}
			continue
		}
		i := k >> g.shift
		for {
			v := g.slots[i]
			if v == k {
				if seen[i/64]&(1<<(i%64)) == 0 {
					seen[i/64] |= 1 << (i % 64)
					inter++
				}
				break
			}
			if v == 0 {
				if add(others, oshift, k, nil) {
					only++
				}
				break
			}
			i = (i + 1) & mask
		}
	}
	// |g ∪ o| = |g| + |o| - |g ∩ o|, where |o| = inter + only.
	union := g.n + only
	if union == 0 {
		return 1 // two empty sets
	}
	return float64(inter) / float64(union)
}

// add puts the key k into the table slots (of 2^(64-shift) slots, at most
// half full) and reports whether it was not there yet. The key 0 goes to
// *zero instead.
func add(slots []uint64, shift uint, k uint64, zero *bool) bool {
	if k == 0 {
		was := *zero
		*zero = true
		return !was
	}
	mask := uint64(len(slots) - 1)
	for i := k >> shift; ; i = (i + 1) & mask {
		switch slots[i] {
		case k:
			return false
		case 0:
			slots[i] = k
			return true
		}
	}
}

// tableSize returns the number of slots for n keys: a power of two, at
// least 2n and 16.
func tableSize(n int) int {
	return 1 << max(4, bits.Len(uint(2*max(n, 1)-1)))
}

// resize returns *p with n elements, all zero, growing it if need be.
func resize(p *[]uint64, n int) []uint64 {
	if cap(*p) < n {
		*p = make([]uint64, n)
	}
	*p = (*p)[:n]
	clear(*p)
	return *p
}

var (
	gramScratch = sync.Pool{New: func() any { return new([]uint64) }}
	seenScratch = sync.Pool{New: func() any { return new([]uint64) }}
)
