package server

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/neardup/neardup/internal/jsonscan"
)

// apiHandler serves one API request with the engine; a returned error is
// written as the response by way of engineError.
type apiHandler func(w http.ResponseWriter, r *http.Request, e Engine) error

// buildHandler registers every route and returns the root handler.
func (s *Server) buildHandler() http.Handler {
	mux := http.NewServeMux()
	api := func(pattern string, h apiHandler) {
		s.addRoute(mux, pattern, true, s.apiRoute(pattern, h))
	}
	plain := func(pattern string, documented bool, h http.HandlerFunc) {
		s.addRoute(mux, pattern, documented, s.instrument(pattern, h))
	}
	api("POST /v1/documents", s.handleInsert)
	api("POST /v1/documents/batch", s.handleBatch)
	api("GET /v1/documents", s.handleList)
	api("GET /v1/documents/{id}", s.handleGet)
	api("DELETE /v1/documents/{id}", s.handleDelete)
	api("POST /v1/query", s.handleQuery)
	api("POST /v1/query/batch", s.handleQueryBatch)
	api("GET /v1/stats", s.handleStats)
	// compare and fingerprint do not need the engine: they answer while
	// the server is starting.
	work := func(pattern string, h http.HandlerFunc) {
		s.addRoute(mux, pattern, true, s.instrument(pattern, s.admit(h)))
	}
	work("POST /v1/compare", s.handleCompare)
	work("POST /v1/fingerprint", s.handleFingerprint)
	plain("GET /v1/openapi.json", true, s.handleOpenAPI)
	plain("GET /healthz", true, s.handleHealth)
	plain("GET /readyz", true, s.handleReady)
	plain("GET /metrics", true, s.metrics.handler().ServeHTTP)
	plain("GET /{$}", false, s.handleIndex)
	plain("GET /static/", false, s.handleStatic)

	// Requests no route takes (unknown paths, other methods, and the paths
	// the mux redirects: unclean ones, a subtree's without its slash) are
	// counted under one label, which bounds the series.
	unmatched := s.metrics.route("unmatched")
	// A page of another site must not write to the store through the
	// visitor's browser (a server on loopback included): browsers mark a
	// cross-origin request (Sec-Fetch-Site, Origin), and a POST or DELETE
	// so marked is refused. Programs and the server's own page are not affected.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.metrics.refused.WithLabelValues("cross_origin").Inc()
		writeError(w, newError(http.StatusForbidden, "cross_origin", "a request from another site's page is refused: the API takes writes from programs and from its own page"))
	}))
	return cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, _ := mux.Handler(r)
		if _, ok := h.(route); ok {
			// Handler does not set path values; ServeHTTP does.
			mux.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		// The mux answers unknown paths and methods in plain text; keep
		// its status (and its Allow header) but answer in JSON.
		c := &statusCapture{header: w.Header()}
		defer func() { unmatched.observe(c.status, time.Since(start)) }()
		h.ServeHTTP(c, r)
		switch c.status {
		case http.StatusMethodNotAllowed:
			writeError(w, newError(c.status, "method_not_allowed", fmt.Sprintf("%s is not allowed on %s", r.Method, r.URL.Path)))
		case http.StatusNotFound:
			// Not not_found, which says that a document is not stored: a
			// client with a wrong base URL should not read every answer
			// as "no such document".
			writeError(w, noRoute(r))
		default:
			// Redirects for cleaned paths: pass them on as they are.
			w.WriteHeader(c.status)
		}
	}))
}

// noRoute is the answer to a request for a path that leads nowhere.
func noRoute(r *http.Request) *apiError {
	return newError(http.StatusNotFound, "no_route", fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path))
}

func (s *Server) addRoute(mux *http.ServeMux, pattern string, documented bool, h http.Handler) {
	method, path, _ := strings.Cut(pattern, " ")
	mux.Handle(pattern, route{h})
	s.routes = append(s.routes, Route{Method: method, Path: path, API: documented})
}

