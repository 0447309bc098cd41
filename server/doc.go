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
//	400 bad_json              the body is not JSON of the expected shape
//	400 unknown_field         a request object has a field the API does not define
//	400 missing_text          "text" is absent or empty, or has nothing visible
//	400 invalid_utf8          the body is not valid UTF-8
//	400 bad_gzip              a body sent with Content-Encoding gzip does not decompress
//	400 bad_encoding          a body sent with Content-Encoding deflate, zstd or br does not decompress
//	400 id_too_long           an id is longer than the engine takes
//	400 expired               a document's time is before the retention window
//	400 future_time           a document's time is too far ahead
//	400 bad_request           any other invalid value (a bad fingerprint, k, profile...)
//	404 not_found             no document has that id
//	404 no_route              no such path
//	405 method_not_allowed    the path takes other methods (see the Allow header)
//	403 cross_origin          a POST or DELETE a browser marks as made by another site's page
//	403 host_not_allowed      the Host header names no host the server answers to (Options.AllowedHosts)
//	409 id_conflict           the id is stored with another text
//	413 body_too_large        the body exceeds Options.MaxBody (sent, or decompressed)
//	413 batch_too_large       a batch has more than Options.MaxBatch documents
//	413 text_too_large        a text is longer than the route or the engine takes
//	415 unsupported_encoding  a Content-Encoding other than gzip, deflate, zstd, br or identity
//	429 overloaded            Options.MaxInFlight requests are already being served
//	501 not_implemented       the engine cannot answer a query by fingerprint
//	503 unavailable           the server is starting (no engine yet) or draining
//	503 store_failed          a write to the store failed; only a restart mends it
//	503 timeout               the request's work took longer than Options.WriteTimeout
//	507 insufficient_storage  the disk has less free space than the engine keeps
//	500 internal              a bug; the request is logged
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
