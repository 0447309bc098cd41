package similarity

import (
	"math/bits"
	"sync"
)

// Levenshtein returns the edit distance between a and b: the fewest rune
// insertions, deletions and substitutions that turn one into the other.
//
// max bounds the work: as soon as the distance is known to exceed max,
// Levenshtein stops and returns max+1. A negative max means no bound. The
// result is exact whenever it is at most max.
//
// Common prefixes and suffixes are skipped first. A shorter text of up to
// 64 runes is handled in O(len) by the bit-parallel algorithm of Myers
// (1999). Longer texts first try the diagonal algorithm of Ukkonen (1985),
// which costs about O(len + d²) for a distance d and so is fast on the near
// duplicates that verification sees; when d turns out large it falls back
// to Myers's algorithm in the block form of Hyyrö (2003), O(len(a) *
// len(b) / 64). Under a bound, those two are skipped when the texts share
// too few three-rune sequences to be within it: unrelated
// texts cost O(len) then.
func Levenshtein(a, b []rune, max int) int {
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a) < len(b) {
		a, b = b, a // b, the shorter, is the bit-parallel pattern
	}
	if max < 0 || max > len(a) {
		max = len(a) // the distance never exceeds the longer length
	}
	switch {
	case len(a)-len(b) > max:
		return max + 1
	case len(b) == 0:
		return len(a)
	case len(b) <= 64:
		return myers64(a, b, max)
	}
	if max < len(a) && farByTrigrams(a, b, max) {
		return max + 1
	}
	// The diagonal algorithm gets a budget of a quarter as many steps (band
	// entries and runes slid over) as the blocks take: a near duplicate
	// (about len + d²/2 steps for a distance d, fewer under a bound, whose
	// band narrows as d nears it) finishes within it, and a large distance
	// costs at most about 1.25 times the blocks alone. Either kind of step
	// costs about 10 ns here (far/350 of BenchmarkLevenshtein: 2,100 block
	// steps in 24 µs, the diagonals alone 800 µs for some 80,000 steps).
	blocks := (len(b) + 63) / 64
	budget := len(a)*blocks/4 + 256
	if blocks <= shortBlocks {
		if ascii(b) {
			return myersBlocks(a, b, max)
		}
		budget = len(a) + len(a)/4 + 32
	}
	if d, ok := diagonal(a, b, max, budget); ok {
		return d
	}
	return myersBlocks(a, b, max)
}

// shortBlocks is the number of 64-rune blocks of the shorter text up to
// which Levenshtein does not give the diagonals a quarter of the blocks'
// steps plus 256 first, which a pair far apart spent whole before the
// blocks took over. An ASCII pattern goes straight to the blocks, which
// then cost about what the diagonals do on a near copy; another gets a
// budget of about the longer text's length (enough for a near copy: its
// length plus about d² steps for d edits), as its blocks look its runes up
// in a table (blockScratch) and cost three to four times as much. Medians
// of 4 runs of BenchmarkLevenshtein and BenchmarkLevenshteinHan at 140
// runes, before and after: unrelated texts 6.7 and 3.1 µs, texts sharing
// a footer 6.5 and 2.5, near copies 0.30 and 0.31; Han near copies 1.08
// and 1.25, unrelated 32.7 and 7.5 (without the diagonals, 4.6 and 5.6).
const shortBlocks = 3

// LevenshteinRatio returns 1 - Levenshtein(a, b) / max(len(a), len(b)): 1 for
// equal texts (two empty ones included), 0 when no rune lines up.
func LevenshteinRatio(a, b []rune) float64 {
	n := max(len(a), len(b))
	if n == 0 {
		return 1
	}
	return 1 - float64(Levenshtein(a, b, -1))/float64(n)
}

// peq64 maps each rune of a pattern of at most 64 runes to the bit mask of
// the positions where it occurs. ASCII runes index an array; the others go
// to a small open-addressing table that holds at most 64 keys in 128 slots.
type peq64 struct {
	ascii [128]uint64
	keys  [128]rune // 0 marks an empty slot; non-ASCII keys are never 0
	vals  [128]uint64
}

func peqSlot(r rune) uint32 { return uint32(r) * 2654435761 >> 25 }

func (p *peq64) add(r rune, bit uint64) {
	if uint32(r) < 128 {
		p.ascii[r] |= bit
		return
	}
	h := peqSlot(r)
	for p.keys[h] != 0 && p.keys[h] != r {
		h = (h + 1) & 127
	}
	p.keys[h] = r
	p.vals[h] |= bit
}

func (p *peq64) get(r rune) uint64 {
	if uint32(r) < 128 {
		return p.ascii[r]
	}
	for h := peqSlot(r); p.keys[h] != 0; h = (h + 1) & 127 {
		if p.keys[h] == r {
			return p.vals[h]
		}
	}
	return 0
}

