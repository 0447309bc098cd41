package neardup

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/neardup/neardup/similarity"
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

// TestShortIndexFits checks the length filter: every length that can pass
// the Short rule with a query's is kept, lengths beyond the rule's ratio
// are dropped, and without a length bound nothing is, for several
// policies.
func TestShortIndexFits(t *testing.T) {
	for _, tc := range []struct {
		name    string
		measure Measure
		min     float64
	}{
		{"default", Levenshtein, 0.8},
		{"loose", Levenshtein, 0.5},
		{"strict", Levenshtein, 0.95},
		{"identical only", Levenshtein, 1},
		{"any ratio", Levenshtein, 0},
		{"jaccard", Jaccard, 0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultPolicy()
			p.Short.Measure, p.Short.MinSimilarity = tc.measure, tc.min
			p.Tiny.Measure, p.Tiny.MinSimilarity = tc.measure, tc.min
			s, err := newShortIndex(p, 64, 1000)
			if err != nil {
				t.Fatal(err)
			}
			bounded := tc.measure == Levenshtein && tc.min > 0
			dropped := 0
			for n := 1; n < p.ShortLength; n++ {
				if !s.fits(n, 0) {
					t.Fatalf("length %d: a text of unknown length dropped", n)
				}
				for m := 1; m < p.ShortLength; m++ {
					fits := s.fits(n, tag(m))
					switch {
					case !bounded && !fits:
						t.Fatalf("no length bound, yet length %d dropped for %d", m, n)
					case passes(n, m, tc.min) && !fits:
						t.Fatalf("length %d can pass with %d but is dropped", m, n)
					case bounded && fits && !passes(n, m, tc.min) && !passes(n+1, m, tc.min) && !passes(n, m+1, tc.min):
						t.Fatalf("length %d kept for %d, beyond the ratio and the slack", m, n)
					}
					if !fits {
						dropped++
					}
				}
			}
			if bounded && dropped == 0 {
				t.Fatal("nothing dropped")
			}
		})
	}
}

// TestShortIndexQuery checks query and queryBatch against a scan of
// every entry: each entry within its pair's rule's distance (the Tiny
// rule's for a tiny pair, the Short rule's for a short one, Policy.RuleFor) whose
// length can pass with the query's, or within the query's radius and of
// unknown length, or within the Long rule's distance whatever its length,
// is found, and no other entry is: with the default policy, without a
// tiny rule and with a wider one.
func TestShortIndexQuery(t *testing.T) {
	noTiny := DefaultPolicy()
	noTiny.TinyLength = 0
	wider := DefaultPolicy()
	wider.TinyLength, wider.Tiny.MaxDistance = 60, 16
	for _, tc := range []struct {
		name string
		p    Policy
	}{{"default", DefaultPolicy()}, {"no tiny rule", noTiny}, {"tiny rule at 16", wider}} {
		t.Run(tc.name, func(t *testing.T) { checkShortIndexQuery(t, tc.p) })
	}
}