// route marks the handlers addRoute registers, so that the root handler
// tells a request a route takes from one the mux answers itself: a
// redirect comes with the pattern of the route it leads to, but not with
// the route's handler.
type route struct{ http.Handler }

// statusCapture records the status a handler writes and drops its body.
type statusCapture struct {
	header http.Header
	status int
}

func (c *statusCapture) Header() http.Header { return c.header }
func (c *statusCapture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}
func (c *statusCapture) Write(b []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return len(b), nil
}

// apiRoute wraps an engine-backed handler: it answers 503 while there is no
// engine or the server drains, 429 beyond MaxInFlight, and maps errors.
func (s *Server) apiRoute(pattern string, h apiHandler) http.Handler {
	return s.instrument(pattern, func(w http.ResponseWriter, r *http.Request) {
		ref := s.engine.Load()
		switch {
		case s.draining.Load():
			writeError(w, errUnavailableDraining)
			return
		case ref == nil:
			writeError(w, errUnavailableStarting)
			return
		}
		s.admit(func(w http.ResponseWriter, r *http.Request) {
			if err := h(w, r, ref.Engine); err != nil {
				writeError(w, engineError(err))
			}
		})(w, r)
	})
}

// admit runs h unless MaxInFlight requests that do real work
// (fingerprinting, calling the engine) are already running, in which case
// it answers 429 at once. A POST takes its place only once its body is
// read (readBody, through the statusWriter instrument gives it), so that
// clients slow to send their bodies hold no place; the bytes of bodies are
// bounded by MaxBodyMemory instead. Places and bytes are given back when h
// returns.
func (s *Server) admit(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sw, _ := w.(*statusWriter)
		if sw != nil && r.Method == http.MethodPost {
			defer s.release(sw)
			h(w, r)
			return
		}
		if !s.takePlace() {
			writeError(w, errOverloaded)
			return
		}
		defer s.inflight.Add(-1)
		h(w, r)
	}
}

// takePlace takes one of MaxInFlight places, if one is free.
func (s *Server) takePlace() bool {
	if n := s.inflight.Add(1); n > int64(s.opts.MaxInFlight) {
		s.inflight.Add(-1)
		s.metrics.rejected.Inc()
		return false
	}
	return true
}

// release gives back the place and the body bytes a request took.
func (s *Server) release(sw *statusWriter) {
	if sw.placed {
		s.inflight.Add(-1)
	}
	if sw.bodyBytes > 0 {
		s.bodyBytes.Add(-sw.bodyBytes)
	}
}

// instrument counts and times every request to one route, and turns a
// panic in the handler into a 500 response instead of a dropped connection.
func (s *Server) instrument(pattern string, h http.HandlerFunc) http.Handler {
	rm := s.metrics.route(pattern)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		s.active.Add(1)
		defer s.active.Add(-1)
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.opts.Logger.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
				if sw.status == 0 {
					writeError(sw, newError(http.StatusInternalServerError, "internal", "internal error"))
				}
			}
			rm.observe(sw.status, time.Since(start))
		}()
		h(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		if sw.status == http.StatusInternalServerError {
			s.opts.Logger.Warn("request failed", "method", r.Method, "path", r.URL.Path, "status", sw.status)
		}
	})
}

