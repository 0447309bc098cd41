package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/client"
)

// TestListDocuments checks GET /v1/documents through real HTTP and the Go
// client: every stored document once, in the order stored, with the text,
// metadata and fingerprint its insert gave; not the duplicate, nor the
// deleted one; without texts on text=false; and 400 with a message naming
// the bad parameter, or what is wrong with a query string that does not
// parse.
func TestListDocuments(t *testing.T) {
	srv, c := startServer(t)
	ctx := context.Background()
	fps := map[string]string{}
	var order []string
	for i := range 25 {
		d := client.Document{ID: fmt.Sprintf("d%02d", i), Text: longText(uint64(i+1), 40)}
		if i == 4 {
			d.Meta = json.RawMessage(`{"source":"feed"}`)
		}
		r, err := c.CheckAndInsert(ctx, d)
		if err != nil || !r.Inserted {
			t.Fatalf("insert %s: %+v, %v", d.ID, r, err)
		}
		fps[d.ID] = r.Fingerprint
		order = append(order, d.ID)
	}
	if r, err := c.CheckAndInsert(ctx, client.Document{ID: "copy", Text: longText(3, 40)}); err != nil || !r.Duplicate {
		t.Fatalf("the copy of d02: %+v, %v; want a duplicate", r, err)
	}
	if err := c.Delete(ctx, "d10"); err != nil {
		t.Fatal(err)
	}
	order = slices.DeleteFunc(order, func(id string) bool { return id == "d10" })

	var got []string
	for d, err := range c.Documents(ctx, 7, false) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d.ID)
		if d.Fingerprint != fps[d.ID] || d.Text == "" || d.Time.IsZero() {
			t.Errorf("%s: %+v, want its text, time and fingerprint %s", d.ID, d, fps[d.ID])
		}
		if (d.ID == "d04") != (string(d.Meta) == `{"source":"feed"}`) {
			t.Errorf("%s: meta %s", d.ID, d.Meta)
		}
	}
	if !slices.Equal(got, order) {
		t.Fatalf("listed %q, want %q", got, order)
	}

	p, err := c.List(ctx, "", 30, true)
	if err != nil || len(p.Documents) != len(order) || p.Next != "" || p.Documents[0].Text != "" || p.Documents[4].Meta != nil {
		t.Fatalf("List without texts: %+v, %v", p, err)
	}
	p, err = c.List(ctx, "", 24, false)
	if err != nil || len(p.Documents) != 24 || p.Next != "" {
		t.Fatalf("a page of all %d: next %q, %v; want no next", len(order), p.Next, err)
	}

	for _, tc := range []struct{ query, msg string }{
		{"limit=0", `limit "0": want a number from 1 to 10000`},
		{"limit=x", `limit "x"`},
		{"after=zz", `bad cursor "zz"`},
		{"text=maybe", `text "maybe": want true or false`},
		{"cursor=1", `unknown query parameter "cursor"`},
		// A query string that does not parse is refused, not read in
		// part: the page would be another than the one asked for.
		{"limit=%zz", `malformed query string: invalid URL escape "%zz"`},
		{"limit=1;text=false", "malformed query string: invalid semicolon separator"},
		{"limit=1&bogus;x=1", "malformed query string: invalid semicolon separator"},
		{"text=false&after=%g0", `malformed query string: invalid URL escape "%g0"`},
		{"limit=1&limit=2", `query parameter "limit" given 2 times; give it once`},
	} {
		resp, err := srv.Client().Get(srv.URL + "/v1/documents?" + tc.query)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var e struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(body, &e)
		if resp.StatusCode != http.StatusBadRequest || e.Error.Code != "bad_request" || !strings.Contains(e.Error.Message, tc.msg) {
			t.Errorf("GET /v1/documents?%s: %d %s, want 400 bad_request with %q", tc.query, resp.StatusCode, body, tc.msg)
		}
	}
}
