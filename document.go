package neardup

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/neardup/neardup/similarity"
)

// Errors returned by the Engine. Callers test for them with errors.Is; the
// returned errors wrap them with the id or the value at fault.
var (
	// ErrNotFound is returned by Get and Delete for an id that is not
	// stored (never inserted, deleted, or expired).
	ErrNotFound = errors.New("neardup: document not found")
	// ErrClosed is returned by every Engine method called after Close.
	ErrClosed = errors.New("neardup: engine closed")
	// ErrEmptyText is returned for a document whose text is empty or only
	// white space: it has no features, so it cannot be compared.
	ErrEmptyText = errors.New("neardup: empty text")
	// ErrInvalidUTF8 is returned for a document whose text or id is not
	// valid UTF-8 when Options.RejectInvalidUTF8 is set (by default invalid
	// bytes of a text are read as U+FFFD and the text is accepted).
	ErrInvalidUTF8 = errors.New("neardup: text is not valid UTF-8")
	// ErrBadMeta is returned for a document to store whose Meta is not
	// valid JSON: Get could not return it as JSON.
	ErrBadMeta = errors.New("neardup: meta is not valid JSON")
	// ErrEmptyID is returned for a document without an id.
	ErrEmptyID = errors.New("neardup: empty document id")
	// ErrIDTooLong is returned for a document whose id has more than
	// MaxIDBytes bytes.
	ErrIDTooLong = errors.New("neardup: document id too long")
	// ErrIDConflict is returned when a stored id is inserted again with a
	// different text. The stored document is left unchanged; to replace
	// it, Delete it first.
	ErrIDConflict = errors.New("neardup: id already stored with another text")
	// ErrTooLarge is returned for a text longer than Options.MaxTextBytes.
	ErrTooLarge = errors.New("neardup: text too large")
	// ErrExpired is returned when inserting a document whose Time is
	// already outside the retention window: it would never be returned.
	ErrExpired = errors.New("neardup: document time outside the retention window")
	// ErrFutureTime is returned when inserting a document whose Time is
	// more than MaxFuture ahead of the engine's clock: it would outlive the
	// retention window by as much.
	ErrFutureTime = errors.New("neardup: document time in the future")
	// ErrStoreFailed is returned by every Engine method that reads or
	// writes documents once a write to the store has failed (a full disk,
	// say): the store is then in an unknown state, so the engine stops
	// until it is closed and opened again, which finds every document
	// acknowledged before. The returned error wraps the store's.
	ErrStoreFailed = errors.New("neardup: store write failed, engine stopped")
	// ErrDiskFull is returned by CheckAndInsert, CheckAndInsertBatch and
	// Insert while the store's file system has less free space than
	// Options.MinFreeBytes: nothing is stored, and writes resume once there
	// is room again. The returned error gives the figures.
	ErrDiskFull = errors.New("neardup: too little free disk space for the store")
)

// MaxIDBytes is the longest document id the Engine takes, in bytes: an id
// must fit in the path of a request for it (HTTP servers bound a request's
// head, to 64 KiB in neardup's), even with every byte percent-encoded.
const MaxIDBytes = 4096

// MaxFuture is how far ahead of the engine's clock a document's Time may
// be: clocks of the machines that send documents may run somewhat ahead,
// but a document dated next year would stay a year beyond the retention
// window.
const MaxFuture = time.Hour

// Document is a text to check or store, identified by ID.
type Document struct {
	// ID identifies the document; it must not be empty, nor longer than
	// MaxIDBytes. (Check and CheckBatch take an empty ID: no stored
	// document is then the document itself.)
	ID string `json:"id"`
	// Text is the document's text, UTF-8.
	Text string `json:"text"`
	// Meta is optional JSON kept with the document and returned by Get;
	// it must be valid JSON (ErrBadMeta otherwise).
	Meta json.RawMessage `json:"meta,omitempty"`
	// Time is when the document was seen; the zero Time means now. The
	// retention window counts from it, so it may not be more than
	// MaxFuture ahead of the engine's clock. It is kept to the second.
	Time time.Time `json:"time,omitzero"`
}

// Scores holds the similarity of two texts by each measure.
type Scores = similarity.Scores

// Match is one stored document near a checked one.
type Match struct {
	// ID is the stored document's id.
	ID string `json:"id"`
	// Distance is the Hamming distance between the two fingerprints.
	Distance int `json:"distance"`
	// Similarity is the score the Policy decided on (see Policy).
	Similarity float64 `json:"similarity"`
	// Scores holds every similarity measure. A measure not computed is 0:
	// all of them when texts are not kept, and Levenshtein for texts over
	// 2,000 normalized runes unless the Policy decides by it.
	Scores Scores `json:"scores"`
	// Duplicate reports whether the Policy calls this match a duplicate.
	Duplicate bool `json:"duplicate"`
}

