package main

import (
	"fmt"

	"github.com/neardup/neardup"
	"github.com/spf13/pflag"
)

// policyFlags are the thresholds of the engine's policy that dedup,
// cluster and serve take beyond --k: --short-k, --tiny-k, --tiny-length
// and --tiny-words, --distinct-numbers and --distinct-negation, and the
// smallest score of each rule's measure, --short-min (of the tiny rule
// too) and --long-min.
type policyFlags struct {
	shortK, tinyK, tinyLength, tinyWords int
	shortMin, longMin                    float64
	distinctNumbers, distinctNegation    bool
}

// longKUsage is the help of --k, the long texts' distance, of the commands
// that take the policy's distances (compare, dedup, cluster, serve).
func longKUsage() string {
	return fmt.Sprintf("Hamming distance within which long texts are candidates, 0 to 32 bits per 64 (doubled at --bits 128); 0 means the policy's default, %d", neardup.DefaultPolicy().Long.MaxDistance)
}

// addFlags defines the flags on f; env, if true, names each flag's
// environment variable in its help (serve reads them).
func (pf *policyFlags) addFlags(f *pflag.FlagSet, env bool) {
	def := neardup.DefaultPolicy()
	note := func(name string) string {
		if !env {
			return ""
		}
		return " (" + name + ")"
	}
	f.IntVar(&pf.shortK, "short-k", 0, fmt.Sprintf("Hamming distance within which short texts (the shorter under %d characters, the longer under %d) are candidates, in bits per 64 (doubled at --bits 128); 0 means the policy's default, %d", def.ShortLength, def.ShortCap(), def.Short.MaxDistance)+note("NEARDUP_SHORT_K"))
	f.IntVar(&pf.tinyK, "tiny-k", 0, fmt.Sprintf("Hamming distance within which tiny texts (the shorter under --tiny-length characters, a few words, the longer under a quarter more) are candidates, in bits per 64 (doubled at --bits 128); 0 means the policy's default, %d", def.Tiny.MaxDistance)+note("NEARDUP_TINY_K"))
	f.IntVar(&pf.tinyLength, "tiny-length", def.TinyLength, fmt.Sprintf("length in normalized characters under which a text is tiny, at most %d; 0: no text is tiny (the short rule judges them)", def.ShortLength)+note("NEARDUP_TINY_LENGTH"))
	f.IntVar(&pf.tinyWords, "tiny-words", def.TinyWords, "most words (4 at least; each Han, Kana or Hangul character a word) of two tiny texts that are duplicates whatever their distance when they are one word apart, a word replaced, inserted or deleted, and their scores pass; at most 64, 0: none are (the tiny rule's distance alone finds candidates)"+note("NEARDUP_TINY_WORDS"))
	f.BoolVar(&pf.distinctNumbers, "distinct-numbers", false, "texts whose numbers differ (the runs of digits, in order) are never duplicates, whatever their scores: verification codes, prices, versions of one template are told apart; by default a repost with a figure changed, or spam with a new code, is a duplicate"+note("NEARDUP_DISTINCT_NUMBERS"))
	f.BoolVar(&pf.distinctNegation, "distinct-negation", false, "texts with more or fewer words of negation than each other (not, never, n't, 不, 没, nicht, pas...) are never duplicates, whatever their scores: \"is allergic\" and \"is not allergic\" are told apart; by default a copy with one word changed is a duplicate whatever the word"+note("NEARDUP_DISTINCT_NEGATION"))
	f.Float64Var(&pf.shortMin, "short-min", def.Short.MinSimilarity, "smallest "+string(def.Short.Measure)+" score that confirms a short or tiny text's candidate as a duplicate, 0 to 1"+note("NEARDUP_SHORT_MIN"))
	f.Float64Var(&pf.longMin, "long-min", def.Long.MinSimilarity, "smallest "+string(def.Long.Measure)+" score that confirms a long text's candidate as a duplicate, 0 to 1; a higher value (0.7) turns down more pairs of different mails that share boilerplate"+note("NEARDUP_LONG_MIN"))
}

// apply checks the flags and sets o.Policy from them, leaving it zero (the
// default policy) when none differs from the default.
func (pf *policyFlags) apply(o *neardup.Options) error {
	def := neardup.DefaultPolicy()
	if err := checkDistance("short-k", pf.shortK, def.Short.MaxDistance); err != nil {
		return err
	}
	if err := checkDistance("tiny-k", pf.tinyK, def.Tiny.MaxDistance); err != nil {
		return err
	}
	if pf.tinyLength < 0 || pf.tinyLength > def.ShortLength {
		return usagef("--tiny-length %d: want 0 to %d characters (0: no text is tiny)", pf.tinyLength, def.ShortLength)
	}
	if pf.tinyWords < 0 || pf.tinyWords > 64 || pf.tinyWords > 0 && pf.tinyWords < 4 {
		return usagef("--tiny-words %d: want 0 (none are found by their words) or 4 to 64 words (texts of fewer than 4 never are)", pf.tinyWords)
	}
	for _, m := range []struct {
		flag string
		v    float64
	}{{"short-min", pf.shortMin}, {"long-min", pf.longMin}} {
		if !(m.v >= 0 && m.v <= 1) {
			return usagef("--%s %v: want a score from 0 to 1", m.flag, m.v)
		}
	}
	p := def
	if pf.shortK != 0 {
		p.Short.MaxDistance = pf.shortK
	}
	if pf.tinyK != 0 {
		p.Tiny.MaxDistance = pf.tinyK
	}
	p.TinyLength = pf.tinyLength
	p.TinyWords = pf.tinyWords
	p.DistinctNumbers = pf.distinctNumbers
	p.DistinctNegation = pf.distinctNegation
	p.Short.MinSimilarity = pf.shortMin
	p.Tiny.MinSimilarity = pf.shortMin
	p.Long.MinSimilarity = pf.longMin
	if p != def {
		o.Policy = p
	}
	return nil
}
