package index

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
)

// Pairs calls emit(a, b, d) exactly once for every unordered pair of
// entries of es within Hamming distance k of each other, with a the one
// that comes first in es and d their distance. Entries with identical
// fingerprints are pairs too (d = 0); ids play no part. Pairs sorts one
// permuted copy of the fingerprints per table of a design chosen for k and
// len(es) and compares entries only within runs of equal keys, on all
// cores. emit is called from the calling goroutine, one call at a time, in
// no particular order. A negative k gives no pairs. es may hold at most
// 2^32 entries; Pairs panics beyond that.
func Pairs(es []Entry, k int, emit func(a, b Entry, d int)) {
	pairs(es, k, emit, nil)
}

// A Joiner lets PairsJoin find the connected components of a graph whose
// edges are some of the pairs within k bits (those its Join accepts),
// without meeting every pair of a crowded run: a run of entries sharing a
// table's key (or all of them, where no table pays) holds every pair of
// its entries, so n texts that all lie within k bits of each other (one
// template with a changing number) made n² pairs to emit, and n² tests of
// whether each one's entries were already joined.
//
// A run of at least MinRun entries whose pairs are often within k (at
// least one in eight of a sample: crowded) is given to the Joiner instead
// of emit: each entry is compared with the sets its earlier entries in
// the run belong to, and with each set only until Join accepts one of its
// entries, as an entry joined to one member of a set is joined to all of
// them. A run of texts of one template then costs about one Join for each
// entry. Other runs are emitted as by Pairs.
type Joiner struct {
	// MinRun is the smallest run handed to Join; 0 means 4096.
	MinRun int
	// Find returns the representative of the set e is in: the same for
	// two entries exactly when they are joined.
	Find func(e Entry) int
	// Join is called, from the calling goroutine, for a pair of entries
	// within k bits in different sets, a the later one of the run, d
	// their distance. It tests the pair and, if it passes, merges their
	// sets (so that Find agrees afterwards) and returns true.
	Join func(a, b Entry, d int) bool
	// Alone, if set, names the entries that pair only with entries it
	// does not name: a pair of two it names is neither emitted nor
	// given to Join.
	Alone func(e Entry) bool
	// Settle, if set, is called before a run is given to Join, so that the
	// pairs emitted before it are tested and joined first: Find must then
	// answer for all of them.
	Settle func()
}

// PairsJoin is Pairs, except that the pairs of crowded runs go to j
// (see Joiner) instead of emit: a pair of such a run is given to Join, or
// left out because its entries were already in one set or because Join
// accepted another pair that joined them. Each pair within k bits that
// j.Alone does not rule out is either emitted, or considered by j in that
// way, exactly once. emit and j's functions are called from the calling
// goroutine, one call at a time.
func PairsJoin(es []Entry, k int, emit func(a, b Entry, d int), j Joiner) {
	if j.MinRun <= 0 {
		j.MinRun = 4096
	}
	pairs(es, k, emit, &j)
}

// pairs is Pairs, with crowded runs given to j when it is not nil.
func pairs(es []Entry, k int, emit func(a, b Entry, d int), j *Joiner) {
	if k < 0 || len(es) < 2 {
		return
	}
	if len(es) > math.MaxUint32 {
		panic("index: Pairs over more than 2^32 entries")
	}
	d, ok := choosePairsDesign(k, len(es))
	pairsDesign(es, k, d, ok, emit, j)
}

