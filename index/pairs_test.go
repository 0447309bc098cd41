package index

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

func bruteForcePairHits(es []Entry, k int) []pairHit {
	var out []pairHit
	for i := range es {
		for j := i + 1; j < len(es); j++ {
			if d := bits.OnesCount64(es[i].FP ^ es[j].FP); d <= k {
				out = append(out, pairHit{a: uint32(i), b: uint32(j), d: uint32(d)})
			}
		}
	}
	return out
}

func comparePairHit(x, y pairHit) int {
	if x.a != y.a {
		return int(x.a) - int(y.a)
	}
	return int(x.b) - int(y.b)
}

// pairHits runs Pairs and maps the emitted entries back to their indexes
// (entry ids are the indexes).
func pairHits(t interface{ Fatalf(string, ...any) }, es []Entry, k int) []pairHit {
	var got []pairHit
	Pairs(es, k, func(a, b Entry, d int) {
		if a.ID >= b.ID {
			t.Fatalf("pair (%d, %d) not in input order", a.ID, b.ID)
		}
		got = append(got, pairHit{a: uint32(a.ID), b: uint32(b.ID), d: uint32(d)})
	})
	slices.SortFunc(got, comparePairHit)
	return got
}

// drawEntries draws up to most entries near a few random fingerprints,
// their ids their indexes.
func drawEntries(t *rapid.T, most int) []Entry {
	gen := fpGen(rapid.SliceOfN(rapid.Uint64(), 1, 5).Draw(t, "bases"))
	es := make([]Entry, rapid.IntRange(0, most).Draw(t, "n"))
	for i := range es {
		es[i] = Entry{ID: uint64(i), FP: gen.Draw(t, "fp")}
	}
	return es
}

func TestPairsMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		es := drawEntries(t, 200)
		k := rapid.IntRange(-1, 12).Draw(t, "k")
		want := bruteForcePairHits(es, k)
		if got := pairHits(t, es, k); !slices.Equal(got, want) {
			t.Fatalf("Pairs(k=%d) = %v, want %v", k, got, want)
		}
	})
}

func TestPairsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	es := randomEntries(8000, 11)
	for i := range es {
		es[i].ID = uint64(i)
	}
	for _, k := range []int{0, 3, 5} {
		want := bruteForcePairHits(es, k)
		if got := pairHits(t, es, k); !slices.Equal(got, want) {
			t.Fatalf("k=%d: %d pairs, want %d", k, len(got), len(want))
		}
	}
}

// testSets is a small union-find for the Joiner tests.
type testSets []int

