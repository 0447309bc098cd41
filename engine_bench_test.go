package neardup

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/testtext"
	"github.com/zeebo/xxh3"
)

var benchSink Result

// hashFingerprinter fingerprints a text by its XXH3 hash: no two distinct
// texts are near each other.
type hashFingerprinter struct{}

func (hashFingerprinter) Bits() int                           { return 64 }
func (hashFingerprinter) Fingerprint(text []byte) Fingerprint { return FromUint64(xxh3.Hash(text)) }

// benchTexts returns n distinct generated English texts of about size
// bytes (English-like prose with a realistic vocabulary, so unrelated texts
// are far apart as real ones are).
func benchTexts(n, size int) []string {
	r := rand.New(rand.NewPCG(11, 12))
	out := make([]string, n)
	for i := range out {
		out[i] = testtext.Article(r, size/7)
	}
	return out
}

// BenchmarkCheckAndInsertDurable measures CheckAndInsert of new documents
// from many goroutines into an on-disk store with group commit: every
// acknowledged document is synced.
//
// The "hash" variants replace the default pipeline by a plain hash of the
// text, to show the engine's own cost (locks, index, store, group commit)
// apart from fingerprinting.
func BenchmarkCheckAndInsertDurable(b *testing.B) {
	for _, tc := range []struct {
		name string
		dur  Durability
		fp   Fingerprinter
	}{{"group", GroupCommit, nil}, {"nosync", NoSync, nil}, {"group/hash", GroupCommit, hashFingerprinter{}}} {
		b.Run(tc.name, func(b *testing.B) {
			texts := benchTexts(b.N, 1000) // all distinct: every document is new
			o := DefaultOptions()
			o.Durability = tc.dur
			o.Fingerprinter = tc.fp
			o.ExpiryInterval = -1
			e, err := Open(b.TempDir(), &o)
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			var next atomic.Int64
			b.SetBytes(1000)
			b.ReportAllocs()
			b.SetParallelism(256) // writers waiting on a commit let others fill the next one
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var res Result
				for pb.Next() {
					i := next.Add(1) - 1
					text := texts[i]
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

// BenchmarkCheckAndInsertBatch measures CheckAndInsertBatch of 1024 new
// documents at a time, durable (texts are generated outside the timer).
func BenchmarkCheckAndInsertBatch(b *testing.B) {
	o := DefaultOptions()
	o.ExpiryInterval = -1
	e, err := Open(b.TempDir(), &o)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	const batch = 1024
	r := rand.New(rand.NewPCG(13, 14))
	docs := make([]Document, batch)
	b.SetBytes(1000 * batch)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		b.StopTimer()
		for j := range docs {
			n++
			docs[j] = Document{ID: strconv.Itoa(n), Text: testtext.Article(r, 1000/7)}
		}
		b.StartTimer()
		rs, err := e.CheckAndInsertBatch(context.Background(), docs)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = rs[0]
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkShortIndexQuery measures a query of the short-text index at the
// Short rule's distance over n stored fingerprints of generated texts whose
// sizes spread evenly on a log scale from 20 to 500 bytes, reporting the
// matches left to verify: "fitting" is the engine's index, which drops the
// matches whose length rules them out, "all" the same index without a
// length bound.
func BenchmarkShortIndexQuery(b *testing.B) {
	for _, n := range []int{300_000, 1_000_000, 2_000_000} {
		fps, lens := shortBenchFingerprints(n + 1000)
		for _, filter := range []string{"all", "fitting"} {
			b.Run(filter+"/"+strconv.Itoa(n), func(b *testing.B) {
				p := DefaultPolicy()
				if filter == "all" {
					p.Short.MinSimilarity = 0 // no length bound
				}
				s, err := newShortIndex(p, 64, n)
				if err != nil {
					b.Fatal(err)
				}
				es := make([]index.Entry, n)
				for i := range es {
					es[i] = index.Entry{ID: uint64(i), FP: fps[i], Time: 1}
				}
				s.addBatch(es, lens[:n])
				var ms []index.Match
				found := 0
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					q := n + i%1000 // texts not stored
					ms = s.query(fps[q], lens[q], 0, ms[:0])
					found += len(ms)
				}
				b.ReportMetric(float64(found)/float64(b.N), "matches/query")
			})
		}
	}
}

// shortBenchFingerprints returns the default pipeline's fingerprints of n
// generated texts of sizes spread from 20 to 500 bytes, and the lengths of
// the texts normalized.
func shortBenchFingerprints(n int) ([]uint64, []int) {
	fps := make([]uint64, n)
	lens := make([]int, n)
	fp, err := NewPipeline(DefaultPipeline(), 64)
	if err != nil {
		panic(err)
	}
	e := &Engine{}
	parallel(n, func(i int) {
		r := rand.New(rand.NewPCG(uint64(i), 13))
		size := math.Exp(math.Log(20) + r.Float64()*math.Log(500.0/20))
		text := []byte(testtext.Article(r, max(1, int(size/7))))
		fps[i] = fp.Fingerprint(text).Uint64()
		lens[i] = e.normalizedRunes(text)
	})
	return fps, lens
}

// BenchmarkQueryFingerprint measures a lookup by fingerprint alone
// (QueryFingerprint, at most DefaultMaxMatches answers) over 200,000
// stored documents of random fingerprints, half of them long texts and half
// short (the engine keeps them in two indexes), at the index's own distance
// and at wider ones up to 64 bits, where every stored document is within k.
func BenchmarkQueryFingerprint(b *testing.B) {
	const n = 200_000
	o := DefaultOptions()
	o.InMemory = true
	o.Durability = NoSync
	o.ExpiryInterval = -1
	o.Fingerprinter = hashFingerprinter{}
	e, err := Open("", &o)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	long := strings.Repeat("word ", 200)
	docs := make([]Document, 0, 1000)
	for i := 0; i < n; i += cap(docs) {
		docs = docs[:0]
		for j := i; j < i+cap(docs); j++ {
			text := "document " + strconv.Itoa(j)
			if j%2 == 1 {
				text = long + text
			}
			docs = append(docs, Document{ID: strconv.Itoa(j), Text: text})
		}
		if _, err := e.CheckAndInsertBatch(context.Background(), docs); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(15, 16))
	for _, k := range []int{6, 20, 32, 64} {
		b.Run("k="+strconv.Itoa(k), func(b *testing.B) {
			found := 0
			b.ReportAllocs()
			for b.Loop() {
				ms, err := e.QueryFingerprint(context.Background(), FromUint64(r.Uint64()), k)
				if err != nil {
					b.Fatal(err)
				}
				found += len(ms)
			}
			b.ReportMetric(float64(found)/float64(b.N), "matches/query")
		})
	}
}
