package server

import (
	"io/fs"
	"maps"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/neardup/neardup"
)

// TestPageProfileWidths checks that the page's profile menu offers every
// profile with the widths the library makes for it (data-widths), which
// its width menu follows.
func TestPageProfileWidths(t *testing.T) {
	page, err := fs.ReadFile(webRoot(), "index.html")
	if err != nil {
		t.Fatal(err)
	}
	opts := regexp.MustCompile(`<option value="([a-z-]+)" data-widths="([0-9 ]+)">`).FindAllStringSubmatch(string(page), -1)
	got := map[string]string{}
	for _, o := range opts {
		got[o[1]] = o[2]
	}
	want := map[string]string{}
	for _, name := range neardup.Profiles() {
		var widths []string
		for _, bits := range []int{64, 128} {
			fp, err := neardup.NewFingerprinter(neardup.Config{Profile: name, Bits: bits})
			if err == nil && !slices.Contains(widths, strconv.Itoa(fp.Bits())) {
				widths = append(widths, strconv.Itoa(fp.Bits()))
			}
		}
		want[name] = strings.Join(widths, " ")
	}
	if !maps.Equal(got, want) {
		t.Errorf("the page's profiles and widths: %v, the library's: %v", got, want)
	}
}

// TestWebSecurityPolicy checks that the page is never served without its
// security policy: not at /, and not by way of the static files' directory
// (/static/) or its own name there (/static/index.html).
func TestWebSecurityPolicy(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	for _, path := range []string{"/", "/static/", "/static/index.html", "/static/app.js", "/static/missing.js"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		switch csp := w.Header().Get("Content-Security-Policy"); {
		case w.Code == 404:
		case w.Code != 200:
			t.Errorf("GET %s: %d, want 200 with the page's policy, or 404", path, w.Code)
		case csp != contentSecurityPolicy || !strings.Contains(csp, "frame-ancestors 'none'"):
			t.Errorf("GET %s: 200 with Content-Security-Policy %q, want %q", path, csp, contentSecurityPolicy)
		}
	}
}

// TestWebETag checks that each of the page's files has an entity tag of its
// own, and that a browser revalidating its copy with the tag is answered
// 304 without the file.
func TestWebETag(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	seen := map[string]string{}
	for _, path := range []string{"/", "/static/app.js", "/static/style.css", "/static/icon.svg"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		etag := w.Header().Get("ETag")
		if w.Code != 200 || !regexp.MustCompile(`^"[0-9a-f]+"$`).MatchString(etag) {
			t.Errorf("GET %s: %d, ETag %q, want 200 with a strong ETag", path, w.Code, etag)
			continue
		}
		if other, ok := seen[etag]; ok {
			t.Errorf("%s and %s have the same ETag %s", path, other, etag)
		}
		seen[etag] = path
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("If-None-Match", etag)
		w = httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 304 || w.Body.Len() != 0 {
			t.Errorf("GET %s with If-None-Match %s: %d with %d bytes, want 304 without a body", path, etag, w.Code, w.Body.Len())
		}
		req = httptest.NewRequest("GET", path, nil)
		req.Header.Set("If-None-Match", `"0000"`)
		w = httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			t.Errorf("GET %s with another ETag: %d, want 200", path, w.Code)
		}
	}
}
