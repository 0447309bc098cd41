package index

import (
	"iter"
	"math/bits"
	"runtime"
	"slices"
)

// Distances beyond the design.
//
// A design of one level whose tables each key on one of m blocks (4/1, 5/1,
// and so on) cuts the 64 bits into m disjoint blocks. Two fingerprints
// within distance k then differ in at most ρ_i bits of block i for some i,
// whenever the radii ρ_i add up to k-m+1 or more: otherwise each block
// holds at least ρ_i+1 differences, k+1 in all. So a query for any k can
// still use the tables, by looking up in table i every key within ρ_i bits
// of the query's (multi-index hashing: Norouzi, Punjani and Fleet, "Fast
// Search in Hamming Space with Multi-Index Hashing", CVPR 2012). It pays
// one bucket lookup per key probed, C(b,0)+...+C(b,ρ) for a block of b
// bits, instead of a scan of every stored fingerprint; the index takes
// whichever its cost model predicts to be cheaper (probePlan).

// Cost model of probePlan, in nanoseconds a query, fitted on SimHash
// fingerprints of generated English at k=10 (bench index's text data, held
// in 4/1 and 5/1 indexes of 20k to 1M entries, half the queries near a
// stored entry, the EPYC host of docs/PERFORMANCE.md). Text fingerprints
// cluster, so a probed bucket near a text's key holds several times its
// share of entries: a candidate's cost is that of one entry of a uniform
// share of the probed buckets, clustering included. Queries one at a time
// (Query) and in batches (QueryBatch, 500 at once, wall time on two cores)
// have their own columns: a batch reads a bucket that several of its
// queries probe once, and tests each word of a scan against 64 queries.
//
// Measured, single queries (batches), in µs a query:
//
//	entries              20k          100k         400k         1M
//	scan              2.1 (1.1)   11.2 (4.6)   44.5 (17.4)   110 (44)
//	probe 5/1 wide    4.9 (4.2)    7.8 (3.9)   18.1 (6.9)    47 (19)
//	probe 4/1 wide   16.2 (8.4)   16.2 (7.4)   23.3 (10.2)   49 (23)
//	probe 5/1 narrow  8.5 (4.7)   13.8 (7.0)   49.3 (19.3)  164 (60)
//
// Without AVX-512 a scan cost 0.8-1.0 ns a fingerprint alone and 0.33 in
// batches in portable Go. With AVX2 (nearMaskAVX2) it cost 0.28 and 0.36
// times as much as portable Go on an EPYC host without AVX-512 (0.38-0.44
// ns against 1.42-1.62 alone, 0.18-0.23 against 0.53-0.60 in batches of
// 512, at 100k and 400k random entries), which puts it at 0.25 and 0.12 in
// the units of the table.
//
// A lone lookup is put at 40 ns, not the 32 these indexes of one level
// show, to fit the tiers beside a main level as well: probing a tier
// of 45k entries (main level 200k) cost a lone query 2.9 µs more than
// scanning it, which 40 ns predicts (32: 1.7), and one of 120k (main
// level 700k) about as much as scanning it (40: 2.1 µs less; 32: 3.3).
type costModel struct {
	probe     float64 // one bucket lookup
	candidate float64 // one entry of a uniform share of the probed buckets, Wide
	narrow    float64 // the same without Wide, whose candidates are loaded
	scan      float64 // one fingerprint of a linear scan with AVX-512
	scanAVX2  float64 // the same with AVX2 and without AVX-512
	scanPlain float64 // the same in portable Go
}

var (
	singleCost = costModel{probe: 40, candidate: 2.4, narrow: 8.5, scan: 0.11, scanAVX2: 0.25, scanPlain: 0.9}
	batchCost  = costModel{probe: 18, candidate: 1.0, narrow: 3.5, scan: 0.045, scanAVX2: 0.12, scanPlain: 0.33}
	// smallBatchCost is batchCost for groups of fewer than batchGroup
	// queries, which seldom share a bucket: each probes at a lone query's
	// cost (halved, as batchCost is wall time on two cores) while a scan
	// still tests each word against all of them. On one core, at k=10 on
	// 5/1, groups of 25 took 8.6 µs a query probing and 7.9 scanning at
	// 100k entries, 10.0 and 11.9 at 150k; groups of 64 7.8 and 8.3 at
	// 100k.
	smallBatchCost = costModel{probe: 20, candidate: 1.2, narrow: 4.25, scan: 0.045, scanAVX2: 0.12, scanPlain: 0.33}
)

// batchCostFor returns the cost model of a query asked in a group of g.
func batchCostFor(g int) *costModel {
	if g < batchGroup {
		return &smallBatchCost
	}
	return &batchCost
}

