package index

import (
	"math/bits"
	"runtime"
	"slices"
	"sort"
)

// tableRun is one table's sorted run: the entries of a level ordered by
// their permuted fingerprint, with a directory of the first dbits bits.
// Entries of bucket c are hi[dir[c]:dir[c+1]]; hi holds the 32 permuted bits
// that follow the directory bits, slot the entry's slot number. The runs of
// a wide index (Options.Wide) hold rest instead of hi: all the permuted
// bits that follow the directory bits, left-aligned, so that a bucket's
// entries can be tested against the whole fingerprint. A tableRun
// is immutable once built, so readers need no lock beyond the one that
// publishes it.
type tableRun struct {
	dbits uint
	dir   []uint32
	hi    []uint32 // nil when wide
	rest  []uint64 // nil unless wide
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
// level is large. Wide runs hold rest instead of hi.
//
// Tables whose permuted fingerprints begin with the same groupBits bits
// share the first pass of their sort (see buildFamily), when it is a
// two-pass sort: in a design of b blocks of at least groupBits bits, each
// table keyed on k of them, the tables with the same first key block, so
// b-k+1 families (7 of the 28 tables of 8/2, 4 of the 20 of 6/3).
func buildLevel(tabs []table, slots []uint32, fps []uint64, wide bool) level {
	n := len(slots)
	var jobs [][]int
	family := make(map[uint64]int)
	for t := range tabs {
		if top := tabs[t].top; top != 0 && twoPass(uint(dirBits(tabs[t].keyBits, n)), n) {
			if j, ok := family[top]; ok {
				jobs[j] = append(jobs[j], t)
				continue
			}
			family[top] = len(jobs)
		}
		jobs = append(jobs, []int{t})
	}
	// The largest families first, so that the last ones even out the
	// goroutines' shares.
	slices.SortStableFunc(jobs, func(a, b []int) int { return len(b) - len(a) })
	l := make(level, len(tabs))
	// Each sort needs the same scratch arrays; the goroutines building
	// tables pass them on instead of allocating (and zeroing) them again.
	scratch := make(chan *buildScratch, runtime.GOMAXPROCS(0))
	parallelFor(len(jobs), n >= 1<<16, func(j int) {
		var sc *buildScratch
		select {
		case sc = <-scratch:
		default:
			sc = new(buildScratch)
		}
		if ts := jobs[j]; len(ts) > 1 {
			buildFamily(tabs, ts, slots, fps, sc, l)
		} else {
			l[ts[0]] = buildRun(&tabs[ts[0]], slots, fps, sc)
		}
		if wide {
			for _, t := range jobs[j] {
				l[t].widen(&tabs[t], fps)
			}
		}
		select {
		case scratch <- sc:
		default:
		}
	})
	return l
}

// twoPass reports whether buildRun sorts n entries into 2^db cells in two
// passes (see buildRun).
func twoPass(db uint, n int) bool { return db > groupBits+4 && n >= 1<<16 }

// buildScratch holds the sorts' temporary arrays, reused from table to
// table.
type buildScratch struct {
	perm, vals []uint64
	cells      []uint32
}

// grow makes sure every scratch array holds n elements.
func (sc *buildScratch) grow(n int) {
	if len(sc.perm) < n {
		sc.perm = make([]uint64, n)
		sc.vals = nil
		sc.cells = nil
	}
	if len(sc.vals) < n && n >= 1<<16 {
		sc.vals = make([]uint64, n)
		sc.cells = make([]uint32, n)
	}
}

// buildFamily builds into l the runs of the tables ts, whose permuted
// fingerprints all begin with the bits of tabs[ts[0]].top, over slots, all
// of them sorted in two passes (twoPass). The first pass, grouping the
// entries by those bits, is made once: its groups, in order, hold the
// fingerprints and slots. Each table then permutes the grouped
// fingerprints, counts its cells and places each group's entries in its
// cells, writing within the group's range, which stays in cache. The runs
// are those buildRun builds, entry for entry.
func buildFamily(tabs []table, ts []int, slots []uint32, fps []uint64, sc *buildScratch, l level) {
	n := len(slots)
	sc.grow(n)
	perm, gfp, gslot := sc.perm[:n], sc.vals[:n], sc.cells[:n]
	first := &tabs[ts[0]]
	permuteSlots(first, perm, fps, slots)
	var gpos [1<<groupBits + 1]uint32
	for _, p := range perm {
		gpos[p>>(64-groupBits)+1]++
	}
	for g := 1; g < len(gpos); g++ {
		gpos[g] += gpos[g-1]
	}
	for i, s := range slots {
		g := perm[i] >> (64 - groupBits)
		j := gpos[g]
		gpos[g]++
		gfp[j] = fps[s]
		gslot[j] = s
	}
	for _, t := range ts {
		tab := &tabs[t]
		permuteAll(tab, perm, gfp)
		r, pos := newRun(tab, perm)
		db := r.dbits
		for j, p := range perm {
			c := p >> (64 - db)
			k := pos[c]
			pos[c]++
			r.hi[k] = uint32(p << db >> 32)
			r.slot[k] = gslot[j]
		}
		r.sortSubKeys(tab)
		l[t] = r
	}
}

// permuteSlots sets perm[i] to t.permute(fps[slots[i]]).
func permuteSlots(t *table, perm, fps []uint64, slots []uint32) {
	if t.pext {
		pextPermuteSlots(perm, fps, slots, t.keyMask, uint(Bits-t.keyBits))
		return
	}
	for i, s := range slots {
		perm[i] = t.permute(fps[s])
	}
}

// permuteAll sets perm[i] to t.permute(fps[i]).
func permuteAll(t *table, perm, fps []uint64) {
	if t.pext {
		pextPermuteAll(perm, fps, t.keyMask, uint(Bits-t.keyBits))
		return
	}
	for i, fp := range fps {
		perm[i] = t.permute(fp)
	}
}

// widen replaces r's hi bits by the rest bits of every entry, in r's order.
func (r *tableRun) widen(t *table, fps []uint64) {
	r.rest = makeHuge[uint64](len(r.slot))
	for j, s := range r.slot {
		r.rest[j] = t.permute(fps[s]) << r.dbits
	}
	r.hi = nil
}

// buildRun sorts slots by the table's permuted fingerprint: a counting sort
// on the directory bits, then, when the key extends beyond the directory, a
// sort of each bucket by the following bits so the exact-key entries of a
// big bucket form one range.
func buildRun(t *table, slots []uint32, fps []uint64, sc *buildScratch) tableRun {
	n := len(slots)
	// The permuted fingerprints are computed once, for the count and then
	// for the placement.
	sc.grow(n)
	perm := sc.perm[:n]
	permuteSlots(t, perm, fps, slots)
	r, pos := newRun(t, perm)
	db := r.dbits
	if !twoPass(db, n) {
		for i, s := range slots {
			p := perm[i]
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
		cells := sc.cells[:n]
		vals := sc.vals[:n]
		for i, s := range slots {
			p := perm[i]
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
	r.sortSubKeys(t)
	return r
}

// newRun returns t's run for the entries whose permuted fingerprints are
// perm, with its directory counted but no entry placed, and the position
// of every cell's first entry, for the placing to advance.
func newRun(t *table, perm []uint64) (tableRun, []uint32) {
	n := len(perm)
	db := uint(dirBits(t.keyBits, n))
	r := tableRun{dbits: db, dir: makeHuge[uint32]((1 << db) + 1), hi: makeHuge[uint32](n), slot: makeHuge[uint32](n)}
	for _, p := range perm {
		r.dir[p>>(64-db)+1]++
	}
	for c := 1; c < len(r.dir); c++ {
		r.dir[c] += r.dir[c-1]
	}
	pos := make([]uint32, 1<<db)
	copy(pos, r.dir[:1<<db])
	return r, pos
}

// sortSubKeys sorts every bucket of r of at least subKeyMin entries by
// the key bits beyond the directory (then the other stored bits and the
// slot), when t's key extends beyond the directory, so that the entries
// of an exact key form one range.
func (r *tableRun) sortSubKeys(t *table) {
	if t.keyBits <= int(r.dbits) {
		return
	}
	var tmp []uint64
	for c := 0; c < 1<<r.dbits; c++ {
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

// extraKeyBits returns how many bits of a key of kb bits lie beyond a
// directory of dbits bits, up to the 32 a narrow run stores: the bits
// bucket narrows a bucket by.
func extraKeyBits(kb, dbits uint) uint {
	return uint(max(0, min(int(kb)-int(dbits), 32)))
}

// dirCell returns the directory cell of p's bucket. Searches load the
// cells of several buckets before finding any, so that their cache misses
// overlap.
func (r *tableRun) dirCell(p uint64) uint32 { return r.dir[p>>(64-r.dbits)] }

// bucket returns the range of r's entries that can hold fingerprints whose
// permuted form shares p's key: the directory bucket, narrowed by binary
// search on the extra key bits (xbits of them) when the bucket is big.
func (r *tableRun) bucket(p uint64, xbits uint) (lo, hi int) {
	c := p >> (64 - r.dbits)
	lo, hi = int(r.dir[c]), int(r.dir[c+1])
	if xbits == 0 || hi-lo < subKeyMin {
		return lo, hi
	}
	shift := 32 - xbits
	want := uint32(p<<r.dbits>>32) >> shift
	top := func(j int) uint32 { // the extra key bits of entry j
		if r.rest != nil {
			return uint32(r.rest[j]>>32) >> shift
		}
		return r.hi[j] >> shift
	}
	a := lo + sort.Search(hi-lo, func(i int) bool { return top(lo+i) >= want })
	b := a + sort.Search(hi-a, func(i int) bool { return top(a+i) > want })
	return a, b
}

// scanMaskMin is the bucket size from which scan tests entries with
// nearMask32 rather than one by one. Below it the call costs more than it
// saves (BenchmarkScan32); most buckets of a table sized by dirBits hold
// fewer than 8 entries.
const scanMaskMin = 10

// touch loads one word of every cache line of entries lo..hi-1 and
// returns their sum, which the caller keeps alive.
func (r *tableRun) touch(lo, hi int) uint64 {
	var sum uint64
	if r.rest != nil {
		for j := lo; j < hi; j += 8 {
			sum += r.rest[j]
		}
		return sum
	}
	for j := lo; j < hi; j += 16 {
		sum += uint64(r.hi[j])
	}
	return sum
}

// scanBucket calls f with the position (from lo) of every entry of
// lo..hi-1 whose stored bits after the directory differ from those of p
// (a permuted query) in at most k places: all of them in a wide run, the
// next 32 otherwise (see scan and scan64).
func (r *tableRun) scanBucket(lo, hi int, p uint64, k int, f func(i int) bool) bool {
	if r.rest != nil {
		return scan64(r.rest[lo:hi], p<<r.dbits, k, f)
	}
	return scan(r.hi[lo:hi], uint32(p<<r.dbits>>32), k, f)
}

// seenEarlier reports whether entry j of r, a candidate of table t for the
// query whose permuted form is p, agrees with p on the whole key of a table
// before t, as far as r's stored bits show: the query then reports it
// through that table, and need not read its fingerprint here.
func (r *tableRun) seenEarlier(t *table, j int, p uint64) bool {
	if r.rest != nil {
		x := r.rest[j] ^ p<<r.dbits
		for _, m := range t.sharedRest[r.dbits] {
			if x&m == 0 {
				return true
			}
		}
		return false
	}
	x := r.hi[j] ^ uint32(p<<r.dbits>>32)
	for _, m := range t.sharedHi[r.dbits] {
		if x&m == 0 {
			return true
		}
	}
	return false
}

// scan64MaskMin is scanMaskMin for scan64. Its buckets are probed many at
// a time between other work, where each nearMask call costs more than in a
// loop of calls: 32 took BenchmarkProbe at 1M entries from 140 to 72 µs a
// query against 10.
const scan64MaskMin = 32

// scan64 is scan for the rest bits of a wide run, 64 at a time with
// nearMask from scan64MaskMin entries.
func scan64(h []uint64, q uint64, k int, f func(i int) bool) bool {
	if len(h) < scan64MaskMin {
		for i, x := range h {
			if bits.OnesCount64(x^q) <= k && !f(i) {
				return false
			}
		}
		return true
	}
	for b := 0; b < len(h); b += 64 {
		for m := nearMask(h[b:min(len(h), b+64)], q, k); m != 0; m &= m - 1 {
			if !f(b + bits.TrailingZeros64(m)) {
				return false
			}
		}
	}
	return true
}

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

// touchMax bounds the entries of a bucket that search touches before its
// scans. The first lines of every bucket are what the processor would
// otherwise wait for one bucket at a time; the rest of a long bucket
// streams in behind them. Text fingerprints crowd some buckets (hundreds
// or thousands of entries), and touching all of them cost more than it
// saved: with `neardup bench index --data text -k 6 --max-bytes 270`, 256
// took the median query from 8.6-10.7 to 7.0-9.5 µs at 200,000 entries
// (7 tables) and from 18.8-20.0 to 15.9-17.4 µs at a million (28 tables).
// Buckets of random fingerprints are shorter than this, and touched whole
// as before.
const touchMax = 256