func newTestSets(n int) testSets {
	s := make(testSets, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func (s testSets) find(i int) int {
	for s[i] != i {
		s[i] = s[s[i]]
		i = s[i]
	}
	return i
}

func (s testSets) union(a, b int) {
	ra, rb := s.find(a), s.find(b)
	s[max(ra, rb)] = min(ra, rb)
}

// components returns, for each item, the smallest item of its set.
func (s testSets) components() []int {
	out := make([]int, len(s))
	for i := range s {
		out[i] = s.find(i)
	}
	return out
}

// TestPairsJoinComponents checks that PairsJoin gives the connected
// components of the pairs within k that a test accepts (and that Alone
// does not rule out), whatever the size of the runs handed to the Joiner,
// that no pair reaches emit or Join twice, and that Join never sees two
// entries already joined.
func TestPairsJoinComponents(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		es := drawEntries(t, 300)
		n := len(es)
		k := rapid.IntRange(0, 12).Draw(t, "k")
		minRun := rapid.IntRange(1, 40).Draw(t, "minRun")
		deferred := rapid.Bool().Draw(t, "deferred") // emitted pairs joined at Settle, as cluster does
		salt := rapid.Uint64().Draw(t, "salt")
		// Entries with a set bit of lonely pair only with the others.
		var lonely uint64
		if rapid.Bool().Draw(t, "withAlone") {
			lonely = salt
		}
		isAlone := func(id uint64) bool { return lonely>>(id%64)&1 == 1 }
		accept := func(a, b uint64) bool { // symmetric, about two pairs in three
			return (min(a, b)*0x9e3779b97f4a7c15^max(a, b)*0xbf58476d1ce4e5b9^salt)%3 != 0
		}
		want := newTestSets(n)
		for i := range es {
			for j := i + 1; j < n; j++ {
				if bits.OnesCount64(es[i].FP^es[j].FP) <= k && accept(uint64(i), uint64(j)) && !(isAlone(uint64(i)) && isAlone(uint64(j))) {
					want.union(i, j)
				}
			}
		}
		got := newTestSets(n)
		seen := make(map[[2]uint64]bool)
		see := func(a, b Entry, d int) {
			key := [2]uint64{min(a.ID, b.ID), max(a.ID, b.ID)}
			if seen[key] {
				t.Fatalf("pair %v given twice", key)
			}
			seen[key] = true
			if isAlone(a.ID) && isAlone(b.ID) {
				t.Fatalf("pair %v of two entries Alone names", key)
			}
			if want := bits.OnesCount64(a.FP ^ b.FP); d != want || d > k {
				t.Fatalf("pair %v at distance %d, want %d within %d", key, d, want, k)
			}
		}
		var pending [][2]uint64
		settle := func() {
			for _, p := range pending {
				if accept(p[0], p[1]) {
					got.union(int(p[0]), int(p[1]))
				}
			}
			pending = pending[:0]
		}
		PairsJoin(es, k, func(a, b Entry, d int) {
			see(a, b, d)
			if a.ID >= b.ID {
				t.Fatalf("pair (%d, %d) not in input order", a.ID, b.ID)
			}
			pending = append(pending, [2]uint64{a.ID, b.ID})
			if !deferred {
				settle()
			}
		}, Joiner{
			MinRun: minRun,
			Find:   func(e Entry) int { return got.find(int(e.ID)) },
			Join: func(a, b Entry, d int) bool {
				see(a, b, d)
				if len(pending) > 0 {
					t.Fatalf("Join called with %d emitted pairs not settled", len(pending))
				}
				if got.find(int(a.ID)) == got.find(int(b.ID)) {
					t.Fatalf("Join(%d, %d) of entries already joined", a.ID, b.ID)
				}
				if !accept(a.ID, b.ID) {
					return false
				}
				got.union(int(a.ID), int(b.ID))
				return true
			},
			Settle: settle,
			Alone:  func(e Entry) bool { return isAlone(e.ID) },
		})
		settle()
		if g, w := got.components(), want.components(); !slices.Equal(g, w) {
			t.Fatalf("components %v, want %v", g, w)
		}
	})
}

// TestPairsJoinCrowded checks that a crowd of entries all within k of one
// another, which make n²/2 pairs, reaches Join about once an entry when
// the test accepts every pair, and that unrelated entries never reach it.
func TestPairsJoinCrowded(t *testing.T) {
	const n = 5000
	r := rand.New(rand.NewPCG(3, 4))
	base := r.Uint64()
	es := make([]Entry, n)
	for i := range es {
		fp := base
		for range 2 {
			fp ^= 1 << r.UintN(64)
		}
		es[i] = Entry{ID: uint64(i), FP: fp}
	}
	sets := newTestSets(n)
	emitted, joins := 0, 0
	PairsJoin(es, 4, func(a, b Entry, d int) {
		emitted++
		sets.union(int(a.ID), int(b.ID))
	}, Joiner{
		MinRun: 64,
		Find:   func(e Entry) int { return sets.find(int(e.ID)) },
		Join: func(a, b Entry, d int) bool {
			joins++
			sets.union(int(a.ID), int(b.ID))
			return true
		},
	})
	for i := range n {
		if sets.find(i) != 0 {
			t.Fatalf("entry %d not joined to the rest", i)
		}
	}
	if emitted+joins > 2*n {
		t.Fatalf("%d pairs emitted and %d joins for %d entries within 4 bits of each other, want about one an entry", emitted, joins, n)
	}
	// Entries that share 40 bits and differ at random in the other 24:
	// their tables' runs are long, but few of their pairs are within 4
	// bits, so the runs are not crowded and their pairs are all emitted.
	for i := range es {
		es[i] = Entry{ID: uint64(i), FP: base&^(1<<24-1) | r.Uint64()&(1<<24-1)}
	}
	emitted, joins = 0, 0
	PairsJoin(es, 4, func(a, b Entry, d int) { emitted++ }, Joiner{
		MinRun: 64,
		Find:   func(e Entry) int { return int(e.ID) },
		Join:   func(a, b Entry, d int) bool { joins++; return true },
	})
	if want := len(bruteForcePairHits(es, 4)); emitted != want || joins != 0 {
		t.Fatalf("unrelated entries: %d pairs emitted and %d joined, want %d emitted and none joined", emitted, joins, want)
	}
}