// pairsDesign is pairs with the design d, or every pair compared when ok
// is false.
func pairsDesign(es []Entry, k int, d Design, ok bool, emit func(a, b Entry, d int), j *Joiner) {
	if !ok && j != nil && len(es) >= j.MinRun {
		// Every pair is compared: the whole of es is one run, which no
		// table filters. crowded sees the same 64 entries in this
		// sample as in the whole run.
		step := max(1, len(es)/crowdSample)
		var sample []pairRec
		for i := 0; i < len(es); i += step {
			sample = append(sample, pairRec{p: es[i].FP})
		}
		if crowded(sample, k) {
			run := make([]pairRec, len(es))
			for i, e := range es {
				run[i] = pairRec{p: e.FP, i: uint32(i)}
			}
			joinRun(es, nil, -1, k, run, j)
			return
		}
	}
	minRun := math.MaxInt
	if j != nil {
		minRun = j.MinRun
	}
	out := make(chan pairMsg, 64)
	go func() {
		defer close(out)
		if !ok {
			bruteForcePairs(es, k, out)
			return
		}
		tabs := buildTables(d)
		jobs := pairsFamilies(tabs, len(es))
		var wg sync.WaitGroup
		next := make(chan pairJob)
		for range min(len(jobs), runtime.GOMAXPROCS(0)) {
			wg.Go(func() {
				var a, tmp []pairRec
				for job := range next {
					if job.lead == 0 {
						a, tmp = pairsTable(es, tabs, job.ts[0], k, minRun, a, tmp, out)
					} else {
						a, tmp = pairsFamily(es, tabs, job, k, minRun, a, tmp, out)
					}
				}
			})
		}
		for _, job := range jobs {
			next <- job
		}
		close(next)
		wg.Wait()
	}()
	for m := range out {
		if m.run != nil {
			joinRun(es, m.tabs, m.t, k, m.run, j)
			continue
		}
		for _, h := range m.hits {
			a, b := es[h.a], es[h.b]
			if j != nil && j.Alone != nil && j.Alone(a) && j.Alone(b) {
				continue
			}
			emit(a, b, int(h.d))
		}
	}
}

// crowded reports whether run, a run of entries sharing a key, looks like
// one whose pairs are mostly within k, judged on the pairs of 64 of its
// entries spread over it: at least one pair in eight. Only such a run is
// worth giving to a Joiner, one entry at a time on the calling goroutine:
// a run of unrelated entries (real texts' keys crowd, 300,000 random
// lines made runs of thousands) costs several times as much there as
// its pairs compared on all cores.
func crowded(run []pairRec, k int) bool {
	step := max(1, len(run)/crowdSample)
	near, all := 0, 0
	for x := 0; x < len(run); x += step {
		for y := x + step; y < len(run); y += step {
			all++
			if bits.OnesCount64(run[x].p^run[y].p) <= k {
				near++
			}
		}
	}
	return near*8 >= all && all > 0
}

// crowdSample is the number of entries of a run whose pairs crowded
// compares.
const crowdSample = 64

// pairMsg is what the searches of Pairs send: found pairs, or a crowded
// run for the Joiner (a copy, with its table t among tabs).
type pairMsg struct {
	hits []pairHit
	run  []pairRec
	tabs []table
	t    int
}

