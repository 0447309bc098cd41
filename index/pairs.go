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
		var wg sync.WaitGroup
		next := make(chan int)
		for range min(len(tabs), runtime.GOMAXPROCS(0)) {
			wg.Go(func() {
				var a, tmp []pairRec
				for t := range next {
					a, tmp = pairsTable(es, tabs, t, k, minRun, a, tmp, out)
				}
			})
		}
		for t := range tabs {
			next <- t
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
	shift := uint(64 - tab.keyBits)
	hits := make([]pairHit, 0, pairBatch)
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
				i, j := a[x].i, a[y].i
				if firstSharedTable(tabs, es[i].FP^es[j].FP, t) != t {
					continue
				}
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
	if len(hits) > 0 {
		out <- pairMsg{hits: hits}
	}
	return a, tmp
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
			w := min(width, 64-hb-shift)
			mask := uint64(1)<<w - 1
			clear(count[:1<<w])
			for _, r := range src {
				count[(r.p>>shift)&mask]++
			}
			sum := 0
			for i := range count[:1<<w] {
				count[i], sum = sum, sum+count[i]
			}
			for _, r := range src {
				d := (r.p >> shift) & mask
				dst[count[d]] = r
				count[d]++
			}
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
