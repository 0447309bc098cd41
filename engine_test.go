package neardup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/neardup/neardup/store"
	"github.com/zeebo/xxh3"
)

// words is a small vocabulary for generated texts.
var testWords = strings.Fields(`time person year way day thing man world life hand part child eye woman
place work week case point government company number group problem fact be have do say get make go
know take see come think look want give use find tell ask seem feel try leave call good new first last
long great little own other old right big high different small large next early young important few
public bad same able river stone garden market winter summer letter paper music table window road
north south city village forest bridge engine signal report science history nature animal water fire`)

// genText returns n random words from a seeded source: one in four from
// testWords, the rest made-up words of 3 to 8 letters, so that unrelated
// texts share few features, as unrelated real texts do (a small vocabulary
// alone would make every long text look like every other one).
func genText(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		if r.IntN(4) == 0 {
			b.WriteString(testWords[r.IntN(len(testWords))])
			continue
		}
		for range 3 + r.IntN(6) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return b.String()
}

// mutate replaces edits random words of s.
func mutate(r *rand.Rand, s string, edits int) string {
	w := strings.Fields(s)
	for range edits {
		w[r.IntN(len(w))] = testWords[r.IntN(len(testWords))]
	}
	return strings.Join(w, " ")
}

// wordSimHash is a test Fingerprinter: unweighted SimHash over lower-case
// words hashed with XXH3. It keeps the engine's tests independent of the
// default pipeline's tuning.
type wordSimHash struct{}

func (wordSimHash) Bits() int { return 64 }

func (wordSimHash) Fingerprint(text []byte) Fingerprint {
	var v [64]int
	for _, w := range strings.FieldsFunc(strings.ToLower(string(text)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		h := xxh3.HashString(w)
		for i := range v {
			if h>>i&1 == 1 {
				v[i]++
			} else {
				v[i]--
			}
		}
	}
	var fp uint64
	for i, c := range v {
		if c > 0 {
			fp |= 1 << i
		}
	}
	return FromUint64(fp)
}

// memOptions returns in-memory options with a fixed clock.
func memOptions(now *fakeClock) *Options {
	o := DefaultOptions()
	o.InMemory = true
	if now != nil {
		o.Now = now.Now
	}
	o.ExpiryInterval = -1
	return &o
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func mustOpen(tb testing.TB, dir string, o *Options) *Engine {
	tb.Helper()
	e, err := Open(dir, o)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	// The deletion keys of the stored tiny texts are made after Open
	// returns (restoreKeys): tests that reopen a store find them.
	<-e.keysMade
	return e
}

func TestCheckAndInsert(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := genText(r, 400)
	short := "The quick brown fox jumps over the lazy dog near the river bank today."
	o := memOptions(nil)
	o.Fingerprinter = wordSimHash{}
	e := mustOpen(t, "", o)
	ctx := context.Background()
	for _, d := range []Document{{ID: "base", Text: base}, {ID: "short", Text: short}} {
		res, err := e.CheckAndInsert(ctx, d)
		if err != nil || res.Duplicate || !res.Inserted {
			t.Fatalf("first insert of %s: %+v, %v", d.ID, res, err)
		}
	}
	tests := []struct {
		name string
		text string
		dup  string // "" for new
	}{
		{"exact copy", base, "base"},
		{"case and spacing", strings.ToUpper(strings.ReplaceAll(base, " ", "  ")), "base"},
		{"two words changed", mutate(r, base, 2), "base"},
		{"unrelated long", genText(r, 400), ""},
		{"short one word changed", strings.Replace(short, "lazy", "sleepy", 1), "short"},
		{"short punctuation", strings.ReplaceAll(short, " ", ", "), "short"},
		{"short unrelated", "Stock markets fell sharply on Monday as investors worried about rates.", ""},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprintf("doc%d", i)
			res, err := e.CheckAndInsert(ctx, Document{ID: id, Text: tc.text})
			if err != nil {
				t.Fatal(err)
			}
			if tc.dup == "" {
				if res.Duplicate || !res.Inserted || res.DuplicateOf != nil {
					t.Fatalf("want new, got %+v", res)
				}
				if _, err := e.Get(id); err != nil {
					t.Fatalf("new document not stored: %v", err)
				}
				return
			}
			if !res.Duplicate || res.Inserted || res.DuplicateOf == nil || *res.DuplicateOf != tc.dup {
				t.Fatalf("want duplicate of %s, got %+v", tc.dup, res)
			}
			if len(res.Matches) == 0 || res.Matches[0].ID != tc.dup || res.Similarity <= 0 {
				t.Fatalf("matches %+v", res.Matches)
			}
			if _, err := e.Get(id); !errors.Is(err, ErrNotFound) {
				t.Fatalf("duplicate was stored: %v", err)
			}
		})
	}
}

