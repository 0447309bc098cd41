// Package client is a Go client for the HTTP API of `neardup serve`.
//
// It depends only on the standard library, so programs that post documents
// to a neardup server do not link the engine or its store.
//
// The client sends each call once and does not retry: a server that is
// busy (429 overloaded), starting or draining (503 unavailable) answers
// with an *Error whose RetryAfter says how long it asks the caller to
// wait. Give New an http.Client with a Timeout to bound a call's time;
// http.DefaultClient, used for a nil one, has none (a context deadline
// bounds a call too).
//
//	c := client.New("http://127.0.0.1:8080", nil)
//	res, err := c.CheckAndInsert(ctx, client.Document{Text: text})
//	if res.Duplicate { ... *res.DuplicateOf names the kept copy ... }
package client

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// ErrNotFound matches (with errors.Is) the error returned for an unknown
// document id.
var ErrNotFound = errors.New("client: document not found")

// ErrInvalidUTF8 is returned, before anything is sent, for a request whose
// texts or ids are not valid UTF-8: JSON cannot carry such strings, and
// the server would get U+FFFD in place of each bad byte.
var ErrInvalidUTF8 = errors.New("client: a text or id is not valid UTF-8")

// Error is an error answered by the server: its HTTP status and the code
// and message of the error body. In a Batch result it is one document's,
// and Status is 0.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	// RetryAfter is the wait the server's Retry-After header asks for
	// before a retry (with 429 and 503, but not 503 store_failed, which
	// only a restart of the server mends); 0 when it sent none.
	RetryAfter time.Duration `json:"-"`
}

// Error describes the server's answer: its status (or that a batch's
// document was refused), code and message.
func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("client: server refused the batch item: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("client: server answered %d %s: %s", e.Status, e.Code, e.Message)
}

// Is reports whether e is ErrNotFound's kind of error: the server's
// not_found, which says that no document has the id (an unknown route is
// no_route).
func (e *Error) Is(target error) bool { return target == ErrNotFound && e.Code == "not_found" }

// Document is a document to check, insert or get.
type Document struct {
	// ID is the document's id; when empty on insert the server assigns one.
	ID string `json:"id,omitempty"`
	// Text is the document's text; it must be non-empty valid UTF-8.
	Text string `json:"text"`
	// Meta is optional JSON stored with the document.
	Meta json.RawMessage `json:"meta,omitempty"`
	// Time is when the document was seen (for the retention window); the
	// zero value means now.
	Time time.Time `json:"time,omitzero"`
}

// Scores holds the similarity of two texts by each measure, from 0 to 1.
// A measure the server did not compute is 0 in its field and reported by
// Computed: under --scores rule, every one but the measure its policy
// decided by; the Levenshtein ratio of texts over 2,000 characters unless
// the policy decides by it; every one of a query by fingerprint.
type Scores struct {
	Jaccard     float64 `json:"jaccard"`
	Cosine      float64 `json:"cosine"`
	Levenshtein float64 `json:"levenshtein"`
	// none holds the measures the server sent as null, by the bits of
	// scoreKeys.
	none uint8
}

// scoreKeys are the measures of Scores, in the order of its fields: the
// names Computed takes and the JSON keys.
var scoreKeys = [3]string{"jaccard", "cosine", "levenshtein"}

// scoresJSON is the JSON form of Scores, where a measure not computed is
// null.
type scoresJSON struct {
	Jaccard     *float64 `json:"jaccard"`
	Cosine      *float64 `json:"cosine"`
	Levenshtein *float64 `json:"levenshtein"`
}

// Computed reports whether the server computed the measure named m
// ("jaccard", "cosine" or "levenshtein"): false for one it sent as null,
// not computed, whose field is then 0 without meaning "not similar". It is
// false for any other name.
func (s Scores) Computed(m string) bool {
	for i, k := range scoreKeys {
		if k == m {
			return s.none&(1<<i) == 0
		}
	}
	return false
}

