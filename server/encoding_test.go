package server

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// zstdOf returns b compressed as a zstd stream with the given encoder
// options.
func zstdOf(t testing.TB, b []byte, opts ...zstd.EOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, opts...)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// packWith returns b written through the compressor w makes.
func packWith(b []byte, w func(io.Writer) io.WriteCloser) []byte {
	var buf bytes.Buffer
	zw := w(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// brOf returns b compressed with brotli at its default quality.
func brOf(b []byte) []byte {
	return packWith(b, func(w io.Writer) io.WriteCloser { return brotli.NewWriter(w) })
}

// zlibOf returns b compressed in the zlib format, Content-Encoding
// deflate as RFC 9110 has it.
func zlibOf(b []byte) []byte {
	return packWith(b, func(w io.Writer) io.WriteCloser { return zlib.NewWriter(w) })
}

// rawDeflateOf returns b compressed as raw deflate.
func rawDeflateOf(b []byte) []byte {
	return packWith(b, func(w io.Writer) io.WriteCloser {
		zw, _ := flate.NewWriter(w, flate.BestSpeed)
		return zw
	})
}

// TestZstdBrotliBodies posts bodies sent with Content-Encoding zstd, br
// and deflate (zlib, and raw deflate): each is read as the same JSON sent
// plain, on the single and the batch routes; a body that is not in its coding, or is cut short, is a
// 400 bad_encoding naming the coding; one that decompresses past MaxBody
// is a 413 although it is small as sent; a zstd frame that needs a window
// beyond the decoders' is a 400 naming the limit.
func TestZstdBrotliBodies(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxBody: 1 << 10})
	h := s.Handler()
	post := func(path, enc string, body []byte) (int, map[string]any, string) {
		t.Helper()
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set("Content-Encoding", enc)
		if strings.HasSuffix(path, "batch") {
			req.Header.Set("Content-Type", "application/x-ndjson")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var v map[string]any
		json.Unmarshal(w.Body.Bytes(), &v)
		return w.Code, v, w.Body.String()
	}
	message := func(v map[string]any) string {
		e, _ := v["error"].(map[string]any)
		m, _ := e["message"].(string)
		return m
	}
	codings := map[string]func([]byte) []byte{
		"zstd":    func(b []byte) []byte { return zstdOf(t, b) },
		"br":      brOf,
		"deflate": zlibOf,
	}
	for _, enc := range []string{"zstd", "br", "deflate"} {
		pack := codings[enc]
		doc := []byte(fmt.Sprintf(`{"id":"%s1","text":"a text sent compressed with %s, as a crawler might send its pages"}`, enc, enc))
		if code, v, body := post("/v1/documents", enc, pack(doc)); code != 200 || v["id"] != enc+"1" {
			t.Errorf("%s document: %d %s", enc, code, body)
		}
		if code, v, body := post("/v1/documents", strings.ToUpper(enc), pack(doc)); code != 200 || v["id"] != enc+"1" {
			t.Errorf("%s document again, the coding in capitals: %d %s", enc, code, body)
		}
		batch := []byte(fmt.Sprintf("{\"id\":\"%s2\",\"text\":\"one of a batch\"}\n{\"id\":\"%s3\",\"text\":\"another text altogether, of the same batch\"}\n", enc, enc))
		if code, _, body := post("/v1/documents/batch", enc, pack(batch)); code != 200 || !strings.Contains(body, `"`+enc+`3"`) {
			t.Errorf("%s batch: %d %s", enc, code, body)
		}
		if code, v, body := post("/v1/documents", enc, doc); code != 400 || errorCode(v) != "bad_encoding" || !strings.Contains(message(v), "Content-Encoding "+enc) {
			t.Errorf("plain body sent as %s: %d %s", enc, code, body)
		}
		p := pack(doc)
		if code, v, body := post("/v1/documents", enc, p[:len(p)/2]); code != 400 || errorCode(v) != "bad_encoding" {
			t.Errorf("%s cut short: %d %s", enc, code, body)
		}
		big := pack([]byte(`{"text":"` + strings.Repeat("a", 64<<10) + `"}`))
		if len(big) >= 1<<10 {
			t.Fatalf("the compressed body is %d bytes; the test needs it under the limit", len(big))
		}
		if code, v, body := post("/v1/documents", enc, big); code != 413 || errorCode(v) != "body_too_large" || !strings.Contains(message(v), "decompresses") {
			t.Errorf("%s over the limit once decompressed: %d %s", enc, code, body)
		}
	}
	// Bytes after the end of the stream are refused, not dropped: a
	// second zlib stream (deflate is one), or anything else. zstd frames
	// may follow one another.
	half := func(i int) []byte {
		return []byte(fmt.Sprintf("{\"id\":\"two%d\",\"text\":\"text number %d of a body in two streams\"}\n", i, i))
	}
	for _, enc := range []string{"zstd", "br", "deflate"} {
		pack := codings[enc]
		code, v, body := post("/v1/documents/batch", enc, append(pack(half(1)), pack(half(2))...))
		if enc == "zstd" {
			if code != 200 || !strings.Contains(body, `"two2"`) {
				t.Errorf("zstd, two frames: %d %s; want both documents", code, body)
			}
		} else if code != 400 || errorCode(v) != "bad_encoding" {
			t.Errorf("%s, two streams: %d %s; want 400 bad_encoding", enc, code, body)
		}
		if code, v, body := post("/v1/documents/batch", enc, append(pack(half(3)), "GARBAGE"...)); code != 400 || errorCode(v) != "bad_encoding" {
			t.Errorf("%s, bytes after the stream: %d %s; want 400 bad_encoding", enc, code, body)
		}
	}
	if code, v, body := post("/v1/documents/batch", "deflate", append(rawDeflateOf(half(4)), "GARBAGE"...)); code != 400 || errorCode(v) != "bad_encoding" {
		t.Errorf("raw deflate, bytes after the stream: %d %s; want 400 bad_encoding", code, body)
	}
	// deflate as some clients send it: raw, without zlib's header.
	raw := []byte(`{"id":"raw1","text":"a text sent as raw deflate, without the zlib header"}`)
	if code, v, body := post("/v1/documents", "deflate", rawDeflateOf(raw)); code != 200 || v["id"] != "raw1" {
		t.Errorf("raw deflate document: %d %s", code, body)
	}
	// A frame without a content size whose window descriptor asks for
	// 16 MiB (exponent 14, mantissa 0), holding one raw block: more than
	// the decoders hold.
	text := []byte(`{"text":"a small text in a frame with a wide window"}`)
	wide := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 14 << 3}
	n := 1 | len(text)<<3 // the last block, raw, of len(text) bytes
	wide = append(append(wide, byte(n), byte(n>>8), byte(n>>16)), text...)
	if z, err := zstd.NewReader(nil, zstd.WithDecoderMaxWindow(32<<20)); err != nil {
		t.Fatal(err)
	} else if got, err := z.DecodeAll(wide, nil); err != nil || !bytes.Equal(got, text) {
		t.Fatalf("the wide frame decodes to %q, %v with a wide enough window", got, err)
	}
	if code, v, body := post("/v1/documents", "zstd", wide); code != 400 || errorCode(v) != "bad_encoding" || !strings.Contains(message(v), "window of more than 8 MiB") {
		t.Errorf("zstd with a 16 MiB window: %d %s", code, body)
	}
}

