package neardup

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"unicode/utf8"
)

// TestEditLengthsOfEarlierStores checks a store written before the
// Levenshtein ratio left out punctuation: its records' lengths count the
// punctuation, so they are indexed as of unknown length (a tag of theirs
// would drop a copy that now passes), its index snapshot is not used, and
// the records written from then on are tagged with the ratio's lengths,
// in the snapshot and in a rebuild alike.
func TestEditLengthsOfEarlierStores(t *testing.T) {
	dir := t.TempDir()
	// "谢谢分享！！！！！！" is 10 runes with its punctuation, as earlier
	// releases counted it, and 4 without.
	old := []string{"谢谢分享！！！！！！", "好文章，赞！！！！！！！"}
	o := writeEarlierRecords(t, dir, old, utf8.RuneCountInString)
	check := func(stage string, e *Engine) {
		t.Helper()
		if n := unknownLengths(e); n != len(old) {
			t.Fatalf("%s: %d texts of unknown length, want the %d earlier ones", stage, n, len(old))
		}
		for i, text := range old {
			// 8 bits away, and the same text to the ratio: "~" is a
			// symbol.
			res, err := e.Check(context.Background(), Document{ID: "q", Text: text + "~"})
			if err != nil || !res.Duplicate || *res.DuplicateOf != fmt.Sprint("old", i) {
				t.Fatalf("%s: check of %q: %+v, %v", stage, text, res, err)
			}
		}
		res, err := e.Check(context.Background(), Document{ID: "q", Text: "新的文章!!!!!!!!!!~"})
		if err != nil || !res.Duplicate || *res.DuplicateOf != "new" {
			t.Fatalf("%s: check of the new text: %+v, %v", stage, res, err)
		}
	}
	e := mustOpen(t, dir, &o)
	v, err := e.db.Meta(editLengthsMeta)
	if err != nil || string(v) != strconv.Itoa(len(old)+1) {
		t.Fatalf("the store's %s is %q (%v), want %d: the counter after the earlier records", editLengthsMeta, v, err, len(old)+1)
	}
	res, err := e.CheckAndInsert(context.Background(), Document{ID: "new", Text: "新的文章!!!!!!!!!!"})
	if err != nil || !res.Inserted {
		t.Fatal(res, err)
	}
	// The snapshot written after the earlier records were marked loads.
	e = checkReopened(t, dir, &o, e, check)
	if v, err := e.db.Meta(editLengthsMeta); err != nil || string(v) != strconv.Itoa(len(old)+1) {
		t.Fatalf("after reopening, %s is %q (%v), want it unchanged", editLengthsMeta, v, err)
	}
}

// TestEditLengthsEarlierSnapshot checks that the index snapshot of a
// store from before the ratio's lengths is not loaded: its short texts'
// tags are of the earlier kind.
func TestEditLengthsEarlierSnapshot(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions()
	o.ExpiryInterval = -1
	e := mustOpen(t, dir, &o)
	if v, err := e.db.Meta(editLengthsMeta); err != nil || string(v) != "0" {
		t.Fatalf("a new store's %s is %q (%v), want 0", editLengthsMeta, v, err)
	}
	if _, err := e.CheckAndInsert(context.Background(), Document{ID: "a", Text: "a short text, with punctuation!"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, &o)
	if !e.fromSnapshot || unknownLengths(e) != 0 {
		t.Fatalf("reopened from the snapshot %v, with %d texts of unknown length; want true and 0", e.fromSnapshot, unknownLengths(e))
	}
	// As an earlier release leaves it: no entry.
	if err := e.db.SetMeta(editLengthsMeta, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = mustOpen(t, dir, &o)
	if e.fromSnapshot || unknownLengths(e) != 1 {
		t.Fatalf("a store without %s reopened from its snapshot %v, with %d texts of unknown length; want false and 1", editLengthsMeta, e.fromSnapshot, unknownLengths(e))
	}
}
