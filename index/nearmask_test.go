package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

var sinkMask uint64

// naiveNearMask is nearMask's contract written as plainly as possible.
func naiveNearMask(fps []uint64, q uint64, k int) uint64 {
	var m uint64
	for i, fp := range fps {
		if i < 64 && bits.OnesCount64(fp^q) <= k {
			m |= 1 << i
		}
	}
	return m
}

type nearMaskImpl struct {
	name string
	fn   func([]uint64, uint64, int) uint64
}

// nearMaskImpls lists every implementation this machine can run: the
// dispatcher, the portable one and, where the processor has it, AVX-512.
func nearMaskImpls() []nearMaskImpl {
	impls := []nearMaskImpl{{"nearMask", nearMask}, {"generic", nearMaskGeneric}}
	if useAVX512 {
		impls = append(impls, nearMaskImpl{"avx512", nearMaskAVX512})
	}
	return impls
}

// checkNearMask compares every implementation with naiveNearMask, and with
// want unless it is nil.
func checkNearMask(t *testing.T, fps []uint64, q uint64, k int, want *uint64) {
	t.Helper()
	ref := naiveNearMask(fps, q, k)
	if want != nil && ref != *want {
		t.Fatalf("naive(len %d, k %d) = %#x, want %#x", len(fps), k, ref, *want)
	}
	for _, im := range nearMaskImpls() {
		if got := im.fn(fps, q, k); got != ref {
			t.Fatalf("%s(len %d, q %#x, k %d) = %#x, want %#x (fps %#x)",
				im.name, len(fps), q, k, got, ref, fps)
		}
	}
}

// atDistances returns fingerprints at the given distances from q, the
// differing bits spread over the word.
func atDistances(q uint64, ds ...int) []uint64 {
	fps := make([]uint64, len(ds))
	for i, d := range ds {
		var x uint64
		for j := range d {
			x |= 1 << (j * 37 % 64) // 37 is odd: j*37 mod 64 visits every bit once
		}
		fps[i] = q ^ x
	}
	return fps
}

// upTo returns 0, 1, ..., n-1.
func upTo(n int) []int {
	ds := make([]int, n)
	for i := range ds {
		ds[i] = i
	}
	return ds
}

func TestNearMask(t *testing.T) {
	if !useAVX512 {
		t.Log("no AVX-512 (F, BW, VBMI, VPOPCNTDQ) here: only the portable nearMask is tested")
	}
	const q uint64 = 0x0123_4567_89ab_cdef
	four := atDistances(q, 0, 1, 3, 64)
	dist64 := atDistances(q, upTo(64)...)      // entry i at distance i
	dist65 := atDistances(q, upTo(65)[1:]...)  // entry i at distance i+1
	over := atDistances(q, make([]int, 70)...) // 70 copies of q
	tests := []struct {
		name string
		fps  []uint64
		k    int
		want uint64
	}{
		{"empty", nil, 3, 0},
		{"empty, k=64", []uint64{}, 64, 0},
		{"four, k=-1", four, -1, 0},
		{"four, k=MinInt", four, math.MinInt, 0},
		{"four, k=0", four, 0, 0b0001},
		{"four, k=1", four, 1, 0b0011},
		{"four, k=2", four, 2, 0b0011},
		{"four, k=3", four, 3, 0b0111},
		{"four, k=63", four, 63, 0b0111},
		{"four, k=64", four, 64, 0b1111},
		{"four, k=MaxInt", four, math.MaxInt, 0b1111},
		{"one equal", []uint64{q}, 0, 1},
		{"one complement", []uint64{^q}, 63, 0},
		{"9, k=4", dist64[:9], 4, 0x1f},
		{"9, k=8", dist64[:9], 8, 0x1ff},
		{"13, k=10", dist64[:13], 10, 0x7ff},
		{"17, k=16", dist64[:17], 16, 0x1ffff},
		{"24, k=20", dist64[:24], 20, 1<<21 - 1},
		{"63, k=62", dist64[:63], 62, 1<<63 - 1},
		{"63, k=100", dist64[:63], 100, 1<<63 - 1},
		{"64, k=0", dist64, 0, 1},
		{"64, k=5", dist64, 5, 0x3f},
		{"64, k=40", dist64, 40, 1<<41 - 1},
		{"64, k=63", dist64, 63, math.MaxUint64},
		{"64 from 1, k=63", dist65, 63, math.MaxUint64 >> 1},
		{"64 from 1, k=64", dist65, 64, math.MaxUint64},
		{"64 from 1, k=-5", dist65, -5, 0},
		{"70: first 64 only", over, 0, math.MaxUint64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkNearMask(t, tt.fps, q, tt.k, &tt.want)
		})
	}
}

