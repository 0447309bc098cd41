package server

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzHandler sends arbitrary requests to every route, of a fake engine
// and of a real one: no request may make a handler panic (which the
// server would answer with 500), and every
// answer to an API route must be JSON, an error in the documented shape
// when the status is not 2xx.
func FuzzHandler(f *testing.F) {
	seeds := []struct {
		method uint8
		path   string
		ctype  string
		body   string
	}{
		{0, "/v1/documents", "application/json", `{"id":"a","text":"hello world","meta":{"k":[1,2]}}`},
		{0, "/v1/documents", "", `{"text":"hello","time":"2026-01-02T03:04:05Z"}`},
		{0, "/v1/documents/batch", "application/x-ndjson", "{\"text\":\"a\"}\n{\"text\":\"b\"}\n"},
		{0, "/v1/documents/batch", "", `[{"text":"a"},{"text":"A"}]`},
		{0, "/v1/query", "", `{"text":"hello","k":3}`},
		{0, "/v1/query", "", `{"fingerprint":"0123456789abcdef"}`},
		{0, "/v1/query/batch", "", `[{"text":"hello","k":3},{"fingerprint":"0123456789abcdef"},{"text":" "}]`},
		{0, "/v1/query/batch", "application/x-ndjson", "{\"text\":\"a\"}\n{\"fingerprint\":\"00\"}\n"},
		{0, "/v1/compare", "", `{"a":"x y z","b":"x y","profile":"classic","bits":128}`},
		{0, "/v1/fingerprint", "", `{"text":"x","algo":"nilsimsa"}`},
		{1, "/v1/documents/a", "", ``},
		{1, "/v1/documents?limit=2&after=0000000000000001", "", ``},
		{1, "/v1/documents?text=false&after=ffffffffffffffff", "", ``},
		{2, "/v1/documents/a", "", ``},
		{1, "/v1/stats", "", ``},
		{1, "/static/../server.go", "", ``},
		{0, "/v1/documents", "", "{\"text\":\"\\ud800\"}"},
		{0, "/v1/documents/batch", "", `[{"text":"a"}]] `},
		{0, "/v1/query/batch", "", `[{"text":""},{"k":2}] x`},
		{0, "/v1/documents", "", `{"text":"a","time":"2999-01-01T00:00:00Z"}`},
		{0, "/v1/fingerprint", "", `{"text":" ","algo":"nilsimsa","bits":64}`},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.ctype, []byte(s.body))
	}
	// Each request goes to a server of the fake engine, which answers
	// every route, and to one of a real engine in memory, whose own
	// checks and errors the fake's do not stand for.
	mem := memEngine(f)
	type target struct {
		engine string
		h      http.Handler
	}
	var targets []target
	for _, e := range []struct {
		name string
		e    Engine
	}{{"fake engine", newFakeEngine()}, {"real engine", mem}} {
		srv, err := New(Options{MaxBody: 1 << 16, MaxBatch: 50})
		if err != nil {
			f.Fatal(err)
		}
		srv.SetEngine(e.e)
		targets = append(targets, target{e.name, srv.Handler()})
	}
	methods := []string{"POST", "GET", "DELETE", "PUT", "HEAD"}
	f.Fuzz(func(t *testing.T, method uint8, path, ctype string, body []byte) {
		u, err := url.ParseRequestURI(path)
		if err != nil || !strings.HasPrefix(path, "/") {
			return // not a request target a client could send
		}
		for _, tg := range targets {
			req := httptest.NewRequest(methods[int(method)%len(methods)], "/", strings.NewReader(string(body)))
			req.URL, req.RequestURI = u, path
			if ctype != "" && !strings.ContainsAny(ctype, "\r\n") {
				req.Header.Set("Content-Type", ctype)
			}
			w := httptest.NewRecorder()
			tg.h.ServeHTTP(w, req)
			if w.Code == 500 {
				t.Fatalf("%s: %s %s %q: 500: %s", tg.engine, req.Method, path, body, w.Body.String())
			}
			if !strings.HasPrefix(path, "/v1/") || req.Method == "HEAD" || strings.HasPrefix(path, "/v1/openapi") || w.Code/100 == 3 {
				continue // not an API answer, or a redirect to the cleaned path
			}
			var v map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
				t.Fatalf("%s: %s %s: answer is not a JSON object: %q", tg.engine, req.Method, path, w.Body.String())
			}
			if w.Code >= 300 {
				e, _ := v["error"].(map[string]any)
				if code, _ := e["code"].(string); code == "" {
					t.Fatalf("%s: %s %s: %d without an error code: %v", tg.engine, req.Method, path, w.Code, v)
				}
			}
		}
	})
}