// joinRun gives j the pairs of run, a run of entries of es sharing table
// t's key (t < 0: all of es, no table), that are within k bits, that
// table t is the first to share and that j.Alone does not rule out. Each
// entry is compared, in run order, with the sets of the run's earlier
// entries: with the members of each set until Join accepts one of them,
// and not at all with its own set's. An entry that Alone names is
// compared only with the members it names not, in the sets that have
// some.
func joinRun(es []Entry, tabs []table, t, k int, run []pairRec, j *Joiner) {
	if j.Settle != nil {
		j.Settle()
	}
	// A set of the run's entries seen so far: positions in run, those
	// Alone names apart. Sets merge as Join accepts pairs; a set merged
	// into another is dead.
	type set struct {
		root          int
		paired, alone []int32
		dead          bool
		listed        bool // in pairable
	}
	var sets, pairable []*set // the live sets; those with paired members
	byRoot := make(map[int]*set)
	// merge puts s's members into own (or own's into s, when larger) and
	// returns the set that holds them all, rooted at x's root now.
	merge := func(own, s *set, ex Entry) *set {
		if own == nil {
			own = s
		} else {
			if len(own.paired)+len(own.alone) < len(s.paired)+len(s.alone) {
				own, s = s, own
			}
			own.paired = append(own.paired, s.paired...)
			own.alone = append(own.alone, s.alone...)
			s.paired, s.alone, s.dead = nil, nil, true
			delete(byRoot, s.root)
		}
		delete(byRoot, own.root)
		own.root = j.Find(ex)
		byRoot[own.root] = own
		return own
	}
	// tryJoin compares x with the members ys of s, and reports whether
	// Join accepted one.
	tryJoin := func(x int, ex Entry, ys []int32) bool {
		for _, y := range ys {
			d := bits.OnesCount64(run[x].p ^ run[y].p)
			if d > k {
				continue
			}
			ey := es[run[y].i]
			if t >= 0 && firstSharedTable(tabs, ex.FP^ey.FP, t) != t {
				continue
			}
			if j.Join(ex, ey, d) {
				return true
			}
		}
		return false
	}
	for x := range run {
		ex := es[run[x].i]
		alone := j.Alone != nil && j.Alone(ex)
		own := byRoot[j.Find(ex)]
		visit := &sets
		if alone {
			visit = &pairable
		}
		live := (*visit)[:0]
		for _, s := range *visit {
			if s.dead {
				continue
			}
			live = append(live, s)
			if s == own {
				continue
			}
			if tryJoin(x, ex, s.paired) || !alone && tryJoin(x, ex, s.alone) {
				own = merge(own, s, ex)
			}
		}
		*visit = live
		if own == nil {
			own = &set{root: j.Find(ex)}
			byRoot[own.root] = own
			sets = append(sets, own)
		}
		if alone {
			own.alone = append(own.alone, int32(x))
		} else {
			own.paired = append(own.paired, int32(x))
		}
		if len(own.paired) > 0 && !own.listed {
			own.listed = true
			pairable = append(pairable, own)
		}
	}
}

// pairHit is one found pair: indexes into es, a < b.
type pairHit struct {
	a, b uint32
	d    uint32
}

// pairRec is one entry of a sorted permuted table.
type pairRec struct {
	p uint64 // permuted fingerprint
	i uint32 // index into es
}

const pairBatch = 4096

// choosePairsDesign picks the design with the lowest predicted cost (a
// sort per table plus comparisons within equal-key runs); ok is false when
// comparing every pair is predicted to be cheaper.
func choosePairsDesign(k, n int) (Design, bool) {
	brute := float64(n) * float64(n) / 2 * 0.5
	if k >= Bits {
		return Design{}, false
	}
	var best Design
	bestCost := math.Inf(1)
	cands := Candidates(k)
	if k == 0 {
		cands = []Design{{Levels: []Level{{Blocks: 1, Key: 1}}}}
	}
	for _, d := range cands {
		var cost float64
		for _, kb := range keyWidths(d) {
			passes := float64((kb + 10) / 11)
			cost += float64(n)*(4+3*passes) + float64(n)*float64(n)/math.Exp2(float64(kb)+1)
		}
		if cost < bestCost {
			best, bestCost = d, cost
		}
	}
	return best, bestCost < brute
}

// pairJob is the work of one worker of Pairs: the tables ts, which share
// the first lead bits of their permuted fingerprints (lead 0: one table
// sorted alone, by pairsTable).
type pairJob struct {
	ts   []int
	lead uint
}

