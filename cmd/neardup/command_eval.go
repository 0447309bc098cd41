package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/eval"
	"github.com/neardup/neardup/internal/decompress"
)

// evalFlags are the flags every eval subcommand shares: what to score with
// and where to write the report.
type evalFlags struct {
	input      string
	name       string
	out        string
	jsonOut    bool
	profiles   []string
	bits       int
	k          int
	nilsimsaK  int
	policy     bool
	policyVars []string
	grid       bool
	gridK      []int
	policyPipe string
	variants   []string
	measures   []string
	sample     int
	seed       uint64
	workers    int

	// Set by check from the command run.
	profilesGiven bool      // --profiles was given
	stdin         io.Reader // the command's standard input, for --input -
	stderr        io.Writer // where notes go
	path          string    // the file read: --input, or standard input's copy (openInput)
}

// register adds the flags; withMeasures adds --measures (pairs and edits
// runs: corpus runs compare all pairs of documents, where measures alone
// are too slow and say nothing the pair runs do not).
func (f *evalFlags) register(cmd *cobra.Command, withMeasures bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.input, "input", "", `input file or directory (required; "-" reads standard input)`)
	fl.StringVar(&f.name, "name", "", "dataset name in the report (default: the input's base name)")
	fl.StringVar(&f.out, "out", "", "directory for report.json, summary.md and PNG plots (created)")
	fl.BoolVar(&f.jsonOut, "json", false, "print the JSON report on stdout instead of Markdown tables")
	fl.StringSliceVar(&f.profiles, "profiles", neardup.Profiles(), "fingerprint profiles to score (comma-separated; empty for none; by default those that make --bits)")
	fl.IntVar(&f.bits, "bits", 64, "SimHash width for the profiles and policies: 64 or 128")
	fl.IntVar(&f.k, "k", 3, "default decision of SimHash profiles: distance <= k at 64 bits (scaled for 128)")
	fl.IntVar(&f.nilsimsaK, "nilsimsa-k", 64, "default decision of nilsimsa: distance <= k of 256 bits (score >= 128-k)")
	fl.BoolVar(&f.policy, "policy", true, "score the default verification policy (neardup.DefaultPolicy) over the default pipeline")
	fl.StringArrayVar(&f.policyVars, "policy-variant", nil, "extra policy NAME:field=value,... (short-length, short-k, short-measure, short-min, tiny-length, tiny-k, tiny-measure, tiny-min, tiny-words, long-k, long-measure, long-min, distinct-numbers, distinct-negation); repeatable")
	fl.BoolVar(&f.grid, "policy-grid", false, "score one rule per candidate distance (--grid-k) and measure; the report's best thresholds give each rule's similarity cut")
	fl.StringVar(&f.policyPipe, "policy-pipeline", "", "pipeline of the policy scorers, as Field=value,... changes to the default pipeline (see --variant)")
	fl.IntSliceVar(&f.gridK, "grid-k", []int{3, 6, 8, 10, 12, 16}, "candidate distances of --policy-grid (64-bit)")
	fl.StringArrayVar(&f.variants, "variant", nil, "extra default-pipeline variant NAME:Field=value,... (fields of neardup.Pipeline, e.g. Shingle=2,Units=chars,CJK=unigram,Weighting=logtf,TopN=64,HTML=true,StopWords=english); repeatable")
	if withMeasures {
		fl.StringSliceVar(&f.measures, "measures", []string{"jaccard", "cosine", "levenshtein"}, "similarity measures to score on their own (distance 1 - similarity)")
	}
	fl.IntVar(&f.sample, "sample", 0, "use a random sample of this many pairs (pairs) or texts (edits, corpus); 0 = all")
	fl.Uint64Var(&f.seed, "seed", 1, "seed for sampling and generated edits")
	fl.IntVar(&f.workers, "workers", 0, "goroutines (default GOMAXPROCS)")
}

