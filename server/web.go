package server

import (
	"embed"
	"io/fs"
	"net/http"
	"unicode/utf8"

	"github.com/neardup/neardup/api"
)

// webFiles holds the web page: plain HTML, CSS and JavaScript, no build
// step, nothing fetched from elsewhere.
//
//go:embed web
var webFiles embed.FS

// webRoot returns the web directory of webFiles.
func webRoot() fs.FS {
	sub, err := fs.Sub(webFiles, "web")
	if err != nil {
		panic("server: embedded web directory missing: " + err.Error())
	}
	return sub
}

// contentSecurityPolicy lets the page load only its own files.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'"

func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(webRoot(), "index.html")
	if err != nil {
		writeError(w, newError(http.StatusInternalServerError, "internal", err.Error()))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	w.Write(b)
}

// handleStatic serves the page's files. A path that is not valid UTF-8
// names no file: it is answered 404 here, as the file server would answer
// the embedded files' refusal of such a name with 500.
func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) {
	if !utf8.ValidString(r.URL.Path) {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-cache")
	http.StripPrefix("/static/", http.FileServerFS(webRoot())).ServeHTTP(w, r)
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(api.OpenAPI())
}
