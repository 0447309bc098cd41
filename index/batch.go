package index

import (
	"math/bits"
	"slices"
)

// QueryBatch returns, for each qs[i], what Query(qs[i], k, nil) returns.
// Where the index answers k by a linear scan of its slots (k beyond the
// tables, probing not predicted cheaper), the queries are scanned
// together: each word of 64 slots is tested against every query of a
// group before the next word is read, so the slots come from memory once
// per group instead of once per query. Otherwise the queries run one
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

// batchGroup is the number of queries QueryBatch scans together under
// one read lock.
const batchGroup = 64

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
// within k of qs[i]. Each word of 64 slots is tested against all the
// queries at once (nearMasks), which loads its fingerprints once. The
// caller holds mu shared.
func (ix *Index) scanAllBatch(qs []uint64, k int, out [][]Match) {
	fps := ix.fps
	masks := make([]uint64, len(qs))
	for w, live := range ix.live {
		if live == 0 {
			continue
		}
		base := w * 64
		if base+64 > len(fps) { // the last word, not whole
			for i, q := range qs {
				ix.scanWords(w, w+1, q, k, appendMatches(&out[i], k))
			}
			continue
		}
		nearMasks((*[64]uint64)(fps[base:base+64]), qs, k, masks)
		for i, m := range masks {
			for m &= live; m != 0; m &= m - 1 {
				s := base + bits.TrailingZeros64(m)
				out[i] = append(out[i], Match{ID: ix.ids[s], FP: fps[s], Distance: bits.OnesCount64(qs[i] ^ fps[s]), Tag: ix.tag(uint32(s))})
			}
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
