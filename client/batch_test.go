package client

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestBatchAll checks that BatchAll splits documents into requests within
// both limits (given, or the server's own when it says them), posts them
// in order and returns every result in order; that
// a document too large for any request is refused before anything is
// sent; and that a failed request stops it, with the results before it.
func TestBatchAll(t *testing.T) {
	var sizes, counts []int
	failAt := -1
	stats := `{}` // a server that does not say its limits
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/stats" {
			w.Write([]byte(stats))
			return
		}
		body, _ := io.ReadAll(r.Body)
		var ds []Document
		if err := json.Unmarshal(body, &ds); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(counts) == failAt {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"code":"overloaded","message":"busy"}}`))
			return
		}
		sizes, counts = append(sizes, len(body)), append(counts, len(ds))
		var out struct {
			Results []Result `json:"results"`
		}
		for _, d := range ds {
			out.Results = append(out.Results, Result{ID: d.ID})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	c := New(srv.URL, nil)
	ds := batchDocs(1000)
	one, _ := json.Marshal(ds[0])
	maxBytes := 20 * len(one)
	res, err := c.BatchAll(context.Background(), ds, 64, maxBytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(ds) {
		t.Fatalf("%d results for %d documents", len(res), len(ds))
	}
	for i, r := range res {
		if r.ID != ds[i].ID {
			t.Fatalf("result %d is of %q, want %q", i, r.ID, ds[i].ID)
		}
	}
	total := 0
	for i := range sizes {
		if sizes[i] > maxBytes || counts[i] > 64 {
			t.Errorf("request %d: %d documents in %d bytes, over the limits", i, counts[i], sizes[i])
		}
		total += counts[i]
	}
	if total != len(ds) || len(sizes) < len(ds)/20 {
		t.Errorf("%d requests holding %d documents", len(sizes), total)
	}
	// With the count the limit: requests of exactly that many.
	sizes, counts = nil, nil
	if _, err := c.BatchAll(context.Background(), ds[:130], 50, 0); err != nil || !slices.Equal(counts, []int{50, 50, 30}) {
		t.Errorf("130 documents, 50 a request: requests of %v, %v", counts, err)
	}

	// Limits of 0: the server's own, from its stats.
	sizes, counts, stats = nil, nil, `{"max_batch":25,"max_body_bytes":1000000}`
	if _, err := c.BatchAll(context.Background(), ds[:60], 0, 0); err != nil || !slices.Equal(counts, []int{25, 25, 10}) {
		t.Errorf("60 documents to a server of 25 a batch: requests of %v, %v", counts, err)
	}
	stats = `{}`

	big := []Document{{ID: "big", Text: strings.Repeat("word ", 1000)}}
	sizes, counts = nil, nil
	if _, err := c.BatchAll(context.Background(), append(ds[:3:3], big...), 64, 1000); err == nil || !strings.Contains(err.Error(), "document 3 is") || len(counts) != 0 {
		t.Errorf("a document over the limit: %v, %d requests sent; want an error naming it and none sent", err, len(counts))
	}

	sizes, counts, failAt = nil, nil, 2
	res, err = c.BatchAll(context.Background(), ds[:300], 50, 0)
	var e *Error
	if !errors.As(err, &e) || e.Code != "overloaded" || len(res) != 100 || !strings.Contains(err.Error(), "the 100 before were decided") {
		t.Errorf("a failed third request: %d results, %v; want 100 and the server's error", len(res), err)
	}
}
