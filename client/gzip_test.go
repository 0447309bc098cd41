package client

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// batchDocs returns n documents of sixty words each, drawn with Zipf's law
// from a vocabulary of 20,000 made-up words, so that they compress about
// as English does.
func batchDocs(n int) []Document {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 20000)
	for i := range vocab {
		w := make([]byte, 2+r.IntN(8))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		vocab[i] = string(w)
	}
	zipf := rand.NewZipf(r, 1.1, 1, uint64(len(vocab)-1))
	ds := make([]Document, n)
	for i := range ds {
		var b strings.Builder
		for range 60 {
			b.WriteString(vocab[zipf.Uint64()])
			b.WriteByte(' ')
		}
		ds[i] = Document{ID: fmt.Sprint("doc-", i), Text: b.String()}
	}
	return ds
}

// TestGzip checks that a client made by Gzip sends the bodies of at least
// its size compressed, with Content-Encoding gzip, and the others as they
// are, and that a compressed body holds the same JSON.
func TestGzip(t *testing.T) {
	var encoding string
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		encoding = r.Header.Get("Content-Encoding")
		var body io.Reader = r.Body
		if encoding == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		got, _ = io.ReadAll(body)
		n := bytes.Count(got, []byte(`"text"`))
		fmt.Fprintf(w, `{"results":[%s]}`, strings.TrimSuffix(strings.Repeat(`{"id":"x"},`, n), ","))
	}))
	defer srv.Close()
	ds := batchDocs(200)
	want, _ := json.Marshal(ds)
	plain := New(srv.URL, nil)
	c := plain.Gzip(1000)
	for _, tc := range []struct {
		name     string
		c        *Client
		docs     []Document
		encoding string
	}{
		{"batch, compressed", c, ds, "gzip"},
		{"one document, under the size", c, ds[:1], ""},
		{"every body", New(srv.URL, nil).Gzip(0), ds[:1], "gzip"},
		{"the client Gzip was called on", plain, ds, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.c.Batch(context.Background(), tc.docs); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(tc.docs)
			if encoding != tc.encoding || !bytes.Equal(got, want) {
				t.Errorf("Content-Encoding %q, body of %d bytes; want %q and the %d bytes of JSON", encoding, len(got), tc.encoding, len(want))
			}
		})
	}
	if len(want) < 3*1000 {
		t.Fatalf("the batch is only %d bytes", len(want))
	}
}

// BenchmarkGzip measures compressing a batch of 1,000 documents of sixty
// words as Gzip does, beside the baseline of encoding it as JSON, which
// every call does, in the same run.
func BenchmarkGzip(b *testing.B) {
	ds := batchDocs(1000)
	body, _ := json.Marshal(ds)
	b.Run("json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, err := json.Marshal(ds); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gzip", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		var n int
		for b.Loop() {
			z, err := compress(body)
			if err != nil {
				b.Fatal(err)
			}
			n = len(z)
		}
		b.ReportMetric(float64(n)/float64(len(body)), "ratio")
	})
}
