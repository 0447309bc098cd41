package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/neardup/neardup"
)

// documentIn is the body of POST /v1/documents and one element of a batch.
type documentIn struct {
	ID   string          `json:"id"`
	Text string          `json:"text"`
	Meta json.RawMessage `json:"meta"`
	// Time is when the document was seen, for the retention window;
	// absent means now.
	Time *time.Time `json:"time"`
}

// resultOut is the API's form of a check-and-insert or check result.
type resultOut struct {
	ID          string     `json:"id"`
	Duplicate   bool       `json:"duplicate"`
	DuplicateOf *string    `json:"duplicate_of"`
	Distance    int        `json:"distance"`
	Similarity  float64    `json:"similarity"`
	Fingerprint string     `json:"fingerprint"`
	Inserted    bool       `json:"inserted"`
	Matches     []matchOut `json:"matches"`
	// Error is set, in a batch, for a document the engine refused: the
	// result is then its ID and Error alone (MarshalJSON).
	Error *errorDetail `json:"error,omitempty"`
}

// refusedOut is the result of a document refused in a batch.
type refusedOut struct {
	ID    string       `json:"id"`
	Error *errorDetail `json:"error"`
}

// MarshalJSON encodes r, or only its id and error when it has one (as
// appendResult does).
func (r resultOut) MarshalJSON() ([]byte, error) {
	if r.Error != nil {
		return json.Marshal(refusedOut{ID: r.ID, Error: r.Error})
	}
	type plain resultOut // without this method
	return json.Marshal(plain(r))
}

// matchOut is the API's form of a match.
type matchOut struct {
	ID         string    `json:"id"`
	Distance   int       `json:"distance"`
	Similarity float64   `json:"similarity"`
	Scores     scoresOut `json:"scores"`
	Duplicate  bool      `json:"duplicate"`
}

func (s *Server) toResult(r neardup.Result) resultOut {
	out := resultOut{
		ID:          r.ID,
		Duplicate:   r.Duplicate,
		DuplicateOf: r.DuplicateOf,
		Distance:    r.Distance,
		Similarity:  r.Similarity,
		Fingerprint: fingerprintString(r.Fingerprint),
		Inserted:    r.Inserted,
		Matches:     s.scoring.matches(r.Matches, false),
	}
	return out
}

// matches returns ms in the API's form; byFingerprint says they were
// found by a fingerprint alone, with no text to compare.
func (sc scoring) matches(ms []neardup.Match, byFingerprint bool) []matchOut {
	out := make([]matchOut, len(ms))
	for i, m := range ms {
		out[i] = matchOut{ID: m.ID, Distance: m.Distance, Similarity: m.Similarity, Scores: sc.scores(m, byFingerprint), Duplicate: m.Duplicate}
	}
	return out
}

func fingerprintString(f neardup.Fingerprint) string {
	if f.Bits() == 0 {
		return ""
	}
	return f.String()
}

// toDocument turns a posted document into the engine's form, assigning an
// id when it has none.
func (s *Server) toDocument(in documentIn) neardup.Document {
	d := neardup.Document{ID: in.ID, Text: in.Text, Meta: in.Meta}
	if d.ID == "" {
		d.ID = s.ids.next()
	} else {
		s.ids.reserve(d.ID)
	}
	if in.Time != nil {
		d.Time = *in.Time
		if d.Time.IsZero() {
			// The zero Time means now to the engine. Given, it is the
			// instant 0001-01-01T00:00:00Z, judged as any other time:
			// a nanosecond on is the same second, which the engine keeps.
			d.Time = d.Time.Add(time.Nanosecond)
		}
	}
	return d
}

// zeroTimeError is the error of a document posted with the zero time,
// 0001-01-01T00:00:00Z, when engine e would keep it (its window reaches
// back that far, or it keeps documents forever), and nil otherwise (the
// engine refuses it as expired, as it does any time before the window).
// Kept, the document would be read back, exported and copied to another
// store as dated now or not at all: the engine takes the zero Time for
// none.
func zeroTimeError(in documentIn, e Engine) *apiError {
	if in.Time == nil || !in.Time.IsZero() {
		return nil
	}
	if w := e.Stats().Retention; w != 0 && float64(time.Now().Unix()-in.Time.Unix()) > w {
		return nil
	}
	return badRequest(`"time" 0001-01-01T00:00:00Z is the zero time, which neardup takes for no time (now) when it reads the document back or copies it; give another time, or none for now`)
}

