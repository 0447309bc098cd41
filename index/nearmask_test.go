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

// naiveNearMask is the contract of nearMask and nearMask32 written as
// plainly as possible.
func naiveNearMask[T uint32 | uint64](fps []T, q T, k int) uint64 {
	var m uint64
	for i, fp := range fps {
		if i < 64 && bits.OnesCount64(uint64(fp^q)) <= k {
			m |= 1 << i
		}
	}
	return m
}

// width returns the number of bits of a T.
func width[T uint32 | uint64]() int {
	return bits.OnesCount64(uint64(^T(0)))
}

type nearMaskImpl[T uint32 | uint64] struct {
	name string
	fn   func([]T, T, int) uint64
}

// nearMaskImpls lists every implementation of nearMask (T = uint64) or
// nearMask32 (T = uint32) this machine can run: the dispatcher, the
// portable one and, where the processor has them, AVX-512 and AVX2.
func nearMaskImpls[T uint32 | uint64]() []nearMaskImpl[T] {
	var impls any
	switch any(T(0)).(type) {
	case uint64:
		is := []nearMaskImpl[uint64]{{"nearMask", nearMask}, {"generic", nearMaskGeneric}}
		if useAVX512 {
			is = append(is, nearMaskImpl[uint64]{"avx512", nearMaskAVX512})
		}
		if useAVX2 {
			is = append(is, nearMaskImpl[uint64]{"avx2", nearMaskAVX2})
		}
		impls = is
	case uint32:
		is := []nearMaskImpl[uint32]{{"nearMask32", nearMask32}, {"generic32", nearMask32Generic}}
		if useAVX512 {
			is = append(is, nearMaskImpl[uint32]{"avx512-32", nearMask32AVX512})
		}
		if useAVX2 {
			is = append(is, nearMaskImpl[uint32]{"avx2-32", nearMask32AVX2})
		}
		impls = is
	}
	return impls.([]nearMaskImpl[T])
}

// checkNearMask compares every implementation for T with naiveNearMask,
// and with want unless it is nil.
func checkNearMask[T uint32 | uint64](t *testing.T, fps []T, q T, k int, want *uint64) {
	t.Helper()
	ref := naiveNearMask(fps, q, k)
	if want != nil && ref != *want {
		t.Fatalf("naive(len %d, k %d) = %#x, want %#x", len(fps), k, ref, *want)
	}
	for _, im := range nearMaskImpls[T]() {
		if got := im.fn(fps, q, k); got != ref {
			t.Fatalf("%s(len %d, q %#x, k %d) = %#x, want %#x (fps %#x)",
				im.name, len(fps), q, k, got, ref, fps)
		}
	}
}

