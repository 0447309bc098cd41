package main

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

// chunked returns body in HTTP chunked transfer coding, in chunks of n
// bytes.
func chunked(body []byte, n int) []byte {
	var b bytes.Buffer
	for len(body) > 0 {
		k := min(n, len(body))
		fmt.Fprintf(&b, "%x\r\n%s\r\n", k, body[:k])
		body = body[k:]
	}
	b.WriteString("0\r\n\r\n")
	return b.Bytes()
}

// encodeWith returns s in the charset enc.
func encodeWith(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// squeezed returns b written through the compressor w makes.
func squeezed(w func(io.Writer) io.WriteCloser, b []byte) []byte {
	var out bytes.Buffer
	c := w(&out)
	c.Write(b)
	c.Close()
	return out.Bytes()
}

// brotliOf, zlibOf and flateOf return b compressed so.
func brotliOf(b []byte) []byte {
	return squeezed(func(w io.Writer) io.WriteCloser { return brotli.NewWriter(w) }, b)
}

func zlibOf(b []byte) []byte {
	return squeezed(func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) }, b)
}

func flateOf(b []byte) []byte {
	return squeezed(func(w io.Writer) io.WriteCloser { c, _ := flate.NewWriter(w, 5); return c }, b)
}

// httpResponse returns an HTTP response of those header lines and body.
func httpResponse(header string, body []byte) []byte {
	return append([]byte("HTTP/1.1 200 OK\r\n"+header+"\r\n"), body...)
}

