package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// StoredDocument is a document of a List page, as the server keeps it.
type StoredDocument struct {
	ID string `json:"id"`
	// Time is when the document was seen, to the second.
	Time time.Time `json:"time"`
	// Fingerprint is the document's fingerprint in hex.
	Fingerprint string `json:"fingerprint"`
	// Text is the document's text: empty when the page was asked without
	// texts, or when the server keeps none.
	Text string          `json:"text"`
	Meta json.RawMessage `json:"meta,omitempty"`
}

// Page is one page of the stored documents (List).
type Page struct {
	Documents []StoredDocument `json:"documents"`
	// Next is the cursor of the next page, for List's after: empty on the
	// last page.
	Next string `json:"next"`
}

// List returns a page of at most limit stored documents (0: the server's
// default, 100; at most 10,000) after the cursor after (empty for the
// first page), in the store's order, by GET /v1/documents. With noText
// the documents come without their texts and metadata.
func (c *Client) List(ctx context.Context, after string, limit int, noText bool) (Page, error) {
	q := url.Values{}
	if after != "" {
		q.Set("after", after)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if noText {
		q.Set("text", "false")
	}
	path := "/v1/documents"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var p Page
	err := c.do(ctx, http.MethodGet, path, nil, &p)
	return p, err
}

// Documents yields every stored document, in the store's order, asking
// for pages of pageSize (0: the server's default) until the last; an
// error ends the sequence with it.
func (c *Client) Documents(ctx context.Context, pageSize int, noText bool) iter.Seq2[StoredDocument, error] {
	return func(yield func(StoredDocument, error) bool) {
		after := ""
		for {
			p, err := c.List(ctx, after, pageSize, noText)
			if err != nil {
				yield(StoredDocument{}, err)
				return
			}
			for _, d := range p.Documents {
				if !yield(d, nil) {
					return
				}
			}
			if p.Next == "" {
				return
			}
			after = p.Next
		}
	}
}