// TestRuleScoreOnly checks that RuleScoreOnly changes no decision and
// leaves a duplicate only the score of the rule that decided it: Jaccard
// for a long text, Levenshtein for a short one.
func TestRuleScoreOnly(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	long := genText(r, 120) // over the Short rule's 500 runes, under 2,000
	short := "The quick brown fox jumps over the lazy dog near the river bank today."
	engines := make([]*Engine, 2)
	for i := range engines {
		o := memOptions(nil)
		o.Fingerprinter = wordSimHash{}
		o.RuleScoreOnly = i == 1
		engines[i] = mustOpen(t, "", o)
		for _, text := range []string{long, short} {
			if _, err := engines[i].CheckAndInsert(context.Background(), Document{ID: text[:12], Text: text}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name, text string
		rule       func(Scores) float64
	}{
		{"long", mutate(r, long, 2), func(s Scores) float64 { return s.Jaccard }},
		{"short", strings.Replace(short, "lazy", "sleepy", 1), func(s Scores) float64 { return s.Levenshtein }},
	} {
		var res [2]Result
		for i, e := range engines {
			var err error
			if res[i], err = e.Check(context.Background(), Document{ID: "q", Text: tc.text}); err != nil {
				t.Fatal(err)
			}
			if !res[i].Duplicate || len(res[i].Matches) == 0 {
				t.Fatalf("%s, engine %d: not a duplicate: %+v", tc.name, i, res[i])
			}
		}
		all, only := res[0].Matches[0], res[1].Matches[0]
		if *res[0].DuplicateOf != *res[1].DuplicateOf || res[0].Similarity != res[1].Similarity ||
			all.ID != only.ID || all.Similarity != only.Similarity || all.Distance != only.Distance {
			t.Fatalf("%s: RuleScoreOnly changed the answer: %+v, against %+v", tc.name, res[1], res[0])
		}
		if all.Scores.Jaccard == 0 || all.Scores.Cosine == 0 || all.Scores.Levenshtein == 0 {
			t.Errorf("%s: default scores %+v, want every measure", tc.name, all.Scores)
		}
		if got := tc.rule(only.Scores); got != only.Similarity || got != tc.rule(all.Scores) {
			t.Errorf("%s: RuleScoreOnly's rule score %v, want %v", tc.name, got, only.Similarity)
		}
		if only.Scores.Jaccard+only.Scores.Cosine+only.Scores.Levenshtein != only.Similarity {
			t.Errorf("%s: RuleScoreOnly scores %+v, want the rule's alone", tc.name, only.Scores)
		}
	}
}

func TestIdempotentAndConflict(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	d := Document{ID: "a", Text: "a sentence that is long enough to be a document of its own"}
	first, err := e.CheckAndInsert(ctx, d)
	if err != nil || !first.Inserted {
		t.Fatal(first, err)
	}
	again, err := e.CheckAndInsert(ctx, d)
	if err != nil || again.Inserted || again.Duplicate || again.Fingerprint != first.Fingerprint {
		t.Fatalf("re-insert: %+v, %v", again, err)
	}
	if _, err := e.Insert(ctx, d); err != nil {
		t.Fatalf("Insert of the same document: %v", err)
	}
	_, err = e.CheckAndInsert(ctx, Document{ID: "a", Text: "entirely different words about the weather in spring"})
	if !errors.Is(err, ErrIDConflict) || err.Error() != `neardup: id already stored with another text: "a"` {
		t.Fatalf("other text under the same id: %v, want ErrIDConflict naming the id alone", err)
	}
	if _, err := e.Insert(ctx, Document{ID: "a", Text: "entirely different words"}); !errors.Is(err, ErrIDConflict) || err.Error() != `neardup: id already stored with another text: "a"` {
		t.Fatalf("Insert of other text under the same id: %v, want ErrIDConflict naming the id alone", err)
	}
	got, err := e.Get("a")
	if err != nil || got.Text != d.Text {
		t.Fatalf("stored document changed: %+v, %v", got, err)
	}
	if st := e.Stats(); st.Documents != 1 {
		t.Fatalf("documents = %d, want 1", st.Documents)
	}
	// Replacing is Delete then Insert.
	if err := e.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if err := e.Delete("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := e.Insert(ctx, Document{ID: "a", Text: "entirely different words about the weather in spring"}); err != nil {
		t.Fatal(err)
	}
}

// TestHas checks that Has finds what Get finds: a stored document, not a
// missing, deleted or expired one.
func TestHas(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	o := memOptions(clock)
	o.Retention = time.Hour
	e := mustOpen(t, "", o)
	ctx := context.Background()
	has := func(id string) bool {
		t.Helper()
		ok, err := e.Has(id)
		if err != nil {
			t.Fatal(err)
		}
		_, gerr := e.Get(id)
		if ok != (gerr == nil) {
			t.Fatalf("Has(%q) = %v, Get: %v", id, ok, gerr)
		}
		return ok
	}
	for _, id := range []string{"a", "b"} {
		if _, err := e.Insert(ctx, Document{ID: id, Text: "a sentence about " + id + " that is long enough to be a document"}); err != nil {
			t.Fatal(err)
		}
	}
	if !has("a") || has("missing") {
		t.Fatal("stored or missing document misjudged")
	}
	if err := e.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if has("a") || !has("b") {
		t.Fatal("after a delete")
	}
	clock.Advance(2 * time.Hour)
	if has("b") {
		t.Fatal("a document past the retention window is found")
	}
	e.Close()
	if _, err := e.Has("b"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Has after Close: %v", err)
	}
}

func TestBadDocuments(t *testing.T) {
	o := memOptions(nil)
	o.MaxTextBytes = 100
	o.RejectInvalidUTF8 = true
	e := mustOpen(t, "", o)
	for _, tc := range []struct {
		d    Document
		want error
	}{
		{Document{ID: "", Text: "text"}, ErrEmptyID},
		{Document{ID: "x", Text: " \n\t"}, ErrEmptyText},
		{Document{ID: "x", Text: "\ufeff"}, ErrEmptyText},
		{Document{ID: "x", Text: "\u200b\u200b \u200b"}, ErrEmptyText},
		{Document{ID: "x", Text: "\x01\x02\x03"}, ErrEmptyText},
		{Document{ID: "x", Text: strings.Repeat("a ", 60)}, ErrTooLarge},
		{Document{ID: "x", Text: "bad \xff byte"}, ErrInvalidUTF8},
		{Document{ID: "bad\xff", Text: "a good text"}, ErrInvalidUTF8},
		{Document{ID: strings.Repeat("i", MaxIDBytes+1), Text: "text"}, ErrIDTooLong},
		{Document{ID: "x", Text: "text", Time: time.Now().Add(MaxFuture + time.Minute)}, ErrFutureTime},
		{Document{ID: "x", Text: "text", Meta: json.RawMessage(`{not json`)}, ErrBadMeta},
	} {
		if _, err := e.CheckAndInsert(context.Background(), tc.d); !errors.Is(err, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.d.Text, err, tc.want)
		}
	}
	// At the limits, documents are taken.
	for _, d := range []Document{
		{ID: strings.Repeat("i", MaxIDBytes), Text: "text of the longest id"},
		{ID: "soon", Text: "text dated a little ahead", Time: time.Now().Add(MaxFuture - time.Minute)},
		{ID: "meta", Text: "text with meta", Meta: json.RawMessage(`{"source": "feed", "n": [1, 2]}`)},
	} {
		if res, err := e.CheckAndInsert(context.Background(), d); err != nil || !res.Inserted {
			t.Errorf("%.20q: %+v, %v; want it stored", d.ID, res, err)
		}
	}
	// An id too long to be stored is not found, and not echoed whole.
	long := strings.Repeat("é", 2500)
	for _, err := range []error{func() error { _, err := e.Get(long); return err }(), e.Delete(long)} {
		if !errors.Is(err, ErrNotFound) || len(err.Error()) > 200 || !strings.Contains(err.Error(), "(5000 bytes)") {
			t.Errorf("Get or Delete of a 5,000-byte id: %.300v", err)
		}
	}
}

// TestInvisibleText checks that a text of invisible characters only, too
// long to be a short text, is refused as empty: it has nothing to compare,
// and each such text would otherwise be a duplicate of the first.
func TestInvisibleText(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	for _, text := range []string{strings.Repeat("\u200b", 700), strings.Repeat("\ufeff\x01 ", 400)} {
		if _, err := e.CheckAndInsert(context.Background(), Document{ID: "x", Text: text}); !errors.Is(err, ErrEmptyText) {
			t.Errorf("%d runes of %q: %v, want ErrEmptyText", utf8.RuneCountInString(text), text[:6], err)
		}
	}
}

// TestCheckWithoutID checks a text under no id: every stored document
// counts, the one with the same text too, which a check under that
// document's own id leaves out. Storing still needs an id.
func TestCheckWithoutID(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	const text = "a text stored once and then checked again under no id at all"
	if _, err := e.CheckAndInsert(ctx, Document{ID: "a", Text: text}); err != nil {
		t.Fatal(err)
	}
	if res, err := e.Check(ctx, Document{ID: "a", Text: text}); err != nil || res.Duplicate {
		t.Fatalf("check under the stored id: %+v, %v; want no duplicate", res, err)
	}
	for name, check := range map[string]func() (Result, error){
		"Check": func() (Result, error) { return e.Check(ctx, Document{Text: text}) },
		"CheckBatch": func() (Result, error) {
			rs, err := e.CheckBatch(ctx, []Document{{Text: text}})
			if err != nil {
				return Result{}, err
			}
			return rs[0], nil
		},
	} {
		if res, err := check(); err != nil || !res.Duplicate || *res.DuplicateOf != "a" {
			t.Errorf("%s under no id: %+v, %v; want a duplicate of a", name, res, err)
		}
	}
	if _, err := e.CheckAndInsert(ctx, Document{Text: "another text"}); !errors.Is(err, ErrEmptyID) {
		t.Errorf("storing under no id: %v, want ErrEmptyID", err)
	}
}

func TestBatchOrderAndErrors(t *testing.T) {
	o := memOptions(nil)
	o.Fingerprinter = wordSimHash{}
	e := mustOpen(t, "", o)
	r := rand.New(rand.NewPCG(3, 4))
	a := genText(r, 300)
	ds := []Document{{ID: "1", Text: a}, {ID: "2", Text: ""}, {ID: "3", Text: mutate(r, a, 1)}, {ID: "4", Text: genText(r, 300)}}
	rs, err := e.CheckAndInsertBatch(context.Background(), ds)
	var be *BatchError
	if !errors.As(err, &be) || !errors.Is(err, ErrEmptyText) || be.Errs[1] == nil || be.Errs[0] != nil {
		t.Fatalf("err = %v", err)
	}
	if !rs[0].Inserted || !rs[2].Duplicate || *rs[2].DuplicateOf != "1" || !rs[3].Inserted {
		t.Fatalf("results %+v", rs)
	}
}

// TestBatchMatchesSequential checks that a batch, whose documents are
// decided in parallel before they are inserted in order, gives exactly the
// results of the same documents sent one at a time, near-duplicates of each
// other within a batch and across batches included: in batches of 37, and
// in one batch of several decideChunks.
func TestBatchMatchesSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var ds []Document
	var bases []string
	for i := range 2*decideChunk + 200 {
		var text string
		switch {
		case len(bases) > 0 && r.IntN(3) == 0: // a near-duplicate of an earlier text
			text = mutate(r, bases[r.IntN(len(bases))], 1+r.IntN(3))
		case r.IntN(2) == 0:
			text = genText(r, 8+r.IntN(40)) // short
		default:
			text = genText(r, 100+r.IntN(200))
		}
		bases = append(bases, text)
		ds = append(ds, Document{ID: fmt.Sprint("d", i), Text: text})
	}
	one := mustOpen(t, "", memOptions(nil))
	var want []Result
	for _, d := range ds {
		res, err := one.CheckAndInsert(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, res)
	}
	for _, size := range []int{37, len(ds)} {
		batched := mustOpen(t, "", memOptions(nil))
		var got []Result
		for i := 0; i < len(ds); i += size {
			rs, err := batched.CheckAndInsertBatch(context.Background(), ds[i:min(len(ds), i+size)])
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rs...)
		}
		compareResults(t, fmt.Sprintf("batches of %d", size), got, want)
	}
	dups := 0
	for _, w := range want {
		if w.Duplicate {
			dups++
		}
	}
	if dups < len(ds)/8 {
		t.Errorf("only %d duplicates among %d documents: the test lost its point", dups, len(ds))
	}
}

