package index

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// flipRandom flips up to n random bits of fp.
func flipRandom(r *rand.Rand, fp uint64, n int) uint64 {
	for range n {
		fp ^= 1 << r.UintN(64)
	}
	return fp
}

// TestProbeScansTiers checks queries beyond K that probe the main level and
// scan the tiers, and those that probe every level: whenever two tiers or
// more hold entries, some of them replaced or removed, queries near stored
// fingerprints find what the oracle finds, one by one and in a batch.
func TestProbeScansTiers(t *testing.T) {
	for _, wide := range []bool{false, true} {
		// A buffer of 4 and no folding into the main level: tiers of
		// up to 32, 256 and 2048 entries.
		ix := newTestIndex(t, Options{K: 3, Design: Seed4x16(), Wide: wide}, 4, 1<<20)
		r := rand.New(rand.NewPCG(9, 9))
		model := oracle{}
		var fps []uint64
		checked := 0
		for i := range 1500 {
			fp := r.Uint64()
			if i > 0 && r.IntN(2) == 0 {
				fp = flipRandom(r, fps[r.IntN(len(fps))], r.IntN(8))
			}
			fps = append(fps, fp)
			e := Entry{ID: uint64(r.IntN(1000)), FP: fp, Time: int64(i)}
			ix.Add(e)
			model[e.ID] = e
			if r.IntN(8) == 0 {
				id := uint64(r.IntN(1000))
				ix.Remove(id)
				delete(model, id)
			}
			settle(ix)
			tiers := 0
			for j := 1; j < len(ix.levels); j++ {
				if ix.levels[j].size() > 0 {
					tiers++
				}
			}
			if tiers < 2 || i%15 != 0 {
				continue
			}
			checked++
			for _, mode := range []int{2, 1} {
				ix.probe = mode
				if scan, ok := ix.probePlan(probeRadii(ix.opts.Design, 10), &singleCost); !ok || (scan != 0) != (mode == 2) {
					t.Fatalf("wide %v, mode %d: probePlan = %b, %v", wide, mode, scan, ok)
				}
				// More queries than batchGroup, so that a probing batch
				// makes groups of more (QueryBatch).
				qs := make([]uint64, 150)
				for q := range qs {
					qs[q] = flipRandom(r, fps[r.IntN(len(fps))], r.IntN(7))
					if q < 20 {
						checkQuery(t, ix, model, qs[q], 10)
					}
				}
				// The same queries at once: the tiers are scanned a word
				// of 64 entries at a time for all of them.
				for q, got := range ix.QueryBatch(qs, 10) {
					if want := model.query(qs[q], 10); !slices.Equal(got, want) {
						t.Fatalf("wide %v, mode %d: QueryBatch: query %d = %v, want %v", wide, mode, q, got, want)
					}
				}
			}
		}
		if checked < 30 {
			t.Fatalf("wide %v: two tiers or more held entries at only %d checks", wide, checked)
		}
	}
}

// TestProbePlan checks the cost model's choice, alone and in batches, in a
// grown index: a large main level is probed, a small tier scanned, and a
// small index scanned whole.
func TestProbePlan(t *testing.T) {
	ix := newTestIndex(t, Options{K: 3, Design: Seed4x16(), Wide: true}, 4096, 1<<20)
	radii := probeRadii(ix.opts.Design, 10)
	ix.AddBatch(randomEntries(5000, 3))
	models := map[string]*costModel{"alone": &singleCost, "small batch": &smallBatchCost, "batch": &batchCost}
	for name, c := range models {
		if _, ok := ix.probePlan(radii, c); ok {
			t.Fatalf("%s: an index of 5,000 entries probes at k 10; a scan costs less", name)
		}
	}
	es := randomEntries(400000, 4)
	for i := range es {
		es[i].ID += 1 << 32
	}
	ix.AddBatch(es)
	rebuild(ix) // everything into the main level
	for i := range 5000 {
		ix.Add(Entry{ID: 1<<40 + uint64(i), FP: uint64(i) * 0x9e3779b97f4a7c15})
	}
	settle(ix)
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tier := -1
	for j := 1; j < len(ix.levels); j++ {
		if ix.levels[j].size() > 0 {
			tier = j
		}
	}
	if tier < 0 || ix.levels[0].size() < 400000 {
		t.Fatalf("main level of %d entries and no tier", ix.levels[0].size())
	}
	for name, c := range models {
		scan, ok := ix.probePlan(radii, c)
		if !ok || scan != 1<<tier {
			t.Fatalf("%s: probePlan = %b, %v; want the main level probed and tier %d scanned", name, scan, ok, tier)
		}
	}
}

