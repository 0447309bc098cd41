package neardup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup/store"
	"github.com/zeebo/xxh3"
)

// flipFingerprinter is a test Fingerprinter under which "key words~N" is
// N bits from "key other words" (and from "key~0"), so that a test sets
// every distance: the low N bits of the hash of the first word flipped at
// 64 bits, and at 128 the low N - N/2 bits of the high half and N/2 of
// the low half.
type flipFingerprinter struct{ bits int }

func (f flipFingerprinter) Bits() int { return f.bits }

func (f flipFingerprinter) Fingerprint(text []byte) Fingerprint {
	body, num, _ := strings.Cut(string(text), "~")
	n, _ := strconv.Atoi(num)
	mask := func(k int) uint64 { return 1<<k - 1 }
	h := xxh3.HashString128(strings.Fields(body)[0])
	if f.bits == 64 {
		return FromUint64(h.Lo ^ mask(n))
	}
	return FromUint128(h.Hi^mask(n-n/2), h.Lo^mask(n/2))
}

// TestTinyTexts checks the Tiny rule's wider distance through every query
// path (Check, CheckBatch, CheckAndInsertBatch), at 64 and 128 bits, and
// after a reopen from the snapshot and a rebuild from the records: a tiny
// copy within the Tiny rule's distance is found, one beyond it is not, a
// pair whose shorter text is not tiny is judged by the Short rule's
// distance, and one whose shorter text is tiny (or short) and whose
// longer one is a little longer by the Tiny (or Short) rule; with
// TinyLength 0 there is no tiny rule.
func TestTinyTexts(t *testing.T) {
	for _, bits := range []int{64, 128} {
		for _, tiny := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d bits, tiny rule %v", bits, tiny), func(t *testing.T) { checkTinyTexts(t, bits, tiny) })
		}
	}
}

