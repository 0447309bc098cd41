package neardup

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
)

var benchSink Result

// benchTexts returns n distinct generated texts of about size bytes.
func benchTexts(n, size int) []string {
	r := rand.New(rand.NewPCG(11, 12))
	out := make([]string, n)
	for i := range out {
		out[i] = genText(r, size/6)
	}
	return out
}

// BenchmarkCheckAndInsertDurable measures CheckAndInsert of new documents
// from many goroutines into an on-disk store with group commit: every
// acknowledged document is synced.
func BenchmarkCheckAndInsertDurable(b *testing.B) {
	for _, dur := range []Durability{GroupCommit, NoSync} {
		b.Run(dur.String(), func(b *testing.B) {
			texts := benchTexts(1<<14, 1000)
			o := DefaultOptions()
			o.Durability = dur
			o.ExpiryInterval = -1
			e, err := Open(b.TempDir(), &o)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			var next atomic.Int64
			b.SetBytes(1000)
			b.ReportAllocs()
			b.SetParallelism(32) // writers waiting on a commit let others fill the next one
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var res Result
				for pb.Next() {
					i := next.Add(1)
					// A number in front makes every text distinct.
					text := strconv.FormatInt(i, 36) + " " + texts[i%int64(len(texts))]
					var err error
					res, err = e.CheckAndInsert(context.Background(), Document{ID: strconv.FormatInt(i, 10), Text: text})
					if err != nil {
						b.Error(err)
						return
					}
				}
				benchSink = res
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
		})
	}
}

// BenchmarkCheckAndInsertBatch measures CheckAndInsertBatch of 1024
// documents at a time, durable.
func BenchmarkCheckAndInsertBatch(b *testing.B) {
	texts := benchTexts(1<<14, 1000)
	o := DefaultOptions()
	o.ExpiryInterval = -1
	e, err := Open(b.TempDir(), &o)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	const batch = 1024
	docs := make([]Document, batch)
	b.SetBytes(1000 * batch)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for j := range docs {
			n++
			docs[j] = Document{ID: strconv.Itoa(n), Text: fmt.Sprint(n, " ", texts[n%len(texts)])}
		}
		rs, err := e.CheckAndInsertBatch(context.Background(), docs)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = rs[0]
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "docs/s")
}
