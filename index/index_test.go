package index

import (
	"bytes"
	"errors"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// oracle is the brute-force model the index is checked against.
type oracle map[uint64]Entry

func (o oracle) query(fp uint64, k int) []Match {
	var out []Match
	for _, e := range o {
		if d := bits.OnesCount64(fp ^ e.FP); d <= k {
			out = append(out, Match{ID: e.ID, FP: e.FP, Distance: d, Tag: e.Tag})
		}
	}
	slices.SortFunc(out, compareMatch)
	return out
}

// newTestIndex returns an index with tiny flush thresholds, so that a few
// hundred operations exercise the buffer, the small level and rebuilds.
func newTestIndex(tb interface{ Fatal(...any) }, opts Options, bufCap, mainMin int) *Index {
	ix, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	ix.bufCap, ix.mainMin = bufCap, mainMin
	// Single adds wait in the pending arrays as many at a time as in the
	// buffer, so small tests pass through every stage.
	p := min(max(1, bufCap), len(ix.pendFP))
	ix.pendFP, ix.pendID, ix.pendTime = ix.pendFP[:p], ix.pendID[:p], ix.pendTime[:p]
	return ix
}

var testDesigns = []Design{
	{Levels: []Level{{1, 1}}},
	{Levels: []Level{{2, 1}}},
	{Levels: []Level{{3, 1}}},
	{Levels: []Level{{4, 2}}},
	Seed4x16(),
	{Levels: []Level{{5, 2}}},
	Manku20(),
	Manku16(),
	{Levels: []Level{{8, 1}}},
	{Levels: []Level{{3, 1}, {3, 1}}},
}

// fpGen draws fingerprints that collide often: near variants of a few
// bases, with flips biased towards block boundaries.
func fpGen(bases []uint64) *rapid.Generator[uint64] {
	return rapid.Custom(func(t *rapid.T) uint64 {
		fp := rapid.SampledFrom(bases).Draw(t, "base")
		flips := rapid.IntRange(0, 9).Draw(t, "flips")
		for range flips {
			var b int
			if rapid.Bool().Draw(t, "edge") {
				b = rapid.SampledFrom([]int{0, 10, 11, 15, 16, 21, 22, 31, 32, 33, 42, 43, 47, 48, 53, 63}).Draw(t, "edgebit")
			} else {
				b = rapid.IntRange(0, 63).Draw(t, "bit")
			}
			fp ^= 1 << uint(b)
		}
		return fp
	})
}

// rebuild folds every entry into the main level, as a full flush does,
// once any background build is done.
func rebuild(ix *Index) {
	ix.fmu.Lock()
	ix.wmu.Lock()
	ix.flush(true)
	ix.wmu.Unlock()
	ix.fmu.Unlock()
}

// settle waits for a tier build Add started in the background, so that a
// test may read the levels.
func settle(ix *Index) {
	ix.fmu.Lock()
	ix.fmu.Unlock()
}

func TestIndexMatchesOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.SampledFrom(testDesigns).Draw(t, "design")
		k := rapid.IntRange(0, d.MaxK()).Draw(t, "K")
		adaptive := rapid.Bool().Draw(t, "adaptive")
		if adaptive && probeRadii(d, d.MaxK()+1) != nil && rapid.Bool().Draw(t, "beyond") {
			// An adaptive index may hold a design that answers K by
			// probing, as a tight MaxBytes makes it take (probeDesign);
			// its rebuilds choose a design exact for K.
			k = d.MaxK() + rapid.IntRange(1, 3).Draw(t, "over")
		}
		wide := rapid.Bool().Draw(t, "wide")
		// WideIfFits with budgets that some designs fit wide and some not.
		ifFits := rapid.Bool().Draw(t, "wideIfFits")
		budget := rapid.SampledFrom([]float64{0, 80, 150, 1000}).Draw(t, "budget")
		// Bounds that bind at a few dozen entries, where an adaptive index
		// may take a design that answers K by probing (probeDesign).
		maxBytes := rapid.SampledFrom([]int64{0, 1000, 5000, 50000}).Draw(t, "maxBytes")
		ix := newTestIndex(t, Options{K: k, Design: d, Adaptive: adaptive, Wide: wide, WideIfFits: ifFits, MaxBytesPerEntry: budget, MaxBytes: maxBytes}, rapid.IntRange(1, 8).Draw(t, "bufCap"), rapid.IntRange(1, 40).Draw(t, "mainMin"))
		// Queries beyond K are answered by multi-probe (of every level, or
		// of the main one with the tiers scanned) or by a scan.
		ix.probe = rapid.IntRange(-1, 2).Draw(t, "probe")
		bases := rapid.SliceOfN(rapid.Uint64(), 1, 4).Draw(t, "bases")
		gen := fpGen(bases)
		model := oracle{}
		now := int64(0)
		ops := rapid.IntRange(1, 300).Draw(t, "ops")
		for range ops {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 4:
				now += int64(rapid.IntRange(0, 3).Draw(t, "dt"))
				e := Entry{ID: rapid.Uint64Range(0, 60).Draw(t, "id"), FP: gen.Draw(t, "fp"), Time: now, Tag: uint16(rapid.IntRange(0, 3).Draw(t, "tag"))}
				ix.Add(e)
				model[e.ID] = e
			case op == 4:
				n := rapid.IntRange(0, 40).Draw(t, "batch")
				es := make([]Entry, n)
				for i := range es {
					es[i] = Entry{ID: rapid.Uint64Range(0, 80).Draw(t, "id"), FP: gen.Draw(t, "fp"), Time: now, Tag: uint16(rapid.IntRange(0, 3).Draw(t, "tag"))}
					model[es[i].ID] = es[i]
				}
				ix.AddBatch(es)
			case op == 5:
				id := rapid.Uint64Range(0, 80).Draw(t, "id")
				_, want := model[id]
				if got := ix.Remove(id); got != want {
					t.Fatalf("Remove(%d) = %v, want %v", id, got, want)
				}
				delete(model, id)
			case op == 6:
				cut := now - int64(rapid.IntRange(0, 10).Draw(t, "age"))
				want := 0
				for id, e := range model {
					if e.Time < cut {
						delete(model, id)
						want++
					}
				}
				if got := ix.ExpireBefore(cut); got != want {
					t.Fatalf("ExpireBefore(%d) = %d, want %d", cut, got, want)
				}
			case op == 7:
				// A batch, over a group's size at times.
				qs := rapid.SliceOfN(gen, 0, 3*batchGroup).Draw(t, "qs")
				qk := rapid.IntRange(-1, k+12).Draw(t, "k")
				got := ix.QueryBatch(qs, qk)
				for i, q := range qs {
					if want := model.query(q, qk); !slices.Equal(got[i], want) {
						t.Fatalf("QueryBatch: query %d of %d (k %d) = %v, want %v", i, len(qs), qk, got[i], want)
					}
				}
				// The nearest n, of odd IDs for the queries of odd number.
				n := rapid.IntRange(0, 6).Draw(t, "n")
				keep := func(i int, m Match) bool { return i%2 == 0 || keepOdd(m) }
				got = ix.QueryBatchNearest(qs, qk, n, keep)
				for i, q := range qs {
					want := nearestKept(model.query(q, qk), n, func(m Match) bool { return keep(i, m) })
					if !slices.Equal(got[i], want) {
						t.Fatalf("QueryBatchNearest: query %d of %d (k %d, n %d) = %v, want %v", i, len(qs), qk, n, got[i], want)
					}
				}
			default:
				q := gen.Draw(t, "q")
				qk := rapid.IntRange(-1, k+12).Draw(t, "k")
				checkQuery(t, ix, model, q, qk)
			}
			if ix.Len() != len(model) {
				t.Fatalf("Len() = %d, want %d", ix.Len(), len(model))
			}
		}
		for _, b := range bases {
			checkQuery(t, ix, model, b, k)
		}
	})
}

