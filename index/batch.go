package index

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync/atomic"
)

// QueryBatch returns, for each qs[i], what Query(qs[i], k, nil) returns.
// Where the index answers k by a linear scan of its slots (k beyond the
// tables, probing not predicted cheaper), the queries are scanned
// together: each word of 64 slots is tested against every query of a
// group before the next word is read, so the slots come from memory once
// per group instead of once per query. Where it probes or answers
// through its tables, each table is searched by all the queries of a
// group in the order of their keys, so that queries that share a bucket
// read it from memory once. Groups run on all cores (a probing call makes
// only as many as there are cores that no other call keeps busy); each takes the read lock once, so writers wait for at
// most one group.
func (ix *Index) QueryBatch(qs []uint64, k int) [][]Match {
	return ix.queryBatch(qs, k, collector{k: k})
}

// QueryBatchNearest returns, for each qs[i], what QueryNearest(qs[i], k,
// n, keep_i, nil) returns, where keep_i(m) is keep(i, m) (keep nil: any
// match), found as QueryBatch finds its matches. Each query keeps only
// its n nearest as they turn up, so a query that many stored entries are
// near costs no Match for each of them and no sort of them all.
func (ix *Index) QueryBatchNearest(qs []uint64, k, n int, keep func(i int, m Match) bool) [][]Match {
	if n <= 0 {
		return make([][]Match, len(qs))
	}
	return ix.queryBatch(qs, k, collector{k: k, n: n, keep: keep})
}

// queryBatch is QueryBatch with the matches of each query gathered by c.
func (ix *Index) queryBatch(qs []uint64, k int, c collector) [][]Match {
	out := make([][]Match, len(qs))
	running := batchesRunning.Add(1)
	defer batchesRunning.Add(-1)
	size := batchGroup
	ix.mu.RLock()
	tk := ix.tableK()
	ix.mu.RUnlock()
	switch {
	case k >= 0 && k <= tk:
		size = tablesGroup
	case k >= 0 && len(qs) > batchGroup && ix.probes(k):
		// As large as tablesGroup allows while every core not busy with
		// another batch gets a group: probes that share a bucket read it
		// once, as in tablesBatch, so the larger the group the cheaper
		// each query. On one core, 500 queries at k=10 of a 5/1 index of
		// text fingerprints took 23 µs each in one group against 38 µs in
		// groups of 64 at 1M entries, 12 against 15 µs at 400k; at 360k,
		// 19 µs in groups of 125 against 12 µs in one of 500.
		parts := max(1, runtime.GOMAXPROCS(0)+1-int(running))
		size = min(tablesGroup, max(batchGroup, (len(qs)+parts-1)/parts))
	}
	parallelFor((len(qs)+size-1)/size, len(qs) > size, func(gi int) {
		g := gi * size
		group := qs[g:min(len(qs), g+size)]
		res := out[g : g+len(group)]
		// collect makes the visitor of the group's query i.
		collect := func(i int, dst *[]Match) visitor { return c.visitor(g+i, dst) }
		ix.mu.RLock()
		scanAll, radii, scan := ix.batchPlan(k, len(group))
		if scanAll && len(group) > 1 {
			ix.scanAllBatch(group, k, res, collect)
		} else if radii != nil && len(group) > 1 && len(group) <= 1<<16 {
			ix.probeAllBatch(group, k, radii, scan, res, collect, c.n > 0)
		} else if k >= 0 && len(group) > 1 {
			ix.tablesBatch(group, k, res, collect)
		} else {
			for i, q := range group {
				ix.search(q, k, collect(i, &res[i]))
			}
		}
		ix.mu.RUnlock()
	})
	for i, ms := range out {
		if len(ms) > 1 {
			slices.SortFunc(ms, compareMatch)
		}
		if c.n > 0 && len(ms) > c.n { // tablesBatch's parts each kept n
			out[i] = ms[:c.n]
		}
	}
	return out
}