// Result is the engine's answer about one document.
type Result struct {
	// ID is the checked document's id.
	ID string `json:"id"`
	// Duplicate reports whether a stored document is a near-duplicate.
	Duplicate bool `json:"duplicate"`
	// DuplicateOf is the id of the stored document it duplicates (the one
	// with the highest similarity, then the lowest distance, then the
	// earliest), or nil when the document is new.
	DuplicateOf *string `json:"duplicate_of"`
	// Distance and Similarity describe the match named by DuplicateOf
	// (zero when the document is new).
	Distance   int     `json:"distance"`
	Similarity float64 `json:"similarity"`
	// Matches lists the verified duplicates, best first (the first is
	// DuplicateOf); candidates the Policy rejected are not listed.
	Matches []Match `json:"matches"`
	// Fingerprint is the document's fingerprint (hex in JSON).
	Fingerprint Fingerprint `json:"fingerprint"`
	// Inserted reports whether this call stored the document. It is false
	// for Check, for a duplicate, and for a re-insert of an id already
	// stored with the same text (which is not an error).
	Inserted bool `json:"inserted"`
}

// MarshalJSON encodes r with Matches as [] rather than null when empty (the
// fingerprint is hex through Fingerprint.MarshalText).
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result // without this method
	if r.Matches == nil {
		r.Matches = []Match{}
	}
	return json.Marshal(plain(r))
}

// Stats describes an engine's contents and activity since it was opened.
type Stats struct {
	// Documents is the number of stored documents (expired ones may count
	// until the next expiry pass removes them).
	Documents int `json:"documents"`
	// ShortDocuments is how many of them are also in the short-text index.
	ShortDocuments int `json:"short_documents"`
	// Checks, Inserts and Duplicates count calls and decisions.
	Checks     uint64 `json:"checks"`
	Inserts    uint64 `json:"inserts"`
	Duplicates uint64 `json:"duplicates"`
	// Candidates counts index candidates verified; Rejected those the
	// Policy turned down.
	Candidates uint64 `json:"candidates"`
	Rejected   uint64 `json:"rejected"`
	// Expired counts documents removed by the retention window.
	Expired uint64 `json:"expired"`
	// Deleted counts documents removed by Delete.
	Deleted uint64 `json:"deleted"`
	// Syncs counts the store's synced commits that carried documents since
	// Open; Inserts divided by it is how many documents a sync carried on
	// average (group commit shares a sync among concurrent calls). 0 with
	// Durability NoSync.
	Syncs uint64 `json:"syncs"`
	// StoreBytes estimates the store's size on disk (or in memory).
	StoreBytes uint64 `json:"store_bytes"`
	// IndexBytes is the memory the engine's fingerprint indexes hold
	// (index.Index.Bytes of each): the part of its memory that grows with
	// the documents kept, besides the store's caches.
	IndexBytes int64 `json:"index_bytes"`
	// Profile names the fingerprinting profile (Config.Profile), empty
	// for a caller's Fingerprinter.
	Profile string `json:"profile,omitempty"`
	// Pipeline describes the default profile's pipeline when it is not
	// the default one (Pipeline.String: "HTML=true,FoldAccents=true"),
	// empty otherwise: how the engine reads texts.
	Pipeline string `json:"pipeline,omitempty"`
	// DistinctNumbers and DistinctNegation are the Policy's switches of
	// those names: pairs whose numbers, or words of negation, differ are
	// never duplicates.
	DistinctNumbers  bool `json:"distinct_numbers,omitempty"`
	DistinctNegation bool `json:"distinct_negation,omitempty"`
	// Bits and K describe the fingerprints and the index: K is the
	// distance within which texts are candidates, at the fingerprints'
	// width, and ShortK the wider one of short texts (0 when the Policy
	// has none); TinyK is that of tiny texts, those under TinyLength
	// normalized runes (both 0 when the Policy has none).
	Bits       int `json:"bits"`
	K          int `json:"k"`
	ShortK     int `json:"short_k,omitempty"`
	TinyK      int `json:"tiny_k,omitempty"`
	TinyLength int `json:"tiny_length,omitempty"`
	// TinyWords is the Policy's TinyWords when the engine keeps deletion
	// keys (0 when it does not), and DeletionKeys how many it holds: a
	// few tens of bytes of memory each.
	TinyWords    int `json:"tiny_words,omitempty"`
	DeletionKeys int `json:"deletion_keys,omitempty"`
	// Retention is the retention window in seconds (0: kept forever).
	Retention float64 `json:"retention_seconds"`
	// OpenSeconds is how long Open took to restore the index.
	OpenSeconds float64 `json:"open_seconds"`
	// MissingTexts is how many stored records Open found whose texts are
	// missing from the store's text files, and deleted: the documents of a
	// commit that a stopped machine never finished (and never
	// acknowledged), or, if many, of a text file cut short or removed.
	MissingTexts int `json:"missing_texts,omitempty"`
	// Failure is the store failure that stopped the engine (see
	// ErrStoreFailed), empty while it works.
	Failure string `json:"failure,omitempty"`
	// FreeBytes is the free space of the store's file system when last
	// measured (see Options.MinFreeBytes), 0 when the engine does not
	// measure it; DiskFull is true while writes are refused for want of it
	// (ErrDiskFull).
	FreeBytes int64 `json:"free_bytes,omitempty"`
	DiskFull  bool  `json:"disk_full,omitempty"`
}

// idUTF8Error is ErrInvalidUTF8 for a document's id.
type idUTF8Error struct{ id string }

func (e idUTF8Error) Error() string {
	return fmt.Sprintf("neardup: id %q is not valid UTF-8", e.id)
}

// Is reports whether target is ErrInvalidUTF8.
func (e idUTF8Error) Is(target error) bool { return target == ErrInvalidUTF8 }
