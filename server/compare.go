package server

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/similarity"
)

// maxCompareRunes bounds each text of /v1/compare, normalized: the exact
// edit distance costs time quadratic in the length, so longer texts are
// refused (413) instead of tying up a core for seconds.
const maxCompareRunes = 50000

// fingerprinters caches one Fingerprinter per profile and width. Only
// configurations NewFingerprinter accepts are cached, so it stays small.
type fingerprinters struct {
	def neardup.Config
	mu  sync.Mutex
	m   map[fingerprinterKey]neardup.Fingerprinter
}

type fingerprinterKey struct {
	profile string
	bits    int
}

func newFingerprinters(def neardup.Config) *fingerprinters {
	if def.Profile == "" {
		def.Profile = "default" // so that a request naming it gets def
	}
	return &fingerprinters{def: def, m: make(map[fingerprinterKey]neardup.Fingerprinter)}
}

// measured returns what the policy measures of text when the
// fingerprinter get gives for profile reads it (Config.Measured): the
// server's own pipeline may read HTML or fold accents; profile names no
// other, which takes the text as it is.
func (f *fingerprinters) measured(profile string, text []byte) []byte {
	d := f.def
	if profile != "" && profile != d.Profile {
		return text
	}
	return d.Measured(text)
}

// get returns the Fingerprinter for profile and bits; "" and 0 mean the
// server's configured ones.
func (f *fingerprinters) get(profile string, bits int) (neardup.Fingerprinter, string, error) {
	cfg := f.def
	if profile != "" && profile != cfg.Profile {
		cfg = neardup.Config{Profile: profile}
	}
	if bits != 0 {
		cfg.Bits = bits
	}
	if cfg.Profile == "" {
		cfg.Profile = "default"
	}
	key := fingerprinterKey{cfg.Profile, cfg.Bits}
	f.mu.Lock()
	defer f.mu.Unlock()
	fp, ok := f.m[key]
	if !ok {
		var err error
		if fp, err = neardup.NewFingerprinter(cfg); err != nil {
			// The library's own detail names the profile, the width and
			// what it knows; its package prefix and sentinel say nothing
			// more.
			return nil, "", badRequest(strings.TrimPrefix(err.Error(), neardup.ErrProfile.Error()+": "))
		}
		f.m[key] = fp
	}
	// A profile of one width (nilsimsa) ignores the library's Bits; a
	// width asked for is either made or refused.
	if bits != 0 && fp.Bits() != bits {
		return nil, "", badRequest(fmt.Sprintf(`"bits": profile %q makes %d-bit fingerprints, not %d-bit`, cfg.Profile, fp.Bits(), bits))
	}
	return fp, cfg.Profile, nil
}

// fingerprintIn is the body of POST /v1/fingerprint.
type fingerprintIn struct {
	Text    string  `json:"text"`
	Profile string  `json:"profile"`
	Bits    jsonInt `json:"bits"`
	// Algo is "simhash" or "nilsimsa"; "nilsimsa" is the same as profile
	// "nilsimsa".
	Algo string `json:"algo"`
}

// fingerprintOut is the response to POST /v1/fingerprint.
type fingerprintOut struct {
	Fingerprint string `json:"fingerprint"`
	Bits        int    `json:"bits"`
	Profile     string `json:"profile"`
}

// profileOf resolves the profile a request names by "profile" and "algo".
func profileOf(profile, algo string) (string, error) {
	switch algo {
	case "", "simhash":
		if algo == "simhash" && profile == "nilsimsa" {
			return "", badRequest(`"algo" "simhash" contradicts "profile" "nilsimsa"`)
		}
		return profile, nil
	case "nilsimsa":
		if profile != "" && profile != "nilsimsa" {
			return "", badRequest(fmt.Sprintf(`"algo" "nilsimsa" contradicts "profile" %q`, profile))
		}
		return "nilsimsa", nil
	}
	return "", badRequest(fmt.Sprintf(`"algo" is %q; it must be "simhash" or "nilsimsa"`, algo))
}

