package neardup

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/store"
	"github.com/zeebo/xxh3"
)

// passes reports whether two texts of n and m normalized runes can pass
// a Levenshtein rule of min similarity r at all: as boundedRatio decides
// it, with the fewest edits the lengths allow.
func passes(n, m int, r float64) bool {
	longer := max(n, m)
	bound := int(math.Floor(float64(longer)*(1-r) + 1e-9))
	return max(n, m)-min(n, m) <= bound
}

// TestShortIndexSpan checks the classes a query visits: every length
// that can pass the Short rule with the query's is in a visited class, and
// lengths far outside the ratio are not, for several policies.
func TestShortIndexSpan(t *testing.T) {
	for _, tc := range []struct {
		name    string
		measure Measure
		min     float64
		classes int // of known length; 0: more than 1
	}{
		{"default", Levenshtein, 0.8, 0},
		{"loose", Levenshtein, 0.5, 0},
		{"strict", Levenshtein, 0.95, 0},
		{"identical only", Levenshtein, 1, 0},
		{"any ratio", Levenshtein, 0, 1},
		{"jaccard", Jaccard, 0.8, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultPolicy()
			p.Short.Measure, p.Short.MinSimilarity = tc.measure, tc.min
			s, err := newShortIndex(p, 1000)
			if err != nil {
				t.Fatal(err)
			}
			known := len(s.classes) - 1
			if tc.classes > 0 && known != tc.classes || tc.classes == 0 && known < 2 {
				t.Fatalf("%d classes of known length (lows %v)", known, s.lows)
			}
			for c := 1; c < len(s.lows); c++ {
				if s.lows[c] <= s.lows[c-1] {
					t.Fatalf("lows not increasing: %v", s.lows)
				}
			}
			if s.classOf(0) != s.unknown() || s.classOf(p.ShortLength) != -1 {
				t.Fatalf("classOf(0) = %d, classOf(%d) = %d", s.classOf(0), p.ShortLength, s.classOf(p.ShortLength))
			}
			for n := 1; n < p.ShortLength+10; n++ {
				first, last := s.span(n)
				if n >= p.ShortLength {
					if first <= last {
						t.Fatalf("span(%d) = %d..%d, want none: any pair is judged by the Long rule", n, first, last)
					}
					continue
				}
				for m := 1; m < p.ShortLength; m++ {
					c := s.classOf(m)
					if c < 0 || c >= s.unknown() || s.lows[c] > m || c+1 < len(s.lows) && s.lows[c+1] <= m {
						t.Fatalf("classOf(%d) = %d (lows %v)", m, c, s.lows)
					}
					in := first <= c && c <= last
					if tc.measure == Levenshtein && tc.min > 0 && passes(n, m, tc.min) && !in {
						t.Fatalf("length %d can pass with %d but its class %d is outside the span %d..%d", m, n, c, first, last)
					}
					if tc.measure != Levenshtein || tc.min == 0 {
						if !in {
							t.Fatalf("no length bound, yet length %d is outside the span of %d", m, n)
						}
						continue
					}
					// Beyond the ratio by more than a class's width, a
					// length is in no class the query visits.
					g := max(1/tc.min, minClassGrowth)
					if in && (float64(m) < (float64(n)*tc.min-1)/g-2 || float64(m) > (float64(n)/tc.min+1)*g+2) {
						t.Fatalf("length %d far from %d is in the span %d..%d (lows %v)", m, n, first, last, s.lows)
					}
				}
			}
		})
	}
}