// newEvalCmd returns `neardup eval`, which groups the pairs, edits and
// corpus evaluations.
func newEvalCmd() *cobra.Command {
	cmd := groupCmd(&cobra.Command{
		Use:   "eval",
		Short: "Measure how well profiles and policies find near-duplicates",
		Long: `eval measures detection quality: ROC AUC, precision, recall and F1 at every
distance and at each scorer's own decision, by text length, for fingerprint
profiles, similarity measures and verification policies.

  eval pairs   labelled pairs (MRPC, STS-B, BQ, Clough, ...)
  eval edits   near-duplicates made from real texts by seeded edits
  eval corpus  dedup and cluster a corpus with planted duplicates`,
	})
	cmd.AddCommand(newEvalPairsCmd(), newEvalEditsCmd(), newEvalCorpusCmd())
	return cmd
}

// newEvalPairsCmd returns `neardup eval pairs`.
func newEvalPairsCmd() *cobra.Command {
	var f evalFlags
	var po eval.PairOptions
	cmd := &cobra.Command{
		Use:   "pairs --input FILE",
		Short: "Evaluate on labelled pairs (tsv, csv, jsonl, parquet, compressed or not, or a Clough directory)",
		Args:  evalNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd); err != nil {
				return err
			}
			cleanup, err := f.openInput(&po.Format, eval.FormatClough)
			if err != nil {
				return err
			}
			defer cleanup()
			d, err := eval.ReadPairs(f.path, po)
			if err != nil {
				return f.inputError(err)
			}
			if f.input == "-" {
				d.Name = f.datasetName()
			}
			if len(d.Pairs) == 0 {
				return usagef("eval: %s: no pairs", inputName(f.input))
			}
			d = samplePairs(d, f.sample, f.seed)
			return f.evaluate(cmd, d, nil)
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&po.Format, "format", "", "tsv, csv, jsonl, parquet or clough (default: by file name, a Parquet file by its first bytes; a directory is clough)")
	fl.StringVar(&po.ACol, "a-col", "sentence1", "column (header name or 0-based number), JSON field or Parquet column of the first text")
	fl.StringVar(&po.BCol, "b-col", "sentence2", "column or field of the second text")
	fl.StringVar(&po.LabelCol, "label-col", "label", "column or field of the label")
	fl.Float64Var(&po.LabelThreshold, "label-threshold", 0.5, "a pair is a near-duplicate when its label is >= this (e.g. 4 for STS scores)")
	return cmd
}

// newEvalEditsCmd returns `neardup eval edits`.
func newEvalEditsCmd() *cobra.Command {
	var (
		f       evalFlags
		to      eval.TextOptions
		kinds   []string
		rates   []float64
		negs    int
		passage int
	)
	cmd := &cobra.Command{
		Use:   "edits --input FILE",
		Short: "Evaluate on near-duplicates made from real texts by seeded edits",
		Args:  evalNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd); err != nil {
				return err
			}
			if negs < 0 {
				return usagef("eval: --negatives %d is negative; want 0 (the default, 10) or more", negs)
			}
			if passage < 0 {
				return usagef("eval: --passage %d is negative; want 0 (whole texts) or more", passage)
			}
			texts, ks, err := f.readTexts(&to, kinds, rates, passage, true)
			if err != nil {
				return err
			}
			o := eval.EditOptions{Kinds: ks, Rates: rates, Negatives: negs, Seed: f.seed}
			d := eval.MakeEdits(f.datasetName(), texts, o)
			note := fmt.Sprintf("%d texts (seed %d); one copy per edit kind and rate; %d negatives per text drawn from the same source", len(texts), f.seed, o.NegativesPerText(len(texts)))
			if passage > 0 {
				note += fmt.Sprintf("; texts cut to passages of about %d characters", passage)
			}
			return f.evaluate(cmd, d, []string{note})
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&to.Format, "format", "", "jsonl, fortunes, lines, files or parquet (default: by name and content; a directory of .txt files is files, of other files fortunes)")
	fl.StringVar(&to.Field, "field", "text", "JSON field or Parquet column holding the text (jsonl, parquet)")
	fl.IntVar(&to.MinRunes, "min-length", 20, "skip texts shorter than this many characters")
	fl.IntVar(&passage, "passage", 0, "cut each text to its first N characters (at a word end); 0 keeps whole texts")
	fl.StringSliceVar(&kinds, "kinds", nil, "edit kinds (default all: "+kindList()+"; also accents, which takes the accents off a fraction of the words that have any, furniture, which puts the text in a page with site furniture in its nav, header, aside and footer, and sentences, which moves a fraction of the sentences each to another place)")
	fl.Float64SliceVar(&rates, "rates", eval.DefaultRates(), "edit rates: fraction of words or characters touched")
	fl.IntVar(&negs, "negatives", 10, "negatives per text (other texts of the same source; 0 means the default, 10; at most the other texts)")
	return cmd
}

