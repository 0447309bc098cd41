package simhash

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestHashGolden pins the feature hashes: they are part of the fingerprint
// format. The empty-input values are XXH3's published reference values.
func TestHashGolden(t *testing.T) {
	tests := []struct {
		in        string
		h64       uint64
		hi128, lo uint64
	}{
		{"", 0x2d06800538d394c2, 0x99aa06d3014798d8, 0x6001c324468d497f},
		{"a", 0xe6c632b61e964e1f, 0xa96faf705af16834, 0xe6c632b61e964e1f},
		{"hello", 0x9555e8555c62dcfd, 0xb5e9c1ad071b3e7f, 0xc779cfaa5e523818},
		{"中文", 0x8dbce87fe32cdda6, 0xe488e3b4925a7257, 0xa29d0eeb66ee134a},
	}
	for _, tt := range tests {
		if got := Hash64([]byte(tt.in)); got != tt.h64 {
			t.Errorf("Hash64(%q) = %#x, want %#x", tt.in, got, tt.h64)
		}
		if hi, lo := Hash128([]byte(tt.in)); hi != tt.hi128 || lo != tt.lo {
			t.Errorf("Hash128(%q) = %#x %#x, want %#x %#x", tt.in, hi, lo, tt.hi128, tt.lo)
		}
	}
	if got := Shingle64([]uint64{1, 2, 3}); got != 0x60f133a1d1e75cdb {
		t.Errorf("Shingle64(1,2,3) = %#x", got)
	}
	if hi, lo := Shingle128([]uint64{1, 2}, []uint64{3, 4}); hi != 0x9d1c001ee1bd5866 || lo != 0xaf70ce877e5bcc4b {
		t.Errorf("Shingle128 = %#x %#x", hi, lo)
	}
}

func TestShingleProperties(t *testing.T) {
	if Shingle64([]uint64{7}) != 7 {
		t.Error("a one-token shingle must keep the token hash")
	}
	if Shingle64([]uint64{1, 2}) == Shingle64([]uint64{2, 1}) {
		t.Error("shingle hash ignores order")
	}
	if Shingle64([]uint64{1, 2}) == Shingle64([]uint64{1, 2, 0}) {
		t.Error("shingle hash ignores length")
	}
	_, lo := Shingle128([]uint64{5, 6, 7}, []uint64{1, 2, 3})
	if lo != Shingle64([]uint64{1, 2, 3}) {
		t.Error("Shingle128 low half differs from Shingle64")
	}
	// An empty shingle follows the formula with n = 0: fmix64(0) = 0.
	if Shingle64(nil) != 0 || Shingle64([]uint64{}) != 0 {
		t.Error("an empty shingle must hash to 0")
	}
	if hi, lo := Shingle128(nil, nil); hi != 0 || lo != 0 {
		t.Errorf("Shingle128 of an empty shingle = %#x %#x, want 0 0", hi, lo)
	}
}

// naive64 is the textbook per-bit loop the accumulators must agree with.
func naive64(hs []uint64, ws []float64) uint64 {
	var v [64]float64
	for k, h := range hs {
		for i := range v {
			if h>>i&1 == 1 {
				v[i] += ws[k]
			} else {
				v[i] -= ws[k]
			}
		}
	}
	var fp uint64
	for i, x := range v {
		if x > 0 {
			fp |= 1 << i
		}
	}
	return fp
}

