package neardup_test

// Fingerprint benchmarks: the default pipeline and each of its stages on
// generated English and Chinese text, and two peer libraries on the same
// text. The peers are imported only here, in a test file, so they never
// enter the library's imports.
//
//	GOAMD64=v3 go test -run '^$' -bench 'Fingerprint|Stage|Peer' -benchmem .

import (
	"math/rand/v2"
	"testing"
	"time"

	dedup "github.com/go-dedup/simhash"
	dedupcjk "github.com/go-dedup/simhash/simhashCJK"
	mfonda "github.com/mfonda/simhash"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/internal/cputime"
	"github.com/neardup/neardup/internal/testtext"
	"github.com/neardup/neardup/simhash"
)

var (
	sinkFP  neardup.Fingerprint
	sink64  uint64
	sinkBuf []byte
	sinkN   int
)

// benchTexts are the documents every fingerprint benchmark runs on: about
// 12 KB of English (2000 words) and of Chinese (4000 characters).
func benchTexts() []struct {
	name string
	text []byte
} {
	return []struct {
		name string
		text []byte
	}{
		{"en", []byte(testtext.English(rand.New(rand.NewPCG(1, 1)), 2000))},
		{"zh", []byte(testtext.Chinese(rand.New(rand.NewPCG(2, 2)), 4000))},
	}
}

func BenchmarkFingerprint(b *testing.B) {
	pipes := []struct {
		name string
		p    neardup.Pipeline
	}{
		{"default", neardup.DefaultPipeline()},
		{"unigram", neardup.Pipeline{CJK: neardup.CJKUnigram}},
		{"logtf", neardup.Pipeline{Weighting: "logtf"}},
		{"chars5", neardup.Pipeline{Units: neardup.UnitChars}},
		{"html", neardup.Pipeline{HTML: true}},
	}
	for _, tt := range benchTexts() {
		for _, pp := range pipes {
			for _, bits := range []int{64, 128} {
				if pp.name != "default" && bits == 128 {
					continue
				}
				f, err := neardup.NewPipeline(pp.p, bits)
				if err != nil {
					b.Fatal(err)
				}
				b.Run(tt.name+"/"+pp.name+"/"+itoa(bits), func(b *testing.B) {
					benchBytes(b, len(tt.text), func() { sinkFP = f.Fingerprint(tt.text) })
				})
			}
		}
	}
}

// BenchmarkFingerprintDoc measures the cost per document of the default
// pipeline: 256 different documents of about 200 bytes, 1 KiB (the size
// the dedup engine sees) or 12 KiB, fingerprinted in turn, so that fixed
// costs per document (state, table clearing, summing) count and no branch
// predictor learns one text. "en" is English with made-up content words, as
// in the engine benchmarks; "en-zipf" the English of BenchmarkFingerprint,
// where a few hundred words, mostly short, make up the whole text; "zh"
// Chinese prose. MB/s is over the mean document size.
func BenchmarkFingerprintDoc(b *testing.B) {
	gens := []struct {
		name string
		gen  func(r *rand.Rand, size int) string
	}{
		{"en", func(r *rand.Rand, size int) string { return testtext.Article(r, size/7) }},
		{"zh", func(r *rand.Rand, size int) string { return testtext.Chinese(r, size/3) }},
		{"en-zipf", func(r *rand.Rand, size int) string { return testtext.English(r, size/6) }},
	}
	f, _ := neardup.NewPipeline(neardup.DefaultPipeline(), 64)
	for _, g := range gens {
		for _, size := range []int{1024, 200, 12 << 10} {
			r := rand.New(rand.NewPCG(uint64(size), 7))
			docs := make([][]byte, 256)
			total := 0
			for i := range docs {
				docs[i] = []byte(g.gen(r, size))
				total += len(docs[i])
			}
			name := g.name + "/" + map[int]string{1024: "1k", 200: "200", 12 << 10: "12k"}[size]
			b.Run(name, func(b *testing.B) {
				i := 0
				benchBytes(b, total/len(docs), func() {
					sinkFP = f.Fingerprint(docs[i%len(docs)])
					i++
				})
			})
		}
	}
}

// BenchmarkFingerprintParallel runs the default pipeline on every core.
func BenchmarkFingerprintParallel(b *testing.B) {
	f, _ := neardup.NewPipeline(neardup.DefaultPipeline(), 64)
	for _, tt := range benchTexts() {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.text)))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					_ = f.Fingerprint(tt.text)
				}
			})
		})
	}
}

