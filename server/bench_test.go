package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup"
)

// benchSink keeps results alive so the compiler cannot drop the work.
var benchSink atomic.Int64

// benchBody returns the JSON body of a distinct document of about 400 bytes.
func benchBody(i int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"text":"doc %d`, i)
	x := uint64(i)*0x9e3779b97f4a7c15 + 1
	for range 60 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		fmt.Fprintf(&b, " w%d", x%5000)
	}
	b.WriteString(`"}`)
	return b.String()
}

// BenchmarkHandlerInsert measures the handler alone (no network) posting
// new documents: with the fake engine it is the server's own overhead;
// with the in-memory engine, the cost of a check-and-insert as served.
func BenchmarkHandlerInsert(b *testing.B) {
	for _, tc := range []struct {
		name   string
		engine func(b *testing.B) Engine
	}{
		{"fake", func(*testing.B) Engine { return newFakeEngine() }},
		{"engine-inmemory", func(b *testing.B) Engine { return memEngine(b) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := New(Options{})
			if err != nil {
				b.Fatal(err)
			}
			s.SetEngine(tc.engine(b))
			h := s.Handler()
			bodies := make([]string, b.N)
			for i := range bodies {
				bodies[i] = benchBody(int64(i))
			}
			var n atomic.Int64
			b.ReportAllocs()
			b.SetBytes(int64(len(bodies[0])))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				codes := 0
				for pb.Next() {
					req := httptest.NewRequest("POST", "/v1/documents", strings.NewReader(bodies[n.Add(1)-1]))
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req.WithContext(context.Background()))
					codes += w.Code
				}
				benchSink.Add(int64(codes))
			})
		})
	}
}

// BenchmarkLoopback posts new documents through real HTTP on 127.0.0.1
// from 64 concurrent clients to a server whose engine is the fake: the
// throughput ceiling of the HTTP layer (client and server) on this machine.
func BenchmarkLoopback(b *testing.B) {
	s, err := New(Options{})
	if err != nil {
		b.Fatal(err)
	}
	s.SetEngine(newFakeEngine())
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	tr := &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64, DisableCompression: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	bodies := make([]string, b.N)
	for i := range bodies {
		bodies[i] = benchBody(int64(i))
	}
	var n atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(32) // 64 clients on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		codes := 0
		for pb.Next() {
			resp, err := hc.Post(srv.URL+"/v1/documents", "application/json", strings.NewReader(bodies[n.Add(1)-1]))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes += resp.StatusCode
		}
		benchSink.Add(int64(codes))
	})
}

// BenchmarkQueryJSON compares the query routes' fast paths with
// encoding/json alone: reading one query and a batch of 100 queries as a
// JSON array, and writing the answer to such a batch.
func BenchmarkQueryJSON(b *testing.B) {
	one := []byte(benchBody(0))
	bodies := make([]string, 100)
	for i := range bodies {
		bodies[i] = benchBody(int64(i))
	}
	batch := []byte("[" + strings.Join(bodies, ",") + "]")
	dup := "doc-17"
	out := queryBatchOut{Results: make([]queryOut, len(bodies))}
	for i := range out.Results {
		out.Results[i] = queryOut{Fingerprint: "0123456789abcdef", Duplicate: true, DuplicateOf: &dup,
			Matches: []matchOut{{ID: dup, Distance: 3, Similarity: 0.9132, Scores: scoresOut{Scores: neardup.Scores{Jaccard: 0.9132, Cosine: 0.95, Levenshtein: 0.97}}, Duplicate: true}}}
	}
	for _, path := range []struct {
		name   string
		object objectParser[queryIn]
		encode func(*bytes.Buffer, any) bool
	}{
		{"fast", fastQuery, appendFast},
		{"encoding-json", slowOnly[queryIn], func(*bytes.Buffer, any) bool { return false }},
	} {
		b.Run("decode-one/"+path.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(one)))
			for b.Loop() {
				var in queryIn
				if err := decodeFast(one, &in, path.object); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("decode-batch/"+path.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(batch)))
			for b.Loop() {
				if _, _, err := parseItems(batch, "application/json", DefaultMaxBatch, queryNoun, path.object); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encode-batch/"+path.name, func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if !path.encode(&buf, out) {
					buf.Reset()
					if err := json.NewEncoder(&buf).Encode(out); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
