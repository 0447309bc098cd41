package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/nilsimsa"
	"github.com/neardup/neardup/similarity"
)

// comparison is what compare reports for a pair of texts, on the terminal
// or as one JSON object.
type comparison struct {
	// Line is the pair's line in the --pairs input (1-based), 0 otherwise.
	Line int `json:"line,omitempty"`
	// ID is the pair's "id" field in the --pairs input, as written.
	ID json.RawMessage `json:"id,omitempty"`
	// The rest is what compare measures, for one pair or on each line.
	Profile          string  `json:"profile"`
	Bits             int     `json:"bits"`
	A                string  `json:"a_fingerprint"`
	B                string  `json:"b_fingerprint"`
	Distance         int     `json:"distance"`
	Similarity       float64 `json:"similarity"`
	Jaccard          float64 `json:"jaccard"`
	Cosine           float64 `json:"cosine"`
	LevenshteinRatio float64 `json:"levenshtein_ratio"`
	Duplicate        bool    `json:"duplicate"`
	// Empty is set when A or B has nothing to compare once normalized
	// (emptyText): such a pair is never a duplicate, as in cluster.
	Empty bool `json:"empty,omitempty"`
	// NilsimsaScore is the nilsimsa reference's score, 128 - distance, for
	// the nilsimsa profile only.
	NilsimsaScore *int `json:"nilsimsa_score,omitempty"`

	emptyA, emptyB bool   // which of A and B is empty (Empty)
	why            string // the decision in words, for the table (decisionWhy)
}

// decisionWhy says in words why policy p decided as it did for a pair of
// normalized texts of n and m runes, distance bits apart at the given
// width, with scores s, oneWord when they are one word apart
// (Policy.OneWordApart): which rule judged it, and the bound or threshold
// that decided. refused says why a pair whose score passes is no
// duplicate (its numbers or negations differ), as ", but ...".
func decisionWhy(p neardup.Policy, n, m, distance, bits int, s similarity.Scores, dup, oneWord bool, refused string) string {
	r, rule := p.RuleFor(n, m)
	which := fmt.Sprintf("long rule (the shorter text of %d characters or more, or the longer of %d or more)", p.ShortLength, p.ShortCap())
	flag := "--k" // the flag that sets the rule's distance
	switch rule {
	case neardup.RuleShort:
		which, flag = fmt.Sprintf("short rule (the shorter text under %d characters, the longer under %d)", p.ShortLength, p.ShortCap()), "--short-k"
	case neardup.RuleTiny:
		which, flag = fmt.Sprintf("tiny rule (the shorter text under %d characters, the longer under %d)", p.TinyLength, p.TinyCap()), "--tiny-k"
	}
	bound := r.MaxDistanceAt(bits)
	name, score := "Levenshtein ratio", s.Levenshtein
	switch r.Measure {
	case neardup.Jaccard:
		name, score = "Jaccard", s.Jaccard
	case neardup.Cosine:
		name, score = "cosine", s.Cosine
	}
	verdict := "at least"
	if !dup {
		verdict = "under"
	}
	// A score that passes and no duplicate: their numbers or negations
	// differ.
	numbers := ""
	if !dup && score >= r.MinSimilarity {
		numbers, verdict = refused, "at least"
	}
	if distance > bound && rule == neardup.RuleTiny && oneWord {
		return fmt.Sprintf("%s: %d bits apart, more than its %d, but one word apart (of %d words at most, --tiny-words), and the %s %.4f is %s %g%s", which, distance, bound, p.TinyWords, name, score, verdict, r.MinSimilarity, numbers)
	}
	if distance > bound {
		why := fmt.Sprintf("%s: %d bits apart, more than its %d, so the texts are not compared", which, distance, bound)
		// The flag that would let them be compared, in bits per 64,
		// unless their numbers or negations tell them apart all the same.
		k := (distance*64 + bits - 1) / bits
		switch {
		case score < r.MinSimilarity:
		case refused != "":
			why += fmt.Sprintf(" (their %s %.4f would pass%s)", name, score, refused)
		case k <= 32:
			why += fmt.Sprintf(" (their %s %.4f would pass: %s %d calls them duplicates)", name, score, flag, k)
		}
		return why
	}
	return fmt.Sprintf("%s: within its %d bits, and the %s %.4f is %s %g%s", which, bound, name, score, verdict, r.MinSimilarity, numbers)
}

