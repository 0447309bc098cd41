package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

var (
	sinkMatches []Match
	sinkInt     int
)

// randomEntries returns n entries with random fingerprints; one in ten is
// a near copy (1..3 bits flipped) of an earlier one.
func randomEntries(n int, seed uint64) []Entry {
	r := rand.New(rand.NewPCG(seed, 1))
	es := make([]Entry, n)
	for i := range es {
		fp := r.Uint64()
		if i > 0 && i%10 == 0 {
			fp = es[r.IntN(i)].FP
			for range 1 + r.IntN(3) {
				fp ^= 1 << r.UintN(64)
			}
		}
		es[i] = Entry{ID: uint64(i), FP: fp, Time: int64(i)}
	}
	return es
}

func benchIndex(b *testing.B, n int, d Design) (*Index, []Entry) {
	b.Helper()
	es := randomEntries(n, 1)
	ix, err := New(Options{K: 3, ExpectedN: n, Design: d})
	if err != nil {
		b.Fatal(err)
	}
	ix.AddBatch(es)
	return ix, es
}

func BenchmarkQuery(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, d := range []Design{Seed4x16(), {Levels: []Level{{5, 2}}}, Manku16(), Manku20()} {
			b.Run(fmt.Sprintf("n=%d/design=%s", n, d), func(b *testing.B) {
				ix, es := benchIndex(b, n, d)
				r := rand.New(rand.NewPCG(2, 3))
				var buf []Match
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					q := es[r.IntN(n)].FP ^ 1<<r.UintN(64)
					buf = ix.Query(q, 3, buf[:0])
				}
				sinkMatches = buf
			})
		}
	}
}

// BenchmarkScan measures the linear scan that answers a k beyond the
// design (the engine's index of short texts), per stored entry.
func BenchmarkScan(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d/k=10", n), func(b *testing.B) {
			es := randomEntries(n, 1)
			ix, err := New(Options{K: 0, ExpectedN: n, Design: Design{Levels: []Level{{1, 1}}}})
			if err != nil {
				b.Fatal(err)
			}
			ix.AddBatch(es)
			queryNear(b, ix, es, 10)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
		})
	}
}

// BenchmarkProbe measures queries beyond K answered by probing a wide
// 4/1 index (the engine's index of short texts), at k=10, against the
// scan of the same index. Random fingerprints do not cluster as text
// fingerprints do, so probing fares better here than on text (see
// `neardup bench index --data text`).
func BenchmarkProbe(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		es := randomEntries(n, 1)
		ix, err := New(Options{K: 3, ExpectedN: n, Design: Seed4x16(), Wide: true})
		if err != nil {
			b.Fatal(err)
		}
		ix.AddBatch(es)
		for _, mode := range []struct {
			name  string
			probe int
		}{{"probe", 1}, {"scan", -1}} {
			b.Run(fmt.Sprintf("n=%d/k=10/%s", n, mode.name), func(b *testing.B) {
				ix.probe = mode.probe
				queryNear(b, ix, es, 10)
			})
		}
	}
}

// queryNear runs the benchmark loop of queries at distance k for stored
// fingerprints with one bit flipped.
func queryNear(b *testing.B, ix *Index, es []Entry, k int) {
	r := rand.New(rand.NewPCG(2, 3))
	var buf []Match
	b.ReportAllocs()
	for b.Loop() {
		q := es[r.IntN(len(es))].FP ^ 1<<r.UintN(64)
		buf = ix.Query(q, k, buf[:0])
	}
	sinkMatches = buf
}

func BenchmarkAdd(b *testing.B) {
	es := randomEntries(1<<20, 4)
	ix, _ := New(Options{K: 3, ExpectedN: 1 << 20})
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ix.Add(es[i&(1<<20-1)])
		i++
	}
	sinkInt = ix.Len()
}

