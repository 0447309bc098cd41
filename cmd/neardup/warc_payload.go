package main

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// The text of a WARC record's block, as a reader sees it. A response
// record holds the HTTP response as it came over the wire: its body may
// be sent chunked (Transfer-Encoding), compressed (Content-Encoding: gzip,
// deflate, br, zstd) and in a charset other than UTF-8 (GBK, Shift_JIS,
// windows-1252, named by Content-Type or, in an HTML page, by its meta
// element). Crawlers such as wget and Heritrix keep it so; Common Crawl
// decodes the first two before writing and renames the fields
// (X-Crawler-Transfer-Encoding), which are then no longer read as
// encodings. What is not text (an image, a PDF, a font) is no document.

// errNotText marks a record whose payload is not text: it is no document.
var errNotText = errors.New("not text")

// errStatus marks a response record whose HTTP status --warc-status does
// not keep (a redirect, a 404 page): it is no document.
var errStatus = errors.New("HTTP status not kept")

// warcText returns the text of the block of a record of type typ, whose
// WARC header fields are fields, decoded to UTF-8 and at most limit
// bytes. It returns errNotText for a payload that is not text, errStatus
// for a response whose status is not in keep (nil: every status), and an error naming what
// could not be decoded for one that is malformed.
func warcText(typ string, fields map[string]string, block []byte, limit int, keep *statusSet) ([]byte, error) {
	if typ != "response" {
		// Conversion records (WET) hold text; a resource record is what
		// its own Content-Type says, but for one about the crawl itself
		// (a metadata: URI).
		if typ == "resource" {
			if strings.HasPrefix(strings.ToLower(strings.Trim(fields["warc-target-uri"], "<>")), "metadata:") {
				return nil, errNotText // the crawler's own files: wget's log and arguments
			}
			return textPayload(fields["content-type"], block, limit)
		}
		return block, nil
	}
	status, head, body, ok := splitHTTP(block)
	if !ok {
		return block, nil // no HTTP header: the block is the body
	}
	if keep != nil && !keep.all {
		if status == 0 {
			line, _, _ := bytes.Cut(block, []byte("\n"))
			return nil, fmt.Errorf("HTTP status line %q has no status code (--warc-status all reads it)", truncate(string(bytes.TrimRight(line, "\r")), 40))
		}
		if !keep.has(status) {
			return nil, errStatus
		}
	}
	truncated := fields["warc-truncated"] != ""
	if te := head.Get("Transfer-Encoding"); te != "" {
		if !strings.EqualFold(lastToken(te), "chunked") {
			return nil, fmt.Errorf("HTTP Transfer-Encoding %q is not one neardup decodes (chunked)", te)
		}
		b, err := readLimit(httputil.NewChunkedReader(bytes.NewReader(body)), limit)
		if err != nil && !(truncated && errors.Is(err, io.ErrUnexpectedEOF)) {
			return nil, fmt.Errorf("HTTP body sent chunked does not decode: %w", err)
		}
		body = b
	}
	if ce := head.Get("Content-Encoding"); ce != "" {
		codings := strings.Split(ce, ",")
		for i := len(codings) - 1; i >= 0; i-- {
			c := strings.ToLower(strings.TrimSpace(codings[i]))
			b, err := decodeContent(c, body, limit)
			if err != nil && !(truncated && errors.Is(err, io.ErrUnexpectedEOF)) {
				return nil, err
			}
			body = b
		}
	}
	if len(body) > limit {
		return nil, fmt.Errorf("HTTP body decodes to more than --max-line %d bytes", limit)
	}
	return textPayload(head.Get("Content-Type"), body, limit)
}

// httpHeader holds the header fields of an HTTP response by lower-case
// name; a field given twice has its values joined by commas.
type httpHeader map[string]string

// Get returns the value of the field name.
func (h httpHeader) Get(name string) string { return h[strings.ToLower(name)] }