// collector makes the visitors that gather a batch's matches: every match
// (n 0 and keep nil, appendMatches), or the n nearest that keep accepts
// (nearestMatches).
type collector struct {
	k, n int
	keep func(i int, m Match) bool
}

// visitor returns the visitor that gathers the matches of the batch's
// query i into *dst.
func (c collector) visitor(i int, dst *[]Match) visitor {
	if c.n <= 0 && c.keep == nil {
		return appendMatches(dst, c.k)
	}
	n := c.n
	if n <= 0 {
		n = math.MaxInt
	}
	var keep func(Match) bool
	if c.keep != nil {
		keep = func(m Match) bool { return c.keep(i, m) }
	}
	return nearestMatches(dst, c.k, n, keep)
}

// batchesRunning counts the calls of QueryBatch, on any index, under way.
// A probing call splits its queries into one group for each core that no
// other call keeps busy: two groups that share a core cost more than one
// group of both, and finish no sooner. With batches of 500 over 4
// connections (bench serve, two chunks decided at once), 70,600 documents
// a second against 68,100 with a group per core whatever else ran, 25.8
// against 26.6 µs of CPU a document (means of 7 runs each); over one
// connection, as many as before (54,800 against 55,150).
var batchesRunning atomic.Int32

// probes reports whether QueryBatch, as the index stands, answers k by
// probing its tables (see batchPlan). Each group plans again under the
// lock; this only sizes the groups.
func (ix *Index) probes(k int) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, radii, _ := ix.batchPlan(k, batchGroup)
	return radii != nil
}

// batchGroup is the number of queries QueryBatch scans together under
// one read lock.
const batchGroup = 64

// tablesGroup is batchGroup for queries the tables answer (tablesBatch),
// and the most for those it probes: the more queries, the more of them
// share a bucket. On SimHash fingerprints of text, whose keys crowd, 512
// queries read a fifth to a third of the bucket entries they would one by
// one, and 1,024 queries cost 16-24% less each than 512 (bench index,
// 200,000 entries, k=6).
const tablesGroup = 1024

// batchPlan says how search answers k for a group of g queries: by
// scanAll (scanAll true), by probing with radii, scanning the tiers of scan
// instead (radii not nil), or by the tables (neither). The caller holds mu
// shared.
func (ix *Index) batchPlan(k, g int) (scanAll bool, radii []int, scan uint64) {
	if k <= ix.tableK() {
		return false, nil, 0
	}
	radii = probeRadii(ix.opts.Design, k)
	scan, probe := ix.probePlan(radii, batchCostFor(g))
	if !probe {
		return true, nil, 0
	}
	return false, radii, scan
}