func BenchmarkAddBatch(b *testing.B) {
	es := randomEntries(1_000_000, 5)
	b.ReportAllocs()
	for b.Loop() {
		ix, _ := New(Options{K: 3, ExpectedN: len(es)})
		ix.AddBatch(es)
		sinkInt = ix.Len()
	}
	b.ReportMetric(float64(len(es))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

func BenchmarkPairs(b *testing.B) {
	es := randomEntries(1_000_000, 6)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		Pairs(es, 3, func(a, b Entry, d int) { n++ })
		sinkInt = n
	}
	b.ReportMetric(float64(len(es))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

func BenchmarkSnapshot(b *testing.B) {
	ix, _ := benchIndex(b, 1_000_000, Design{})
	var buf bytes.Buffer
	if _, err := ix.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	b.Run("write", func(b *testing.B) {
		b.SetBytes(int64(buf.Len()))
		b.ReportAllocs()
		for b.Loop() {
			var out bytes.Buffer
			out.Grow(buf.Len())
			if _, err := ix.WriteTo(&out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(buf.Len()))
		b.ReportAllocs()
		for b.Loop() {
			back, err := ReadIndex(bytes.NewReader(buf.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			sinkInt = back.Len()
		}
	})
}

// BenchmarkQueryBatch compares QueryBatch with one Query per fingerprint,
// for 512 queries at k=10 on a 4/1 index (K 3, Wide) of random entries:
// at 200,000 both scan every slot, at 2M both probe the tables.
func BenchmarkQueryBatch(b *testing.B) {
	for _, n := range []int{200000, 2000000} {
		ix, err := New(Options{K: 3, Design: Seed4x16(), Wide: true})
		if err != nil {
			b.Fatal(err)
		}
		es := randomEntries(n, 7)
		ix.AddBatch(es)
		r := rand.New(rand.NewPCG(8, 8))
		qs := make([]uint64, 512)
		for i := range qs {
			qs[i] = es[r.IntN(len(es))].FP ^ 1<<r.UintN(64)
		}
		b.Run(fmt.Sprintf("one-by-one/%d", n), func(b *testing.B) {
			for b.Loop() {
				var n atomic.Int64
				parallelFor(len(qs), true, func(i int) { n.Add(int64(len(ix.Query(qs[i], 10, nil)))) })
				sinkInt = int(n.Load())
			}
		})
		b.Run(fmt.Sprintf("batch/%d", n), func(b *testing.B) {
			for b.Loop() {
				n := 0
				for _, ms := range ix.QueryBatch(qs, 10) {
					n += len(ms)
				}
				sinkInt = n
			}
		})
	}
}

// BenchmarkQueryTablesBatch times QueryBatch at the tables' own distance
// (tablesBatch), in groups of single requests' size and of a batch's.
func BenchmarkQueryTablesBatch(b *testing.B) {
	ix, es := benchIndex(b, 1_000_000, Design{Levels: []Level{{5, 2}}})
	r := rand.New(rand.NewPCG(2, 3))
	for _, g := range []int{16, 512} {
		qs := make([]uint64, g)
		b.Run(fmt.Sprintf("n=1000000/group=%d", g), func(b *testing.B) {
			for b.Loop() {
				for i := range qs {
					qs[i] = es[r.IntN(len(es))].FP ^ 1<<r.UintN(64)
				}
				n := 0
				for _, ms := range ix.QueryBatch(qs, 3) {
					n += len(ms)
				}
				sinkInt = n
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(g), "ns/query")
		})
	}
}

// BenchmarkAddGrowing adds entries one at a time to an index of 2M entries
// (design 8/2 at k=6), through tier builds and, after 500k, a rebuild of
// the main level; it reports the slowest Add and how many took over a
// millisecond. Run it with -benchtime 700000x to pass the rebuild.
func BenchmarkAddGrowing(b *testing.B) {
	ix, err := New(Options{K: 6, ExpectedN: 4 << 20, MaxBytesPerEntry: 270})
	if err != nil {
		b.Fatal(err)
	}
	ix.AddBatch(randomEntries(2000000, 1))
	r := rand.New(rand.NewPCG(2, 2))
	var slowest time.Duration
	slow := 0
	for i := uint64(0); b.Loop(); i++ {
		e := Entry{ID: 1<<40 + i, FP: r.Uint64()}
		t0 := time.Now()
		ix.Add(e)
		d := time.Since(t0)
		slowest = max(slowest, d)
		if d > time.Millisecond {
			slow++
		}
	}
	b.ReportMetric(float64(slowest.Microseconds()), "max-µs")
	b.ReportMetric(float64(slow), "adds-over-1ms")
}

// BenchmarkSortProbes times sortProbes and its radix sort alone on the
// probes of n queries, one key each, of 16 and 48 bits, at counts on both
// sides of where sortProbes turns from comparison to radix.
func BenchmarkSortProbes(b *testing.B) {
	for _, kb := range []uint{16, 48} {
		for _, n := range []int{8, 32, 128, 512} {
			r := rand.New(rand.NewPCG(1, 2))
			src := make([]uint64, n)
			for i := range src {
				src[i] = r.Uint64()>>(64-kb)<<16 | uint64(i)
			}
			buf := make([]uint64, n)
			var spare []uint64
			for _, s := range []struct {
				name string
				sort func(p, s []uint64, kb uint) ([]uint64, []uint64)
			}{{"sortProbes", sortProbes}, {"radix", radixSortProbes}} {
				b.Run(fmt.Sprintf("%s/kb%d/%d", s.name, kb, n), func(b *testing.B) {
					for b.Loop() {
						copy(buf, src)
						_, spare = s.sort(buf, spare, kb)
					}
				})
			}
		}
	}
}
