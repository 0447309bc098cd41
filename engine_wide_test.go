package neardup

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/similarity"
)

// hex128Fingerprinter is a test Fingerprinter of 128 bits: the text's
// first word read as 32 hex digits, so that a test sets every distance.
type hex128Fingerprinter struct{}

func (hex128Fingerprinter) Bits() int { return 128 }

func (hex128Fingerprinter) Fingerprint(text []byte) Fingerprint {
	w := strings.Fields(string(text))[0]
	hi, err := strconv.ParseUint(w[:16], 16, 64)
	if err != nil {
		panic(err)
	}
	lo, err := strconv.ParseUint(w[16:32], 16, 64)
	if err != nil {
		panic(err)
	}
	return FromUint128(hi, lo)
}

// hexDoc returns a text of about n runes that hex128Fingerprinter
// fingerprints to (hi, lo).
func hexDoc(r *rand.Rand, hi, lo uint64, n int) string {
	return fmt.Sprintf("%016x%016x %s", hi, lo, letters(r, max(n-33, 5)))
}

// flipBits returns x with d distinct random bits of its low w bits flipped.
func flipBits(r *rand.Rand, x uint64, d, w int) uint64 {
	for _, b := range r.Perm(w)[:d] {
		x ^= 1 << b
	}
	return x
}

// bruteDoc is a stored document as the brute-force scans see it.
type bruteDoc struct {
	id     string
	fp     Fingerprint
	sketch *similarity.Sketch // nil without texts
}

// bruteNear returns the stored documents within k bits of fp, nearest
// first, then oldest first (the order of docs), with their distances.
func bruteNear(docs []bruteDoc, fp Fingerprint, k int) (ids []string, dists []int) {
	type hit struct{ at, d int }
	var hits []hit
	for i, s := range docs {
		if d, _ := Distance(fp, s.fp); d <= k {
			hits = append(hits, hit{i, d})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.at, b.at)) })
	for _, h := range hits {
		ids, dists = append(ids, docs[h.at].id), append(dists, h.d)
	}
	return ids, dists
}