// emptyNote explains, for compare's table, why a pair with an empty text
// is no duplicate, or returns "" when neither text is empty.
func (c *comparison) emptyNote() string {
	which := ""
	switch {
	case c.emptyA && c.emptyB:
		which = "A and B are"
	case c.emptyA:
		which = "A is"
	case c.emptyB:
		which = "B is"
	default:
		return ""
	}
	return which + " empty once normalized: nothing to compare, so no duplicate (as in cluster)"
}

// isDuplicate is compare's decision for a pair: the engine's verification
// policy p (neardup.DefaultPolicy, or as --k, --short-k, --short-min and
// --long-min change it), the same test dedup and the service apply with
// those flags, with distance bounds scaled to the fingerprint width.
func isDuplicate(p neardup.Policy, a, b *similarity.Sketch, distance, bits int) bool {
	dup, _ := p.Decide(a, b, distance, bits)
	return dup
}

// comparePolicy returns the policy compare decides by: the default one,
// with the distance and thresholds the flags give.
func comparePolicy(pf *policyFlags, k int) (neardup.Policy, error) {
	def := neardup.DefaultPolicy()
	if err := checkDistance("k", k, def.Long.MaxDistance); err != nil {
		return def, err
	}
	var o neardup.Options
	if err := pf.apply(&o); err != nil {
		return def, err
	}
	p := def
	if o.Policy != (neardup.Policy{}) {
		p = o.Policy
	}
	if k != 0 {
		p.Long.MaxDistance = k
	}
	return p, nil
}