// TestNearMaskRandom checks every length 0..70 and every k -1..65 on
// random and near-q fingerprints. The backing array past len(fps) holds
// copies of q, so an implementation that tested entries past the slice
// would set bits that must be zero.
func TestNearMaskRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	buf := make([]uint64, 80)
	rounds := 20
	if testing.Short() {
		rounds = 3
	}
	for range rounds {
		for n := 0; n <= 70; n++ {
			q := r.Uint64()
			for i := range buf {
				switch {
				case i >= n:
					buf[i] = q
				case r.IntN(2) == 0:
					buf[i] = r.Uint64()
				default: // near q: a few bits flipped, sometimes many
					fp := q
					for range r.IntN(8) + r.IntN(2)*r.IntN(64) {
						fp ^= 1 << r.UintN(64)
					}
					buf[i] = fp
				}
			}
			fps := buf[:n:n]
			for k := -1; k <= 65; k++ {
				checkNearMask(t, fps, q, k, nil)
			}
			checkNearMask(t, fps, q, math.MinInt, nil)
			checkNearMask(t, fps, q, math.MaxInt, nil)
		}
	}
}

// TestNearMaskChecksItself makes sure the comparison above can fail: a
// wrong answer is reported.
func TestNearMaskChecksItself(t *testing.T) {
	fps := atDistances(0, 1, 2, 3)
	if got, want := naiveNearMask(fps, 0, 2), uint64(0b011); got != want {
		t.Fatalf("naive = %#b, want %#b", got, want)
	}
	for _, im := range nearMaskImpls() {
		if got := im.fn(fps, 0, 2); got == 0b111 || got == 0b001 {
			t.Fatalf("%s = %#b: off by one in k", im.name, got)
		}
	}
}

func FuzzNearMask(f *testing.F) {
	f.Add([]byte{}, uint64(0), 3)
	f.Add(make([]byte, 8*64), uint64(0), 0)
	f.Add(make([]byte, 8*13), ^uint64(0), 64)
	f.Add(make([]byte, 8*70), uint64(1), -1)
	f.Fuzz(func(t *testing.T, data []byte, q uint64, k int) {
		fps := make([]uint64, len(data)/8)
		for i := range fps {
			fps[i] = binary.LittleEndian.Uint64(data[8*i:])
		}
		checkNearMask(t, fps, q, k, nil)
	})
}

// BenchmarkNearMask scans 64k fingerprints in words of 64, as the linear
// scan does, with k = 3; one in 64 entries is within k of the query.
func BenchmarkNearMask(b *testing.B) {
	const n = 1 << 16
	r := rand.New(rand.NewPCG(1, 2))
	q := r.Uint64()
	fps := make([]uint64, n)
	for i := range fps {
		fps[i] = r.Uint64()
		if i%64 == 17 {
			fps[i] = atDistances(q, 2)[0]
		}
	}
	for _, im := range nearMaskImpls() {
		for _, block := range []int{64, 61} {
			b.Run(fmt.Sprintf("%s/block=%d", im.name, block), func(b *testing.B) {
				fn := im.fn
				entries := n / 64 * block
				b.SetBytes(int64(8 * entries))
				b.ReportAllocs()
				var m uint64
				for b.Loop() {
					for i := 0; i < n; i += 64 {
						m += fn(fps[i:i+block], q, 3)
					}
				}
				sinkMask = m
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
			})
		}
	}
}
