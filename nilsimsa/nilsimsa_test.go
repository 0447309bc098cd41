package nilsimsa

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"testing"
)

var _ hash.Hash = (*Digest)(nil)

// golden holds digests published with other implementations of the
// reference algorithm (the C library's tests, rholder/nilsimsa for Java,
// and a JavaScript port's tests of the same vectors).
var golden = []struct {
	in, hex string
}{
	{"abcdefgh", "14c8118000000000030800000004042004189020001308014088003280000078"},
	{"This is a much more ridiculous test because of 21347597.", "5d9c6a6b22384bcd524a8d414d82237777433fc1a07a02c3e06985d96ecdf8fb"},
	{"The rain in Spain falls mostly in the plains.", "039020eb1050188be400091130981860648e39f5b1246d8c3c3c7623801186ac"},
	{"The rain in Spain falls mainly in the plains.", "23b000e908501883c408019410d83a60c48f1977a3246ccc3cbc7213c81104bc"},
	{"The quick brown fox", "0a31b4be01a0808a29e0ec60e9a258545dc0526770022348380a2128708f2fdb"},
	{"The quicker brown fox", "1a31bc3e02a080a28b642864ea224857ddd0526f78022b48380e2269329d3fdb"},
	// Fewer than three bytes make no trigram.
	{"", "0000000000000000000000000000000000000000000000000000000000000000"},
	{"ab", "0000000000000000000000000000000000000000000000000000000000000000"},
}

func TestGolden(t *testing.T) {
	for _, g := range golden {
		in := []byte(g.in)
		if got := fmt.Sprintf("%x", Sum(in)); got != g.hex {
			t.Errorf("Sum(%q) = %s, want %s", g.in, got, g.hex)
		}
		// The same digest in one write, byte by byte, and after Reset.
		d := New()
		for i := range in {
			d.Write(in[i : i+1])
		}
		if got := hex.EncodeToString(d.Sum(nil)); got != g.hex {
			t.Errorf("byte-by-byte %q = %s, want %s", g.in, got, g.hex)
		}
		d.Reset()
		io.WriteString(d, g.in)
		if got := fmt.Sprintf("%x", d.Sum256()); got != g.hex {
			t.Errorf("after Reset %q = %s, want %s", g.in, got, g.hex)
		}
	}
}

func mustHex(t *testing.T, s string) [Size]byte {
	t.Helper()
	var d [Size]byte
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != Size {
		t.Fatalf("bad digest %q: %v", s, err)
	}
	copy(d[:], b)
	return d
}

func TestScore(t *testing.T) {
	tests := []struct {
		name       string
		a, b       [Size]byte
		distance   int
		wantScored int
	}{
		// Seed 002: two versions of one spam score 92 (36 bits differ).
		{"seed spam", mustHex(t, "773e2df0a02a319ec34a0b71d54029111da90838cbc20ecd3d2d4e18c25a3025"),
			mustHex(t, "47182cf0802a11dec24a3b75d5042d310ca90838c9d20ecc3d610e98560a3645"), 36, 92},
		// py-nilsimsa's test_compare_hex: two pages of its corpus score 95.
		{"py-nilsimsa corpus", mustHex(t, "0000000000020008000000001000020000000000029000000010000080002000"),
			mustHex(t, "031000000202080c100210a09000010084200021039204c40518000060002048"), 33, 95},
		// The C library's tests.
		{"abcdefgh vs long", Sum([]byte(golden[0].in)), Sum([]byte(golden[1].in)), 124, 4},
		{"rain", Sum([]byte(golden[2].in)), Sum([]byte(golden[3].in)), 36, 92},
		{"short message", Sum([]byte("A short test message")), Sum([]byte("A short test message!")), 3, 125},
		{"equal", Sum([]byte("x y z")), Sum([]byte("x y z")), 0, 128},
		{"opposite", [Size]byte{}, [Size]byte{0: 0xff, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff,
			8: 0xff, 9: 0xff, 10: 0xff, 11: 0xff, 12: 0xff, 13: 0xff, 14: 0xff, 15: 0xff, 16: 0xff, 17: 0xff, 18: 0xff,
			19: 0xff, 20: 0xff, 21: 0xff, 22: 0xff, 23: 0xff, 24: 0xff, 25: 0xff, 26: 0xff, 27: 0xff, 28: 0xff, 29: 0xff,
			30: 0xff, 31: 0xff}, 256, -128},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.distance {
			t.Errorf("%s: Distance = %d, want %d", tt.name, got, tt.distance)
		}
		if got := Score(tt.a, tt.b); got != tt.wantScored {
			t.Errorf("%s: Score = %d, want %d", tt.name, got, tt.wantScored)
		}
	}
}

