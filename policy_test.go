package neardup

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/neardup/neardup/similarity"
)

func TestPolicyVerify(t *testing.T) {
	p := DefaultPolicy()
	sk := func(s string) *similarity.Sketch { return similarity.NewSketch([]byte(s)) }
	short := "the quick brown fox jumps over the lazy dog by the river bank at dawn"
	shortEdit := "the quick brown fox jumped over the lazy dog by the river bank at dawn"
	shortOther := "a completely different sentence about the weather in the hills at dusk"
	tiny := "the quick brown fox jumps over the lazy dog"
	tinyEdit := "the quick brown fox jumped over the lazy dog"
	tinyTwo := "the quick brown fox jumped over the lazy dogs"
	if n := sk(short).Len(); n < p.TinyLength || n >= p.ShortLength {
		t.Fatalf("short text has %d runes, want %d to %d", n, p.TinyLength, p.ShortLength-1)
	}
	if n := sk(tinyEdit).Len(); n >= p.TinyLength {
		t.Fatalf("tiny text has %d runes, want under %d", n, p.TinyLength)
	}
	long := strings.Repeat("alpha beta gamma delta epsilon zeta eta theta iota kappa ", 12)
	longEdit := strings.Replace(long, "gamma", "omega", 2)
	longOther := strings.Repeat("one two three four five six seven eight nine ten ", 13)
	huge := strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing elit ", 40)
	hugeEdit := strings.Replace(huge, "dolor", "color", 3)
	if n := sk(huge).Len(); n <= maxEditRunes {
		t.Fatalf("huge text has %d runes, want more than %d", n, maxEditRunes)
	}
	tests := []struct {
		name     string
		a, b     string
		dist     int
		bits     int
		dup      bool
		measure  Measure // the score Verify must report as sim
		allKnown bool    // every score is computed
		noLev    bool    // Levenshtein left 0 although a duplicate
	}{
		{"short edit", short, shortEdit, 4, 64, true, Levenshtein, true, false},
		{"short unrelated", short, shortOther, 4, 64, false, Levenshtein, false, false},
		{"short beyond distance", short, shortEdit, 11, 64, false, "", false, false},
		{"tiny beyond the short distance", tiny, tinyEdit, 11, 64, true, Levenshtein, true, false},
		// One word apart, of 4 to 12 words: the tiny rule's measure
		// decides whatever the distance (Policy.TinyWords).
		{"tiny one word apart beyond distance", tiny, tinyEdit, 40, 64, true, Levenshtein, true, false},
		{"tiny two words apart beyond distance", tiny, tinyTwo, 15, 64, false, "", false, false},
		{"tiny and short beyond the short distance", tiny, shortEdit + " while the birds sang in the old oak tree", 11, 64, false, "", false, false},
		// The shorter text chooses the rule, the longer up to a quarter
		// longer: a tiny text and a copy with a few words more.
		{"tiny and a little longer", tiny, tinyEdit + " at dawn", 13, 64, true, Levenshtein, true, false},
		{"short and a little longer", long[:480], long[:480] + " and one more thing at the end", 9, 64, true, Levenshtein, true, false},
		{"short and a little longer beyond distance", long[:480], long[:480] + " and one more thing at the end", 11, 64, false, "", false, false},
		{"just long and a little longer", long[:520], long[:520] + " and one more thing at the end", 9, 64, false, "", false, false},
		{"tiny at 128 bits", tiny, tinyEdit, 28, 128, true, Levenshtein, true, false},
		{"long edit", long, longEdit, 3, 64, true, Jaccard, true, false},
		{"long unrelated", long, longOther, 3, 64, false, Jaccard, false, false},
		{"long beyond distance", long, longEdit, 7, 64, false, "", false, false},
		{"long at 128 bits", long, longEdit, 12, 128, true, Jaccard, true, false},
		{"long beyond 128-bit distance", long, longEdit, 13, 128, false, "", false, false},
		{"huge edit", huge, hugeEdit, 2, 64, true, Jaccard, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := sk(tc.a), sk(tc.b)
			dup, sim, s := p.Verify(a, b, tc.dist, tc.bits)
			if dup != tc.dup {
				t.Fatalf("dup = %v, want %v (sim %v, scores %+v)", dup, tc.dup, sim, s)
			}
			want := Scores{
				Jaccard:     similarity.Jaccard(a.Shingles(), b.Shingles()),
				Cosine:      similarity.Cosine(a.Vector(), b.Vector()),
				Levenshtein: similarity.LevenshteinRatio(a.Runes, b.Runes),
			}
			switch tc.measure {
			case "":
				if sim != 0 || s != (Scores{}) {
					t.Errorf("beyond the distance: sim %v, scores %+v, want zeros", sim, s)
				}
				return
			case Jaccard:
				near(t, "sim", sim, want.Jaccard)
			case Levenshtein:
				near(t, "sim", sim, want.Levenshtein)
			}
			if tc.allKnown {
				near(t, "jaccard", s.Jaccard, want.Jaccard)
				near(t, "cosine", s.Cosine, want.Cosine)
				if tc.noLev {
					if s.Levenshtein != 0 {
						t.Errorf("levenshtein = %v on a text over %d runes, want 0", s.Levenshtein, maxEditRunes)
					}
				} else {
					near(t, "levenshtein", s.Levenshtein, want.Levenshtein)
				}
			}
		})
	}
}