// myers64 is Levenshtein for a pattern b of 1 to 64 runes and a text a at
// least as long. It keeps one column of the DP matrix as two bit vectors of
// vertical deltas (+1 in pv, -1 in mv) and tracks the bottom cell's score.
func myers64(a, b []rune, bound int) int {
	var peq peq64
	for i, r := range b {
		peq.add(r, 1<<i)
	}
	last := uint64(1) << (len(b) - 1)
	pv, mv, score := ^uint64(0), uint64(0), len(b)
	for j, r := range a {
		eq := peq.get(r)
		xv := eq | mv
		xh := (((eq & pv) + pv) ^ pv) | eq
		ph := mv | ^(xh | pv)
		mh := pv & xh
		if ph&last != 0 {
			score++
		} else if mh&last != 0 {
			score--
		}
		ph = ph<<1 | 1 // the top row grows by one per text rune
		mh <<= 1
		pv = mh | ^(xv | ph)
		mv = ph & xv
		// Each remaining text rune lowers the score by at most one.
		if score-(len(a)-1-j) > bound {
			return bound + 1
		}
	}
	return score
}

// myersBlocks is Levenshtein for a pattern b longer than 64 runes, split into
// 64-row blocks whose horizontal deltas carry from one block to the next.
func myersBlocks(a, b []rune, bound int) int {
	nb := (len(b) + 63) / 64
	sc := blockPool.Get().(*blockScratch)
	defer sc.put()
	ascii := sc.grow(&sc.ascii, 128*nb)
	sc.reset(len(b))
	for i, r := range b {
		bit := uint64(1) << (i % 64)
		if uint32(r) < 128 {
			ascii[int(r)*nb+i/64] |= bit
			continue
		}
		sc.masks(r, nb, true)[i/64] |= bit
	}
	zero := sc.grow(&sc.zero, nb)
	pv := sc.grow(&sc.pv, nb)
	mv := sc.grow(&sc.mv, nb)
	for k := range pv {
		pv[k] = ^uint64(0)
	}
	lastBit := uint64(1) << ((len(b) - 1) % 64)
	score := len(b)
	for j, r := range a {
		var eqs []uint64
		if uint32(r) < 128 {
			eqs = ascii[int(r)*nb : int(r)*nb+nb]
		} else if eqs = sc.masks(r, nb, false); eqs == nil {
			eqs = zero
		}
		hin := 1 // the top row grows by one per text rune
		for k, eq := range eqs {
			p, m := pv[k], mv[k]
			xv := eq | m
			if hin < 0 {
				eq |= 1
			}
			xh := (((eq & p) + p) ^ p) | eq
			ph := m | ^(xh | p)
			mh := p & xh
			last := uint64(1) << 63
			if k == nb-1 {
				last = lastBit
			}
			hout := 0
			if ph&last != 0 {
				hout = 1
			} else if mh&last != 0 {
				hout = -1
			}
			ph <<= 1
			mh <<= 1
			if hin < 0 {
				mh |= 1
			} else if hin > 0 {
				ph |= 1
			}
			pv[k] = mh | ^(xv | ph)
			mv[k] = ph & xv
			hin = hout
		}
		score += hin
		if score-(len(a)-1-j) > bound {
			return bound + 1
		}
	}
	return score
}

// ascii reports whether every rune of rs is ASCII.
func ascii(rs []rune) bool {
	for _, r := range rs {
		if r >= 128 {
			return false
		}
	}
	return true
}

// blockScratch holds what myersBlocks builds for one call, kept for the
// next: the pattern's bit masks, those of non-ASCII runes in slab, found
// through an open-addressing table (keys, at), and the columns' vectors.
// A call of 140 runes made a 3 KB table, about a tenth of its time, and a
// map of Han characters cost 9 µs where the table takes 2.
type blockScratch struct {
	ascii, zero, pv, mv, slab []uint64
	keys                      []rune  // 0: an empty slot (non-ASCII keys are never 0)
	at                        []int32 // where each key's masks start in slab
	shift                     uint    // 32 - log2(len(keys))
}

// blockPool keeps the scratch of myersBlocks.
var blockPool = sync.Pool{New: func() any { return &blockScratch{} }}