// newEvalCorpusCmd returns `neardup eval corpus`.
func newEvalCorpusCmd() *cobra.Command {
	var (
		f      evalFlags
		to     eval.TextOptions
		po     eval.PlantOptions
		kinds  []string
		engine bool
	)
	cmd := &cobra.Command{
		Use:   "corpus --input FILE",
		Short: "Dedup and cluster a corpus with planted duplicates; report pair precision and recall",
		Args:  evalNoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(cmd); err != nil {
				return err
			}
			if po.Originals < 0 {
				return usagef("eval: --originals %d is negative; want 0 (10%% of the texts) or more", po.Originals)
			}
			if po.Copies < 0 {
				return usagef("eval: --copies %d is negative; want 0 (the default, 2) or more", po.Copies)
			}
			texts, ks, err := f.readTexts(&to, kinds, po.Rates, 0, false)
			if err != nil {
				return err
			}
			po.Kinds, po.Seed = ks, f.seed
			c := eval.Plant(texts, po)
			scorers, err := f.scorers(eval.NewSketches())
			if err != nil {
				return err
			}
			dedupers := map[string]eval.Deduper{}
			if engine {
				pp := neardup.DefaultPipeline()
				if err := setFields(&pp, f.policyPipe); err != nil {
					return usagef("eval: --policy-pipeline: %v", err)
				}
				dedupers["engine"] = engineDeduper{pipeline: pp, bits: f.bits}
			}
			clusterers := map[string]eval.Clusterer{}
			for _, s := range scorers {
				dedupers[s.Name()] = eval.ScorerDeduper{Scorer: s}
				clusterers[s.Name()] = eval.ScorerClusterer{Scorer: s}
			}
			r, err := eval.EvaluateCorpus(cmd.Context(), c, dedupers, clusterers, f.seed)
			if err != nil {
				return err
			}
			return writeCorpusReport(cmd.OutOrStdout(), &f, r)
		},
	}
	f.register(cmd, false)
	fl := cmd.Flags()
	fl.StringVar(&to.Format, "format", "", "jsonl, fortunes, lines, files or parquet (default: by name and content)")
	fl.StringVar(&to.Field, "field", "text", "JSON field or Parquet column holding the text (jsonl, parquet)")
	fl.IntVar(&to.MinRunes, "min-length", 1, "skip texts shorter than this many characters")
	fl.IntVar(&po.Originals, "originals", 0, "texts that get planted copies (0, the default: 10% of the texts)")
	fl.IntVar(&po.Copies, "copies", 2, "planted copies per original (0 means the default, 2)")
	fl.Float64SliceVar(&po.Rates, "rates", []float64{0.01, 0.03, 0.05}, "edit rates of planted copies")
	fl.StringSliceVar(&kinds, "kinds", nil, "edit kinds of planted copies (default all)")
	fl.BoolVar(&engine, "engine", true, "also dedup through the engine (in memory, default options and policy, --policy-pipeline), as neardup dedup does")
	return cmd
}