// UnmarshalJSON reads the scores as the server sends them, a measure not
// computed as null (or absent).
func (s *Scores) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return nil
	}
	var v scoresJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Scores{}
	for i, p := range [3]struct {
		in  *float64
		out *float64
	}{{v.Jaccard, &s.Jaccard}, {v.Cosine, &s.Cosine}, {v.Levenshtein, &s.Levenshtein}} {
		if p.in == nil {
			s.none |= 1 << i
		} else {
			*p.out = *p.in
		}
	}
	return nil
}

// MarshalJSON writes the scores as the server does: a measure not
// computed as null.
func (s Scores) MarshalJSON() ([]byte, error) {
	var v scoresJSON
	for i, p := range [3]struct {
		out **float64
		in  *float64
	}{{&v.Jaccard, &s.Jaccard}, {&v.Cosine, &s.Cosine}, {&v.Levenshtein, &s.Levenshtein}} {
		if s.none&(1<<i) == 0 {
			*p.out = p.in
		}
	}
	return json.Marshal(v)
}

// Match is a stored document near a checked one.
type Match struct {
	ID         string  `json:"id"`
	Distance   int     `json:"distance"`
	Similarity float64 `json:"similarity"`
	Scores     Scores  `json:"scores"`
	Duplicate  bool    `json:"duplicate"`
}

// Result is the server's answer about one checked document.
type Result struct {
	// ID is the document's id (assigned by the server if none was sent).
	ID string `json:"id"`
	// Duplicate reports whether a stored document is a near-duplicate;
	// DuplicateOf then names it (nil when the document is new).
	Duplicate   bool    `json:"duplicate"`
	DuplicateOf *string `json:"duplicate_of"`
	// Distance and Similarity describe the match named by DuplicateOf.
	Distance   int     `json:"distance"`
	Similarity float64 `json:"similarity"`
	// Fingerprint is the document's fingerprint in hex.
	Fingerprint string `json:"fingerprint"`
	// Inserted reports whether this request stored the document.
	Inserted bool    `json:"inserted"`
	Matches  []Match `json:"matches"`
	// Error, in a Batch result, says why the server refused this
	// document (an id stored with another text, a time outside the
	// retention window, an empty text...); the other fields are then empty
	// but for ID. It is nil for the documents processed.
	Error *Error `json:"error,omitempty"`
}

// QueryResult is the answer to Query.
type QueryResult struct {
	Fingerprint string  `json:"fingerprint"`
	Duplicate   bool    `json:"duplicate"`
	DuplicateOf *string `json:"duplicate_of"`
	Matches     []Match `json:"matches"`
	// Error is set, in a QueryBatch result, for a query the server
	// refused (a blank text, one too large); the other fields are then
	// empty. It is nil for the queries answered.
	Error *Error `json:"error,omitempty"`
}