// wideCorpus returns texts for hex128Fingerprinter: clusters around random
// centers, with members whose distance from the center sits in the high
// half only, the low half only, or both; members that share the center's
// high or low half exactly and are far in the other (which crowd the
// indexes of that half); and unrelated texts. Lengths are short or long.
func wideCorpus(r *rand.Rand, n int) []string {
	var out []string
	length := func() int {
		if r.IntN(2) == 0 {
			return 40 + r.IntN(300)
		}
		return 600 + r.IntN(400)
	}
	for len(out) < n {
		hi, lo := r.Uint64(), r.Uint64()
		for range 20 + r.IntN(30) {
			h, l := hi, lo
			switch d := r.IntN(27); r.IntN(5) {
			case 0:
				h = flipBits(r, h, min(d, 40), 64)
			case 1:
				l = flipBits(r, l, min(d, 40), 64)
			case 2:
				h, l = flipBits(r, h, d/2, 64), flipBits(r, l, d-d/2, 64)
			case 3:
				l = r.Uint64() // crowds the high halves' index
			default:
				h = r.Uint64() // crowds the low halves' index
			}
			out = append(out, hexDoc(r, h, l, length()))
		}
		out = append(out, hexDoc(r, r.Uint64(), r.Uint64(), length()))
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out[:n]
}

// TestWideQueriesMatchBruteForce checks a 128-bit engine's answers against
// a scan of every stored fingerprint: QueryFingerprint at many distances,
// and the decisions of CheckAndInsert, CheckAndInsertBatch and Check, on
// fingerprints near each other in one half, the other or both, and
// crowded by stored ones that share a half with them exactly. Without
// texts (DropText) a candidate is a duplicate when it is within the Long
// rule's 12 bits, so the decision is the nearest stored fingerprint within
// them, and the matches the nearest of them, at most MaxCandidates:
// MaxCandidates is small, so that the crowds exceed it.
func TestWideQueriesMatchBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	o := memOptions(nil)
	o.Fingerprinter = hex128Fingerprinter{}
	o.DropText = true
	o.MaxCandidates = 5
	o.MaxMatches = 8
	e := mustOpen(t, "", o)
	ctx := context.Background()
	longK := e.longK
	var stored []bruteDoc
	// decided checks res, the decision on text, against the scan, and
	// stores text with the scan when the engine did.
	decided := func(what, id, text string, res Result, store bool) {
		t.Helper()
		fp := hex128Fingerprinter{}.Fingerprint([]byte(text))
		ids, dists := bruteNear(stored, fp, longK)
		if res.Duplicate != (len(ids) > 0) {
			t.Fatalf("%s %s: duplicate %v, the scan finds %d within %d bits (%v %v)", what, id, res.Duplicate, len(ids), longK, ids, dists)
		}
		if res.Duplicate && (*res.DuplicateOf != ids[0] || res.Distance != dists[0]) {
			t.Fatalf("%s %s: duplicate of %s at %d bits, the scan's nearest is %s at %d", what, id, *res.DuplicateOf, res.Distance, ids[0], dists[0])
		}
		if n := min(len(ids), o.MaxCandidates, o.MaxMatches); len(res.Matches) != n {
			t.Fatalf("%s %s: %d matches, want %d", what, id, len(res.Matches), n)
		}
		for i, m := range res.Matches {
			if m.ID != ids[i] || m.Distance != dists[i] {
				t.Fatalf("%s %s: match %d is %s at %d bits, the scan's is %s at %d", what, id, i, m.ID, m.Distance, ids[i], dists[i])
			}
		}
		if res.Inserted != !res.Duplicate {
			t.Fatalf("%s %s: inserted %v, duplicate %v", what, id, res.Inserted, res.Duplicate)
		}
		if store && res.Inserted {
			stored = append(stored, bruteDoc{id: id, fp: fp})
		}
	}
	texts := wideCorpus(r, 3000)
	for i := 0; i < len(texts); {
		if r.IntN(3) == 0 {
			id := fmt.Sprint("d", i)
			res, err := e.CheckAndInsert(ctx, Document{ID: id, Text: texts[i]})
			if err != nil {
				t.Fatal(err)
			}
			decided("CheckAndInsert", id, texts[i], res, true)
			i++
			continue
		}
		n := min(len(texts)-i, 1+r.IntN(200))
		ds := make([]Document, n)
		for j := range ds {
			ds[j] = Document{ID: fmt.Sprint("d", i+j), Text: texts[i+j]}
		}
		rs, err := e.CheckAndInsertBatch(ctx, ds)
		if err != nil {
			t.Fatal(err)
		}
		for j, res := range rs {
			decided("CheckAndInsertBatch", ds[j].ID, ds[j].Text, res, true)
		}
		i += n
	}
	if st := e.Stats(); st.Documents != len(stored) {
		t.Fatalf("%d documents, %d stored", st.Documents, len(stored))
	}
	// Queries: near the stored ones in either half or both, crowded, and
	// unrelated.
	queries := wideCorpus(r, 300)
	for i := range 100 {
		s := stored[r.IntN(len(stored))].fp
		hi, lo := s.Uint128()
		queries = append(queries, hexDoc(r, flipBits(r, hi, i%30, 64), lo, 100), hexDoc(r, hi, flipBits(r, lo, i%30, 64), 700))
	}
	var checks []Document
	for i, text := range queries {
		checks = append(checks, Document{ID: fmt.Sprint("q", i), Text: text})
		res, err := e.Check(ctx, checks[i])
		if err != nil {
			t.Fatal(err)
		}
		res.Inserted = !res.Duplicate // as decided expects
		decided("Check", checks[i].ID, text, res, false)
		fp := hex128Fingerprinter{}.Fingerprint([]byte(text))
		ks := []int{-1, 0, 1, 5, 6, 7, 11, 12, 13, 19, 20, 21, 25, 33}
		if i%20 == 0 {
			// Near every stored fingerprint is read.
			ks = append(ks, 40, 64, 128)
		}
		for _, k := range ks {
			ms, err := e.QueryFingerprint(ctx, fp, k)
			if err != nil {
				t.Fatal(err)
			}
			bound := k
			if k < 0 {
				bound = longK
			}
			ids, dists := bruteNear(stored, fp, bound)
			if n := min(len(ids), o.MaxMatches); len(ms) != n {
				t.Fatalf("query %d at k=%d: %d matches, the scan finds %d (want %d)", i, k, len(ms), len(ids), n)
			}
			for j, m := range ms {
				if m.ID != ids[j] || m.Distance != dists[j] || m.Duplicate != (m.Distance <= longK) || m.Similarity != 1-float64(m.Distance)/128 {
					t.Fatalf("query %d at k=%d: match %d is %+v, the scan's is %s at %d bits", i, k, j, m, ids[j], dists[j])
				}
			}
		}
	}
	rs, err := e.CheckBatch(ctx, checks)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range rs {
		res.Inserted = !res.Duplicate
		decided("CheckBatch", checks[i].ID, checks[i].Text, res, false)
	}
}

