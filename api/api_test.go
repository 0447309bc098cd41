package api_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/neardup/neardup/api"
)

// TestOpenAPICopies checks that callers get their own copy to modify.
func TestOpenAPICopies(t *testing.T) {
	a := api.OpenAPI()
	a[0] = 'x'
	if b := api.OpenAPI(); b[0] == 'x' {
		t.Error("OpenAPI returned shared bytes")
	}
}

// TestRefsResolve checks that every $ref in the document names a component
// that exists.
func TestRefsResolve(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				var kind, name string
				if _, err := fmt.Sscanf(ref, "#/components/%s", &kind); err != nil {
					t.Errorf("ref %q", ref)
					return
				}
				for i := range kind {
					if kind[i] == '/' {
						kind, name = kind[:i], kind[i+1:]
						break
					}
				}
				comps, _ := doc["components"].(map[string]any)
				group, _ := comps[kind].(map[string]any)
				if _, ok := group[name]; !ok {
					t.Errorf("ref %q names nothing", ref)
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
}

// Example lists the API's version and paths count.
func Example() {
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Title string }
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(api.OpenAPI(), &doc); err != nil {
		panic(err)
	}
	fmt.Println(doc.Info.Title, "OpenAPI", doc.OpenAPI, "paths:", len(doc.Paths))
	// Output: neardup OpenAPI 3.1.0 paths: 12
}
