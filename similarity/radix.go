package similarity

import "slices"

// sortHashes sorts a in increasing order. Hashes are uniformly spread, so
// for more than a few hundred of them an LSD radix sort (eight passes of
// one byte each, no comparisons to mispredict) beats a comparison sort.
func sortHashes(a []uint64) {
	if len(a) < 256 {
		slices.Sort(a)
		return
	}
	buf := make([]uint64, len(a))
	src, dst := a, buf
	for shift := uint(0); shift < 64; shift += 8 {
		var count [256]int
		for _, v := range src {
			count[byte(v>>shift)]++
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, v := range src {
			b := byte(v >> shift)
			dst[count[b]] = v
			count[b]++
		}
		src, dst = dst, src
	}
	// After an even number of passes the sorted data is back in a.
}