// statusWriter remembers the status written through it, and what the
// request holds of the server's bounds (admit).
type statusWriter struct {
	http.ResponseWriter
	status    int
	placed    bool  // holds one of MaxInFlight places
	bodyBytes int64 // holds this much of MaxBodyMemory
	budget    budgetReader
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// readBody reads the whole request body, at most MaxBody bytes, and checks
// that it is valid UTF-8. A body sent with Content-Encoding gzip, deflate,
// zstd or br is decompressed (gzip and deflate as they arrive, the others
// once read whole: see decoders), and MaxBody bounds it both as sent and
// as decompressed; any other encoding is refused. deflate is the zlib
// format (RFC 9110), or, as some clients send it, raw deflate, told apart
// by the zlib header.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	limit := s.opts.MaxBody
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	var body io.Reader = http.MaxBytesReader(w, r.Body, limit)
	gzipped, deflated := false, false
	late := "" // zstd or br
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, gzipError(err)
		}
		// One byte past the limit tells a body that decompresses to
		// more than MaxBody from one that fills it exactly.
		body, gzipped = io.LimitReader(zr, limit+1), true
	case "deflate":
		zr, err := deflateReader(body)
		if err != nil {
			return nil, encodingError(enc, err)
		}
		body, deflated = io.LimitReader(zr, limit+1), true
	case "zstd", "br":
		late = enc
	default:
		return nil, newError(http.StatusUnsupportedMediaType, "unsupported_encoding", fmt.Sprintf("Content-Encoding %q is not supported; send the body uncompressed, or with gzip, deflate, zstd or br", enc))
	}
	sw, _ := w.(*statusWriter)
	if late != "" {
		// The body as sent, counted against MaxBodyMemory as it arrives,
		// then a reader of it decoded.
		src := body
		if sw != nil {
			src = &budgetReader{r: body, s: s, sw: sw}
		}
		var packed bytes.Buffer
		if _, err := packed.ReadFrom(src); err != nil {
			return nil, readError(err, limit)
		}
		zr, done, err := s.decoders.open(r.Context(), late, packed.Bytes())
		if errors.Is(err, errWaitDecoder) {
			return nil, newError(http.StatusServiceUnavailable, "timeout", err.Error())
		}
		if err != nil {
			return nil, encodingError(late, err)
		}
		defer done()
		body = io.LimitReader(zr, limit+1)
	}
	if sw != nil {
		// Bytes are counted against MaxBodyMemory as they arrive. The
		// reader lives in the statusWriter: no allocation of its own.
		sw.budget = budgetReader{r: body, s: s, sw: sw}
		body = &sw.budget
	}
	// Allocate for the declared length only up to 64 KiB: beyond that the
	// buffer grows with the bytes that really arrive, so a client cannot
	// reserve MaxBody of memory by declaring it.
	var buf bytes.Buffer
	buf.Grow(int(min(max(r.ContentLength, 512), 64<<10)) + 1)
	_, err := buf.ReadFrom(body)
	b := buf.Bytes()
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe), errors.Is(err, errBodyMemory), errors.Is(err, errBodyAlone):
			// readError names these, whatever the coding.
		case gzipped:
			return nil, gzipError(err)
		case deflated:
			return nil, encodingError("deflate", err)
		case late != "":
			return nil, encodingError(late, err)
		}
		return nil, readError(err, limit)
	}
	if sw != nil && !sw.placed {
		// The body is here: now the request takes its place.
		if !s.takePlace() {
			return nil, errOverloaded
		}
		sw.placed = true
	}
	if int64(len(b)) > limit {
		return nil, newError(http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the request body decompresses to more than the limit of %d bytes", limit))
	}
	if !utf8.Valid(b) {
		return nil, invalidUTF8At(b)
	}
	// A byte order mark, which some editors and shells put before a
	// file's text, is no part of the JSON (RFC 8259 lets a parser skip
	// it).
	return bytes.TrimPrefix(b, []byte("\ufeff")), nil
}

// readError is the answer to a request body that could not be read.
func readError(err error, limit int64) *apiError {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge(limit)
	case errors.Is(err, errBodyMemory):
		return errOverloadedBytes
	case errors.Is(err, errBodyAlone):
		return newError(http.StatusRequestEntityTooLarge, "body_too_large", "the request body, held as sent and as decompressed, needs more than the server's memory for request bodies (--max-body-memory) alone; send it uncompressed, with gzip or deflate (decoded as they arrive), or smaller")
	}
	return newError(http.StatusBadRequest, "bad_request", "reading the request body: "+err.Error())
}