func (s *Server) handleInsert(w http.ResponseWriter, r *http.Request, e Engine) error {
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var in documentIn
	if err := decodeFast(b, &in, fastDocument); err != nil {
		return err
	}
	if in.Text == "" {
		return errMissingText
	}
	if err := zeroTimeError(in, e); err != nil {
		return err
	}
	d := s.toDocument(in)
	res, err := e.CheckAndInsert(r.Context(), d)
	if err != nil {
		if in.ID == "" {
			// The id was assigned here, and the client never saw it.
			ae := *engineError(err)
			ae.message = strings.Replace(ae.message, strconv.Quote(d.ID), "the document", 1)
			return &ae
		}
		return err
	}
	s.metrics.countResult(res)
	s.writeJSON(w, http.StatusOK, s.toResult(res))
	return nil
}

// batchOut is the response to POST /v1/documents/batch.
type batchOut struct {
	Results []resultOut `json:"results"`
}

func (s *Server) handleBatch(w http.ResponseWriter, r *http.Request, e Engine) error {
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	ins, _, err := parseItems(b, r.Header.Get("Content-Type"), s.opts.MaxBatch, documentNoun, fastDocument)
	if err != nil {
		return err
	}
	out := batchOut{Results: make([]resultOut, len(ins))}
	ds := make([]neardup.Document, 0, len(ins))
	// at is the place in the batch of each of ds; nil while that is its
	// place in ds, until a document is refused here.
	var at []int
	for i, in := range ins {
		d := s.toDocument(in)
		if ae := zeroTimeError(in, e); ae != nil {
			// Refused as the engine refuses a document: alone.
			out.Results[i] = refusedResult(d.ID, ae)
			if at == nil {
				at = make([]int, len(ds), len(ins))
				for j := range at {
					at[j] = j
				}
			}
			continue
		}
		ds = append(ds, d)
		if at != nil {
			at = append(at, i)
		}
	}
	if len(ds) == 0 {
		s.writeJSON(w, http.StatusOK, out)
		return nil
	}
	res, err := e.CheckAndInsertBatch(r.Context(), ds)
	errs, err := perDocument(res, err, len(ds))
	if err != nil {
		return err
	}
	for j, r := range res {
		i := j
		if at != nil {
			i = at[j]
		}
		if errs != nil && errs[j] != nil {
			out.Results[i] = refusedResult(ds[j].ID, engineError(errs[j]))
			continue
		}
		s.metrics.countResult(r)
		out.Results[i] = s.toResult(r)
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

// refusedResult is the result, in a batch, of the document with the given
// id that was refused with ae.
func refusedResult(id string, ae *apiError) resultOut {
	return resultOut{ID: id, Matches: []matchOut{}, Error: &errorDetail{Code: ae.code, Message: ae.message}}
}

// isNDJSON reports whether a content type names NDJSON (or JSON Lines):
// its media type, in any case, with any parameters after it.
func isNDJSON(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.TrimSpace(t)
	for _, m := range []string{"application/x-ndjson", "application/jsonl", "application/jsonlines", "application/x-jsonlines"} {
		if strings.EqualFold(t, m) {
			return true
		}
	}
	return false
}

// parseItems reads a batch body of at most most objects: a JSON array, or
// NDJSON (one object per line), chosen by the first non-space byte or the
// content type. noun names the objects in errors ("document 3", "line 4").
// Each object, or the whole array, is read by object when it accepts it,
// else by encoding/json (decodeFast, parseArray). For NDJSON it also
// returns the line of each object, which itemName names them by.
func parseItems[T any](b []byte, contentType string, most int, noun batchNoun, object objectParser[T]) (ins []T, lines []int, err error) {
	if trimmed := bytes.TrimLeft(b, " \t\r\n"); !isNDJSON(contentType) && len(trimmed) > 0 && trimmed[0] == '[' {
		if ins, ok := fastArray(b, most, object); ok {
			return ins, nil, nil
		}
		ins, err := parseArray[T](b, most, noun)
		return ins, nil, err
	}
	line := 0
	for len(b) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			l, b = b[:i], b[i+1:]
		} else {
			l, b = b, nil
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if len(ins) == most {
			return nil, nil, batchTooLarge(most, noun)
		}
		if bytes.Equal(bytes.TrimSpace(l), []byte("null")) {
			return nil, nil, newError(http.StatusBadRequest, "bad_json", fmt.Sprintf("line %d: expected an object, got JSON null", line))
		}
		var in T
		if err := decodeFast(l, &in, object); err != nil {
			return nil, nil, prefixError(fmt.Sprintf("line %d", line), err)
		}
		ins, lines = append(ins, in), append(lines, line)
	}
	if len(ins) == 0 {
		return nil, nil, newError(http.StatusBadRequest, "bad_request", "the batch holds no "+noun.many)
	}
	return ins, lines, nil
}

// itemName names object i of a batch in an error: by its line in NDJSON
// (lines from parseItems), by its place in an array otherwise.
func itemName(noun batchNoun, lines []int, i int) string {
	if lines != nil {
		return fmt.Sprintf("line %d", lines[i])
	}
	return fmt.Sprintf("%s %d", noun.one, i)
}

// parseArray decodes a batch sent as a JSON array, body b, with
// encoding/json, whose errors say which object is wrong and where. Bytes
// are counted from 1 at the start of b, as for a single document
// (jsonError): arrayError finds them in the whole body.
func parseArray[T any](b []byte, most int, noun batchNoun) ([]T, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if _, err := dec.Token(); err != nil {
		return nil, arrayError(err, b)
	}
	var ins []T
	for dec.More() {
		if len(ins) == most {
			return nil, batchTooLarge(most, noun)
		}
		where := fmt.Sprintf("%s %d", noun.one, len(ins))
		var in *T // nil for a null
		if err := dec.Decode(&in); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				// The body ends in this object, or after a comma.
				return nil, newError(http.StatusBadRequest, "bad_json", fmt.Sprintf("%s: the JSON array is truncated: the body ends at byte %d", where, len(b)))
			}
			return nil, prefixError(where, arrayError(err, b))
		}
		if in == nil {
			return nil, newError(http.StatusBadRequest, "bad_json", where+": expected an object, got JSON null")
		}
		ins = append(ins, *in)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		if errors.Is(err, io.EOF) {
			after := "its opening '['"
			if len(ins) > 0 {
				after = fmt.Sprintf("%s %d", noun.one, len(ins)-1)
			}
			return nil, newError(http.StatusBadRequest, "bad_json", fmt.Sprintf("the JSON array is truncated after %s: the body ends at byte %d without the closing ']'", after, len(b)))
		}
		return nil, arrayError(err, b)
	}
	if rest := bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, newError(http.StatusBadRequest, "bad_json", fmt.Sprintf("unexpected data after the JSON array, at byte %d", len(b)-len(rest)+1))
	}
	if len(ins) == 0 {
		return nil, newError(http.StatusBadRequest, "bad_request", "the batch holds no "+noun.many)
	}
	return ins, nil
}

