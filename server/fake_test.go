package server

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup"
)

// fakeEngine is an in-memory Engine for handler tests: two texts are
// duplicates when they are equal after lower-casing and folding white
// space. When block is not nil, CheckAndInsert waits for it to close, or
// for its context to end.
type fakeEngine struct {
	mu      sync.Mutex
	docs    map[string]neardup.Document
	byText  map[string]string
	block   chan struct{}
	entered chan struct{}
	calls   int
}

var _ Engine = (*fakeEngine)(nil)

func newFakeEngine() *fakeEngine {
	return &fakeEngine{docs: make(map[string]neardup.Document), byText: make(map[string]string)}
}

func fold(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

func (f *fakeEngine) decide(d neardup.Document, insert bool) (neardup.Result, error) {
	if strings.TrimSpace(d.Text) == "" {
		return neardup.Result{}, neardup.ErrEmptyText
	}
	if d.ID == "" {
		return neardup.Result{}, neardup.ErrEmptyID
	}
	f.calls++
	r := neardup.Result{ID: d.ID, Fingerprint: neardup.FromUint64(uint64(len(d.Text)))}
	if old, ok := f.byText[fold(d.Text)]; ok && old != d.ID {
		r.Duplicate, r.DuplicateOf, r.Similarity = true, &old, 1
		r.Matches = []neardup.Match{{ID: old, Similarity: 1, Duplicate: true, Scores: neardup.Scores{Jaccard: 1, Cosine: 1, Levenshtein: 1}}}
		return r, nil
	}
	if old, ok := f.docs[d.ID]; ok && old.Text != d.Text {
		return neardup.Result{}, fmt.Errorf("fake: %w: %q", neardup.ErrIDConflict, d.ID)
	}
	if insert {
		_, had := f.docs[d.ID]
		f.docs[d.ID] = d
		f.byText[fold(d.Text)] = d.ID
		r.Inserted = !had
	}
	return r, nil
}

func (f *fakeEngine) CheckAndInsert(ctx context.Context, d neardup.Document) (neardup.Result, error) {
	if f.block != nil {
		f.entered <- struct{}{}
		select {
		case <-f.block:
		case <-ctx.Done():
			return neardup.Result{}, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.decide(d, true)
}

func (f *fakeEngine) CheckAndInsertBatch(ctx context.Context, ds []neardup.Document) ([]neardup.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]neardup.Result, len(ds))
	errs := make([]error, len(ds))
	failed := false
	for i, d := range ds {
		out[i], errs[i] = f.decide(d, true)
		failed = failed || errs[i] != nil
	}
	if failed {
		return out, &neardup.BatchError{Errs: errs}
	}
	return out, nil
}

func (f *fakeEngine) Check(ctx context.Context, d neardup.Document) (neardup.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d.ID == "" {
		d.ID = "query"
	}
	return f.decide(d, false)
}

func (f *fakeEngine) Get(id string) (neardup.Document, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.docs[id]
	if !ok {
		return neardup.Document{}, fmt.Errorf("fake: %w: %q", neardup.ErrNotFound, id)
	}
	return d, nil
}

func (f *fakeEngine) Delete(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.docs[id]
	if !ok {
		return fmt.Errorf("fake: %w: %q", neardup.ErrNotFound, id)
	}
	delete(f.docs, id)
	delete(f.byText, fold(d.Text))
	return nil
}

// List pages through the documents in the order of their ids; a cursor
// is the index of the last one given, in hex.
func (f *fakeEngine) List(_ context.Context, o neardup.ListOptions) ([]neardup.StoredDocument, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := slices.Sorted(maps.Keys(f.docs))
	from := 0
	if o.After != "" {
		n, err := strconv.ParseUint(o.After, 16, 32)
		if err != nil {
			return nil, "", fmt.Errorf("fake: %w", neardup.ErrBadCursor)
		}
		from = int(n) + 1
	}
	var out []neardup.StoredDocument
	for i := from; i < len(ids) && len(out) < o.Limit; i++ {
		d := f.docs[ids[i]]
		if o.NoText {
			d.Text, d.Meta = "", nil
		}
		out = append(out, neardup.StoredDocument{Document: d, Fingerprint: neardup.FromUint64(uint64(i))})
	}
	if from+len(out) < len(ids) {
		return out, fmt.Sprintf("%016x", from+len(out)-1), nil
	}
	return out, "", nil
}

func (f *fakeEngine) Stats() neardup.Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return neardup.Stats{Documents: len(f.docs), Bits: 64, K: 3, Checks: uint64(f.calls)}
}

// memEngine opens a real engine with its store in memory, closed when the
// test ends.
func memEngine(tb testing.TB) *neardup.Engine {
	tb.Helper()
	opts := neardup.DefaultOptions()
	opts.InMemory = true
	e, err := neardup.Open("", &opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}
