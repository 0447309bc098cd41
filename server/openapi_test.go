package server

import (
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/api"
)

// TestOpenAPIMatchesRoutes checks that every API route is documented and
// every documented operation is a route the server answers.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatalf("api/openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi version %q", doc.OpenAPI)
	}
	var documented []string
	for path, ops := range doc.Paths {
		for method := range ops {
			if method == "parameters" {
				continue
			}
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	s, _ := newTestServer(t, Options{})
	var served []string
	for _, r := range s.Routes() {
		if r.API {
			served = append(served, r.Method+" "+r.Path)
		}
	}
	slices.Sort(documented)
	slices.Sort(served)
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is not in api/openapi.json", r)
		}
	}
	for _, d := range documented {
		if !slices.Contains(served, d) {
			t.Errorf("api/openapi.json documents %s, which the server does not serve", d)
		}
		// And the handler really answers it (not the mux's 404 or 405).
		method, path, _ := strings.Cut(d, " ")
		req := httptest.NewRequest(method, strings.ReplaceAll(path, "{id}", "some-id"), strings.NewReader("{}"))
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		if code := w.Code; code == 405 || (code == 404 && !strings.Contains(w.Body.String(), "document not found")) {
			t.Errorf("%s answers %d: %s", d, code, w.Body.String())
		}
	}
}
