package weight

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/simhash"
)

func TestCountApplyTop(t *testing.T) {
	terms := []Term{{Lo: 3, Key: 3}, {Lo: 1, Key: 1}, {Lo: 3, Key: 3}, {Lo: 2, Key: 2}, {Lo: 3, Key: 3}, {Lo: 1, Key: 1}}
	terms = Count(terms)
	want := []Term{{Lo: 1, Key: 1, Count: 2}, {Lo: 2, Key: 2, Count: 1}, {Lo: 3, Key: 3, Count: 3}}
	if len(terms) != len(want) {
		t.Fatalf("Count = %+v", terms)
	}
	for i := range want {
		if terms[i].Lo != want[i].Lo || terms[i].Count != want[i].Count {
			t.Fatalf("Count = %+v, want %+v", terms, want)
		}
	}
	idf := NewIDF(map[uint64]float64{1: 4, 2: 0.5}, 100, 2)
	tests := []struct {
		s    Scheme
		want []float64
	}{
		{TF, []float64{2, 1, 3}},
		{LogTF, []float64{1 + math.Log(2), 1, 1 + math.Log(3)}},
		{Binary, []float64{1, 1, 1}},
		{TFIDF, []float64{8, 0.5, 6}}, // key 3 is unknown: default IDF 2
	}
	for _, tt := range tests {
		tt.s.Apply(terms, idf)
		for i, w := range tt.want {
			if math.Abs(terms[i].Weight-w) > 1e-9 {
				t.Errorf("%s: weight of %d = %v, want %v", tt.s, terms[i].Lo, terms[i].Weight, w)
			}
		}
		if err := tt.s.Validate(); err != nil {
			t.Error(err)
		}
	}
	TFIDF.Apply(terms, idf)
	top := Top(terms, 2)
	if len(top) != 2 || top[0].Lo != 1 || top[1].Lo != 3 {
		t.Fatalf("Top 2 = %+v", top)
	}
	if got := Top(terms, 0); len(got) != 3 {
		t.Fatal("Top 0 must keep all")
	}
	if Scheme("bm25").Validate() == nil {
		t.Fatal("unknown scheme accepted")
	}
	if Count(nil) != nil {
		t.Fatal("Count(nil)")
	}
}

func TestBuilderRoundTrip(t *testing.T) {
	var b Builder
	b.Add([]uint64{1, 2, 2, 3})
	b.Add([]uint64{1, 2})
	b.Add([]uint64{1})
	b.Add([]uint64{4})
	tab := b.IDF(1)
	if tab.Docs() != 4 || tab.Len() != 4 {
		t.Fatalf("docs %d len %d", tab.Docs(), tab.Len())
	}
	// idf = ln((N+1)/(df+1)) + 1; key 1 in 3 of 4 documents.
	if got, want := tab.Lookup(1), math.Log(5.0/4)+1; math.Abs(got-want) > 1e-6 {
		t.Fatalf("idf(1) = %v, want %v", got, want)
	}
	if tab.Lookup(1) >= tab.Lookup(3) || tab.Lookup(99) != math.Log(5)+1 {
		t.Fatal("rarer features must weigh more; unknown ones most")
	}
	if b.IDF(2).Len() != 2 {
		t.Fatal("minDF not applied")
	}
	var buf bytes.Buffer
	n, err := tab.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d, %v", n, err)
	}
	if !strings.HasPrefix(buf.String(), "neardup-idf 2\ndocs 4\n") || !strings.HasSuffix(buf.String(), "\nfeatures 4\n") {
		t.Fatalf("format: %q", buf.String())
	}
	back, err := ReadIDF(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []uint64{1, 2, 3, 4, 99} {
		if math.Abs(back.Lookup(k)-tab.Lookup(k)) > 1e-6 {
			t.Errorf("key %d: %v after round trip, want %v", k, back.Lookup(k), tab.Lookup(k))
		}
	}
	if back.Docs() != 4 || back.Len() != 4 {
		t.Fatal("round trip lost docs or entries")
	}
}

