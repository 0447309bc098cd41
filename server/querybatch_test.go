package server

import (
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

// TestQueryBatch checks that POST /v1/query/batch answers each query as
// POST /v1/query answers it alone, as a JSON array and as NDJSON, stores
// nothing, gives a refused text its own error, and refuses a malformed
// query whole, naming it. It runs on an engine that checks in batches
// (the real one) and on one that does not (the fake).
func TestQueryBatch(t *testing.T) {
	real := func(t *testing.T) Engine { return memEngine(t) }
	fake := func(t *testing.T) Engine { return newFakeEngine() }
	stored := []string{
		"The river flooded the old town overnight and the bridge was closed until the water went down.",
		"Breaking: markets fell sharply on Monday after the central bank raised its rates again.",
	}
	for _, c := range []struct {
		name   string
		engine func(t *testing.T) Engine
	}{{"engine", real}, {"fake", fake}} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(Options{MaxBatch: 6})
			if err != nil {
				t.Fatal(err)
			}
			e := c.engine(t)
			s.SetEngine(e)
			h := s.Handler()
			var fps []string
			for _, text := range stored {
				code, v := call(t, h, "POST", "/v1/documents", "", jsonString(map[string]string{"text": text}))
				if code != 200 {
					t.Fatalf("insert: %d %v", code, v)
				}
				fps = append(fps, v["fingerprint"].(string))
			}
			queries := []string{
				jsonString(map[string]string{"text": strings.ToUpper(stored[0])}),
				jsonString(map[string]string{"text": "Something else entirely, about gardens in the spring and what grows there."}),
				jsonString(map[string]any{"text": strings.Replace(stored[0], "went down", "went down again", 1), "k": 4}),
				jsonString(map[string]string{"text": stored[1]}),
			}
			if _, ok := e.(fingerprintQuerier); ok {
				queries = append(queries, jsonString(map[string]any{"fingerprint": fps[1], "k": 3}))
			}
			var want []any
			for _, q := range queries {
				code, v := call(t, h, "POST", "/v1/query", "", q)
				if code != 200 {
					t.Fatalf("query %s: %d %v", q, code, v)
				}
				want = append(want, v)
			}
			if !want[0].(map[string]any)["duplicate"].(bool) || want[1].(map[string]any)["duplicate"].(bool) {
				t.Fatalf("single queries: %v", want)
			}
			if _, ok := e.(*neardup.Engine); ok {
				// The copy "went down again" is 5 bits off: a duplicate,
				// but not a match within k 4, so not its duplicate_of.
				if w := want[2].(map[string]any); w["duplicate"] != false || w["duplicate_of"] != nil || len(w["matches"].([]any)) != 0 {
					t.Fatalf("query within k 4: %v", w)
				}
			}
			for _, b := range []struct{ ctype, body string }{
				{"", "[" + strings.Join(queries, ",") + "]"},
				{"application/x-ndjson", strings.Join(queries, "\n") + "\n"},
			} {
				code, v := call(t, h, "POST", "/v1/query/batch", b.ctype, b.body)
				if code != 200 {
					t.Fatalf("batch %q: %d %v", b.ctype, code, v)
				}
				if got := v["results"].([]any); !reflect.DeepEqual(got, want) {
					t.Fatalf("batch %q:\n got %v\nwant %v", b.ctype, got, want)
				}
			}
			// A blank, empty or missing text is refused alone: its result
			// is its error.
			code, v := call(t, h, "POST", "/v1/query/batch", "", `[{"text":"  "},`+queries[0]+`,{"text":""},{"k":3}]`)
			if code != 200 {
				t.Fatalf("blank text: %d %v", code, v)
			}
			rs := v["results"].([]any)
			if !reflect.DeepEqual(rs[1], want[0]) {
				t.Fatalf("the query after a blank text: %v", rs[1])
			}
			for _, i := range []int{0, 2, 3} {
				if r := rs[i].(map[string]any); errorCode(r) != "missing_text" || len(r) != 1 {
					t.Errorf("query %d without a text: %v, want only a missing_text error", i, r)
				}
			}
			if code, v = call(t, h, "GET", "/v1/stats", "", ""); v["documents"] != float64(len(stored)) {
				t.Fatalf("stats after the queries: %d %v, want %d documents", code, v, len(stored))
			}
			for _, bad := range []struct {
				body, code, says string
				status           int
			}{
				{`[]`, "bad_request", "no queries", 400},
				{`[{"text":"a"},{"text":"a","fingerprint":"0000000000000000"}]`, "bad_request", "query 1: ", 400},
				{`[{"text":"a"},{"text":"b","k":-2}]`, "bad_request", "query 1: ", 400},
				{`[{"text":"a"},{"fingerprint":"xyz"}]`, "bad_request", "query 1: ", 400},
				{"{\"text\":\"a\"}\n{\"txt\":\"b\"}", "unknown_field", "line 2: ", 400},
				{"{\"text\":\"a\"}\n\n{\"fingerprint\":\"xyz\"}", "bad_request", "line 3: ", 400},
				{`[{"text":"a"}]]`, "bad_json", "unexpected data after the JSON array, at byte 15", 400},
				{`[{"text":"a"}] trailing`, "bad_json", "unexpected data after the JSON array, at byte 16", 400},
				{`[{"text":"a"}`, "bad_json", "truncated", 400},
				{`[{"text":"a"},{"text":"a"},{"text":"a"},{"text":"a"},{"text":"a"},{"text":"a"},{"text":"a"}]`, "batch_too_large", "more than 6 queries", 413},
			} {
				code, v := call(t, h, "POST", "/v1/query/batch", "", bad.body)
				msg, _ := v["error"].(map[string]any)["message"].(string)
				if code != bad.status || errorCode(v) != bad.code || !strings.Contains(msg, bad.says) {
					t.Errorf("%s: %d %v, want %d %s saying %q", bad.body, code, v, bad.status, bad.code, bad.says)
				}
			}
			if _, ok := e.(fingerprintQuerier); !ok {
				code, v := call(t, h, "POST", "/v1/query/batch", "", `[{"fingerprint":"0000000000000000"}]`)
				if code != 501 || errorCode(v) != "not_implemented" {
					t.Errorf("fingerprint query to an engine without them: %d %v", code, v)
				}
			}
		})
	}
}

// TestQueryTextTooLarge checks that a query's text over the engine's
// limit is refused, alone and in a batch, with a message that names the
// text and its size, not the empty id a query has.
func TestQueryTextTooLarge(t *testing.T) {
	opts := neardup.DefaultOptions()
	opts.MaxTextBytes = 100
	h := engineHandler(t, opts)
	big := jsonString(map[string]string{"text": strings.Repeat("word ", 20) + "x"})
	const says = "text too large: the text has 101 bytes, limit 100"
	code, v := call(t, h, "POST", "/v1/query", "", big)
	if msg, _ := v["error"].(map[string]any)["message"].(string); code != 413 || errorCode(v) != "text_too_large" || msg != says {
		t.Errorf("/v1/query: %d %v, want 413 text_too_large %q", code, v, says)
	}
	code, v = call(t, h, "POST", "/v1/query/batch", "", `[{"text":"a small one"},`+big+`]`)
	rs, _ := v["results"].([]any)
	if code != 200 || len(rs) != 2 {
		t.Fatalf("/v1/query/batch: %d %v", code, v)
	}
	r := rs[1].(map[string]any)
	if msg, _ := r["error"].(map[string]any)["message"].(string); errorCode(r) != "text_too_large" || msg != says {
		t.Errorf("/v1/query/batch: the large text's result %v, want text_too_large %q", r, says)
	}
}
