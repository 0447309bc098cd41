// Package server serves the near-duplicate engine over HTTP: a JSON API under
// /v1, health and readiness probes, Prometheus metrics and a small web page,
// all from one http.Handler.
//
// # Use
//
//	s, err := server.New(server.Options{})
//	...
//	s.SetEngine(engine) // the API answers 503 until an engine is set
//	err = s.Serve(ctx, listener) // returns after ctx ends and in-flight requests finish
//
// # Errors
//
// Every error response has the body {"error": {"code": "...", "message": "..."}}.
// The codes and their statuses are:
//
//	400 bad_json          the body is not JSON of the expected shape
//	400 unknown_field     a request object has a field the API does not define
//	400 missing_text      "text" is absent or empty
//	400 invalid_utf8      the body is not valid UTF-8
//	400 bad_request       any other invalid value (a bad fingerprint, k, profile...)
//	404 not_found         no document has that id, or no such route
//	405 method_not_allowed
//	413 body_too_large    the body exceeds Options.MaxBody
//	413 batch_too_large   a batch has more than Options.MaxBatch documents
//	429 overloaded        Options.MaxInFlight requests are already being served
//	503 unavailable       the server is starting (no engine yet) or draining
//	500 internal          a bug; the request is logged
//
// # Text encoding
//
// Request bodies must be valid UTF-8: a body with an invalid byte sequence is
// rejected whole with invalid_utf8, rather than silently replaced, so that
// the text that is fingerprinted is the text the client sent. JSON escapes of
// lone surrogates (such as "\ud800") are valid JSON and decode to U+FFFD.
//
// # Load
//
// The server never starts goroutines of its own per request or connection
// beyond the one net/http runs for each connection; connections are capped by
// Options.MaxConns, and requests that would wait for the engine beyond
// Options.MaxInFlight are refused at once with 429 rather than queued without
// bound.
package server