// TestZstdBodiesConcurrent posts zstd and br bodies from more clients
// than there are decoders: each is answered with its own id, so the
// decoders a slot keeps do not mix one body with another.
func TestZstdBodiesConcurrent(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	h := s.Handler()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				id := fmt.Sprintf("c%d-%d", c, i)
				doc := []byte(fmt.Sprintf(`{"id":%q,"text":"document %s of client %d: %s"}`, id, id, c, strings.Repeat(fmt.Sprintf("w%d ", i*31+c), 40)))
				enc, body := "zstd", zstdOf(t, doc)
				if i%2 == 1 {
					enc, body = "br", brOf(doc)
				}
				req := httptest.NewRequest("POST", "/v1/documents", bytes.NewReader(body))
				req.Header.Set("Content-Encoding", enc)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				var v struct{ ID string }
				if json.Unmarshal(w.Body.Bytes(), &v); w.Code != 200 || v.ID != id {
					errs <- fmt.Sprintf("%s %s: %d %s", enc, id, w.Code, w.Body.String())
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// FuzzCompressedBody posts arbitrary bytes as a body sent with
// Content-Encoding gzip, zstd, br or deflate: whatever they hold, the answer is a
// JSON object (an error one with a code, when it is not a 200), never a
// 500 or a crash, and never more than MaxBody decoded.
func FuzzCompressedBody(f *testing.F) {
	doc := []byte("{\"text\":\"a\"}\n{\"text\":\"b c d\"}\n")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(doc)
	zw.Close()
	f.Add(uint8(0), gz.Bytes())
	f.Add(uint8(1), zstdOf(f, doc))
	f.Add(uint8(1), zstdOf(f, bytes.Repeat([]byte("{\"text\":\"aaaa\"}\n"), 10000)))
	f.Add(uint8(1), []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x70, 0x09, 0, 0, 'x'})
	f.Add(uint8(2), brOf(doc))
	f.Add(uint8(2), []byte{0x0b, 0xff})
	f.Add(uint8(3), zlibOf(doc))
	f.Add(uint8(3), rawDeflateOf(doc))
	srv, err := New(Options{MaxBody: 1 << 16, MaxBatch: 50})
	if err != nil {
		f.Fatal(err)
	}
	srv.SetEngine(newFakeEngine())
	h := srv.Handler()
	codings := []string{"gzip", "zstd", "br", "deflate"}
	f.Fuzz(func(t *testing.T, coding uint8, body []byte) {
		enc := codings[int(coding)%len(codings)]
		req := httptest.NewRequest("POST", "/v1/documents/batch", bytes.NewReader(body))
		req.Header.Set("Content-Encoding", enc)
		req.Header.Set("Content-Type", "application/x-ndjson")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code == 500 {
			t.Fatalf("%s %q: 500: %s", enc, body, w.Body.String())
		}
		var v any
		if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s: answer is not JSON: %q", enc, w.Body.String())
		}
		if m, ok := v.(map[string]any); ok && w.Code != 200 {
			e, _ := m["error"].(map[string]any)
			if code, _ := e["code"].(string); code == "" {
				t.Fatalf("%s: %d without an error code: %v", enc, w.Code, v)
			}
		}
	})
}