// TestPairsFamilies checks Pairs with every design that can answer k, on
// enough entries that tables sharing their first key block are sorted as
// families (pairsFamily), against comparing every pair: random entries,
// one in ten near an earlier one, and a crowd of entries near one
// fingerprint, whose runs are long; with a Joiner too, whose crowded runs
// must end in the same components.
func TestPairsFamilies(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	es := randomEntries(familyMin+3000, 5)
	r := rand.New(rand.NewPCG(7, 8))
	base := r.Uint64()
	for range 600 {
		fp := base
		for range r.IntN(4) {
			fp ^= 1 << r.UintN(64)
		}
		es = append(es, Entry{FP: fp})
	}
	for i := range es {
		es[i].ID = uint64(i)
	}
	// Designs of one level whose keys are one, two or three blocks, and
	// of two levels.
	familyDesigns := map[int][]string{3: {"4/1", "5/2", "6/3", "4/1,4/1", "5/2,5/2"}, 5: {"7/2", "8/3", "6/1,6/1"}}
	families, tried := 0, 0
	for _, k := range []int{3, 5} {
		want := bruteForcePairHits(es, k)
		wantSets := newTestSets(len(es))
		for _, h := range want {
			wantSets.union(int(h.a), int(h.b))
		}
		for _, d := range Candidates(k) {
			if !slices.Contains(familyDesigns[k], d.String()) {
				continue
			}
			tried++
			for _, job := range pairsFamilies(buildTables(d), len(es)) {
				if job.lead > 0 {
					families++
				}
			}
			var got []pairHit
			pairsDesign(es, k, d, true, func(a, b Entry, dist int) {
				got = append(got, pairHit{a: uint32(a.ID), b: uint32(b.ID), d: uint32(dist)})
			}, nil)
			slices.SortFunc(got, comparePairHit)
			if !slices.Equal(got, want) {
				t.Fatalf("k=%d, design %v: %d pairs, want %d", k, d, len(got), len(want))
			}
			sets := newTestSets(len(es))
			pairsDesign(es, k, d, true, func(a, b Entry, dist int) {
				sets.union(int(a.ID), int(b.ID))
			}, &Joiner{
				MinRun: 64,
				Find:   func(e Entry) int { return sets.find(int(e.ID)) },
				Join: func(a, b Entry, dist int) bool {
					sets.union(int(a.ID), int(b.ID))
					return true
				},
			})
			if g, w := sets.components(), wantSets.components(); !slices.Equal(g, w) {
				t.Fatalf("k=%d, design %v, with a Joiner: components differ from every pair's", k, d)
			}
		}
	}
	if tried != len(familyDesigns[3])+len(familyDesigns[5]) {
		t.Fatalf("%d designs tried, want %v: Candidates(3) and Candidates(5) no longer hold them", tried, familyDesigns)
	}
	if families == 0 {
		t.Fatal("no design sorted its tables as families: the test does not reach pairsFamily")
	}
}
