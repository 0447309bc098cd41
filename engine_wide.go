package neardup

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/store"
)

// The queries of 128-bit fingerprints. Each role (long, short, shortLong)
// has two indexes, of the high and of the low halves, each queried at half
// the role's distance (see Engine.long). A document near enough is found
// through one of them or both; its 128-bit distance is then the sum of the
// two halves' distances when both found it, and is read from its record
// otherwise. The MaxCandidates nearest kept are those by the 128-bit
// distance: an index answers the nearest by its half's distance, so when
// one answers as many as were asked for, an entry it left out may yet be
// nearer by the whole than some it answered. halfFloor bounds how near it
// can be, and while that does not settle it the query is made again for
// twice as many (widen, roleWide).

// halfMatches are the matches of a document's high halves (hs) and low
// halves (ls) in one role's indexes, as a batch query found them: the
// MaxCandidates nearest of each.
type halfMatches struct{ hs, ls []index.Match }

// queryBatchWide is queryBatch at 128 bits: it sets out[i] for every
// document of ps that has not failed, nil when its matches could not be
// read (decideWith then queries again, and reports the error).
func (e *Engine) queryBatchWide(ps []prepared, out [][]index.Match) {
	var hi, lo, shortHi, shortLo, slHi, slLo []uint64
	var at, shortAt, slAt, ns []int
	for i := range ps {
		p := &ps[i]
		if p.err != nil {
			continue
		}
		hi, lo, at = append(hi, p.ix), append(lo, p.lo), append(at, i)
		switch {
		case e.short == nil:
		case e.heldShort(p.runes, p.norm):
			shortHi, shortLo, shortAt, ns = append(shortHi, p.ix), append(shortLo, p.lo), append(shortAt, i), append(ns, p.norm)
		default:
			slHi, slLo, slAt = append(slHi, p.ix), append(slLo, p.lo), append(slAt, i)
		}
	}
	most := e.opts.MaxCandidates
	long := make([]halfMatches, len(ps))
	second := make([]halfMatches, len(ps)) // of the short or the shortLong indexes
	hs, ls := e.long.QueryBatchNearest(hi, e.longIxK, most, nil), e.longLo.QueryBatchNearest(lo, e.longIxK, most, nil)
	for j, i := range at {
		long[i] = halfMatches{hs[j], ls[j]}
	}
	if len(shortAt) > 0 {
		// The length tags keep what they would for the whole distance and
		// more (see roleWide).
		hs, ls := e.short.queryBatch(shortHi, ns, most), e.shortLo.queryBatch(shortLo, ns, most)
		for j, i := range shortAt {
			second[i] = halfMatches{hs[j], ls[j]}
		}
	}
	if len(slAt) > 0 {
		hs, ls := e.shortLong.QueryBatchNearest(slHi, e.longIxK, most, nil), e.shortLongLo.QueryBatchNearest(slLo, e.longIxK, most, nil)
		for j, i := range slAt {
			second[i] = halfMatches{hs[j], ls[j]}
		}
	}
	parallel(len(at), func(j int) {
		i := at[j]
		ms, err := e.wideMatches(&ps[i], &long[i], &second[i])
		if err == nil {
			out[i] = ms
		}
	})
}

// wideMatches is query at 128 bits: it returns p's matches in each role's pair of indexes, the
// MaxCandidates nearest by 128-bit distance of each role, each Match with
// that distance; long and second are what a batch query found in the long
// indexes and in the short or shortLong ones, or nil to query them.
func (e *Engine) wideMatches(p *prepared, long, second *halfMatches) ([]index.Match, error) {
	most := e.opts.MaxCandidates
	ms, err := e.roleWide(p, e.long, e.longLo, e.longK, nil, most, long, nil)
	if err != nil {
		return nil, err
	}
	switch {
	case e.short == nil:
	case e.heldShort(p.runes, p.norm):
		// As shortIndex.query: the short index holds every short text
		// within the Long rule's distance too.
		keep := func(m index.Match) bool { return e.short.keeps(p.norm, m) }
		ms, err = e.roleWide(p, e.short.ix, e.shortLo.ix, e.short.radius(p.norm), keep, most, second, ms)
	default:
		ms, err = e.roleWide(p, e.shortLong, e.shortLongLo, e.longK, nil, most, second, ms)
	}
	if err != nil {
		return nil, err
	}
	if ms == nil {
		ms = []index.Match{} // queried, no match
	}
	return ms, nil
}

// roleWide appends to dst the most nearest of the entries of one role's
// indexes, hi and lo, within bound bits of p by 128-bit distance (each
// queried at bound/2) that keep accepts (nil: all). keep must accept a
// match at any smaller distance than one it accepts: it is given the
// half's distance inside the index, where that keeps a superset, and the
// whole distance after. pre, if not nil, holds the most nearest of each
// index already.
func (e *Engine) roleWide(p *prepared, hi, lo *index.Index, bound int, keep func(index.Match) bool, most int, pre *halfMatches, dst []index.Match) ([]index.Match, error) {
	k := bound / 2
	start := len(dst)
	n := most
	for round := 0; ; round++ {
		var h halfMatches
		if round == 0 && pre != nil {
			h = *pre
		} else {
			h = halfMatches{hi.QueryNearest(p.ix, k, n, keep, nil), lo.QueryNearest(p.lo, k, n, keep, nil)}
		}
		var sure bool
		var err error
		dst, sure, err = e.widen(p, h, n, bound, most, keep, dst[:start])
		if err != nil || sure {
			return dst, err
		}
		n *= 2
	}
}

