package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestErrors checks how answers that are not 2xx become *Error values.
func TestErrors(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		code     string
		notFound bool
	}{
		{"json error", 404, `{"error":{"code":"not_found","message":"no such id"}}`, "not_found", true},
		{"no route", 404, `{"error":{"code":"no_route","message":"no route for GET /nope/v1/documents/x"}}`, "no_route", false},
		{"overloaded", 429, `{"error":{"code":"overloaded","message":"retry"}}`, "overloaded", false},
		{"plain text", 502, "bad gateway\n", "http_502", false},
		{"json without error", 500, `{"x":1}`, "http_500", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			_, err := New(srv.URL, nil).Get(context.Background(), "a/b")
			var e *Error
			if !errors.As(err, &e) || e.Status != tt.status || e.Code != tt.code || e.Message == "" {
				t.Fatalf("got %#v", err)
			}
			if errors.Is(err, ErrNotFound) != tt.notFound {
				t.Errorf("errors.Is(ErrNotFound) = %v", !tt.notFound)
			}
		})
	}
}

// TestPathEscape checks that ids are escaped into the path.
func TestPathEscape(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.EscapedPath()
		w.Write([]byte(`{"id":"x"}`))
	}))
	defer srv.Close()
	if _, err := New(srv.URL+"/", nil).Get(context.Background(), "a/b c?"); err != nil {
		t.Fatal(err)
	}
	if got != "/v1/documents/a%2Fb%20c%3F" {
		t.Errorf("path %q", got)
	}
	// Dot segments, which a client or server would resolve away.
	for id, want := range map[string]string{".": "/v1/documents/%2E", "..": "/v1/documents/%2E%2E", "a.b": "/v1/documents/a.b", "...": "/v1/documents/%2E%2E%2E"} {
		if _, err := New(srv.URL, nil).Get(context.Background(), id); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("id %q: path %q, want %q", id, got, want)
		}
	}
}

// TestNothingToSend checks that an empty batch is answered without a
// request (a nil slice would be sent as null), and that a text or id that
// is not UTF-8 is refused before it is sent.
func TestNothingToSend(t *testing.T) {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		w.Write([]byte(`{"results":[{"id":"a"}]}`))
	}))
	defer srv.Close()
	c := New(srv.URL, nil)
	ctx := context.Background()
	if rs, err := c.Batch(ctx, nil); rs != nil || err != nil {
		t.Errorf("Batch(nil) = %v, %v", rs, err)
	}
	if rs, err := c.QueryBatch(ctx, []Query{}); rs != nil || err != nil {
		t.Errorf("QueryBatch([]) = %v, %v", rs, err)
	}
	if _, err := c.CheckAndInsert(ctx, Document{ID: "a\xffz", Text: "text"}); !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("an id with a bad byte: %v, want ErrInvalidUTF8", err)
	}
	if _, err := c.Batch(ctx, []Document{{Text: "fine"}, {Text: "bad \xfe byte"}}); !errors.Is(err, ErrInvalidUTF8) || !strings.Contains(err.Error(), "document 1's text has an invalid byte at offset 4") {
		t.Errorf("a text with a bad byte: %v, want ErrInvalidUTF8 naming it", err)
	}
	if _, err := c.Query(ctx, Query{Text: "bad \xfe"}); !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("a query with a bad byte: %v, want ErrInvalidUTF8", err)
	}
	if _, err := c.Get(ctx, "a\xff"); !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("Get of an id with a bad byte: %v, want ErrInvalidUTF8", err)
	}
	if err := c.Delete(ctx, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Delete of the empty id: %v, want ErrNotFound", err)
	}
	// Valid texts that hold U+FFFD, or the six characters of its JSON
	// escape, or JSON meta with that escape, are sent.
	for _, d := range []Document{
		{Text: "a valid \ufffd replacement character"},
		{Text: `written "\ufffd" in JSON`},
		{Text: "meta", Meta: []byte(`{"a":"\ufffd"}`)},
	} {
		if _, err := c.CheckAndInsert(ctx, d); err != nil {
			t.Errorf("%+v: %v", d, err)
		}
	}
	if requests != 3 {
		t.Errorf("%d requests sent, want 3 (the valid texts)", requests)
	}
}

