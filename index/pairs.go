package index

import (
	"math"
	"math/bits"
	"runtime"
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
	if k < 0 || len(es) < 2 {
		return
	}
	if len(es) > math.MaxUint32 {
		panic("index: Pairs over more than 2^32 entries")
	}
	d, ok := choosePairsDesign(k, len(es))
	out := make(chan []pairHit, 64)
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
					a, tmp = pairsTable(es, tabs, t, k, a, tmp, out)
				}
			})
		}
		for t := range tabs {
			next <- t
		}
		close(next)
		wg.Wait()
	}()
	for hits := range out {
		for _, h := range hits {
			emit(es[h.a], es[h.b], int(h.d))
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
func pairsTable(es []Entry, tabs []table, t, k int, a, tmp []pairRec, out chan<- []pairHit) ([]pairRec, []pairRec) {
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
					out <- hits
					hits = make([]pairHit, 0, pairBatch)
				}
			}
		}
		lo = hi
	}
	if len(hits) > 0 {
		out <- hits
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
func bruteForcePairs(es []Entry, k int, out chan<- []pairHit) {
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
							out <- hits
							hits = make([]pairHit, 0, pairBatch)
						}
					}
				}
			}
			if len(hits) > 0 {
				out <- hits
			}
		})
	}
	wg.Wait()
}
