package server_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/server"
)

// Example serves an in-memory engine and posts a document and a copy of
// it; the copy is answered as a duplicate of the first.
func Example() {
	opts := neardup.DefaultOptions()
	opts.InMemory = true
	engine, err := neardup.Open("", &opts)
	if err != nil {
		panic(err)
	}
	defer engine.Close()
	s, err := server.New(server.Options{})
	if err != nil {
		panic(err)
	}
	s.SetEngine(engine)

	post := func(body string) {
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, httptest.NewRequest("POST", "/v1/documents", strings.NewReader(body)))
		var r struct {
			ID          string  `json:"id"`
			Duplicate   bool    `json:"duplicate"`
			DuplicateOf *string `json:"duplicate_of"`
			Error       *struct{ Code string }
		}
		json.Unmarshal(w.Body.Bytes(), &r)
		switch {
		case r.Error != nil:
			fmt.Println(w.Code, r.Error.Code)
		case r.Duplicate:
			fmt.Println(w.Code, r.ID, "duplicates", *r.DuplicateOf)
		default:
			fmt.Println(w.Code, r.ID, "is new")
		}
	}
	post(`{"id":"a","text":"The river flooded the old town overnight."}`)
	post(`{"id":"b","text":"THE RIVER FLOODED THE OLD TOWN OVERNIGHT."}`)
	post(`{"id":"c","text":""}`)
	// Output:
	// 200 a is new
	// 200 b duplicates a
	// 400 missing_text
}