// compareDecisionHelp describes isDuplicate's decision, by policy p, for
// compare's help, wrapped at 76 columns.
func compareDecisionHelp(p neardup.Policy) string {
	rule := func(r neardup.Rule) string {
		name := map[neardup.Measure]string{neardup.Jaccard: "Jaccard similarity", neardup.Cosine: "cosine similarity", neardup.Levenshtein: "Levenshtein ratio"}[r.Measure]
		return fmt.Sprintf("at most %d bits apart per 64 and their %s is at least %g", r.MaxDistance, name, r.MinSimilarity)
	}
	text := fmt.Sprintf("The duplicate decision is the engine's default verification policy "+
		"(neardup.DefaultPolicy), the test dedup and serve apply: a pair whose shorter text "+
		"has fewer than %d normalized characters (and the longer fewer than %d) is a duplicate "+
		"when the fingerprints are %s; one whose shorter text has fewer than %d (and the longer "+
		"fewer than %d), when they are %s; any other pair when they are %s. The distances scale with the width: twice as many "+
		"bits at 128, four times at nilsimsa's 256. --k, --short-k, --tiny-k, --tiny-length, "+
		"--short-min and --long-min change it as they change dedup's, cluster's and serve's.",
		p.TinyLength, p.TinyCap(), rule(p.Tiny), p.ShortLength, p.ShortCap(), rule(p.Short), rule(p.Long))
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		if n > 0 && n+1+len(w) > 76 {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// compareTexts fingerprints and measures a pair of texts; the measures
// take them as fp, made with cfg, reads them (Config.Measured: the
// visible text with --html, the main text with --main-text, without
// accents with --fold-accents). A pair
// where a text is empty once normalized (emptyText: white space or
// invisible characters only, or markup only with --html) is no duplicate
// whatever the measures say, as cluster, which never groups such texts,
// decides.
func compareTexts(fp neardup.Fingerprinter, cfg neardup.Config, p neardup.Policy, profile string, a, b []byte) (comparison, error) {
	fa, fb := fp.Fingerprint(a), fp.Fingerprint(b)
	d, err := fingerprintDistance(fa, fb)
	if err != nil {
		return comparison{}, err
	}
	var sc analysis.Scratch
	emptyA, emptyB := emptyText(&sc, string(a), cfg), emptyText(&sc, string(b), cfg)
	a, b = cfg.Measured(a), cfg.Measured(b)
	sa, sb := similarity.NewSketch(a), similarity.NewSketch(b)
	s := similarity.Compare(sa, sb)
	dup := isDuplicate(p, sa, sb, d, fp.Bits())
	var score *int
	if fp.Bits() == 8*nilsimsa.Size {
		score = new(int)
		*score = 128 - d
	}
	return comparison{
		NilsimsaScore:    score,
		Profile:          profile,
		Bits:             fp.Bits(),
		A:                fa.String(),
		B:                fb.String(),
		Distance:         d,
		Similarity:       1 - float64(d)/float64(fp.Bits()),
		Jaccard:          s.Jaccard,
		Cosine:           s.Cosine,
		LevenshteinRatio: s.Levenshtein,
		Duplicate:        !emptyA && !emptyB && dup,
		Empty:            emptyA || emptyB,
		emptyA:           emptyA,
		emptyB:           emptyB,
		why:              decisionWhy(p, sa.Len(), sb.Len(), d, fp.Bits(), s, dup, p.OneWordApart(sa, sb), refusal(p, sa, sb)),
	}, nil
}

// refusal says why p turns down a pair of sketches a and b whatever their
// scores (Policy.ToldApartBy), as decisionWhy words it, or returns "".
func refusal(p neardup.Policy, a, b *similarity.Sketch) string {
	switch p.ToldApartBy(a, b) {
	case "numbers":
		return ", but their numbers differ (--distinct-numbers)"
	case "negation":
		return ", but their words of negation differ (--distinct-negation)"
	}
	return ""
}

// newCompareCmd returns `neardup compare`.
func newCompareCmd() *cobra.Command {
	var (
		ff      fingerprintFlags
		pf      policyFlags
		longK   int
		asJSON  bool
		pairs   string
		maxLine int
	)
	cmd := &cobra.Command{
		Use:   "compare [--profile NAME] [--json] A B | compare --pairs FILE.jsonl",
		Short: "Compare two texts: fingerprint distance and every similarity measure",
		Long: `Compare prints, for texts A and B, their fingerprints, the Hamming distance,
the similarity 1 - distance/bits, the Jaccard similarity of their character
3-grams (2-grams from CJK characters), the cosine similarity of their
term-frequency vectors, the Levenshtein ratio of their normalized texts (for
texts of several sentences, the higher of the texts as they run and with the
sentences of one in the other's order), and
the duplicate decision, with a line (why) that names the rule that made it
and the bound or threshold that decided. A and B are the texts themselves,
or @path to read a file ("@-" reads standard input, so only one of A and B
can be "@-"; a file compressed with gzip, zstd, bzip2 or xz is read
decompressed, as the --pairs file is); a text that starts with "@" is written with "@@" ("@@home" is
the text "@home").

` + compareDecisionHelp(neardup.DefaultPolicy()) + `

With --pairs FILE.jsonl (or - for standard input), each line holds a JSON
object {"a": "...", "b": "..."}, optionally with an "id" of any JSON type
(other fields are ignored), and compare prints one JSON object per pair, in
order: "line" (the pair's line number in the input, from 1), "id" (as
given, when the pair has one), then the fields of --json ("profile",
"bits", "a_fingerprint", "b_fingerprint", "distance", "similarity",
"jaccard", "cosine", "levenshtein_ratio", "duplicate", "empty" when a text
is empty, and "nilsimsa_score" for nilsimsa). Blank lines are skipped, so
match output to input by "line" or "id"; a byte order mark at the start of
the file is ignored. A line that is not such an object, or whose "id" is
not valid UTF-8 (it could not be copied into JSON output as it is), is an
error naming the line (exit status 2).

A text that is empty once normalized (white space or invisible characters
only, or with --html markup only) has nothing to compare: a pair with one
is no duplicate, as cluster never groups such texts, whatever the measures
say; the table adds a note, JSON output "empty": true.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fp, cfg, err := ff.fingerprinter(cmd)
			if err != nil {
				return err
			}
			policy, err := comparePolicy(&pf, longK)
			if err != nil {
				return err
			}
			profile := ff.profile
			if ff.algo == "nilsimsa" {
				profile = "nilsimsa"
			}
			if pairs != "" {
				if len(args) != 0 {
					return usagef("compare --pairs takes no text arguments")
				}
				return comparePairs(cmd, fp, cfg, policy, profile, pairs, maxLine)
			}
			if len(args) != 2 {
				return usagef("compare needs two texts A and B (or --pairs FILE), got %d arguments", len(args))
			}
			if args[0] == "@-" && args[1] == "@-" {
				return usagef(`compare: A and B are both "@-", but standard input can be read once; give one of them as a file or text`)
			}
			a, err := readTextArg(cmd, "A", args[0])
			if err != nil {
				return err
			}
			b, err := readTextArg(cmd, "B", args[1])
			if err != nil {
				return err
			}
			c, err := compareTexts(fp, cfg, policy, profile, a, b)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return newJSONEncoder(out).Encode(c)
			}
			_, err = fmt.Fprintf(out, "profile            %s (%d bits)\nfingerprint A      %s\nfingerprint B      %s\n"+
				"distance           %d\nsimilarity         %.4f\njaccard            %.4f\ncosine             %.4f\n"+
				"levenshtein_ratio  %.4f\nduplicate          %t\n",
				c.Profile, c.Bits, c.A, c.B, c.Distance, c.Similarity, c.Jaccard, c.Cosine, c.LevenshteinRatio, c.Duplicate)
			if err == nil && c.NilsimsaScore != nil {
				_, err = fmt.Fprintf(out, "nilsimsa_score     %d\n", *c.NilsimsaScore)
			}
			if note := c.emptyNote(); err == nil && note != "" {
				_, err = fmt.Fprintf(out, "note               %s\n", note)
			} else if err == nil {
				_, err = fmt.Fprintf(out, "why                %s\n", c.why)
			}
			return err
		},
	}
	ff.register(cmd)
	pf.addFlags(cmd.Flags(), false)
	cmd.Flags().IntVar(&longK, "k", 0, longKUsage())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of a table")
	cmd.Flags().StringVar(&pairs, "pairs", "", `compare each {"a": ..., "b": ...} line of a JSON Lines file ("-" for standard input)`)
	cmd.Flags().IntVar(&maxLine, "max-line", defaultMaxLine, "longest --pairs line accepted, in bytes")
	return cmd
}

// readTextArg returns the text of a compare argument: the argument itself,
// or the contents of the file it names after '@' ("@-" is standard input),
// decompressed when compressed; "@@" stands for a literal '@' at the start of the text.
// A file that cannot be opened or read is a usage error naming the
// argument (which, A or B) and its hint for a literal '@'.
func readTextArg(cmd *cobra.Command, which, arg string) ([]byte, error) {
	if strings.HasPrefix(arg, "@@") {
		return []byte(arg[1:]), nil
	}
	path, ok := strings.CutPrefix(arg, "@")
	if !ok {
		return []byte(arg), nil
	}
	var b []byte
	err := withInput(cmd, path, func(r io.Reader) error {
		var err error
		if b, err = io.ReadAll(r); err != nil {
			return usagef("read %s: %v", inputName(path), ioCause(err))
		}
		return nil
	})
	if err != nil && path != "-" {
		return nil, usagef("compare: %s is %q, which reads the file %s: %v (for a text that starts with @, write @@: %q)", which, arg, path, unprefixed{err}, "@"+arg)
	}
	return b, err
}

// comparePairs runs compare on every line of a JSON Lines file.
func comparePairs(cmd *cobra.Command, fp neardup.Fingerprinter, cfg neardup.Config, policy neardup.Policy, profile string, name string, maxLine int) error {
	if maxLine < 1 {
		return usagef("--max-line must be positive, not %d", maxLine)
	}
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	enc := newJSONEncoder(out)
	err := withInput(cmd, name, func(r io.Reader) error {
		return eachLine(r, name, maxLine, func(n int, line []byte) error {
			if n == 1 {
				line = bytes.TrimPrefix(line, []byte(utf8BOM))
			}
			if len(bytes.TrimSpace(line)) == 0 {
				return nil
			}
			var p struct {
				A  json.RawMessage `json:"a"`
				B  json.RawMessage `json:"b"`
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(line, &p); err != nil {
				var te *json.UnmarshalTypeError
				if errors.As(err, &te) {
					return usagef(`%s: line %d: want an object {"a": ..., "b": ...}, got a JSON %s`, inputName(name), n, strings.TrimPrefix(strings.TrimPrefix(jsonKind(line), "an "), "a "))
				}
				return usagef("%s: line %d: %v", inputName(name), n, err)
			}
			if jsonKind(line) == "null" {
				return usagef(`%s: line %d: want an object {"a": ..., "b": ...}, got null`, inputName(name), n)
			}
			if !utf8.Valid(p.ID) {
				// It is copied to the output as written, which would not
				// be JSON.
				return usagef(`%s: line %d: field "id" is not valid UTF-8`, inputName(name), n)
			}
			var ab [2]string
			for i, v := range []json.RawMessage{p.A, p.B} {
				f := string(rune('a' + i))
				if v == nil {
					return usagef(`%s: line %d: want an object with string fields "a" and "b", no %q field`, inputName(name), n, f)
				}
				if k := jsonKind(v); k != "a string" {
					return usagef(`%s: line %d: field %q is %s; want a string`, inputName(name), n, f, k)
				}
				if err := json.Unmarshal(v, &ab[i]); err != nil {
					return usagef("%s: line %d: field %q: %v", inputName(name), n, f, err)
				}
			}
			c, err := compareTexts(fp, cfg, policy, profile, []byte(ab[0]), []byte(ab[1]))
			if err != nil {
				return err
			}
			c.Line, c.ID = n, p.ID
			return enc.Encode(c)
		})
	})
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}