// atDistances returns values at the given distances from q, the differing
// bits spread over the word.
func atDistances[T uint32 | uint64](q T, ds ...int) []T {
	w := width[T]()
	fps := make([]T, len(ds))
	for i, d := range ds {
		var x T
		for j := range d {
			x |= 1 << (j * 37 % w) // 37 is odd: j*37 mod w visits every bit once
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

// nearMaskCase is one row of TestNearMask or TestNearMask32.
type nearMaskCase[T uint32 | uint64] struct {
	name string
	fps  []T
	k    int
	want uint64
}

// widthCases returns the rows that depend only on T's width w: empty
// slices, four values at distances 0, 1, 3 and w with k around them and at
// the extremes, a single value, and 70 copies of q, of which only the first
// 64 count.
func widthCases[T uint32 | uint64](q T) []nearMaskCase[T] {
	w := width[T]()
	four := atDistances(q, 0, 1, 3, w)
	over := atDistances(q, make([]int, 70)...)
	return []nearMaskCase[T]{
		{"empty", nil, 3, 0},
		{"empty, k=w", []T{}, w, 0},
		{"four, k=-1", four, -1, 0},
		{"four, k=MinInt", four, math.MinInt, 0},
		{"four, k=0", four, 0, 0b0001},
		{"four, k=1", four, 1, 0b0011},
		{"four, k=2", four, 2, 0b0011},
		{"four, k=3", four, 3, 0b0111},
		{"four, k=w-1", four, w - 1, 0b0111},
		{"four, k=w", four, w, 0b1111},
		{"four, k=w+1", four, w + 1, 0b1111},
		{"four, k=MaxInt", four, math.MaxInt, 0b1111},
		{"one equal", []T{q}, 0, 1},
		{"one complement", []T{^q}, w - 1, 0},
		{"70: first 64 only", over, 0, math.MaxUint64},
	}
}

// runNearMaskCases runs widthCases(q) and then tests, checking every
// implementation for T.
func runNearMaskCases[T uint32 | uint64](t *testing.T, q T, tests []nearMaskCase[T]) {
	if !useAVX512 {
		t.Log("no AVX-512 (F, BW, VBMI, VPOPCNTDQ) here: its version is not tested")
	}
	if !useAVX2 {
		t.Log("no AVX2 here: its version is not tested")
	}
	for _, tt := range append(widthCases(q), tests...) {
		t.Run(tt.name, func(t *testing.T) {
			checkNearMask(t, tt.fps, q, tt.k, &tt.want)
		})
	}
}

func TestNearMask(t *testing.T) {
	const q uint64 = 0x0123_4567_89ab_cdef
	dist64 := atDistances(q, upTo(64)...)     // entry i at distance i
	dist65 := atDistances(q, upTo(65)[1:]...) // entry i at distance i+1
	runNearMaskCases(t, q, []nearMaskCase[uint64]{
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
	})
}

// TestNearMaskRandom checks every length 0..70 and every k -1..65 on
// random and near-q fingerprints. The backing array past len(fps) holds
// copies of q, so an implementation that tested entries past the slice
// would set bits that must be zero.
func TestNearMaskRandom(t *testing.T) {
	checkNearMaskRandom(t, rand.New(rand.NewPCG(7, 11)), func(r *rand.Rand) uint64 { return r.Uint64() })
}

// checkNearMaskRandom is TestNearMaskRandom for T, k from -1 to T's width
// plus one.
func checkNearMaskRandom[T uint32 | uint64](t *testing.T, r *rand.Rand, random func(*rand.Rand) T) {
	w := width[T]()
	buf := make([]T, 80)
	rounds := 20
	if testing.Short() {
		rounds = 3
	}
	for range rounds {
		for n := 0; n <= 70; n++ {
			q := random(r)
			for i := range buf {
				switch {
				case i >= n:
					buf[i] = q
				case r.IntN(2) == 0:
					buf[i] = random(r)
				default: // near q: a few bits flipped, sometimes many
					fp := q
					for range r.IntN(8) + r.IntN(2)*r.IntN(w) {
						fp ^= 1 << r.IntN(w)
					}
					buf[i] = fp
				}
			}
			fps := buf[:n:n]
			for k := -1; k <= w+1; k++ {
				checkNearMask(t, fps, q, k, nil)
			}
			checkNearMask(t, fps, q, math.MinInt, nil)
			checkNearMask(t, fps, q, math.MaxInt, nil)
		}
	}
}

// TestNearMaskChecksItself makes sure the comparisons above can fail: a
// wrong answer is reported.
func TestNearMaskChecksItself(t *testing.T) {
	checkNearMaskChecksItself[uint64](t)
	checkNearMaskChecksItself[uint32](t)
}

func checkNearMaskChecksItself[T uint32 | uint64](t *testing.T) {
	fps := atDistances(T(0), 1, 2, 3)
	if got, want := naiveNearMask(fps, 0, 2), uint64(0b011); got != want {
		t.Fatalf("naive = %#b, want %#b", got, want)
	}
	for _, im := range nearMaskImpls[T]() {
		if got := im.fn(fps, 0, 2); got == 0b111 || got == 0b001 {
			t.Fatalf("%s = %#b: off by one in k", im.name, got)
		}
	}
}

func FuzzNearMask(f *testing.F) {
	fuzzNearMask(f, binary.LittleEndian.Uint64)
}

// fuzzNearMask checks every implementation for T on values decoded from
// the fuzzer's bytes (little-endian, a partial value at the end dropped),
// seeded with slices of lengths that take each path of the AVX-512 code.
func fuzzNearMask[T uint32 | uint64](f *testing.F, decode func([]byte) T) {
	size, w := width[T]()/8, width[T]()
	f.Add([]byte{}, T(0), 3)
	f.Add(make([]byte, size*64), T(0), 0)
	f.Add(make([]byte, size*13), ^T(0), w)
	f.Add(make([]byte, size*17), T(1), 1)
	f.Add(make([]byte, size*70), T(1), -1)
	f.Fuzz(func(t *testing.T, data []byte, q T, k int) {
		fps := make([]T, len(data)/size)
		for i := range fps {
			fps[i] = decode(data[size*i:])
		}
		checkNearMask(t, fps, q, k, nil)
	})
}

// BenchmarkNearMask scans 64k fingerprints in words of 64, as the linear
// scan does, with k = 3; one in 64 entries is within k of the query.
func BenchmarkNearMask(b *testing.B) {
	benchNearMask(b, rand.New(rand.NewPCG(1, 2)).Uint64, 64, 61)
}

// benchNearMask tests 64k random values against a random query with every
// implementation for T, k = 3, one in 64 values within k. Each word of 64
// values is tested in one call of its first block values, for each block
// size given.
func benchNearMask[T uint32 | uint64](b *testing.B, random func() T, blocks ...int) {
	const n = 1 << 16
	q := random()
	fps := make([]T, n)
	for i := range fps {
		fps[i] = random()
		if i%64 == 17 {
			fps[i] = atDistances(q, 2)[0]
		}
	}
	for _, im := range nearMaskImpls[T]() {
		for _, block := range blocks {
			b.Run(fmt.Sprintf("%s/block=%d", im.name, block), func(b *testing.B) {
				fn := im.fn
				entries := n / 64 * block
				b.SetBytes(int64(width[T]() / 8 * entries))
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

// TestNearMasks compares nearMasks, one word against many queries, with
// naiveNearMask for each query, for every k that matters and query counts
// from 1 to 65; queries are near copies of the word's fingerprints, so
// that masks have bits set.
func TestNearMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var word [64]uint64
	for round := range 200 {
		for i := range word {
			word[i] = r.Uint64()
			if i > 0 && r.IntN(3) == 0 {
				word[i] = word[r.IntN(i)] ^ 1<<r.UintN(64)
			}
		}
		qs := make([]uint64, 1+round%65)
		for i := range qs {
			qs[i] = word[r.IntN(64)]
			for range r.IntN(12) {
				qs[i] ^= 1 << r.UintN(64)
			}
		}
		for _, k := range []int{-1, 0, 1, 3, 6, 10, 31, 63, 64, 100} {
			out := make([]uint64, len(qs)+1)
			out[len(qs)] = 0xdead // past the queries: left alone
			nearMasks(&word, qs, k, out)
			for i, q := range qs {
				if want := naiveNearMask(word[:], q, k); out[i] != want {
					t.Fatalf("round %d, k %d, query %d of %d: %064b, want %064b", round, k, i, len(qs), out[i], want)
				}
			}
			if out[len(qs)] != 0xdead {
				t.Fatalf("round %d, k %d: wrote past the queries", round, k)
			}
		}
	}
}

// TestAnyWithin checks AnyWithin against a plain loop, with the one near
// fingerprint at each end of a word of 64 and past it.
func TestAnyWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	q := r.Uint64()
	for _, n := range []int{0, 1, 63, 64, 65, 130} {
		for _, at := range []int{-1, 0, 62, 63, 64, 65, 129} {
			if at >= n {
				continue
			}
			fps := make([]uint64, n)
			for i := range fps {
				fps[i] = q ^ 0xffff_ffff<<r.IntN(32) // 32 bits away
			}
			if at >= 0 {
				fps[at] = q ^ 0b1011 // 3 bits away
			}
			for _, k := range []int{-1, 0, 2, 3, 31, 32, 64} {
				want := false
				for _, fp := range fps {
					if bits.OnesCount64(fp^q) <= k {
						want = true
					}
				}
				if got := AnyWithin(fps, q, k); got != want {
					t.Errorf("%d fingerprints, the near one at %d, k %d: %v, want %v", n, at, k, got, want)
				}
			}
		}
	}
}

// TestKernel checks that Kernel names the implementation nearMask runs:
// the first of AVX-512 and AVX2 the processor has, else Go.
func TestKernel(t *testing.T) {
	want := "go"
	if useAVX2 {
		want = "avx2"
	}
	if useAVX512 {
		want = "avx512"
	}
	if got := Kernel(); got != want {
		t.Errorf("Kernel() = %q with useAVX512 %v and useAVX2 %v, want %q", got, useAVX512, useAVX2, want)
	}
}