// TestAccumulators checks Acc64, Acc128, Weighted64 and Weighted128
// against the per-bit loop, across the byte-lane flush boundary (255) and
// with ties (even counts).
func TestAccumulators(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, n := range []int{0, 1, 2, 3, 254, 255, 256, 510, 511, 1000, 5000} {
		hs := make([]uint64, n)
		his := make([]uint64, n)
		ones := make([]float64, n)
		ws := make([]float64, n)
		for i := range hs {
			// Few distinct hashes, so that ties are common.
			hs[i] = rng.Uint64() & 0xff00ff00ff00ff0f
			his[i] = rng.Uint64()
			ones[i] = 1
			ws[i] = rng.Float64() * 3
		}
		var a Acc64
		var a2 Acc128
		var w Weighted64
		var w2 Weighted128
		for i, h := range hs {
			a.Add(h)
			a2.Add(his[i], h)
			w.Add(h, ws[i])
			w2.Add(his[i], h, ws[i])
		}
		want := naive64(hs, ones)
		if got := a.Sum(); got != want {
			t.Errorf("n=%d: Acc64 %#x, want %#x", n, got, want)
		}
		if got := a.Sum(); got != want {
			t.Errorf("n=%d: second Sum %#x, want %#x", n, got, want)
		}
		if a.Len() != n || a2.Len() != n {
			t.Errorf("n=%d: Len %d %d", n, a.Len(), a2.Len())
		}
		if hi, lo := a2.Sum(); lo != want || hi != naive64(his, ones) {
			t.Errorf("n=%d: Acc128 wrong", n)
		}
		wantW := naive64(hs, ws)
		if got := w.Sum(); got != wantW {
			t.Errorf("n=%d: Weighted64 %#x, want %#x", n, got, wantW)
		}
		if hi, lo := w2.Sum(); lo != wantW || hi != naive64(his, ws) {
			t.Errorf("n=%d: Weighted128 wrong", n)
		}
		a.Reset()
		w.Reset()
		a2.Reset()
		w2.Reset()
		if a.Sum() != 0 || w.Sum() != 0 || a.Len() != 0 {
			t.Errorf("n=%d: Reset does not forget", n)
		}
		if hi, lo := a2.Sum(); hi|lo != 0 {
			t.Errorf("n=%d: Acc128.Reset does not forget", n)
		}
		if hi, lo := w2.Sum(); hi|lo != 0 {
			t.Errorf("n=%d: Weighted128.Reset does not forget", n)
		}
	}
}

// TestTies checks the documented tie rule: a bit with equal weight on both
// sides is 0.
func TestTies(t *testing.T) {
	var a Acc64
	a.Add(0b01)
	a.Add(0b10)
	if got := a.Sum(); got != 0 {
		t.Fatalf("tie gives %#b, want 0", got)
	}
	a.Add(0b01)
	if got := a.Sum(); got != 0b01 {
		t.Fatalf("majority gives %#b, want 1", got)
	}
}

// TestDistributionOfRandomFeatures is a statistical test in the manner of
// hash/maphash's smhasher tests: fingerprints of disjoint random feature
// sets differ in f/2 bits on average, and every bit is set about half the
// time. Bounds are 5 standard deviations, with a fixed seed.
func TestDistributionOfRandomFeatures(t *testing.T) {
	const docs, feats = 400, 50
	rng := rand.New(rand.NewPCG(1, 2))
	fps := make([]uint64, docs)
	var setCount [64]int
	for d := range fps {
		var a Acc64
		buf := make([]byte, 0, 16)
		for range feats {
			buf = fmt.Appendf(buf[:0], "w%d", rng.Uint64())
			a.Add(Hash64(buf))
		}
		fps[d] = a.Sum()
		for i := range 64 {
			setCount[i] += int(fps[d] >> i & 1)
		}
	}
	var sum, n float64
	for i := 0; i+1 < docs; i += 2 {
		sum += float64(bits.OnesCount64(fps[i] ^ fps[i+1]))
		n++
	}
	// Each distance is Binomial(64, 1/2): mean 32, sd 4.
	mean, sd := sum/n, 4/math.Sqrt(n)
	if mean < 32-5*sd || mean > 32+5*sd {
		t.Errorf("mean distance of unrelated fingerprints %.2f, want 32 ± %.2f", mean, 5*sd)
	}
	// Each bit is set with probability 1/2 (ties are rare with 50
	// features): count ~ Binomial(docs, 1/2).
	bsd := math.Sqrt(docs) / 2
	for i, c := range setCount {
		if d := float64(c) - docs/2; d < -5*bsd || d > 5*bsd {
			t.Errorf("bit %d set in %d of %d fingerprints", i, c, docs)
		}
	}
}

