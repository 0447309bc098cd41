package neardup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
)

// TestQueryFingerprint checks lookups by fingerprint alone against a
// brute-force scan of what was stored, within and beyond the index's bound.
func TestQueryFingerprint(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	stored := map[string]uint64{}
	for i := range 300 {
		id := fmt.Sprint("d", i)
		res, err := e.Insert(ctx, Document{ID: id, Text: genText(r, 5+r.IntN(300))})
		if err != nil {
			t.Fatal(err)
		}
		stored[id] = res.Fingerprint.Uint64()
	}
	e.opts.MaxMatches = len(stored)
	for _, k := range []int{0, 2, 6, 20, 32} {
		for q := range 20 {
			fp := stored[fmt.Sprint("d", q)] ^ 1<<r.IntN(64) ^ 1<<r.IntN(64)
			ms, err := e.QueryFingerprint(ctx, FromUint64(fp), k)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, v := range stored {
				if bits.OnesCount64(v^fp) <= k {
					want++
				}
			}
			if len(ms) != want {
				t.Fatalf("k=%d query %d: %d matches, want %d", k, q, len(ms), want)
			}
			for i, m := range ms {
				if d := bits.OnesCount64(stored[m.ID] ^ fp); d != m.Distance || d > k {
					t.Fatalf("k=%d: %s at distance %d reported %d", k, m.ID, d, m.Distance)
				}
				if i > 0 && ms[i-1].Distance > m.Distance {
					t.Fatalf("k=%d: matches not nearest first: %v", k, ms)
				}
				if m.Duplicate != (m.Distance <= e.policy.Long.MaxDistance) {
					t.Fatalf("k=%d: %s duplicate %v at distance %d", k, m.ID, m.Duplicate, m.Distance)
				}
			}
		}
	}
	if _, err := e.QueryFingerprint(ctx, FromUint128(1, 2), 3); !errors.Is(err, ErrWidth) {
		t.Fatalf("128-bit query of a 64-bit engine: %v, want ErrWidth", err)
	}
	if err := e.Delete("d0"); err != nil {
		t.Fatal(err)
	}
	ms, err := e.QueryFingerprint(ctx, FromUint64(stored["d0"]), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.ID == "d0" {
			t.Fatal("deleted document returned")
		}
	}
}

// TestQueryFingerprintNearest checks that QueryFingerprint answers the
// Options.MaxMatches nearest live documents, oldest first among equally
// near ones, at distances up to every stored document, when the nearest
// entries of the index include expired documents it has not dropped yet,
// for 64- and 128-bit fingerprints.
func TestQueryFingerprintNearest(t *testing.T) {
	for _, width := range []int{64, 128} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, uint64(width)))
			clock := &fakeClock{t: time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC)}
			o := memOptions(clock)
			o.Fingerprint.Bits = width
			o.Retention = time.Hour
			o.MaxMatches = 5
			e := mustOpen(t, "", o)
			ctx := context.Background()
			type doc struct {
				id   string
				fp   Fingerprint
				live bool
			}
			var docs []doc
			for i := range 400 {
				if i == 200 {
					clock.Advance(50 * time.Minute)
				}
				// Few distinct texts, so that many documents are equally
				// near a query and the oldest must come first; short and
				// long ones, which the engine indexes apart.
				id, seed := fmt.Sprint("d", i), r.IntN(40)
				res, err := e.Insert(ctx, Document{ID: id, Text: genText(rand.New(rand.NewPCG(uint64(seed), 1)), 20+100*(seed%2))})
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, doc{id, res.Fingerprint, i >= 200})
			}
			clock.Advance(20 * time.Minute) // the first 200 expire; the index still holds them
			for _, k := range []int{-1, 0, 6, 20, width} {
				for q := range 30 {
					// Near an expired document, whose equals are expired too,
					// or near a live one.
					fp := docs[r.IntN(len(docs))].fp
					if q%3 == 0 {
						b := r.IntN(width)
						fp.w[b/64] ^= 1 << (b % 64)
					}
					type want struct {
						id string
						d  int
					}
					var wants []want
					for _, d := range docs {
						dist, _ := Distance(fp, d.fp)
						if d.live && dist <= max(k, 0) || d.live && k < 0 && dist <= scale(e.policy.Long.MaxDistance, width) {
							wants = append(wants, want{d.id, dist})
						}
					}
					slices.SortStableFunc(wants, func(a, b want) int { return cmp.Compare(a.d, b.d) })
					wants = wants[:min(len(wants), o.MaxMatches)]
					ms, err := e.QueryFingerprint(ctx, fp, k)
					if err != nil {
						t.Fatal(err)
					}
					if len(ms) != len(wants) {
						t.Fatalf("k=%d: %d matches, want %d: %v, want %v", k, len(ms), len(wants), ms, wants)
					}
					for i, m := range ms {
						if m.ID != wants[i].id || m.Distance != wants[i].d {
							t.Fatalf("k=%d: match %d is %s at %d, want %s at %d (%v)", k, i, m.ID, m.Distance, wants[i].id, wants[i].d, wants)
						}
					}
				}
			}
		})
	}
}

