package main

import (
	"encoding/json"
	"io"
)

// newJSONEncoder returns the encoder of the commands' JSON outputs (dedup's
// report, cluster's groups, compare's and eval's results). It writes <, >
// and & as they are, not as \u003c, \u003e and \u0026: the outputs are
// read by programs and people, not put into HTML, and a URL id such as
// "https://example.com/?a=1&b=2" is then written as it was read, for grep
// to find.
func newJSONEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