// keepOdd accepts the matches of odd IDs.
func keepOdd(m Match) bool { return m.ID%2 == 1 }

// nearestKept returns the first n of ms (sorted) that keep accepts.
func nearestKept(ms []Match, n int, keep func(Match) bool) []Match {
	var out []Match
	for _, m := range ms {
		if len(out) < n && (keep == nil || keep(m)) {
			out = append(out, m)
		}
	}
	return out
}

// checkQuery compares Query, First, Nearest and QueryNearest with the
// oracle.
func checkQuery(t interface{ Fatalf(string, ...any) }, ix *Index, model oracle, q uint64, k int) {
	want := model.query(q, k)
	got := ix.Query(q, k, nil)
	if !slices.Equal(got, want) {
		t.Fatalf("Query(%016x, %d) = %v, want %v", q, k, got, want)
	}
	f, ok := ix.First(q, k)
	if ok != (len(want) > 0) || ok && !slices.Contains(want, f) {
		t.Fatalf("First(%016x, %d) = %v, %v; want one of %v", q, k, f, ok, want)
	}
	n, ok := ix.Nearest(q, k)
	if ok != (len(want) > 0) || ok && n != want[0] {
		t.Fatalf("Nearest(%016x, %d) = %v, %v; want %v", q, k, n, ok, want)
	}
	// QueryNearest at k, and at 64 (every entry within reach, the bound
	// narrowing as the nearest turn up), after what dst already holds;
	// for small indexes only, where a query at 64 costs little.
	if len(model) > 1000 {
		return
	}
	all := model.query(q, 64)
	for _, c := range []struct {
		k    int
		want []Match
	}{{k, want}, {64, all}} {
		for _, n := range []int{0, 1, 3, len(c.want), len(c.want) + 1} {
			held := Match{ID: 1 << 40, Distance: 65}
			near := ix.QueryNearest(q, c.k, n, nil, []Match{held})
			if w := c.want[:min(max(n, 0), len(c.want))]; near[0] != held || !slices.Equal(near[1:], w) {
				t.Fatalf("QueryNearest(%016x, %d, %d) = %v, want %v after %v", q, c.k, n, near, w, held)
			}
			// Filtered: the n nearest of those keep accepts.
			near = ix.QueryNearest(q, c.k, n, keepOdd, nil)
			if w := nearestKept(c.want, n, keepOdd); !slices.Equal(near, w) {
				t.Fatalf("QueryNearest(%016x, %d, %d, odd ids) = %v, want %v", q, c.k, n, near, w)
			}
		}
	}
}