// compareResults reports each result of got that differs from want's.
func compareResults(t *testing.T, what string, got, want []Result) {
	t.Helper()
	for i := range want {
		show := func(r Result) string {
			of := "-"
			if r.DuplicateOf != nil {
				of = *r.DuplicateOf
			}
			r.DuplicateOf = nil
			return fmt.Sprintf("%+v of %s", r, of)
		}
		w, g := show(want[i]), show(got[i])
		if w != g {
			t.Errorf("%s: document %d: batched %s, one at a time %s", what, i, g, w)
		}
	}
}

// groupFingerprinter is a test Fingerprinter that makes near-duplicates
// deterministic: texts are "<group words> | <member word>"; the
// fingerprint hashes the group part and flips one bit chosen by the member
// word, so members of a group are at most 2 bits apart while groups are
// about 32 bits apart.
type groupFingerprinter struct{}

func (groupFingerprinter) Bits() int { return 64 }

func (groupFingerprinter) Fingerprint(text []byte) Fingerprint {
	base, member, _ := strings.Cut(string(text), " | ")
	return FromUint64(xxh3.HashString(base) ^ 1<<(xxh3.HashString(member)%64))
}

// spreadGroupFingerprinter is groupFingerprinter with members 2w bits
// apart: member m of testWords[:8] owns bits wm..wm+w-1. At w = 4 (8 bits)
// they are beyond the Long rule's distance and within the Short rule's,
// so short members are near-duplicates only through the short-text index;
// at w = 7 (14 bits) beyond the Short rule's and within the Tiny rule's,
// so tiny members are near-duplicates only through the tiny rule's wider
// queries and its stripes.
type spreadGroupFingerprinter struct{ w int }

func (spreadGroupFingerprinter) Bits() int { return 64 }

func (f spreadGroupFingerprinter) Fingerprint(text []byte) Fingerprint {
	base, member, _ := strings.Cut(string(text), " | ")
	m := slices.Index(testWords, member) % 8
	return FromUint64(xxh3.HashString(base) ^ (1<<f.w-1)<<(f.w*m))
}

// TestConcurrentNearDuplicates races goroutines over groups of
// near-duplicates: in every group exactly one is kept and the others name
// it, for groups near by their fingerprints and for tiny texts a word
// apart whose fingerprints are not near ("keys").
func TestConcurrentNearDuplicates(t *testing.T) {
	groups, perGroup := 60, 8
	if testing.Short() {
		groups = 15
	}
	for _, fpName := range []string{"group", "wide", "tiny", "keys", "default"} {
		t.Run(fpName, func(t *testing.T) {
			o := memOptions(nil)
			switch fpName {
			case "group":
				o.Fingerprinter = groupFingerprinter{}
			case "wide":
				o.Fingerprinter = spreadGroupFingerprinter{4}
			case "tiny":
				o.Fingerprinter = spreadGroupFingerprinter{7}
			case "keys":
				// Each text's own hash: a group's texts, one word apart,
				// are about 32 bits apart, found by their deletion keys
				// alone.
				o.Fingerprinter = hashFingerprinter{}
			}
			e := mustOpen(t, "", o)
			r := rand.New(rand.NewPCG(5, 6))
			type item struct {
				group int
				doc   Document
			}
			var items []item
			for g := range groups {
				base := genText(r, 20+r.IntN(300)) // short and long texts
				switch fpName {
				case "wide":
					base = genText(r, 20+r.IntN(30)) // short only
				case "tiny", "keys":
					base = tinyBase(r)
				}
				for m := range perGroup {
					text := base + " | " + testWords[m]
					if fpName == "default" && m > 0 {
						// The real pipeline: case and spacing variants,
						// identical once normalized.
						text = strings.Repeat(" ", m) + strings.ToUpper(base[:m]) + base[m:] + " | " + testWords[0]
					}
					items = append(items, item{g, Document{ID: fmt.Sprintf("g%d-m%d", g, m), Text: text}})
				}
			}
			r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
			results := make([]Result, len(items))
			var wg sync.WaitGroup
			start := make(chan struct{})
			// Documents go one at a time or in batches of up to five, whose
			// decisions made in parallel race with the other goroutines.
			for next := 0; next < len(items); {
				i, n := next, min(len(items)-next, 1+r.IntN(5))
				next += n
				wg.Go(func() {
					<-start
					if n == 1 {
						res, err := e.CheckAndInsert(context.Background(), items[i].doc)
						if err != nil {
							t.Error(err)
						}
						results[i] = res
						return
					}
					ds := make([]Document, n)
					for j := range ds {
						ds[j] = items[i+j].doc
					}
					rs, err := e.CheckAndInsertBatch(context.Background(), ds)
					if err != nil {
						t.Error(err)
					}
					copy(results[i:], rs)
				})
			}
			close(start)
			wg.Wait()
			kept := make(map[int][]string)
			for i, it := range items {
				if results[i].Inserted {
					kept[it.group] = append(kept[it.group], it.doc.ID)
				}
			}
			for g := range groups {
				if len(kept[g]) != 1 {
					t.Errorf("group %d: kept %v, want exactly one", g, kept[g])
				}
			}
			for i, it := range items {
				res := results[i]
				if res.Inserted == res.Duplicate {
					t.Errorf("%s: inserted %v duplicate %v", it.doc.ID, res.Inserted, res.Duplicate)
					continue
				}
				if res.Duplicate && (len(kept[it.group]) == 0 || *res.DuplicateOf != kept[it.group][0]) {
					t.Errorf("%s names %s, kept in its group: %v", it.doc.ID, *res.DuplicateOf, kept[it.group])
				}
			}
			if st := e.Stats(); st.Documents != groups {
				t.Errorf("stored %d documents, want %d", st.Documents, groups)
			}
		})
	}
}

// tinyBase returns a text of 30 to 45 runes, which with " | " and a
// member word of testWords[:8] is tiny (under DefaultPolicy's 64).
func tinyBase(r *rand.Rand) string {
	for {
		if s := genText(r, 5+r.IntN(3)); len(s) >= 30 && len(s) <= 45 {
			return s
		}
	}
}

