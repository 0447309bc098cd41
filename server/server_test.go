package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
)

// newTestServer returns a server with a fake engine and its handler.
func newTestServer(t *testing.T, opts Options) (*Server, *fakeEngine) {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e := newFakeEngine()
	s.SetEngine(e)
	return s, e
}

// engineHandler returns the handler of a server (default options) over a
// real engine of the options eo, kept in memory and closed at the test's
// end.
func engineHandler(t *testing.T, eo neardup.Options) http.Handler {
	t.Helper()
	eo.InMemory = true
	e, err := neardup.Open("", &eo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(e)
	return s.Handler()
}

// call serves one request and returns the status and the decoded JSON body.
func call(t *testing.T, h http.Handler, method, path, contentType, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var v map[string]any
	if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s %s: body is not a JSON object: %v: %q", method, path, err, w.Body.String())
		}
	}
	return w.Code, v
}

func errorCode(v map[string]any) string {
	e, _ := v["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

func TestErrors(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxBody: 1 << 10, MaxBatch: 3})
	h := s.Handler()
	// Store one document for the 404/200 cases below.
	if code, v := call(t, h, "POST", "/v1/documents", "", `{"id":"x","text":"kept"}`); code != 200 {
		t.Fatalf("insert: %d %v", code, v)
	}
	big := `{"text":"` + strings.Repeat("a", 2<<10) + `"}`
	tests := []struct {
		name, method, path, ctype, body string
		status                          int
		code                            string
	}{
		{"malformed", "POST", "/v1/documents", "", `{"text":`, 400, "bad_json"},
		{"unquoted Chinese", "POST", "/v1/documents", "", `{"text":中文}`, 400, "bad_json"},
		{"not an object", "POST", "/v1/documents", "", `[1,2]`, 400, "bad_json"},
		{"wrong type", "POST", "/v1/documents", "", `{"text":5}`, 400, "bad_json"},
		{"trailing data", "POST", "/v1/documents", "", `{"text":"a"} {}`, 400, "bad_json"},
		{"empty body", "POST", "/v1/documents", "", ``, 400, "bad_json"},
		{"missing text", "POST", "/v1/documents", "", `{"id":"a"}`, 400, "missing_text"},
		{"empty text", "POST", "/v1/documents", "", `{"text":""}`, 400, "missing_text"},
		{"blank text", "POST", "/v1/documents", "", `{"text":"  "}`, 400, "missing_text"},
		{"unknown field", "POST", "/v1/documents", "", `{"text":"a","txt":"b"}`, 400, "unknown_field"},
		{"invalid utf-8", "POST", "/v1/documents", "", "{\"text\":\"a\xff\"}", 400, "invalid_utf8"},
		{"too large", "POST", "/v1/documents", "", big, 413, "body_too_large"},
		{"too large chunked", "POST", "/v1/documents", "chunked", big, 413, "body_too_large"},
		{"batch too many", "POST", "/v1/documents/batch", "", `[{"text":"a"},{"text":"b"},{"text":"c"},{"text":"d"}]`, 413, "batch_too_large"},
		{"batch ndjson too many", "POST", "/v1/documents/batch", "", "{\"text\":\"a\"}\n{\"text\":\"b\"}\n{\"text\":\"c\"}\n{\"text\":\"d\"}\n", 413, "batch_too_large"},
		{"batch empty", "POST", "/v1/documents/batch", "", `[]`, 400, "bad_request"},
		{"batch bad line", "POST", "/v1/documents/batch", "", "{\"text\":\"a\"}\n{\"tex\":\"b\"}\n", 400, "unknown_field"},
		{"batch unclosed", "POST", "/v1/documents/batch", "", `[{"text":"a"}`, 400, "bad_json"},
		{"batch trailing data", "POST", "/v1/documents/batch", "", `[{"text":"a"}]]`, 400, "bad_json"},
		{"batch null", "POST", "/v1/documents/batch", "", `null`, 400, "bad_json"},
		{"document null", "POST", "/v1/documents", "", ` null `, 400, "bad_json"},
		{"query null", "POST", "/v1/query", "", `null`, 400, "bad_json"},
		{"query batch null item", "POST", "/v1/query/batch", "", `[{"text":"a"},null]`, 400, "bad_json"},
		{"batch null element", "POST", "/v1/documents/batch", "", `[{"text":"a"},null]`, 400, "bad_json"},
		{"batch element not an object", "POST", "/v1/documents/batch", "", `[{"text":"a"},3]`, 400, "bad_json"},
		{"get unknown", "GET", "/v1/documents/nope", "", ``, 404, "not_found"},
		{"delete unknown", "DELETE", "/v1/documents/nope", "", ``, 404, "not_found"},
		{"id conflict", "POST", "/v1/documents", "", `{"id":"x","text":"other"}`, 409, "id_conflict"},
		{"query both", "POST", "/v1/query", "", `{"text":"a","fingerprint":"0000000000000000"}`, 400, "bad_request"},
		{"query neither", "POST", "/v1/query", "", `{}`, 400, "missing_text"},
		{"query bad fingerprint", "POST", "/v1/query", "", `{"fingerprint":"xyz"}`, 400, "bad_request"},
		{"query negative k", "POST", "/v1/query", "", `{"text":"a","k":-1}`, 400, "bad_request"},
		{"query fractional k", "POST", "/v1/query", "", `{"text":"a","k":1.5}`, 400, "bad_json"},
		{"compare missing b", "POST", "/v1/compare", "", `{"a":"x"}`, 400, "bad_request"},
		{"compare unknown profile", "POST", "/v1/compare", "", `{"a":"x","b":"y","profile":"nope"}`, 400, "bad_request"},
		{"compare empty a", "POST", "/v1/compare", "", `{"a":"","b":"y"}`, 400, "missing_text"},
		{"compare blank b", "POST", "/v1/compare", "", `{"a":"x","b":" \n"}`, 400, "missing_text"},
		{"fingerprint missing text", "POST", "/v1/fingerprint", "", `{"profile":"classic"}`, 400, "missing_text"},
		{"fingerprint blank text", "POST", "/v1/fingerprint", "", `{"text":"  "}`, 400, "missing_text"},
		{"fingerprint invisible text", "POST", "/v1/fingerprint", "", `{"text":"\u00ad\u200b"}`, 400, "missing_text"},
		{"compare invisible b", "POST", "/v1/compare", "", `{"a":"x","b":"\u200b\u2060"}`, 400, "missing_text"},
		{"fingerprint nilsimsa at 64 bits", "POST", "/v1/fingerprint", "", `{"text":"x","algo":"nilsimsa","bits":64}`, 400, "bad_request"},
		{"compare nilsimsa at 128 bits", "POST", "/v1/compare", "", `{"a":"x","b":"y","profile":"nilsimsa","bits":128}`, 400, "bad_request"},
		{"fingerprint bad algo", "POST", "/v1/fingerprint", "", `{"text":"x","algo":"md5"}`, 400, "bad_request"},
		{"fingerprint bad width", "POST", "/v1/fingerprint", "", `{"text":"x","bits":100}`, 400, "bad_request"},
		{"fingerprint contradiction", "POST", "/v1/fingerprint", "", `{"text":"x","algo":"nilsimsa","profile":"classic"}`, 400, "bad_request"},
		{"unknown route", "GET", "/v2/nothing", "", ``, 404, "no_route"},
		{"wrong method", "PATCH", "/v1/documents", "", ``, 405, "method_not_allowed"},
		{"wrong method on id", "PUT", "/v1/documents/x", "", ``, 405, "method_not_allowed"},
	}
	// How some messages must begin: the value and the field at fault, in
	// JSON's terms rather than Go's.
	says := map[string]string{
		"not an object":                   "expected an object, got JSON array",
		"wrong type":                      `"text": expected a string, got JSON number`,
		"batch element not an object":     "document 1: expected an object, got JSON number",
		"query fractional k":              `"k": expected an integer, got JSON number 1.5`,
		"compare unknown profile":         `no profile is called "nope" (known: default, classic, `,
		"fingerprint bad width":           `profile "default" makes 64- or 128-bit fingerprints, not 100-bit`,
		"fingerprint nilsimsa at 64 bits": `"bits": profile "nilsimsa" makes 256-bit fingerprints, not 64-bit`,
		"compare empty a":                 `"a" is empty`,
		"unquoted Chinese":                "malformed JSON at byte 9: invalid character '中' looking for beginning of value",
		"compare invisible b":             `"b" has no visible text`,
		"batch unclosed":                  "the JSON array is truncated after document 0",
		"batch trailing data":             "unexpected data after the JSON array, at byte 15",
		"batch null":                      "line 1: expected an object, got JSON null",
		"document null":                   "expected an object, got JSON null",
		"query null":                      "expected an object, got JSON null",
		"query batch null item":           "query 1: expected an object, got JSON null",
		"batch null element":              "document 1: expected an object, got JSON null",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			if tt.ctype == "chunked" {
				req.ContentLength = -1
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			var v map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
				t.Fatalf("error body is not JSON: %q", w.Body.String())
			}
			if w.Code != tt.status || errorCode(v) != tt.code {
				t.Errorf("got %d %v, want %d %s", w.Code, v, tt.status, tt.code)
			}
			msg, _ := v["error"].(map[string]any)["message"].(string)
			if msg == "" {
				t.Errorf("error without a message: %v", v)
			}
			if !strings.HasPrefix(msg, says[tt.name]) {
				t.Errorf("message %q, want it to begin %q", msg, says[tt.name])
			}
			// Go's names for the server's types and the decoder are not
			// shown to the client. (The fake engine's errors name it on
			// purpose, to test that errors are matched however wrapped.)
			for _, goName := range []string{"server.", "json:", "reflect", "*int"} {
				if strings.Contains(msg, goName) {
					t.Errorf("message %q names %q", msg, goName)
				}
			}
		})
	}
}