func TestPigeonholeEdges(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range testDesigns {
		for k := 0; k <= d.MaxK(); k++ {
			ix := newTestIndex(t, Options{K: k, Design: d}, 4, 8)
			model := oracle{}
			base := r.Uint64()
			id := uint64(0)
			add := func(fp uint64) {
				id++
				e := Entry{ID: id, FP: fp}
				ix.Add(e)
				model[id] = e
			}
			// Identical fingerprints under different ids.
			for range 3 {
				add(base)
			}
			// Flips of exactly k and k+1 bits at every block boundary of
			// every table, and the widest spread of k flips.
			for _, tab := range ix.tabs {
				edges := boundaries(tab.keyMask)
				for i := range edges {
					fp := base
					for j := 0; j < k && j < len(edges); j++ {
						fp ^= 1 << uint(edges[(i+j)%len(edges)])
					}
					add(fp)
					add(fp ^ 1<<uint(63-i%64))
				}
			}
			spread := base
			for j := 0; j < k; j++ {
				spread ^= 1 << uint(j*64/max(k, 1))
			}
			add(spread)
			checkQuery(t, ix, model, base, k)
			checkQuery(t, ix, model, spread, k)
			if k > 0 {
				checkQuery(t, ix, model, base, k-1)
			}
		}
	}
}

// boundaries lists the bit positions on either side of every edge between
// key and non-key bits of a mask.
func boundaries(mask uint64) []int {
	var out []int
	for b := 0; b < 63; b++ {
		if (mask>>uint(b))&1 != (mask>>uint(b+1))&1 {
			out = append(out, b, b+1)
		}
	}
	if len(out) == 0 {
		out = []int{0, 63}
	}
	return out
}

