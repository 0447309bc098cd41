package neardup

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestList checks that List pages through every document kept, in the
// store's order, each once, with its text, metadata, time and the
// fingerprint CheckAndInsert gave it; that documents past the retention
// window, deleted or not stored (duplicates) are not listed; and that bad
// cursors and limits are refused.
func TestList(t *testing.T) {
	o := DefaultOptions()
	o.Retention = 48 * time.Hour
	o.ExpiryInterval = -1 // the old document stays in the store, past the window
	var clock atomic.Int64
	clock.Store(time.Now().Add(-72 * time.Hour).Unix())
	o.Now = func() time.Time { return time.Unix(clock.Load(), 0) }
	e, err := Open(t.TempDir(), &o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Insert(ctx, Document{ID: "old", Text: "a document seen three days ago"}); err != nil {
		t.Fatal(err)
	}
	clock.Store(time.Now().Unix())
	want := map[string]Result{}
	var order []string
	for i := range 23 {
		d := Document{ID: fmt.Sprintf("doc-%02d", i), Text: fmt.Sprintf("document number %d says %s", i, strings.Repeat(fmt.Sprintf("w%d ", i*7), 5))}
		if i == 3 {
			d.Meta = []byte(`{"n":3}`)
		}
		r, err := e.CheckAndInsert(ctx, d)
		if err != nil || !r.Inserted {
			t.Fatalf("insert %s: %+v, %v", d.ID, r, err)
		}
		want[d.ID] = r
		order = append(order, d.ID)
	}
	// A duplicate is not stored, so not listed; a deleted document is not.
	if r, err := e.CheckAndInsert(ctx, Document{ID: "copy", Text: "document number 5 says w35 w35 w35 w35 w35 "}); err != nil || !r.Duplicate {
		t.Fatalf("the copy of doc-05: %+v, %v; want a duplicate", r, err)
	}
	if err := e.Delete("doc-07"); err != nil {
		t.Fatal(err)
	}
	order = slices.DeleteFunc(order, func(id string) bool { return id == "doc-07" })

	var got []string
	after, pages := "", 0
	for {
		docs, next, err := e.List(ctx, ListOptions{After: after, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, d := range docs {
			got = append(got, d.ID)
			r := want[d.ID]
			if d.Fingerprint != r.Fingerprint {
				t.Errorf("%s: fingerprint %v, want %v", d.ID, d.Fingerprint, r.Fingerprint)
			}
			if !strings.HasPrefix(d.Text, "document number ") || time.Since(d.Time) > time.Hour {
				t.Errorf("%s: text %q, time %v", d.ID, d.Text, d.Time)
			}
			if (d.ID == "doc-03") != (string(d.Meta) == `{"n":3}`) {
				t.Errorf("%s: meta %s", d.ID, d.Meta)
			}
		}
		if next == "" {
			break
		}
		if len(docs) != 10 {
			t.Fatalf("page %d holds %d documents and has a next cursor, want 10", pages, len(docs))
		}
		after = next
	}
	if !slices.Equal(got, order) || pages != 3 {
		t.Fatalf("List gave %q in %d pages, want %q in 3", got, pages, order)
	}

	docs, next, err := e.List(ctx, ListOptions{Limit: MaxListLimit, NoText: true})
	if err != nil || next != "" || len(docs) != len(order) || docs[0].Text != "" || docs[0].Meta != nil || docs[3].Meta != nil {
		t.Fatalf("List NoText: %d documents, next %q, %v; first %+v", len(docs), next, err, docs[0])
	}

	// The last place a cursor can name: a page of nothing, the last.
	if docs, next, err := e.List(ctx, ListOptions{After: "ffffffffffffffff", Limit: 5}); err != nil || len(docs) != 0 || next != "" {
		t.Errorf("List after ffffffffffffffff: %d documents, next %q, %v; want an empty last page", len(docs), next, err)
	}
	for _, bad := range []string{"zz", "0000000000000001x", "12"} {
		if _, _, err := e.List(ctx, ListOptions{After: bad, Limit: 5}); !errors.Is(err, ErrBadCursor) {
			t.Errorf("List after %q: %v, want ErrBadCursor", bad, err)
		}
	}
	for _, n := range []int{0, -1, MaxListLimit + 1} {
		if _, _, err := e.List(ctx, ListOptions{Limit: n}); err == nil || !strings.Contains(err.Error(), fmt.Sprint(n)) {
			t.Errorf("List limit %d: %v, want an error naming it", n, err)
		}
	}
}

// TestListPageBytes checks that a page of long texts ends once its texts
// reach maxListBytes, with a cursor to the rest, and that the pages still
// hold every document once.
func TestListPageBytes(t *testing.T) {
	o := DefaultOptions()
	o.InMemory = true
	e, err := Open("", &o)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r := rand.New(rand.NewPCG(1, 2))
	const n, size = 20, 1 << 20
	for i := range n {
		var b strings.Builder
		for b.Len() < size {
			fmt.Fprintf(&b, "w%d ", r.IntN(1_000_000))
		}
		if _, err := e.Insert(context.Background(), Document{ID: fmt.Sprint(i), Text: b.String()}); err != nil {
			t.Fatal(err)
		}
	}
	docs, next, err := e.List(context.Background(), ListOptions{Limit: 100})
	if err != nil || next == "" || len(docs) != maxListBytes/size {
		t.Fatalf("first page of %d texts of 1 MiB: %d documents, next %q, %v; want %d and a next", n, len(docs), next, err, maxListBytes/size)
	}
	rest, next, err := e.List(context.Background(), ListOptions{After: next, Limit: 100})
	if err != nil || next != "" || len(docs)+len(rest) != n || rest[0].ID != fmt.Sprint(len(docs)) {
		t.Fatalf("second page: %d documents from %q, next %q, %v; want the other %d", len(rest), rest[0].ID, next, err, n-len(docs))
	}
}