func (s *Server) handleFingerprint(w http.ResponseWriter, r *http.Request) {
	b, err := s.readBody(w, r)
	if err != nil {
		writeError(w, engineError(err))
		return
	}
	var in fingerprintIn
	if err := decodeStrict(b, &in); err != nil {
		writeError(w, engineError(err))
		return
	}
	profile, err := profileOf(in.Profile, in.Algo)
	if err != nil {
		writeError(w, engineError(err))
		return
	}
	if strings.TrimSpace(in.Text) == "" {
		writeError(w, errMissingText)
		return
	}
	fpr, profile, err := s.fps.get(profile, int(in.Bits))
	if err != nil {
		writeError(w, engineError(err))
		return
	}
	text := []byte(in.Text)
	visible := s.fps.measured(profile, text)
	var sc analysis.Scratch
	if sc.NormalizedLen(visible) == 0 {
		// Zero-width characters only, say: the engine would refuse to store
		// it, and its fingerprint would be that of nothing.
		writeError(w, newError(http.StatusBadRequest, "missing_text", `"text" has no visible text`))
		return
	}
	fp := fpr.Fingerprint(text)
	s.writeJSON(w, http.StatusOK, fingerprintOut{Fingerprint: fp.String(), Bits: fp.Bits(), Profile: profile})
}

// compareIn is the body of POST /v1/compare.
type compareIn struct {
	A       *string `json:"a"`
	B       *string `json:"b"`
	Profile string  `json:"profile"`
	Bits    jsonInt `json:"bits"`
}

// compareOut is the response to POST /v1/compare.
type compareOut struct {
	Profile      string `json:"profile"`
	Bits         int    `json:"bits"`
	FingerprintA string `json:"fingerprint_a"`
	FingerprintB string `json:"fingerprint_b"`
	Distance     int    `json:"distance"`
	// FingerprintSimilarity is 1 - distance/bits.
	FingerprintSimilarity float64        `json:"fingerprint_similarity"`
	Scores                neardup.Scores `json:"scores"`
	// Duplicate and Similarity are the verdict of the server's policy and
	// the score of the measure its rule uses (0 when the distance alone
	// rules the pair out).
	Duplicate  bool    `json:"duplicate"`
	Similarity float64 `json:"similarity"`
	// Rule is the policy's rule that judged the pair, so that a client
	// can say why.
	Rule compareRule `json:"rule"`
}

// compareRule is the rule of the policy that judged a compared pair
// (neardup.Policy.RuleFor: the tiny or the short rule when the shorter
// text is under the policy's tiny or short length, in normalized
// characters, and the longer under a quarter more; else the long one),
// with its bounds at the fingerprints' width.
type compareRule struct {
	// Name is "tiny", "short" or "long" (neardup.Policy.RuleFor).
	Name string `json:"name"`
	// MaxDistance is the distance within which the pair is verified, in
	// bits of this width (the policy's 64-bit bound, scaled).
	MaxDistance int `json:"max_distance"`
	// Measure and MinSimilarity are what verifies it.
	Measure       neardup.Measure `json:"measure"`
	MinSimilarity float64         `json:"min_similarity"`
	// OneWordApart says that the rule is the tiny one and the texts are
	// one word apart (neardup.Policy.OneWordApart): they are verified
	// whatever their distance.
	OneWordApart bool `json:"one_word_apart,omitempty"`
	// ToldApartBy, for a pair the rule's measure passes but the policy
	// turns down, says why (neardup.Policy.ToldApartBy): "numbers" or
	// "negation". A pair beyond the rule's distance gets it too when its
	// measure would pass: no distance makes it a duplicate.
	ToldApartBy string `json:"told_apart_by,omitempty"`
}

