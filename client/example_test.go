package client_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/server"
)

// Example posts a document and a near-copy of it: the copy is reported as a
// duplicate of the first and is not stored.
func Example() {
	// A server on loopback with an in-memory store stands in for
	// `neardup serve` here.
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
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	ctx := context.Background()
	c := client.New(srv.URL, nil)
	text := "Clients post documents as they arrive and learn at once whether each is new or a near-copy of one already kept."
	first, err := c.CheckAndInsert(ctx, client.Document{ID: "news-1", Text: text})
	if err != nil {
		panic(err)
	}
	fmt.Println(first.ID, "duplicate:", first.Duplicate, "inserted:", first.Inserted)

	again, err := c.CheckAndInsert(ctx, client.Document{ID: "news-2", Text: "  " + text + "  "})
	if err != nil {
		panic(err)
	}
	fmt.Println(again.ID, "duplicate of:", *again.DuplicateOf, "inserted:", again.Inserted)

	_, err = c.Get(ctx, "news-2")
	fmt.Println("news-2 stored:", err == nil)
	// Output:
	// news-1 duplicate: false inserted: true
	// news-2 duplicate of: news-1 inserted: false
	// news-2 stored: false
}
