package index

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentReadersAndWriter runs queries while one writer adds,
// removes, batch-adds and expires entries. A set of pinned entries is never
// touched by the writer, so every query must keep finding them; the race
// detector checks the rest.
func TestConcurrentReadersAndWriter(t *testing.T) {
	ix := newTestIndex(t, Options{K: 3, Design: Seed4x16()}, 16, 64)
	r := rand.New(rand.NewPCG(7, 8))
	const pinned = 50
	pins := make([]Entry, pinned)
	for i := range pins {
		pins[i] = Entry{ID: uint64(1_000_000 + i), FP: r.Uint64(), Time: 1 << 40}
	}
	ix.AddBatch(pins)

	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			rr := rand.New(rand.NewPCG(uint64(w), 9))
			var buf []Match
			for !stop.Load() {
				p := pins[rr.IntN(pinned)]
				q := p.FP ^ 1<<rr.UintN(64)
				buf = ix.Query(q, 3, buf[:0])
				found := false
				for _, m := range buf {
					found = found || m.ID == p.ID
				}
				if !found {
					t.Errorf("query %016x lost pinned entry %d", q, p.ID)
					return
				}
				if _, ok := ix.First(p.FP, 0); !ok {
					t.Errorf("First lost pinned entry %d", p.ID)
					return
				}
				ix.Nearest(q, 2)
				_ = ix.Len()
			}
		})
	}
	n := 1500
	if testing.Short() {
		n = 500
	}
	for i := range n {
		fp := pins[i%pinned].FP ^ r.Uint64()&r.Uint64()&r.Uint64()
		switch i % 10 {
		case 0:
			es := make([]Entry, 100)
			for j := range es {
				es[j] = Entry{ID: uint64(r.IntN(5000)), FP: fp ^ 1<<r.UintN(64), Time: int64(i)}
			}
			ix.AddBatch(es)
		case 1:
			ix.Remove(uint64(r.IntN(5000)))
		case 2:
			ix.ExpireBefore(int64(i - 200))
		default:
			ix.Add(Entry{ID: uint64(r.IntN(5000)), FP: fp, Time: int64(i)})
		}
	}
	stop.Store(true)
	wg.Wait()
}
