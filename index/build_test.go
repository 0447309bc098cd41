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

// TestSeenEarlier checks seenEarlier against its definition: a candidate
// of table t (same key as the query) is skipped exactly when some earlier
// table's key lies within the bits the run stores and the candidate agrees
// with the query on it; a wide run stores every bit, so there it is skipped
// exactly when an earlier table shares its key (firstSharedTable). Pairs
// are a few bits apart, as near-duplicates are, so both answers occur.
func TestSeenEarlier(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, d := range []Design{{Levels: []Level{{8, 2}}}, Manku20(), Manku16(), Seed4x16(), {Levels: []Level{{5, 2}}}} {
		tabs := buildTables(d)
		skipped, kept := 0, 0
		for _, db := range []uint{1, 8, 13, 16, 20} {
			for ti := range tabs {
				tab := &tabs[ti]
				if int(db) > tab.keyBits {
					continue // dirBits never exceeds the key
				}
				// known: the unpermuted bits a hi run stores, the key included.
				var known uint64
				for b := range 64 {
					if tab.permute(1<<b)<<(db+32) == 0 {
						known |= 1 << b
					}
				}
				for range 300 {
					q := r.Uint64()
					c := q
					for range r.IntN(12) {
						c ^= 1 << r.UintN(64)
					}
					c = c&^tab.keyMask | q&tab.keyMask // in q's bucket
					x := q ^ c
					pq, pc := tab.permute(q), tab.permute(c)
					want := false
					for u := range ti {
						want = want || tabs[u].keyMask&^known == 0 && x&tabs[u].keyMask == 0
					}
					run := tableRun{dbits: db, hi: []uint32{uint32(pc << db >> 32)}}
					if got := run.seenEarlier(tab, 0, pq); got != want {
						t.Fatalf("%v table %d dbits %d: seenEarlier(%016x, %016x) = %v, want %v", d, ti, db, q, c, got, want)
					}
					wide := tableRun{dbits: db, rest: []uint64{pc << db}}
					if got, want := wide.seenEarlier(tab, 0, pq), firstSharedTable(tabs, x, ti) < ti; got != want {
						t.Fatalf("%v table %d dbits %d wide: seenEarlier(%016x, %016x) = %v, want %v", d, ti, db, q, c, got, want)
					}
					if want {
						skipped++
					} else {
						kept++
					}
				}
			}
		}
		if len(tabs) > 1 && (skipped == 0 || kept == 0) {
			t.Errorf("%v: %d skipped, %d kept: the test data do not exercise both", d, skipped, kept)
		}
	}
}
