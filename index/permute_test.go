package index

import (
	"math/rand/v2"
	"testing"
)

// TestPEXTPermute checks that a table permuted with PEXT gives the same
// permutation as its runs of bits (so indexes and snapshots do not depend
// on the processor), for single values and for pextPermuteSlots, and that
// exactly the tables whose key bits keep their order use it.
func TestPEXTPermute(t *testing.T) {
	if !usePEXT {
		t.Skip("no PEXT on this processor")
	}
	r := rand.New(rand.NewPCG(5, 6))
	fps := make([]uint64, 300)
	for i := range fps {
		fps[i] = r.Uint64()
	}
	fps[0], fps[1] = 0, ^uint64(0)
	slots := make([]uint32, 257)
	for i := range slots {
		slots[i] = uint32(r.IntN(len(fps)))
	}
	for _, d := range []Design{Seed4x16(), Manku20(), Manku16(), {Levels: []Level{{8, 2}}}, {Levels: []Level{{7, 1}}}, {Levels: []Level{{1, 1}}}, {Levels: []Level{{5, 2}, {3, 1}}}} {
		pexts := 0
		for ti, tab := range buildTables(d) {
			if !tab.pext {
				continue
			}
			pexts++
			runs := tab
			runs.pext = false
			for _, fp := range fps {
				if got, want := tab.permute(fp), runs.permute(fp); got != want {
					t.Fatalf("%v table %d: permute(%016x) = %016x with PEXT, %016x by runs", d, ti, fp, got, want)
				}
			}
			dst := make([]uint64, len(slots))
			pextPermuteSlots(dst, fps, slots, tab.keyMask, uint(Bits-tab.keyBits))
			for i, s := range slots {
				if want := runs.permute(fps[s]); dst[i] != want {
					t.Fatalf("%v table %d: pextPermuteSlots[%d] = %016x, want %016x", d, ti, i, dst[i], want)
				}
			}
		}
		if len(d.Levels) == 1 && pexts != d.Tables() {
			t.Fatalf("%v: %d of %d tables use PEXT, want all", d, pexts, d.Tables())
		}
	}
}