func TestDocumentLifecycle(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	code, v := call(t, h, "POST", "/v1/documents", "", `{"text":"The quick brown fox","meta":{"url":"http://a"}}`)
	if code != 200 || v["duplicate"] != false || v["duplicate_of"] != nil || v["inserted"] != true {
		t.Fatalf("first insert: %d %v", code, v)
	}
	id, _ := v["id"].(string)
	if id == "" {
		t.Fatalf("no id assigned: %v", v)
	}
	if _, ok := v["matches"].([]any); !ok {
		t.Errorf("matches is not an array: %v", v)
	}
	code, v = call(t, h, "POST", "/v1/documents", "", `{"id":"copy","text":"the  QUICK brown fox"}`)
	if code != 200 || v["duplicate"] != true || v["duplicate_of"] != id || v["inserted"] != false {
		t.Fatalf("copy: %d %v", code, v)
	}
	code, v = call(t, h, "POST", "/v1/query", "", `{"text":"the quick brown FOX"}`)
	if code != 200 || len(v["matches"].([]any)) != 1 {
		t.Fatalf("query: %d %v", code, v)
	}
	code, v = call(t, h, "GET", "/v1/documents/"+id, "", "")
	if code != 200 || v["text"] != "The quick brown fox" || v["meta"].(map[string]any)["url"] != "http://a" {
		t.Fatalf("get: %d %v", code, v)
	}
	if code, v = call(t, h, "GET", "/v1/documents/copy", "", ""); code != 404 {
		t.Fatalf("a duplicate was stored: %d %v", code, v)
	}
	if code, v = call(t, h, "GET", "/v1/stats", "", ""); code != 200 || v["documents"] != 1.0 {
		t.Fatalf("stats: %d %v", code, v)
	}
	if code, v = call(t, h, "DELETE", "/v1/documents/"+id, "", ""); code != 200 || v["deleted"] != true {
		t.Fatalf("delete: %d %v", code, v)
	}
	if code, _ = call(t, h, "GET", "/v1/documents/"+id, "", ""); code != 404 {
		t.Fatalf("get after delete: %d", code)
	}
}