// probeRadii returns the radius each table is probed with to answer
// distance k, or nil when the design is not one level of single-block
// keys of less than 64 bits. Radii sum to k-m+1 for m tables (a table of
// radius -1 is skipped); the first tables, whose blocks are the widest,
// get the larger ones.
func probeRadii(d Design, k int) []int {
	if len(d.Levels) != 1 || d.Levels[0].Key != 1 || d.Levels[0].Blocks < 2 || k < 0 {
		return nil
	}
	m := d.Levels[0].Blocks
	r := make([]int, m)
	for i := range r {
		r[i] = k / m
		if i > k%m {
			r[i]--
		}
	}
	return r
}

// probeDesign returns d, the design ChooseDesign took for distance k and n
// entries within budget bytes an entry, or a design of one level of
// single-block keys that answers k by probing (m/1 for 2 <= m <= k) and is
// predicted to cost a query less, the cheapest such within budget (wide
// when that fits too). It looks for one only when d is itself a design of
// one level of single-block keys (k+1 blocks or more), whose keys are
// short and whose buckets grow with the index: the designs a tight memory
// bound leaves. On SimHash fingerprints of text at k 6 and 4M entries (bench
// index), 7/1 took 108 µs of CPU a query (85 bytes an entry), 4/1 probed
// 27 µs (77 bytes), 3/1 34 µs (68 bytes); the models put each lower, and
// pick 4/1 too (docs/PERFORMANCE.md, Index, "Probing under a memory
// bound").
func probeDesign(k, n int, budget float64, d Design) Design {
	if len(d.Levels) != 1 || d.Levels[0].Key != 1 {
		return d
	}
	best, bestNs := d, EstimateDesign(d, n).QueryNs
	for m := 2; m <= k; m++ {
		pd := Design{Levels: []Level{{Blocks: m, Key: 1}}}
		radii := probeRadii(pd, k)
		e := EstimateDesign(pd, n)
		wide := fitsWide(e, budget) // as wideFor will decide
		if !wide && e.BytesPerEntry > budget {
			continue
		}
		fixed, perEntry, _ := singleCost.probeCost(buildTables(pd), radii, wide)
		if ns := fixed + perEntry*float64(n); ns < bestNs {
			best, bestNs = pd, ns
		}
	}
	return best
}

// probeCost predicts a probed query at radii under cost model c: fixed
// nanoseconds (the bucket lookups of one level), nanoseconds per entry of
// a level, and the probes it makes.
func (c *costModel) probeCost(tabs []table, radii []int, wide bool) (fixed, perEntry float64, probes int) {
	var share float64
	for i, t := range tabs {
		keys := 0
		for j := 0; j <= radii[i]; j++ {
			keys += binomial(t.keyBits, j)
		}
		probes += keys
		share += float64(keys) / float64(uint64(1)<<t.keyBits)
	}
	per := c.narrow
	if wide {
		per = c.candidate
	}
	return float64(probes) * c.probe, share * per, probes
}

// probePlan reports whether a query at distance k over the index's
// current entries costs less by probing (with radii) than by a scan of
// every slot, and which tiers that probing scans instead (bit j of scan
// for level j): a small tier costs less to scan than to probe with every
// key, since each level pays all the lookups. c is the cost model of the
// query: singleCost alone, batchCostFor in a batch.
func (ix *Index) probePlan(radii []int, c *costModel) (scan uint64, ok bool) {
	if radii == nil || ix.probe < 0 {
		return 0, false
	}
	fixed, perEntry, probes := c.probeCost(ix.tabs, radii, ix.wide)
	if ix.probe > 0 {
		// Tests: not the million probes of 2/1 at k 13. Mode 2 scans
		// every tier.
		if ix.probe == 2 {
			for j := 1; j < len(ix.levels); j++ {
				if ix.levels[j].size() > 0 {
					scan |= 1 << j
				}
			}
		}
		return scan, probes <= 1<<12
	}
	probed := 0.0
	for j, l := range ix.levels {
		n := l.size()
		if n == 0 {
			continue
		}
		viaProbe := fixed + perEntry*float64(n)
		if viaScan := float64(n) * c.scanCost(); j > 0 && viaScan < viaProbe {
			scan |= 1 << j
			probed += viaScan
		} else {
			probed += viaProbe
		}
	}
	n := len(ix.fps)
	return scan, probed < float64(n)*c.scanCost()
}

// scanCost is the cost model's nanoseconds per fingerprint of a linear
// scan. Past the processor's caches (tens of millions of entries) a scan
// costs more, but probing costs less than it long before.
func (c *costModel) scanCost() float64 {
	switch {
	case useAVX512:
		return c.scan
	case useAVX2:
		return c.scanAVX2
	}
	return c.scanPlain
}

