package neardup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/neardup/neardup/store"
)

// QueryFingerprint returns the stored documents whose fingerprints are
// within k bits of fp, nearest first (then oldest first), at most
// Options.MaxMatches of them. A negative k means the policy's distance for
// long texts, scaled to the width. There is no text to verify against, so
// matches are by distance alone: each Match has Similarity 1 - distance/bits,
// zero Scores, and Duplicate set when the distance is within the policy's
// long-text distance. fp must have the engine's width (ErrWidth otherwise).
//
// The answer is exact for any k: distances within the index's own bound are
// found through its tables, wider ones by a scan of the index.
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
	// The index holds the top 64 bits of a wider fingerprint; their distance
	// is at most the whole distance, so a query at k over them misses nothing,
	// and the whole distance is checked below.
	ms := e.long.Query(top64(fp), min(k, 64), nil)
	if e.shortLong != nil {
		ms = e.shortLong.Query(top64(fp), min(k, 64), ms)
	}
	cutoff := e.cutoff()
	type found struct {
		m   Match
		seq uint64
	}
	var out []found
	for _, m := range ms {
		rec, err := e.record(m.ID)
		if errors.Is(err, store.ErrNotFound) {
			continue // deleted or expired meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("neardup: %w", err)
		}
		if rec.Time < cutoff {
			continue
		}
		dist := m.Distance
		if e.bits != 64 {
			stored, err := FromBytes(rec.Fingerprint)
			if err != nil {
				return nil, fmt.Errorf("neardup: stored fingerprint of %q: %w", rec.ID, err)
			}
			if dist, err = Distance(fp, stored); err != nil {
				return nil, fmt.Errorf("neardup: %w", err)
			}
			if dist > k {
				continue
			}
		}
		out = append(out, found{Match{
			ID:         rec.ID,
			Distance:   dist,
			Similarity: 1 - float64(dist)/float64(e.bits),
			Duplicate:  dist <= longK,
		}, m.ID})
	}
	slices.SortFunc(out, func(a, b found) int {
		return cmp.Or(cmp.Compare(a.m.Distance, b.m.Distance), cmp.Compare(a.seq, b.seq))
	})
	if len(out) > e.opts.MaxMatches {
		out = out[:e.opts.MaxMatches]
	}
	res := make([]Match, len(out))
	for i, f := range out {
		res[i] = f.m
	}
	return res, nil
}