func TestReadIDFErrors(t *testing.T) {
	bad := []struct{ in, where string }{
		{"", "empty"},
		{"idf 1\n", "line 1"},
		{"neardup-idf 1\ndocs x\ndefault 1\n", "line 2"},
		{"neardup-idf 1\ndocs 1\ndefault 1\nzz 1\n", "line 4"},
		{"neardup-idf 1\ndocs 1\ndefault 1\n0000000000000001 -3\n", "line 4"},
		{"neardup-idf 1\ndocs 1\n", "missing"},
		{"neardup-idf 1\ndocs 1\ndefault 1\n0000000000000001\n", "line 4"},
		{"neardup-idf 1\ndocs 1\ndefault 1\nfeatures 0\n", "line 4"},
		{"neardup-idf 2\ndocs 1\ndefault 1\nfeatures x\n", "line 4: bad feature count"},
		{"neardup-idf 2\ndocs 1\ndefault 1\nfeatures 0\n0000000000000001 2\n", "line 5: more after"},
		{"neardup-idf 2\ndocs 1\nfeatures 0\n", "missing"},
		{"neardup-idf 3\ndocs 1\ndefault 1\nfeatures 0\n", "line 1"},
	}
	for _, tt := range bad {
		_, err := ReadIDF(strings.NewReader(tt.in))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tt.where) {
			t.Errorf("ReadIDF(%q) = %v, want ErrFormat naming %q", tt.in, err, tt.where)
		}
	}
}

// TestReadIDFTruncated checks that a version 2 table cut short anywhere
// (mid-line included) is refused as truncated, not read as a smaller
// table, and that version 1 tables, without the trailer, are still read.
func TestReadIDFTruncated(t *testing.T) {
	var b Builder
	for i := range 50 {
		b.Add([]uint64{uint64(i), uint64(i) * 7, 1})
	}
	var buf bytes.Buffer
	if _, err := b.IDF(1).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	whole := buf.String()
	if _, err := ReadIDF(strings.NewReader(whole)); err != nil {
		t.Fatalf("whole table: %v", err)
	}
	// Every cut after the header lines: the trailer is gone or cut.
	start := len("neardup-idf 2\ndocs 50\n")
	for n := start; n < len(whole)-1; n++ {
		_, err := ReadIDF(strings.NewReader(whole[:n]))
		if !errors.Is(err, ErrFormat) {
			t.Fatalf("cut at byte %d of %d: %v, want ErrFormat", n, len(whole), err)
		}
		if !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("cut at byte %d of %d: %v, want it called truncated", n, len(whole), err)
		}
	}
	// A version 1 table (no trailer) is read as before.
	v1 := strings.Replace(whole[:strings.LastIndex(whole, "features ")], "neardup-idf 2", "neardup-idf 1", 1)
	tab, err := ReadIDF(strings.NewReader(v1))
	if err != nil || tab.Len() != b.IDF(1).Len() || tab.Docs() != 50 {
		t.Fatalf("version 1 table: %v", err)
	}
	// A version 1 table cut mid-line (in a value, which still parses) has
	// no line end at its end.
	_, err = ReadIDF(strings.NewReader(v1[:len(v1)-2]))
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "truncated") {
		t.Fatalf("version 1 table cut mid-line: %v, want it called truncated", err)
	}
}

func TestReadTermIDF(t *testing.T) {
	tab, err := ReadTermIDF(strings.NewReader("中国 2.5\nＡＰＰＬＥ 7\n\n北京 9 ns\n"))
	if err != nil {
		t.Fatal(err)
	}
	key := func(w string) uint64 { return simhash.Hash64(analysis.Normalize(nil, []byte(w))) }
	if tab.Lookup(key("中国")) != 2.5 || tab.Lookup(key("apple")) != 7 || tab.Default() != 7 {
		t.Fatalf("table wrong: %v %v %v", tab.Lookup(key("中国")), tab.Lookup(key("apple")), tab.Default())
	}
	if _, err := ReadTermIDF(strings.NewReader("word\n")); !errors.Is(err, ErrFormat) {
		t.Fatalf("one field: %v", err)
	}
}