// Families of tables. In a design of b blocks, each table keyed on k of
// them, the tables with the same first key block begin their permuted
// fingerprints with the same bits (b-k+1 families: the 10 tables of 5/2
// make families of 4, 3, 2 and 1, the last sorted alone). Pairs sorts the
// entries by those bits once a family (pairsFamily), a pass over memory,
// and each of its tables then sorts every group of equal leading bits by
// the rest of its key, within the group, which stays in cache. At 10M
// random entries, k = 3 (5/2), Pairs took 1.50-1.63 s against 1.70-1.95 s
// with every table sorted alone, in turn (docs/PERFORMANCE.md, Index, "All
// pairs by families").
const (
	// familyMinLead is the fewest shared leading bits that make a family.
	familyMinLead = 8
	// familyMaxLead bounds the bits a family's first sort groups by: 2^13
	// groups, of about 1,200 entries each at 10M.
	familyMaxLead = 13
	// familyMin is the fewest entries for which Pairs sorts by families.
	familyMin = 1 << 12
)

// pairsFamilies groups the tables into the jobs of Pairs over n entries:
// families of tables whose permuted fingerprints begin with the same bits
// (at least familyMinLead of them, and fewer than each table's key),
// largest first, and the other tables alone.
func pairsFamilies(tabs []table, n int) []pairJob {
	var jobs []pairJob
	byFirst := make(map[int]int) // source position of the first key bit -> job
	for t := range tabs {
		first := tabs[t].segs[0]
		lead := uint(min(bits.OnesCount64(first.mask), tabs[t].keyBits-1, familyMaxLead))
		if n >= familyMin && lead >= familyMinLead {
			if j, ok := byFirst[first.shift]; ok {
				jobs[j].ts = append(jobs[j].ts, t)
				jobs[j].lead = min(jobs[j].lead, lead)
				continue
			}
			byFirst[first.shift] = len(jobs)
			jobs = append(jobs, pairJob{ts: []int{t}, lead: lead})
			continue
		}
		jobs = append(jobs, pairJob{ts: []int{t}})
	}
	for j := range jobs {
		if len(jobs[j].ts) == 1 {
			jobs[j].lead = 0
		}
	}
	// The largest families first, so that the last ones even out the
	// workers' shares.
	slices.SortStableFunc(jobs, func(a, b pairJob) int { return len(b.ts) - len(a.ts) })
	return jobs
}

// pairsFamily reports the pairs of each table of job, a family (see
// pairsFamilies): it groups es by the family's leading bits, then, for
// each table, sorts each group by the rest of the table's key and reports
// the pairs of its runs of equal keys that the table is the first to
// share, as pairsTable does. It returns its buffers for reuse.
func pairsFamily(es []Entry, tabs []table, job pairJob, k, minRun int, a, tmp []pairRec, out chan<- pairMsg) ([]pairRec, []pairRec) {
	if cap(a) < len(es) {
		a = make([]pairRec, len(es))
	}
	a = a[:len(es)]
	// a: the fingerprints themselves, grouped by the leading bits, which
	// lie side by side in every fingerprint from the position of the
	// family's first key bit (its first segment's shift).
	from := uint(tabs[job.ts[0]].segs[0].shift)
	gshift := 64 - job.lead
	start := make([]int, 1<<job.lead+1)
	for _, e := range es {
		start[e.FP<<from>>gshift+1]++
	}
	for g := 1; g < len(start); g++ {
		start[g] += start[g-1]
	}
	pos := slices.Clone(start[:len(start)-1])
	for i, e := range es {
		g := e.FP << from >> gshift
		a[pos[g]] = pairRec{p: e.FP, i: uint32(i)}
		pos[g]++
	}
	hits := make([]pairHit, 0, pairBatch)
	var group, scratch []pairRec
	for _, t := range job.ts {
		tab := &tabs[t]
		earlier := permutedMasks(tabs, t)
		for g := range len(start) - 1 {
			src := a[start[g]:start[g+1]]
			if len(src) < 2 {
				continue
			}
			group = slices.Grow(group[:0], len(src))[:len(src)]
			scratch = slices.Grow(scratch[:0], len(src))[:len(src)]
			for x, r := range src {
				group[x] = pairRec{p: tab.permute(r.p), i: r.i}
			}
			group, scratch = radixSortBits(group, scratch, job.lead, uint(tab.keyBits))
			hits = pairsRuns(tabs, t, k, minRun, earlier, group, hits, out)
		}
	}
	if len(hits) > 0 {
		out <- pairMsg{hits: hits}
	}
	return a, tmp
}

