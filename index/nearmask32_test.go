package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

var sinkBool bool

func TestNearMask32(t *testing.T) {
	const q uint32 = 0x89ab_cdef
	dist33 := atDistances(q, upTo(33)...) // entry i at distance i
	ramp := make([]int, 64)               // entry i at distance i/2
	for i := range ramp {
		ramp[i] = i / 2
	}
	dist64 := atDistances(q, ramp...)
	runNearMaskCases(t, q, []nearMaskCase[uint32]{
		{"9, k=4", dist33[:9], 4, 0x1f},
		{"16, k=14", dist33[:16], 14, 0x7fff},
		{"16, k=15", dist33[:16], 15, 0xffff},
		{"17, k=15", dist33[:17], 15, 0xffff},
		{"17, k=16", dist33[:17], 16, 0x1ffff},
		{"33, k=20", dist33, 20, 1<<21 - 1},
		{"33, k=31", dist33, 31, 1<<32 - 1},
		{"33, k=32", dist33, 32, 1<<33 - 1},
		{"48, k=20", dist64[:48], 20, 1<<42 - 1},
		{"63, k=30", dist64[:63], 30, 1<<62 - 1},
		{"63, k=31", dist64[:63], 31, 1<<63 - 1},
		{"64, k=0", dist64, 0, 0b11},
		{"64, k=5", dist64, 5, 0xfff},
		{"64, k=30", dist64, 30, math.MaxUint64 >> 2},
		{"64, k=31", dist64, 31, math.MaxUint64},
		{"64, k=-5", dist64, -5, 0},
	})
}

// TestNearMask32Random is TestNearMaskRandom for 32-bit keys: every length
// 0..70, every k -1..33, copies of q past the end of each slice.
func TestNearMask32Random(t *testing.T) {
	checkNearMaskRandom(t, rand.New(rand.NewPCG(8, 12)), func(r *rand.Rand) uint32 { return r.Uint32() })
}

func FuzzNearMask32(f *testing.F) {
	fuzzNearMask(f, binary.LittleEndian.Uint32)
}

// scanScalar is scan as it was before nearMask32: four keys at a time with
// bits.OnesCount32. It is kept for BenchmarkScan32's comparison and, with
// naiveScan, as a second reference.
func scanScalar(h []uint32, qh uint32, k int, f func(i int) bool) bool {
	i := 0
	for ; i+4 <= len(h); i += 4 {
		a := bits.OnesCount32(h[i] ^ qh)
		b := bits.OnesCount32(h[i+1] ^ qh)
		c := bits.OnesCount32(h[i+2] ^ qh)
		d := bits.OnesCount32(h[i+3] ^ qh)
		if min(a, b, c, d) > k {
			continue
		}
		for j := i; j < i+4; j++ {
			if bits.OnesCount32(h[j]^qh) <= k && !f(j) {
				return false
			}
		}
	}
	for ; i < len(h); i++ {
		if bits.OnesCount32(h[i]^qh) <= k && !f(i) {
			return false
		}
	}
	return true
}

// naiveScan is scan's contract written as plainly as possible.
func naiveScan(h []uint32, qh uint32, k int, f func(i int) bool) bool {
	for i, x := range h {
		if bits.OnesCount32(x^qh) <= k && !f(i) {
			return false
		}
	}
	return true
}

// TestScan compares scan (and scanScalar) with naiveScan on random buckets
// of every length 0..300, keys near the query or not, for several k and a
// callback that stops after a given number of calls (or never): the same
// positions must be passed in the same order, and the same result
// returned. Past the end of each bucket are copies of the query, which a
// scan reading too far would report.
func TestScan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 13))
	buf := make([]uint32, 320)
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	impls := []struct {
		name string
		fn   func([]uint32, uint32, int, func(int) bool) bool
	}{{"scan", scan}, {"scanScalar", scanScalar}}
	for range rounds {
		for n := 0; n <= 300; n++ {
			qh := r.Uint32()
			near := r.IntN(4) // how many in four are near qh
			for i := range buf {
				switch {
				case i >= n:
					buf[i] = qh
				case r.IntN(4) < near:
					x := qh
					for range r.IntN(6) {
						x ^= 1 << r.IntN(32)
					}
					buf[i] = x
				default:
					buf[i] = r.Uint32()
				}
			}
			h := buf[:n:n]
			for _, k := range []int{-1, 0, 1, 3, 5, 32} {
				for _, stop := range []int{-1, 0, 1, 2, 63, 64, 65, r.IntN(n + 1)} {
					var want []int
					wantMore := naiveScan(h, qh, k, func(i int) bool {
						want = append(want, i)
						return len(want) != stop
					})
					for _, im := range impls {
						var got []int
						more := im.fn(h, qh, k, func(i int) bool {
							got = append(got, i)
							return len(got) != stop
						})
						if more != wantMore || !slices.Equal(got, want) {
							t.Fatalf("%s(len %d, k %d, stop after %d) = %v, called with %v; want %v, %v",
								im.name, n, k, stop, more, got, wantMore, want)
						}
					}
				}
			}
		}
	}
}

// BenchmarkNearMask32 tests 64k keys in blocks, as scan does a bucket,
// with k = 3; one in 64 keys is within k of the query. Blocks of 64 and
// 61 are the body and tail of a big bucket, 16 and 10 whole small ones.
func BenchmarkNearMask32(b *testing.B) {
	benchNearMask(b, rand.New(rand.NewPCG(1, 2)).Uint32, 64, 61, 16, 10)
}

// BenchmarkScan32 scans buckets of a given size, as a table query does,
// with scan and with the scalar loop it replaced, for k = 3: with random
// keys, of which almost none pass, and with one key in eight near the
// query, as in a bucket of clustered fingerprints.
func BenchmarkScan32(b *testing.B) {
	const n = 1 << 16
	r := rand.New(rand.NewPCG(3, 4))
	q := r.Uint32()
	random := make([]uint32, n)
	clustered := make([]uint32, n)
	for i := range random {
		random[i] = r.Uint32()
		clustered[i] = random[i]
		if i%8 == 3 {
			clustered[i] = atDistances(q, r.IntN(4))[0]
		}
	}
	for _, size := range []int{4, 8, 16, 32, 200, 2000} {
		for _, keys := range []struct {
			name string
			h    []uint32
		}{{"random", random}, {"near=1in8", clustered}} {
			for _, im := range []struct {
				name string
				fn   func([]uint32, uint32, int, func(int) bool) bool
			}{{"scan", scan}, {"scalar", scanScalar}} {
				b.Run(fmt.Sprintf("size=%d/%s/%s", size, keys.name, im.name), func(b *testing.B) {
					fn, h := im.fn, keys.h
					buckets := n / size
					entries := buckets * size
					hits := 0
					count := func(int) bool { hits++; return true }
					b.ReportAllocs()
					more := true
					for b.Loop() {
						for i := 0; i < entries; i += size {
							more = fn(h[i:i+size], q, 3, count) && more
						}
					}
					sinkInt, sinkBool = hits, more
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(buckets), "ns/bucket")
				})
			}
		}
	}
}