func checkShortIndexQuery(t *testing.T, p Policy) {
	s, err := newShortIndex(p, 64, 1000)
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
	// length draws a length, 0 (unknown) to ShortCap + 19 (from ShortCap
	// on: not held), a third of them tiny or just over.
	held := p.ShortCap()
	length := func() int {
		if p.TinyLength > 0 && r.IntN(3) == 0 {
			return r.IntN(p.TinyCap() + 5)
		}
		return r.IntN(held + 20)
	}
	var es []index.Entry
	var ns []int
	for i := range 6000 {
		st := stored{fp: near(), n: length()}
		all = append(all, st)
		e := index.Entry{ID: uint64(i), FP: st.fp, Time: 1}
		if i%2 == 0 {
			s.add(e, st.n)
		} else {
			es, ns = append(es, e), append(ns, st.n)
		}
	}
	s.addBatch(es, ns)
	nearK := p.Long.MaxDistance
	// rule is the distance and ratio of the rule of a pair of lengths n
	// and m; radius the distance a query of length n searches.
	rule := func(n, m int) (int, float64) {
		r, _ := p.RuleFor(n, m)
		if r.Measure != Levenshtein {
			return r.MaxDistance, 0
		}
		return r.MaxDistance, r.MinSimilarity
	}
	radius := func(n int) int {
		k := max(p.Short.MaxDistance, nearK)
		if n < p.TinyCap() {
			k = max(k, p.Tiny.MaxDistance)
		}
		return k
	}
	var qs []uint64
	var qn []int
	for range 300 {
		qs, qn = append(qs, near()), append(qn, 1+length())
	}
	batch := s.queryBatch(qs, qn, 0)
	// The 5 nearest: the first 5 of all, by distance then sequence number.
	const most = 5
	batchMost := s.queryBatch(qs, qn, most)
	for i, q := range qs {
		one := s.query(q, qn[i], 0, nil)
		if !slices.Equal(one, batch[i]) {
			t.Fatalf("query %d: alone %v, in a batch %v", i, one, batch[i])
		}
		oneMost := s.query(q, qn[i], most, nil)
		if want := one[:min(most, len(one))]; !slices.Equal(oneMost, want) || !slices.Equal(batchMost[i], want) {
			t.Fatalf("query %d: the %d nearest alone %v, in a batch %v; want %v", i, most, oneMost, batchMost[i], want)
		}
		for _, got := range [][]index.Match{one, batch[i]} {
			ids := map[uint64]bool{}
			for _, m := range got {
				ids[m.ID] = true
			}
			if len(ids) != len(got) {
				t.Fatalf("query %d: an entry reported twice in %v", i, got)
			}
			for id, st := range all {
				d := popcount(q ^ st.fp)
				k, ratio := rule(qn[i], st.n)
				both := qn[i] < held && st.n < held
				want := both && (d <= nearK || st.n == 0 && d <= radius(qn[i]) || d <= k && passes(qn[i], st.n, ratio))
				// Lengths one edit beyond the ratio may be kept (fits).
				maybe := both && d <= k && (passes(qn[i]+1, st.n, ratio) || passes(qn[i], st.n+1, ratio))
				switch {
				case want && !ids[uint64(id)]:
					t.Fatalf("query %d (length %d): entry %d (length %d, distance %d) missed", i, qn[i], id, st.n, d)
				case ids[uint64(id)] && !want && !maybe:
					t.Fatalf("query %d (length %d): entry %d (length %d, distance %d) found", i, qn[i], id, st.n, d)
				}
			}
			for _, m := range got {
				if st := all[m.ID]; m.Distance != popcount(q^st.fp) || int(m.Tag) != st.n {
					t.Fatalf("query %d: match %+v of an entry of length %d", i, m, st.n)
				}
			}
		}
	}
	n := 0
	for _, st := range all {
		if st.n < held {
			n++
		}
	}
	if s.ix.Len() != n {
		t.Fatalf("len %d, want %d", s.ix.Len(), n)
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
	e = checkReopened(t, dir, &o, e, check)
	if n := unknownLengths(e); n != 0 {
		t.Fatalf("%d texts of unknown length after the rebuild", n)
	}
}

// writeEarlierRecords writes into a new store in dir the records of
// texts, ids "old0", "old1" and so on, fingerprinted by cutFingerprinter,
// with the NormLen normLen gives each, as an earlier release would have
// left them; it returns the options to open the store with.
func writeEarlierRecords(t *testing.T, dir string, texts []string, normLen func(text string) int) Options {
	t.Helper()
	now := time.Now()
	db, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := db.NewBatch()
	for i, text := range texts {
		fp := cutFingerprinter{}.Fingerprint([]byte(text))
		b.Put(&store.Doc{Record: store.Record{Seq: store.MakeSeq(now.Unix(), uint64(i+1)), ID: fmt.Sprint("old", i),
			Fingerprint: fp.Bytes(), Time: now.Unix(), TextHash: xxh3.HashString(text),
			TextLen: utf8.RuneCountInString(text), NormLen: normLen(text)}, Text: []byte(text)})
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
	return o
}

// checkReopened calls check("open", e), closes e, and calls check again on
// the engine reopened from its snapshot ("snapshot") and on one whose
// indexes are rebuilt from the records, the short index's snapshot
// removed ("rebuilt"), which it returns.
func checkReopened(t *testing.T, dir string, o *Options, e *Engine, check func(stage string, e *Engine)) *Engine {
	t.Helper()
	check("open", e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, o)
	if !e.fromSnapshot {
		t.Fatal("not reopened from the snapshot")
	}
	check("snapshot", e)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(snapshotPath(dir, "short")); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, o)
	if e.fromSnapshot {
		t.Fatal("reopened from an incomplete snapshot")
	}
	check("rebuilt", e)
	return e
}

// TestShortTextsOfUnknownLength checks that records stored without the
// length of their normalized text, as earlier releases wrote them, are
// still found as short near-duplicates.
func TestShortTextsOfUnknownLength(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(9, 10))
	texts := []string{letters(r, 30), letters(r, 200)}
	o := writeEarlierRecords(t, dir, texts, func(string) int { return 0 })
	e := mustOpen(t, dir, &o)
	if n := unknownLengths(e); n != len(texts) {
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
	if n := unknownLengths(e); n != len(texts) {
		t.Fatalf("%d texts of unknown length after an insert, want %d", n, len(texts))
	}
}

// unknownLengths returns how many entries of e's short-text index have no
// length.
func unknownLengths(e *Engine) int {
	n := 0
	for _, m := range e.short.ix.Query(0, 64, nil) {
		if m.Tag == 0 {
			n++
		}
	}
	return n
}

// TestSketchCache checks the cache of candidates' runes: what was put is
// found, a shard keeps its newest sketchShardCap entries and forgets the
// oldest, putting a seq again neither replaces its runes nor takes a
// second place in the shard, and a shard of long texts keeps within
// sketchShardBytes, its newest ones.
func TestSketchCache(t *testing.T) {
	var c sketchCache
	sk := func(i int) cachedText {
		s := similarity.NewSketch([]byte(fmt.Sprintf("text %d", i)))
		return cachedText{runes: s.Runes, edit: s.EditRunes()}
	}
	get := func(seq uint64) []rune {
		t, ok := c.get(seq)
		if ok != (t.runes != nil) {
			panic("get's ok disagrees with its text")
		}
		return t.runes
	}
	seq := func(i int) uint64 { return uint64(i) * sketchShards } // all in shard 0
	first := sk(0)
	c.put(seq(0), first)
	c.put(seq(0), sk(-1))
	if got := get(seq(0)); &got[0] != &first.runes[0] {
		t.Fatalf("get after a second put = %q, want the first runes %q", string(got), string(first.runes))
	}
	for i := 1; i <= sketchShardCap; i++ {
		c.put(seq(i), sk(i))
	}
	if get(seq(0)) != nil {
		t.Errorf("the oldest entry is still cached after %d newer ones", sketchShardCap)
	}
	for i := 1; i <= sketchShardCap; i++ {
		if r := get(seq(i)); string(r) != fmt.Sprintf("text %d", i) {
			t.Fatalf("entry %d: got %q", i, string(r))
		}
	}
	if n := len(c.shards[0].m); n != sketchShardCap {
		t.Errorf("shard holds %d entries, want %d", n, sketchShardCap)
	}
	if get(seq(1)+1) != nil {
		t.Errorf("a seq never put is found")
	}

	// Texts of 4,000 runes, in shard 1: the bytes bound them. Their
	// punctuation makes edit runes of their own, which count too.
	long := func(i int) cachedText {
		s := similarity.NewSketch([]byte(fmt.Sprintf("%03999d!", i)))
		return cachedText{runes: s.Runes, edit: s.EditRunes()}
	}
	if l := long(0); len(l.edit) != 3999 || l.bytes() < 4*(4000+3999) {
		t.Fatalf("a long text's entry has %d edit runes and %d bytes, want 3999 and at least %d", len(l.edit), l.bytes(), 4*(4000+3999))
	}
	fit := sketchShardBytes / long(0).bytes()
	for i := range 2 * fit {
		c.put(seq(i)+1, long(i))
	}
	sh := &c.shards[1]
	if sh.bytes > sketchShardBytes || len(sh.m) != fit || sh.n != fit {
		t.Errorf("shard of long texts: %d bytes in %d entries (ring %d), want at most %d bytes in %d", sh.bytes, len(sh.m), sh.n, sketchShardBytes, fit)
	}
	if get(seq(2*fit-1)+1) == nil || get(seq(fit-1)+1) != nil {
		t.Errorf("the newest long text is gone, or the oldest kept")
	}
}

// TestCandidateSketchFresh checks that a cached candidate's sketch is made
// afresh for each use, on the cached runes: what one verification adds to
// it (shingles, vector) is not kept, so the cache's count of its memory
// holds.
func TestCandidateSketchFresh(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	res, err := e.CheckAndInsert(context.Background(), Document{ID: "a", Text: "A short text that verification reads."})
	if err != nil || !res.Inserted {
		t.Fatalf("insert: %+v, %v", res, err)
	}
	ref, status, err := e.lookup("a")
	if err != nil || status != idFound {
		t.Fatalf("lookup: %v, %v", status, err)
	}
	s := ref.seq
	a, _, err := e.candidateSketch(s, nil)
	if err != nil || a == nil {
		t.Fatalf("candidateSketch: %v, %v", a, err)
	}
	a.Shingles()
	b, _, err := e.candidateSketch(s, nil)
	if err != nil || b == nil || b == a || string(b.Runes) != string(a.Runes) || &b.Runes[0] != &a.Runes[0] {
		t.Fatalf("second candidateSketch: %p with %q, first %p with %q; want a new sketch of the cached runes", b, string(b.Runes), a, string(a.Runes))
	}
}

// prefixFingerprinter is a test Fingerprinter that hashes only the first
// 40 bytes of a text, so that a text and the same text lengthened have the
// same fingerprint.
type prefixFingerprinter struct{}

func (prefixFingerprinter) Bits() int { return 64 }

func (prefixFingerprinter) Fingerprint(text []byte) Fingerprint {
	return FromUint64(xxh3.Hash(text[:min(len(text), 40)]))
}

// TestShortAndLongFindEachOther checks the pairs of a short and a long
// text, which the Long rule judges: the short text is held in the short
// indexes and the long one in the index of long texts, and each must
// still find the other, through CheckAndInsert, a batch and
// QueryFingerprint, and be counted once in Stats.
func TestShortAndLongFindEachOther(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	short := genText(r, 70)
	for utf8.RuneCountInString(short) >= 460 {
		short = short[:strings.LastIndexByte(short, ' ')]
	}
	long := short + " " + genText(r, 15) // over 500 runes, most grams shared
	if n := utf8.RuneCountInString(long); n < 520 || n > 700 {
		t.Fatalf("long text of %d runes", n)
	}
	for _, tc := range []struct{ stored, checked string }{{short, long}, {long, short}} {
		for _, batch := range []bool{false, true} {
			o := memOptions(nil)
			o.Fingerprinter = prefixFingerprinter{}
			e := mustOpen(t, "", o)
			ctx := context.Background()
			if _, err := e.CheckAndInsert(ctx, Document{ID: "stored", Text: tc.stored}); err != nil {
				t.Fatal(err)
			}
			var res Result
			if batch {
				rs, err := e.CheckAndInsertBatch(ctx, []Document{{ID: "other", Text: genText(r, 30)}, {ID: "checked", Text: tc.checked}})
				if err != nil {
					t.Fatal(err)
				}
				res = rs[1]
			} else {
				var err error
				if res, err = e.CheckAndInsert(ctx, Document{ID: "checked", Text: tc.checked}); err != nil {
					t.Fatal(err)
				}
			}
			if !res.Duplicate || *res.DuplicateOf != "stored" {
				t.Fatalf("%d-rune text against a stored one of %d (batch %v): %+v", utf8.RuneCountInString(tc.checked), utf8.RuneCountInString(tc.stored), batch, res)
			}
			ms, err := e.QueryFingerprint(ctx, prefixFingerprinter{}.Fingerprint([]byte(tc.checked)), 0)
			if err != nil || len(ms) != 1 || ms[0].ID != "stored" {
				t.Fatalf("QueryFingerprint: %+v, %v", ms, err)
			}
			if n := e.Stats().Documents; n != 1+btoi(batch) {
				t.Fatalf("Stats().Documents = %d, want %d", n, 1+btoi(batch))
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestIdenticalTexts checks the copies that are the same bytes, which are
// judged without sketches: they are duplicates with every score 1 (the
// rule's only, with RuleScoreOnly), as sketches would give, while a text
// at distance 0 that is not the same is verified as any other.
func TestIdenticalTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	prefix := strings.Repeat("x", 40)  // all prefixFingerprinter sees
	for _, n := range []int{20, 150} { // words: a short text and a long one
		for _, ruleOnly := range []bool{false, true} {
			o := memOptions(nil)
			o.Fingerprinter = prefixFingerprinter{}
			o.RuleScoreOnly = ruleOnly
			e := mustOpen(t, "", o)
			ctx := context.Background()
			text := prefix + " " + genText(r, n)
			if _, err := e.CheckAndInsert(ctx, Document{ID: "stored", Text: text}); err != nil {
				t.Fatal(err)
			}
			res, err := e.Check(ctx, Document{ID: "copy", Text: text})
			if err != nil || !res.Duplicate || *res.DuplicateOf != "stored" || res.Similarity != 1 {
				t.Fatalf("%d words, copy: %+v, %v", n, res, err)
			}
			sa := similarity.NewSketch([]byte(text))
			_, _, want := DefaultPolicy().Verify(sa, sa, 0, 64)
			if ruleOnly {
				if utf8.RuneCountInString(text) < DefaultPolicy().ShortLength {
					want = Scores{Levenshtein: 1}
				} else {
					want = Scores{Jaccard: 1}
				}
			}
			got := res.Matches[0].Scores
			if got.Jaccard != want.Jaccard || got.Levenshtein != want.Levenshtein || math.Abs(got.Cosine-want.Cosine) > 1e-12 {
				t.Fatalf("%d words, rule only %v: scores %+v, want %+v", n, ruleOnly, got, want)
			}
			// Same fingerprint, another text: verified, and turned down.
			res, err = e.Check(ctx, Document{ID: "other", Text: prefix + " " + genText(r, n)})
			if err != nil || res.Duplicate {
				t.Fatalf("%d words, other text at distance 0: %+v, %v", n, res, err)
			}
		}
	}
}

// TestSentencesMoved checks that a short text reposted with its sentences
// in another order is a duplicate, alone and in a batch, English and
// Chinese, while a text that shares one of its sentences only is not.
func TestSentencesMoved(t *testing.T) {
	for _, tc := range []struct{ name, stored, moved, shares string }{
		{"en", "The train was late again this morning. Nobody on the platform said a word. We all looked down at our phones and waited.",
			"We all looked down at our phones and waited. The train was late again this morning. Nobody on the platform said a word.",
			"We all looked down at our phones and waited. The meeting had been moved to Friday. Lunch was cold pizza again."},
		{"zh", "今天下雨了，我们没有出门。明天会晴吗？大家都在等着看天气预报。",
			"明天会晴吗？大家都在等着看天气预报。今天下雨了，我们没有出门。",
			"明天会晴吗？老师说考试推迟到下周。食堂的饭菜又涨价了。"},
	} {
		t.Run(tc.name, func(t *testing.T) { testSentencesMoved(t, tc.stored, tc.moved, tc.shares) })
	}
}

func testSentencesMoved(t *testing.T, stored, moved, shares string) {
	for _, batch := range []bool{false, true} {
		e := mustOpen(t, "", memOptions(nil))
		ctx := context.Background()
		if _, err := e.CheckAndInsert(ctx, Document{ID: "stored", Text: stored}); err != nil {
			t.Fatal(err)
		}
		docs := []Document{{ID: "moved", Text: moved}, {ID: "shares", Text: shares}}
		var rs []Result
		if batch {
			var err error
			if rs, err = e.CheckAndInsertBatch(ctx, docs); err != nil {
				t.Fatal(err)
			}
		} else {
			for _, d := range docs {
				res, err := e.CheckAndInsert(ctx, d)
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, res)
			}
		}
		if !rs[0].Duplicate || *rs[0].DuplicateOf != "stored" {
			t.Errorf("sentences moved (batch %v): %+v", batch, rs[0])
		}
		if rs[1].Duplicate {
			t.Errorf("one sentence shared (batch %v): %+v", batch, rs[1])
		}
	}
}

// TestPunctuatedShortTexts checks that texts of many runes that
// punctuation and symbols make short, as the rules count them, are judged
// as short texts, as compare judges them: two sentences a word apart, each
// followed by a thousand "!" (ASCII) or "！" (full width, normalized), are
// duplicates within the tiny rule's distance, alone, in a batch and after
// the store is reopened (rebuilt from its records and from its snapshot).
func TestPunctuatedShortTexts(t *testing.T) {
	for _, bang := range []string{"!", "！"} {
		tail := strings.Repeat(bang, 1000)
		a, b := "the cat sat on the mat"+tail, "the cat sat on a mat"+tail
		sa, sb := similarity.NewSketch([]byte(a)), similarity.NewSketch([]byte(b))
		fpr, err := NewPipeline(DefaultPipeline(), 64)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Distance(fpr.Fingerprint([]byte(a)), fpr.Fingerprint([]byte(b)))
		if err != nil {
			t.Fatal(err)
		}
		if dup, _, _ := DefaultPolicy().Verify(sa, sb, d, 64); !dup || d <= DefaultPolicy().Long.MaxDistance {
			t.Fatalf("%q: the policy calls the pair duplicate %v at distance %d; the test needs a pair only the tiny rule finds", bang, dup, d)
		}
		for _, batch := range []bool{false, true} {
			dir := t.TempDir()
			o := DefaultOptions()
			o.ExpiryInterval = -1
			e := mustOpen(t, dir, &o)
			ctx := context.Background()
			if batch {
				rs, err := e.CheckAndInsertBatch(ctx, []Document{{ID: "a", Text: a}, {ID: "b", Text: b}})
				if err != nil || !rs[1].Duplicate {
					t.Fatalf("%q, batch: %+v, %v", bang, rs, err)
				}
			} else {
				if _, err := e.CheckAndInsert(ctx, Document{ID: "a", Text: a}); err != nil {
					t.Fatal(err)
				}
				if res, err := e.CheckAndInsert(ctx, Document{ID: "b", Text: b}); err != nil || !res.Duplicate {
					t.Fatalf("%q: %+v, %v", bang, res, err)
				}
			}
			for _, snapshot := range []bool{true, false} {
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
				if !snapshot {
					for _, name := range snapshotFiles {
						if err := os.Remove(snapshotPath(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
							t.Fatal(err)
						}
					}
				}
				e = mustOpen(t, dir, &o)
				if e.fromSnapshot != snapshot {
					t.Fatalf("%q: reopened from the snapshot %v, want %v", bang, e.fromSnapshot, snapshot)
				}
				if res, err := e.Check(ctx, Document{ID: "c", Text: b}); err != nil || !res.Duplicate || *res.DuplicateOf != "a" {
					t.Fatalf("%q, reopened (snapshot %v): %+v, %v", bang, snapshot, res, err)
				}
			}
		}
	}
}