func TestPolicyVerifyWithoutTexts(t *testing.T) {
	p := DefaultPolicy()
	shortSketch := similarity.NewSketch([]byte("a short text"))
	tests := []struct {
		name string
		a    *similarity.Sketch
		dist int
		dup  bool
	}{
		{"unknown lengths judged as long, within", nil, 6, true},
		{"unknown lengths judged as long, beyond", nil, 7, false},
		{"one short text known: still long", shortSketch, 8, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dup, sim, s := p.Verify(tc.a, nil, tc.dist, 64)
			if dup != tc.dup {
				t.Errorf("dup = %v, want %v", dup, tc.dup)
			}
			near(t, "sim", sim, 1-float64(tc.dist)/64)
			if s != (Scores{}) {
				t.Errorf("scores %+v, want zeros", s)
			}
		})
	}
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if d := got - want; d > 1e-12 || d < -1e-12 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestVerifyBounded checks that the engine's verification, which may stop
// the edit distance of a pair it turns down early, decides every pair as
// Verify does and reports the same scores for duplicates.
func TestVerifyBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	words := strings.Fields("the of and to in is was for on that with as by at from his her it an are")
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	for _, min := range []float64{0.8, 0.5, 0.95, 0.6} {
		p := DefaultPolicy()
		p.Short.MinSimilarity, p.Tiny.MinSimilarity = min, min
		for i := range 400 {
			a := text(1 + r.IntN(60))
			b := a
			switch i % 3 {
			case 0:
				b = text(1 + r.IntN(60)) // unrelated
			case 1: // a few edits
				bs := []rune(b)
				for range 1 + r.IntN(len(bs)/3+1) {
					bs[r.IntN(len(bs))] = 'x'
				}
				b = string(bs)
			}
			sa, sb := similarity.NewSketch([]byte(a)), similarity.NewSketch([]byte(b))
			dup, sim, s := p.Verify(sa, sb, 3, 64)
			bdup, bsim, bs := p.verify(sa, sb, 3, 64, false, true, nil)
			if ddup, dsim := p.Decide(sa, sb, 3, 64); ddup != dup || dsim != sim {
				t.Fatalf("min %v, %q vs %q: Decide %v %v, Verify %v %v", min, a, b, ddup, dsim, dup, sim)
			}
			if dup != bdup || dup && (sim != bsim || s != bs) {
				t.Fatalf("min %v, %q vs %q: Verify %v %v %+v, bounded %v %v %+v", min, a, b, dup, sim, s, bdup, bsim, bs)
			}
			if !dup && (bsim < sim || bsim >= min) {
				t.Fatalf("min %v, %q vs %q: bounded sim %v for a turned-down pair of ratio %v", min, a, b, bsim, sim)
			}
		}
	}
}

// distinctCase is a pair the default policy calls duplicates at distance
// dist, and whether a switch that tells texts apart keeps it (checkDistinct).
type distinctCase struct {
	a, b string
	dist int
	keep bool
}

// checkDistinct checks that the policy with set applied turns down the
// cases that are not kept, with the score they had, and leaves the others
// duplicates.
func checkDistinct(t *testing.T, name string, set func(*Policy), cases []distinctCase) {
	t.Helper()
	sk := func(s string) *similarity.Sketch { return similarity.NewSketch([]byte(s)) }
	for _, tc := range cases {
		a, b := sk(tc.a), sk(tc.b)
		plain, sim := DefaultPolicy().Decide(a, b, tc.dist, 64)
		if !plain {
			t.Fatalf("%.40q and %.40q: not duplicates by default (sim %.3f): the test checks nothing", tc.a, tc.b, sim)
		}
		p := DefaultPolicy()
		set(&p)
		if dup, got := p.Decide(a, b, tc.dist, 64); dup != tc.keep || got != sim {
			t.Errorf("%.40q and %.40q with %s: duplicate %v (sim %.3f), want %v (sim %.3f)", tc.a, tc.b, name, dup, got, tc.keep, sim)
		}
	}
}

