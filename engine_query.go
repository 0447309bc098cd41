package neardup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/store"
)

// QueryFingerprint returns the stored documents whose fingerprints are
// within k bits of fp, nearest first (then in the store's order: by the
// hour of their time, then as stored), at most
// Options.MaxMatches of them. A negative k means the policy's distance for
// long texts, scaled to the width. There is no text to verify against, so
// matches are by distance alone: each Match has Similarity 1 - distance/bits,
// zero Scores, and Duplicate set when the distance is within the policy's
// long-text distance. fp must have the engine's width (ErrWidth otherwise).
//
// The answer is exact for any k: distances within the index's own bound are
// found through its tables, wider ones by probing or a scan of the index.
// Only the nearest entries' records are read, so a wide k costs at most
// about one pass over the index: at k = 64 over 200,000 documents, 0.2 ms
// and 6 KB, where reading every match took 0.6 s and 129 MB
// (BenchmarkQueryFingerprint). At 128 bits each half is searched at k/2
// and the records of the entries found give their whole distance; the
// nearest by a half need not be the nearest by the whole, so a k far
// beyond the Policy's (40 bits of 128, say) may read the record of most
// stored documents.
func (e *Engine) QueryFingerprint(ctx context.Context, fp Fingerprint, k int) ([]Match, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.leave()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if fp.Bits() != e.bits {
		return nil, fmt.Errorf("%w: the engine stores %d-bit fingerprints, got %d bits", ErrWidth, e.bits, fp.Bits())
	}
	longK := scale(e.policy.Long.MaxDistance, e.bits)
	if k < 0 {
		k = longK
	}
	if k > e.bits {
		k = e.bits
	}
	// At 128 bits the indexes hold the halves, each queried at k/2: a
	// fingerprint within k bits has a half within k/2 (see Engine.long),
	// and the whole distance is checked below.
	//
	// Only the nearest entries are asked for, so that a wide k costs a pass
	// over the index rather than a record read for every stored document.
	// Some of them may be dead (expired, not yet dropped from the index) or,
	// for wider fingerprints, farther than their halves say: then twice as
	// many are asked for, until the answer is sure.
	want := e.opts.MaxMatches
	cutoff := e.cutoff()
	var out []found
	for n := max(want, 1); ; n *= 2 {
		var ms []index.Match
		var all bool
		floor := 0 // entries not read are at least this far (at 128 bits)
		if e.longLo == nil {
			ms, all = e.nearestIndexed(fp.Uint64(), min(k, 64), n)
		} else {
			ms, all, floor = e.nearestHalves(fp, k, n)
		}
		out = out[:0]
		for _, m := range ms {
			f, ok, err := e.foundAt(fp, m, k, longK, cutoff)
			if err != nil {
				return nil, err
			}
			if ok {
				out = append(out, f)
			}
		}
		slices.SortFunc(out, func(a, b found) int {
			return cmp.Or(cmp.Compare(a.m.Distance, b.m.Distance), cmp.Compare(a.seq, b.seq))
		})
		// At 64 bits entries not yet read are at least as far as the last
		// one read, and after it by (distance, seq). At 128 bits they are
		// at least floor bits away, by a half and so by the whole.
		if all || len(out) >= want && (e.bits == 64 || out[want-1].m.Distance < floor) {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if len(out) > want {
		out = out[:want]
	}
	res := make([]Match, len(out))
	for i, f := range out {
		res[i] = f.m
	}
	return res, nil
}

// found is a stored document QueryFingerprint found, and its sequence
// number.
type found struct {
	m   Match
	seq uint64
}

// nearestIndexed returns the n entries of the long-text indexes (long and
// shortLong) nearest to q within k bits, by distance then sequence number,
// and whether they are all the entries within k. It is for 64 bits; see
// nearestHalves for 128.
func (e *Engine) nearestIndexed(q uint64, k, n int) (ms []index.Match, all bool) {
	ms = e.long.QueryNearest(q, k, n, nil, nil)
	all = len(ms) < n
	if e.shortLong != nil {
		held := len(ms)
		ms = e.shortLong.QueryNearest(q, k, n, nil, ms)
		all = all && len(ms)-held < n
		slices.SortFunc(ms, func(a, b index.Match) int {
			return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID))
		})
		ms = ms[:min(len(ms), n)]
	}
	return ms, all
}

// foundAt reads the record of index match m for a query of fp at k bits:
// ok is false when the document is gone (deleted, or stored before cutoff)
// or, for fingerprints wider than 64 bits, farther than k.
func (e *Engine) foundAt(fp Fingerprint, m index.Match, k, longK int, cutoff int64) (f found, ok bool, err error) {
	rec, err := e.record(m.ID)
	if errors.Is(err, store.ErrNotFound) {
		return found{}, false, nil // deleted or expired meanwhile
	}
	if err != nil {
		return found{}, false, fmt.Errorf("neardup: %w", err)
	}
	if rec.Time < cutoff {
		return found{}, false, nil
	}
	dist := m.Distance
	if e.bits != 64 {
		stored, err := FromBytes(rec.Fingerprint)
		if err != nil {
			return found{}, false, fmt.Errorf("neardup: stored fingerprint of %q: %w", rec.ID, err)
		}
		if dist, err = Distance(fp, stored); err != nil {
			return found{}, false, fmt.Errorf("neardup: %w", err)
		}
		if dist > k {
			return found{}, false, nil
		}
	}
	return found{Match{
		ID:         rec.ID,
		Distance:   dist,
		Similarity: 1 - float64(dist)/float64(e.bits),
		Duplicate:  dist <= longK,
	}, m.ID}, true, nil
}