// budgetReader counts the bytes read from r against the server's
// MaxBodyMemory, and fails with errBodyMemory past it.
type budgetReader struct {
	r  io.Reader
	s  *Server
	sw *statusWriter
}

var errBodyMemory = errors.New("request bodies in progress hold MaxBodyMemory")

// errBodyAlone is a request whose body alone, as sent and decompressed (a
// zstd or br body is held both ways), needs more than MaxBodyMemory: no
// wait makes room for it, so it is no 429.
var errBodyAlone = errors.New("the request body needs more than MaxBodyMemory alone")

func (b *budgetReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		if b.sw.bodyBytes+int64(n) > b.s.opts.MaxBodyMemory {
			return 0, errBodyAlone
		}
		if b.s.bodyBytes.Add(int64(n)) > b.s.opts.MaxBodyMemory {
			b.s.bodyBytes.Add(-int64(n))
			b.s.metrics.rejected.Inc()
			return 0, errBodyMemory
		}
		b.sw.bodyBytes += int64(n)
	}
	return n, err
}

// deflateReader returns a reader of body decoded as Content-Encoding
// deflate: the zlib format when body starts with a zlib header (a method
// of 8, deflate, and a check that divides by 31), raw deflate otherwise.
func deflateReader(body io.Reader) (io.Reader, error) {
	br := bufio.NewReader(body)
	if h, _ := br.Peek(2); len(h) == 2 && h[0]&0x0f == 8 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 {
		zr, err := zlib.NewReader(br)
		if err != nil {
			return nil, err
		}
		return &oneStream{zr, br}, nil
	}
	return &oneStream{flate.NewReader(br), br}, nil
}

// oneStream reads the one stream of a deflate body (zlib or raw), and
// fails where bytes follow its end: a second stream or anything else,
// which the decoder would leave unread, and the request would lose
// (documents of a batch) without a word.
type oneStream struct {
	zr  io.Reader
	src *bufio.Reader // what zr reads from
}

var errAfterStream = errors.New("bytes follow the end of the compressed stream (a deflate body is one zlib or raw deflate stream)")

func (o *oneStream) Read(p []byte) (int, error) {
	n, err := o.zr.Read(p)
	if err == io.EOF {
		switch _, perr := o.src.Peek(1); {
		case perr == nil:
			return n, errAfterStream
		case perr != io.EOF:
			return n, perr
		}
	}
	return n, err
}

// gzipError is the answer to a body sent as gzip that is not.
func gzipError(err error) *apiError {
	return newError(http.StatusBadRequest, "bad_gzip", "the request body is sent with Content-Encoding gzip but does not decompress: "+err.Error())
}

func tooLarge(max int64) *apiError {
	return newError(http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the request body exceeds the limit of %d bytes", max))
}

// invalidUTF8At names the byte offset of the first invalid sequence in b.
func invalidUTF8At(b []byte) *apiError {
	off := 0
	for off < len(b) {
		r, n := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		off += n
	}
	return newError(http.StatusBadRequest, "invalid_utf8", fmt.Sprintf("the request body is not valid UTF-8 (first bad byte at offset %d)", off))
}

// decodeFast decodes one posted object: by object when it takes the
// whole of b, else by decodeStrict.
func decodeFast[T any](b []byte, in *T, object objectParser[T]) error {
	if v, ok := fastOne(b, object); ok {
		*in = v
		return nil
	}
	return decodeStrict(b, in)
}

// decodeStrict decodes one JSON value from b into v, rejecting fields v does
// not define, anything after the value, and null (which encoding/json
// would take as an empty value: a request without its fields).
func decodeStrict(b []byte, v any) error {
	if string(bytes.TrimSpace(b)) == "null" {
		return newError(http.StatusBadRequest, "bad_json", fmt.Sprintf("expected %s, got JSON null", jsonKind(reflect.TypeOf(v).Elem())))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err, b)
	}
	if _, err := dec.Token(); err != io.EOF {
		return newError(http.StatusBadRequest, "bad_json", "unexpected data after the JSON value")
	}
	return nil
}

