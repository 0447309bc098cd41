package similarity

import "slices"

// sortHashes sorts a in increasing order. Hashes are spread uniformly, so
// one counting pass on the top byte splits them into 256 buckets of a few
// dozen each, which a comparison sort then finishes: much faster than
// sorting the whole slice by comparisons for thousands of hashes.
func sortHashes(a []uint64) {
	if len(a) < 512 {
		slices.Sort(a)
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
	buf := make([]uint64, len(a))
	for _, v := range a {
		buf[next[v>>56]] = v
		next[v>>56]++
	}
	for b := range 256 {
		bucket := buf[start[b]:start[b+1]]
		slices.Sort(bucket)
	}
	copy(a, buf)
}