func TestDesigns(t *testing.T) {
	tests := []struct {
		d              Design
		tables, maxK   int
		minKey, maxKey int
	}{
		{Seed4x16(), 4, 3, 16, 16},
		{Manku20(), 20, 3, 31, 33},
		{Manku16(), 16, 3, 28, 28},
		{Design{Levels: []Level{{1, 1}}}, 1, 0, 64, 64},
		{Design{Levels: []Level{{5, 2}}}, 10, 3, 25, 26},
		// A level keyed on all its blocks: exact-match tables.
		{Design{Levels: []Level{{4, 4}}}, 1, 0, 64, 64},
		{Design{Levels: []Level{{4, 1}, {2, 2}}}, 4, 0, 64, 64},
	}
	for _, tt := range tests {
		t.Run(tt.d.String(), func(t *testing.T) {
			if err := tt.d.Validate(); err != nil {
				t.Fatal(err)
			}
			ts := buildTables(tt.d)
			if kw := keyWidths(tt.d); len(kw) != len(ts) {
				t.Fatalf("keyWidths gives %d tables, want %d", len(kw), len(ts))
			} else {
				for i := range ts {
					if kw[i] != ts[i].keyBits {
						t.Fatalf("keyWidths[%d] = %d, table has %d", i, kw[i], ts[i].keyBits)
					}
				}
			}
			if len(ts) != tt.tables || tt.d.Tables() != tt.tables || tt.d.MaxK() != tt.maxK {
				t.Fatalf("tables %d (%d), maxK %d; want %d, %d", len(ts), tt.d.Tables(), tt.d.MaxK(), tt.tables, tt.maxK)
			}
			for _, tab := range ts {
				if tab.keyBits < tt.minKey || tab.keyBits > tt.maxKey || bits.OnesCount64(tab.keyMask) != tab.keyBits {
					t.Fatalf("key bits %d (mask %016x), want %d..%d", tab.keyBits, tab.keyMask, tt.minKey, tt.maxKey)
				}
				// The permutation is a bijection that puts the key bits on top.
				r := rand.New(rand.NewPCG(3, 4))
				for range 100 {
					fp := r.Uint64()
					p := tab.permute(fp)
					if bits.OnesCount64(p) != bits.OnesCount64(fp) {
						t.Fatalf("permute(%016x) = %016x changes the weight", fp, p)
					}
					if got, want := bits.OnesCount64(p>>(64-uint(tab.keyBits))), bits.OnesCount64(fp&tab.keyMask); got != want {
						t.Fatalf("key of %016x has weight %d, want %d", fp, got, want)
					}
				}
			}
			back, err := ParseDesign(tt.d.String())
			if err != nil || back.String() != tt.d.String() {
				t.Fatalf("ParseDesign(%q) = %v, %v", tt.d.String(), back, err)
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{
		{K: -1},
		{K: MaxK + 1},
		{ExpectedN: -1},
		{K: 4, Design: Seed4x16()},
		{K: 1, Design: Design{Levels: []Level{{0, 1}}}},
		{K: 1, Design: Design{Levels: []Level{{4, 5}}}},
	} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
	// 64/32 and 63/27 have more tables than an int holds the binomial of
	// on the way; 2/2 keys on every bit, leaving none for a next level.
	for _, s := range []string{"x", "4/", "4/1,", "70/1", "20/10", "0/0", "4/5", "64/32", "63/27", "2/2,4/1"} {
		if _, err := ParseDesign(s); err == nil {
			t.Errorf("ParseDesign(%q) succeeded", s)
		}
	}
}

// TestEstimateDesignInvalid checks that EstimateDesign panics with an error
// naming the design for an invalid one, rather than dividing by zero,
// estimating nonsense or enumerating tables until memory runs out.
func TestEstimateDesignInvalid(t *testing.T) {
	two := Level{Blocks: 2, Key: 1}
	for _, d := range []Design{
		{},
		{Levels: []Level{{Blocks: 0, Key: 0}}},
		{Levels: []Level{{Blocks: 65, Key: 1}}},
		{Levels: []Level{two, two, two, two, two, two, two}},
		{Levels: []Level{{Blocks: 4, Key: 5}}},   // looped
		{Levels: []Level{{Blocks: 64, Key: 32}}}, // passed Validate
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				if !errors.Is(err, ErrDesign) || !strings.Contains(err.Error(), "("+d.String()+")") {
					t.Fatalf("EstimateDesign(%v) panicked with %v, want an error wrapping ErrDesign naming it", d.Levels, err)
				}
			}()
			EstimateDesign(d, 1000)
		}()
	}
}

// TestZeroIndex checks that AddBatch on the zero Index, which is not
// usable, says so.
func TestZeroIndex(t *testing.T) {
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "not made by New") {
			t.Fatalf("AddBatch on the zero Index panicked with %q", msg)
		}
	}()
	var ix Index
	ix.AddBatch([]Entry{{ID: 1, FP: 1}})
}