// TestQueryBatchConcurrent checks probing batches asked from several
// goroutines at once, which QueryBatch sizes as whole groups while others
// run (batchesRunning): each answers what its queries find one by one,
// and once all have returned no call counts as running.
func TestQueryBatchConcurrent(t *testing.T) {
	ix, err := New(Options{K: 3, Design: Seed4x16(), Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	ix.probe = 1
	es := randomEntries(20000, 5)
	ix.AddBatch(es)
	const callers = 4
	qs := make([][]uint64, callers)
	r := rand.New(rand.NewPCG(5, 5))
	for c := range qs {
		qs[c] = make([]uint64, 200+100*c)
		for i := range qs[c] {
			qs[c][i] = flipRandom(r, es[r.IntN(len(es))].FP, r.IntN(9))
		}
	}
	got := make([][][]Match, callers)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for range 5 {
				got[c] = ix.QueryBatch(qs[c], 10)
			}
		})
	}
	wg.Wait()
	if n := batchesRunning.Load(); n != 0 {
		t.Fatalf("%d QueryBatch calls still count as running after all returned", n)
	}
	found := 0
	for c := range callers {
		for i, q := range qs[c] {
			want := ix.Query(q, 10, nil)
			if !slices.Equal(got[c][i], want) {
				t.Fatalf("caller %d, query %d: QueryBatch = %v, Query = %v", c, i, got[c][i], want)
			}
			found += len(want)
		}
	}
	if found == 0 {
		t.Fatal("no query found anything: the test checks nothing")
	}
}

// TestSortProbes checks sortProbes against a stable sort by key, at sizes
// on both sides of radixMin, with keys that repeat (several queries
// probing one bucket) and keys that use all their bits.
func TestSortProbes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, kb := range []uint{8, 13, 16, 48} {
		for _, n := range []int{0, 1, 2, 31, 32, 63, 64, 65, 200, 1000} {
			for _, few := range []bool{true, false} {
				probes := make([]uint64, n)
				for i := range probes {
					key := r.Uint64N(1 << kb)
					if few { // 0, the middle or the top key
						key = r.Uint64N(3) * (1<<kb - 1) / 2
					}
					probes[i] = key<<16 | uint64(i)
				}
				want := slices.Clone(probes)
				slices.SortStableFunc(want, func(a, b uint64) int { return cmp.Compare(a>>16, b>>16) })
				got, _ := sortProbes(slices.Clone(probes), nil, kb)
				if !slices.Equal(got, want) {
					t.Fatalf("kb %d, %d probes (few keys %v): not sorted by key, in the order added", kb, n, few)
				}
			}
		}
	}
}

// TestNearestRounds checks the rounds of probing (searchProbe,
// probeAllBatch) where they end early: entries crowd around a few
// centers, so that a query's nearest few are found in the first rounds
// and the bound narrows to what those rounds cover. QueryNearest and
// QueryBatchNearest must give the oracle's nearest, at distances beyond
// the tables on designs of 4 and 5 blocks, narrow and wide, the ties
// among equal distances broken by id.
func TestNearestRounds(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, o := range []Options{
		{K: 3, Design: Seed4x16(), Wide: true},
		{K: 3, Design: Seed4x16()},
		{K: 4, Design: Design{Levels: []Level{{5, 1}}}, Wide: true},
	} {
		ix, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		ix.probe = 1 // probe, not scan, at this size
		centers := make([]uint64, 6)
		for i := range centers {
			centers[i] = r.Uint64()
		}
		model := oracle{}
		var es []Entry
		for id := range uint64(6000) {
			e := Entry{ID: id, FP: flipRandom(r, centers[r.IntN(len(centers))], r.IntN(13))}
			es = append(es, e)
			model[id] = e
		}
		ix.AddBatch(es)
		settle(ix)
		qs := make([]uint64, 150)
		for i := range qs {
			qs[i] = flipRandom(r, centers[r.IntN(len(centers))], r.IntN(8))
		}
		for _, k := range []int{8, 10, 12} {
			for _, n := range []int{1, 5, 40} {
				batch := ix.QueryBatchNearest(qs, k, n, nil)
				for i, q := range qs {
					want := nearestKept(model.query(q, k), n, nil)
					if got := ix.QueryNearest(q, k, n, nil, nil); !slices.Equal(got, want) {
						t.Fatalf("%v: QueryNearest(%016x, %d, %d) = %v, want %v", o.Design, q, k, n, got, want)
					}
					if !slices.Equal(batch[i], want) {
						t.Fatalf("%v: QueryBatchNearest, query %d (%016x), k %d, n %d = %v, want %v", o.Design, i, q, k, n, batch[i], want)
					}
				}
			}
		}
	}
}