// arrayError is jsonError for err, which a json.Decoder reading the array
// b returned. The offset the decoder gives a syntax error is no offset of
// b: within an object it counts the bytes of the objects decoded, leaving
// out the spaces, brackets and commas it read as tokens between them, and
// between objects it counts from 0. Scanning b whole finds the same first
// error (what was read before it was well formed), at its byte of b.
func arrayError(err error, b []byte) *apiError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		var whole *json.SyntaxError
		if errors.As(json.Unmarshal(b, new(json.RawMessage)), &whole) {
			err = whole
		}
	}
	return jsonError(err, b)
}

// batchTooLarge is the error of a batch of more than most objects.
func batchTooLarge(most int, noun batchNoun) *apiError {
	return newError(http.StatusRequestEntityTooLarge, "batch_too_large", fmt.Sprintf("the batch holds more than %d %s", most, noun.many))
}

// batchNoun names the objects of a batch, one and many.
type batchNoun struct{ one, many string }

var (
	documentNoun = batchNoun{"document", "documents"}
	queryNoun    = batchNoun{"query", "queries"}
)

// prefixError says where in a batch an error happened.
func prefixError(where string, err error) error {
	var ae *apiError
	if errors.As(err, &ae) {
		return newError(ae.status, ae.code, where+": "+ae.message)
	}
	return err
}

// documentOut is the response to GET /v1/documents/{id}.
type documentOut struct {
	ID   string          `json:"id"`
	Text string          `json:"text,omitempty"`
	Meta json.RawMessage `json:"meta,omitempty"`
	Time *time.Time      `json:"time,omitempty"`
}