func TestRetention(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC)}
	o := memOptions(clock)
	o.Retention = 2 * time.Hour
	e := mustOpen(t, "", o)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	old := genText(r, 200)
	if _, err := e.CheckAndInsert(ctx, Document{ID: "old", Text: old}); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := e.Insert(ctx, Document{ID: fmt.Sprint("filler", i), Text: genText(r, 200)}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(time.Hour)
	recent := genText(r, 200)
	if _, err := e.CheckAndInsert(ctx, Document{ID: "recent", Text: recent}); err != nil {
		t.Fatal(err)
	}
	// Seen at 11:02, in the hour the cutoff will fall in.
	edge := genText(r, 200)
	if _, err := e.Insert(ctx, Document{ID: "edge", Text: edge, Time: time.Date(2026, 1, 1, 11, 2, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	// Inside the window both are found.
	if res, _ := e.Check(ctx, Document{ID: "q", Text: old}); !res.Duplicate {
		t.Fatal("old document not found inside the window")
	}
	clock.Advance(95 * time.Minute) // 13:05: old is 2h35m old, recent 1h35m
	if res, _ := e.Check(ctx, Document{ID: "q", Text: old}); res.Duplicate {
		t.Fatalf("expired document returned before any expiry pass: %+v", res)
	}
	if res, _ := e.Check(ctx, Document{ID: "q", Text: edge}); res.Duplicate {
		t.Fatalf("document expired 3 minutes ago returned: %+v", res)
	}
	if _, err := e.Get("old"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of expired: %v", err)
	}
	if _, err := e.Insert(ctx, Document{ID: "back", Text: "x y z", Time: clock.Now().Add(-3 * time.Hour)}); !errors.Is(err, ErrExpired) {
		t.Fatalf("insert outside the window: %v", err)
	}
	rep, err := e.ExpireNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The old hour (10:00-11:00) ended before the cutoff (11:05), so it is
	// gone from the store as well as the index; edge leaves the index, and
	// the store with its hour.
	if rep.Indexed != 102 || rep.Stored != 101 {
		t.Fatalf("expiry removed %+v, want 102 from the index and 101 from the store", rep)
	}
	if st := e.Stats(); st.Documents != 1 {
		t.Fatalf("documents after expiry = %d, want 1", st.Documents)
	}
	if res, _ := e.Check(ctx, Document{ID: "q", Text: recent}); !res.Duplicate {
		t.Fatal("recent document lost by expiry")
	}
	// The old id can be used again.
	if res, err := e.CheckAndInsert(ctx, Document{ID: "old", Text: old}); err != nil || !res.Inserted {
		t.Fatalf("re-insert after expiry: %+v, %v", res, err)
	}
}

// TestCheckNotItsOwnDuplicate checks that Check does not count a stored
// document with the checked document's id as a match, and does count it
// under another id.
func TestCheckNotItsOwnDuplicate(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{40, 300} { // a short text and a long one
		text := genText(r, n)
		id := fmt.Sprint("doc", n)
		if _, err := e.Insert(ctx, Document{ID: id, Text: text}); err != nil {
			t.Fatal(err)
		}
		if res, err := e.Check(ctx, Document{ID: id, Text: text}); err != nil || res.Duplicate || len(res.Matches) != 0 {
			t.Fatalf("Check of %s under its own id: %+v, %v", id, res, err)
		}
		if res, err := e.Check(ctx, Document{ID: "other", Text: text}); err != nil || !res.Duplicate || *res.DuplicateOf != id {
			t.Fatalf("Check of %s under another id: %+v, %v", id, res, err)
		}
	}
}

// TestCheckBatch checks that CheckBatch gives, document by document, what
// Check gives, stores nothing, keeps to its own id as Check does, and
// reports refused documents without failing the others.
func TestCheckBatch(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	r := rand.New(rand.NewPCG(21, 22))
	var stored []string
	for i := range 200 {
		text := genText(r, []int{12, 40, 300}[i%3]) // short and long texts
		stored = append(stored, text)
		if _, err := e.Insert(ctx, Document{ID: fmt.Sprint("s", i), Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	var ds []Document
	for i := range 2500 { // more than a decideChunk
		var text string
		switch i % 4 {
		case 0, 1: // near-copies of stored texts
			text = mutate(r, stored[r.IntN(len(stored))], 1)
		case 2: // new texts
			text = genText(r, []int{12, 40, 300}[r.IntN(3)])
		case 3: // a stored text, under its own id or another
			j := r.IntN(len(stored))
			ds = append(ds, Document{ID: fmt.Sprint("s", j), Text: stored[j]})
			continue
		}
		ds = append(ds, Document{ID: fmt.Sprint("q", i), Text: text})
	}
	// A near-copy of a text only in the batch is not its duplicate.
	fresh := genText(r, 300)
	ds = append(ds, Document{ID: "fresh", Text: fresh}, Document{ID: "fresh2", Text: mutate(r, fresh, 1)})
	ds = append(ds, Document{ID: "blank", Text: "  "}, Document{ID: strings.Repeat("x", MaxIDBytes+1), Text: "an id too long"})
	before := e.Stats().Documents
	got, err := e.CheckBatch(ctx, ds)
	var be *BatchError
	if !errors.As(err, &be) || len(be.Errs) != len(ds) {
		t.Fatalf("CheckBatch error %v, want a BatchError for the two refused documents", err)
	}
	if !errors.Is(be.Errs[len(ds)-2], ErrEmptyText) || !errors.Is(be.Errs[len(ds)-1], ErrIDTooLong) {
		t.Fatalf("refused: %v and %v, want ErrEmptyText and ErrIDTooLong", be.Errs[len(ds)-2], be.Errs[len(ds)-1])
	}
	dups := 0
	for i, d := range ds[:len(ds)-2] {
		if be.Errs[i] != nil {
			t.Fatalf("document %d (%s) refused: %v", i, d.ID, be.Errs[i])
		}
		want, err := e.Check(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Fatalf("document %d (%s): CheckBatch gave %+v, Check %+v", i, d.ID, got[i], want)
		}
		if got[i].Duplicate {
			dups++
		}
	}
	if dups < len(ds)/3 || got[len(ds)-3].Duplicate {
		t.Fatalf("%d duplicates of %d, fresh2 duplicate %v: want about half, and not fresh2", dups, len(ds), got[len(ds)-3].Duplicate)
	}
	if n := e.Stats().Documents; n != before {
		t.Fatalf("documents %d after CheckBatch, want %d: nothing stored", n, before)
	}
	for _, i := range []int{len(ds) - 2, len(ds) - 1} {
		if !reflect.DeepEqual(got[i], Result{}) {
			t.Fatalf("result of refused document %d = %+v, want zero", i, got[i])
		}
	}
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(9, 10))
	o := DefaultOptions()
	o.ExpiryInterval = -1
	e, err := Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var texts []string
	for i := range 200 {
		texts = append(texts, genText(r, 50+r.IntN(400)))
		if _, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint(i), Text: texts[i], Meta: []byte(`{"n":1}`)}); err != nil {
			t.Fatal(err)
		}
	}
	before := e.Stats().Documents
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Check(ctx, Document{ID: "x", Text: "y"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("use after close: %v", err)
	}
	e = mustOpen(t, dir, &o)
	if got := e.Stats().Documents; got != before {
		t.Fatalf("reopened with %d documents, want %d", got, before)
	}
	d, err := e.Get("7")
	if err != nil || d.Text != texts[7] || string(d.Meta) != `{"n":1}` {
		t.Fatalf("Get after reopen: %+v, %v", d, err)
	}
	res, err := e.CheckAndInsert(ctx, Document{ID: "new", Text: strings.ToUpper(texts[3])})
	if err != nil || !res.Duplicate || *res.DuplicateOf != "3" {
		t.Fatalf("near-duplicate after reopen: %+v, %v", res, err)
	}
	// New documents get fresh sequence numbers after a reopen.
	res, err = e.CheckAndInsert(ctx, Document{ID: "fresh", Text: genText(r, 300)})
	if err != nil || !res.Inserted {
		t.Fatal(res, err)
	}
	if d, err := e.Get("0"); err != nil || d.Text != texts[0] {
		t.Fatalf("old document overwritten: %v", err)
	}
}

// TestIDHashCollisions forces every id to the same hash, so the id map's
// collision path handles every insert, lookup, delete and reopen.
func TestIDHashCollisions(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Fingerprinter = wordSimHash{}
	r := rand.New(rand.NewPCG(21, 22))
	texts := make([]string, 20)
	for i := range texts {
		texts[i] = genText(r, 100)
	}
	for round := range 2 {
		e, err := Open(dir, &o)
		if err != nil {
			t.Fatal(err)
		}
		e.testHash = func([]byte) uint64 { return 7 }
		if round == 1 {
			// Reopened: the rebuilt map must still tell the ids apart.
			e.Close()
			if e, err = openWithHash(dir, &o, func([]byte) uint64 { return 7 }); err != nil {
				t.Fatal(err)
			}
		}
		ctx := context.Background()
		for i, text := range texts {
			res, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint(i), Text: text})
			if err != nil || res.Duplicate || res.Inserted != (round == 0) {
				t.Fatalf("round %d, doc %d: %+v, %v", round, i, res, err)
			}
		}
		for i, text := range texts {
			if d, err := e.Get(fmt.Sprint(i)); err != nil || d.Text != text {
				t.Fatalf("round %d: Get(%d) = %q, %v", round, i, d.Text, err)
			}
		}
		if _, err := e.Get("missing"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get of an absent id with a colliding hash: %v", err)
		}
		if round == 1 {
			if err := e.Delete("3"); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Get("3"); !errors.Is(err, ErrNotFound) {
				t.Fatal("deleted id still found")
			}
			if _, err := e.Get("4"); err != nil {
				t.Fatal("deleting one id lost another with the same hash")
			}
		}
		e.Close()
	}
}

// TestSnapshotReopen checks that a clean Close leaves an index snapshot
// that the next Open uses, that a damaged or stale snapshot is ignored
// (the index is rebuilt from the records), and that both give the same
// answers.
func TestSnapshotReopen(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Fingerprinter = wordSimHash{}
	r := rand.New(rand.NewPCG(31, 32))
	var texts []string
	e, err := Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		texts = append(texts, genText(r, 20+r.IntN(200)))
		if _, err := e.Insert(context.Background(), Document{ID: fmt.Sprint(i), Text: texts[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	check := func(name string, snapshot bool) {
		t.Helper()
		e, err := Open(dir, &o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if e.fromSnapshot != snapshot {
			t.Fatalf("%s: indexes loaded from the snapshot: %v, want %v", name, e.fromSnapshot, snapshot)
		}
		defer func() {
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
		}()
		if n := e.Stats().Documents; n != len(texts) {
			t.Fatalf("%s: %d documents, want %d", name, n, len(texts))
		}
		for i := range e.ids {
			// No two ids share a hash here: none is kept by string.
			if n := len(e.ids[i].over); n > 0 {
				t.Fatalf("%s: %d ids kept by string in shard %d", name, n, i)
			}
		}
		for _, i := range []int{0, 150, 299} {
			res, err := e.Check(context.Background(), Document{ID: "q", Text: strings.ToUpper(texts[i])})
			if err != nil || !res.Duplicate || *res.DuplicateOf != fmt.Sprint(i) {
				t.Fatalf("%s: check of %d: %+v, %v", name, i, res, err)
			}
			if d, err := e.Get(fmt.Sprint(i)); err != nil || d.Text != texts[i] {
				t.Fatalf("%s: get %d: %+v, %v", name, i, d, err)
			}
		}
	}
	if _, err := os.Stat(snapshotPath(dir, "long")); err != nil {
		t.Fatalf("no snapshot after Close: %v", err)
	}
	check("snapshot", true)
	// Cut the snapshot written by that Close after its token: Open finds
	// it out only while loading it, and rebuilds.
	whole, err := os.ReadFile(snapshotPath(dir, "long"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snapshotPath(dir, "long"), whole[:snapshotToken+40], 0o644); err != nil {
		t.Fatal(err)
	}
	check("truncated snapshot", false)
	// Damage the snapshot written by that Close: Open must rebuild.
	if err := os.WriteFile(snapshotPath(dir, "long"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("damaged snapshot", false)
	// A snapshot from an earlier Close is stale once the store changed.
	old, err := os.ReadFile(snapshotPath(dir, "long"))
	if err != nil {
		t.Fatal(err)
	}
	e, err = Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	texts = append(texts, genText(r, 100))
	if _, err := e.Insert(context.Background(), Document{ID: fmt.Sprint(len(texts) - 1), Text: texts[len(texts)-1]}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	if err := os.WriteFile(snapshotPath(dir, "long"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	check("stale snapshot", false)
	// Records gone behind the snapshot's back (pebble lost flushed data to
	// a damaged manifest, say): the snapshot's entries for them must not
	// count as documents nor match as candidates, so Open rebuilds.
	db, err := store.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var seq uint64
	if err := db.ScanViews(0, 0, func(v *store.View) error {
		if string(v.ID) == "0" {
			seq = v.Seq
		}
		return nil
	}); err != nil || seq == 0 {
		t.Fatalf("record of 0: %d, %v", seq, err)
	}
	b := db.NewBatch()
	b.Delete(seq)
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, &o)
	if n := e.Stats().Documents; e.fromSnapshot || n != len(texts)-1 {
		t.Fatalf("after a record went: %d documents, from the snapshot %v; want %d, rebuilt", n, e.fromSnapshot, len(texts)-1)
	}
	if res, err := e.Check(context.Background(), Document{ID: "q", Text: texts[0]}); err != nil || res.Duplicate {
		t.Fatalf("check of the text of the record gone: %+v, %v", res, err)
	}
}

// TestStripesOrderNearDuplicates checks the invariant that ordering rests
// on: two texts the Long rule's distance apart, two short texts the
// Short rule's distance apart, or two tiny texts the Tiny rule's distance
// apart, share a lock stripe.
func TestStripesOrderNearDuplicates(t *testing.T) {
	for _, width := range []int{64, 128} {
		o := memOptions(nil)
		o.Fingerprint.Bits = width
		e := mustOpen(t, "", o)
		r := rand.New(rand.NewPCG(21, 22))
		// near returns a text of runes runes whose fingerprint is d bits
		// from (hi, lo), the bits anywhere in the width.
		near := func(hi, lo uint64, d, runes int) *prepared {
			for _, b := range r.Perm(width)[:d] {
				if b < 64 {
					hi ^= 1 << b
				} else {
					lo ^= 1 << (b - 64)
				}
			}
			return &prepared{ix: hi, lo: lo, runes: runes}
		}
		share := func(a, b *prepared) bool {
			sa := e.stripes(a, nil)
			for _, s := range e.stripes(b, nil) {
				if slices.Contains(sa, s) {
					return true
				}
			}
			return false
		}
		for range 2000 {
			hi, lo := r.Uint64(), uint64(0)
			if width == 128 {
				lo = r.Uint64()
			}
			long := prepared{ix: hi, lo: lo, runes: 5000}
			if d := r.IntN(e.longK + 1); !share(&long, near(hi, lo, d, 5000)) {
				t.Fatalf("%d bits: long texts %d bits apart share no stripe", width, d)
			}
			short := prepared{ix: hi, lo: lo, runes: 100, norm: 100}
			if d := r.IntN(e.shortK + 1); !share(&short, near(hi, lo, d, 100)) {
				t.Fatalf("%d bits: short texts %d bits apart share no stripe", width, d)
			}
			// A text under ShortCap, over ShortLength, and a shorter copy.
			if d := r.IntN(e.shortK + 1); !share(&short, near(hi, lo, d, 600)) {
				t.Fatalf("%d bits: short texts of 100 and 600 runes %d bits apart share no stripe", width, d)
			}
			// A tiny text and a copy a little longer (under TinyCap).
			tiny := prepared{ix: hi, lo: lo, runes: 30, norm: 30}
			twin := near(hi, lo, r.IntN(scale(e.policy.Tiny.MaxDistance, width)+1), 76)
			twin.norm = 75
			if d := popcount(twin.ix^hi) + popcount(twin.lo^lo); !share(&tiny, twin) {
				t.Fatalf("%d bits: tiny texts %d bits apart share no stripe", width, d)
			}
		}
		if n := len(e.stripes(&prepared{ix: 1, lo: 2, runes: 30, norm: 30}, nil)); n > e.stripeTables() {
			t.Fatalf("%d bits: %d stripes, more than the %d of stripeTables", width, n, e.stripeTables())
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(o *Options)
		want string // in the error; "" for valid
	}{
		{"defaults", func(o *Options) {}, ""},
		{"zero options", func(o *Options) { *o = Options{} }, ""},
		{"k", func(o *Options) { o.K = 33 }, "k 33"},
		{"policy", func(o *Options) { o.Policy.Long.MinSimilarity = 2 }, "long min similarity"},
		{"tiny length", func(o *Options) { o.Policy = DefaultPolicy(); o.Policy.TinyLength = 600 }, "tiny length 600 out of range [0, short length 500]"},
		{"tiny rule", func(o *Options) { o.Policy = DefaultPolicy(); o.Policy.Tiny.MaxDistance = 40 }, "tiny max distance 40"},
		{"no tiny rule", func(o *Options) { o.Policy = DefaultPolicy(); o.Policy.TinyLength, o.Policy.Tiny = 0, Rule{} }, ""},
		{"durability", func(o *Options) { o.Durability = 9 }, "durability"},
		{"compression", func(o *Options) { o.Compression = 7 }, "compression"},
		{"zstd", func(o *Options) { o.Compression = Zstd }, ""},
		{"commit delay", func(o *Options) { o.CommitDelay = 2 * time.Second }, "commit delay"},
		{"index bytes", func(o *Options) { o.IndexBytesPerDocument = -1 }, "IndexBytesPerDocument"},
		{"max text", func(o *Options) { o.MaxTextBytes = -1 }, "MaxTextBytes -1"},
		{"max candidates", func(o *Options) { o.MaxCandidates = -2 }, "MaxCandidates -2"},
		{"expected", func(o *Options) { o.ExpectedDocuments = -3 }, "ExpectedDocuments -3"},
		{"bits", func(o *Options) { o.Fingerprint.Bits = 256 }, "not 256"},
		{"nilsimsa", func(o *Options) { o.Fingerprint.Profile = "nilsimsa" }, "nilsimsa"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			tc.edit(&o)
			err := o.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Validate: %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

// TestCheckAndInsertCombined sends many documents at once, one call each,
// so that calls share batches (engine_combine.go): each caller gets its
// own document's answer, whatever else its batch held.
func TestCheckAndInsertCombined(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	taken := Document{ID: "taken", Text: genText(r, 80)}
	if _, err := e.CheckAndInsert(ctx, taken); err != nil {
		t.Fatal(err)
	}
	const calls = 400
	texts := make([]string, calls)
	for i := range texts {
		texts[i] = genText(r, 10+r.IntN(200))
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range calls {
		wg.Go(func() {
			<-start
			switch i % 4 {
			case 0: // new
				id := fmt.Sprintf("new-%d", i)
				res, err := e.CheckAndInsert(ctx, Document{ID: id, Text: texts[i]})
				if err != nil || !res.Inserted || res.ID != id {
					t.Errorf("%s: %+v, %v; want it inserted under its id", id, res, err)
				}
			case 1: // refused
				id := fmt.Sprintf("empty-%d", i)
				_, err := e.CheckAndInsert(ctx, Document{ID: id, Text: " "})
				if !errors.Is(err, ErrEmptyText) || !strings.Contains(err.Error(), id) {
					t.Errorf("%s: %v, want ErrEmptyText naming it", id, err)
				}
			case 2: // another text under a stored id
				_, err := e.CheckAndInsert(ctx, Document{ID: taken.ID, Text: texts[i]})
				if !errors.Is(err, ErrIDConflict) {
					t.Errorf("call %d: %v, want ErrIDConflict", i, err)
				}
			case 3: // the stored document again
				res, err := e.CheckAndInsert(ctx, taken)
				if err != nil || res.Inserted || res.Duplicate || res.ID != taken.ID {
					t.Errorf("call %d, again: %+v, %v; want a no-op", i, res, err)
				}
			}
		})
	}
	close(start)
	wg.Wait()
	if st := e.Stats(); st.Documents != 1+calls/4 {
		t.Errorf("stored %d documents, want %d", st.Documents, 1+calls/4)
	}
}

// TestCombinerWaitsForBusyRunner checks how a runner collects while the
// other is busy (engine_combine.go), with the other runner's work stood in
// for by the busy count: fewer than spillMin calls wait for it to finish
// (decided ahead, see TestCombinerDecidesAhead, but not answered),
// spillMin calls are taken at once, and every call gets its answer.
func TestCombinerWaitsForBusyRunner(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	r := rand.New(rand.NewPCG(9, 10))
	send := func(n int, prefix string, done chan<- string) {
		for i := range n {
			id := fmt.Sprintf("%s-%d", prefix, i)
			text := genText(r, 60)
			go func() {
				res, err := e.CheckAndInsert(ctx, Document{ID: id, Text: text})
				if err != nil || !res.Inserted {
					t.Errorf("%s: %+v, %v; want it inserted", id, res, err)
				}
				done <- id
			}()
		}
	}
	e.comb.busy.Add(1) // as if the other runner were deciding a batch
	released := false
	release := func() {
		if !released {
			released = true
			e.comb.busy.Add(-1)
			signal(e.comb.freed)
		}
	}
	defer release() // so that a failed test does not leave calls waiting
	few := make(chan string, spillMin)
	send(10, "few", few)
	select {
	case id := <-few:
		t.Fatalf("%s was answered while the other runner was busy and few calls were queued", id)
	case <-time.After(200 * time.Millisecond):
	}
	many := make(chan string, 2*spillMin)
	send(2*spillMin, "many", many)
	for range spillMin {
		select {
		case <-many:
		case <-time.After(30 * time.Second):
			t.Fatal("calls beyond spillMin were not taken while the other runner was busy")
		}
	}
	// The rest went with those batches, or wait for the other runner to
	// finish.
	release()
	for range spillMin {
		select {
		case <-many:
		case <-time.After(30 * time.Second):
			t.Fatal("the last calls were never answered")
		}
	}
	for range 10 {
		select {
		case <-few:
		case <-time.After(30 * time.Second):
			t.Fatal("the first calls were never answered")
		}
	}
	st := e.Stats()
	if st.Documents != 10+2*spillMin {
		t.Errorf("stored %d documents, want %d", st.Documents, 10+2*spillMin)
	}
	// One sync a batch, and the first batch held more than spillMin calls.
	if st.Syncs == 0 || st.Syncs > st.Inserts-spillMin {
		t.Errorf("%d syncs for %d documents, the first %d or more in one batch", st.Syncs, st.Inserts, spillMin)
	}
	// A lone call once nothing is busy is taken at once.
	if res, err := e.CheckAndInsert(ctx, Document{ID: "lone", Text: genText(r, 60)}); err != nil || !res.Inserted {
		t.Fatalf("lone call: %+v, %v", res, err)
	}
}

// awaitAnswers takes n answers from done, failing at the first error, or
// with what when one takes more than 10 seconds.
func awaitAnswers(t *testing.T, done <-chan error, n int, what string) {
	t.Helper()
	for range n {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal(what)
		}
	}
}

// TestCombinerDecidesAhead: while the other runner stores its batch, the
// collector decides the calls queued meanwhile (they are in the index) but
// answers them only once that runner is done, in one write; while the
// other runner still decides its batch, it decides nothing.
func TestCombinerDecidesAhead(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	r := rand.New(rand.NewPCG(15, 16))
	// As if the other runner were deciding a batch.
	e.comb.busy.Add(1)
	e.comb.deciding.Add(1)
	released := false
	release := func() {
		if !released {
			released = true
			e.comb.deciding.Store(0)
			e.comb.busy.Add(-1)
			signal(e.comb.freed)
		}
	}
	defer release() // so that a failed test does not leave calls waiting
	const calls = 2 * aheadMin
	done := make(chan error, calls)
	for i := range calls {
		text := genText(r, 60)
		go func() {
			res, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint("ahead-", i), Text: text})
			if err == nil && !res.Inserted {
				err = fmt.Errorf("call %d: %+v, want it inserted", i, res)
			}
			done <- err
		}()
	}
	// The collector holds the first call; the others queue.
	for deadline := time.Now().Add(10 * time.Second); len(e.comb.q) < calls-1 && e.Stats().Documents == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls queued, want %d", len(e.comb.q), calls-1)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := e.Stats().Documents; n != 0 {
		t.Fatalf("%d documents decided while the other runner was deciding", n)
	}
	// The other runner now stores its batch.
	e.comb.deciding.Add(-1)
	signal(e.comb.freed)
	for deadline := time.Now().Add(10 * time.Second); e.Stats().Documents != calls; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d documents decided ahead while the other runner stored its batch", e.Stats().Documents, calls)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("a call was answered (%v) before the other runner was done", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	awaitAnswers(t, done, calls, "calls decided ahead were not answered once the other runner was done")
	if st := e.Stats(); st.Syncs != 1 || st.Inserts != calls {
		t.Errorf("%d syncs for %d inserts, want %d in one write", st.Syncs, st.Inserts, calls)
	}
}

// TestCombinerFillsToLastBatch: a collector that finds fewer calls queued
// than the last batch held waits for as many, and they go in one batch;
// after a batch of one, a lone call waits for nothing.
func TestCombinerFillsToLastBatch(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	r := rand.New(rand.NewPCG(13, 14))
	e.comb.fillMax = time.Minute // here only the calls end the wait
	e.comb.lastSize.Store(8)
	e.comb.lastTook.Store(int64(time.Hour))
	done := make(chan error, 8)
	send := func(id string) {
		text := genText(r, 60)
		go func() {
			res, err := e.CheckAndInsert(ctx, Document{ID: id, Text: text})
			if err == nil && !res.Inserted {
				err = fmt.Errorf("%s: %+v, want it inserted", id, res)
			}
			done <- err
		}()
	}
	answered := func(n int, what string) {
		t.Helper()
		awaitAnswers(t, done, n, what)
	}
	send("first")
	for deadline := time.Now().Add(10 * time.Second); e.comb.want.Load() != 7; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the collector did not wait for as many calls as the last batch held")
		}
	}
	select {
	case err := <-done:
		t.Fatalf("the first call was answered before the batch filled (%v)", err)
	case <-time.After(100 * time.Millisecond):
	}
	for i := range 7 {
		send(fmt.Sprintf("next-%d", i))
	}
	answered(8, "the calls were not answered once the batch filled")
	if st := e.Stats(); st.Syncs != 1 {
		t.Errorf("%d syncs for 8 documents, want them in one batch", st.Syncs)
	}
	send("lone-1") // waits at most a quarter of the last batch's time
	answered(1, "a lone call after a batch of 8 was not answered")
	e.comb.lastTook.Store(int64(time.Hour))
	send("lone-2")
	answered(1, "a lone call after a batch of one waited")
}

// TestLostTextDropped stands for a machine that stopped during a commit:
// the records of the last commit were kept but not their texts. Open must
// delete those records (they were never acknowledged), count them
// (Stats.MissingTexts), keep the others whole, and treat the lost texts as
// never seen.
func TestLostTextDropped(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	o := DefaultOptions()
	o.ExpiryInterval = -1
	e := mustOpen(t, dir, &o)
	ctx := context.Background()
	insert := func(docs []Document) {
		t.Helper()
		res, err := e.CheckAndInsertBatch(ctx, docs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if !r.Inserted {
				t.Fatalf("%s not inserted", r.ID)
			}
		}
	}
	var kept []Document
	// After a commit of 600 documents the store sends the texts of the
	// next commits to its text log (the first stays in pebble).
	for b := range 1 {
		var docs []Document
		for i := range 600 {
			docs = append(docs, Document{ID: fmt.Sprint(b, "-", i), Text: genText(r, 80)})
		}
		insert(docs)
		kept = append(kept, docs...)
	}
	last := []Document{{ID: "a", Text: genText(r, 300)}, {ID: "b", Text: genText(r, 300)}}
	insert(last)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".log") && filepath.Base(filepath.Dir(p)) == "texts" {
			names = append(names, p)
		}
		return err
	})
	if err != nil || len(names) != 1 {
		t.Fatalf("text files under %s: %v, %v", dir, names, err)
	}
	// Cut the last commit's texts short, as if their sync never reached
	// the disk.
	if err := os.Truncate(names[0], 3); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, &o)
	defer e.Close()
	if st := e.Stats(); st.Documents != len(kept) || st.MissingTexts != len(last) {
		t.Errorf("%d documents after reopen, %d deleted for their missing texts; want %d and %d", st.Documents, st.MissingTexts, len(kept), len(last))
	}
	for _, d := range last {
		if _, err := e.Get(d.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get of the lost document %s: %v, want ErrNotFound", d.ID, err)
		}
	}
	for _, i := range []int{0, 299, 599} {
		if d, err := e.Get(kept[i].ID); err != nil || d.Text != kept[i].Text {
			t.Errorf("Get(%s) = %v", kept[i].ID, err)
		}
	}
	res, err := e.CheckAndInsert(ctx, last[1])
	if err != nil || !res.Inserted || res.Duplicate {
		t.Errorf("a lost text sent again: %+v, %v; want it kept as new", res, err)
	}
}

// TestHTMLPages checks an engine whose pipeline reads HTML: a page is a
// duplicate of a copy of its text in other markup (another template,
// scripts and styles), as the pipeline fingerprints them alike, because
// the policy measures the visible text too, not the markup; a page of
// the same template with other text is new.
func TestHTMLPages(t *testing.T) {
	o := memOptions(nil)
	p := DefaultPipeline()
	p.HTML = true
	o.Fingerprint = Config{Pipeline: &p}
	e := mustOpen(t, "", o)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	// Each template's scripts, most of its bytes, in words of their own.
	scripts := []string{genText(r, 400), genText(r, 400)}
	page := func(template int, text string) string {
		if template == 0 {
			return "<html><head><script>var words = \"" + scripts[0] + "\";</script></head><body><div class=\"main\"><p>" + text + "</p></div></body></html>"
		}
		return "<!doctype html><html><head><script>const s = '" + scripts[1] + "';</script></head><body><table><tr><td><span>" + text + "</span></td></tr></table></body></html>"
	}
	for _, n := range []int{40, 200} { // a short text and a long one
		text := genText(r, n)
		first, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint("a", n), Text: page(0, text)})
		if err != nil || !first.Inserted {
			t.Fatalf("%d words: first page: %+v, %v", n, first, err)
		}
		res, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint("b", n), Text: page(1, text)})
		if err != nil || !res.Duplicate || *res.DuplicateOf != first.ID {
			t.Errorf("%d words: the same text in another template: %+v, %v; want a duplicate of %s", n, res, err, first.ID)
		}
		res, err = e.CheckAndInsert(ctx, Document{ID: fmt.Sprint("c", n), Text: page(0, genText(r, n))})
		if err != nil || res.Duplicate {
			t.Errorf("%d words: other text in the same template: %+v, %v; want it new", n, res, err)
		}
	}
}

// TestMainTextPages checks an engine whose pipeline reads the main text
// of pages: a page posted again in other furniture, whose menus and
// sidebars make up most of its text, is a duplicate of the first, because
// the policy measures the main text too; with HTML alone it is not. A
// store of one setting refuses the other.
func TestMainTextPages(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	text := genText(r, 40)
	a := "<html><body><nav>" + genText(r, 60) + "</nav><article><p>" + text + "</p></article><footer>" + genText(r, 30) + "</footer></body></html>"
	b := "<html><body><header>" + genText(r, 50) + "</header><div><p>" + text + "</p></div><aside>" + genText(r, 60) + "</aside></body></html>"
	ctx := context.Background()
	for _, main := range []bool{false, true} {
		dir := t.TempDir()
		p := DefaultPipeline()
		p.HTML, p.MainText = !main, main
		o := DefaultOptions()
		o.Fingerprint = Config{Pipeline: &p}
		e := mustOpen(t, dir, &o)
		if res, err := e.CheckAndInsert(ctx, Document{ID: "a", Text: a}); err != nil || !res.Inserted {
			t.Fatalf("main text %v: the first page: %+v, %v", main, res, err)
		}
		res, err := e.CheckAndInsert(ctx, Document{ID: "b", Text: b})
		if err != nil || res.Duplicate != main {
			t.Errorf("main text %v: the page in other furniture: %+v, %v; want a duplicate only of the main text", main, res, err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		p.HTML, p.MainText = main, !main
		if e, err := Open(dir, &o); !errors.Is(err, ErrFingerprinterChanged) {
			if err == nil {
				e.Close()
			}
			t.Errorf("main text %v: opening the store with the other setting: %v, want ErrFingerprinterChanged", main, err)
		}
	}
}

// TestStatsSwitches checks that Stats reports the policy's switches that
// tell texts apart, and no pipeline for the default one.
func TestStatsSwitches(t *testing.T) {
	o := memOptions(nil)
	o.Policy = DefaultPolicy()
	o.Policy.DistinctNumbers, o.Policy.DistinctNegation = true, true
	e := mustOpen(t, "", o)
	if st := e.Stats(); !st.DistinctNumbers || !st.DistinctNegation || st.Pipeline != "" {
		t.Errorf("Stats: distinct numbers %v, negation %v, pipeline %q; want both switches on and no pipeline", st.DistinctNumbers, st.DistinctNegation, st.Pipeline)
	}
}

// TestFoldAccents checks an engine whose pipeline folds accents: a text
// and its copy without accents are duplicates, short and long, because
// the policy measures the folded texts too; a store written with one
// setting refuses to open with the other.
func TestFoldAccents(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	p := DefaultPipeline()
	p.FoldAccents = true
	o.Fingerprint = Config{Pipeline: &p}
	e := mustOpen(t, dir, &o)
	ctx := context.Background()
	// Polish, dense with marks: unfolded, the tiny pair's Levenshtein
	// ratio is 0.67 and the long pair's Jaccard 0.29, both turned down.
	tiny := [2]string{"Zażółć gęślą jaźń, łódź płynie źle po rzece", "Zazolc gesla jazn, lodz plynie zle po rzece"}
	long := [2]string{
		strings.Repeat("Pójdźże, kiń tę chmurność w głąb flaszy! Mężny bądź, chroń pułk twój i sześć flag. Łódź płynęła źle po rzece, gdzie żółw śpiewał pieśń o jesieni. ", 4),
		strings.Repeat("Pojdzze, kin te chmurnosc w glab flaszy! Mezny badz, chron pulk twoj i szesc flag. Lodz plynela zle po rzece, gdzie zolw spiewal piesn o jesieni. ", 4),
	}
	for i, pair := range [][2]string{tiny, long} {
		first, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint("accented", i), Text: pair[0]})
		if err != nil || !first.Inserted {
			t.Fatalf("%q: %+v, %v", pair[0], first, err)
		}
		res, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint("plain", i), Text: pair[1]})
		if err != nil || !res.Duplicate || *res.DuplicateOf != first.ID || res.Distance != 0 {
			t.Errorf("%q without its accents: %+v, %v; want a duplicate of %s at distance 0", pair[0], res, err, first.ID)
		}
	}
	if st := e.Stats(); st.Pipeline != "FoldAccents=true" || st.DistinctNumbers || st.DistinctNegation {
		t.Errorf("Stats: pipeline %q, distinct numbers %v, negation %v; want FoldAccents=true and the switches off", st.Pipeline, st.DistinctNumbers, st.DistinctNegation)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e, err := Open(dir, nil); !errors.Is(err, ErrFingerprinterChanged) {
		if err == nil {
			e.Close()
		}
		t.Errorf("opening the folded store without folding: %v, want ErrFingerprinterChanged", err)
	}
	plainDir := t.TempDir()
	e = mustOpen(t, plainDir, nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if e, err := Open(plainDir, &o); !errors.Is(err, ErrFingerprinterChanged) {
		if err == nil {
			e.Close()
		}
		t.Errorf("opening a store of the default pipeline with folding: %v, want ErrFingerprinterChanged", err)
	}
}

// TestRetentionForever checks that an engine that keeps documents forever
// (Retention < 0) takes any date, one before 1970 too, and keeps it as it
// keeps any other: Get finds it, a copy is its duplicate, its id with
// another text is a conflict, and it is there after a reopen.
func TestRetentionForever(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.Retention = -1
	ctx := context.Background()
	text := "a letter written long before the store was, about the harvest and the rain that came too late"
	d := Document{ID: "old", Text: text, Time: time.Date(1960, 5, 1, 0, 0, 0, 0, time.UTC)}
	e, err := Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := e.CheckAndInsert(ctx, d); err != nil || !res.Inserted {
		t.Errorf("a document of 1960: %+v, %v; want it stored", res, err)
	}
	if got, err := e.Get("old"); err != nil || got.Text != text || got.Time.Year() != 1960 {
		t.Errorf("Get: %+v, %v", got, err)
	}
	if res, err := e.Check(ctx, Document{Text: text}); err != nil || !res.Duplicate || *res.DuplicateOf != "old" {
		t.Errorf("Check of its text: %+v, %v; want a duplicate of it", res, err)
	}
	if _, err := e.CheckAndInsert(ctx, Document{ID: "old", Text: "another text entirely"}); !errors.Is(err, ErrIDConflict) {
		t.Errorf("its id with another text: %v, want ErrIDConflict", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, &o)
	if got, err := e.Get("old"); err != nil || got.Text != text {
		t.Errorf("Get after a reopen: %+v, %v", got, err)
	}
	if n := e.Stats().Documents; n != 1 {
		t.Errorf("%d documents after a reopen, want 1", n)
	}
}

// TestValidateProfile checks that Options.Validate refuses the profiles
// and widths Open refuses, so that a caller learns of them before opening
// a store.
func TestValidateProfile(t *testing.T) {
	for _, c := range []Config{{Profile: "bogus"}, {Profile: "go-mfonda", Bits: 128}} {
		o := DefaultOptions()
		o.Fingerprint = c
		err := o.Validate()
		if !errors.Is(err, ErrProfile) {
			t.Errorf("%+v: Validate = %v, want ErrProfile", c, err)
		}
		if _, oerr := Open("", &o); oerr == nil {
			t.Errorf("%+v: Open succeeded", c)
		}
	}
	// A bad pipeline, and a fingerprinter of a width the engine cannot
	// index, are refused by Validate as by Open.
	o := DefaultOptions()
	o.Fingerprint.Pipeline = &Pipeline{Shingle: 99}
	if err := o.Validate(); !errors.Is(err, ErrPipeline) {
		t.Errorf("pipeline with Shingle 99: Validate = %v, want ErrPipeline", err)
	}
	if _, err := Open("", &o); !errors.Is(err, ErrPipeline) || strings.Count(err.Error(), "neardup:") != 1 {
		t.Errorf("pipeline with Shingle 99: Open = %v, want ErrPipeline named once", err)
	}
	nf, err := NewFingerprinter(Config{Profile: "nilsimsa"})
	if err != nil {
		t.Fatal(err)
	}
	o = DefaultOptions()
	o.Fingerprinter = nf
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "not 256") {
		t.Errorf("a nilsimsa fingerprinter: Validate = %v, want it refused", err)
	}
}

// TestNoWordTexts checks documents without words (emoji here): a copy is
// found, and distinct ones are not each other's candidates. They all had
// the fingerprint 0, so each was verified against MaxCandidates of the
// others, after the index had visited every one of them for the nearest:
// the time a document took grew with their number.
func TestNoWordTexts(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 300
	var texts []string
	for i := range n {
		var b strings.Builder
		for range 12 {
			b.WriteRune(rune(0x1F300 + rng.IntN(0x2FF)))
		}
		texts = append(texts, b.String())
		res, err := e.CheckAndInsert(ctx, Document{ID: fmt.Sprint("e", i), Text: b.String()})
		if err != nil || !res.Inserted {
			t.Fatalf("emoji text %d: %+v, %v", i, res, err)
		}
	}
	if c := e.Stats().Candidates; c > n {
		t.Fatalf("%d candidates verified for %d distinct emoji texts", c, n)
	}
	res, err := e.CheckAndInsert(ctx, Document{ID: "copy", Text: texts[7] + " "})
	if err != nil || !res.Duplicate || res.DuplicateOf == nil || *res.DuplicateOf != "e7" {
		t.Fatalf("copy of e7: %+v, %v", res, err)
	}
}

// TestInsertBatch checks that InsertBatch stores every document without
// checking it, copies of each other too, and that a refused one leaves the
// others stored with its error in a *BatchError.
func TestInsertBatch(t *testing.T) {
	e := mustOpen(t, "", memOptions(nil))
	text := "The same short text, twice, under two ids."
	rs, err := e.InsertBatch(context.Background(), []Document{{ID: "a", Text: text}, {ID: "b", Text: text}, {ID: "c", Text: "  "}})
	var be *BatchError
	if !errors.As(err, &be) || be.Errs[0] != nil || be.Errs[1] != nil || !errors.Is(be.Errs[2], ErrEmptyText) {
		t.Fatalf("InsertBatch: %v, want a BatchError for the third document alone", err)
	}
	if !rs[0].Inserted || !rs[1].Inserted || rs[1].Duplicate || rs[2].Inserted {
		t.Fatalf("InsertBatch results %+v: want the first two stored, neither a duplicate", rs)
	}
	if n := e.Stats().Documents; n != 2 {
		t.Fatalf("%d documents stored, want 2", n)
	}
}