// probeAllBatch is search's probing for several queries: the entries
// within k of qs[i] are visited by collect(i, &out[i]). Each table's probes of all the queries
// are sorted by key and run in that order, so that the buckets are read
// in the order they lie in memory, and a bucket that several queries probe
// (text fingerprints crowd some keys) is read from memory once. With
// rounds (visitors that narrow their bounds: the nearest n), the probes go
// in rounds of the bits they flip, as in searchProbe, and a query whose
// visitor has narrowed its bound to what the rounds done cover
// (roundsCover) takes no part in the next; without, each table's probes
// of all radii go at once, in one pass over its buckets. There may be at
// most 2^16 queries. The caller holds mu shared.
func (ix *Index) probeAllBatch(qs []uint64, k int, radii []int, scan uint64, out [][]Match, collect func(i int, dst *[]Match) visitor, rounds bool) {
	visits := make([]visitor, len(qs))
	ks := make([]int, len(qs)) // each query's bound; -1: its visitor asked to stop
	live := make([]int, len(qs))
	for i := range qs {
		visits[i] = collect(i, &out[i])
		ks[i], live[i] = k, i
	}
	ps := make([]uint64, len(qs))
	var probes, spare []uint64
	tabs := ix.tabs
	if !ix.probesAny(scan) {
		tabs = nil // every entry is in scanned tiers or recent
	}
	// Each round probes the keys that differ from the queries' in from to
	// upto bits.
	last := slices.Max(radii)
	step := last + 1
	if rounds {
		step = 1
	}
	for from := 0; from <= last && len(tabs) > 0 && len(live) > 0; from += step {
		upto := from + step - 1
		for t := range tabs {
			tab := &tabs[t]
			kb := uint(tab.keyBits)
			if radii[t] < from {
				continue
			}
			if kb > 64-16 {
				// A key too wide to pack with a query's number: each
				// query probes on its own.
				for _, i := range live {
					for f := from; f <= min(upto, radii[t]) && ks[i] >= 0; f++ {
						ks[i] = ix.probeRound(qs[i], ks[i], t, f, radii, scan, visits[i])
					}
				}
				continue
			}
			// A probe is its key above the query's number (below 2^16),
			// so that sorting sorts by key.
			probes = probes[:0]
			for _, i := range live {
				if ks[i] < 0 {
					continue
				}
				ps[i] = tab.permute(qs[i])
				key := ps[i] >> (64 - kb)
				for f := from; f <= min(upto, radii[t]); f++ {
					for c := range keyFlips(kb, f) {
						probes = append(probes, (key^c)<<16|uint64(i))
					}
				}
			}
			probes, spare = sortProbes(probes, spare, kb)
			for j, l := range ix.levels {
				if l.size() == 0 || scan&(1<<j) != 0 {
					continue
				}
				r := &l[t]
				xbits := probeXBits(kb, r.dbits)
				lo, hi, last := 0, 0, ^uint64(0)
				for _, pr := range probes {
					i, key := int(pr&0xffff), pr>>16
					if ks[i] < 0 {
						continue
					}
					pp := key<<(64-kb) | ps[i]<<kb>>kb
					if key != last {
						lo, hi = r.bucket(pp, xbits)
						last = key
					}
					ks[i] = ix.probeBucket(qs[i], pp, key^ps[i]>>(64-kb), ks[i], t, r, lo, hi, radii, visits[i])
				}
			}
		}
		cover := roundsCover(radii, upto)
		live = slices.DeleteFunc(live, func(i int) bool { return ks[i] <= cover })
	}
	ix.scanTiersBatch(qs, k, scan, visits)
	for i, q := range qs {
		ix.scanRecent(q, k, visits[i])
	}
}

// scanTiersBatch is scanTiers for every qs[i], visited by visits[i], which
// must ask to go on (see queryBounds for the bounds they return): each
// word of 64 fingerprints of a scanned tier is tested against all the
// queries at once (nearMasks), as in scanAllBatch. The caller holds mu
// shared.
func (ix *Index) scanTiersBatch(qs []uint64, k int, scan uint64, visits []visitor) {
	masks := make([]uint64, len(qs))
	bounds := queryBounds(len(qs), k)
	for j := range ix.levels {
		if scan&(1<<j) == 0 || ix.levels[j].size() == 0 {
			continue
		}
		fps, slots := ix.tierFP[j], ix.levels[j][0].slot
		for b := 0; b < len(fps); b += 64 {
			word := fps[b:min(len(fps), b+64)]
			if len(word) == 64 {
				nearMasks((*[64]uint64)(word), qs, k, masks)
			} else { // the tier's last word, not whole
				for i, q := range qs {
					masks[i] = nearMask(word, q, k)
				}
			}
			for i, m := range masks {
				for ; m != 0; m &= m - 1 {
					x := b + bits.TrailingZeros64(m)
					d := bits.OnesCount64(qs[i] ^ fps[x])
					if s := slots[x]; d <= bounds[i] && ix.isLive(s) {
						bounds[i], _ = visits[i](ix.ids[s], fps[x], ix.tag(s), d)
					}
				}
			}
		}
	}
}