func (s *Server) handleGet(w http.ResponseWriter, r *http.Request, e Engine) error {
	d, err := e.Get(r.PathValue("id"))
	if err != nil {
		return err
	}
	out := documentOut{ID: d.ID, Text: d.Text, Meta: d.Meta}
	if !d.Time.IsZero() {
		t := d.Time.UTC()
		out.Time = &t
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

// defaultListLimit is the page size of GET /v1/documents without a limit.
const defaultListLimit = 100

// listOut is the response to GET /v1/documents.
type listOut struct {
	Documents []listedDoc `json:"documents"`
	// Next is the cursor of the next page: null on the last.
	Next *string `json:"next"`
}

// listedDoc is one document of listOut.
type listedDoc struct {
	ID          string          `json:"id"`
	Time        time.Time       `json:"time"`
	Fingerprint string          `json:"fingerprint"`
	Text        *string         `json:"text,omitempty"`
	Meta        json.RawMessage `json:"meta,omitempty"`
}

// handleList serves GET /v1/documents?after=CURSOR&limit=N&text=false: a
// page of the stored documents, in the store's order (Engine.List).
func (s *Server) handleList(w http.ResponseWriter, r *http.Request, e Engine) error {
	// URL.Query drops what it cannot parse (a bad escape, a pair with
	// a semicolon in it) without a word, and the page answered would be
	// another than the one asked for.
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return badRequest(fmt.Sprintf("malformed query string: %v; want name=value pairs separated by &, with %% escapes of two hex digits", err))
	}
	for name, vals := range q {
		if name != "after" && name != "limit" && name != "text" {
			return badRequest(fmt.Sprintf("unknown query parameter %q: want after, limit or text", name))
		}
		if len(vals) > 1 {
			// Which one would be meant? Not the first by rule.
			return badRequest(fmt.Sprintf("query parameter %q given %d times; give it once", name, len(vals)))
		}
	}
	o := neardup.ListOptions{After: q.Get("after"), Limit: defaultListLimit}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > neardup.MaxListLimit {
			return badRequest(fmt.Sprintf("limit %q: want a number from 1 to %d", v, neardup.MaxListLimit))
		}
		o.Limit = n
	}
	if v := q.Get("text"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest(fmt.Sprintf("text %q: want true or false", v))
		}
		o.NoText = !b
	}
	docs, next, err := e.List(r.Context(), o)
	if err != nil {
		return err
	}
	out := listOut{Documents: make([]listedDoc, len(docs))}
	for i, d := range docs {
		l := listedDoc{ID: d.ID, Time: d.Time.UTC(), Fingerprint: d.Fingerprint.String(), Meta: d.Meta}
		if !o.NoText {
			l.Text = &docs[i].Text
		}
		out.Documents[i] = l
	}
	if next != "" {
		out.Next = &next
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, e Engine) error {
	id := r.PathValue("id")
	if err := e.Delete(id); err != nil {
		return err
	}
	s.writeJSON(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
	return nil
}

// queryIn is the body of POST /v1/query.
type queryIn struct {
	Text        string   `json:"text"`
	Fingerprint string   `json:"fingerprint"`
	K           *jsonInt `json:"k"`
}

// queryOut is the response to POST /v1/query.
type queryOut struct {
	Fingerprint string     `json:"fingerprint"`
	Duplicate   bool       `json:"duplicate"`
	DuplicateOf *string    `json:"duplicate_of"`
	Matches     []matchOut `json:"matches"`
	// Error is set, in a batch, for a query the engine refused: the
	// result is then Error alone (MarshalJSON).
	Error *errorDetail `json:"error,omitempty"`
}

// MarshalJSON encodes q, or only its error when it has one (as
// appendQuery does).
func (q queryOut) MarshalJSON() ([]byte, error) {
	if q.Error != nil {
		return json.Marshal(struct {
			Error *errorDetail `json:"error"`
		}{q.Error})
	}
	type plain queryOut // without this method
	return json.Marshal(plain(q))
}

// fingerprintQuerier is implemented by engines that can look up stored
// documents near a fingerprint alone, without a text to verify against.
type fingerprintQuerier interface {
	QueryFingerprint(ctx context.Context, fp neardup.Fingerprint, k int) ([]neardup.Match, error)
}

func (s *Server) handleQuery(w http.ResponseWriter, r *http.Request, e Engine) error {
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var in queryIn
	if err := decodeFast(b, &in, fastQuery); err != nil {
		return err
	}
	q, err := readQuery(in, e)
	if err != nil {
		return err
	}
	var out queryOut
	if q.fp.Bits() != 0 {
		if out, err = s.queryFingerprint(r.Context(), e, q); err != nil {
			return err
		}
	} else {
		// No id: a query is no stored document, so every stored one
		// counts (an id would leave out a stored document that has it).
		res, err := e.Check(r.Context(), neardup.Document{Text: q.text})
		if err != nil {
			return err
		}
		out = s.textQueryOut(res, q.k)
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

// query is a query read and checked (readQuery): a text, or a
// fingerprint when fp is set, and the distance its matches must be within
// (-1: the policy's own).
type query struct {
	text string
	fp   neardup.Fingerprint
	k    int
}

// readQuery checks a posted query for engine e: one of text and
// fingerprint, a valid fingerprint, a k of 0 or more.
func readQuery(in queryIn, e Engine) (query, error) {
	q := query{text: in.Text, k: -1}
	if in.K != nil {
		if q.k = int(*in.K); q.k < 0 {
			return q, badRequest(fmt.Sprintf(`"k" is %d; it must be 0 or more`, q.k))
		}
	}
	switch {
	case in.Text != "" && in.Fingerprint != "":
		return q, badRequest(`give "text" or "fingerprint", not both`)
	case in.Fingerprint != "":
		fp, err := neardup.ParseFingerprint(in.Fingerprint)
		if err != nil {
			return q, badRequest(`"fingerprint": ` + engineMessage(err))
		}
		if _, ok := e.(fingerprintQuerier); !ok {
			return q, newError(http.StatusNotImplemented, "not_implemented", "this engine cannot query by fingerprint; send the text")
		}
		q.fp = fp
	case in.Text == "":
		return q, newError(http.StatusBadRequest, "missing_text", `give "text" or "fingerprint"`)
	}
	return q, nil
}

// queryFingerprint answers q, a query by fingerprint, from e.
func (s *Server) queryFingerprint(ctx context.Context, e Engine, q query) (queryOut, error) {
	ms, err := e.(fingerprintQuerier).QueryFingerprint(ctx, q.fp, q.k)
	if err != nil {
		return queryOut{}, err
	}
	out := queryOut{Fingerprint: q.fp.String(), Matches: s.scoring.matches(ms, true)}
	if len(ms) > 0 && ms[0].Duplicate {
		// Nearest first: the nearest match within the policy's distance.
		out.Duplicate, out.DuplicateOf = true, &ms[0].ID
	}
	return out, nil
}

// textQueryOut is the answer to a query by text that the engine checked
// as res: its matches within k bits (k < 0: all), and the verdict they
// give: a duplicate only if the document it duplicates is among them, as
// for a query by fingerprint.
func (s *Server) textQueryOut(res neardup.Result, k int) queryOut {
	out := queryOut{Fingerprint: fingerprintString(res.Fingerprint), Duplicate: res.Duplicate, DuplicateOf: res.DuplicateOf, Matches: s.scoring.matches(res.Matches, false)}
	if k >= 0 {
		kept := out.Matches[:0]
		dup := false
		for _, m := range out.Matches {
			if m.Distance <= k {
				kept = append(kept, m)
				dup = dup || out.DuplicateOf != nil && m.ID == *out.DuplicateOf
			}
		}
		out.Matches = kept
		if !dup {
			out.Duplicate, out.DuplicateOf = false, nil
		}
	}
	return out
}

// batchChecker is implemented by engines that check many documents at
// once without storing them.
type batchChecker interface {
	CheckBatch(ctx context.Context, ds []neardup.Document) ([]neardup.Result, error)
}

// queryBatchOut is the response to POST /v1/query/batch.
type queryBatchOut struct {
	Results []queryOut `json:"results"`
}

// handleQueryBatch answers many queries, each as POST /v1/query would:
// the texts are checked together (batchChecker), nothing is stored.
func (s *Server) handleQueryBatch(w http.ResponseWriter, r *http.Request, e Engine) error {
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	ins, lines, err := parseItems(b, r.Header.Get("Content-Type"), s.opts.MaxBatch, queryNoun, fastQuery)
	if err != nil {
		return err
	}
	qs := make([]query, len(ins))
	out := queryBatchOut{Results: make([]queryOut, len(qs))}
	var ds []neardup.Document
	var at []int // the query of each of ds
	for i, in := range ins {
		if qs[i], err = readQuery(in, e); err != nil {
			if ae := engineError(err); ae.code == "missing_text" {
				// As a blank text, which the engine refuses: this
				// query's own error.
				out.Results[i] = queryOut{Matches: []matchOut{}, Error: &errorDetail{Code: ae.code, Message: ae.message}}
				continue
			}
			return prefixError(itemName(queryNoun, lines, i), err)
		}
		if qs[i].fp.Bits() == 0 {
			ds, at = append(ds, neardup.Document{Text: qs[i].text}), append(at, i)
		}
	}
	// Many queries against a large store can take long: the work stops
	// when its answer could no longer be written (WriteTimeout).
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.WriteTimeout)
	defer cancel()
	for i, q := range qs {
		if q.fp.Bits() != 0 {
			if out.Results[i], err = s.queryFingerprint(ctx, e, q); err != nil {
				if ctx.Err() != nil {
					return err // the whole request's, not this query's
				}
				return prefixError(itemName(queryNoun, lines, i), engineError(err))
			}
		}
	}
	res, errs, err := checkAll(ctx, e, ds)
	if err != nil {
		return err
	}
	for j, i := range at {
		if errs != nil && errs[j] != nil {
			ae := engineError(errs[j])
			out.Results[i] = queryOut{Matches: []matchOut{}, Error: &errorDetail{Code: ae.code, Message: ae.message}}
			continue
		}
		out.Results[i] = s.textQueryOut(res[j], qs[i].k)
	}
	s.writeJSON(w, http.StatusOK, out)
	return nil
}

// checkAll checks ds with e, together when e is a batchChecker: their
// results, and each refused document's error (errs nil when none was),
// or the error that failed them all.
func checkAll(ctx context.Context, e Engine, ds []neardup.Document) (res []neardup.Result, errs []error, err error) {
	if len(ds) == 0 {
		return nil, nil, nil
	}
	bc, ok := e.(batchChecker)
	if !ok {
		res = make([]neardup.Result, len(ds))
		for i, d := range ds {
			var err error
			if res[i], err = e.Check(ctx, d); err != nil {
				if engineError(err).status >= 500 {
					return nil, nil, err
				}
				if errs == nil {
					errs = make([]error, len(ds))
				}
				errs[i] = err
			}
		}
		return res, errs, nil
	}
	res, err = bc.CheckBatch(ctx, ds)
	if errs, err = perDocument(res, err, len(ds)); err != nil {
		return nil, nil, err
	}
	return res, errs, nil
}

// perDocument reads what an engine answered to a batch of n documents,
// results res and error err: each refused document's error (nil when none
// was), or the error that failed them all.
func perDocument(res []neardup.Result, err error, n int) ([]error, error) {
	var be *neardup.BatchError
	if err != nil && (!errors.As(err, &be) || len(be.Errs) != n) {
		return nil, err
	}
	if len(res) != n {
		return nil, fmt.Errorf("server: the engine answered %d results for %d documents", len(res), n)
	}
	if be != nil {
		return be.Errs, nil
	}
	return nil, nil
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request, e Engine) error {
	s.writeJSON(w, http.StatusOK, statsOut{Stats: e.Stats(), MaxBatch: s.opts.MaxBatch, MaxBodyBytes: s.opts.MaxBody})
	return nil
}

// statsOut is the answer of /v1/stats: the engine's statistics, and the
// server's limits of a request, by which a client sizes its batches
// (client.BatchAll does).
type statsOut struct {
	neardup.Stats
	MaxBatch     int   `json:"max_batch"`
	MaxBodyBytes int64 `json:"max_body_bytes"`
}

// handleHealth answers 200 while the process serves, and 503 store_failed
// once the engine stopped on a failed store write, which only a restart
// mends: a supervisor that restarts on a failed liveness check then does.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if e := s.storeFailure(); e != nil {
		writeError(w, e)
		return
	}
	s.writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// storeFailure returns the store_failed error once the engine stopped on a
// failed store write, or nil.
func (s *Server) storeFailure() *apiError {
	if ref := s.engine.Load(); ref != nil {
		if f := ref.Stats().Failure; f != "" {
			return storeFailed(f)
		}
	}
	return nil
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	switch {
	case s.draining.Load() || s.unready.Load():
		writeError(w, errUnavailableDraining)
	case s.engine.Load() == nil:
		writeError(w, errUnavailableStarting)
	default:
		if e := s.storeFailure(); e != nil {
			writeError(w, e)
			return
		}
		s.writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	}
}