func BenchmarkAcc64(b *testing.B) {
	hs := make([]uint64, 4096)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range hs {
		hs[i] = rng.Uint64()
	}
	b.Run("bytelanes", func(b *testing.B) {
		b.ReportAllocs()
		var a Acc64
		for b.Loop() {
			a.Reset()
			for _, h := range hs {
				a.Add(h)
			}
			sink = a.Sum()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/feature")
	})
	b.Run("weighted", func(b *testing.B) {
		b.ReportAllocs()
		var a Weighted64
		for b.Loop() {
			a.Reset()
			for _, h := range hs {
				a.Add(h, 1.5)
			}
			sink = a.Sum()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/feature")
	})
}

var sink uint64

// TestShinglers checks the streaming shinglers against Shingle64 and
// Shingle128 for every width and text length up to a few windows.
func TestShinglers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for w := 1; w <= MaxWindow; w++ {
		for n := 0; n <= 3*w+2; n++ {
			los := make([]uint64, n)
			his := make([]uint64, n)
			for i := range los {
				los[i], his[i] = rng.Uint64(), rng.Uint64()
			}
			var s Shingler64
			var s2 Shingler128
			s.Reset(w)
			s2.Reset(w)
			for i := range los {
				h, ok := s.Push(los[i])
				hi, lo, ok2 := s2.Push(his[i], los[i])
				if ok != (i+1 >= w) || ok2 != ok {
					t.Fatalf("w=%d i=%d: ok=%v", w, i, ok)
				}
				if ok {
					if want := Shingle64(los[i+1-w : i+1]); h != want {
						t.Fatalf("w=%d i=%d: %#x, want %#x", w, i, h, want)
					}
					whi, wlo := Shingle128(his[i+1-w:i+1], los[i+1-w:i+1])
					if hi != whi || lo != wlo {
						t.Fatalf("w=%d i=%d: 128-bit shingle differs", w, i)
					}
				}
			}
			h, ok := s.Partial()
			hi, lo, ok2 := s2.Partial()
			if ok != (n > 0 && n < w) || ok2 != ok {
				t.Fatalf("w=%d n=%d: Partial ok=%v", w, n, ok)
			}
			if ok {
				if h != Shingle64(los) {
					t.Fatalf("w=%d n=%d: Partial wrong", w, n)
				}
				if whi, wlo := Shingle128(his, los); hi != whi || lo != wlo {
					t.Fatalf("w=%d n=%d: 128-bit Partial wrong", w, n)
				}
			}
		}
	}
}

// TestAddUnits checks that adding a group of unit features with a weight
// equals adding each with that weight, for groups that fit the byte lanes
// and larger ones, with accumulators reused after Reset.
func TestAddUnits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	var each, grouped Weighted64
	var each2, grouped2 Weighted128
	var u Acc64
	var u2 Acc128
	for g, size := range []int{100, 300, 50, 600, 0, 254, 255, 20} {
		w := 0.5 + float64(g)
		u.Reset()
		u2.Reset()
		for range size {
			h, hi := rng.Uint64(), rng.Uint64()
			u.Add(h)
			u2.Add(hi, h)
			each.Add(h, w)
			each2.Add(hi, h, w)
		}
		grouped.AddUnits(&u, w)
		grouped2.AddUnits(&u2, w)
	}
	if each.Sum() != grouped.Sum() {
		t.Fatalf("AddUnits: %#x, one by one: %#x", grouped.Sum(), each.Sum())
	}
	if h1, l1 := each2.Sum(); true {
		if h2, l2 := grouped2.Sum(); h1 != h2 || l1 != l2 {
			t.Fatal("Weighted128.AddUnits differs")
		}
	}
}