// readTexts reads, optionally de-duplicates, cuts and samples the input
// texts, and parses the edit kinds and checks the rates.
func (f *evalFlags) readTexts(to *eval.TextOptions, kinds []string, rates []float64, passage int, distinct bool) ([]string, []eval.EditKind, error) {
	var ks []eval.EditKind
	for _, k := range kinds {
		kind, err := eval.ParseEditKind(k)
		if err != nil {
			return nil, nil, usageError{err}
		}
		ks = append(ks, kind)
	}
	for _, r := range rates {
		if !(r > 0 && r <= 1) {
			return nil, nil, usagef("eval: --rates %v: want each rate above 0 and at most 1", r)
		}
	}
	cleanup, err := f.openInput(&to.Format, eval.FormatFiles)
	if err != nil {
		return nil, nil, err
	}
	defer cleanup()
	texts, err := eval.ReadTexts(f.path, *to)
	if err != nil {
		return nil, nil, f.inputError(err)
	}
	if distinct {
		texts = unique(texts)
	}
	if passage > 0 {
		for i, t := range texts {
			texts[i] = cutPassage(t, passage)
		}
	}
	texts = sampleTexts(texts, f.sample, f.seed)
	if len(texts) < 2 {
		return nil, nil, usagef("eval: %s: need at least 2 texts, have %d", inputName(f.input), len(texts))
	}
	return texts, ks, nil
}

// kindList lists the edit kinds for a flag's help: "a, b, c".
func kindList() string {
	var ks []string
	for _, k := range eval.EditKinds() {
		ks = append(ks, string(k))
	}
	return strings.Join(ks, ", ")
}

// check checks the flags of cmd, an eval subcommand, and notes what of
// cmd the run needs: standard input, standard error, whether --profiles
// was given.
func (f *evalFlags) check(cmd *cobra.Command) error {
	f.profilesGiven = cmd.Flags().Changed("profiles")
	f.stdin, f.stderr = cmd.InOrStdin(), cmd.ErrOrStderr()
	if f.input == "" {
		return usagef(`eval: --input is required (a file or directory, or "-" for standard input)`)
	}
	if f.bits != 64 && f.bits != 128 {
		return usagef("eval: --bits %d: want 64 or 128", f.bits)
	}
	if f.k < 0 || f.k > 64 {
		return usagef("eval: --k %d out of range [0, 64]", f.k)
	}
	if f.nilsimsaK < 0 || f.nilsimsaK > 256 {
		return usagef("eval: --nilsimsa-k %d out of range [0, 256]", f.nilsimsaK)
	}
	if f.sample < 0 {
		return usagef("eval: --sample %d is negative", f.sample)
	}
	if f.workers < 0 {
		return usagef("eval: --workers %d is negative; want 0 (GOMAXPROCS) or more", f.workers)
	}
	if f.grid {
		for _, k := range f.gridK {
			if k < 0 || k > 32 {
				return usagef("eval: --grid-k %d: want 0 to 32 bits per 64", k)
			}
		}
	}
	return nil
}

// datasetName is the dataset's name in the report: --name, else the
// input's base name ("stdin" for standard input).
func (f *evalFlags) datasetName() string {
	if f.name != "" {
		return f.name
	}
	if f.input == "-" {
		return "stdin"
	}
	return filepath.Base(strings.TrimRight(f.input, "/"))
}