// widen appends to dst the most nearest by 128-bit distance, within bound
// and kept by keep (nil: all), of h, p's matches in one role's two
// indexes, each the n nearest of its index by its half's distance (or all
// of them, when fewer); an entry both found comes once. It reports
// whether they are sure to be the most nearest of the indexes: they are
// unless an index answered n and an entry it left out may be nearer.
func (e *Engine) widen(p *prepared, h halfMatches, n, bound, most int, keep func(index.Match) bool, dst []index.Match) ([]index.Match, bool, error) {
	floor := halfFloor(h.hs, h.ls, n, bound/2)
	start := len(dst)
	var loAt map[uint64]int // the matches of the low halves by ID, when many
	if len(h.hs)*len(h.ls) > 256 {
		loAt = make(map[uint64]int, len(h.ls))
		for j, m := range h.ls {
			loAt[m.ID] = j
		}
	}
	inLo := func(id uint64) int {
		if loAt != nil {
			if j, ok := loAt[id]; ok {
				return j
			}
			return -1
		}
		for j, m := range h.ls {
			if m.ID == id {
				return j
			}
		}
		return -1
	}
	var both []bool // the matches of the low halves the high halves' found too
	if len(h.hs) > 0 && len(h.ls) > 0 {
		both = make([]bool, len(h.ls))
	}
	add := func(m index.Match) {
		if m.Distance <= bound && (keep == nil || keep(m)) {
			dst = append(dst, m)
		}
	}
	for _, m := range h.hs {
		if j := inLo(m.ID); j >= 0 {
			both[j] = true
			m.Distance += h.ls[j].Distance
			add(m)
			continue
		}
		d, _, ok, err := e.wideDistance(p, m.ID)
		if err != nil {
			return dst, false, err
		}
		if ok {
			m.Distance = d
			add(m)
		}
	}
	for j, m := range h.ls {
		if both != nil && both[j] {
			continue
		}
		d, fp, ok, err := e.wideDistance(p, m.ID)
		if err != nil {
			return dst, false, err
		}
		if ok {
			m.Distance, m.FP = d, fp // FP: the high half, as for the others
			add(m)
		}
	}
	got := dst[start:]
	slices.SortFunc(got, func(a, b index.Match) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID))
	})
	if len(got) > most {
		dst = dst[:start+most]
		got = got[:most]
	}
	sure := floor > bound || len(got) == most && got[most-1].Distance < floor
	return dst, sure, nil
}

// halfFloor returns the least 128-bit distance of an entry within 2k+1
// bits that neither hs nor ls holds, where hs and ls are the n nearest
// entries within k bits of a fingerprint's high and low halves (by the
// half's distance, then ID) of a role's two indexes, or all of them when
// fewer than n; math.MaxInt when there is none. Such an entry is within k
// bits in a half, so left out of that half's answer when it is cut: it is
// at least as far as the answer's last entry in that half and, in the
// other, as far as that answer's last entry too if it is cut, or more than
// k bits (otherwise that answer would hold it).
func halfFloor(hs, ls []index.Match, n, k int) int {
	hiCut, loCut := len(hs) >= n, len(ls) >= n
	switch {
	case hiCut && loCut:
		return hs[len(hs)-1].Distance + ls[len(ls)-1].Distance
	case hiCut:
		return hs[len(hs)-1].Distance + k + 1
	case loCut:
		return ls[len(ls)-1].Distance + k + 1
	}
	return math.MaxInt
}

// wideDistance returns the 128-bit distance of p from the document seq,
// read from its record, and the high half of its fingerprint; ok is false
// when the document is gone.
func (e *Engine) wideDistance(p *prepared, seq uint64) (d int, hi uint64, ok bool, err error) {
	rec, err := e.record(seq)
	if errors.Is(err, store.ErrNotFound) {
		return 0, 0, false, nil // deleted or expired meanwhile
	}
	if err != nil {
		return 0, 0, false, fmt.Errorf("neardup: %w", err)
	}
	if len(rec.Fingerprint) != 16 {
		return 0, 0, false, fmt.Errorf("neardup: stored fingerprint of %q has %d bits, engine uses 128", rec.ID, len(rec.Fingerprint)*8)
	}
	hi, lo := binary.BigEndian.Uint64(rec.Fingerprint), binary.BigEndian.Uint64(rec.Fingerprint[8:])
	return bits.OnesCount64(hi^p.ix) + bits.OnesCount64(lo^p.lo), hi, true, nil
}

// nearestHalves is nearestIndexed at 128 bits, for a query within k bits
// of q, a 128-bit fingerprint: the n entries nearest to q's high halves
// within k/2 bits in the high halves' long-text indexes, and those nearest
// to its low halves in the low halves', each entry once, with the
// distance of the half that found it (at most the whole distance). The
// entries left out are at least floor bits from q (halfFloor); all reports
// whether that is more than k, so that they hold every entry within k.
func (e *Engine) nearestHalves(q Fingerprint, k, n int) (ms []index.Match, all bool, floor int) {
	hi, lo := halves(q)
	floor = math.MaxInt
	for _, role := range [][2]*index.Index{{e.long, e.longLo}, {e.shortLong, e.shortLongLo}} {
		if role[0] == nil {
			continue
		}
		hs := role[0].QueryNearest(hi, k/2, n, nil, nil)
		ls := role[1].QueryNearest(lo, k/2, n, nil, nil)
		floor = min(floor, halfFloor(hs, ls, n, k/2))
		ms = append(append(ms, hs...), ls...)
	}
	slices.SortFunc(ms, func(a, b index.Match) int {
		return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Distance, b.Distance))
	})
	ms = slices.CompactFunc(ms, func(a, b index.Match) bool { return a.ID == b.ID })
	return ms, floor > k, floor
}
