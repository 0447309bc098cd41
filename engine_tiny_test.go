package neardup

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/similarity"
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
// copy within the Tiny rule's distance is found, one beyond it is not
// unless it is one word away (found by its deletion keys), a
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
	// keyed returns id, a tiny text's, for a copy one word away when the
	// tiny rule finds those by their deletion keys, or "".
	keyed := func(id string) string {
		if tiny {
			return id
		}
		return ""
	}
	// A word edited, and two (in the second and fourth words, of 5
	// letters each: the Levenshtein ratio passes either way).
	oneWord := tinyText[:3] + "z" + tinyText[4:]
	twoWords := oneWord[:15] + "z" + oneWord[16:]
	probes := []probe{
		{tinyText, "tiny", 9},
		{tinyText, within("tiny", 12), 12},
		{tinyText, within("tiny", 14), 14},
		{twoWords, "", 15},
		{oneWord, keyed("tiny"), 15},
		{oneWord, keyed("tiny"), 40},
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

// TestDeletionKeys checks the deletion keys' life: a tiny text finds a
// stored one a word away whatever their distance, not once that one is
// deleted or has expired (their keys go with them), nor with TinyWords 0
// or without texts kept; a text of fewer than 4 or more than TinyWords
// words has no keys.
func TestDeletionKeys(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC)}
	o := memOptions(clock)
	o.Retention = 2 * time.Hour
	o.Fingerprinter = hashFingerprinter{} // no two texts near
	e := mustOpen(t, "", o)
	ctx := context.Background()
	const text, copyOf = "the old man sold his boat today", "the old man sold his boats today"
	check := func(stage string, want bool) {
		t.Helper()
		res, err := e.Check(ctx, Document{Text: copyOf})
		if err != nil || res.Duplicate != want {
			t.Fatalf("%s: %+v, %v; want a duplicate %v", stage, res, err, want)
		}
	}
	insertInto := func(e *Engine, id, text string) {
		t.Helper()
		if res, err := e.CheckAndInsert(ctx, Document{ID: id, Text: text}); err != nil || !res.Inserted {
			t.Fatalf("insert %s: %+v, %v", id, res, err)
		}
	}
	insert := func(id, text string) { t.Helper(); insertInto(e, id, text) }
	insert("a", text)
	if n := e.keys.len(); n != 8 {
		t.Fatalf("a text of 7 words has %d keys, want 8", n)
	}
	check("stored", true)
	if err := e.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if n := e.keys.len(); n != 0 {
		t.Fatalf("%d keys left after the delete, want 0", n)
	}
	check("deleted", false)
	insert("b", text)
	check("stored again", true)
	clock.Advance(4 * time.Hour)
	if _, err := e.ExpireNow(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.keys.len(); n != 0 {
		t.Fatalf("%d keys left after expiry, want 0", n)
	}
	insert("few", "the old man")
	insert("many", "one two three four five six seven eight nine ten eleven twelve thirteen")
	if n := e.keys.len(); n != 0 {
		t.Fatalf("texts of 3 and 13 words have %d keys, want none", n)
	}
	insert("c", text)
	check("stored a third time", true)
	// A seq whose record is gone (an insert undone, or deleted while the
	// keys were being made): a check that finds it drops its keys.
	sk := similarity.NewSketch([]byte("a text of five words"))
	stale := e.textKeys(sk.Len(), func() *similarity.Sketch { return sk })
	e.keys.add(stale, store.MakeSeq(clock.Now().Unix(), 1<<40))
	before := e.keys.len()
	if res, err := e.Check(ctx, Document{Text: "a text of five words"}); err != nil || res.Duplicate {
		t.Fatalf("a text whose keys name a missing record: %+v, %v", res, err)
	}
	if n := e.keys.len(); n != before-len(stale) {
		t.Fatalf("%d keys after the check, want the %d of the missing record gone from %d", n, len(stale), before)
	}
	for _, off := range []string{"TinyWords 0", "DropText"} {
		o := memOptions(clock)
		o.Fingerprinter = hashFingerprinter{}
		if off == "DropText" {
			o.DropText = true
		} else {
			o.Policy = DefaultPolicy()
			o.Policy.TinyWords = 0
		}
		e := mustOpen(t, "", o)
		insertInto(e, "a", text)
		insertInto(e, "b", copyOf) // not a duplicate: too far apart
		if e.keys != nil {
			t.Errorf("%s: the engine keeps deletion keys", off)
		}
	}
}