// scorers builds the scorers the flags ask for, in report order: profiles,
// pipeline variants, measures, the default policy, policy variants, grid.
func (f *evalFlags) scorers(c *eval.Sketches) ([]eval.Scorer, error) {
	var out []eval.Scorer
	var left []string // default profiles that cannot make --bits
	for _, p := range f.profiles {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !f.profilesGiven && (neardup.Config{Profile: p, Bits: f.bits}).Validate() != nil {
			left = append(left, p)
			continue
		}
		if !slices.Contains(neardup.Profiles(), p) {
			return nil, usagef("eval: --profiles %s: no such profile; want %s", p, orList(neardup.Profiles()))
		}
		if err := checkProfileBits(p, f.bits); err != nil {
			return nil, usagef("eval: --profiles %s: %v", p, err)
		}
		fp, err := neardup.NewFingerprinter(neardup.Config{Profile: p, Bits: f.bits})
		if err != nil {
			return nil, usagef("eval: profile %q at %d bits: %v", p, f.bits, err)
		}
		k, name := f.k*fp.Bits()/64, p
		if p == "nilsimsa" {
			k = f.nilsimsaK
		} else if f.bits != 64 {
			name = fmt.Sprintf("%s/%d", p, f.bits)
		}
		s, err := eval.NewFingerprintScorer(name, fp, k)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, s)
	}
	if len(left) > 0 && f.stderr != nil {
		what := "profile " + left[0] + ", which makes"
		if len(left) > 1 {
			what = "profiles " + orList(left) + ", which make"
		}
		fmt.Fprintf(f.stderr, "neardup: eval: leaving out %s no %d-bit fingerprints (--profiles chooses the profiles)\n", what, f.bits)
	}
	for _, v := range f.variants {
		name, spec, ok := strings.Cut(v, ":")
		if !ok {
			return nil, usagef("eval: --variant %q: want NAME:Field=value,...", v)
		}
		p := neardup.DefaultPipeline()
		if err := setFields(&p, spec); err != nil {
			return nil, usagef("eval: --variant %s: %v", name, err)
		}
		fp, err := neardup.NewPipeline(p, f.bits)
		if err != nil {
			return nil, usagef("eval: --variant %s: %v", name, err)
		}
		s, err := eval.NewFingerprintScorer("default["+name+"]", fp, f.k*f.bits/64)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, s)
	}
	defaults := map[neardup.Measure]float64{neardup.Jaccard: 0.5, neardup.Cosine: 0.8, neardup.Levenshtein: 0.8}
	for _, m := range f.measures {
		m = strings.TrimSpace(m)
		if m == "" {
			continue
		}
		s, err := eval.NewMeasureScorer(c, neardup.Measure(m), defaults[neardup.Measure(m)])
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, s)
	}
	if !f.policy && len(f.policyVars) == 0 && !f.grid {
		return out, nil
	}
	pp := neardup.DefaultPipeline()
	if err := setFields(&pp, f.policyPipe); err != nil {
		return nil, usagef("eval: --policy-pipeline: %v", err)
	}
	fp, err := neardup.NewPipeline(pp, f.bits)
	if err != nil {
		return nil, usagef("eval: --policy-pipeline: %v", err)
	}
	cfg := neardup.Config{Pipeline: &pp, Bits: f.bits} // what the policy measures: the visible, folded text
	if f.policy {
		s, err := eval.NewPolicyScorer("policy", fp, neardup.DefaultPolicy(), c, true)
		if err != nil {
			return nil, err
		}
		out = append(out, s.MeasureAs(cfg))
	}
	for _, v := range f.policyVars {
		name, spec, ok := strings.Cut(v, ":")
		if !ok {
			return nil, usagef("eval: --policy-variant %q: want NAME:field=value,...", v)
		}
		p, err := parsePolicy(spec)
		if err != nil {
			return nil, usagef("eval: --policy-variant %s: %v", name, err)
		}
		s, err := eval.NewPolicyScorer("policy["+name+"]", fp, p, c, false)
		if err != nil {
			return nil, usageError{err}
		}
		out = append(out, s.MeasureAs(cfg))
	}
	if f.grid {
		for _, k := range f.gridK {
			for _, m := range []neardup.Measure{neardup.Levenshtein, neardup.Jaccard, neardup.Cosine} {
				r := neardup.Rule{MaxDistance: k, Measure: m, MinSimilarity: 0.5}
				s, err := eval.NewPolicyScorer(fmt.Sprintf("rule[k=%d %s]", k, m), fp, neardup.Policy{Short: r, Long: r}, c, false)
				if err != nil {
					return nil, usageError{err}
				}
				out = append(out, s.MeasureAs(cfg))
			}
		}
	}
	return out, nil
}

// evalNoArgs is the Args check of the eval subcommands: they read their
// input from --input, and a word on the command line is refused as such
// (cobra would call it an unknown command).
func evalNoArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usagef(`eval %s takes no arguments, got %q: give the input with --input FILE ("-" for standard input)`, cmd.Name(), args[0])
}