// scanTiers visits the entries within k of q of the tiers that scan marks
// (see probePlan) and reports whether visit asked to go on. The caller
// holds mu shared.
func (ix *Index) scanTiers(q uint64, k int, scan uint64, visit visitor) bool {
	for j := range ix.levels {
		if scan&(1<<j) == 0 || ix.levels[j].size() == 0 {
			continue
		}
		slots := ix.levels[j][0].slot
		if !eachNear(ix.tierFP[j], q, &k, func(i, d int) bool {
			if !ix.isLive(slots[i]) {
				return true
			}
			var more bool
			k, more = visit(ix.ids[slots[i]], ix.tierFP[j][i], ix.tag(slots[i]), d)
			return more
		}) {
			return false
		}
	}
	return true
}

// searchProbe visits every entry of the levels within k of q by probing
// each table i with every key within radii[i] bits of q's, and reports
// whether visit asked to go on. Each match is reported once: through the
// table whose block holds the fewest of its differences among those that
// hold no more than their radius (reportingTable), and there by the probe
// whose flipped bits are exactly the match's differences in that block.
//
// The probes go in rounds: every table's keys that differ from q's in no
// bit, then in one bit, and so on. A match is reported in the round of its
// fewest differences in a block, so after round f every entry within
// roundsCover(radii, f) of q has been visited; once visit has narrowed k
// to that (a search for the nearest entries, when enough are near), the
// rounds left are skipped. The caller holds mu shared and scans the
// buffer and the pending entries itself.
func (ix *Index) searchProbe(q uint64, k int, radii []int, scan uint64, visit visitor) bool {
	if !ix.probesAny(scan) {
		return true // nothing to probe: every entry is in scanned tiers or recent
	}
	for f, last := 0, slices.Max(radii); f <= last && k > roundsCover(radii, f-1); f++ {
		for t := range ix.tabs {
			if radii[t] < f {
				continue
			}
			if k = ix.probeRound(q, k, t, f, radii, scan, visit); k < 0 {
				return false
			}
		}
	}
	return true
}

// roundsCover returns the distance within which the probes that flip at
// most f key bits of each table (and at most its radius) find every entry:
// an entry none of them finds differs from the query in more than
// min(f, radii[t]) bits of every block t, so in at least the sum of those
// plus one. It is -1 for f < 0, before any round.
func roundsCover(radii []int, f int) int {
	if f < 0 {
		return -1
	}
	c := -1
	for _, r := range radii {
		c += min(r, f) + 1
	}
	return c
}

// probesAny reports whether a level holds entries and is not one of the
// scanned tiers of scan, so that probing has something to find.
func (ix *Index) probesAny(scan uint64) bool {
	for j, l := range ix.levels {
		if scan&(1<<j) == 0 && l.size() > 0 {
			return true
		}
	}
	return false
}

// probeRound runs the probes of table t for q whose keys differ from q's
// in exactly f bits, probeGroup at a time (probeBatch). It returns the
// distance bound to go on with, or -1 when visit asked to stop.
func (ix *Index) probeRound(q uint64, k, t, f int, radii []int, scan uint64, visit visitor) int {
	var flips [probeGroup]uint64 // key bits flipped by a batch of probes
	tab := &ix.tabs[t]
	kb := uint(tab.keyBits)
	p := tab.permute(q)
	n := 0
	for c := range keyFlips(kb, f) {
		flips[n] = c
		if n++; n == len(flips) {
			if k = ix.probeBatch(q, p, k, t, radii, scan, flips[:n], visit); k < 0 {
				return -1
			}
			n = 0
		}
	}
	if n == 0 {
		return k
	}
	return ix.probeBatch(q, p, k, t, radii, scan, flips[:n], visit)
}

// keyFlips yields every set of f of the low kb bits, as a mask, in
// increasing order (Gosper's hack).
func keyFlips(kb uint, f int) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for c := uint64(1)<<f - 1; c < 1<<kb; {
			if !yield(c) || c == 0 {
				return
			}
			v := c + c&-c
			c = v + (v^c)>>(bits.TrailingZeros64(c)+2)
		}
	}
}

