package index

import (
	"math/bits"
	"slices"
)

// tableRun is one table's sorted run: the entries of a level ordered by
// their permuted fingerprint, with a directory of the first dbits bits.
// Entries of bucket c are hi[dir[c]:dir[c+1]]; hi holds the 32 permuted bits
// that follow the directory bits, slot the entry's slot number. A tableRun
// is immutable once built, so readers need no lock beyond the one that
// publishes it.
type tableRun struct {
	dbits uint
	dir   []uint32
	hi    []uint32
	slot  []uint32
}

// level is one sorted run per table, all over the same entries.
type level []tableRun

// size returns the number of entries of the level.
func (l level) size() int {
	if len(l) == 0 {
		return 0
	}
	return len(l[0].slot)
}

// subKeyMin is the bucket size from which a query narrows the bucket by
// binary search on the key bits beyond the directory.
const subKeyMin = 24

// groupBits is the number of top directory bits buildRun's first pass
// groups entries by.
const groupBits = 8

// buildLevel builds sorted runs over the given slots for every table; fps
// maps a slot to its fingerprint. Tables are built in parallel when the
// level is large.
func buildLevel(tabs []table, slots []uint32, fps []uint64) level {
	l := make(level, len(tabs))
	parallelFor(len(tabs), len(slots) >= 1<<16, func(t int) {
		l[t] = buildRun(&tabs[t], slots, fps)
	})
	return l
}

// buildRun sorts slots by the table's permuted fingerprint: a counting sort
// on the directory bits, then, when the key extends beyond the directory, a
// sort of each bucket by the following bits so the exact-key entries of a
// big bucket form one range.
func buildRun(t *table, slots []uint32, fps []uint64) tableRun {
	n := len(slots)
	db := uint(dirBits(t.keyBits, n))
	r := tableRun{dbits: db, dir: makeHuge[uint32]((1 << db) + 1), hi: makeHuge[uint32](n), slot: makeHuge[uint32](n)}
	for _, s := range slots {
		r.dir[t.permute(fps[s])>>(64-db)+1]++
	}
	for c := 1; c < len(r.dir); c++ {
		r.dir[c] += r.dir[c-1]
	}
	pos := make([]uint32, 1<<db)
	copy(pos, r.dir[:1<<db])
	if db <= groupBits+4 || n < 1<<16 {
		for _, s := range slots {
			p := t.permute(fps[s])
			c := p >> (64 - db)
			j := pos[c]
			pos[c]++
			r.hi[j] = uint32(p << db >> 32)
			r.slot[j] = s
		}
	} else {
		// Two passes, so that writes go to few places at a time: first
		// into 2^groupBits groups by the top cell bits, then each group,
		// small enough to stay in cache, into its cells.
		gshift := db - groupBits
		var gpos [1 << groupBits]uint32
		for g := range gpos {
			gpos[g] = r.dir[g<<gshift]
		}
		cells := make([]uint32, n)
		vals := make([]uint64, n)
		for _, s := range slots {
			p := t.permute(fps[s])
			c := uint32(p >> (64 - db))
			g := c >> gshift
			j := gpos[g]
			gpos[g]++
			cells[j] = c
			vals[j] = p<<db>>32<<32 | uint64(s)
		}
		for j, c := range cells {
			k := pos[c]
			pos[c]++
			r.hi[k] = uint32(vals[j] >> 32)
			r.slot[k] = uint32(vals[j])
		}
	}
	if t.keyBits > int(db) {
		var tmp []uint64
		for c := 0; c < 1<<db; c++ {
			lo, hi := r.dir[c], r.dir[c+1]
			if hi-lo < subKeyMin {
				continue
			}
			tmp = tmp[:0]
			for j := lo; j < hi; j++ {
				tmp = append(tmp, uint64(r.hi[j])<<32|uint64(r.slot[j]))
			}
			slices.Sort(tmp)
			for i, v := range tmp {
				r.hi[int(lo)+i] = uint32(v >> 32)
				r.slot[int(lo)+i] = uint32(v)
			}
		}
	}
	return r
}

// bucket returns the range of r's entries that can hold fingerprints whose
// permuted form shares p's key: the directory bucket, narrowed by binary
// search on the extra key bits (xbits of them) when the bucket is big.
func (r *tableRun) bucket(p uint64, xbits uint) (lo, hi int, qh uint32) {
	c := p >> (64 - r.dbits)
	lo, hi = int(r.dir[c]), int(r.dir[c+1])
	qh = uint32(p << r.dbits >> 32)
	if xbits > 0 && hi-lo >= subKeyMin {
		shift := 32 - xbits
		want := qh >> shift
		s := r.hi[lo:hi]
		a, _ := slices.BinarySearchFunc(s, want, func(v, w uint32) int { return cmpU32(v>>shift, w) })
		b, _ := slices.BinarySearchFunc(s[a:], want+1, func(v, w uint32) int {
			if want+1 == 0 {
				return -1
			}
			return cmpU32(v>>shift, w)
		})
		lo, hi = lo+a, lo+a+b
	}
	return lo, hi, qh
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scanMaskMin is the bucket size from which scan tests entries with
// nearMask32 rather than one by one. Below it the call costs more than it
// saves (BenchmarkScan32); most buckets of a table sized by dirBits hold
// fewer than 8 entries.
const scanMaskMin = 10

// scan calls f with the position of every entry of h whose bits differ
// from qh in at most k places, in order: the cheap filter before the full
// fingerprint is read. f returns false to stop; scan reports whether it ran
// to the end. Buckets of scanMaskMin entries or more are tested 64 at a
// time with nearMask32, smaller ones one by one.
func scan(h []uint32, qh uint32, k int, f func(i int) bool) bool {
	if len(h) < scanMaskMin {
		for i, x := range h {
			if bits.OnesCount32(x^qh) <= k && !f(i) {
				return false
			}
		}
		return true
	}
	for b := 0; b < len(h); b += 64 {
		for m := nearMask32(h[b:min(len(h), b+64)], qh, k); m != 0; m &= m - 1 {
			if !f(b + bits.TrailingZeros64(m)) {
				return false
			}
		}
	}
	return true
}
