package index

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

// TestConcurrentWriters has several goroutines add, replace and remove
// entries at once, with tiny buffers so that tiers are built while other writers go
// on, and queries running throughout; afterwards the index must hold
// exactly the entries added and not removed.
func TestConcurrentWriters(t *testing.T) {
	for _, tc := range []struct {
		d        Design
		adaptive bool
	}{{Seed4x16(), false}, {Design{Levels: []Level{{7, 1}}}, false}, {Seed4x16(), true}} {
		d := tc.d
		name := d.String()
		if tc.adaptive {
			// The design changes as the index grows and shrinks.
			name += "-adaptive"
		}
		t.Run(name, func(t *testing.T) {
			ix := newTestIndex(t, Options{K: 3, Design: d, Adaptive: tc.adaptive}, 8, 64)
			// Builds take long enough for the other writers to add and
			// remove entries meanwhile.
			ix.whileBuilding = func() { time.Sleep(100 * time.Microsecond) }
			const writers, perWriter = 4, 1000
			fps := make([][]uint64, writers)
			removed := make([][]bool, writers)
			var stop atomic.Bool
			var readers sync.WaitGroup
			for range 2 {
				readers.Go(func() {
					r := rand.New(rand.NewPCG(3, 3))
					var buf []Match
					for !stop.Load() {
						buf = ix.Query(r.Uint64(), 3, buf[:0])
						_ = ix.Len()
					}
				})
			}
			var wg sync.WaitGroup
			for w := range writers {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(w), 77))
					fps[w] = make([]uint64, perWriter)
					removed[w] = make([]bool, perWriter)
					for i := range perWriter {
						id := uint64(w*perWriter + i)
						fps[w][i] = r.Uint64()
						ix.Add(Entry{ID: id, FP: fps[w][i], Time: int64(i)})
						// An entry added a little earlier must be found at
						// every moment, whatever the other writers do.
						if j := i - 16; j >= 0 && !removed[w][j] {
							jid := uint64(w*perWriter + j)
							if !slices.ContainsFunc(ix.Query(fps[w][j], 0, nil), func(m Match) bool { return m.ID == jid }) {
								t.Errorf("entry %d not found %d adds after it was added", jid, i-j)
								return
							}
						}
						if i%11 == 5 { // replace an earlier entry: its old slot dies
							j := r.IntN(i + 1)
							if !removed[w][j] {
								fps[w][j] = r.Uint64()
								ix.Add(Entry{ID: uint64(w*perWriter + j), FP: fps[w][j], Time: int64(i)})
							}
						}
						if i%7 == 3 {
							j := r.IntN(i + 1)
							if !removed[w][j] {
								if !ix.Remove(uint64(w*perWriter + j)) {
									t.Errorf("Remove(%d) found nothing", w*perWriter+j)
								}
								removed[w][j] = true
							}
						}
					}
				})
			}
			wg.Wait()
			stop.Store(true)
			readers.Wait()
			want := 0
			for w := range writers {
				for i, fp := range fps[w] {
					id := uint64(w*perWriter + i)
					ms := ix.Query(fp, 0, nil)
					found := slices.ContainsFunc(ms, func(m Match) bool { return m.ID == id })
					if found == removed[w][i] {
						t.Fatalf("entry %d (removed %v): found %v", id, removed[w][i], found)
					}
					if !removed[w][i] {
						want++
					}
				}
			}
			if got := ix.Len(); got != want {
				t.Fatalf("Len() = %d, want %d", got, want)
			}
		})
	}
}
