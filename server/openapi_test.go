package server

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
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
	for _, r := range missing(served, documented) {
		t.Errorf("route %s is not in api/openapi.json", r)
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

// TestOpenAPIErrorCodes checks that every error code the server's source
// can answer is in the document's list of codes, and every listed code is
// one it answers.
func TestOpenAPIErrorCodes(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Error struct {
							Properties struct {
								Code struct {
									Enum []string `json:"enum"`
								} `json:"code"`
							} `json:"properties"`
						} `json:"error"`
					} `json:"properties"`
				} `json:"Error"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	listed := doc.Components.Schemas.Error.Properties.Error.Properties.Code.Enum
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	// newError(status, "code", ...) and the helpers that fix the code.
	re := regexp.MustCompile(`newError\([^,]+, "([a-z0-9_]+)"`)
	used := []string{"bad_request", "store_failed"}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			used = append(used, string(m[1]))
		}
	}
	if len(used) < 20 {
		t.Fatalf("found only %d error codes in the source: %v", len(used), used)
	}
	for _, c := range missing(used, listed) {
		t.Errorf("the server answers error code %q, which api/openapi.json does not list", c)
	}
	for _, c := range missing(listed, used) {
		t.Errorf("api/openapi.json lists error code %q, which the server never answers", c)
	}
}

// TestOpenAPIStats checks that the Stats schema lists exactly the fields
// that /v1/stats answers (the engine's Stats and the server's limits),
// and requires only those that are never omitted.
func TestOpenAPIStats(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				Stats struct {
					Required   []string                   `json:"required"`
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"Stats"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	st := doc.Components.Schemas.Stats
	fields := map[string]bool{} // name: omitted when empty
	var collect func(reflect.Type)
	collect = func(typ reflect.Type) {
		for f := range typ.Fields() {
			if f.Anonymous {
				collect(f.Type) // the engine's Stats, inside the answer's
				continue
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			fields[name] = strings.Contains(opts, "omit")
		}
	}
	collect(reflect.TypeFor[statsOut]())
	if _, ok := fields["max_batch"]; !ok {
		t.Fatal("the answer's own fields are not found")
	}
	if len(fields) == 0 {
		t.Fatal("no fields found in neardup.Stats")
	}
	for name, omitted := range fields {
		if _, ok := st.Properties[name]; !ok {
			t.Errorf("Stats field %q is not in the schema", name)
		}
		if !omitted != slices.Contains(st.Required, name) {
			t.Errorf("Stats field %q: required in the schema %v, never omitted %v", name, slices.Contains(st.Required, name), !omitted)
		}
	}
	for name := range st.Properties {
		if _, ok := fields[name]; !ok {
			t.Errorf("schema property %q is not a field of Stats", name)
		}
	}
}

// missing returns the elements of a that b lacks.
func missing(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