// TestWideCrowdedHalfFindsDuplicate checks that a 128-bit engine finds a
// near-duplicate when more than MaxCandidates stored texts share the high
// half of its fingerprint exactly but differ in the other half: those are
// no candidates (their whole distance is about 32 bits), and must not take
// the places of the one that is. When only the high halves were indexed,
// the MaxCandidates nearest by the high half were verified, all of them
// crowd, and the duplicate was missed.
func TestWideCrowdedHalfFindsDuplicate(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, half := range []string{"high", "low"} {
		o := memOptions(nil)
		o.Fingerprinter = hex128Fingerprinter{}
		e := mustOpen(t, "", o)
		ctx := context.Background()
		hi, lo := r.Uint64(), r.Uint64()
		crowd := func() (uint64, uint64) {
			if half == "high" {
				return hi, r.Uint64()
			}
			return r.Uint64(), lo
		}
		for i := range 3 * DefaultMaxCandidates {
			h, l := crowd()
			if _, err := e.Insert(ctx, Document{ID: fmt.Sprint("crowd", i), Text: hexDoc(r, h, l, 800)}); err != nil {
				t.Fatal(err)
			}
		}
		// The original, 10 bits from the query: 5 in each half, so that
		// it is nearer than the crowd by neither half alone.
		body := letters(r, 800)
		orig := fmt.Sprintf("%016x%016x %s", flipBits(r, hi, 5, 64), flipBits(r, lo, 5, 64), body)
		if _, err := e.Insert(ctx, Document{ID: "orig", Text: orig}); err != nil {
			t.Fatal(err)
		}
		query := Document{ID: "copy", Text: fmt.Sprintf("%016x%016x %s", hi, lo, body)}
		res, err := e.Check(ctx, query)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Duplicate || *res.DuplicateOf != "orig" || res.Distance != 10 {
			t.Fatalf("crowded %s half: Check %+v, want a duplicate of orig at 10 bits", half, res)
		}
		rs, err := e.CheckBatch(ctx, []Document{query, {ID: "other", Text: hexDoc(r, r.Uint64(), r.Uint64(), 800)}})
		if err != nil || !rs[0].Duplicate || *rs[0].DuplicateOf != "orig" {
			t.Fatalf("crowded %s half: CheckBatch %+v, %v; want a duplicate of orig", half, rs, err)
		}
		if res, err := e.CheckAndInsert(ctx, query); err != nil || !res.Duplicate || *res.DuplicateOf != "orig" {
			t.Fatalf("crowded %s half: CheckAndInsert %+v, %v; want a duplicate of orig", half, res, err)
		}
	}
}