func TestChooseDesign(t *testing.T) {
	for k := 0; k <= 8; k++ {
		for _, n := range []int{1000, 1 << 20, 10_000_000, 1 << 30} {
			d := ChooseDesign(k, n, DefaultMaxBytesPerEntry)
			if err := d.Validate(); err != nil || d.MaxK() < k {
				t.Fatalf("ChooseDesign(%d, %d) = %v (max k %d): %v", k, n, d, d.MaxK(), err)
			}
		}
	}
	// With room to spare, a billion entries need longer keys than 16 bits.
	if d := ChooseDesign(3, 1<<30, 1000); EstimateDesign(d, 1<<30).KeyBits <= 16 {
		t.Errorf("ChooseDesign(3, 2^30, 1000) = %v, want keys longer than 16 bits", d)
	}
}

func TestKeysShared(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, d := range testDesigns {
		ix := newTestIndex(t, Options{K: d.MaxK(), Design: d}, 4, 8)
		for range 200 {
			a := r.Uint64()
			b := a
			for range r.IntN(d.MaxK() + 1) {
				b ^= 1 << r.UintN(64)
			}
			ka, kb := ix.Keys(a, nil), ix.Keys(b, nil)
			if len(ka) != ix.Tables() {
				t.Fatalf("%v: %d keys, want %d", d, len(ka), ix.Tables())
			}
			shared := false
			for _, x := range ka {
				shared = shared || slices.Contains(kb, x)
			}
			if !shared {
				t.Fatalf("%v: %016x and %016x (distance %d) share no key", d, a, b, bits.OnesCount64(a^b))
			}
		}
	}
}

// TestAdaptiveDesign checks that an adaptive index trades its first design,
// chosen for ExpectedN, for the one suited to what it holds at its next
// full rebuild, and stays exact; a fixed index keeps its design.
// TestSizedDesigns grows an index with Sizes past the first design's
// bound, one entry at a time, and checks that a full rebuild takes the
// next design, that queries beyond K (probing) stay exact before and
// after, and that a snapshot keeps the sizes and the current design.
func TestSizedDesigns(t *testing.T) {
	small := Design{Levels: []Level{{Blocks: 5, Key: 1}}}
	sizes := []SizedDesign{{UpTo: 3000, Design: small}, {UpTo: 1 << 30, Design: Seed4x16()}}
	ix := newTestIndex(t, Options{K: 3, ExpectedN: 1000, Wide: true, Sizes: sizes}, 64, 512)
	ix.probe = 1 // probe, not scan, at these sizes
	if got := ix.Design().String(); got != small.String() {
		t.Fatalf("first design %s, want %s", got, small)
	}
	es := randomEntries(8000, 11)
	model := oracle{}
	r := rand.New(rand.NewPCG(3, 3))
	check := func(upto int) {
		t.Helper()
		for i := 0; i < upto; i += 61 {
			q := es[i].FP
			for range r.IntN(11) {
				q ^= 1 << r.UintN(64)
			}
			checkQuery(t, ix, model, q, 10)
		}
	}
	for i, e := range es {
		ix.Add(e)
		model[e.ID] = e
		if i == 2000 {
			if got := ix.Design().String(); got != small.String() {
				t.Fatalf("design %s at %d entries, want %s", got, i+1, small)
			}
			check(i + 1)
		}
	}
	rebuild(ix)
	if got := ix.Design().String(); got != Seed4x16().String() || ix.Tables() != 4 {
		t.Fatalf("design %s with %d tables at %d entries, want %s", got, ix.Tables(), len(es), Seed4x16())
	}
	check(len(es))
	back := roundTrip(t, ix)
	if got := back.Sizes(); len(got) != 2 || got[0].UpTo != 3000 || got[0].Design.String() != small.String() || got[1].Design.String() != Seed4x16().String() {
		t.Fatalf("loaded sizes %v, want %v", got, sizes)
	}
	if back.Design().String() != Seed4x16().String() {
		t.Fatalf("loaded design %s, want %s", back.Design(), Seed4x16())
	}
	ix = back
	ix.probe = 1
	check(len(es))
	for _, bad := range [][]SizedDesign{
		{{UpTo: 10, Design: Seed4x16()}, {UpTo: 10, Design: small}},
		{{UpTo: 10, Design: Design{Levels: []Level{{Blocks: 2, Key: 1}}}}},
	} {
		if _, err := New(Options{K: 3, Sizes: bad}); err == nil {
			t.Errorf("New with sizes %v: no error", bad)
		}
	}
}