func checkTinyTexts(t *testing.T, bits int, tiny bool) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Fingerprinter = flipFingerprinter{bits}
	p := DefaultPolicy()
	if !tiny {
		p.TinyLength = 0
	}
	o.Policy = p
	e := mustOpen(t, dir, &o)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(9, 10))
	scale := bits / 64
	insert := func(id, text string) {
		t.Helper()
		res, err := e.CheckAndInsert(ctx, Document{ID: id, Text: text})
		if err != nil || !res.Inserted {
			t.Fatalf("insert %s: %+v, %v", id, res, err)
		}
	}
	tinyText := "t " + letters(r, 38)   // tiny: under 64 runes
	shortText := "s " + letters(r, 118) // short, not tiny
	edge := "e " + letters(r, 88)       // over the tiny cap (80)
	tinyEdge := "u " + letters(r, 58)   // tiny, with copies a little longer
	shortEdge := "v " + letters(r, 468) // short, with copies a little longer
	insert("tiny", tinyText)
	insert("short", shortText)
	insert("edge", edge)
	insert("tinyEdge", tinyEdge)
	insert("shortEdge", shortEdge)
	type probe struct {
		body, dupOf string
		distance    int // at 64 bits
	}
	// within returns id, a tiny text's, for a copy k bits away when a
	// rule allows k, or "".
	within := func(id string, k int) string {
		if tiny || k <= p.Short.MaxDistance {
			return id
		}
		return ""
	}
	probes := []probe{
		{tinyText, "tiny", 9},
		{tinyText, within("tiny", 12), 12},
		{tinyText, within("tiny", 14), 14},
		{tinyText, "", 15},
		{shortText, "short", 10},
		{shortText, "", 12},
		// 75 runes against 90: the shorter is not tiny, so the Short rule.
		{edge[:75], "edge", 9},
		{edge[:75], "", 12},
		// The shorter text chooses the rule: a copy of a tiny text with
		// words added (60 runes against 72, under the tiny cap of 80), and
		// one of a short text past the short length (470 against 530,
		// under the short cap of 625).
		{tinyEdge + " " + letters(r, 11), within("tinyEdge", 12), 12},
		{shortEdge + " " + letters(r, 59), "shortEdge", 9},
		{shortEdge + " " + letters(r, 59), "", 11},
	}
	check := func(stage string, e *Engine) {
		t.Helper()
		docs := make([]Document, len(probes))
		for i, pr := range probes {
			docs[i] = Document{ID: fmt.Sprint("q", i), Text: pr.body + "~" + strconv.Itoa(pr.distance*scale)}
		}
		batch, err := e.CheckBatch(ctx, docs)
		if err != nil {
			t.Fatal(err)
		}
		for i, pr := range probes {
			one, err := e.Check(ctx, docs[i])
			if err != nil {
				t.Fatal(err)
			}
			for how, res := range map[string]Result{"alone": one, "in a batch": batch[i]} {
				d := pr.distance * scale
				switch {
				case pr.dupOf == "" && res.Duplicate:
					t.Errorf("%s: a copy of %d runes %d bits away, %s: a duplicate of %s, want new", stage, len(pr.body), d, how, *res.DuplicateOf)
				case pr.dupOf != "" && (!res.Duplicate || *res.DuplicateOf != pr.dupOf || res.Distance != d):
					t.Errorf("%s: a copy of %d runes %d bits away, %s: %+v, want a duplicate of %s", stage, len(pr.body), d, how, res, pr.dupOf)
				}
			}
		}
	}
	e = checkReopened(t, dir, &o, e, check)
	// In one batch: "~12" of the tiny text (24 at 128 bits) is a
	// duplicate by the tiny rule alone, and "~9", 3 bits from it and 9
	// from the tiny text, is a duplicate either way (of the tiny text
	// when the first is not kept).
	docs := []Document{{ID: "b1", Text: tinyText[:39] + "~12"}, {ID: "b2", Text: tinyText[:39] + "~9"}}
	if bits == 128 {
		docs[0].Text, docs[1].Text = tinyText[:39]+"~24", tinyText[:39]+"~18"
	}
	rs, err := e.CheckAndInsertBatch(ctx, docs)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Duplicate != tiny || !rs[1].Duplicate || tiny && *rs[1].DuplicateOf != "tiny" {
		t.Errorf("batch: %+v, %+v; want the first a duplicate %v, the second a duplicate", rs[0], rs[1], tiny)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotPlacement checks that a snapshot whose texts were placed by
// another short cap is rebuilt from the records: a text of 560 runes,
// long under ShortLength 400 (cap 500), is held in the short index under
// the default policy (cap 625), where a shorter copy 8 bits away finds
// it. A snapshot without the placement entry (an earlier release) is
// rebuilt too; one placed as now is loaded.
func TestSnapshotPlacement(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Fingerprinter = flipFingerprinter{64}
	narrow := DefaultPolicy()
	narrow.ShortLength = 400
	o.Policy = narrow
	r := rand.New(rand.NewPCG(11, 12))
	text := "k " + letters(r, 558)
	e := mustOpen(t, dir, &o)
	ctx := context.Background()
	if res, err := e.CheckAndInsert(ctx, Document{ID: "k", Text: text}); err != nil || !res.Inserted {
		t.Fatalf("insert: %+v, %v", res, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	o.Policy = DefaultPolicy()
	copyOf := Document{ID: "q", Text: text[:470] + "~8"}
	for _, stage := range []string{"placed by another cap", "placed as now", "no placement entry"} {
		e = mustOpen(t, dir, &o)
		if want := stage == "placed as now"; e.fromSnapshot != want {
			t.Fatalf("%s: from the snapshot %v, want %v", stage, e.fromSnapshot, want)
		}
		if res, err := e.Check(ctx, copyOf); err != nil || !res.Duplicate || res.Distance != 8 {
			t.Errorf("%s: %+v, %v; want a duplicate of k 8 bits away", stage, res, err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if stage == "placed as now" {
			db, err := store.Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.SetMeta(snapshotPlacementMeta, nil); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