// Query asks for the stored documents near a text or a fingerprint; set
// exactly one of Text and Fingerprint. K, when not nil, keeps only matches
// within K bits.
type Query struct {
	Text        string `json:"text,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	K           *int   `json:"k,omitempty"`
}

// Comparison is the answer to Compare.
type Comparison struct {
	Profile               string  `json:"profile"`
	Bits                  int     `json:"bits"`
	FingerprintA          string  `json:"fingerprint_a"`
	FingerprintB          string  `json:"fingerprint_b"`
	Distance              int     `json:"distance"`
	FingerprintSimilarity float64 `json:"fingerprint_similarity"`
	Scores                Scores  `json:"scores"`
	// Duplicate is the verdict of the server's policy, and Similarity the
	// score of the measure it decided on.
	Duplicate  bool    `json:"duplicate"`
	Similarity float64 `json:"similarity"`
	// Rule is the policy's rule that judged the pair.
	Rule Rule `json:"rule"`
}

// Rule is a rule of the server's policy: Name "tiny" or "short" (the
// shorter text under the policy's tiny or short length, the longer under
// a quarter more) or "long"; a pair more than MaxDistance bits apart (at
// the fingerprints' width) is not verified, unless OneWordApart, and one
// verified is a duplicate when its Measure is at least MinSimilarity.
type Rule struct {
	Name          string  `json:"name"`
	MaxDistance   int     `json:"max_distance"`
	Measure       string  `json:"measure"`
	MinSimilarity float64 `json:"min_similarity"`
	// OneWordApart, in a comparison's rule, says that the rule is the
	// tiny one and the texts one word apart (a word replaced, inserted or
	// deleted, of 4 to the policy's tiny words each): they are verified
	// whatever their distance.
	OneWordApart bool `json:"one_word_apart,omitempty"`
	// ToldApartBy, in a comparison's rule, says why a pair that its
	// measure passes is no duplicate: "numbers" (the server's
	// --distinct-numbers, their numbers differ) or "negation"
	// (--distinct-negation, their words of negation do); "" otherwise.
	ToldApartBy string `json:"told_apart_by,omitempty"`
}

// FingerprintRequest asks for the fingerprint of Text. Empty Profile and
// zero Bits mean the server's configuration; Algo is "simhash" or
// "nilsimsa".
type FingerprintRequest struct {
	Text    string `json:"text"`
	Profile string `json:"profile,omitempty"`
	Bits    int    `json:"bits,omitempty"`
	Algo    string `json:"algo,omitempty"`
}

// FingerprintResult is the answer to Fingerprint.
type FingerprintResult struct {
	Fingerprint string `json:"fingerprint"`
	Bits        int    `json:"bits"`
	Profile     string `json:"profile"`
}

// Stats is the store's statistics as GET /v1/stats reports them.
type Stats struct {
	Documents int `json:"documents"`
	// ShortDocuments are the stored documents short enough for the
	// policy's short-text rule.
	ShortDocuments int    `json:"short_documents"`
	Checks         uint64 `json:"checks"`
	Inserts        uint64 `json:"inserts"`
	Duplicates     uint64 `json:"duplicates"`
	Expired        uint64 `json:"expired"`
	Deleted        uint64 `json:"deleted"`
	// Candidates are the stored documents the index named that were
	// compared text to text; Rejected those the policy turned down.
	Candidates uint64 `json:"candidates"`
	Rejected   uint64 `json:"rejected"`
	// Syncs are the store's synced commits.
	Syncs      uint64 `json:"syncs"`
	StoreBytes uint64 `json:"store_bytes"`
	// IndexBytes is the memory the server's fingerprint indexes hold.
	IndexBytes int64 `json:"index_bytes"`
	// Profile is the server's fingerprinting profile; Bits its width; K,
	// ShortK and TinyK the distances within which long, short and tiny
	// texts are candidates, at that width; TinyLength the length in
	// normalized characters under which a text is tiny (TinyK and
	// TinyLength 0: the policy has no tiny texts).
	Profile    string `json:"profile"`
	Bits       int    `json:"bits"`
	K          int    `json:"k"`
	ShortK     int    `json:"short_k"`
	TinyK      int    `json:"tiny_k"`
	TinyLength int    `json:"tiny_length"`
	// Pipeline describes the server's pipeline when it is not the default
	// profile's own, as --pipeline writes it ("HTML=true,Shingle=3");
	// empty otherwise.
	Pipeline string `json:"pipeline"`
	// DistinctNumbers and DistinctNegation are the policy's switches
	// (--distinct-numbers, --distinct-negation): pairs whose numbers, or
	// words of negation, differ are never duplicates.
	DistinctNumbers  bool `json:"distinct_numbers"`
	DistinctNegation bool `json:"distinct_negation"`
	// TinyWords is the policy's --tiny-words when the server keeps
	// deletion keys for tiny texts (0 when it keeps none), and
	// DeletionKeys how many it holds.
	TinyWords    int `json:"tiny_words"`
	DeletionKeys int `json:"deletion_keys"`
	// Retention is how long the server keeps documents, in seconds (0:
	// forever); OpenSeconds how long its store took to open, in seconds.
	Retention   float64 `json:"retention_seconds"`
	OpenSeconds float64 `json:"open_seconds"`
	// MissingTexts is how many records the server's engine deleted when it
	// opened the store because their texts were missing (see
	// neardup.Stats.MissingTexts); 0 normally.
	MissingTexts int `json:"missing_texts"`
	// Failure is the store failure that stopped the engine (the server
	// then answers 503 store_failed until restarted), empty while it works.
	Failure string `json:"failure"`
	// FreeBytes is the free space of the store's file system when last
	// measured (0: not measured); DiskFull is true while posts get 507
	// insufficient_storage for want of it.
	FreeBytes int64 `json:"free_bytes"`
	DiskFull  bool  `json:"disk_full"`
	// MaxBatch and MaxBodyBytes are the server's limits of a request
	// (--max-batch and --max-body), which BatchAll keeps to; 0 from a
	// server that does not say.
	MaxBatch     int   `json:"max_batch"`
	MaxBodyBytes int64 `json:"max_body_bytes"`
}

// Client calls one neardup server. It is safe for concurrent use.
type Client struct {
	base string
	hc   *http.Client
	// gzip is true when bodies of gzipMin bytes or more are sent
	// compressed (Gzip).
	gzip    bool
	gzipMin int
}

// New returns a client of the server at baseURL: its scheme, host and
// port (such as "http://127.0.0.1:8080"), and the path prefix of a proxy
// in front of it if there is one; the API's paths are appended to it. A
// baseURL with a query or a fragment is an error of every call. A nil hc
// means http.DefaultClient.
func New(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: hc}
}

// Gzip returns a client like c that sends each request body of at least
// minSize bytes compressed with gzip (Content-Encoding: gzip), which the
// server decompresses; minSize 0 compresses every body. A batch of texts
// is sent in half its bytes or fewer, for the client's CPU: gzip's fastest
// level compresses about 60 MB of JSON a second on one core here, a fifth
// of the speed of encoding it (BenchmarkGzip), so it pays on links slower
// than that, not on loopback or a fast LAN. The server's --max-body bounds
// a body both as sent and as decompressed, so compression does not raise
// the largest batch. c itself is not changed.
func (c *Client) Gzip(minSize int) *Client {
	g := *c
	g.gzip, g.gzipMin = true, max(minSize, 0)
	return &g
}

// gzipWriters are the gzip writers of the clients, kept for reuse: each
// holds a few hundred KiB of state.
var gzipWriters sync.Pool

// compress returns b compressed with gzip at its fastest level.
func compress(b []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(b)/3 + 64)
	w, _ := gzipWriters.Get().(*gzip.Writer)
	if w == nil {
		w, _ = gzip.NewWriterLevel(&out, gzip.BestSpeed) // a valid level: no error
	} else {
		w.Reset(&out)
	}
	defer gzipWriters.Put(w)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// CheckAndInsert checks d against the store and stores it if it is new.
func (c *Client) CheckAndInsert(ctx context.Context, d Document) (Result, error) {
	if err := checkUTF8("", 0, "id", d.ID, "text", d.Text); err != nil {
		return Result{}, err
	}
	var r Result
	err := c.do(ctx, http.MethodPost, "/v1/documents", d, &r)
	return r, err
}

// checkUTF8 returns an error wrapping ErrInvalidUTF8 for the first of the
// named strings (name, value, name, value...) that is not valid UTF-8:
// JSON cannot carry it, and the server would get U+FFFD in place of each
// bad byte. noun and i name the batch item they belong to ("document",
// 3); an empty noun names none.
func checkUTF8(noun string, i int, fields ...string) error {
	for f := 0; f+1 < len(fields); f += 2 {
		v := fields[f+1]
		if utf8.ValidString(v) {
			continue
		}
		off := 0
		for off < len(v) {
			r, n := utf8.DecodeRuneInString(v[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		item := ""
		if noun != "" {
			item = fmt.Sprintf("%s %d's ", noun, i)
		}
		return fmt.Errorf("client: %s%s has an invalid byte at offset %d: %w", item, fields[f], off, ErrInvalidUTF8)
	}
	return nil
}

// Batch checks and inserts ds in order, as if posted one by one, and
// returns their results in the same order. A document the server refused
// has a result with Error set; the others are processed all the same.
func (c *Client) Batch(ctx context.Context, ds []Document) ([]Result, error) {
	for i, d := range ds {
		if err := checkUTF8("document", i, "id", d.ID, "text", d.Text); err != nil {
			return nil, err
		}
	}
	return postBatch[Result](ctx, c, "/v1/documents/batch", ds, "documents")
}

// The server's default limits of a batch request (neardup serve's
// --max-batch and --max-body), which BatchAll keeps to when given 0 and
// the server does not say its own.
const (
	DefaultMaxBatch = 10000
	DefaultMaxBody  = 4 << 20
)

// BatchAll checks and inserts ds in order, as Batch does, in as many
// requests as the server's limits need: each of at most maxDocs documents
// and maxBytes bytes of JSON as sent (the server's --max-batch and
// --max-body; 0 asks the server for its own, in its Stats, or takes the
// defaults when it does not say), posted one after another, so that any
// number of documents can be given at once. It returns the results in
// order. At the first request that fails it stops and returns the results
// of the requests before it with the error: the documents from len(results)
// on were not decided. A document whose JSON alone is over maxBytes is an
// error before anything is sent.
func (c *Client) BatchAll(ctx context.Context, ds []Document, maxDocs, maxBytes int) ([]Result, error) {
	if len(ds) > 0 && (maxDocs <= 0 || maxBytes <= 0) {
		st, err := c.Stats(ctx)
		if err != nil {
			return nil, fmt.Errorf("client: asking the server for its limits of a batch: %w", err)
		}
		if maxDocs <= 0 {
			maxDocs = st.MaxBatch
		}
		if maxBytes <= 0 {
			maxBytes = int(min(st.MaxBodyBytes, math.MaxInt32))
		}
	}
	if maxDocs <= 0 {
		maxDocs = DefaultMaxBatch
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBody
	}
	// Where each batch ends in ds. A batch's body is a JSON array: its
	// documents, a comma between each two, and the brackets.
	var ends []int
	count, size := 0, 2
	enc := make([]json.RawMessage, len(ds)) // each encoded once, sized and then sent
	for i, d := range ds {
		if err := checkUTF8("document", i, "id", d.ID, "text", d.Text); err != nil {
			return nil, err
		}
		b, err := json.Marshal(d)
		if err != nil {
			return nil, fmt.Errorf("client: encoding document %d: %w", i, err)
		}
		enc[i] = b
		n := len(b)
		if n+2 > maxBytes {
			return nil, fmt.Errorf("client: document %d is %d bytes of JSON, more than a request of %d bytes can hold", i, n, maxBytes)
		}
		if count > 0 && (count == maxDocs || size+1+n > maxBytes) {
			ends = append(ends, i)
			count, size = 0, 2
		}
		if count > 0 {
			size++ // the comma
		}
		size += n
		count++
	}
	ends = append(ends, len(ds))
	var out []Result
	start := 0
	for _, end := range ends {
		if start == end {
			continue
		}
		rs, err := postBatch[Result](ctx, c, "/v1/documents/batch", enc[start:end], "documents")
		if err != nil {
			return out, fmt.Errorf("%w (documents %d to %d of %d; the %d before were decided)", err, start, end-1, len(ds), start)
		}
		out = append(out, rs...)
		start = end
	}
	return out, nil
}

// checkID checks an id to get or delete: no document has the empty id (its
// path would be another route's), and JSON cannot carry one that is not
// valid UTF-8.
func checkID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: the id is empty", ErrNotFound)
	}
	return checkUTF8("", 0, "id", id)
}

// docPath is the path of the document id: its id escaped as a path
// segment, the dot segments "." and ".." included, which an HTTP client or
// server would otherwise resolve away.
func docPath(id string) string {
	e := url.PathEscape(id)
	if strings.Trim(e, ".") == "" {
		e = strings.ReplaceAll(e, ".", "%2E")
	}
	return "/v1/documents/" + e
}

// postBatch posts items to the batch route path and returns the results,
// one for each item; noun names the items in an error.
func postBatch[R, T any](ctx context.Context, c *Client, path string, items []T, noun string) ([]R, error) {
	if len(items) == 0 {
		return nil, nil // nothing to send, nothing answered
	}
	var out struct {
		Results []R `json:"results"`
	}
	if err := c.do(ctx, http.MethodPost, path, items, &out); err != nil {
		return nil, err
	}
	if len(out.Results) != len(items) {
		return nil, fmt.Errorf("client: batch of %d %s got %d results", len(items), noun, len(out.Results))
	}
	return out.Results, nil
}

// Query returns the stored documents near q without inserting anything.
func (c *Client) Query(ctx context.Context, q Query) (QueryResult, error) {
	if err := checkUTF8("", 0, "text", q.Text, "fingerprint", q.Fingerprint); err != nil {
		return QueryResult{}, err
	}
	var r QueryResult
	err := c.do(ctx, http.MethodPost, "/v1/query", q, &r)
	return r, err
}

// QueryBatch answers qs as Query answers each alone, in one request, and
// returns their results in the same order; nothing is stored. A query the
// engine refused (a text empty once normalized, or too large) has a result
// with Error set; the others are answered all the same. A query that is
// malformed (a fingerprint that is not hex or not of the server's width,
// or both a text and a fingerprint) fails the whole request instead: the
// error is an *Error whose message names the query by its place, as
// "query 1", and no result is returned.
func (c *Client) QueryBatch(ctx context.Context, qs []Query) ([]QueryResult, error) {
	for i, q := range qs {
		if err := checkUTF8("query", i, "text", q.Text, "fingerprint", q.Fingerprint); err != nil {
			return nil, err
		}
	}
	return postBatch[QueryResult](ctx, c, "/v1/query/batch", qs, "queries")
}

// Get returns the stored document id; the error matches ErrNotFound when
// there is none (an empty id included).
func (c *Client) Get(ctx context.Context, id string) (Document, error) {
	if err := checkID(id); err != nil {
		return Document{}, err
	}
	var d Document
	err := c.do(ctx, http.MethodGet, docPath(id), nil, &d)
	return d, err
}

// Delete removes the stored document id; the error matches ErrNotFound when
// there is none (an empty id included).
func (c *Client) Delete(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, docPath(id), nil, nil)
}

// Compare compares two texts with the server's fingerprint profile and
// policy. A non-empty profile or non-zero bits override the server's.
func (c *Client) Compare(ctx context.Context, a, b, profile string, bits int) (Comparison, error) {
	body := struct {
		A       string `json:"a"`
		B       string `json:"b"`
		Profile string `json:"profile,omitempty"`
		Bits    int    `json:"bits,omitempty"`
	}{a, b, profile, bits}
	if err := checkUTF8("", 0, "text a", a, "text b", b, "profile", profile); err != nil {
		return Comparison{}, err
	}
	var r Comparison
	err := c.do(ctx, http.MethodPost, "/v1/compare", body, &r)
	return r, err
}

// Fingerprint returns the fingerprint of a text.
func (c *Client) Fingerprint(ctx context.Context, req FingerprintRequest) (FingerprintResult, error) {
	if err := checkUTF8("", 0, "text", req.Text, "profile", req.Profile, "algo", req.Algo); err != nil {
		return FingerprintResult{}, err
	}
	var r FingerprintResult
	err := c.do(ctx, http.MethodPost, "/v1/fingerprint", req, &r)
	return r, err
}

// Stats returns the store's statistics.
func (c *Client) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	err := c.do(ctx, http.MethodGet, "/v1/stats", nil, &s)
	return s, err
}

// do sends one request with in (if not nil) as the JSON body and decodes
// a 2xx answer into out (if not nil) or an error answer into *Error.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	zipped := false
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("client: encoding the request: %w", err)
		}
		if c.gzip && len(b) >= c.gzipMin {
			if b, err = compress(b); err != nil {
				return fmt.Errorf("client: compressing the request: %w", err)
			}
			zipped = true
		}
		body = bytes.NewReader(b)
	}
	if strings.ContainsAny(c.base, "?#") {
		return fmt.Errorf("client: the base URL %q has a query or a fragment; give the server's scheme, host and port", c.base)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if zipped {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("client: %s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var eb struct {
			Error struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(b, &eb) != nil || eb.Error.Code == "" {
			eb.Error.Code = "http_" + fmt.Sprint(resp.StatusCode)
			eb.Error.Message = strings.TrimSpace(string(b))
		}
		e := &Error{Status: resp.StatusCode, Code: eb.Error.Code, Message: eb.Error.Message}
		if n, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && n >= 0 {
			e.RetryAfter = time.Duration(n) * time.Second
		}
		return e
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("client: %s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}