func TestAdaptiveDesign(t *testing.T) {
	const k, budget, n = 6, 270, 40_000
	first := ChooseDesign(k, 1<<20, budget)
	want := ChooseDesign(k, 2*n, budget)
	if first.String() == want.String() {
		t.Fatalf("test needs different designs for 1M and %d entries, both %v", 2*n, first)
	}
	es := randomEntries(n, 5)
	for _, adaptive := range []bool{false, true} {
		ix, err := New(Options{K: k, ExpectedN: 1 << 20, MaxBytesPerEntry: budget, Adaptive: adaptive})
		if err != nil {
			t.Fatal(err)
		}
		if got := ix.Design().String(); got != first.String() {
			t.Fatalf("adaptive %v: first design %s, want %s", adaptive, got, first)
		}
		ix.AddBatch(es[:n/2])
		for _, e := range es[n/2:] {
			ix.Add(e)
		}
		rebuild(ix)
		end := first
		if adaptive {
			end = want
		}
		if got := ix.Design().String(); got != end.String() || ix.Tables() != end.Tables() {
			t.Fatalf("adaptive %v: design %s with %d tables after %d entries, want %s", adaptive, got, ix.Tables(), n, end)
		}
		model := oracle{}
		for _, e := range es {
			model[e.ID] = e
		}
		r := rand.New(rand.NewPCG(9, 9))
		for i := 0; i < n; i += 97 {
			q := es[i].FP
			for range r.IntN(k + 1) {
				q ^= 1 << r.UintN(64)
			}
			checkQuery(t, ix, model, q, k)
		}
	}
}

// TestBytes checks that Bytes accounts for the heap an index holds, within
// 5%, for designs with narrow and wide tables, after bulk and single
// adds (so with tiers and recent entries) and removals.
func TestBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds indexes of 130,000 entries")
	}
	for _, o := range []Options{
		{K: 3, Design: Seed4x16()},
		{K: 3, Design: Manku20()},
		{K: 3, Design: Design{Levels: []Level{{5, 1}}}, Wide: true},
	} {
		t.Run(o.Design.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 8))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			ix, err := New(o)
			if err != nil {
				t.Fatal(err)
			}
			id := uint64(0)
			for range 100 {
				es := make([]Entry, 1000)
				for i := range es {
					es[i] = Entry{ID: id, FP: r.Uint64(), Time: int64(id), Tag: uint16(id)}
					id++
				}
				ix.AddBatch(es)
			}
			for range 30_000 {
				ix.Add(Entry{ID: id, FP: r.Uint64(), Time: int64(id)})
				id++
			}
			for i := range uint64(5_000) {
				ix.Remove(i * 7)
			}
			settle(ix)
			runtime.GC()
			runtime.ReadMemStats(&after)
			held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			got := ix.Bytes()
			runtime.KeepAlive(ix)
			if d := float64(got-held) / float64(held); d < -0.05 || d > 0.05 {
				t.Errorf("Bytes() = %d, heap held %d (%+.0f%%)", got, held, 100*d)
			}
		})
	}
}

// TestQueryBatchNearest checks QueryBatchNearest against the oracle for
// batches large enough that the tables are shared out among the cores
// (each part keeps its own n nearest), and beyond the tables' distance,
// with queries that many entries are near.
func TestQueryBatchNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ix, err := New(Options{K: 3, Design: Seed4x16(), Wide: true})
	if err != nil {
		t.Fatal(err)
	}
	model := oracle{}
	bases := []uint64{r.Uint64(), r.Uint64(), r.Uint64()}
	near := func() uint64 {
		fp := bases[r.IntN(len(bases))]
		for range r.IntN(5) {
			fp ^= 1 << r.IntN(64)
		}
		return fp
	}
	var es []Entry
	for id := range uint64(5000) {
		e := Entry{ID: id, FP: near()}
		es = append(es, e)
		model[id] = e
	}
	ix.AddBatch(es)
	qs := make([]uint64, 3*tablesSplitMin)
	for i := range qs {
		qs[i] = near()
	}
	keep := func(i int, m Match) bool { return i%3 != 0 || keepOdd(m) }
	for _, k := range []int{0, 3, 6, 10} {
		for _, n := range []int{1, 5, 100} {
			got := ix.QueryBatchNearest(qs, k, n, keep)
			for i, q := range qs {
				want := nearestKept(model.query(q, k), n, func(m Match) bool { return keep(i, m) })
				if !slices.Equal(got[i], want) {
					t.Fatalf("k %d, n %d: query %d = %v, want %v", k, n, i, got[i], want)
				}
			}
		}
	}
}