// openInput sets f.path, the file the eval readers (which take a path)
// read: --input itself, or for "-" a copy of standard input in a temporary
// file, decompressed if it is compressed (gzip, zstd, bzip2 or xz). Where the system allows, the copy is
// unlinked at once and read as /dev/fd/N, so that no file is left behind
// whatever ends the run; else cleanup removes it. A copy of JSON Lines
// (its first character is "{") gets *format jsonl unless --format was
// given; other formats are sniffed from the contents as for a file, but
// for CSV, which needs --format csv. dirFormat, a format that needs a
// directory, is refused with "-".
func (f *evalFlags) openInput(format *string, dirFormat string) (cleanup func(), err error) {
	f.path = f.input
	if f.input != "-" {
		return func() {}, nil
	}
	if *format == dirFormat {
		return nil, usagef("eval: --input - with --format %s: that format reads a directory, not standard input", dirFormat)
	}
	z, err := decompress.NewReader(f.stdin)
	if err != nil {
		return nil, usagef("eval: standard input: %v", err)
	}
	defer z.Close()
	r := bufio.NewReaderSize(z, 64<<10)
	if head, _ := r.Peek(512); *format == "" {
		head = bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(head, " \t\r\n"), []byte(utf8BOM)), " \t\r\n")
		if len(head) > 0 && head[0] == '{' {
			*format = eval.FormatJSONL
		}
	}
	tmp, err := os.CreateTemp("", "neardup-eval-stdin-*")
	if err != nil {
		return nil, fmt.Errorf("eval: a temporary file for standard input: %w", err)
	}
	remove := func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}
	if _, err := io.Copy(tmp, r); err != nil {
		remove()
		if _, damaged := errors.AsType[*decompress.Error](err); damaged {
			return nil, usagef("eval: reading standard input: %v", err)
		}
		return nil, fmt.Errorf("eval: copying standard input to %s: %w", tmp.Name(), err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		remove()
		return nil, fmt.Errorf("eval: %w", err)
	}
	f.path = tmp.Name()
	fdPath := fmt.Sprintf("/dev/fd/%d", tmp.Fd())
	if a, err := tmp.Stat(); err == nil {
		if b, err := os.Stat(fdPath); err == nil && os.SameFile(a, b) && os.Remove(tmp.Name()) == nil {
			f.path = fdPath
		}
	}
	return remove, nil
}

// inputError is a reader's error for the input, a usage error; standard
// input's copy is called standard input in it.
func (f *evalFlags) inputError(err error) error {
	if f.input == "-" {
		return usagef("%s", strings.ReplaceAll(err.Error(), f.path, "standard input"))
	}
	return usageError{err}
}

// engineDeduper dedups through the engine, in memory, one document at a
// time in input order: what `neardup dedup` does.
type engineDeduper struct {
	pipeline neardup.Pipeline
	bits     int
}

// Dedup implements eval.Deduper.
func (d engineDeduper) Dedup(ctx context.Context, texts []string) ([]int, error) {
	opts := neardup.DefaultOptions()
	opts.InMemory = true
	opts.Retention = -1
	opts.ExpectedDocuments = len(texts)
	fp, err := neardup.NewPipeline(d.pipeline, d.bits)
	if err != nil {
		return nil, err
	}
	opts.Fingerprinter = fp
	e, err := neardup.Open("", &opts)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	dupOf := make([]int, len(texts))
	for i, t := range texts {
		r, err := e.CheckAndInsert(ctx, neardup.Document{ID: strconv.Itoa(i), Text: t})
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		dupOf[i] = -1
		if r.DuplicateOf != nil {
			if dupOf[i], err = strconv.Atoi(*r.DuplicateOf); err != nil {
				return nil, fmt.Errorf("document %d: duplicate of unknown id %q", i, *r.DuplicateOf)
			}
		}
	}
	return dupOf, e.Close()
}