// TestWARCText checks that the text of a response record is its HTTP body
// decoded as a browser decodes it (transfer and content codings, then the
// charset), that what is not text is no document, and that a body that
// does not decode is an error naming why.
func TestWARCText(t *testing.T) {
	const zh = "今天天气很好，我们去公园散步。"
	const ja = "今日はいい天気です。"
	html := []byte("<html><body><p>" + fox + "</p></body></html>")
	gz := compress(t, "gz", html)
	long := string(html)
	for i := range 300 {
		long += fmt.Sprintf(" word%d", i*7919%1000)
	}
	gzLong := compress(t, "gz", []byte(long))
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 40)...)
	tests := []struct {
		name   string
		typ    string
		fields map[string]string
		block  []byte
		want   string // the text, or the error's message after "error: "
	}{
		{"plain", "response", nil, httpResponse("Content-Type: text/html\r\n", html), string(html)},
		{"LF line ends and a folded field", "response", nil,
			[]byte("HTTP/1.0 200 OK\nContent-Type: text/html;\n charset=utf-8\nServer: x\n\n" + fox), fox},
		{"no HTTP header", "response", nil, []byte(fox), fox},
		{"chunked", "response", nil, httpResponse("Transfer-Encoding: chunked\r\n", chunked([]byte(fox), 7)), fox},
		{"chunked gzip", "response", nil,
			httpResponse("Content-Type: text/html; charset=UTF-8\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", chunked(gz, 10)), string(html)},
		{"nothing sent, in br", "response", nil, httpResponse("Content-Encoding: br\r\nContent-Type: text/html\r\n", nil), ""},
		{"x-gzip", "response", nil, httpResponse("Content-Encoding: x-gzip\r\nContent-Type: text/plain\r\n", compress(t, "gz", []byte(fox))), fox},
		{"zstd", "response", nil, httpResponse("Content-Encoding: zstd\r\nContent-Type: text/plain\r\n", compress(t, "zst", []byte(fox))), fox},
		{"br", "response", nil, httpResponse("Content-Encoding: br\r\nContent-Type: text/plain\r\n", brotliOf([]byte(fox))), fox},
		{"deflate (zlib)", "response", nil, httpResponse("Content-Encoding: deflate\r\nContent-Type: text/plain\r\n", zlibOf([]byte(fox))), fox},
		{"deflate (raw)", "response", nil, httpResponse("Content-Encoding: deflate\r\nContent-Type: text/plain\r\n", flateOf([]byte(fox))), fox},
		{"two codings", "response", nil, httpResponse("Content-Encoding: gzip, br\r\nContent-Type: text/plain\r\n", brotliOf(compress(t, "gz", []byte(fox)))), fox},
		{"decoded by the crawler", "response", nil,
			httpResponse("X-Crawler-Content-Encoding: gzip\r\nContent-Type: text/plain\r\n", []byte(fox)), fox},
		{"GBK by Content-Type", "response", nil,
			httpResponse("Content-Type: text/html; charset=gb2312\r\n", encodeWith(t, simplifiedchinese.GBK, "<p>"+zh+"</p>")), "<p>" + zh + "</p>"},
		{"Shift_JIS by meta", "response", nil,
			httpResponse("Content-Type: text/html\r\n", encodeWith(t, japanese.ShiftJIS, `<html><head><meta charset="Shift_JIS"></head><body>`+ja)),
			`<html><head><meta charset="Shift_JIS"></head><body>` + ja},
		{"GB18030 by http-equiv", "response", nil,
			httpResponse("Content-Type: text/html\r\n", encodeWith(t, simplifiedchinese.GB18030, `<meta http-equiv="Content-Type" content="text/html; charset=gb18030">`+zh)),
			`<meta http-equiv="Content-Type" content="text/html; charset=gb18030">` + zh},
		{"iso-8859-1 read as windows-1252", "response", nil,
			httpResponse("Content-Type: text/plain; charset=ISO-8859-1\r\n", encodeWith(t, charmap.Windows1252, "café “quoted”")), "café “quoted”"},
		{"UTF-8 byte order mark", "response", nil, httpResponse("Content-Type: text/plain; charset=gbk\r\n", append([]byte("\xef\xbb\xbf"), fox...)), fox},
		{"UTF-16 byte order mark", "response", nil,
			httpResponse("Content-Type: text/plain\r\n", encodeWith(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), zh)), zh},
		{"unknown charset", "response", nil, httpResponse("Content-Type: text/plain; charset=x-klingon\r\n", []byte(fox)), fox},
		{"no Content-Type, text", "response", nil, httpResponse("", []byte(fox)), fox},
		{"an image", "response", nil, httpResponse("Content-Type: image/png\r\n", png), "error: not text"},
		{"a PDF", "response", nil, httpResponse("Content-Type: application/pdf\r\n", []byte("%PDF-1.4 ...")), "error: not text"},
		{"no Content-Type, an image", "response", nil, httpResponse("", png), "error: not text"},
		{"JSON", "response", nil, httpResponse("Content-Type: application/ld+json\r\n", []byte(`{"a":1}`)), `{"a":1}`},
		{"resource, an image", "resource", map[string]string{"content-type": "image/jpeg"}, png, "error: not text"},
		{"resource, text", "resource", map[string]string{"content-type": "text/plain; charset=windows-1252"}, encodeWith(t, charmap.Windows1252, "café"), "café"},
		{"resource, the crawler's log", "resource", map[string]string{"content-type": "text/plain", "warc-target-uri": "<metadata://gnu.org/software/wget/warc/wget.log>"}, []byte(fox), "error: not text"},
		{"conversion", "conversion", nil, []byte(fox), fox},
		{"unknown coding", "response", nil, httpResponse("Content-Encoding: compress\r\n", []byte(fox)),
			`error: HTTP Content-Encoding "compress" is not one neardup decodes (gzip, deflate, br, zstd)`},
		{"unknown transfer coding", "response", nil, httpResponse("Transfer-Encoding: gzip\r\n", []byte(fox)),
			`error: HTTP Transfer-Encoding "gzip" is not one neardup decodes (chunked)`},
		{"not gzip", "response", nil, httpResponse("Content-Encoding: gzip\r\n", []byte(fox)), "error: HTTP body sent with Content-Encoding gzip does not decode"},
		{"gzip cut short", "response", nil, httpResponse("Content-Encoding: gzip\r\n", gz[:len(gz)/2]), "error: HTTP body sent with Content-Encoding gzip does not decode: unexpected EOF"},
		{"gzip cut short, record truncated", "response", map[string]string{"warc-truncated": "length"},
			httpResponse("Content-Encoding: gzip\r\nContent-Type: text/html\r\n", gzLong[:len(gzLong)/2]), "<html><body><p>" + fox + "</p></body></html> word0 word919"},
		{"chunks cut short", "response", nil, httpResponse("Transfer-Encoding: chunked\r\n", chunked([]byte(fox), 7)[:20]), "error: HTTP body sent chunked does not decode"},
		{"over the limit", "response", nil, httpResponse("Content-Encoding: gzip\r\n", compress(t, "gz", bytes.Repeat([]byte("a "), 600))), "error: HTTP body decodes to more than --max-line 1000 bytes"},
		{"over the limit in its charset", "response", nil, httpResponse("Content-Type: text/plain; charset=gbk\r\n", encodeWith(t, simplifiedchinese.GBK, strings.Repeat("中", 400))),
			"error: HTTP body decodes from gbk to more than --max-line 1000 bytes"},
	}
	for _, tc := range tests {
		fields := tc.fields
		if fields == nil {
			fields = map[string]string{}
		}
		got, err := warcText(tc.typ, fields, tc.block, 1000, ok2xx)
		if want, isErr := strings.CutPrefix(tc.want, "error: "); isErr {
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s: text %q, error %v; want the error %q", tc.name, got, err, want)
			}
			if want == "not text" && !errors.Is(err, errNotText) {
				t.Errorf("%s: error %v is not errNotText", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: error %v", tc.name, err)
			continue
		}
		if tc.name == "gzip cut short, record truncated" {
			if !strings.HasPrefix(string(got), tc.want) {
				t.Errorf("%s: text %q, want it to start %q", tc.name, got, tc.want)
			}
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s: text %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestDedupWARCResponses checks dedup end to end on response records as a
// crawler such as wget keeps them: an HTML page sent chunked, gzipped and
// in GBK is found a near-duplicate of the same page sent as UTF-8 (with
// --html), an image is no document and not written, and a body that does
// not decode is a malformed record that --on-error skip passes over.
func TestDedupWARCResponses(t *testing.T) {
	const zh = "北京时间今天上午，国家统计局发布了最新的经济数据，显示第三季度国内生产总值同比增长百分之五点二，高于市场预期。"
	page := "<html><head><meta charset=\"gbk\"><title>新闻</title></head><body><p>" + zh + "</p></body></html>"
	utf := warcRecord("response", "a", "http://a.example/", string(httpResponse("Content-Type: text/html; charset=utf-8\r\n", []byte(strings.Replace(page, "gbk", "utf-8", 1)))))
	gbk := warcRecord("response", "b", "http://b.example/", string(httpResponse("Content-Type: text/html\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n",
		chunked(compress(t, "gz", encodeWith(t, simplifiedchinese.GBK, page)), 16))))
	img := warcRecord("response", "c", "http://c.example/logo.png", string(httpResponse("Content-Type: image/png\r\n", append([]byte("\x89PNG\r\n\x1a\n"), 0, 1, 2))))
	broken := warcRecord("response", "d", "http://d.example/", string(httpResponse("Content-Encoding: gzip\r\n", []byte("not gzip at all"))))
	other := warcRecord("conversion", "e", "http://e.example/", other)
	dir := t.TempDir()
	path := filepath.Join(dir, "crawl.warc")
	if err := os.WriteFile(path, []byte(utf+gbk+img+broken+other), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(dir, "rep.jsonl")
	var out, errb bytes.Buffer
	code := run([]string{"dedup", "--html", "--on-error", "skip", "--report", rep, path}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, want 0 (a malformed record skipped); stderr %q", code, errb.String())
	}
	if out.String() != utf+other {
		t.Errorf("output\n%q\nwant the UTF-8 page and the other text", out.String())
	}
	if p := reportPairs(t, rep); strings.Join(p, " ") != "<urn:uuid:b>><urn:uuid:a>" {
		t.Errorf("report %v, want the GBK page a duplicate of the UTF-8 one", p)
	}
	line := 1 + strings.Count(utf+gbk+img, "\n")
	if want := fmt.Sprintf("%s:%d: HTTP body sent with Content-Encoding gzip does not decode", path, line); !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q, want %q", errb.String(), want)
	}
}

// ok2xx is --warc-status's default set.
var ok2xx = mustStatusSet(defaultWARCStatus)

func mustStatusSet(s string) *statusSet {
	set, err := parseStatusSet(s)
	if err != nil {
		panic(err)
	}
	return set
}

// TestWARCStatus checks --warc-status: which HTTP statuses it names, what
// it refuses, and that a response of a status it does not keep (a
// redirect, a 404 page) is no document, while a status line without a
// code is malformed unless every status is kept.
func TestWARCStatus(t *testing.T) {
	for _, tc := range []struct {
		flag string
		in   []int
		out  []int
	}{
		{"2xx", []int{200, 203, 206, 299}, []int{199, 301, 304, 404, 500}},
		{"200,404", []int{200, 404}, []int{201, 301, 500}},
		{" 2XX , 301", []int{200, 250, 301}, []int{302, 404}},
		{"all", []int{100, 200, 404, 599, 0}, nil},
	} {
		set, err := parseStatusSet(tc.flag)
		if err != nil {
			t.Errorf("%q: %v", tc.flag, err)
			continue
		}
		for _, c := range tc.in {
			if !set.has(c) {
				t.Errorf("%q does not hold %d", tc.flag, c)
			}
		}
		for _, c := range tc.out {
			if set.has(c) {
				t.Errorf("%q holds %d", tc.flag, c)
			}
		}
	}
	for _, bad := range []string{"", "abc", "2x", "6xx", "600", "099", "20", "2000", "200,", "+20", "all,200"} {
		if _, err := parseStatusSet(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}

	page := func(status string) []byte {
		return []byte(status + "\r\nContent-Type: text/html\r\n\r\n<p>" + fox + "</p>")
	}
	for _, tc := range []struct {
		name  string
		block []byte
		keep  string
		want  string
	}{
		{"200", page("HTTP/1.1 200 OK"), "2xx", "<p>" + fox + "</p>"},
		{"HTTP/2, no reason", page("HTTP/2 200"), "2xx", "<p>" + fox + "</p>"},
		{"404", page("HTTP/1.1 404 Not Found"), "2xx", "error: HTTP status not kept"},
		{"404 kept", page("HTTP/1.1 404 Not Found"), "200,404", "<p>" + fox + "</p>"},
		{"redirect", []byte("HTTP/1.1 301 Moved Permanently\r\nLocation: /b\r\nContent-Encoding: gzip\r\n\r\nnot gzip"), "2xx", "error: HTTP status not kept"},
		{"any status", page("HTTP/1.0 503 Service Unavailable"), "all", "<p>" + fox + "</p>"},
		{"no code", page("HTTP/1.1 OK"), "2xx", `error: HTTP status line "HTTP/1.1 OK" has no status code`},
		{"no code, all", page("HTTP/1.1 OK"), "all", "<p>" + fox + "</p>"},
	} {
		got, err := warcText("response", map[string]string{}, tc.block, 1000, mustStatusSet(tc.keep))
		if want, isErr := strings.CutPrefix(tc.want, "error: "); isErr {
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s: text %q, error %v; want the error %q", tc.name, got, err, want)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: text %q, error %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestDedupWARCStatus checks dedup end to end on a crawl with a redirect
// and a 404 page: by default neither is a document nor written; with
// --warc-status all, the two 404 pages are near-duplicates of each other;
// a bad --warc-status is a usage error naming it.
func TestDedupWARCStatus(t *testing.T) {
	ok := warcRecord("response", "a", "http://a.example/", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n"+fox)
	moved := warcRecord("response", "b", "http://a.example/old", "HTTP/1.1 301 Moved Permanently\r\nLocation: http://a.example/\r\nContent-Type: text/plain\r\n\r\nMoved to http://a.example/")
	missing := warcRecord("response", "c", "http://a.example/x", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\n"+other)
	missing2 := warcRecord("response", "d", "http://a.example/y", "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\n"+other)
	path := filepath.Join(t.TempDir(), "crawl.warc")
	if err := os.WriteFile(path, []byte(ok+moved+missing+missing2), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{nil, ok},
		{[]string{"--warc-status", "all"}, ok + moved + missing},
		{[]string{"--warc-status", "200,301"}, ok + moved},
	} {
		var out, errb bytes.Buffer
		if code := run(append(append([]string{"dedup"}, tc.args...), path), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", tc.args, code, errb.String())
		}
		if out.String() != tc.out {
			t.Errorf("%v: output\n%q\nwant\n%q", tc.args, out.String(), tc.out)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"dedup", "--warc-status", "2xx,ok", path}, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), `--warc-status "2xx,ok": "ok" is not an HTTP status code`) {
		t.Errorf("bad --warc-status: exit %d, stderr %q; want 2 and a message naming it", code, errb.String())
	}
}
