package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/server"
)

// memHandler returns the handler of a server of opts over an in-memory
// engine, closed when the test ends.
func memHandler(t *testing.T, opts server.Options) http.Handler {
	t.Helper()
	eopts := neardup.DefaultOptions()
	eopts.InMemory = true
	engine, err := neardup.Open("", &eopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	s, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(engine)
	return s.Handler()
}

// TestGzipServer checks that a neardup server answers a client made by
// Gzip as it answers one that does not compress: a batch with a near-copy
// in it, and a query for it.
func TestGzipServer(t *testing.T) {
	var zipped atomic.Int64
	h := memHandler(t, server.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Encoding") == "gzip" {
			zipped.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()

	ctx := context.Background()
	c := client.New(srv.URL, nil).Gzip(0)
	text := strings.Repeat("Clients post documents as they arrive and learn at once whether each is new. ", 3)
	res, err := c.Batch(ctx, []client.Document{
		{ID: "a", Text: text},
		{ID: "b", Text: "Another text, about something else entirely, with other words in it."},
		{ID: "c", Text: text + " Again."},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || res[0].Duplicate || res[1].Duplicate || !res[2].Duplicate || *res[2].DuplicateOf != "a" {
		t.Fatalf("results %+v; want c a duplicate of a, the others new", res)
	}
	q, err := c.Query(ctx, client.Query{Text: text})
	if err != nil || len(q.Matches) == 0 || q.Matches[0].ID != "a" {
		t.Fatalf("query: %+v, %v; want a match of a", q, err)
	}
	if zipped.Load() != 2 {
		t.Errorf("%d requests sent with gzip, want 2", zipped.Load())
	}
}

// TestBatchAllServer checks BatchAll against a server with small limits,
// which it learns from the server's stats: every document is decided, in
// order, and a near-copy in a later request is found a duplicate of one
// sent in an earlier one.
func TestBatchAllServer(t *testing.T) {
	srv := httptest.NewServer(memHandler(t, server.Options{MaxBatch: 40, MaxBody: 16 << 10}))
	defer srv.Close()
	var ds []client.Document
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		var b strings.Builder
		for range 30 {
			for range 3 + r.IntN(6) {
				b.WriteByte(byte('a' + r.IntN(26)))
			}
			b.WriteByte(' ')
		}
		ds = append(ds, client.Document{ID: fmt.Sprint("d", i), Text: b.String()})
	}
	first := strings.Repeat("A text that is posted early and copied much later, near the end of the run. ", 2)
	ds[5].Text, ds[290].Text = first, first+"Again."
	res, err := client.New(srv.URL, nil).BatchAll(context.Background(), ds, 0, 0) // the server's limits
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(ds) || res[290].DuplicateOf == nil || *res[290].DuplicateOf != "d5" {
		t.Fatalf("%d results; d290's: %+v; want all and d290 a duplicate of d5", len(res), res[290])
	}
	st, err := client.New(srv.URL, nil).Stats(context.Background())
	if err != nil || st.Documents != 299 {
		t.Errorf("%d documents stored (%v), want 299", st.Documents, err)
	}
}

// TestStatsFields checks that Stats has a field for every one that
// GET /v1/stats answers, from a server whose engine fills in those it
// leaves out when empty (a pipeline, the policy's switches, deletion
// keys), so that the client gives all that the server reports.
func TestStatsFields(t *testing.T) {
	eopts := neardup.DefaultOptions()
	eopts.InMemory = true
	eopts.Fingerprint.Pipeline = &neardup.Pipeline{HTML: true}
	eopts.Policy.DistinctNumbers = true
	eopts.Policy.DistinctNegation = true
	engine, err := neardup.Open("", &eopts)
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	s, err := server.New(server.Options{Fingerprint: eopts.Fingerprint})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(engine)
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	ctx := context.Background()
	c := client.New(srv.URL, nil)
	if _, err := c.CheckAndInsert(ctx, client.Document{ID: "a", Text: "a tiny text of a few words"}); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL + "/v1/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var answer map[string]json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Fatal(err)
	}
	fields := map[string]bool{}
	for f := range reflect.TypeFor[client.Stats]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fields[name] = true
	}
	for name := range answer {
		if !fields[name] {
			t.Errorf("the server answers %q, which client.Stats has no field for", name)
		}
	}
	st, err := c.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pipeline != "HTML=true" || !st.DistinctNumbers || !st.DistinctNegation || st.TinyWords != 12 || st.DeletionKeys == 0 {
		t.Errorf("stats %+v; want pipeline HTML=true, both switches on, tiny words 12 and deletion keys", st)
	}
}
