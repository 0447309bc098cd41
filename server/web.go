package server

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

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

// webFile is one file of the page and its entity tag.
type webFile struct {
	data []byte
	etag string
}

// pageFiles reads the page's files once, by name, and tags each with a
// hash of its content. Embedded files have no modification time: the tag
// is what lets a browser revalidate its copy (If-None-Match) and be
// answered 304 instead of sent the file again.
var pageFiles = sync.OnceValue(func() map[string]webFile {
	files := map[string]webFile{}
	root := webRoot()
	err := fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		files[name] = webFile{data: b, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		return nil
	})
	if err != nil {
		panic("server: reading the embedded web files: " + err.Error())
	}
	return files
})

// serveWebFile answers with the page's file of the given name, or 404
// no_route, in JSON as for any other path that leads nowhere. Every answer
// carries the page's security policy, whatever it holds.
func serveWebFile(w http.ResponseWriter, r *http.Request, name string) {
	h := w.Header()
	h.Set("Content-Security-Policy", contentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	f, ok := pageFiles()[name]
	if !ok {
		writeError(w, noRoute(r))
		return
	}
	h.Set("Cache-Control", "no-cache")
	h.Set("ETag", f.etag)
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.data))
}

func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	serveWebFile(w, r, "index.html")
}

// handleStatic serves the page's files by name. A name of no file, the
// directory itself (/static/) and a path that is not valid UTF-8 among
// them, is answered 404.
func (s *Server) handleStatic(w http.ResponseWriter, r *http.Request) {
	serveWebFile(w, r, strings.TrimPrefix(r.URL.Path, "/static/"))
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(api.OpenAPI())
}