// TestDeletionKeysMadeAfterOpen checks that a reopened store makes the
// deletion keys of its tiny texts again, after Open returns, and finds
// the copies a word away through them once made; and that a Close while
// they are being made stops it and closes cleanly.
func TestDeletionKeysMadeAfterOpen(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Fingerprinter = hashFingerprinter{}
	e, err := Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(13, 14))
	var ds []Document
	for i := range 10000 {
		ds = append(ds, Document{ID: fmt.Sprint(i), Text: strings.Join([]string{letters(r, 5), letters(r, 5), letters(r, 5), letters(r, 5), letters(r, 5)}, " ")})
	}
	if _, err := e.InsertBatch(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	want := e.Stats().DeletionKeys
	if want != 6*len(ds) {
		t.Fatalf("%d texts of 5 words have %d keys, want %d", len(ds), want, 6*len(ds))
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	// Written by Close; without it (a snapshot of an earlier version)
	// Open makes them again from the texts.
	if err := os.Remove(snapshotPath(dir, keysSnapshot)); err != nil {
		t.Fatalf("no deletion keys snapshot after Close: %v", err)
	}
	// Closed at once: the keys may still be being made, and then the
	// snapshot holds none (the next Open makes them again).
	e, err = Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, &o) // waits for keysMade
	if got := e.Stats().DeletionKeys; got != want {
		t.Fatalf("reopened: %d keys, want %d", got, want)
	}
	words := strings.Fields(ds[123].Text)
	words[2] = "zzzzz"
	res, err := e.Check(context.Background(), Document{Text: strings.Join(words, " ")})
	if err != nil || !res.Duplicate || *res.DuplicateOf != "123" {
		t.Fatalf("a copy of 123 a word away: %+v, %v", res, err)
	}
}