// ruleOf returns the rule of policy p that judges a pair of normalized
// texts of n and m runes, at the given width.
func ruleOf(p neardup.Policy, n, m, bits int) compareRule {
	r, name := p.RuleFor(n, m)
	return compareRule{Name: name, MaxDistance: r.MaxDistanceAt(bits), Measure: r.Measure, MinSimilarity: r.MinSimilarity}
}

func (s *Server) handleCompare(w http.ResponseWriter, r *http.Request) {
	out, err := s.compare(w, r)
	if err != nil {
		writeError(w, engineError(err))
		return
	}
	s.writeJSON(w, http.StatusOK, out)
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) (compareOut, error) {
	b, err := s.readBody(w, r)
	if err != nil {
		return compareOut{}, err
	}
	var in compareIn
	if err := decodeStrict(b, &in); err != nil {
		return compareOut{}, err
	}
	if in.A == nil || in.B == nil {
		return compareOut{}, badRequest(`give both texts, "a" and "b"`)
	}
	for _, t := range []struct{ name, text string }{{"a", *in.A}, {"b", *in.B}} {
		if strings.TrimSpace(t.text) == "" {
			// Nothing to compare: no features, fingerprints of nothing.
			return compareOut{}, newError(http.StatusBadRequest, "missing_text", fmt.Sprintf("%q is empty", t.name))
		}
	}
	fpr, profile, err := s.fps.get(in.Profile, int(in.Bits))
	if err != nil {
		return compareOut{}, err
	}
	ta, tb := []byte(*in.A), []byte(*in.B)
	// Measured as the engine measures them: the visible text of pages,
	// say.
	va, vb := s.fps.measured(in.Profile, ta), s.fps.measured(in.Profile, tb)
	sa, sb := similarity.NewSketch(va), similarity.NewSketch(vb)
	// The measures work on the normalized texts, which NFKC can make
	// longer (one character may become 18) or shorter, and which may be
	// empty (zero-width characters only): the limits apply to them.
	for _, t := range []struct {
		name string
		s    *similarity.Sketch
	}{{"a", sa}, {"b", sb}} {
		if n := t.s.Len(); n == 0 {
			return compareOut{}, newError(http.StatusBadRequest, "missing_text", fmt.Sprintf("%q has no visible text", t.name))
		} else if n > maxCompareRunes {
			return compareOut{}, newError(http.StatusRequestEntityTooLarge, "text_too_large",
				fmt.Sprintf("%q has %d characters once normalized; compare takes at most %d", t.name, n, maxCompareRunes))
		}
	}
	fa, fb := fpr.Fingerprint(ta), fpr.Fingerprint(tb)
	d, err := neardup.Distance(fa, fb)
	if err != nil {
		return compareOut{}, err
	}
	// Decide skips the measure once the distance alone rules a pair out;
	// the page shows every measure regardless.
	dup, sim := s.opts.Policy.Decide(sa, sb, d, fa.Bits())
	scores := similarity.Compare(sa, sb)
	rule := ruleOf(*s.opts.Policy, sa.Len(), sb.Len(), fa.Bits())
	rule.OneWordApart = rule.Name == "tiny" && s.opts.Policy.OneWordApart(sa, sb)
	// A pair beyond the distance has its measure in scores alone (Decide
	// does not compute it): one that would pass is told apart all the
	// same, so the page suggests no distance that would call it a
	// duplicate.
	measured := sim
	if d > rule.MaxDistance && !rule.OneWordApart {
		measured = score(scores, measureBit(rule.Measure))
	}
	if !dup && measured >= rule.MinSimilarity {
		rule.ToldApartBy = s.opts.Policy.ToldApartBy(sa, sb)
	}
	return compareOut{
		Profile:               profile,
		Bits:                  fa.Bits(),
		FingerprintA:          fa.String(),
		FingerprintB:          fb.String(),
		Distance:              d,
		FingerprintSimilarity: 1 - float64(d)/float64(fa.Bits()),
		Scores:                scores,
		Duplicate:             dup,
		Similarity:            sim,
		Rule:                  rule,
	}, nil
}