// BenchmarkStage measures each stage of the default pipeline alone.
func BenchmarkStage(b *testing.B) {
	for _, tt := range benchTexts() {
		norm := analysis.Normalize(nil, tt.text)
		var toks [][]byte
		analysis.Tokenize(norm, func(t []byte) { toks = append(toks, t) })
		hashes := make([]uint64, len(toks))
		for i, t := range toks {
			hashes[i] = simhash.Hash64(t)
		}
		b.Run(tt.name+"/normalize", func(b *testing.B) {
			buf := make([]byte, 0, len(tt.text)*2)
			var s analysis.Scratch
			benchBytes(b, len(tt.text), func() { buf = s.Normalize(buf[:0], tt.text) })
			sinkBuf = buf
		})
		b.Run(tt.name+"/tokenize", func(b *testing.B) {
			benchBytes(b, len(tt.text), func() {
				n := 0
				analysis.Tokenize(norm, func([]byte) { n++ })
				sinkN = n
			})
		})
		b.Run(tt.name+"/hash64", func(b *testing.B) {
			benchBytes(b, len(tt.text), func() {
				var h uint64
				for _, t := range toks {
					h ^= simhash.Hash64(t)
				}
				sink64 = h
			})
		})
		b.Run(tt.name+"/shingle3", func(b *testing.B) {
			benchBytes(b, len(tt.text), func() {
				var h uint64
				for i := 0; i+3 <= len(hashes); i++ {
					h ^= simhash.Shingle64(hashes[i : i+3])
				}
				sink64 = h
			})
		})
		b.Run(tt.name+"/accumulate64", func(b *testing.B) {
			var a simhash.Acc64
			benchBytes(b, len(tt.text), func() {
				a.Reset()
				for _, h := range hashes {
					a.Add(h)
				}
				sink64 = a.Sum()
			})
		})
		b.Run(tt.name+"/accumulate64-naive", func(b *testing.B) {
			// The per-bit counter loop that byte lanes replace.
			benchBytes(b, len(tt.text), func() {
				var v [64]int
				for _, h := range hashes {
					for i := range v {
						if h>>i&1 != 0 {
							v[i]++
						} else {
							v[i]--
						}
					}
				}
				var fp uint64
				for i, x := range v {
					if x > 0 {
						fp |= 1 << i
					}
				}
				sink64 = fp
			})
		})
	}
}

// BenchmarkPeer runs github.com/mfonda/simhash and github.com/go-dedup/simhash
// (its CJK feature set for Chinese) on the texts of BenchmarkFingerprint.
func BenchmarkPeer(b *testing.B) {
	for _, tt := range benchTexts() {
		b.Run(tt.name+"/mfonda", func(b *testing.B) {
			benchBytes(b, len(tt.text), func() { sink64 = mfonda.Simhash(mfonda.NewWordFeatureSet(tt.text)) })
		})
		b.Run(tt.name+"/go-dedup", func(b *testing.B) {
			if tt.name == "zh" {
				sh := dedupcjk.NewSimhash()
				benchBytes(b, len(tt.text), func() { sink64 = sh.GetSimhash(sh.NewWordFeatureSet(tt.text)) })
				return
			}
			sh := dedup.NewSimhash()
			benchBytes(b, len(tt.text), func() { sink64 = sh.GetSimhash(sh.NewWordFeatureSet(tt.text)) })
		})
	}
}

// BenchmarkVsMfonda alternates the default pipeline and mfonda/simhash on
// the same text, call by call, so that both see the same machine load, and
// reports the ratio of their times ("x-mfonda") and each one's MB/s.
func BenchmarkVsMfonda(b *testing.B) {
	f, _ := neardup.NewPipeline(neardup.DefaultPipeline(), 64)
	for _, tt := range benchTexts() {
		b.Run(tt.name, func(b *testing.B) {
			var ours, theirs time.Duration
			for b.Loop() {
				t0 := time.Now()
				sinkFP = f.Fingerprint(tt.text)
				t1 := time.Now()
				sink64 = mfonda.Simhash(mfonda.NewWordFeatureSet(tt.text))
				theirs += time.Since(t1)
				ours += t1.Sub(t0)
			}
			mb := float64(len(tt.text)) * float64(b.N) / 1e6
			b.ReportMetric(theirs.Seconds()/ours.Seconds(), "x-mfonda")
			b.ReportMetric(mb/ours.Seconds(), "ours-MB/s")
			b.ReportMetric(mb/theirs.Seconds(), "mfonda-MB/s")
		})
	}
}

// benchBytes runs f b.N times over n bytes of text and reports, besides
// the wall-clock MB/s, "cpuMB/s": bytes per second of this process's CPU
// time (user + system, all threads). On a machine shared with other work
// the wall clock counts time the benchmark spent waiting for a core; CPU
// time does not.
func benchBytes(b *testing.B, n int, f func()) {
	b.SetBytes(int64(n))
	b.ReportAllocs()
	c0 := cputime.Process()
	for b.Loop() {
		f()
	}
	if d := cputime.Process() - c0; d > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/d.Seconds()/1e6, "cpuMB/s")
	}
}

func itoa(n int) string {
	if n == 64 {
		return "64"
	}
	return "128"
}

// BenchmarkFoldAccents measures what Pipeline.FoldAccents costs: the
// default pipeline with and without it on English (plain ASCII, which
// folding copies unchanged), Chinese, prose of accented European words
// and of Russian ones, about 2000 words (4000 characters of Chinese)
// each.
//
//	GOAMD64=v3 go test -run '^$' -bench FoldAccents .
func BenchmarkFoldAccents(b *testing.B) {
	type text = struct {
		name string
		text []byte
	}
	texts := append(benchTexts(), text{"accented", []byte(testtext.Accented(rand.New(rand.NewPCG(3, 3)), 2000))},
		text{"russian", []byte(testtext.Russian(rand.New(rand.NewPCG(3, 3)), 2000))})
	for _, tt := range texts {
		for _, fold := range []bool{false, true} {
			f, err := neardup.NewPipeline(neardup.Pipeline{FoldAccents: fold}, 64)
			if err != nil {
				b.Fatal(err)
			}
			name := tt.name + "/default"
			if fold {
				name = tt.name + "/fold"
			}
			b.Run(name, func(b *testing.B) {
				benchBytes(b, len(tt.text), func() { sinkFP = f.Fingerprint(tt.text) })
			})
		}
	}
}