// TestStatsIndexBytes checks that Stats counts the memory of every index:
// short texts are in two of them and long ones in a third.
func TestStatsIndexBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	last := e.Stats().IndexBytes
	for _, words := range []int{10, 150} { // short texts, then long ones
		for i := range 3000 {
			if _, err := e.Insert(ctx, Document{ID: fmt.Sprint(words, "-", i), Text: genText(r, words)}); err != nil {
				t.Fatal(err)
			}
		}
		// Each entry holds at least its fingerprint and its id in the
		// slot columns, 16 bytes, in each index that holds it.
		st := e.Stats()
		if least := int64(3000 * 16); st.IndexBytes-last < least {
			t.Errorf("%d-word texts: IndexBytes grew from %d to %d, want at least %d more", words, last, st.IndexBytes, least)
		}
		last = st.IndexBytes
	}
	if want := e.long.Bytes() + e.short.ix.Bytes() + e.shortLong.Bytes(); last != want {
		t.Errorf("IndexBytes = %d, the indexes hold %d", last, want)
	}
}

// TestDropText checks that texts are kept unless DropText is set, also for
// a hand-built zero Options, since verification needs them.
func TestDropText(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		opts *Options
		want string
	}{
		{"zero options", &Options{InMemory: true}, "kept text"},
		{"defaults", memOptions(nil), "kept text"},
		{"drop", &Options{InMemory: true, DropText: true}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := mustOpen(t, "", tt.opts)
			if _, err := e.Insert(ctx, Document{ID: "a", Text: "kept text"}); err != nil {
				t.Fatal(err)
			}
			d, err := e.Get("a")
			if err != nil || d.Text != tt.want {
				t.Fatalf("Get: %q, %v; want %q", d.Text, err, tt.want)
			}
		})
	}
}