// jsonKind names the JSON values that decode into t, for an error
// message: "an object" rather than the Go type a request is read into.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a JSON value"
}

// jsonError turns an encoding/json error, found in data, into a 400 that
// says where the problem is.
func jsonError(err error, data []byte) *apiError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	msg := err.Error()
	switch {
	case errors.As(err, &se):
		return newError(http.StatusBadRequest, "bad_json", fmt.Sprintf("malformed JSON at byte %d: %s", se.Offset, strings.TrimPrefix(jsonscan.SyntaxMessage(data, se), "json: ")))
	case errors.As(err, &te):
		m := fmt.Sprintf("expected %s, got JSON %s", jsonKind(te.Type), te.Value)
		if te.Field != "" {
			m = strconv.Quote(te.Field) + ": " + m
		}
		return newError(http.StatusBadRequest, "bad_json", m)
	case errors.Is(err, io.EOF):
		return newError(http.StatusBadRequest, "bad_json", "the request body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return newError(http.StatusBadRequest, "bad_json", "the JSON value is truncated")
	case errors.As(err, new(*time.ParseError)), strings.HasPrefix(msg, "Time.UnmarshalJSON"):
		// The only times read are documents' "time".
		return newError(http.StatusBadRequest, "bad_json", `"time": want a string in RFC 3339, such as "2026-11-23T16:30:00Z": `+msg)
	case strings.HasPrefix(msg, "json: unknown field "):
		return newError(http.StatusBadRequest, "unknown_field", "unknown field "+strings.TrimPrefix(msg, "json: unknown field "))
	}
	return newError(http.StatusBadRequest, "bad_json", strings.TrimPrefix(msg, "json: "))
}

// bufferPool recycles response buffers; the zero value is ready to use.
type bufferPool struct{ p sync.Pool }

func (bp *bufferPool) get() *bytes.Buffer {
	if b, ok := bp.p.Get().(*bytes.Buffer); ok {
		b.Reset()
		return b
	}
	return new(bytes.Buffer)
}

func (bp *bufferPool) put(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		bp.p.Put(b)
	}
}

// jsonType is the Content-Type of JSON responses, set without Set's
// allocation (net/http copies a header's values before it sends them).
var jsonType = []string{"application/json"}

// writeJSON writes v as the JSON response with the given status.
func (s *Server) writeJSON(w http.ResponseWriter, status int, v any) {
	buf := s.bufs.get()
	defer s.bufs.put(buf)
	if !appendFast(buf, v) {
		buf.Reset()
		if err := json.NewEncoder(buf).Encode(v); err != nil {
			writeError(w, newError(http.StatusInternalServerError, "internal", "encoding the response: "+err.Error()))
			return
		}
	}
	h := w.Header()
	h["Content-Type"] = jsonType
	h["Content-Length"] = []string{strconv.Itoa(buf.Len())}
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// jsonInt is an integer field of a request. It takes any JSON number of
// integral value, 100.0 and 1e2 as well as 100, as JSON Schema's integer
// does (clients that write every number as a float send those).
type jsonInt int

// UnmarshalJSON reads an integral JSON number; null leaves n as it is.
func (n *jsonInt) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if v, err := strconv.ParseInt(s, 10, 0); err == nil {
		*n = jsonInt(v)
		return nil
	}
	kind := "number " + s
	switch {
	case len(s) > 0 && s[0] == '"':
		kind = "string"
	case s == "true" || s == "false":
		kind = "bool"
	case len(s) > 0 && s[0] == '{':
		kind = "object"
	case len(s) > 0 && s[0] == '[':
		kind = "array"
	default:
		// Integral values written as floats; 2^53 bounds those a float
		// holds exactly.
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
			*n = jsonInt(f)
			return nil
		}
	}
	return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[int]()}
}