// TestLocality checks the property nilsimsa exists for, with a fixed seed:
// a one-byte edit of a 2 KB text moves few bits, while unrelated texts
// score near 0 (the reference calls scores over 24 unlikely by chance).
func TestLocality(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func() []byte {
		b := make([]byte, 2000)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return b
	}
	for range 20 {
		a, b := text(), text()
		edited := bytes.Clone(a)
		edited[r.IntN(len(edited))] = '#'
		if s := Score(Sum(a), Sum(edited)); s < 100 {
			t.Errorf("one-byte edit scores %d, want >= 100", s)
		}
		if s := Score(Sum(a), Sum(b)); s > 64 {
			t.Errorf("unrelated texts score %d, want <= 64", s)
		}
	}
}

func FuzzStreaming(f *testing.F) {
	for _, g := range golden {
		f.Add([]byte(g.in), uint8(3))
	}
	f.Add([]byte("\xff\xfe\x00\x01 binary"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		want := Sum(data)
		d := New()
		n := int(step%16) + 1
		for i := 0; i < len(data); i += n {
			d.Write(data[i:min(i+n, len(data))])
		}
		if got := d.Sum256(); got != want {
			t.Fatalf("writes of %d bytes give %x, one write %x", n, got, want)
		}
		if Distance(want, want) != 0 || Score(want, want) != 128 {
			t.Fatal("a digest differs from itself")
		}
	})
}

func ExampleScore() {
	a := Sum([]byte("The rain in Spain falls mostly in the plains."))
	b := Sum([]byte("The rain in Spain falls mainly in the plains."))
	fmt.Printf("%x\n%x\n%d\n", a, b, Score(a, b))
	// Output:
	// 039020eb1050188be400091130981860648e39f5b1246d8c3c3c7623801186ac
	// 23b000e908501883c408019410d83a60c48f1977a3246ccc3cbc7213c81104bc
	// 92
}

var sinkDigest [Size]byte

func BenchmarkSum(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{64, 1 << 10, 64 << 10} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte('a' + r.IntN(26))
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				sinkDigest = Sum(data)
			}
		})
	}
}

// TestFold checks that folding the lane counters into the totals, which
// happens every 2 GiB of input, does not change the digest.
func TestFold(t *testing.T) {
	in := []byte(golden[1].in)
	var d Digest
	d.Write(in[:20])
	d.fold()
	d.Write(in[20:])
	if got, want := d.Sum256(), Sum(in); got != want {
		t.Errorf("digest with a fold %x, without %x", got, want)
	}
}

// TestSlotTables checks the precomputed tables against tran3 for every
// byte pair and slot.
func TestSlotTables(t *testing.T) {
	for n := range byte(8) {
		for a := range 256 {
			for b := range 256 {
				c := byte(a ^ b)
				want := tran3(byte(a), byte(b), c, n)
				if got := (tran[byte(a)+n] ^ tables.mul[n][b]) + tables.mix[n][c]; got != want {
					t.Fatalf("slot %d, %d %d %d: tables give %d, tran3 %d", n, a, b, c, got, want)
				}
			}
		}
	}
}

// naiveSum is the reference algorithm written plainly: one counter array,
// the window grown a byte at a time, the threshold from the trigram count.
func naiveSum(data []byte) [Size]byte {
	var acc [256]int
	var w []byte // the previous bytes, most recent first, at most 4
	for _, c := range data {
		if len(w) > 1 {
			acc[tran3(c, w[0], w[1], 0)]++
		}
		if len(w) > 2 {
			acc[tran3(c, w[0], w[2], 1)]++
			acc[tran3(c, w[1], w[2], 2)]++
		}
		if len(w) > 3 {
			acc[tran3(c, w[0], w[3], 3)]++
			acc[tran3(c, w[1], w[3], 4)]++
			acc[tran3(c, w[2], w[3], 5)]++
			acc[tran3(w[3], w[0], c, 6)]++
			acc[tran3(w[3], w[2], c, 7)]++
		}
		w = append([]byte{c}, w[:min(len(w), 3)]...)
	}
	total := 0
	for _, a := range acc {
		total += a
	}
	var out [Size]byte
	for i, a := range acc {
		if a*256 > total {
			out[Size-1-i/8] |= 1 << (i % 8)
		}
	}
	return out
}

// TestMatchesNaive checks the lanes, tables and folds (every 65,535 bytes)
// against naiveSum on random inputs of many lengths.
func TestMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 100, 65534, 65535, 65536, 65540, 200_000} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(r.IntN(256))
		}
		if got, want := Sum(data), naiveSum(data); got != want {
			t.Errorf("%d bytes: Sum %x, naive %x", n, got, want)
		}
	}
}