// parsePolicy returns DefaultPolicy changed by spec, a comma-separated list
// of field=value: short-length, short-k, short-measure, short-min,
// tiny-length, tiny-k, tiny-measure, tiny-min, tiny-words, long-k,
// long-measure, long-min, distinct-numbers, distinct-negation.
func parsePolicy(spec string) (neardup.Policy, error) {
	p := neardup.DefaultPolicy()
	for kv := range strings.SplitSeq(spec, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return p, fmt.Errorf("%q: want field=value", kv)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		rule := &p.Short
		switch {
		case strings.HasPrefix(key, "long-"):
			rule = &p.Long
		case strings.HasPrefix(key, "tiny-"):
			rule = &p.Tiny
		}
		var err error
		switch key {
		case "short-length":
			p.ShortLength, err = strconv.Atoi(val)
		case "tiny-length":
			p.TinyLength, err = strconv.Atoi(val)
		case "tiny-words":
			p.TinyWords, err = strconv.Atoi(val)
		case "distinct-numbers":
			p.DistinctNumbers, err = strconv.ParseBool(val)
		case "distinct-negation":
			p.DistinctNegation, err = strconv.ParseBool(val)
		case "short-k", "tiny-k", "long-k":
			rule.MaxDistance, err = strconv.Atoi(val)
		case "short-measure", "tiny-measure", "long-measure":
			rule.Measure = neardup.Measure(val)
		case "short-min", "tiny-min", "long-min":
			rule.MinSimilarity, err = strconv.ParseFloat(val, 64)
		default:
			return p, fmt.Errorf("unknown field %q", key)
		}
		if err != nil {
			return p, fmt.Errorf("%s: %w", key, err)
		}
	}
	return p, p.Validate()
}

// setFields sets fields of the struct *dst from spec, a comma-separated
// list of Field=value (field names case-insensitive): strings, integers and
// booleans, and StopWords=english|chinese|none.
func setFields(dst any, spec string) error {
	v := reflect.ValueOf(dst).Elem()
	for kv := range strings.SplitSeq(spec, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q: want Field=value", kv)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		field := v.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, key) })
		if !field.IsValid() || !field.CanSet() {
			return fmt.Errorf("no field %q in %s", key, v.Type())
		}
		if field.Type() == reflect.TypeFor[*analysis.StopWords]() {
			switch val {
			case "english":
				field.Set(reflect.ValueOf(analysis.EnglishStopWords()))
			case "chinese":
				field.Set(reflect.ValueOf(analysis.ChineseStopWords()))
			case "none", "":
				field.SetZero()
			default:
				return fmt.Errorf("%s=%q: want english, chinese or none", key, val)
			}
			continue
		}
		switch field.Kind() {
		case reflect.String:
			field.SetString(val)
		case reflect.Int, reflect.Int64, reflect.Int32:
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return fmt.Errorf("%s=%q: %w", key, val, err)
			}
			field.SetInt(n)
		case reflect.Bool:
			b, err := strconv.ParseBool(val)
			if err != nil {
				return fmt.Errorf("%s=%q: %w", key, val, err)
			}
			field.SetBool(b)
		default:
			return fmt.Errorf("field %s of type %s cannot be set from the command line", key, field.Type())
		}
	}
	return nil
}

// evaluate scores d and writes the report.
func (f *evalFlags) evaluate(cmd *cobra.Command, d *eval.Dataset, notes []string) error {
	if f.name != "" {
		d.Name = f.name
	}
	scorers, err := f.scorers(eval.NewSketches())
	if err != nil {
		return err
	}
	if len(scorers) == 0 {
		return usagef("eval: nothing to score: give --profiles, --measures or --policy")
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	rep, err := eval.Evaluate(ctx, d, scorers, eval.Options{Workers: f.workers, Seed: f.seed})
	if err != nil {
		return err
	}
	rep.Notes = append(rep.Notes, notes...)
	if f.sample > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("random sample of %d (seed %d)", f.sample, f.seed))
	}
	if f.out != "" {
		if err := writeReportDir(f.out, rep); err != nil {
			return err
		}
	}
	w := cmd.OutOrStdout()
	if f.jsonOut {
		enc := newJSONEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return eval.WriteSummary(w, rep)
}

