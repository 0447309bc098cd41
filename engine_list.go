package neardup

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/neardup/neardup/store"
)

// ErrBadCursor is returned by List for a cursor not of the form it gives.
var ErrBadCursor = errors.New("neardup: bad cursor")

// MaxListLimit is the most documents one List call returns.
const MaxListLimit = 10000

// maxListBytes bounds the texts and metadata of one page of List: a page
// ends early, with a next cursor, once they reach it, so that a page of
// long texts takes no more memory than a few large requests.
const maxListBytes = 16 << 20

// StoredDocument is a document as the engine keeps it (List).
type StoredDocument struct {
	Document
	// Fingerprint is the document's fingerprint.
	Fingerprint Fingerprint `json:"fingerprint"`
}

// ListOptions says what List returns.
type ListOptions struct {
	// After is the cursor of the page before (a Next that List returned);
	// empty for the first page.
	After string
	// Limit is the most documents to return, from 1 to MaxListLimit.
	Limit int
	// NoText leaves the texts and metadata out, so that only the records
	// are read.
	NoText bool
}

// List returns the stored documents within the retention window, a page
// of at most o.Limit at a time, in the store's order (by the hour they
// were seen, and within an hour in the order they were stored), with next,
// the cursor of the following page: empty when this one ends the store.
// Documents stored or deleted while the pages are read appear or not by
// where they lie against the cursor; every document stored before the
// first call and kept until the last is listed once. Texts are empty when
// the engine keeps none (Options.DropText). A page ends early, with a
// next cursor, once its texts and metadata reach 16 MiB. A cursor that is
// not one of List's form (16 hex digits) returns ErrBadCursor, a Limit
// out of range an error naming it.
func (e *Engine) List(ctx context.Context, o ListOptions) (docs []StoredDocument, next string, err error) {
	if o.Limit < 1 || o.Limit > MaxListLimit {
		return nil, "", fmt.Errorf("neardup: list limit %d: want 1 to %d", o.Limit, MaxListLimit)
	}
	from := uint64(0)
	if o.After != "" {
		seq, err := strconv.ParseUint(o.After, 16, 64)
		if err != nil || len(o.After) != 16 {
			return nil, "", fmt.Errorf("%w %s: want the next of an earlier page, or none for the first", ErrBadCursor, quoteID(o.After))
		}
		if seq == ^uint64(0) {
			return nil, "", nil // nothing can follow the last place
		}
		from = seq + 1
	}
	if err := e.enter(); err != nil {
		return nil, "", err
	}
	defer e.leave()
	cutoff := e.cutoff()
	var last uint64
	bytes := 0
	more := errors.New("page full")
	err = e.db.ScanViews(from, 0, func(v *store.View) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if v.Time < cutoff {
			return nil
		}
		if len(docs) == o.Limit || bytes >= maxListBytes {
			return more // one more is there: the page is not the last
		}
		fp, err := FromBytes(v.Fingerprint)
		if err != nil {
			return fmt.Errorf("document %s: %w", quoteID(string(v.ID)), err)
		}
		d := StoredDocument{Document: Document{ID: string(v.ID), Time: time.Unix(v.Time, 0)}, Fingerprint: fp}
		if !o.NoText {
			text, meta, err := e.db.TextMetaAt(v.Seq, v.TextPlace())
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("document %s: %w", quoteID(d.ID), err)
			}
			d.Text, d.Meta = string(text), meta
			bytes += len(text) + len(meta)
		}
		docs = append(docs, d)
		last = v.Seq
		return nil
	})
	switch {
	case errors.Is(err, more):
		return docs, fmt.Sprintf("%016x", last), nil
	case err != nil:
		return nil, "", fmt.Errorf("neardup: list: %w", err)
	}
	return docs, "", nil
}