func TestBatch(t *testing.T) {
	bodies := []struct{ name, ctype, body string }{
		{"array", "application/json", `[{"id":"a","text":"one"},{"id":"b","text":"two"},{"id":"c","text":"ONE"}]`},
		{"ndjson", "application/x-ndjson", "{\"id\":\"a\",\"text\":\"one\"}\n\n{\"id\":\"b\",\"text\":\"two\"}\r\n{\"id\":\"c\",\"text\":\"ONE\"}"},
		{"ndjson sniffed", "", "{\"id\":\"a\",\"text\":\"one\"}\n{\"id\":\"b\",\"text\":\"two\"}\n{\"id\":\"c\",\"text\":\"ONE\"}\n"},
	}
	for _, b := range bodies {
		t.Run(b.name, func(t *testing.T) {
			s, _ := newTestServer(t, Options{})
			code, v := call(t, s.Handler(), "POST", "/v1/documents/batch", b.ctype, b.body)
			if code != 200 {
				t.Fatalf("%d %v", code, v)
			}
			rs := v["results"].([]any)
			var got []string
			for _, r := range rs {
				m := r.(map[string]any)
				got = append(got, m["id"].(string)+"="+jsonString(m["duplicate_of"]))
			}
			if want := "a=null b=null c=\"a\""; strings.Join(got, " ") != want {
				t.Errorf("results %v, want %s", got, want)
			}
		})
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestStartingAndDraining(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	if code, v := call(t, h, "POST", "/v1/documents", "", `{"text":"a"}`); code != 503 || errorCode(v) != "unavailable" {
		t.Errorf("before SetEngine: %d %v", code, v)
	}
	if code, _ := call(t, h, "GET", "/readyz", "", ""); code != 503 {
		t.Errorf("readyz before SetEngine: %d", code)
	}
	if code, _ := call(t, h, "GET", "/healthz", "", ""); code != 200 {
		t.Errorf("healthz before SetEngine: %d", code)
	}
	s.SetEngine(newFakeEngine())
	if code, _ := call(t, h, "GET", "/readyz", "", ""); code != 200 {
		t.Errorf("readyz: %d", code)
	}
	s.Drain()
	if code, v := call(t, h, "GET", "/v1/stats", "", ""); code != 503 || errorCode(v) != "unavailable" {
		t.Errorf("draining: %d %v", code, v)
	}
	if code, _ := call(t, h, "GET", "/readyz", "", ""); code != 503 {
		t.Errorf("readyz draining: %d", code)
	}
}

func TestOverloaded(t *testing.T) {
	s, e := newTestServer(t, Options{MaxInFlight: 1})
	e.block, e.entered = make(chan struct{}), make(chan struct{})
	h := s.Handler()
	done := make(chan int)
	go func() {
		code, _ := call(t, h, "POST", "/v1/documents", "", `{"text":"first"}`)
		done <- code
	}()
	<-e.entered
	code, v := call(t, h, "POST", "/v1/documents", "", `{"text":"second"}`)
	if code != 429 || errorCode(v) != "overloaded" {
		t.Errorf("second request while one is in flight: %d %v", code, v)
	}
	close(e.block)
	if code := <-done; code != 200 {
		t.Errorf("first request: %d", code)
	}
	e.block = nil
	if code, v := call(t, h, "POST", "/v1/documents", "", `{"text":"third"}`); code != 200 {
		t.Errorf("after the first finished: %d %v", code, v)
	}
}

func TestMetrics(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	call(t, h, "POST", "/v1/documents", "", `{"text":"a b c"}`)
	call(t, h, "POST", "/v1/documents", "", `{"text":"A B C"}`)
	call(t, h, "GET", "/v1/documents/none", "", "")
	call(t, h, "PUT", "/v1/documents", "", `{"text":"x"}`) // 405
	call(t, h, "GET", "/v2/stats", "", "")                 // no route
	call(t, h, "GET", "/v1/nothing", "", "")
	// Redirected by the mux, to the clean path and to the subtree.
	for _, path := range []string{"/v1//stats", "/v1/./documents/none", "/static"} {
		req := httptest.NewRequest("GET", path, nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusTemporaryRedirect || w.Header().Get("Location") == "" {
			t.Errorf("GET %s: %d, Location %q", path, w.Code, w.Header().Get("Location"))
		}
	}
	req := httptest.NewRequest("GET", "/metrics", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	body := w.Body.String()
	for _, want := range []string{
		`neardup_http_requests_total{code="200",route="POST /v1/documents"} 2`,
		`neardup_http_requests_total{code="404",route="GET /v1/documents/{id}"} 1`,
		`neardup_http_requests_total{code="405",route="unmatched"} 1`,
		`neardup_http_requests_total{code="404",route="unmatched"} 2`,
		`neardup_http_requests_total{code="307",route="unmatched"} 3`,
		`neardup_http_request_duration_seconds_count{route="unmatched"} 6`,
		`neardup_http_request_duration_seconds_count{route="POST /v1/documents"} 2`,
		"neardup_documents_checked_total 2",
		"neardup_duplicates_found_total 1",
		"neardup_documents_inserted_total 1",
		"neardup_documents 1",
		"neardup_store_bytes 0",
		"neardup_index_bytes 0",
		"neardup_store_syncs_total 0",
		"neardup_expired_total 0",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	// A route's series are of the codes it can answer: the mux, not the
	// route, answers another method.
	if strings.Contains(body, `code="405",route="POST /v1/documents"`) {
		t.Errorf("a 405 series for a route, which never rises")
	}
}

// serveLoopback runs s.Serve on a loopback listener until cancel is
// called; Serve's result comes on served.
func serveLoopback(t *testing.T, s *Server) (ln net.Listener, cancel context.CancelFunc, served chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served = make(chan error)
	go func() { served <- s.Serve(ctx, ln) }()
	return ln, cancel, served
}

func TestServeShutdown(t *testing.T) {
	s, e := newTestServer(t, Options{})
	e.block, e.entered = make(chan struct{}), make(chan struct{})
	ln, cancel, served := serveLoopback(t, s)
	url := "http://" + ln.Addr().String()
	got := make(chan int)
	go func() {
		resp, err := http.Post(url+"/v1/documents", "application/json", strings.NewReader(`{"text":"in flight"}`))
		if err != nil {
			t.Error(err)
			got <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	<-e.entered
	cancel() // as on SIGTERM
	// The listener closes: new connections are refused.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still accepting connections after shutdown began")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(e.block)
	if code := <-got; code != 200 {
		t.Errorf("in-flight request got %d, want 200", code)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestDrainDelay checks that after the context ends /readyz fails at once
// while the API keeps answering until the delay is over.
func TestDrainDelay(t *testing.T) {
	s, _ := newTestServer(t, Options{DrainDelay: 300 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error)
	go func() { served <- s.Serve(ctx, ln) }()
	url := "http://" + ln.Addr().String()
	get := func(path string) int {
		resp, err := http.Get(url + path)
		if err != nil {
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get("/readyz"); code != 200 {
		t.Fatalf("readyz before shutdown: %d", code)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for get("/readyz") != 503 {
		if time.Now().After(deadline) {
			t.Fatal("readyz still ready after the context ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code := get("/v1/stats"); code != 200 {
		t.Errorf("API during the drain delay: %d, want 200", code)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestWebPage(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	for _, tt := range []struct{ path, ctype, contains string }{
		{"/", "text/html", `id="compare-btn"`},
		{"/static/app.js", "text/javascript", "/v1/compare"},
		{"/static/style.css", "text/css", "@media"},
		{"/v1/openapi.json", "application/json", `"openapi"`},
	} {
		req := httptest.NewRequest("GET", tt.path, nil)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), tt.ctype) || !strings.Contains(w.Body.String(), tt.contains) {
			t.Errorf("GET %s: %d %s, body has %q: %v", tt.path, w.Code, w.Header().Get("Content-Type"), tt.contains, strings.Contains(w.Body.String(), tt.contains))
		}
	}
	// Names of no file are 404, whatever their bytes, answered in JSON
	// as any other path that leads nowhere: no_route.
	for _, path := range []string{"/static/missing.js", "/static/", "/static/%FF", "/static/a%C3"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		var v map[string]any
		json.Unmarshal(w.Body.Bytes(), &v)
		if w.Code != 404 || w.Header().Get("Content-Type") != "application/json" || errorCode(v) != "no_route" {
			t.Errorf("GET %s: %d %s %q, want 404 no_route in JSON", path, w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	}
	// Nothing on the page may come from elsewhere.
	for _, name := range []string{"index.html", "app.js", "style.css"} {
		b, err := webFiles.ReadFile("web/" + name)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"http://", "https://", "//cdn", "@import"} {
			if bytes.Contains(b, []byte(bad)) {
				t.Errorf("%s refers to %q", name, bad)
			}
		}
	}
}

func TestBatchRefusedDocument(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	code, v := call(t, s.Handler(), "POST", "/v1/documents/batch", "", `[{"id":"a","text":"one"},{"id":"b","text":" "},{"id":"c","text":"two"}]`)
	if code != 200 {
		t.Fatalf("%d %v", code, v)
	}
	rs := v["results"].([]any)
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	for i, want := range []string{"", "missing_text", ""} {
		m := rs[i].(map[string]any)
		if got := errorCode(m); got != want {
			t.Errorf("result %d: error %q, want %q (%v)", i, got, want, m)
		}
		if want == "" && m["inserted"] != true {
			t.Errorf("result %d not inserted: %v", i, m)
		}
		// A refused document's result is its id and its error: no
		// "duplicate": false to be read as new.
		if want != "" && (len(m) != 2 || m["id"] != "b") {
			t.Errorf("result %d: %v, want its id and error alone", i, m)
		}
	}
}

// TestArrayErrorOffsets checks where the error of a batch sent as a JSON
// array says the body is wrong. A syntax error names the byte of the body,
// counted from 1 as for a single document: the spaces before the array,
// its bracket and the objects and commas before the bad one count. An
// array cut short says in or after which object it ends.
func TestArrayErrorOffsets(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxBatch: 2000})
	h := s.Handler()
	at := regexp.MustCompile(`at byte (\d+)`)
	bad := `{"text":"b" "x"}` // the quote of "x" is wrong
	for _, c := range []struct {
		route, prefix, says string
	}{
		{"/v1/documents/batch", `[{"text":"a"},`, "document 1: "},
		{"/v1/documents/batch", strings.Repeat(" ", 10) + `[{"text":"a"},`, "document 1: "},
		{"/v1/documents/batch", "[" + strings.Repeat(`{"text":"good"},`, 1000), "document 1000: "},
		{"/v1/documents/batch", "\n[ {\"id\":\"a\",\"text\":\"a\",\"meta\":{}} ,\n\t", "document 1: "},
		{"/v1/query/batch", `[{"text":"a"},{"text":"b"},`, "query 2: "},
	} {
		body := c.prefix + bad + "]"
		code, v := call(t, h, "POST", c.route, "", body)
		msg, _ := v["error"].(map[string]any)["message"].(string)
		want := strings.Index(body, `"x"`) + 1
		m := at.FindStringSubmatch(msg)
		if code != 400 || !strings.HasPrefix(msg, c.says) || m == nil || m[1] != strconv.Itoa(want) {
			t.Errorf("%s %.40q...: %d %q, want 400 saying %q and byte %d (the quote of \"x\")", c.route, body, code, msg, c.says, want)
		}
		// The single-document convention: the object posted alone, after
		// as many spaces as there were bytes before it, names that byte.
		_, v = call(t, h, "POST", "/v1/documents", "", strings.Repeat(" ", len(c.prefix))+bad)
		alone, _ := v["error"].(map[string]any)["message"].(string)
		if m := at.FindStringSubmatch(alone); m == nil || m[1] != strconv.Itoa(want) {
			t.Errorf("the object alone: %q, want byte %d", alone, want)
		}
	}
	for _, c := range []struct{ body, msg string }{
		// The character named is read at the offset.
		{`[{"text":"a"},中]`, "document 1: malformed JSON at byte 15: invalid character '中' looking for beginning of value"},
		{`[{"text":"a"} {"text":"b"}]`, "document 1: malformed JSON at byte 15: invalid character '{' after array element"},
		{`[{"text":"a"}}`, "malformed JSON at byte 14: invalid character '}' after array element"},
		{`[{"text":"a"}]]`, "unexpected data after the JSON array, at byte 15"},
		{"  [{\"text\":\"a\"}]\n x", "unexpected data after the JSON array, at byte 19"},
		{`[{"text":"ok"}`, "the JSON array is truncated after document 0: the body ends at byte 14 without the closing ']'"},
		{`[{"text":"a"},{"text":"b"}  `, "the JSON array is truncated after document 1: the body ends at byte 28 without the closing ']'"},
		{`[ `, "the JSON array is truncated after its opening '[': the body ends at byte 2 without the closing ']'"},
		{`[{"text":"a"},`, "document 1: the JSON array is truncated: the body ends at byte 14"},
		{`[{"text":"a"},{"text":"b`, "document 1: the JSON array is truncated: the body ends at byte 24"},
	} {
		code, v := call(t, h, "POST", "/v1/documents/batch", "", c.body)
		if msg, _ := v["error"].(map[string]any)["message"].(string); code != 400 || errorCode(v) != "bad_json" || msg != c.msg {
			t.Errorf("%q: %d %v, want 400 bad_json %q", c.body, code, v, c.msg)
		}
	}
}

// TestByteOrderMark checks that a body that begins with a UTF-8 byte
// order mark, as files some editors write do, is read as the JSON after
// it, on the fast paths and the slow.
func TestByteOrderMark(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	for _, c := range []struct{ path, body string }{
		{"/v1/documents", `{"id":"bom","text":"a text saved by an editor that marks its files"}`},
		{"/v1/documents", `{"text":"another text, with meta","meta":{"k":1}}`},
		{"/v1/documents/batch", `[{"text":"one of a batch"}]`},
		{"/v1/documents/batch", "{\"text\":\"one line of NDJSON\"}\n"},
		{"/v1/query", `{"text":"a query"}`},
	} {
		if code, v := call(t, s.Handler(), "POST", c.path, "", "\ufeff"+c.body); code != 200 {
			t.Errorf("%s with a byte order mark: %d %v", c.path, code, v)
		}
	}
}

// TestAssignedIDs checks that an id a client gives in the form of the ids
// the server assigns is never assigned afterwards: a document posted
// without an id is stored under an id of its own, not named a repeat of,
// or a conflict with, a document it never saw.
func TestAssignedIDs(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(memEngine(t))
	h := s.Handler()
	post := func(body string) map[string]any {
		t.Helper()
		code, v := call(t, h, "POST", "/v1/documents", "", body)
		if code != 200 {
			t.Fatalf("%s: %d %v", body, code, v)
		}
		return v
	}
	first := post(`{"text":"the first text, posted without an id"}`)["id"].(string)
	prefix, n, ok := strings.Cut(first, "-")
	if !ok {
		t.Fatalf("assigned id %q has no counter", first)
	}
	next, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("assigned id %q: %v", first, err)
	}
	// The client takes the next two ids the server would assign, with the
	// texts the next posts send.
	const a, b = "a text the client stores under an id of the server's form", "another text, posted again without an id"
	for i, text := range []string{a, b} {
		post(fmt.Sprintf(`{"id":"%s-%d","text":%q}`, prefix, next+1+i, text))
	}
	for _, text := range []string{b, "a third text about something else entirely"} {
		v := post(fmt.Sprintf(`{"text":%q}`, text))
		id := v["id"].(string)
		if got, _ := strconv.Atoi(strings.TrimPrefix(id, prefix+"-")); got <= next+2 {
			t.Errorf("posted without an id after ids up to %d were taken: got %q", next+2, id)
		}
		if text == b && (v["duplicate"] != true || v["duplicate_of"] != fmt.Sprintf("%s-%d", prefix, next+2)) {
			t.Errorf("a copy of a stored text posted without an id: %v, want a duplicate of it", v)
		}
		if text != b && v["inserted"] != true {
			t.Errorf("a new text posted without an id: %v, want it stored", v)
		}
	}
}

// TestDocumentLimits checks the engine's refusals the API maps to codes of
// their own: an id longer than neardup.MaxIDBytes, and a time further
// ahead than neardup.MaxFuture, alone and in a batch.
func TestDocumentLimits(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(memEngine(t))
	h := s.Handler()
	longID := strings.Repeat("x", neardup.MaxIDBytes+1)
	future := time.Now().Add(neardup.MaxFuture + time.Hour).UTC().Format(time.RFC3339)
	for _, c := range []struct{ body, code, says, fine string }{
		{`{"id":"` + longID + `","text":"a text"}`, "id_too_long", "4097 bytes, limit 4096", "the river rose in the night"},
		{`{"id":"f","text":"a text","time":"` + future + `"}`, "future_time", `"f" is dated ` + future, "seven owls sat on the fence"},
	} {
		code, v := call(t, h, "POST", "/v1/documents", "", c.body)
		msg, _ := v["error"].(map[string]any)["message"].(string)
		if code != 400 || errorCode(v) != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("%.40s: %d %v, want 400 %s saying %q", c.body, code, v, c.code, c.says)
		}
		code, v = call(t, h, "POST", "/v1/documents/batch", "", "["+c.body+`,{"text":"`+c.fine+`"}]`)
		rs, _ := v["results"].([]any)
		if code != 200 || len(rs) != 2 || errorCode(rs[0].(map[string]any)) != c.code || rs[1].(map[string]any)["inserted"] != true {
			t.Errorf("%.40s in a batch: %d %v, want its own %s error", c.body, code, v, c.code)
		}
	}
}

// TestZeroTime checks that a document posted with the zero time,
// 0001-01-01T00:00:00Z, is judged by that time, never stored as seen now:
// refused as expired under a retention window, as the second after it is,
// and refused as a time the store cannot keep when documents are kept
// forever (the engine takes the zero time for none), while the second
// after it is kept with its time. In a batch it is refused alone.
func TestZeroTime(t *testing.T) {
	const zero, after = "0001-01-01T00:00:00Z", "0001-01-01T00:00:01Z"
	for _, c := range []struct {
		name      string
		retention time.Duration
		code      string
	}{{"window", neardup.DefaultRetention, "expired"}, {"forever", -1, "bad_request"}} {
		t.Run(c.name, func(t *testing.T) {
			opts := neardup.DefaultOptions()
			opts.Retention = c.retention
			h := engineHandler(t, opts)
			code, v := call(t, h, "POST", "/v1/documents", "", `{"id":"z","text":"a document of the zero time","time":"`+zero+`"}`)
			refusal, _ := v["error"].(map[string]any)
			msg, _ := refusal["message"].(string)
			if code != 400 || errorCode(v) != c.code || !strings.Contains(msg, zero) {
				t.Errorf("posted at %s: %d %v, want 400 %s naming the time", zero, code, v, c.code)
			}
			if code, v := call(t, h, "GET", "/v1/documents/z", "", ""); code != 404 {
				t.Errorf("the document of the zero time was stored: %d %v", code, v)
			}
			code, v = call(t, h, "POST", "/v1/documents/batch", "", `[{"id":"a","text":"the first of the batch, kept"},`+
				`{"id":"z","text":"a document of the zero time","time":"`+zero+`"},{"id":"b","text":"the last of the batch, a text of its own"}]`)
			rs, _ := v["results"].([]any)
			if code != 200 || len(rs) != 3 {
				t.Fatalf("the batch: %d %v", code, v)
			}
			for i, id := range []string{"a", "z", "b"} {
				r := rs[i].(map[string]any)
				refused := errorCode(r) == c.code && len(r) == 2
				if r["id"] != id || refused != (id == "z") || id != "z" && r["inserted"] != true {
					t.Errorf("the batch's result %d: %v, want %s, refused with %s if it is z", i, r, id, c.code)
				}
			}
			code, v = call(t, h, "POST", "/v1/documents", "", `{"id":"s","text":"a document of the second after","time":"`+after+`"}`)
			if c.retention < 0 {
				if code, v := call(t, h, "GET", "/v1/documents/s", "", ""); code != 200 || v["time"] != after {
					t.Errorf("kept forever, posted at %s: %d %v, want it kept with its time", after, code, v)
				}
			} else if code != 400 || errorCode(v) != "expired" {
				t.Errorf("posted at %s: %d %v, want 400 expired", after, code, v)
			}
		})
	}
}

// TestCompareNormalizedLength checks that /v1/compare's limit applies to
// the normalized texts its measures work on: NFKC turns U+FDFA into 18
// characters, so 3,000 of them (54,000) are refused however few they look,
// while 30,000 accented letters written decomposed (60,000 code points, an
// "e" and a combining accent each) are 30,000 characters once composed.
func TestCompareNormalizedLength(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	body := func(a, b string) string {
		j, _ := json.Marshal(map[string]string{"a": a, "b": b})
		return string(j)
	}
	code, v := call(t, h, "POST", "/v1/compare", "", body(strings.Repeat("\ufdfa", 3000), "short text"))
	e, _ := v["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if code != 413 || errorCode(v) != "text_too_large" || !strings.Contains(msg, `"a" has 54000 characters once normalized`) {
		t.Errorf("3,000 x U+FDFA: %d %v, want 413 text_too_large", code, v)
	}
	nfd := strings.Repeat("e\u0301", 30000)
	code, v = call(t, h, "POST", "/v1/compare", "", body(nfd, strings.Repeat("\u00e9", 30000)))
	if scores, _ := v["scores"].(map[string]any); code != 200 || scores["levenshtein"] != 1.0 {
		t.Errorf("30,000 decomposed letters: %d %v, want 200 and equal texts", code, v)
	}
}

// TestCompareRule checks that /v1/compare names the rule that judged the
// pair, with the server's policy's bounds scaled to the width: the short
// rule for two short texts, the tiny one for two tiny texts, the long
// one when a text is long.
func TestCompareRule(t *testing.T) {
	p := neardup.DefaultPolicy()
	p.Short.MaxDistance = 9
	s, _ := newTestServer(t, Options{Policy: &p})
	long := strings.Repeat("a long text of many words ", 25)
	short := "the cat sat on the mat by the door of the old house in the village, as it did every day"
	for _, c := range []struct {
		a, b string
		bits int
		want map[string]any
	}{
		{"the cat sat on the mat", "the cat sat on a mat", 64, map[string]any{"name": "tiny", "max_distance": 14.0, "measure": "levenshtein", "min_similarity": 0.8, "one_word_apart": true}},
		{"the cat sat on the mat", "the dog sat on a mat", 64, map[string]any{"name": "tiny", "max_distance": 14.0, "measure": "levenshtein", "min_similarity": 0.8}},
		{short, "the cat sat on a mat", 64, map[string]any{"name": "short", "max_distance": 9.0, "measure": "levenshtein", "min_similarity": 0.8}},
		{short, "the cat sat on a mat", 128, map[string]any{"name": "short", "max_distance": 18.0, "measure": "levenshtein", "min_similarity": 0.8}},
		{long, "the cat sat on a mat", 64, map[string]any{"name": "long", "max_distance": 6.0, "measure": "jaccard", "min_similarity": 0.5}},
		// 16 bits apart, but one word: verified all the same.
		{"normal sized query alongside a huge one", "normal sized doc alongside a huge one", 64, map[string]any{"name": "tiny", "max_distance": 14.0, "measure": "levenshtein", "min_similarity": 0.8, "one_word_apart": true}},
	} {
		j, _ := json.Marshal(map[string]any{"a": c.a, "b": c.b, "bits": c.bits})
		code, v := call(t, s.Handler(), "POST", "/v1/compare", "", string(j))
		if rule, _ := v["rule"].(map[string]any); code != 200 || !reflect.DeepEqual(rule, c.want) {
			t.Errorf("compare at %d bits: %d, rule %v, want %v", c.bits, code, v["rule"], c.want)
		}
		if strings.HasPrefix(c.a, "normal") && (v["duplicate"] != true || v["distance"].(float64) <= c.want["max_distance"].(float64)) {
			t.Errorf("compare %q and %q: %v; want a duplicate beyond the rule's distance", c.a, c.b, v)
		}
	}
}

// TestBadTime checks that a document's unreadable "time" is answered with
// a 400 naming the field and the format it wants, alone and in a batch.
func TestBadTime(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	for _, c := range []struct{ path, body, where string }{
		{"/v1/documents", `{"text":"a","time":"yesterday"}`, `"time": want a string in RFC 3339`},
		{"/v1/documents", `{"text":"a","time":5}`, `"time": want a string in RFC 3339`},
		{"/v1/documents/batch", `[{"text":"a"},{"text":"b","time":"2026-13-01T00:00:00Z"}]`, `"time": want a string in RFC 3339`},
		{"/v1/documents/batch", "{\"text\":\"a\"}\n{\"text\":\"b\",\"time\":\"now\"}\n", `line 2: "time": want a string in RFC 3339`},
	} {
		code, v := call(t, s.Handler(), "POST", c.path, "", c.body)
		msg, _ := v["error"].(map[string]any)["message"].(string)
		if code != 400 || errorCode(v) != "bad_json" || !strings.Contains(msg, c.where) {
			t.Errorf("%s %s: %d %v, want 400 bad_json naming %q", c.path, c.body, code, v, c.where)
		}
	}
}

// lockedBuffer is a bytes.Buffer that goroutines may write at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRunLogsReady runs a server on a fresh store and stops it with
// SIGTERM, as neardup serve is stopped: its log has a ready line with the
// address it serves, the documents held and the index's bit-test
// implementation, says which signal stopped it, and ends with the store
// closed.
func TestRunLogsReady(t *testing.T) {
	var logs lockedBuffer
	ctx, stop := signal.NotifyContext(t.Context(), syscall.SIGTERM)
	defer stop()
	var addr string
	err := Run(ctx, Config{
		Addr:   "127.0.0.1:0",
		Dir:    t.TempDir(),
		Server: Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Ready: func(a net.Addr) {
			addr = a.String()
			p, err := os.FindProcess(os.Getpid())
			if err == nil {
				err = p.Signal(syscall.SIGTERM)
			}
			if err != nil {
				t.Error(err)
				stop()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ready string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "msg=ready ") {
			ready = line
		}
	}
	for _, want := range []string{"url=http://" + addr + "/", "documents=0", "bit_tests=" + index.Kernel()} {
		if !strings.Contains(ready, want) {
			t.Errorf("ready line %q lacks %q; log:\n%s", ready, want, logs.String())
		}
	}
	if !strings.Contains(logs.String(), `msg=stopping reason="terminated signal received"`) {
		t.Errorf("no stopping line naming the signal; log:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), `msg="store closed"`) {
		t.Errorf("no store closed line; log:\n%s", logs.String())
	}
}

// TestRunStopsWhileOpening checks that a signal (ctx ending) while the
// store opens stops Run at once, with no error: a store whose open waits
// (on a full disk, say) kept the server from stopping. The store, opened
// after all, is closed: the directory can be opened again.
func TestRunStopsWhileOpening(t *testing.T) {
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // before the store can be open
	dir := t.TempDir()
	err := Run(ctx, Config{
		Addr:   "127.0.0.1:0",
		Dir:    dir,
		Server: Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Ready:  func(net.Addr) { t.Error("ready after the context ended") },
	})
	if err != nil || !strings.Contains(logs.String(), "stopped before the store was open") || strings.Contains(logs.String(), "draining") {
		t.Fatalf("Run: %v; log:\n%s", err, logs.String())
	}
	// The open goes on after Run returns; wait for its end (the directory
	// cannot be removed under it), then the store can be opened again.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "after the stop") {
		if time.Now().After(deadline) {
			t.Fatalf("the store's open did not end; log:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "store closed") {
		t.Fatalf("the store was not closed; log:\n%s", logs.String())
	}
	e, err := neardup.Open(dir, nil)
	if err != nil {
		t.Fatalf("the store is still held: %v", err)
	}
	e.Close()
	// A store that fails to open: its error, and no draining said first.
	var logs2 lockedBuffer
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = Run(t.Context(), Config{Addr: "127.0.0.1:0", Dir: file, Server: Options{Logger: slog.New(slog.NewTextHandler(&logs2, nil))}})
	if err == nil || strings.Contains(logs2.String(), "draining") {
		t.Fatalf("Run on a file: %v; log:\n%s", err, logs2.String())
	}
}

// TestWatchStore checks the log lines of the store's changes of state:
// one when the disk becomes too full for posts (and at once if it is at
// the start), one when space is back, one when the store fails; none
// while nothing changes.
func TestWatchStore(t *testing.T) {
	seq := []neardup.Stats{
		{DiskFull: true, FreeBytes: 10}, {DiskFull: true, FreeBytes: 9}, {FreeBytes: 1 << 30}, {FreeBytes: 1 << 30},
		{Failure: "store: write: no space left on device"}, {Failure: "store: write: no space left on device"},
	}
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(t.Context())
	i := 0
	stats := func() neardup.Stats {
		if i == len(seq)-1 {
			cancel()
		}
		i++
		return seq[min(i, len(seq))-1]
	}
	watchStore(ctx, stats, slog.New(slog.NewTextHandler(&logs, nil)), time.Millisecond)
	var got []string
	for line := range strings.Lines(logs.String()) {
		level, _, _ := strings.Cut(line[strings.Index(line, "level=")+6:], " ")
		got = append(got, level)
	}
	if want := []string{"WARN", "INFO", "ERROR"}; !slices.Equal(got, want) {
		t.Fatalf("levels %v, want %v; log:\n%s", got, want, logs.String())
	}
	for _, want := range []string{"507 insufficient_storage", "free_bytes=10", "space is back", "503 store_failed", "no space left on device"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs.String())
		}
	}
}

// TestReserveBounds checks that an id of the assigned form far beyond the
// counter does not move it near wrapping around to the ids it gave first.
func TestReserveBounds(t *testing.T) {
	ids, err := newIDSource()
	if err != nil {
		t.Fatal(err)
	}
	first := ids.next()
	ids.reserve(ids.prefix + "18446744073709551615")
	ids.reserve(ids.prefix + "not a number")
	ids.reserve("another prefix-7")
	if got, want := ids.next(), ids.prefix+"2"; got != want || first != ids.prefix+"1" {
		t.Errorf("ids %q then %q, want %q then %q", first, got, ids.prefix+"1", want)
	}
	ids.reserve(ids.prefix + "41")
	if got, want := ids.next(), ids.prefix+"42"; got != want {
		t.Errorf("after %s41 was posted: %q, want %q", ids.prefix, got, want)
	}
}

// pipelineServer returns the handler of a server whose default profile
// runs p, over an engine in memory that does too, closed when t ends.
func pipelineServer(t *testing.T, p neardup.Pipeline) http.Handler {
	t.Helper()
	cfg := neardup.Config{Profile: "default", Pipeline: &p}
	opts := neardup.DefaultOptions()
	opts.InMemory, opts.Fingerprint = true, cfg
	e, err := neardup.Open("", &opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s, err := New(Options{Fingerprint: cfg})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(e)
	return s.Handler()
}

// TestHTMLPipeline runs a server whose pipeline reads HTML, as `serve
// --html` makes it: /v1/compare measures two pages by their visible text,
// as the engine decides them, and a page posted in another template is a
// duplicate of the first.
func TestHTMLPipeline(t *testing.T) {
	p := neardup.DefaultPipeline()
	p.HTML = true
	h := pipelineServer(t, p)
	text := "The river rose through the night and by morning the old town square stood under water, and volunteers carried sandbags to the bakery."
	var scripts [2]strings.Builder // each template's words of its own
	for i := range 300 {
		for j := range scripts {
			fmt.Fprintf(&scripts[j], "w%x ", (i*2654435761+j*104729)%1000003)
		}
	}
	a := "<html><head><script>var w = '" + scripts[0].String() + "';</script></head><body><p>" + text + "</p></body></html>"
	b := "<!doctype html><body><script>const s = '" + scripts[1].String() + "';</script><table><tr><td>" + text + "</td></tr></table></body>"
	body, _ := json.Marshal(map[string]string{"a": a, "b": b})
	if code, v := call(t, h, "POST", "/v1/compare", "", string(body)); code != 200 || v["duplicate"] != true || v["distance"] != float64(0) {
		t.Errorf("compare of a page and its text in another template: %d %v; want duplicates at distance 0", code, v)
	}
	for i, page := range []string{a, b} {
		body, _ := json.Marshal(map[string]string{"id": fmt.Sprint("p", i), "text": page})
		code, v := call(t, h, "POST", "/v1/documents", "", string(body))
		if code != 200 || (i == 1 && v["duplicate_of"] != "p0") {
			t.Errorf("post of page %d: %d %v", i, code, v)
		}
	}
}

// TestMainTextPipeline runs a server whose pipeline reads the main text
// of pages, as `serve --main-text` makes it: /v1/compare measures two
// pages of one sentence in other menus and sidebars by that sentence, as
// the engine decides them.
func TestMainTextPipeline(t *testing.T) {
	p := neardup.DefaultPipeline()
	p.MainText = true
	h := pipelineServer(t, p)
	text := "The river rose through the night and by morning the old town square stood under water."
	a := "<nav>Home News Sport Weather Contact About</nav><article><p>" + text + "</p></article><footer>Copyright 2026 Daily Example</footer>"
	b := "<header><h1>Morning Post</h1><nav>Front page, Politics, Business</nav></header><p>" + text + "</p><aside>Most read: ten recipes for a rainy day</aside>"
	body, _ := json.Marshal(map[string]string{"a": a, "b": b})
	code, v := call(t, h, "POST", "/v1/compare", "", string(body))
	if code != 200 || v["duplicate"] != true || v["distance"] != float64(0) {
		t.Errorf("compare of one text in other furniture: %d %v; want duplicates at distance 0", code, v)
	} else if m, _ := v["scores"].(map[string]any); m["levenshtein"] != float64(1) {
		t.Errorf("compare: scores %v; want the main texts' Levenshtein ratio of 1", v["scores"])
	}
	if code, v := call(t, h, "GET", "/v1/stats", "", ""); code != 200 || v["pipeline"] != "MainText=true" {
		t.Errorf("stats: %d %v; want the pipeline MainText=true", code, v)
	}
}

// TestFoldAccentsPipeline runs a server whose pipeline folds accents, as
// `serve --fold-accents` makes it: /v1/compare measures a Polish sentence
// and its copy without marks as the engine does, duplicates at distance 0
// with a Levenshtein ratio of 1 (0.67 as they are), and the copy posted
// after it is its duplicate; a compare in another profile takes the texts
// as they are.
func TestFoldAccentsPipeline(t *testing.T) {
	p := neardup.DefaultPipeline()
	p.FoldAccents = true
	h := pipelineServer(t, p)
	a, b := "Zażółć gęślą jaźń, łódź płynie źle po rzece", "Zazolc gesla jazn, lodz plynie zle po rzece"
	body, _ := json.Marshal(map[string]string{"a": a, "b": b})
	code, v := call(t, h, "POST", "/v1/compare", "", string(body))
	if code != 200 || v["duplicate"] != true || v["distance"] != float64(0) {
		t.Errorf("compare of a sentence and its copy without accents: %d %v; want duplicates at distance 0", code, v)
	} else if m, _ := v["scores"].(map[string]any); m["levenshtein"] != float64(1) {
		t.Errorf("compare: scores %v; want the folded texts' Levenshtein ratio of 1", v["scores"])
	}
	body, _ = json.Marshal(map[string]string{"a": a, "b": b, "profile": "classic"})
	if code, v := call(t, h, "POST", "/v1/compare", "", string(body)); code != 200 || v["duplicate"] != false {
		t.Errorf("compare in the classic profile: %d %v; want the texts as they are, not duplicates", code, v)
	}
	for i, text := range []string{a, b} {
		body, _ := json.Marshal(map[string]string{"id": fmt.Sprint("s", i), "text": text})
		code, v := call(t, h, "POST", "/v1/documents", "", string(body))
		if code != 200 || (i == 1 && v["duplicate_of"] != "s0") {
			t.Errorf("post of sentence %d: %d %v", i, code, v)
		}
	}
}

// TestRetryAfter checks which errors tell the client to retry: a busy,
// starting or draining server does, one whose store failed (it answers the
// same until restarted) does not.
func TestRetryAfter(t *testing.T) {
	for _, c := range []struct {
		err  *apiError
		want string
	}{
		{errOverloaded, "1"},
		{errUnavailableStarting, "1"},
		{errUnavailableDraining, "1"},
		{storeFailed("disk full"), ""},
		{errMissingText, ""},
	} {
		w := httptest.NewRecorder()
		writeError(w, c.err)
		if got := w.Header().Get("Retry-After"); got != c.want {
			t.Errorf("%d %s: Retry-After %q, want %q", c.err.status, c.err.code, got, c.want)
		}
	}
}

// TestGzipBody posts bodies sent with Content-Encoding gzip: one is read
// as the same JSON sent plain, one that is not gzip or is cut short is a
// 400 bad_gzip, one that decompresses past MaxBody is a 413 although it is
// small as sent, and another encoding is a 415 naming it.
func TestGzipBody(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxBody: 1 << 10})
	h := s.Handler()
	post := func(enc string, body []byte) (int, map[string]any) {
		t.Helper()
		req := httptest.NewRequest("POST", "/v1/documents", bytes.NewReader(body))
		req.Header.Set("Content-Encoding", enc)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var v map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("Content-Encoding %s: body is not JSON: %q", enc, w.Body.String())
		}
		return w.Code, v
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	doc := []byte(`{"id":"z1","text":"a text sent compressed, as a crawler might send its pages"}`)
	if code, v := post("gzip", gz(doc)); code != 200 || v["id"] != "z1" {
		t.Errorf("gzip document: %d %v", code, v)
	}
	if code, v := post("GZIP", gz([]byte(`{"id":"z2","text":"another"}`))); code != 200 || v["id"] != "z2" {
		t.Errorf("GZIP document: %d %v", code, v)
	}
	if code, v := post("gzip", doc); code != 400 || errorCode(v) != "bad_gzip" {
		t.Errorf("plain body sent as gzip: %d %v", code, v)
	}
	z := gz(doc)
	if code, v := post("gzip", z[:len(z)-6]); code != 400 || errorCode(v) != "bad_gzip" {
		t.Errorf("gzip cut short: %d %v", code, v)
	}
	big := gz([]byte(`{"text":"` + strings.Repeat("a", 1<<10) + `"}`))
	if len(big) >= 1<<10 {
		t.Fatalf("the compressed body is %d bytes; the test needs it under the limit", len(big))
	}
	if code, v := post("gzip", big); code != 413 || errorCode(v) != "body_too_large" || !strings.Contains(v["error"].(map[string]any)["message"].(string), "decompresses") {
		t.Errorf("gzip over the limit once decompressed: %d %v", code, v)
	}
	if code, v := post("compress", doc); code != 415 || errorCode(v) != "unsupported_encoding" || !strings.Contains(v["error"].(map[string]any)["message"].(string), `"compress"`) {
		t.Errorf("compress: %d %v", code, v)
	}
	if code, v := post("identity", []byte(`{"id":"z3","text":"plain"}`)); code != 200 || v["id"] != "z3" {
		t.Errorf("identity: %d %v", code, v)
	}
}

// TestIntegralFloats checks that integer fields take a number of integral
// value however it is written (100.0, 1e2), as JSON Schema's integer does,
// and refuse a fraction or a string, naming the field.
func TestIntegralFloats(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	for _, body := range []string{`{"text":"a b c","k":3.0}`, `{"text":"a b c","k":1e1}`, `{"text":"a b c","k":null}`} {
		if code, v := call(t, h, "POST", "/v1/query", "", body); code != 200 {
			t.Errorf("%s: %d %v", body, code, v)
		}
	}
	if code, v := call(t, h, "POST", "/v1/fingerprint", "", `{"text":"a b c","bits":128.0}`); code != 200 || v["bits"] != 128.0 {
		t.Errorf("bits 128.0: %d %v", code, v)
	}
	if code, v := call(t, h, "POST", "/v1/compare", "", `{"a":"a b c","b":"a b d","bits":6.4e1}`); code != 200 || v["bits"] != 64.0 {
		t.Errorf("compare bits 6.4e1: %d %v", code, v)
	}
	for body, want := range map[string]string{
		`{"text":"a b c","k":2.5}`:   `"k": expected an integer, got JSON number 2.5`,
		`{"text":"a b c","k":"3"}`:   `"k": expected an integer, got JSON string`,
		`{"text":"a b c","k":1e300}`: `"k": expected an integer, got JSON number 1e300`,
	} {
		code, v := call(t, h, "POST", "/v1/query", "", body)
		if msg, _ := v["error"].(map[string]any)["message"].(string); code != 400 || errorCode(v) != "bad_json" || msg != want {
			t.Errorf("%s: %d %v, want bad_json %q", body, code, v, want)
		}
	}
}

// TestIsNDJSON checks which Content-Types make a batch body NDJSON: the
// media types of NDJSON and JSON Lines, in any case, with parameters.
func TestIsNDJSON(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/x-ndjson":                true,
		"Application/X-NDJSON":                true,
		"application/x-ndjson; charset=utf-8": true,
		" application/jsonl ":                 true,
		"application/jsonlines":               true,
		"application/json":                    false,
		"application/x-ndjsonx":               false,
		"":                                    false,
		"text/plain":                          false,
	} {
		if got := isNDJSON(ct); got != want {
			t.Errorf("isNDJSON(%q) = %v, want %v", ct, got, want)
		}
	}
}

// TestRefusedWithoutID checks that a refused document posted without an
// id is not named by the id the server would have given it, which the
// client never saw.
func TestRefusedWithoutID(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(memEngine(t))
	h := s.Handler()
	code, v := call(t, h, "POST", "/v1/documents", "", `{"text":"x y z","time":"2099-01-01T00:00:00Z"}`)
	msg, _ := v["error"].(map[string]any)["message"].(string)
	if code != 400 || errorCode(v) != "future_time" || !strings.Contains(msg, "the document is dated 2099") {
		t.Errorf("a document of 2099 without an id: %d %v", code, v)
	}
	code, v = call(t, h, "POST", "/v1/documents", "", `{"id":"mine","text":"x y z","time":"2099-01-01T00:00:00Z"}`)
	msg, _ = v["error"].(map[string]any)["message"].(string)
	if code != 400 || !strings.Contains(msg, `"mine" is dated 2099`) {
		t.Errorf("a document of 2099 with an id: %d %v", code, v)
	}
}

// TestCrossOrigin checks that a write a page of another site makes through
// the visitor's browser is refused, while the server's own page, programs
// (no such headers) and cross-site reads are served.
func TestCrossOrigin(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	do := func(method, path string, hdr map[string]string) (int, string) {
		req := httptest.NewRequest(method, path, strings.NewReader(`{"text":"planted by another site"}`))
		req.Host = "127.0.0.1:8080"
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code, w.Body.String()
	}
	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Origin": "http://evil.example"},
		{"Origin": "http://127.0.0.1:8081"}, // another port is another origin
	} {
		if code, body := do("POST", "/v1/documents", hdr); code != 403 || !strings.Contains(body, `"cross_origin"`) {
			t.Errorf("POST with %v: %d %s, want 403 cross_origin", hdr, code, body)
		}
	}
	for _, hdr := range []map[string]string{
		nil, // curl, the Go client
		{"Sec-Fetch-Site": "same-origin"},
		{"Origin": "http://127.0.0.1:8080"},
	} {
		if code, body := do("POST", "/v1/documents", hdr); code != 200 {
			t.Errorf("POST with %v: %d %s, want 200", hdr, code, body)
		}
	}
	if code, body := do("GET", "/v1/stats", map[string]string{"Sec-Fetch-Site": "cross-site"}); code != 200 {
		t.Errorf("cross-site GET: %d %s, want 200", code, body)
	}
}

// TestBodyBounds checks the two bounds of requests: a request still
// waiting for its body holds none of MaxInFlight's places, and the bytes
// of bodies held at once stay within MaxBodyMemory, given back when their
// requests end.
func TestBodyBounds(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxInFlight: 1, MaxBody: 1000, MaxBodyMemory: 1000})
	h := s.Handler()
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		req := httptest.NewRequest("POST", "/v1/documents", pr)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		done <- w.Code
	}()
	// 800 bytes of a body that has not ended: no place, 800 bytes held.
	head := `{"text":"` + strings.Repeat("a", 791)
	if _, err := pw.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	for s.bodyBytes.Load() < int64(len(head)) {
		time.Sleep(time.Millisecond)
	}
	if code, v := call(t, h, "POST", "/v1/documents", "", `{"text":"a short one"}`); code != 200 {
		t.Errorf("a post while another waits for its body (MaxInFlight 1): %d %v", code, v)
	}
	big := `{"text":"` + strings.Repeat("b", 300) + `"}`
	code, v := call(t, h, "POST", "/v1/documents", "", big)
	if msg, _ := v["error"].(map[string]any)["message"].(string); code != 429 || !strings.Contains(msg, "request bytes") {
		t.Errorf("a body past MaxBodyMemory: %d %v", code, v)
	}
	pw.Write([]byte(`"}`))
	pw.Close()
	if code := <-done; code != 200 {
		t.Errorf("the slow post: %d", code)
	}
	if n, p := s.bodyBytes.Load(), s.inflight.Load(); n != 0 || p != 0 {
		t.Errorf("after the requests: %d body bytes and %d places held", n, p)
	}
	if code, v := call(t, h, "POST", "/v1/documents", "", big); code != 200 {
		t.Errorf("the same body once the bytes are back: %d %v", code, v)
	}
}

// TestBodyMemoryBelowMaxBody checks that options whose MaxBodyMemory is
// less than MaxBody, their defaults included, are refused, naming both: a
// body between the two would get 429 overloaded on every try, while
// /v1/stats gives MaxBody as the size clients may send.
func TestBodyMemoryBelowMaxBody(t *testing.T) {
	for _, o := range []Options{
		{MaxBodyMemory: 1000},
		{MaxBody: DefaultMaxBodyMemory + 1},
		{MaxBody: 2000, MaxBodyMemory: 1999},
	} {
		_, err := New(o)
		if err == nil || !strings.Contains(err.Error(), "MaxBodyMemory") || !strings.Contains(err.Error(), "MaxBody ") {
			t.Errorf("MaxBody %d, MaxBodyMemory %d: %v, want an error naming both", o.MaxBody, o.MaxBodyMemory, err)
		}
	}
	for _, o := range []Options{{}, {MaxBody: 1000, MaxBodyMemory: 1000}, {MaxBody: DefaultMaxBodyMemory}} {
		if _, err := New(o); err != nil {
			t.Errorf("MaxBody %d, MaxBodyMemory %d: %v", o.MaxBody, o.MaxBodyMemory, err)
		}
	}
}

// TestShutdownCutsOff checks what happens when a request still runs at
// the shutdown timeout: it is cut off (its context ends), it answers 503
// or loses its connection, and Serve returns nil once it has returned, so
// that the store is closed after its handlers, and neardup serve exits 0.
func TestShutdownCutsOff(t *testing.T) {
	var logs lockedBuffer
	s, e := newTestServer(t, Options{ShutdownTimeout: 200 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	e.block, e.entered = make(chan struct{}), make(chan struct{})
	ln, cancel, served := serveLoopback(t, s)
	got := make(chan int)
	go func() {
		resp, err := http.Post("http://"+ln.Addr().String()+"/v1/documents", "application/json", strings.NewReader(`{"text":"never let through"}`))
		if err != nil {
			got <- 0 // the connection closed first
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	<-e.entered
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve = %v, want nil after cutting the request off", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	if n := s.active.Load(); n != 0 {
		t.Errorf("%d requests still in handlers when Serve returned", n)
	}
	if code := <-got; code != 0 && code != 503 {
		t.Errorf("the cut-off request got %d, want 503 or a closed connection", code)
	}
	if !strings.Contains(logs.String(), "cutting off the requests still running") {
		t.Errorf("no log line of the cut; log:\n%s", logs.String())
	}
}

// TestQueryBatchTimeout checks that a batch of queries stops once its
// answer could no longer be written (WriteTimeout), with 503 timeout.
func TestQueryBatchTimeout(t *testing.T) {
	s, err := New(Options{WriteTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(memEngine(t))
	h := s.Handler()
	code, v := call(t, h, "POST", "/v1/query/batch", "", `[{"fingerprint":"4f9c82369cd87f01","k":64},{"text":"some text to check"}]`)
	if code != 503 || errorCode(v) != "timeout" {
		t.Errorf("a query batch past WriteTimeout: %d %v, want 503 timeout", code, v)
	}
}

// TestIdleConnsMakeRoom checks that at the connection cap a connection
// idle between requests is closed to let a new one in: clients holding
// idle keep-alive connections cannot keep out the others.
func TestIdleConnsMakeRoom(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxConns: 2})
	ln, cancel, served := serveLoopback(t, s)
	defer func() { cancel(); <-served }()
	// Two connections each make a request and stay open, idle.
	for range 2 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	time.Sleep(50 * time.Millisecond) // the server marks them idle
	hc := &http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatalf("a third client at the cap of 2, with 2 idle connections open: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("healthz: %d", resp.StatusCode)
	}
}

// TestCompareToldApart checks that a compared pair which its rule's
// measure passes but the policy's distinct-numbers or distinct-negation
// switch turns down says so (rule.told_apart_by), and that a pair turned
// down by its measure does not.
func TestCompareToldApart(t *testing.T) {
	p := neardup.DefaultPolicy()
	p.DistinctNumbers, p.DistinctNegation = true, true
	s, _ := newTestServer(t, Options{Policy: &p})
	for _, c := range []struct{ a, b, want string }{
		{"Your verification code is 123456, do not share it with anyone", "Your verification code is 987654, do not share it with anyone", "numbers"},
		{"The patient is allergic to penicillin and to nuts", "The patient is not allergic to penicillin and to nuts", "negation"},
		{"Your verification code is 123456, do not share it with anyone", "A completely different sentence about the weather in spring", ""},
		// Beyond the tiny rule's distance, two words apart, but a ratio
		// that would pass: told apart by their numbers all the same.
		{"A girl is playing 2 flutes.", "A gvrl is playing 3 flutes.", "numbers"},
	} {
		j, _ := json.Marshal(map[string]any{"a": c.a, "b": c.b})
		code, v := call(t, s.Handler(), "POST", "/v1/compare", "", string(j))
		rule, _ := v["rule"].(map[string]any)
		got, _ := rule["told_apart_by"].(string)
		if code != 200 || v["duplicate"] != false || got != c.want {
			t.Errorf("compare %q and %q: %d, duplicate %v, told apart by %q; want no duplicate, told apart by %q", c.a, c.b, code, v["duplicate"], got, c.want)
		}
	}
}