// TestWideDecisionsMatchBruteForce checks the decisions of engines of both
// widths with the default pipeline, on near-duplicate texts short and long,
// against verifying the text with every stored one whose fingerprint is
// near enough for the Policy's rule (Policy.Verify): the duplicate, the
// distance, the similarity and the matches.
func TestWideDecisionsMatchBruteForce(t *testing.T) {
	for _, width := range []int{64, 128} {
		r := rand.New(rand.NewPCG(45, uint64(width)))
		o := memOptions(nil)
		o.Fingerprint.Bits = width
		o.MaxCandidates = 1000 // every candidate: the scan verifies every one
		e := mustOpen(t, "", o)
		ctx := context.Background()
		var stored []bruteDoc
		var bases []string
		check := func(what string, d Document, res Result) {
			t.Helper()
			fp := e.fp.Fingerprint([]byte(d.Text))
			a := similarity.NewSketch([]byte(d.Text))
			type dup struct {
				at, dist int
				sim      float64
			}
			var dups []dup
			for i, s := range stored {
				dist, _ := Distance(fp, s.fp)
				if ok, sim, _ := e.policy.Verify(a, s.sketch, dist, width); ok {
					dups = append(dups, dup{i, dist, sim})
				}
			}
			slices.SortFunc(dups, func(a, b dup) int {
				return cmp.Or(cmp.Compare(b.sim, a.sim), cmp.Compare(a.dist, b.dist), cmp.Compare(a.at, b.at))
			})
			if res.Duplicate != (len(dups) > 0) {
				t.Fatalf("%d bits, %s %s: duplicate %v, the scan finds %d", width, what, d.ID, res.Duplicate, len(dups))
			}
			if n := min(len(dups), e.opts.MaxMatches); len(res.Matches) != n {
				t.Fatalf("%d bits, %s %s: %d matches, want %d", width, what, d.ID, len(res.Matches), n)
			}
			for i, m := range res.Matches {
				w := dups[i]
				if m.ID != stored[w.at].id || m.Distance != w.dist || math.Abs(m.Similarity-w.sim) > 1e-9 {
					t.Fatalf("%d bits, %s %s: match %d is %s at %d bits, %v; the scan's %s at %d, %v", width, what, d.ID, i, m.ID, m.Distance, m.Similarity, stored[w.at].id, w.dist, w.sim)
				}
			}
			if res.Duplicate && *res.DuplicateOf != res.Matches[0].ID {
				t.Fatalf("%d bits, %s %s: duplicate of %s, first match %s", width, what, d.ID, *res.DuplicateOf, res.Matches[0].ID)
			}
			if res.Inserted {
				stored = append(stored, bruteDoc{id: d.ID, fp: fp, sketch: a})
			}
		}
		text := func() string {
			if len(bases) > 0 && r.IntN(3) > 0 {
				b := bases[r.IntN(len(bases))]
				return mutate(r, b, r.IntN(1+len(strings.Fields(b))/8))
			}
			n := 10 + r.IntN(30)
			if r.IntN(2) == 0 {
				n = 120 + r.IntN(130)
			}
			b := genText(r, n)
			bases = append(bases, b)
			return b
		}
		for i := 0; i < 700; {
			if r.IntN(2) == 0 {
				d := Document{ID: fmt.Sprint("d", i), Text: text()}
				res, err := e.CheckAndInsert(ctx, d)
				if err != nil {
					t.Fatal(err)
				}
				check("CheckAndInsert", d, res)
				i++
				continue
			}
			ds := make([]Document, 1+r.IntN(60))
			for j := range ds {
				ds[j] = Document{ID: fmt.Sprint("d", i+j), Text: text()}
			}
			rs, err := e.CheckAndInsertBatch(ctx, ds)
			if err != nil {
				t.Fatal(err)
			}
			for j, res := range rs {
				check("CheckAndInsertBatch", ds[j], res)
			}
			i += len(ds)
		}
		dups := 0
		for i := range 150 {
			d := Document{ID: fmt.Sprint("q", i), Text: text()}
			res, err := e.Check(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			check("Check", d, res)
			dups += btoi(res.Duplicate)
		}
		if dups < 50 {
			t.Fatalf("%d bits: only %d of 150 checks are duplicates: the test tests little", width, dups)
		}
	}
}

// wideAnswers returns what e answers for queries: each Check's decision,
// and each QueryFingerprint at the Long rule's distance and at 40 bits, as
// text to compare.
func wideAnswers(t *testing.T, e *Engine, queries []string) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for i, q := range queries {
		res, err := e.Check(ctx, Document{ID: fmt.Sprint("q", i), Text: q})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("check %d: %v %v %d %v", i, res.Duplicate, res.Matches, res.Distance, res.Similarity))
		for _, k := range []int{-1, 40} {
			ms, err := e.QueryFingerprint(ctx, e.fp.Fingerprint([]byte(q)), k)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("query %d at %d: %v", i, k, ms))
		}
	}
	st := e.Stats()
	return append(out, fmt.Sprintf("documents %d, short %d", st.Documents, st.ShortDocuments))
}

