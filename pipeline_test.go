package neardup

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/neardup/neardup/weight"
)

func mustPipeline(tb testing.TB, p Pipeline, bits int) Fingerprinter {
	tb.Helper()
	f, err := NewPipeline(p, bits)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

func TestPipelineEmptyAndWidth(t *testing.T) {
	for _, bits := range []int{64, 128} {
		f := mustPipeline(t, DefaultPipeline(), bits)
		if f.Bits() != bits {
			t.Fatalf("Bits() = %d", f.Bits())
		}
		for _, empty := range []string{"", "   ", "!!! ...", "\x00\x01"} {
			fp := f.Fingerprint([]byte(empty))
			if fp.Bits() != bits || fp != (Fingerprint{bits: bits}) {
				t.Errorf("%d bits: Fingerprint(%q) = %v, want 0", bits, empty, fp)
			}
		}
	}
	if _, err := NewPipeline(DefaultPipeline(), 32); !errors.Is(err, ErrWidth) {
		t.Fatalf("NewPipeline(32 bits) error = %v", err)
	}
}

func TestPipelineValidate(t *testing.T) {
	bad := []Pipeline{
		{Units: "bytes"}, {CJK: "trigram"}, {Shingle: -1}, {Shingle: MaxShingle + 1},
		{Weighting: "bm25"}, {TopN: -2},
	}
	for _, p := range bad {
		if err := p.Validate(); !errors.Is(err, ErrPipeline) {
			t.Errorf("Validate(%+v) = %v, want ErrPipeline", p, err)
		}
		if _, err := NewPipeline(p, 64); !errors.Is(err, ErrPipeline) {
			t.Errorf("NewPipeline(%+v) = %v, want ErrPipeline", p, err)
		}
	}
	if err := (Pipeline{}).Validate(); err != nil {
		t.Fatalf("zero Pipeline: %v", err)
	}
}

// TestPipelineNormalizes checks that texts equal after normalization have
// the same fingerprint, in every configuration.
func TestPipelineNormalizes(t *testing.T) {
	a := "The Quick  Brown Fox jumps over the lazy dog. 中文测试文本"
	b := "the quick brown fox\tjumps over the LAZY dog. 中文测试文本\x01"
	for _, p := range sweep() {
		f := mustPipeline(t, p, 64)
		if fa, fb := f.Fingerprint([]byte(a)), f.Fingerprint([]byte(b)); fa != fb {
			t.Errorf("%+v: %v != %v", p, fa, fb)
		}
	}
}

// sweep returns a set of pipelines covering every mode.
func sweep() []Pipeline {
	var ps []Pipeline
	for _, u := range []Units{UnitWords, UnitChars} {
		for _, c := range []CJKMode{CJKUnigram, CJKBigram} {
			for _, w := range weight.Schemes() {
				for _, sh := range []int{1, 3} {
					ps = append(ps, Pipeline{Units: u, CJK: c, Weighting: w, Shingle: sh})
				}
			}
		}
	}
	return append(ps, Pipeline{TopN: 5}, Pipeline{HTML: true})
}

// TestPipelineHTML checks that markup does not change the fingerprint of
// the text it holds.
func TestPipelineHTML(t *testing.T) {
	f := mustPipeline(t, Pipeline{HTML: true}, 64)
	g := mustPipeline(t, DefaultPipeline(), 64)
	html := "<html><head><style>p{color:red}</style><script>var a=1;</script></head><body><p>Fish &amp; <b>chips</b> today</p></body></html>"
	if f.Fingerprint([]byte(html)) != g.Fingerprint([]byte("fish & chips today")) {
		t.Fatal("HTML pipeline does not reduce the page to its text")
	}
}

// TestPipelineConcurrent fingerprints from several goroutines and compares
// with a serial run (run with -race).
func TestPipelineConcurrent(t *testing.T) {
	f := mustPipeline(t, DefaultPipeline(), 128)
	docs := make([][]byte, 50)
	want := make([]Fingerprint, len(docs))
	for i := range docs {
		docs[i] = []byte(randomText(rand.New(rand.NewPCG(uint64(i), 7)), 200))
		want[i] = f.Fingerprint(docs[i])
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range docs {
				j := (i + g) % len(docs)
				if got := f.Fingerprint(docs[j]); got != want[j] {
					t.Errorf("doc %d: %v != %v", j, got, want[j])
				}
			}
		})
	}
	wg.Wait()
}

// randomText returns n words drawn from a Zipf-like vocabulary.
func randomText(rng *rand.Rand, n int) string {
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "w%d", int(rng.ExpFloat64()*300))
	}
	return sb.String()
}