// TestCompressedBodyAlone checks that a zstd or br body that alone, held
// as sent and as decompressed, needs more than MaxBodyMemory is a 413
// naming that memory, not a 429 overloaded that no retry would get past,
// and that the bytes it held are given back.
func TestCompressedBodyAlone(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxBody: 1000, MaxBodyMemory: 1000})
	h := s.Handler()
	// Random letters, so that the compressed body is most of its size.
	rng := rand.New(rand.NewPCG(1, 2))
	text := make([]byte, 900)
	for i := range text {
		text[i] = byte('a' + rng.IntN(26))
	}
	doc := []byte(`{"text":"` + string(text) + `"}`)
	for enc, pack := range map[string]func([]byte) []byte{"zstd": func(b []byte) []byte { return zstdOf(t, b) }, "br": brOf} {
		body := pack(doc)
		if len(body)+len(doc) <= 1000 {
			t.Fatalf("%s: %d bytes sent and %d decoded; the test needs more than 1000", enc, len(body), len(doc))
		}
		req := httptest.NewRequest("POST", "/v1/documents", bytes.NewReader(body))
		req.Header.Set("Content-Encoding", enc)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		var v map[string]any
		json.Unmarshal(w.Body.Bytes(), &v)
		if w.Code != 413 || errorCode(v) != "body_too_large" || !strings.Contains(w.Body.String(), "--max-body-memory") {
			t.Errorf("%s body needing more than MaxBodyMemory alone: %d %s; want 413 body_too_large naming --max-body-memory", enc, w.Code, w.Body.String())
		}
		if n := s.bodyBytes.Load(); n != 0 {
			t.Errorf("%s: %d body bytes still held", enc, n)
		}
	}
	// Sent plain, the same document is read.
	if code, v := call(t, h, "POST", "/v1/documents", "", string(doc)); code != 200 {
		t.Errorf("the same document sent plain: %d %v", code, v)
	}
}