// TestMaxBytes checks that an adaptive index keeps within MaxBytes as it
// grows: the design of 28 tables that its MaxBytesPerEntry allows from
// 350,000 entries is not taken when the bound leaves too little for it
// and a second copy, the wide tables are given up when they no longer
// fit, and the index holds at most half the bound. Midway the index goes
// through a snapshot, after which SetMaxBytes sets the bound again.
func TestMaxBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds indexes of 400,000 entries")
	}
	for _, tt := range []struct {
		maxBytes int64
		tables   int
		wide     bool
	}{
		{0, 28, false}, // no bound: 8/2
		// 8/2 would need 278 bytes an entry, twice; of the designs that
		// fit, 4/1 probed at k 6 is predicted cheaper than 7/1.
		{200 << 20, 4, true},
		{60 << 20, 7, false}, // 7/1 wide needs 116 bytes an entry, twice
		{10 << 20, 7, false}, // too little for any design: the leanest
	} {
		ix, err := New(Options{K: 6, Adaptive: true, WideIfFits: true, MaxBytesPerEntry: 270, MaxBytes: tt.maxBytes})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		id := uint64(0)
		for round := range 8 {
			if round == 4 {
				// A snapshot does not keep the bound: it is set again.
				var b bytes.Buffer
				if _, err := ix.WriteTo(&b); err != nil {
					t.Fatal(err)
				}
				if ix, err = ReadIndex(&b); err != nil {
					t.Fatal(err)
				}
				ix.SetMaxBytes(tt.maxBytes)
			}
			es := make([]Entry, 50_000)
			for i := range es {
				es[i] = Entry{ID: id, FP: r.Uint64(), Time: 1}
				id++
			}
			ix.AddBatch(es)
			settle(ix)
			if b := ix.Bytes(); tt.maxBytes >= 90<<20 && b > tt.maxBytes/2 {
				t.Errorf("MaxBytes %d: %d entries hold %d bytes, more than half the bound", tt.maxBytes, ix.Len(), b)
			}
		}
		if ix.Tables() != tt.tables || ix.Wide() != tt.wide {
			t.Errorf("MaxBytes %d: %d entries in design %v, wide %v; want %d tables, wide %v", tt.maxBytes, ix.Len(), ix.Design(), ix.Wide(), tt.tables, tt.wide)
		}
		// Whatever the design, queries at K find every entry within it:
		// some near stored entries, alone and in a batch.
		fps := ix.fps[:0:0]
		for _, m := range ix.QueryNearest(0, 64, ix.Len(), nil, nil) {
			fps = append(fps, m.FP)
		}
		qs := make([]uint64, 300)
		for i := range qs {
			// 4 to 6 bits off: beyond what 4/1's keys find alone.
			qs[i] = fps[r.IntN(len(fps))]
			for _, b := range r.Perm(64)[:4+i%3] {
				qs[i] ^= 1 << b
			}
		}
		// And so after a snapshot, which keeps the design.
		var b bytes.Buffer
		if _, err := ix.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		design := ix.Design()
		if ix, err = ReadIndex(&b); err != nil || ix.Design().String() != design.String() {
			t.Fatalf("MaxBytes %d: snapshot of design %v read as %v, %v", tt.maxBytes, design, ix.Design(), err)
		}
		batch := ix.QueryBatch(qs, 6)
		for i, q := range qs {
			want := 0
			for _, fp := range fps {
				if bits.OnesCount64(fp^q) <= 6 {
					want++
				}
			}
			if got := len(ix.Query(q, 6, nil)); got != want || len(batch[i]) != want {
				t.Fatalf("MaxBytes %d, design %v: query %d found %d alone and %d in a batch, want %d", tt.maxBytes, ix.Design(), i, got, len(batch[i]), want)
			}
		}
	}
	if _, err := New(Options{K: 6, MaxBytes: -1}); !errors.Is(err, ErrOptions) {
		t.Errorf("MaxBytes -1: %v, want ErrOptions", err)
	}
}
