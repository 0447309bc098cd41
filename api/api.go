// Package api holds the OpenAPI 3.1 description of neardup's HTTP API, the
// document the server publishes at /v1/openapi.json. The server's tests
// check it against the routes the server really answers.
package api

import (
	"bytes"
	_ "embed"
)

//go:embed openapi.json
var spec []byte

// OpenAPI returns the OpenAPI document as JSON. Each call returns a fresh
// copy that the caller may modify.
func OpenAPI() []byte { return bytes.Clone(spec) }