// TestShortIndexQuery checks query and queryBatch against a scan of
// every entry: each entry within k whose length can pass with the
// query's, or whose length is unknown, is found, and nothing beyond k.
func TestShortIndexQuery(t *testing.T) {
	s, err := newShortIndex(DefaultPolicy(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	type stored struct {
		fp uint64
		n  int
	}
	var all []stored
	centers := []uint64{r.Uint64(), r.Uint64(), r.Uint64()}
	near := func() uint64 {
		fp := centers[r.IntN(len(centers))]
		for range r.IntN(14) {
			fp ^= 1 << r.IntN(64)
		}
		return fp
	}
	var es []index.Entry
	var ns []int
	for i := range 6000 {
		st := stored{fp: near(), n: r.IntN(520)} // 0: unknown; 500 and up: not held
		all = append(all, st)
		e := index.Entry{ID: uint64(i), FP: st.fp, Time: 1}
		if i%2 == 0 {
			s.add(e, st.n)
		} else {
			es, ns = append(es, e), append(ns, st.n)
		}
	}
	s.addBatch(es, ns)
	const k = 10
	var qs []uint64
	var qn []int
	for range 300 {
		qs, qn = append(qs, near()), append(qn, 1+r.IntN(510))
	}
	batch := s.queryBatch(qs, qn, k)
	for i, q := range qs {
		one := s.query(q, qn[i], k, nil)
		for _, got := range [][]index.Match{one, batch[i]} {
			ids := map[uint64]bool{}
			for _, m := range got {
				if ids[m.ID] {
					t.Fatalf("query %d: %d reported twice", i, m.ID)
				}
				ids[m.ID] = true
				if d := popcount(q ^ all[m.ID].fp); d > k || d != m.Distance {
					t.Fatalf("query %d: match %+v at distance %d", i, m, d)
				}
			}
			for id, st := range all {
				want := popcount(q^st.fp) <= k && qn[i] < 500 && st.n < 500 && (st.n == 0 || passes(qn[i], st.n, 0.8))
				if want && !ids[uint64(id)] {
					t.Fatalf("query %d (length %d): entry %d (length %d, distance %d) missed", i, qn[i], id, st.n, popcount(q^st.fp))
				}
			}
		}
	}
	held := 0
	for _, st := range all {
		if st.n < 500 {
			held++
		}
	}
	if s.len() != held {
		t.Fatalf("len %d, want %d", s.len(), held)
	}
	s.remove(0)
	s.remove(1)
	s.expireBefore(2)
	if s.len() != 0 {
		t.Fatalf("len %d after expiry", s.len())
	}
}

func popcount(x uint64) int { return bits.OnesCount64(x) }

// cutFingerprinter is a test Fingerprinter under which a text and the
// same text followed by "~" and anything are 8 bits apart (white space
// aside): beyond the Long
// rule's distance, within the Short rule's, so such pairs are found only
// through the short-text index.
type cutFingerprinter struct{}

func (cutFingerprinter) Bits() int { return 64 }

func (cutFingerprinter) Fingerprint(text []byte) Fingerprint {
	base, _, cut := strings.Cut(string(text), "~")
	fp := xxh3.HashString(strings.Join(strings.Fields(base), " "))
	if cut {
		fp ^= 0xff
	}
	return FromUint64(fp)
}

// letters returns a text of n runes, lower-case words of letters from r.
func letters(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
		if i%6 == 5 && i+1 < n {
			b[i] = ' '
		}
	}
	return string(b)
}

// TestShortTextsByLength checks that short near-duplicates of every length
// are found through the short-text index, at the edge of the Short rule's
// length ratio both ways, and again after a reopen from the snapshot and
// after a rebuild from the records.
func TestShortTextsByLength(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Fingerprinter = cutFingerprinter{}
	e, err := Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	type probe struct{ text, dupOf string }
	var probes []probe
	insert := func(e *Engine, id, text string) {
		t.Helper()
		res, err := e.CheckAndInsert(ctx, Document{ID: id, Text: text})
		if err != nil || !res.Inserted {
			t.Fatalf("insert %s: %+v, %v", id, res, err)
		}
	}
	for _, n := range []int{4, 9, 17, 40, 95, 180, 300, 450} {
		s := letters(r, n)
		id := fmt.Sprintf("len%d", n)
		insert(e, id, s)
		// One rune inserted: a ratio of n/(n+1), at least 0.8.
		probes = append(probes, probe{s + "~", id})
	}
	// Classes go by the normalized length: white space runs count once.
	spaced := letters(r, 60)
	insert(e, "spaced", strings.ReplaceAll(spaced, " ", "      "))
	probes = append(probes, probe{spaced + "~", "spaced"})
	// At the ratio's edge: 80 runes against 100, 1 - 20/100 = 0.8.
	s80 := letters(r, 80)
	insert(e, "s80", s80)
	probes = append(probes, probe{s80 + "~" + letters(r, 19), "s80"})
	s100 := letters(r, 80)
	insert(e, "s100", s100+"~"+letters(r, 19))
	probes = append(probes, probe{s100, "s100"})
	// Just beyond it, and a short text against a long one: new.
	s79 := letters(r, 79)
	insert(e, "s79", s79)
	probes = append(probes, probe{s79 + "~" + letters(r, 20), ""})
	s399 := letters(r, 399)
	insert(e, "s399", s399)
	probes = append(probes, probe{s399 + "~" + letters(r, 200), ""})

	check := func(name string, e *Engine) {
		t.Helper()
		for _, p := range probes {
			res, err := e.Check(ctx, Document{ID: "q", Text: p.text})
			if err != nil {
				t.Fatal(err)
			}
			if p.dupOf == "" {
				if res.Duplicate {
					t.Errorf("%s: %d runes: want new, got duplicate of %s", name, utf8.RuneCountInString(p.text), *res.DuplicateOf)
				}
				continue
			}
			if !res.Duplicate || *res.DuplicateOf != p.dupOf || res.Distance != 8 {
				t.Errorf("%s: %d runes: want duplicate of %s at 8 bits, got %+v", name, utf8.RuneCountInString(p.text), p.dupOf, res)
			}
		}
	}
	check("open", e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, &o)
	if !e.fromSnapshot {
		t.Fatal("not reopened from the snapshot")
	}
	check("snapshot", e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Without a snapshot of every class the indexes are rebuilt.
	if err := os.Remove(snapshotPath(dir, e.short.snapshotNames()[3])); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, &o)
	if e.fromSnapshot {
		t.Fatal("reopened from an incomplete snapshot")
	}
	if n := e.short.classes[e.short.unknown()].Len(); n != 0 {
		t.Fatalf("%d texts of unknown length after the rebuild", n)
	}
	check("rebuilt", e)
}

// TestShortTextsOfUnknownLength checks that records stored without the
// length of their normalized text, as earlier releases wrote them, are
// still found as short near-duplicates.
func TestShortTextsOfUnknownLength(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	db, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	texts := []string{letters(r, 30), letters(r, 200)}
	b := db.NewBatch()
	for i, text := range texts {
		fp := cutFingerprinter{}.Fingerprint([]byte(text))
		b.Put(&store.Doc{Record: store.Record{Seq: store.MakeSeq(now.Unix(), uint64(i+1)), ID: fmt.Sprint("old", i),
			Fingerprint: fp.Bytes(), Time: now.Unix(), TextHash: xxh3.HashString(text), TextLen: len(text)}, Text: []byte(text)})
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Fingerprinter = cutFingerprinter{}
	e := mustOpen(t, dir, &o)
	if n := e.short.classes[e.short.unknown()].Len(); n != len(texts) {
		t.Fatalf("%d texts of unknown length, want %d", n, len(texts))
	}
	for i, text := range texts {
		res, err := e.Check(context.Background(), Document{ID: "q", Text: text + "~"})
		if err != nil || !res.Duplicate || *res.DuplicateOf != fmt.Sprint("old", i) {
			t.Fatalf("check of %d: %+v, %v", i, res, err)
		}
	}
	// A new insert has a known length.
	res, err := e.CheckAndInsert(context.Background(), Document{ID: "new", Text: letters(r, 50)})
	if err != nil || !res.Inserted {
		t.Fatal(res, err)
	}
	known := slices.IndexFunc(e.short.classes[:e.short.unknown()], func(ix *index.Index) bool { return ix.Len() > 0 })
	if known < 0 || e.short.classes[known].Len() != 1 {
		t.Fatal("new insert not in a class of known length")
	}
}