// splitHTTP parses block as an HTTP response: a status line starting
// with "HTTP/", header fields, a blank line (CRLF or LF line ends, as
// servers send them), then the body. status is the status line's code,
// 0 when it has none of three digits; ok is false when block does not
// start with a status line or its header never ends.
func splitHTTP(block []byte) (status int, h httpHeader, body []byte, ok bool) {
	if !bytes.HasPrefix(block, []byte("HTTP/")) {
		return 0, nil, nil, false
	}
	h = httpHeader{}
	rest := block
	last := ""
	first := true
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return 0, nil, nil, false
		}
		line := string(bytes.TrimRight(rest[:i], "\r"))
		rest = rest[i+1:]
		if first {
			first = false
			status = statusCode(line)
			continue
		}
		if line == "" {
			return status, h, rest, true
		}
		if (line[0] == ' ' || line[0] == '\t') && last != "" {
			h[last] += " " + strings.TrimSpace(line) // a folded line
			continue
		}
		k, v, found := strings.Cut(line, ":")
		if !found {
			continue // not a field: read past it, as browsers do
		}
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(v)
		if old, dup := h[k]; dup && old != "" {
			v = old + ", " + v
		}
		h[k] = v
		last = k
	}
}

// statusCode returns the status code of an HTTP status line such as
// "HTTP/1.1 200 OK" or "HTTP/2 404", or 0 when it has none.
func statusCode(line string) int {
	_, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimLeft(rest, " ")
	code, _, _ := strings.Cut(rest, " ")
	if len(code) != 3 {
		return 0
	}
	n, err := strconv.Atoi(code)
	if err != nil || n < 100 {
		return 0
	}
	return n
}

// statusSet is the set of HTTP status codes whose response records are
// documents (--warc-status).
type statusSet struct {
	all   bool // every status, and a status line without one
	codes [600]bool
}

// defaultWARCStatus is --warc-status's default: the successful responses.
const defaultWARCStatus = "2xx"

// parseStatusSet parses --warc-status: "all", or status codes (200) and
// classes (2xx) separated by commas.
func parseStatusSet(s string) (*statusSet, error) {
	set := &statusSet{}
	if strings.TrimSpace(s) == "all" {
		set.all = true
		return set, nil
	}
	for _, item := range strings.Split(s, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		if len(item) == 3 && item[0] >= '1' && item[0] <= '5' && item[1:] == "xx" {
			lo := int(item[0]-'0') * 100
			for c := lo; c < lo+100; c++ {
				set.codes[c] = true
			}
			continue
		}
		n, err := strconv.Atoi(item)
		if err != nil || len(item) != 3 || n < 100 || n > 599 {
			return nil, fmt.Errorf("%q is not an HTTP status code (100 to 599) or class (1xx to 5xx)", item)
		}
		set.codes[n] = true
	}
	return set, nil
}

// has reports whether responses of status code are documents.
func (s *statusSet) has(code int) bool {
	return s.all || (code >= 0 && code < len(s.codes) && s.codes[code])
}

// lastToken returns the last of the comma-separated tokens of s.
func lastToken(s string) string {
	if i := strings.LastIndexByte(s, ','); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// decodeContent undoes the content coding c of body, reading at most
// limit bytes and one more.
func decodeContent(c string, body []byte, limit int) ([]byte, error) {
	var r io.Reader
	var err error
	if len(body) == 0 && c != "" && c != "identity" {
		// A 204, a 304, a redirect: nothing was sent, in any coding.
		return body, nil
	}
	switch c {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		r, err = gzip.NewReader(bytes.NewReader(body))
	case "deflate":
		// The zlib format, as RFC 9110 says; some servers send raw
		// deflate data instead, which has no zlib header.
		if r, err = zlib.NewReader(bytes.NewReader(body)); err != nil {
			r, err = flate.NewReader(bytes.NewReader(body)), nil
		}
	case "br":
		r = brotli.NewReader(bytes.NewReader(body))
	case "zstd":
		d, derr := zstd.NewReader(bytes.NewReader(body), zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20))
		if derr != nil {
			return nil, fmt.Errorf("HTTP body sent with Content-Encoding zstd does not decode: %w", derr)
		}
		defer d.Close()
		r = d
	default:
		return nil, fmt.Errorf("HTTP Content-Encoding %q is not one neardup decodes (gzip, deflate, br, zstd)", c)
	}
	if err != nil {
		return nil, fmt.Errorf("HTTP body sent with Content-Encoding %s does not decode: %w", c, err)
	}
	b, err := readLimit(r, limit)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return b, fmt.Errorf("HTTP body sent with Content-Encoding %s does not decode: %w", c, err)
	}
	return b, nil
}