func TestChineseTable(t *testing.T) {
	if testing.Short() {
		t.Skip("parses 270,000 words")
	}
	var c Chinese
	tab, err := c.Table()
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() < 200000 {
		t.Fatalf("only %d words", tab.Len())
	}
	key := func(w string) uint64 { return simhash.Hash64([]byte(w)) }
	// A rare word weighs more than a common one.
	if tab.Lookup(key("劳动防护")) <= tab.Lookup(key("中国")) {
		t.Fatalf("idf(劳动防护) = %v <= idf(中国) = %v", tab.Lookup(key("劳动防护")), tab.Lookup(key("中国")))
	}
	if again, _ := c.Table(); again != tab {
		t.Fatal("table parsed twice")
	}
}

func TestNilIDF(t *testing.T) {
	var tab *IDF
	if tab.Lookup(5) != 1 || tab.Len() != 0 || tab.Default() != 1 || tab.Docs() != 0 {
		t.Fatal("nil IDF must weigh every feature 1")
	}
}

func FuzzReadIDF(f *testing.F) {
	f.Add([]byte("neardup-idf 1\ndocs 2\ndefault 1.5\n0000000000000001 2\n"))
	f.Add([]byte("neardup-idf 1\n# c\n\ndocs 0\ndefault 0\n"))
	f.Add([]byte("neardup-idf 2\ndocs 2\ndefault 1.5\n0000000000000001 2\nfeatures 1\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		tab, err := ReadIDF(bytes.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if _, err := tab.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadIDF(&buf)
		if err != nil || back.Len() != tab.Len() || back.Docs() != tab.Docs() {
			t.Fatalf("round trip failed: %v", err)
		}
	})
}

// TestCounter checks Counter against Count on random streams with many
// repeats, across growth and Reset.
func TestCounter(t *testing.T) {
	var c Counter
	for round, n := range []int{0, 1, 10, 100, 1000, 5000, 50} {
		c.Reset()
		var all []Term
		for i := range n {
			lo := uint64(i*7919%(n/3+1)) * 0x9e3779b97f4a7c15
			hi := uint64(round)
			c.Add(hi, lo, lo)
			all = append(all, Term{Hi: hi, Lo: lo, Key: lo})
		}
		want := Count(all)
		got := Count(append([]Term(nil), c.Terms()...))
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d terms, want %d", n, len(got), len(want))
		}
		for i := range want {
			if got[i].Lo != want[i].Lo || got[i].Count != want[i].Count {
				t.Fatalf("n=%d: term %d = %+v, want %+v", n, i, got[i], want[i])
			}
		}
	}
}

// TestCounter64 checks Counter64 against Counter (same features, same
// order of first occurrence, same counts) on random streams with many
// repeats, hashes that share their low bits, and the hash 0, across growth
// and Reset.
func TestCounter64(t *testing.T) {
	var c Counter
	var c64, all Counter64
	for round, n := range []int{0, 1, 10, 100, 1000, 5000, 50} {
		c.Reset()
		c64.Reset()
		all.Reset()
		var hs []uint64
		for i := range n {
			h := uint64(i*7919%(n/3+1)) * 0x9e3779b97f4a7c15
			switch i % 5 {
			case 1:
				h = 0
			case 2:
				h = uint64(i%7) << 40 // equal low 32 bits
			}
			h ^= uint64(round) << 60
			c.Add(0, h, h)
			c64.Add(h)
			hs = append(hs, h)
		}
		// AddAll in batches of 1 to 99 hashes
		for len(hs) > 0 {
			k := min(len(hs), 1+len(hs)%99)
			all.AddAll(hs[:k])
			hs = hs[k:]
		}
		want := c.Terms()
		if c64.Len() != len(want) || all.Len() != len(want) {
			t.Fatalf("n=%d: %d and %d features, want %d", n, c64.Len(), all.Len(), len(want))
		}
		for i, w := range want {
			if got := c64.At(i); got.Hash != w.Lo || int32(got.N) != w.Count {
				t.Fatalf("n=%d: feature %d = %+v, want %+v", n, i, got, w)
			}
			if got := all.At(i); got.Hash != w.Lo || int32(got.N) != w.Count {
				t.Fatalf("n=%d: AddAll: feature %d = %+v, want %+v", n, i, got, w)
			}
		}
	}
}