// TestDeletionKeysSnapshot checks that Close writes the deletion keys to
// the snapshot and that the reopened engine reads them from there, with
// the keys of documents expired since gone, and removes the file; and
// that keys whose snapshot cannot be read are made again from the texts.
func TestDeletionKeysSnapshot(t *testing.T) {
	dir := t.TempDir()
	clock := &fakeClock{t: time.Date(2026, 1, 1, 10, 30, 0, 0, time.UTC)}
	o := DefaultOptions()
	o.ExpiryInterval = -1
	o.Retention = 2 * time.Hour
	o.Now = clock.Now
	o.Fingerprinter = hashFingerprinter{}
	e := mustOpen(t, dir, &o)
	r := rand.New(rand.NewPCG(15, 16))
	docs := func(from, n int) []Document {
		var ds []Document
		for i := from; i < from+n; i++ {
			ds = append(ds, Document{ID: fmt.Sprint(i), Text: strings.Join([]string{letters(r, 5), letters(r, 5), letters(r, 5), letters(r, 5), letters(r, 5)}, " ")})
		}
		return ds
	}
	old := docs(0, 1000)
	if _, err := e.InsertBatch(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	clock.Advance(90 * time.Minute)
	ds := docs(1000, 2000)
	if _, err := e.InsertBatch(context.Background(), ds); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour) // old has expired, ds not
	copyOf := func(d Document) Document {
		words := strings.Fields(d.Text)
		words[2] = "zzzzz"
		return Document{Text: strings.Join(words, " ")}
	}
	for _, stage := range []string{"loaded", "loaded again", "damaged"} {
		if stage == "damaged" {
			path := snapshotPath(dir, keysSnapshot)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b[:len(b)/2], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		e, err := Open(dir, &o)
		if err != nil {
			t.Fatal(err)
		}
		<-e.keysMade
		if read := e.keysRead.Load(); read != (stage != "damaged") {
			t.Errorf("%s: keys read from the snapshot: %v", stage, read)
		}
		if _, err := os.Stat(snapshotPath(dir, keysSnapshot)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the keys' snapshot is left once read (%v)", stage, err)
		}
		if got := e.keys.len(); got != 6*len(ds) {
			t.Errorf("%s: %d keys, want the %d of the %d texts left", stage, got, 6*len(ds), len(ds))
		}
		res, err := e.Check(context.Background(), copyOf(ds[321]))
		if err != nil || !res.Duplicate || *res.DuplicateOf != ds[321].ID {
			t.Errorf("%s: a copy of %s a word away: %+v, %v", stage, ds[321].ID, res, err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestWordKeysSnapshot checks that the keys read back from writeTo are the
// keys written, the seqs of a key in their order, and that a file cut
// short, longer than its header says, or made for another policy is
// refused.
func TestWordKeysSnapshot(t *testing.T) {
	w := newWordKeys()
	r := rand.New(rand.NewPCG(17, 18))
	keys := make([]uint64, 300)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	for seq := uint64(1); seq <= 2000; seq++ {
		w.add([]uint64{keys[r.IntN(len(keys))], keys[r.IntN(len(keys))]}, seq)
	}
	p := DefaultPolicy()
	var b bytes.Buffer
	if err := w.writeTo(&b, p); err != nil {
		t.Fatal(err)
	}
	read := func(in []byte, p Policy) (*wordKeys, error) {
		got := newWordKeys()
		err := readKeys(bufio.NewReader(bytes.NewReader(in)), p, nil, got.addSeqs)
		return got, err
	}
	got, err := read(b.Bytes(), p)
	if err != nil {
		t.Fatal(err)
	}
	if got.len() != w.len() {
		t.Fatalf("%d keys read, %d written", got.len(), w.len())
	}
	for _, k := range keys {
		if a, b := got.find([]uint64{k}, nil), w.find([]uint64{k}, nil); !slices.Equal(a, b) {
			t.Fatalf("key %x: seqs %v read, %v written", k, a, b)
		}
		s, gs := w.shard(k), got.shard(k)
		if !slices.Equal(s.more[k], gs.more[k]) || s.m[k] != gs.m[k] {
			t.Fatalf("key %x: seqs read in another order", k)
		}
	}
	other := p
	other.TinyWords = 8
	for name, in := range map[string][]byte{
		"cut short":    b.Bytes()[:b.Len()-3],
		"header only":  b.Bytes()[:len(keysMagic)+3],
		"longer":       append(bytes.Clone(b.Bytes()), 0),
		"another file": []byte("neardup-index 3\n"),
	} {
		if _, err := read(in, p); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	if _, err := read(b.Bytes(), other); err == nil || !strings.Contains(err.Error(), "made for texts of at most 12 words") {
		t.Errorf("another policy: %v", err)
	}
}

// TestTinyWordsWideK checks that a Long rule's distance as wide as the
// tiny rule's or wider (Options.K 14 or 18) still finds tiny texts one word
// apart whatever their distance, by their deletion keys, and that Stats
// says so. Before, such a K built no short-text index, and with it no
// deletion keys: a larger K found fewer duplicates.
func TestTinyWordsWideK(t *testing.T) {
	ctx := context.Background()
	a, b := "but man blue red tree way for big and", "but man blue red tree tree for big and"
	for _, k := range []int{0, 12, 14, 18} {
		o := DefaultOptions()
		o.InMemory, o.ExpiryInterval, o.K = true, -1, k
		e := mustOpen(t, "", &o)
		if _, err := e.CheckAndInsert(ctx, Document{ID: "a", Text: a}); err != nil {
			t.Fatal(err)
		}
		r, err := e.CheckAndInsert(ctx, Document{ID: "b", Text: b})
		if err != nil {
			t.Fatal(err)
		}
		if fa, fb := e.fp.Fingerprint([]byte(a)), e.fp.Fingerprint([]byte(b)); k == 20 {
			if d, _ := Distance(fa, fb); d <= 18 {
				t.Fatalf("the pair is %d bits apart; the test needs more than 18", d)
			}
		}
		s := e.Stats()
		if !r.Duplicate || s.TinyWords != 12 || s.TinyK != 14 || s.ShortK != 10 {
			t.Errorf("K %d: duplicate %v, stats tiny words %d, tiny k %d, short k %d; want a duplicate and 12, 14, 10", k, r.Duplicate, s.TinyWords, s.TinyK, s.ShortK)
		}
		e.Close()
	}
}