// TestRetryAfter checks that an error answer's Retry-After header is in
// the *Error, and that a base URL with a query is refused before anything
// is sent.
func TestRetryAfter(t *testing.T) {
	requests := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests++
		if r.URL.Path == "/v1/stats" {
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"code":"overloaded","message":"retry"}}`))
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":{"code":"store_failed","message":"restart"}}`))
	}))
	defer srv.Close()
	ctx := context.Background()
	var e *Error
	if _, err := New(srv.URL, nil).Stats(ctx); !errors.As(err, &e) || e.RetryAfter != 3*time.Second {
		t.Errorf("429 with Retry-After 3: %#v", err)
	}
	if _, err := New(srv.URL, nil).Query(ctx, Query{Text: "x"}); !errors.As(err, &e) || e.RetryAfter != 0 {
		t.Errorf("503 without Retry-After: %#v", err)
	}
	if _, err := New(srv.URL+"/?x=1", nil).Stats(ctx); err == nil || !strings.Contains(err.Error(), "query") {
		t.Errorf("a base URL with a query: %v", err)
	}
	if requests != 2 {
		t.Errorf("%d requests, want 2", requests)
	}
}

// TestBatchCount checks that a batch answer of the wrong length is an error.
func TestBatchCount(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"results":[{"id":"a"}]}`))
	}))
	defer srv.Close()
	if _, err := New(srv.URL, nil).Batch(context.Background(), []Document{{Text: "a"}, {Text: "b"}}); err == nil {
		t.Error("no error for 1 result to 2 documents")
	}
	if _, err := New(srv.URL, nil).QueryBatch(context.Background(), []Query{{Text: "a"}, {Text: "b"}}); err == nil {
		t.Error("no error for 1 result to 2 queries")
	}
}

// TestScoresNotComputed checks that scores a server sends as null (serve
// --scores rule computes only the policy's measure) are told from scores
// of 0, read as 0, and written back as null; numbers, 0 included, are
// computed.
func TestScoresNotComputed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"fingerprint":"00","duplicate":true,"duplicate_of":"a","matches":[` +
			`{"id":"a","distance":2,"similarity":0.9,"scores":{"jaccard":null,"cosine":null,"levenshtein":0.9},"duplicate":true},` +
			`{"id":"b","distance":3,"similarity":0.5,"scores":{"jaccard":0.5,"cosine":0,"levenshtein":0.25},"duplicate":true}]}`))
	}))
	defer srv.Close()
	res, err := New(srv.URL, nil).Query(context.Background(), Query{Text: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 2 {
		t.Fatalf("matches %+v", res.Matches)
	}
	rule, all := res.Matches[0].Scores, res.Matches[1].Scores
	for m, want := range map[string]bool{"jaccard": false, "cosine": false, "levenshtein": true, "other": false} {
		if got := rule.Computed(m); got != want {
			t.Errorf("rule scores: Computed(%q) = %v, want %v", m, got, want)
		}
	}
	if rule.Jaccard != 0 || rule.Cosine != 0 || rule.Levenshtein != 0.9 {
		t.Errorf("rule scores %+v", rule)
	}
	for _, m := range []string{"jaccard", "cosine", "levenshtein"} {
		if !all.Computed(m) {
			t.Errorf("scores with numbers: Computed(%q) = false", m)
		}
	}
	if all.Jaccard != 0.5 || all.Cosine != 0 || all.Levenshtein != 0.25 {
		t.Errorf("scores %+v", all)
	}
	for _, tt := range []struct {
		s    Scores
		want string
	}{
		{rule, `{"jaccard":null,"cosine":null,"levenshtein":0.9}`},
		{all, `{"jaccard":0.5,"cosine":0,"levenshtein":0.25}`},
		{Scores{Jaccard: 1}, `{"jaccard":1,"cosine":0,"levenshtein":0}`},
	} {
		b, err := json.Marshal(tt.s)
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tt.s, b, err, tt.want)
		}
	}
}
