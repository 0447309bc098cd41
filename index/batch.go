package index

import "slices"

// QueryBatch returns, for each qs[i], what Query(qs[i], k, nil) returns.
// Where the index answers k by a linear scan of its slots (k beyond the
// tables, probing not predicted cheaper), the queries are scanned
// together: each cache-sized chunk of slots is tested against every query
// of a group before the next chunk is read, so the slots come from memory
// once per group instead of once per query. Otherwise the queries run one
// by one. Groups run on all cores; each takes the read lock once, so
// writers wait for at most one group.
func (ix *Index) QueryBatch(qs []uint64, k int) [][]Match {
	out := make([][]Match, len(qs))
	parallelFor((len(qs)+batchGroup-1)/batchGroup, len(qs) > batchGroup, func(gi int) {
		g := gi * batchGroup
		group := qs[g:min(len(qs), g+batchGroup)]
		res := out[g : g+len(group)]
		ix.mu.RLock()
		if ix.scansAll(k) && len(group) > 1 {
			ix.scanAllBatch(group, k, res)
		} else {
			for i, q := range group {
				ix.search(q, k, appendMatches(&res[i], k))
			}
		}
		ix.mu.RUnlock()
	})
	for _, ms := range out {
		if len(ms) > 1 {
			slices.SortFunc(ms, compareMatch)
		}
	}
	return out
}

const (
	batchGroup = 64 // queries QueryBatch scans together under one read lock
	chunkWords = 32 // live words (2,048 slots, 16 KiB of fingerprints) a chunk of the batched scan covers
)

// scansAll reports whether search answers k by scanAll. The caller holds
// mu shared.
func (ix *Index) scansAll(k int) bool {
	if k <= ix.opts.K {
		return false
	}
	_, probe := ix.probePlan(probeRadii(ix.opts.Design, k))
	return !probe
}

// scanAllBatch is scanAll for several queries: out[i] receives the entries
// within k of qs[i]. The caller holds mu shared.
func (ix *Index) scanAllBatch(qs []uint64, k int, out [][]Match) {
	for w0 := 0; w0 < len(ix.live); w0 += chunkWords {
		w1 := min(len(ix.live), w0+chunkWords)
		for i, q := range qs {
			ix.scanWords(w0, w1, q, k, appendMatches(&out[i], k))
		}
	}
	for i, q := range qs {
		ix.scanPending(q, k, appendMatches(&out[i], k))
	}
}

// appendMatches returns a visitor that appends every match to *dst and
// keeps the bound k.
func appendMatches(dst *[]Match, k int) visitor {
	return func(id, fp uint64, tag uint16, d int) (int, bool) {
		*dst = append(*dst, Match{ID: id, FP: fp, Distance: d, Tag: tag})
		return k, true
	}
}
