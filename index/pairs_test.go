package index

import (
	"math/bits"
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

func TestPairsMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bases := rapid.SliceOfN(rapid.Uint64(), 1, 5).Draw(t, "bases")
		gen := fpGen(bases)
		n := rapid.IntRange(0, 200).Draw(t, "n")
		es := make([]Entry, n)
		for i := range es {
			es[i] = Entry{ID: uint64(i), FP: gen.Draw(t, "fp")}
		}
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