// grow returns *buf cut to n words, all zero, growing it if need be.
func (sc *blockScratch) grow(buf *[]uint64, n int) []uint64 {
	if cap(*buf) < n {
		*buf = make([]uint64, n)
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}

// reset empties the table of non-ASCII runes for a pattern of n runes: at
// least twice as many slots, so that probes stay short.
func (sc *blockScratch) reset(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(sc.keys) < size {
		sc.keys, sc.at = make([]rune, size), make([]int32, size)
	}
	sc.keys, sc.at = sc.keys[:size], sc.at[:size]
	clear(sc.keys)
	sc.shift = uint(32 - bits.TrailingZeros(uint(size)))
	sc.slab = sc.slab[:0]
}

// masks returns the nb mask words of the non-ASCII rune r: nil if r is
// not in the pattern, unless add, which makes them (zero) for a new r.
func (sc *blockScratch) masks(r rune, nb int, add bool) []uint64 {
	mask := uint32(len(sc.keys) - 1)
	for h := uint32(r) * 2654435761 >> sc.shift; ; h = (h + 1) & mask {
		switch sc.keys[h] {
		case r:
			return sc.slab[sc.at[h] : int(sc.at[h])+nb]
		case 0:
			if !add {
				return nil
			}
			sc.keys[h], sc.at[h] = r, int32(len(sc.slab))
			sc.slab = append(sc.slab, make([]uint64, nb)...)
			return sc.slab[len(sc.slab)-nb:]
		}
	}
}

// put gives sc back to blockPool. A scratch grown past 64K words (texts
// of tens of thousands of runes) is left to the collector instead.
func (sc *blockScratch) put() {
	if cap(sc.ascii)+cap(sc.slab)+cap(sc.keys) > 1<<16 {
		return
	}
	blockPool.Put(sc)
}

// diagonal returns the edit distance of a and b if it is at most limit, and
// limit+1 otherwise, by Ukkonen's furthest-reaching diagonals: for each cost
// d it finds, on every diagonal k = j - i within reach, the furthest row i
// with D[i][i+k] <= d, then slides along equal runes for free. Adjacent
// cells differ by at most one, which makes the clipping at the matrix edges
// exact. It gives up, returning ok = false, after budget steps.
func diagonal(a, b []rune, limit, budget int) (d int, ok bool) {
	n, m := len(a), len(b)
	const unreached = -1 << 30
	// prev and cur hold diagonals -r-1..r+1 (diagonal k at index k+r+1);
	// they start small and double when d outgrows them.
	r := min(limit, 32)
	prev, cur := make([]int, 2*r+3), make([]int, 2*r+3)
	for i := range prev {
		prev[i], cur[i] = unreached, unreached
	}
	grow := func(s []int, to int) []int {
		t := make([]int, 2*to+3)
		for i := range t {
			t[i] = unreached
		}
		copy(t[to-r:], s)
		return t
	}
	target := m - n
	// Diagonals come within reach as d grows, and those too far from the
	// target to reach it within the limit drop out: a diagonal k at cost d
	// needs at least |target-k| more edits. So the band of each round lies
	// within the last one widened by one on each side, and every entry a
	// round reads was written by the one before or never at all.
	for d := 0; d <= limit; d++ {
		if d > r {
			to := min(limit, 2*r)
			prev, cur, r = grow(prev, to), grow(cur, to), to
		}
		off := r + 1
		slack := limit - d
		lo, hi := max(-d, -n, target-slack), min(d, m, target+slack)
		budget -= hi - lo + 1
		for k := lo; k <= hi; k++ {
			t := 0
			if d > 0 {
				// substitution on k, insertion from k-1, deletion from k+1
				t = max(prev[k+off]+1, prev[k-1+off], prev[k+1+off]+1)
				if t < 0 {
					cur[k+off] = unreached
					continue
				}
				t = min(t, n, m-k)
			}
			start := t
			for t < n && t+k < m && a[t] == b[t+k] {
				t++
			}
			budget -= t - start
			cur[k+off] = t
		}
		if target >= lo && target <= hi && cur[target+off] >= n {
			return d, true
		}
		if budget < 0 {
			return 0, false
		}
		prev, cur = cur, prev
	}
	return limit + 1, true
}

// trigramSlots is the size of farByTrigrams' table of counts. With a few
// hundred trigrams per text, a table this size keeps the collisions, which
// only weaken the filter, to a few percent.
const trigramSlots = 1 << 13

// farByTrigrams reports whether a and b, a the longer, are sure to be more
// than max edits apart by the q-gram lemma: one edit changes at most three
// of the len(a)-2 trigrams (sequences of three runes) of a, so texts within
// max edits share at least len(a)-2-3*max of them, counted as multisets.
// Trigrams are counted in a hashed table; a collision can only add to the
// shared count, so the answer is never wrong, only sometimes false when it
// could be true. A slot that reaches 255 stays there and matches without
// end, for the same reason.
func farByTrigrams(a, b []rune, max int) bool {
	need := len(a) - 2 - 3*max
	if need <= 0 || len(b) < 3 {
		return need > 0 // without trigrams, b shares none
	}
	var counts [trigramSlots]uint8
	for i := 2; i < len(a); i++ {
		if c := &counts[trigramSlot(a[i-2], a[i-1], a[i])]; *c < 255 {
			*c++
		}
	}
	shared, left := 0, len(b)-2
	for i := 2; i < len(b); i++ {
		if c := &counts[trigramSlot(b[i-2], b[i-1], b[i])]; *c > 0 {
			if *c < 255 {
				*c--
			}
			if shared++; shared >= need {
				return false
			}
		}
		if left--; shared+left < need {
			return true
		}
	}
	return shared < need
}

// trigramSlot hashes three runes to a slot of farByTrigrams' table.
func trigramSlot(x, y, z rune) uint32 {
	h := uint32(x)*0x9e3779b1 ^ uint32(y)*0x85ebca77 ^ uint32(z)*0xc2b2ae3d
	return h >> (32 - 13)
}