// radixSortBits sorts a by the bits from lo to hi (counted from the top)
// of p, least significant digit first, using tmp (as long as a) as
// scratch; it returns the sorted slice and the other buffer. It is for
// short slices, which stay in cache: digits of at most 8 bits.
func radixSortBits(a, tmp []pairRec, lo, hi uint) ([]pairRec, []pairRec) {
	if hi <= lo {
		return a, tmp
	}
	passes := (hi - lo + 7) / 8
	width := (hi - lo + passes - 1) / passes
	var count [1 << 8]int
	for end := hi; end > lo; end -= min(width, end-lo) {
		countingPass(a, tmp, 64-end, min(width, end-lo), count[:])
		a, tmp = tmp, a
	}
	return a, tmp
}

// countingPass places src into dst in the order of the w bits of p from
// bit shift up, keeping the order of equal digits (a pass of a least
// significant digit first radix sort), using count (2^w long at least)
// as scratch.
func countingPass(src, dst []pairRec, shift, w uint, count []int) {
	mask := uint64(1)<<w - 1
	count = count[:1<<w]
	clear(count)
	for _, r := range src {
		count[(r.p>>shift)&mask]++
	}
	sum := 0
	for i := range count {
		count[i], sum = sum, sum+count[i]
	}
	for _, r := range src {
		d := (r.p >> shift) & mask
		dst[count[d]] = r
		count[d]++
	}
}

// pairsTable sorts es by table t's key and reports the pairs of each run
// of equal keys that table t is the first to share. It returns its buffers
// for reuse.
func pairsTable(es []Entry, tabs []table, t, k, minRun int, a, tmp []pairRec, out chan<- pairMsg) ([]pairRec, []pairRec) {
	tab := &tabs[t]
	if cap(a) < len(es) {
		a = make([]pairRec, 0, len(es))
	}
	a, tmp = a[:0], tmp[:0]
	for i, e := range es {
		a = append(a, pairRec{p: tab.permute(e.FP), i: uint32(i)})
	}
	if cap(tmp) < len(a) {
		tmp = make([]pairRec, len(a))
	}
	tmp = tmp[:len(a)]
	a, tmp = radixSortKey(a, tmp, tab.keyBits)
	hits := pairsRuns(tabs, t, k, minRun, permutedMasks(tabs, t), a, make([]pairHit, 0, pairBatch), out)
	if len(hits) > 0 {
		out <- pairMsg{hits: hits}
	}
	return a, tmp
}

// pairsRuns reports the pairs of each run of equal keys of a, sorted by
// table t's key, that table t is the first to share (earlier: the earlier
// tables' key masks, permuted as t permutes; see permutedMasks): crowded runs of at
// least minRun entries as runs, the others' pairs added to hits, which go
// out each time pairBatch of them are found. It returns hits, with the
// pairs not sent yet.
func pairsRuns(tabs []table, t, k, minRun int, earlier []uint64, a []pairRec, hits []pairHit, out chan<- pairMsg) []pairHit {
	shift := uint(64 - tabs[t].keyBits)
	for lo := 0; lo < len(a); {
		key := a[lo].p >> shift
		hi := lo + 1
		for hi < len(a) && a[hi].p>>shift == key {
			hi++
		}
		if hi-lo >= minRun && crowded(a[lo:hi], k) {
			out <- pairMsg{run: slices.Clone(a[lo:hi]), tabs: tabs, t: t}
			lo = hi
			continue
		}
		for x := lo; x < hi; x++ {
			px := a[x].p
			for y := x + 1; y < hi; y++ {
				d := bits.OnesCount64(px ^ a[y].p)
				if d > k {
					continue
				}
				if sharesEarlier(px^a[y].p, earlier) {
					continue
				}
				i, j := a[x].i, a[y].i
				if i > j {
					i, j = j, i
				}
				hits = append(hits, pairHit{a: i, b: j, d: uint32(d)})
				if len(hits) == pairBatch {
					out <- pairMsg{hits: hits}
					hits = make([]pairHit, 0, pairBatch)
				}
			}
		}
		lo = hi
	}
	return hits
}