// TestWideReopen checks that a 128-bit store reopened from its index
// snapshot, and rebuilt from its records when the snapshot lacks the low
// halves' files (as one written before they had indexes of their own
// does), gives the answers it gave before it was closed, and counts each
// document once.
func TestWideReopen(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Retention = -1
	o.Fingerprint.Bits = 128
	o.MemoryLimit = 1 << 30
	r := rand.New(rand.NewPCG(47, 48))
	var texts []string
	for i := range 400 {
		n := 10 + r.IntN(30)
		if i%2 == 0 {
			n = 120 + r.IntN(100)
		}
		texts = append(texts, genText(r, n))
	}
	var queries []string
	for i := range 60 {
		queries = append(queries, mutate(r, texts[r.IntN(len(texts))], i%6), genText(r, 15+i))
	}
	e, err := Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, text := range texts {
		if _, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint(i), Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Delete("0"); err != nil {
		t.Fatal(err)
	}
	want := wideAnswers(t, e, queries)
	st := e.Stats()
	if st.Documents != len(texts)-1 || st.ShortDocuments == 0 || st.ShortDocuments == st.Documents {
		t.Fatalf("%d documents, %d short; want %d, some short", st.Documents, st.ShortDocuments, len(texts)-1)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range snapshotFiles {
		if _, err := os.Stat(snapshotPath(dir, name)); err != nil {
			t.Fatalf("snapshot file %s: %v", name, err)
		}
	}
	reopen := func(what string, snapshot bool) {
		t.Helper()
		e, err := Open(dir, &o)
		if err != nil {
			t.Fatal(err)
		}
		if e.fromSnapshot != snapshot {
			t.Fatalf("%s: from the snapshot %v, want %v", what, e.fromSnapshot, snapshot)
		}
		if !e.halvesAgree() {
			t.Fatalf("%s: the indexes of the two halves hold different documents", what)
		}
		// The two halves' indexes of a role share the memory one index
		// has at 64 bits.
		limit := int64(float64(o.MemoryLimit)*IndexMemoryShare) / 2
		for _, ix := range []*index.Index{e.long, e.longLo, e.shortLong, e.shortLongLo} {
			if ix.MaxBytes() != limit {
				t.Fatalf("%s: MaxBytes %d, want %d", what, ix.MaxBytes(), limit)
			}
		}
		if got := wideAnswers(t, e, queries); !slices.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: %s\nbefore closing: %s", what, got[i], want[i])
				}
			}
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	reopen("snapshot", true)
	// A snapshot written before the low halves had indexes: the files of
	// the high halves alone.
	for _, name := range []string{"longlow", "shortlow", "shortlonglow"} {
		if err := os.Remove(snapshotPath(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	reopen("snapshot without the low halves", false)
	reopen("snapshot again", true)
}

// TestWideRemoveAndExpire checks that at 128 bits a deleted document and
// expired ones leave the indexes of both halves, are found no more, and are
// counted once: by Stats and by ExpireNow.
func TestWideRemoveAndExpire(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC)}
	o := memOptions(clock)
	o.Fingerprinter = hex128Fingerprinter{}
	o.Retention = 2 * time.Hour
	e := mustOpen(t, "", o)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(49, 50))
	fps := map[string]Fingerprint{}
	insert := func(id string, runes int) {
		t.Helper()
		text := hexDoc(r, r.Uint64(), r.Uint64(), runes)
		res, err := e.Insert(ctx, Document{ID: id, Text: text})
		if err != nil || !res.Inserted {
			t.Fatalf("insert %s: %+v, %v", id, res, err)
		}
		fps[id] = res.Fingerprint
	}
	found := func(id string) bool {
		t.Helper()
		ms, err := e.QueryFingerprint(ctx, fps[id], 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(ms) == 1 && ms[0].ID == id
	}
	counts := func(what string, docs int) {
		t.Helper()
		if !e.halvesAgree() {
			t.Fatalf("%s: the indexes of the two halves hold different documents", what)
		}
		if st := e.Stats(); st.Documents != docs {
			t.Fatalf("%s: %d documents, want %d", what, st.Documents, docs)
		}
	}
	for i := range 50 {
		insert(fmt.Sprint("old", i), 100+i%2*800)
	}
	clock.Advance(time.Hour)
	for i := range 30 {
		insert(fmt.Sprint("new", i), 100+i%2*800)
	}
	counts("inserted", 80)
	short, long := e.short.ix.Bytes()+e.shortLo.ix.Bytes(), e.long.Bytes()+e.longLo.Bytes()
	if st := e.Stats(); st.IndexBytes != short+long+e.shortLong.Bytes()+e.shortLongLo.Bytes() || e.longLo.Bytes() == 0 {
		t.Fatalf("index bytes %d, the indexes hold %d", st.IndexBytes, short+long+e.shortLong.Bytes()+e.shortLongLo.Bytes())
	}
	for _, id := range []string{"old0", "old1", "new0", "new1"} {
		if err := e.Delete(id); err != nil {
			t.Fatal(err)
		}
		if found(id) {
			t.Fatalf("%s found after Delete", id)
		}
	}
	counts("deleted", 76)
	if !found("old2") || !found("new2") || !found("new3") {
		t.Fatal("a document not deleted is not found")
	}
	clock.Advance(95 * time.Minute) // the old ones are 2h35m old
	rep, err := e.ExpireNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Indexed != 48 {
		t.Fatalf("expiry removed %d documents from the index, want 48", rep.Indexed)
	}
	counts("expired", 28)
	for id := range fps {
		if want := strings.HasPrefix(id, "new") && id != "new0" && id != "new1"; found(id) != want {
			t.Fatalf("%s found %v after expiry, want %v", id, !want, want)
		}
	}
}