// probeBatch runs the probes of table t that flip the given key bits of p
// (q permuted), level by level: it finds every probe's bucket first and
// touches their cache lines, so that the misses overlap, and then scans
// them. It returns the distance bound to go on with, or -1 when visit
// asked to stop.
func (ix *Index) probeBatch(q, p uint64, k, t int, radii []int, scan uint64, flips []uint64, visit visitor) int {
	tab := &ix.tabs[t]
	kb := uint(tab.keyBits)
	for j, l := range ix.levels {
		if l.size() == 0 || scan&(1<<j) != 0 {
			continue
		}
		r := &l[t]
		xbits := probeXBits(kb, r.dbits)
		var lo, hi [probeGroup]int
		var touch uint64
		for i, c := range flips {
			lo[i], hi[i] = r.bucket(p^c<<(64-kb), xbits)
		}
		for i := range flips {
			touch += r.touch(lo[i], hi[i])
		}
		runtime.KeepAlive(touch)
		for i, c := range flips {
			if k = ix.probeBucket(q, p^c<<(64-kb), c, k, t, r, lo[i], hi[i], radii, visit); k < 0 {
				return -1
			}
		}
	}
	return k
}

// probeXBits returns the key bits beyond the directory (of dbits bits)
// by which a probe narrows its bucket, of a key of kb bits: narrowing pays
// when they are several, as a bucket then holds about 2^xbits keys.
func probeXBits(kb, dbits uint) uint {
	xbits := extraKeyBits(kb, dbits)
	if xbits < 3 {
		return 0
	}
	return xbits
}

// probeBucket visits the entries of r[lo:hi], the bucket of table t's
// probe pp (q permuted, with the key bits c flipped), that this probe
// reports: those within k of q whose key differs from q's in exactly the
// bits c, and whose reporting table (reportingTable) is t.
// It returns the distance bound to go on with, or -1 when visit asked to
// stop.
func (ix *Index) probeBucket(q, pp, c uint64, k, t int, r *tableRun, lo, hi int, radii []int, visit visitor) int {
	tab := &ix.tabs[t]
	kb := uint(tab.keyBits)
	f := bits.OnesCount64(c)
	if f > k || lo == hi {
		return k
	}
	// hit reports whether the entry of slot s, of fingerprint fp, is one
	// this probe reports, and at what distance.
	hit := func(s uint32, fp uint64) (int, bool) {
		x := q ^ fp
		d := bits.OnesCount64(x)
		return d, d <= k && tab.permute(x)>>(64-kb) == c && reportingTable(ix.tabs, radii, x) == t && ix.isLive(s)
	}
	if r.rest != nil && hi-lo < scan64MaskMin {
		// A small wide bucket: tested in place, without the calls and
		// batches of the general path.
		qr := pp << r.dbits
		for j := lo; j < hi; j++ {
			if bits.OnesCount64(r.rest[j]^qr) > k-f {
				continue
			}
			s := r.slot[j]
			fp := ix.fps[s]
			if d, ok := hit(s, fp); ok {
				var more bool
				if k, more = visit(ix.ids[s], fp, ix.tag(s), d); !more {
					return -1
				}
			}
		}
		return k
	}
	return ix.probeBucketBatched(pp, k, f, r, lo, hi, hit, visit)
}

// probeBucketBatched is probeBucket's path for a bucket that is not small
// and wide: as in search, candidates that pass the stored bits are checked
// in batches, so that their fingerprint loads overlap. The stored bits
// differ from the probe's in k-f places at most for every entry the probe
// reports; hit says which those are.
func (ix *Index) probeBucketBatched(pp uint64, k, f int, r *tableRun, lo, hi int, hit func(s uint32, fp uint64) (int, bool), visit visitor) int {
	var cand [candBatch]uint32
	var fps [candBatch]uint64
	slots := r.slot[lo:hi]
	n := 0
	check := func() bool {
		for j := range n {
			fps[j] = ix.fps[cand[j]]
		}
		for j := range n {
			s, fp := cand[j], fps[j]
			d, ok := hit(s, fp)
			if !ok {
				continue
			}
			var more bool
			if k, more = visit(ix.ids[s], fp, ix.tag(s), d); !more {
				return false
			}
		}
		n = 0
		return true
	}
	if !(r.scanBucket(lo, hi, pp, k-f, func(j int) bool {
		cand[n] = slots[j]
		n++
		return n < candBatch || check()
	}) && check()) {
		return -1
	}
	return k
}

// reportingTable returns the table that reports an entry whose difference
// from the query is x: among the tables whose key bits of x are within
// their radius, the one with the fewest (the first of those with as few),
// so that the rounds of searchProbe report it in the first round that can.
func reportingTable(tabs []table, radii []int, x uint64) int {
	best, fewest := len(tabs), bits.UintSize+1
	for i := range tabs {
		if d := bits.OnesCount64(x & tabs[i].keyMask); d <= radii[i] && d < fewest {
			if d == 0 {
				return i
			}
			best, fewest = i, d
		}
	}
	return best
}