// tablesBatch is search for several queries and a k from 0 to the
// tables' K: the entries within k of qs[i] are visited by a visitor
// collect makes, into out[i] or, from the second part of the tables on,
// into the part's own array, appended to out[i] at the end. The tables
// are searched one after the other, each by all the queries in the order
// of their keys, so that queries sharing a bucket (text fingerprints
// crowd some keys) find it in cache. From tablesSplitMin queries the
// tables are shared out among the cores. There may be at most 2^16
// queries. The caller holds mu shared.
func (ix *Index) tablesBatch(qs []uint64, k int, out [][]Match, collect func(i int, dst *[]Match) visitor) {
	parts := 1
	if len(qs) >= tablesSplitMin {
		parts = min(runtime.GOMAXPROCS(0), len(ix.tabs))
	}
	// Part p searches tables p, p+parts, ... into outs[p] (out for part 0);
	// the last part also scans the recent entries.
	outs := make([][][]Match, parts)
	outs[0] = out
	parallelFor(parts, parts > 1, func(p int) {
		if outs[p] == nil {
			outs[p] = make([][]Match, len(qs))
		}
		o := outs[p]
		visits := make([]visitor, len(qs))
		for i := range qs {
			visits[i] = collect(i, &o[i])
		}
		ps := make([]uint64, len(qs))
		var order, spare []uint64
		tabs := len(ix.tabs)
		if !slices.ContainsFunc(ix.levels, func(l level) bool { return l.size() > 0 }) {
			tabs = 0 // every entry is recent
		}
		for t := p; t < tabs; t += parts {
			order, spare = ix.tableBatch(t, qs, ps, order, spare, k, visits)
		}
		if p == parts-1 {
			for i, q := range qs {
				ix.scanRecent(q, k, visits[i])
			}
		}
	})
	for _, o := range outs[1:] {
		for i, ms := range o {
			out[i] = append(out[i], ms...)
		}
	}
}

// tablesSplitMin is the number of queries from which tablesBatch shares
// the tables out among the cores.
const tablesSplitMin = 64

// tableBatch searches table t, in every level, for each of qs, in the
// order of their keys, with ps, order and spare as scratch (it returns
// the last two for reuse).
func (ix *Index) tableBatch(t int, qs, ps, order, spare []uint64, k int, visits []visitor) ([]uint64, []uint64) {
	tab := &ix.tabs[t]
	// Each query's key (its first 48 bits at most) above its number.
	kb := min(uint(tab.keyBits), 48)
	order = order[:0]
	for i, q := range qs {
		ps[i] = tab.permute(q)
		order = append(order, ps[i]>>(64-kb)<<16|uint64(i))
	}
	order, spare = sortProbes(order, spare, kb)
	for _, l := range ix.levels {
		if l.size() == 0 {
			continue
		}
		r := &l[t]
		xbits := extraKeyBits(uint(tab.keyBits), r.dbits)
		// As in search: the buckets of several queries are found and
		// touched before any is scanned, so that their misses overlap.
		for g := 0; g < len(order); g += probeGroup {
			group := order[g:min(len(order), g+probeGroup)]
			var lo, hi [probeGroup]int
			for j, o := range group {
				lo[j], hi[j] = r.bucket(ps[o&0xffff], xbits)
			}
			var touch uint64
			for j := range group {
				touch += r.touch(lo[j], min(hi[j], lo[j]+touchMax))
			}
			runtime.KeepAlive(touch)
			for j, o := range group {
				i := int(o & 0xffff)
				ix.scanTable(t, r, lo[j], hi[j], qs[i], ps[i], k, visits[i]) // appendMatches goes on, at k
			}
		}
	}
	return order, spare
}