// writeReportDir writes report.json, summary.md, pr.png and one histogram
// per scorer (grid rules excepted) into dir.
func writeReportDir(dir string, rep *eval.Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	sf, err := os.Create(filepath.Join(dir, "summary.md"))
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if err := eval.WriteSummary(sf, rep); err != nil {
		sf.Close()
		return err
	}
	if err := sf.Close(); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	// Plots show the profiles, measures and named policies; grid rules
	// only in the tables.
	plotted := *rep
	plotted.Scorers = slices.DeleteFunc(slices.Clone(rep.Scorers), func(s eval.ScorerReport) bool {
		return strings.HasPrefix(s.Name, "rule[")
	})
	if err := eval.PlotPR(&plotted, filepath.Join(dir, "pr.png")); err != nil {
		return err
	}
	if err := eval.PlotRecallAtK(&plotted, filepath.Join(dir, "recall-k.png"), 16); err != nil {
		return err
	}
	_, err = eval.PlotHistograms(&plotted, dir, "")
	return err
}

// writeCorpusReport writes the corpus report r: report.json and
// summary.md into --out when given, and JSON or Markdown to w.
func writeCorpusReport(w io.Writer, f *evalFlags, r *eval.CorpusReport) error {
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		if err := os.WriteFile(filepath.Join(f.out, "report.json"), append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
		var sum strings.Builder
		if err := eval.WriteCorpusSummary(&sum, r); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(f.out, "summary.md"), []byte(sum.String()), 0o644); err != nil {
			return fmt.Errorf("eval: %w", err)
		}
	}
	if f.jsonOut {
		enc := newJSONEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return eval.WriteCorpusSummary(w, r)
}

// samplePairs keeps a seeded random sample of n pairs (all when n is 0 or
// at least the number of pairs), in their original order, and the texts
// they refer to, so that the report counts the texts sampled.
func samplePairs(d *eval.Dataset, n int, seed uint64) *eval.Dataset {
	if n <= 0 || n >= len(d.Pairs) {
		return d
	}
	idx := rand.New(rand.NewPCG(seed, 0x5a17)).Perm(len(d.Pairs))[:n]
	slices.Sort(idx)
	out := &eval.Dataset{Name: d.Name}
	at := map[int]int{} // index in d.Texts to index in out.Texts
	text := func(i int) int {
		j, ok := at[i]
		if !ok {
			j = len(out.Texts)
			at[i] = j
			out.Texts = append(out.Texts, d.Texts[i])
		}
		return j
	}
	for _, i := range idx {
		p := d.Pairs[i]
		p.A, p.B = text(p.A), text(p.B)
		out.Pairs = append(out.Pairs, p)
	}
	return out
}

// sampleTexts keeps a seeded random sample of n texts in their order.
func sampleTexts(texts []string, n int, seed uint64) []string {
	if n <= 0 || n >= len(texts) {
		return texts
	}
	idx := rand.New(rand.NewPCG(seed, 0x5a17)).Perm(len(texts))[:n]
	slices.Sort(idx)
	out := make([]string, n)
	for i, j := range idx {
		out[i] = texts[j]
	}
	return out
}

// unique drops texts that repeat an earlier one after whitespace and case
// folding, so that negatives are never exact copies.
func unique(texts []string) []string {
	seen := map[string]bool{}
	out := texts[:0:0]
	for _, t := range texts {
		k := strings.ToLower(strings.Join(strings.Fields(t), " "))
		if !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// cutPassage returns about the first n characters of t, ending at a space
// when there is one in the last fifth (CJK text is cut anywhere).
func cutPassage(t string, n int) string {
	if utf8.RuneCountInString(t) <= n {
		return t
	}
	rs := []rune(t)[:n]
	for i := len(rs) - 1; i > n*4/5; i-- {
		if rs[i] == ' ' || rs[i] == '\n' {
			return string(rs[:i])
		}
	}
	return string(rs)
}
