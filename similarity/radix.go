package similarity

import (
	"slices"
	"sync"
)

// scratch holds sortHashes's buffers, so that a sort neither allocates nor
// clears one.
var scratch = sync.Pool{New: func() any { return new([]uint64) }}

// sortHashes sorts a in increasing order. Hashes are spread uniformly, so
// one counting pass on the top byte splits them into 256 buckets of a few
// each, which an insertion sort then finishes: much faster than sorting
// the whole slice by comparisons, for hundreds of hashes as for thousands.
func sortHashes(a []uint64) {
	if len(a) < 64 {
		insertionSort(a)
		return
	}
	var start [257]int
	for _, v := range a {
		start[v>>56+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	next := start
	bp := scratch.Get().(*[]uint64)
	defer scratch.Put(bp)
	if cap(*bp) < len(a) {
		*bp = make([]uint64, len(a))
	}
	buf := (*bp)[:len(a)]
	for _, v := range a {
		buf[next[v>>56]] = v
		next[v>>56]++
	}
	for b := range 256 {
		bucket := buf[start[b]:start[b+1]]
		if len(bucket) > 32 {
			slices.Sort(bucket) // many equal top bytes: not uniform after all
		} else {
			insertionSort(bucket)
		}
	}
	copy(a, buf)
}

// insertionSort sorts a, a short slice, in increasing order.
func insertionSort(a []uint64) {
	for i := 1; i < len(a); i++ {
		v, j := a[i], i
		for ; j > 0 && a[j-1] > v; j-- {
			a[j] = a[j-1]
		}
		a[j] = v
	}
}