// readLimit reads r to its end, at most limit bytes and one more (so that
// a body over the limit is told by its length).
func readLimit(r io.Reader, limit int) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, int64(limit)+1))
}

// textPayload returns body decoded to UTF-8, or errNotText when contentType
// (or, where it is missing, the body's first bytes) says it is not text.
// The charset is the one a byte order mark gives, else Content-Type's,
// else, for HTML, the one its meta element names in its first 1024
// bytes; a charset that is unknown or missing leaves the bytes as they
// are (invalid UTF-8 is read as U+FFFD).
func textPayload(contentType string, body []byte, limit int) ([]byte, error) {
	if strings.TrimSpace(contentType) == "" {
		if len(body) == 0 {
			return body, nil
		}
		contentType = http.DetectContentType(body)
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		// An unreadable parameter: the type before it still says what it is.
		mt, _, _ = strings.Cut(strings.ToLower(contentType), ";")
		mt = strings.TrimSpace(mt)
	}
	if !isTextType(mt) {
		return nil, errNotText
	}
	switch {
	case bytes.HasPrefix(body, []byte{0xef, 0xbb, 0xbf}):
		return body[3:], nil
	case bytes.HasPrefix(body, []byte{0xfe, 0xff}), bytes.HasPrefix(body, []byte{0xff, 0xfe}):
		return decodeCharset("utf-16le", body, limit) // the byte order mark says which
	}
	cs := params["charset"]
	if cs == "" && (mt == "text/html" || mt == "application/xhtml+xml") {
		cs = metaCharset(body)
	}
	return decodeCharset(cs, body, limit)
}

// isTextType reports whether the media type mt holds text: text/*, and
// the XML, JSON and JavaScript types.
func isTextType(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"),
		strings.HasSuffix(mt, "+xml"), strings.HasSuffix(mt, "+json"):
		return true
	}
	switch mt {
	case "application/xml", "application/json", "application/javascript", "application/ecmascript", "application/x-javascript":
		return true
	}
	return false
}

// decodeCharset returns body decoded from the charset cs (a WHATWG label,
// as browsers read them: iso-8859-1 is windows-1252, gb2312 is GBK) to
// UTF-8. An unknown or empty label, or UTF-8, leaves body as it is.
func decodeCharset(cs string, body []byte, limit int) ([]byte, error) {
	if cs == "" {
		return body, nil
	}
	enc, err := htmlindex.Get(cs)
	if err != nil {
		return body, nil
	}
	switch name, _ := htmlindex.Name(enc); name {
	case "utf-8":
		return body, nil
	case "utf-16le", "utf-16be":
		// A byte order mark, where there is one, says which.
		order := unicode.LittleEndian
		if name == "utf-16be" {
			order = unicode.BigEndian
		}
		enc = unicode.UTF16(order, unicode.UseBOM)
	}
	out, err := readLimit(transform.NewReader(bytes.NewReader(body), enc.NewDecoder()), limit)
	if err != nil {
		return nil, fmt.Errorf("HTTP body in charset %s does not decode: %w", cs, err)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("HTTP body decodes from %s to more than --max-line %d bytes", cs, limit)
	}
	return out, nil
}

// metaCharset returns the charset an HTML page's meta element names in
// its first 1024 bytes (<meta charset="..."> or the http-equiv form,
// content="text/html; charset=..."), or "".
func metaCharset(body []byte) string {
	head := body[:min(len(body), 1024)]
	lower := bytes.ToLower(head)
	for {
		i := bytes.Index(lower, []byte("<meta"))
		if i < 0 {
			return ""
		}
		lower = lower[i+5:]
		end := bytes.IndexByte(lower, '>')
		if end < 0 {
			end = len(lower)
		}
		tag := lower[:end]
		if j := bytes.Index(tag, []byte("charset")); j >= 0 {
			v := bytes.TrimLeft(tag[j+len("charset"):], " \t\r\n")
			if len(v) > 0 && v[0] == '=' {
				v = bytes.TrimLeft(v[1:], " \t\r\n\"'")
				k := bytes.IndexAny(v, "\"'; \t\r\n/>")
				if k < 0 {
					k = len(v)
				}
				if k > 0 && utf8.Valid(v[:k]) {
					return string(v[:k])
				}
			}
		}
		lower = lower[end:]
	}
}