// scanAllBatch is scanAll for several queries: the entries within k of
// qs[i] are visited by collect(i, &out[i]). Each word of 64 slots is tested against all the
// queries at once (nearMasks), which loads its fingerprints once. The
// caller holds mu shared.
func (ix *Index) scanAllBatch(qs []uint64, k int, out [][]Match, collect func(i int, dst *[]Match) visitor) {
	fps := ix.fps
	masks := make([]uint64, len(qs))
	bounds := queryBounds(len(qs), k)
	visits := make([]visitor, len(qs))
	for i := range qs {
		visits[i] = collect(i, &out[i])
	}
	for w, live := range ix.live {
		if live == 0 {
			continue
		}
		base := w * 64
		if base+64 > len(fps) { // the last word, not whole
			for i, q := range qs {
				ix.scanWords(w, w+1, q, bounds[i], visits[i])
			}
			continue
		}
		nearMasks((*[64]uint64)(fps[base:base+64]), qs, k, masks)
		for i, m := range masks {
			for m &= live; m != 0; m &= m - 1 {
				s := base + bits.TrailingZeros64(m)
				if d := bits.OnesCount64(qs[i] ^ fps[s]); d <= bounds[i] {
					bounds[i], _ = visits[i](ix.ids[s], fps[s], ix.tag(uint32(s)), d)
				}
			}
		}
	}
	for i, q := range qs {
		ix.scanPending(q, bounds[i], visits[i])
	}
}

// queryBounds returns the distance bounds of n queries, each k at first.
// The batch scans give a match to a query's visitor only within its
// bound, and keep the bound the visitor returns: nearestMatches narrows
// it to its farthest match once it holds as many as it keeps, so that a
// query among thousands of entries within k (texts that share a long
// footer) does not pass each one to its visitor.
func queryBounds(n, k int) []int {
	b := make([]int, n)
	for i := range b {
		b[i] = k
	}
	return b
}

// appendMatches returns a visitor that appends every match to *dst and
// keeps the bound k.
func appendMatches(dst *[]Match, k int) visitor {
	return func(id, fp uint64, tag uint16, d int) (int, bool) {
		*dst = append(*dst, Match{ID: id, FP: fp, Distance: d, Tag: tag})
		return k, true
	}
}

// radixMin is the number of probes per byte of key from which sortProbes
// sorts by radix: at 16-bit keys, 64 probes took 955 ns by radix and 695
// by comparison, 128 took 1,409 and 1,807; at 48-bit keys, 128 took 3,796
// and 2,164 (BenchmarkSortProbes).
const radixMin = 32

// sortProbes sorts probes, each a key of kb bits above 16 other bits, by
// key, keeping the order of probes of the same key, using spare as
// scratch. It returns the sorted slice and the other buffer for reuse.
//
// Fewer than radixMin probes per byte of key are sorted by comparison, on
// all 64 bits: the callers add the probes of a key in the order of their
// lower 16 bits (a query's number), so the result is the same. A radix
// pass costs about 200 ns whatever the count (its 257 counters), which
// made the sort of a few queries' keys cost 0.4-1.4 µs against 14-150 ns
// by comparison.
func sortProbes(probes, spare []uint64, kb uint) ([]uint64, []uint64) {
	if len(probes) < radixMin*int((kb+7)/8) {
		slices.Sort(probes)
		return probes, spare
	}
	return radixSortProbes(probes, spare, kb)
}

// radixSortProbes is sortProbes by radix, a byte at a time from the
// lowest (a stable counting sort per byte).
func radixSortProbes(probes, spare []uint64, kb uint) ([]uint64, []uint64) {
	spare = slices.Grow(spare[:0], len(probes))[:len(probes)]
	for shift := uint(16); shift < 16+kb; shift += 8 {
		var count [257]int
		for _, p := range probes {
			count[p>>shift&0xff+1]++
		}
		for i := 1; i < len(count); i++ {
			count[i] += count[i-1]
		}
		for _, p := range probes {
			d := p >> shift & 0xff
			spare[count[d]] = p
			count[d]++
		}
		probes, spare = spare, probes
	}
	return probes, spare
}
