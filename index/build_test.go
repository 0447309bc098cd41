package index

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBuildFamilies checks that tables sorted together with their family
// (buildLevel, buildFamily) come out entry for entry as each sorted on its
// own (buildRun), over slots in any order, for designs with and without
// families (8/2 also Wide); and that designs keyed on two or more blocks
// do form families.
func TestBuildFamilies(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fps := make([]uint64, 74000) // 65,778 slots: sorted in two passes
	for i := range fps {
		// Skewed bits, so buckets are uneven and some exceed subKeyMin.
		fps[i] = r.Uint64() & r.Uint64()
	}
	slots := make([]uint32, 0, len(fps))
	for i := range fps {
		if i%9 != 4 {
			slots = append(slots, uint32(i))
		}
	}
	r.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
	for _, tt := range []struct {
		d        Design
		families bool
	}{
		{Design{Levels: []Level{{8, 2}}}, true},
		{Manku20(), true},
		{Manku16(), true},
		{Design{Levels: []Level{{5, 2}}}, true},
		{Seed4x16(), false},
		{Design{Levels: []Level{{7, 1}}}, false},
	} {
		t.Run(tt.d.String(), func(t *testing.T) {
			tabs := buildTables(tt.d)
			tops := map[uint64]int{}
			for _, tab := range tabs {
				if tab.top != 0 && twoPass(uint(dirBits(tab.keyBits, len(slots))), len(slots)) {
					tops[tab.top]++
				}
			}
			shared := false
			for _, c := range tops {
				shared = shared || c > 1
			}
			if shared != tt.families {
				t.Fatalf("tables share a first pass: %v, want %v (%v)", shared, tt.families, tops)
			}
			wides := []bool{false}
			if tt.d.String() == "8/2" {
				wides = append(wides, true)
			}
			for _, wide := range wides {
				l := buildLevel(tabs, slots, fps, wide)
				for ti := range tabs {
					want := buildRun(&tabs[ti], slots, fps, new(buildScratch))
					if wide {
						want.widen(&tabs[ti], fps)
					}
					got := l[ti]
					if got.dbits != want.dbits || !slices.Equal(got.dir, want.dir) || !slices.Equal(got.hi, want.hi) ||
						!slices.Equal(got.rest, want.rest) || !slices.Equal(got.slot, want.slot) {
						t.Fatalf("wide %v: table %d sorted with its family differs from its own sort", wide, ti)
					}
				}
			}
		})
	}
}