// permutedMasks returns the key masks of the tables before t, permuted as
// table t permutes fingerprints: two fingerprints agree on table u's key
// exactly when their permuted forms, XORed, have no bit of the u-th mask,
// so the pairs of t's runs are tested without reading the fingerprints
// themselves, a random access each (at 10M entries, a quarter of Pairs'
// time went there).
func permutedMasks(tabs []table, t int) []uint64 {
	out := make([]uint64, t)
	for u := range out {
		out[u] = tabs[t].permute(tabs[u].keyMask)
	}
	return out
}

// sharesEarlier reports whether two permuted fingerprints that differ in
// x agree on the key of a table whose mask is in earlier (permutedMasks).
func sharesEarlier(x uint64, earlier []uint64) bool {
	for _, m := range earlier {
		if x&m == 0 {
			return true
		}
	}
	return false
}

// firstSharedTable returns the first table on whose key bits two
// fingerprints differing in x agree, looking no further than limit.
func firstSharedTable(tabs []table, x uint64, limit int) int {
	for u := 0; u < limit; u++ {
		if x&tabs[u].keyMask == 0 {
			return u
		}
	}
	return limit
}

// radixSortKey sorts a by the top keyBits bits of p, using tmp as
// scratch; it returns the sorted slice and the other buffer. A first pass
// groups by the top 11 bits; each group, small enough to stay in cache, is
// then sorted by the remaining key bits, least significant digit first.
func radixSortKey(a, tmp []pairRec, keyBits int) ([]pairRec, []pairRec) {
	hb := uint(min(11, keyBits))
	var start [1<<11 + 1]int
	for _, r := range a {
		start[r.p>>(64-hb)+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	var pos [1 << 11]int
	copy(pos[:], start[:])
	for _, r := range a {
		d := r.p >> (64 - hb)
		tmp[pos[d]] = r
		pos[d]++
	}
	a, tmp = tmp, a
	rest := uint(keyBits) - hb
	if rest == 0 {
		return a, tmp
	}
	passes := (rest + 10) / 11
	width := (rest + passes - 1) / passes
	var count [1 << 11]int
	for g := range 1 << hb {
		src, dst := a[start[g]:start[g+1]], tmp[start[g]:start[g+1]]
		for shift := 64 - uint(keyBits); shift < 64-hb; shift += width {
			countingPass(src, dst, shift, min(width, 64-hb-shift), count[:])
			src, dst = dst, src
		}
	}
	if (rest+width-1)/width%2 == 1 {
		a, tmp = tmp, a
	}
	return a, tmp
}

// bruteForcePairs compares every pair, split across all cores.
func bruteForcePairs(es []Entry, k int, out chan<- pairMsg) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			hits := make([]pairHit, 0, pairBatch)
			// Rows are dealt round-robin so that workers share the
			// triangle evenly.
			for i := w; i < len(es); i += workers {
				fi := es[i].FP
				for j := i + 1; j < len(es); j++ {
					if d := bits.OnesCount64(fi ^ es[j].FP); d <= k {
						hits = append(hits, pairHit{a: uint32(i), b: uint32(j), d: uint32(d)})
						if len(hits) == pairBatch {
							out <- pairMsg{hits: hits}
							hits = make([]pairHit, 0, pairBatch)
						}
					}
				}
			}
			if len(hits) > 0 {
				out <- pairMsg{hits: hits}
			}
		})
	}
	wg.Wait()
}