// TestDecideKnownVerdicts checks that a decision made again with the
// verdicts of an earlier one (as decideInOrder makes it under the locks)
// is the decision made afresh, verifies nothing again, and drops a
// duplicate deleted in between.
func TestDecideKnownVerdicts(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	o := memOptions(nil)
	o.Fingerprinter = wordSimHash{}
	e := mustOpen(t, "", o)
	ctx := context.Background()
	base := genText(r, 400)
	short := "The quick brown fox jumps over the lazy dog near the river bank today."
	texts := []string{base, short}
	for _, w := range []string{"quick", "brown", "fox", "lazy", "river", "bank"} {
		texts = append(texts, strings.Replace(short, w, "big", 1))
	}
	for i := range 6 {
		texts = append(texts, mutate(r, base, 2+15*i))
	}
	for i, text := range texts {
		if _, err := e.Insert(ctx, Document{ID: fmt.Sprint("d", i), Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	for _, text := range []string{mutate(r, base, 1), strings.Replace(short, "today", "tonight", 1)} {
		p := e.prepare(Document{ID: "q", Text: text}, false)
		if p.err != nil {
			t.Fatal(p.err)
		}
		fresh, err := e.decideWith(&p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !fresh.Duplicate || len(fresh.verdicts) < 2 {
			t.Fatalf("want a duplicate among several candidates: %+v, verdicts %+v", fresh.Result, fresh.verdicts)
		}
		verified := e.nCands.Load()
		again, err := e.decideWith(&p, nil, fresh.verdicts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.Result, fresh.Result) || again.dupSeq != fresh.dupSeq {
			t.Fatalf("with the verdicts: %+v, afresh: %+v", again.Result, fresh.Result)
		}
		if n := e.nCands.Load(); n != verified {
			t.Fatalf("%d candidates verified again", n-verified)
		}
		// The duplicate found is deleted after the indexes were read (as a
		// chunk's queries are, before its decisions): the verdicts no
		// longer name it.
		pre := e.queryBatch([]prepared{p, p})[0]
		deleted := *fresh.DuplicateOf
		if err := e.Delete(deleted); err != nil {
			t.Fatal(err)
		}
		again, err = e.decideWith(&p, pre, fresh.verdicts)
		if err != nil {
			t.Fatal(err)
		}
		if fresh, err = e.decideWith(&p, pre, nil); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.Result, fresh.Result) || fresh.DuplicateOf != nil && *fresh.DuplicateOf == deleted {
			t.Fatalf("after deleting %s, with the verdicts: %+v, afresh: %+v", deleted, again.Result, fresh.Result)
		}
	}
}

// hexFingerprinter is a test Fingerprinter whose fingerprint is the
// text's first word read as 16 hex digits, so that a test sets every
// distance.
type hexFingerprinter struct{}

func (hexFingerprinter) Bits() int { return 64 }

func (hexFingerprinter) Fingerprint(text []byte) Fingerprint {
	v, err := strconv.ParseUint(strings.Fields(string(text))[0], 16, 64)
	if err != nil {
		panic(err)
	}
	return FromUint64(v)
}

// TestDecideAgainWindow checks what a decision made again under the locks
// (decideAgain) takes instead of querying the indexes again: the matches
// of the first decision with the inserts since that the queries would
// find are, nearest MaxCandidates first, what the queries find now; and
// the decision is the one made afresh. Short and long texts are stored
// and queried, at distances around both rules' and of lengths the short
// rule may and may not accept.
func TestDecideAgainWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	o := memOptions(nil)
	o.Fingerprinter = hexFingerprinter{}
	o.MaxCandidates = 6
	e := mustOpen(t, "", o)
	if e.short == nil {
		t.Fatal("no short-text index")
	}
	ctx := context.Background()
	near := func(fp uint64) uint64 { // 0 to 12 bits from fp
		for range r.IntN(13) {
			fp ^= 1 << r.IntN(64)
		}
		return fp
	}
	// Lengths in runes: short ones that may and may not pass the short
	// rule's ratio against a 120-rune query, and long ones.
	lengths := []int{20, 60, 110, 118, 120, 125, 140, 300, 700}
	doc := func(fp uint64, n int, body string) string {
		head := fmt.Sprintf("%016x ", fp)
		if body == "" {
			body = letters(r, n-len(head))
		}
		return head + body
	}
	ids := 0
	insert := func(fp uint64, count int) {
		for range count {
			ids++
			text := doc(near(fp), lengths[r.IntN(len(lengths))], "")
			if _, err := e.Insert(ctx, Document{ID: fmt.Sprint("d", ids), Text: text}); err != nil {
				t.Fatal(err)
			}
		}
	}
	top := func(ms []index.Match) []index.Match {
		ms = slices.Clone(ms)
		slices.SortFunc(ms, func(a, b index.Match) int {
			return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID))
		})
		ms = slices.CompactFunc(ms, func(a, b index.Match) bool { return a.ID == b.ID })
		for i := range ms {
			ms[i].Tag = 0 // only the long index's matches lack it
		}
		return ms[:min(len(ms), o.MaxCandidates)]
	}
	for round := range 40 {
		q := r.Uint64()
		insert(q, r.IntN(12))
		n := 120
		if round%4 == 3 {
			n = 700 // a long query
		}
		body := letters(r, n-17)
		p := e.prepare(Document{ID: "q", Text: doc(q, n, body)}, false)
		if p.err != nil {
			t.Fatal(p.err)
		}
		opt := e.decideOptimistic(&p, nil)
		if opt.err != nil {
			t.Fatal(opt.err)
		}
		insert(q, r.IntN(12))
		if round%2 == 0 { // a near-copy of the query among the inserts
			ids++
			copied := doc(near(q)&^0xf|q&0xf, n, body[:len(body)-1]+"x")
			if _, err := e.Insert(ctx, Document{ID: fmt.Sprint("d", ids), Text: copied}); err != nil {
				t.Fatal(err)
			}
		}
		w := &window{from: opt.inserts, upto: opt.inserts}
		if !w.extend(e) {
			t.Fatal("window not extended")
		}
		wm := e.windowMatches(&p, w, slices.Clip(opt.pre))
		qm, err := e.query(&p)
		if err != nil {
			t.Fatal(err)
		}
		got, want := top(wm), top(qm)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: with the window %v, queried again %v", round, got, want)
		}
		again, err := e.decideAgain(&opt, &p, w)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := e.decideWith(&p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.Result, fresh.Result) {
			t.Fatalf("round %d: decided again %+v, afresh %+v", round, again.Result, fresh.Result)
		}
	}
}

// TestMemoryLimit checks that Options.MemoryLimit bounds the indexes that
// choose their design (index.Options.MaxBytes, which TestMaxBytes in the
// index package checks), when they are made and when they are read from a
// snapshot, which does not keep it; and that a negative one is refused.
func TestMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.MemoryLimit = 1 << 30
	e := mustOpen(t, dir, &o)
	if _, err := e.CheckAndInsert(context.Background(), Document{ID: "a", Text: "a text to store"}); err != nil {
		t.Fatal(err)
	}
	want := int64(float64(o.MemoryLimit) * IndexMemoryShare)
	if a, b := e.long.MaxBytes(), e.shortLong.MaxBytes(); a != want || b != want {
		t.Fatalf("MaxBytes %d and %d, want %d", a, b, want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	o.MemoryLimit = 2 << 30
	e = mustOpen(t, dir, &o)
	if !e.fromSnapshot {
		t.Fatal("not reopened from the snapshot")
	}
	want = int64(float64(o.MemoryLimit) * IndexMemoryShare)
	if a, b := e.long.MaxBytes(), e.shortLong.MaxBytes(); a != want || b != want {
		t.Fatalf("from the snapshot: MaxBytes %d and %d, want %d", a, b, want)
	}
	if e.short.ix.MaxBytes() != 0 {
		t.Fatalf("the short-text index, whose designs go by size, got MaxBytes %d", e.short.ix.MaxBytes())
	}
	o.MemoryLimit = -1
	if _, err := Open(t.TempDir(), &o); err == nil || !strings.Contains(err.Error(), "MemoryLimit -1") {
		t.Fatalf("MemoryLimit -1: %v", err)
	}
}
