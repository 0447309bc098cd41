package neardup

import (
	"context"
	"fmt"
	"time"

	"github.com/neardup/neardup/store"
)

// ExpireReport says what one expiry pass removed.
type ExpireReport struct {
	// Indexed is the number of documents removed from the index (every
	// document older than the window).
	Indexed int
	// Stored is the number of documents removed from the store: those in
	// whole hours older than the window (documents of the hour the window
	// starts in wait for the next pass after that hour ends).
	Stored int
	// FreedBytes is how much the store's size (Stats.StoreBytes) fell as
	// the removed hours went: 0 when no hour was removed.
	FreedBytes uint64
}

// expire is the background expiry pass (every Options.ExpiryInterval, see
// every).
func (e *Engine) expire() {
	// An error here is a store failure that the next write reports too;
	// the pass is retried at the next tick.
	_, _ = e.ExpireNow(context.Background())
}

// every runs f every d until Close, in a goroutine of its own.
func (e *Engine) every(d time.Duration, f func()) {
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-e.stop:
				return
			case <-t.C:
				f()
			}
		}
	}()
}

// ExpireNow removes the documents older than the retention window: from
// the index at once (they were already never returned), and from the store
// in whole hours with range deletions followed by a compaction of the
// range, which gives the disk space back. It runs by itself every
// Options.ExpiryInterval; calling it directly is for tests and tools.
func (e *Engine) ExpireNow(ctx context.Context) (ExpireReport, error) {
	var rep ExpireReport
	if err := e.enter(); err != nil {
		return rep, err
	}
	defer e.leave()
	if e.opts.Retention < 0 {
		return rep, nil
	}
	e.expireMu.Lock()
	defer e.expireMu.Unlock()
	cutoff := e.cutoff()
	e.removals.Add(1)
	rep.Indexed = e.expireIndexes(cutoff)
	e.removals.Add(1)
	e.nExpired.Add(uint64(rep.Indexed))
	end := store.HourStart(cutoff)
	if end <= e.expiredTo {
		return rep, nil
	}
	if e.keys != nil {
		// Once an hour: the map is swept whole.
		e.keys.expire(end)
	}
	err := e.db.ScanViews(e.expiredTo, end, func(r *store.View) error {
		if e.dropID(r.ID, r.Seq) {
			rep.Stored++
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("neardup: expire: %w", err)
	}
	freed, err := e.db.DeleteBefore(ctx, end)
	rep.FreedBytes = freed
	if err != nil {
		return rep, fmt.Errorf("neardup: expire: %w", err)
	}
	e.expiredTo = end
	return rep, nil
}