// TestPolicyDistinctNumbers checks that DistinctNumbers turns down the
// pairs that pass their rule but hold other numbers, at every rule, and
// leaves the others as they are.
func TestPolicyDistinctNumbers(t *testing.T) {
	long := strings.Repeat("The quarterly report shows steady growth across every region we serve. ", 10)
	checkDistinct(t, "DistinctNumbers", func(p *Policy) { p.DistinctNumbers = true }, []distinctCase{
		{"Your verification code is 482913. It expires in 10 minutes.", "Your verification code is 573201. It expires in 10 minutes.", 6, false},
		{"Your verification code is 482913. It expires in 10 minutes.", "Your verification code is 482913, it expires in 10 minutes", 2, true},
		{"The patient is allergic to penicillin.", "The patient is not allergic to penicillin.", 8, true},
		{long + "Revenue rose 12 percent.", long + "Revenue rose 21 percent.", 3, false},
		{long + "Revenue rose 12 percent.", long + "Revenue rose by 12 percent.", 3, true},
	})
}

// TestPolicyDistinctNegation checks that DistinctNegation turns down the
// pairs that pass their rule but where one text denies what the other
// says, short and long, and leaves the others as they are.
func TestPolicyDistinctNegation(t *testing.T) {
	long := strings.Repeat("The quarterly report shows steady growth across every region we serve. ", 10)
	checkDistinct(t, "DistinctNegation", func(p *Policy) { p.DistinctNegation = true }, []distinctCase{
		{"The patient is allergic to penicillin.", "The patient is not allergic to penicillin.", 8, false},
		{"The patient is allergic to penicillin.", "the patient is allergic to penicillin!", 0, true},
		{"我喜欢这个产品的设计", "我不喜欢这个产品的设计", 8, false},
		{long + "The merger will go ahead.", long + "The merger will not go ahead.", 3, false},
		{long + "The merger will go ahead.", long + "The merger will go ahead soon.", 3, true},
		{"Your verification code is 482913.", "Your verification code is 573201.", 6, true}, // numbers are DistinctNumbers' business
	})
}

// TestPolicyTinyWords checks the bounds of Policy.TinyWords: tiny texts one
// word apart beyond the tiny rule's distance are duplicates when both have
// 4 to TinyWords words, not with fewer or more words, nor with TinyWords
// 0, and Validate refuses values out of range.
func TestPolicyTinyWords(t *testing.T) {
	sk := func(s string) *similarity.Sketch { return similarity.NewSketch([]byte(s)) }
	for _, tc := range []struct {
		a, b  string
		words int
		dup   bool
	}{
		{"a man is playing a guitar", "a man is playing the guitar", 12, true},
		{"a man is playing a guitar", "a man is playing a guitar now", 12, true},
		{"a man is playing a guitar", "a man is playing guitar", 12, true},
		{"a man is playing a guitar", "a man is playing the guitar", 0, false},
		{"a man is playing a guitar", "a man is playing the guitar", 5, false}, // 6 words each
		{"a man is playing a guitar", "a man is playing the guitar", 6, true},
		{"the man sings", "the man sang", 12, false}, // 3 words
		{"the man sings well", "the man sang well", 12, true},
		{"我们今天去", "我们明天去", 12, true}, // each Han character a word
	} {
		p := DefaultPolicy()
		p.TinyWords = tc.words
		const dist = 40
		if dup, sim := p.Decide(sk(tc.a), sk(tc.b), dist, 64); dup != tc.dup {
			t.Errorf("TinyWords %d: %q and %q %d bits apart: duplicate %v (sim %.3f), want %v", tc.words, tc.a, tc.b, dist, dup, sim, tc.dup)
		}
	}
	for _, w := range []int{-1, 1, 3, 65} {
		p := DefaultPolicy()
		p.TinyWords = w
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "tiny words") {
			t.Errorf("TinyWords %d: Validate gave %v, want an error naming tiny words", w, err)
		}
	}
}

// TestPolicyPartial checks that a Policy filled in part (one rule set, the
// others zero) is refused with a message that says how to make one, not
// only that a measure "" is unknown.
func TestPolicyPartial(t *testing.T) {
	p := Policy{Long: Rule{MaxDistance: 3, Measure: Jaccard, MinSimilarity: 0.5}}
	err := p.Validate()
	if err == nil || !strings.Contains(err.Error(), "policy short rule unset") || !strings.Contains(err.Error(), "start from DefaultPolicy()") {
		t.Errorf("Validate of a Policy with only its Long rule: %v", err)
	}
}
