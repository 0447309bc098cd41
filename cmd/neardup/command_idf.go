package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/weight"
	"github.com/spf13/cobra"
)

// newIDFCmd returns `neardup idf`, whose subcommand `build` makes IDF
// tables for tf-idf weighting.
func newIDFCmd() *cobra.Command {
	cmd := groupCmd(&cobra.Command{
		Use:   "idf",
		Short: "Build IDF tables for tf-idf weighting",
	})
	cmd.AddCommand(newIDFBuildCmd())
	return cmd
}

// idfBuildFlags are the options of `neardup idf build`.
type idfBuildFlags struct {
	out     string
	lines   bool
	minDF   int
	shingle int
	units   string
	cjk     string
	html    bool
}

func newIDFBuildCmd() *cobra.Command {
	var fl idfBuildFlags
	cmd := &cobra.Command{
		Use:   "build [--out FILE] [--lines] [FILE...]",
		Short: "Build an IDF table from a corpus",
		Long: `Build reads a corpus and writes an IDF table (text format "neardup-idf 1",
see package weight) for tf-idf weighting of the default pipeline.

Each FILE is one document, or, with --lines, each line of each FILE is one
document. Without FILE, or with FILE "-", it reads standard input. Documents
are analysed like the default pipeline (the --shingle, --units, --cjk and
--html flags change that, and must match the pipeline the table is used
with); each feature's IDF is ln((N+1)/(df+1)) + 1 over N documents, df of
which contain it. The table goes to --out, or standard output.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIDFBuild(cmd, fl, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&fl.out, "out", "o", "", "write the table to FILE (default standard output)")
	f.BoolVar(&fl.lines, "lines", false, "each line is a document (default: each file is one)")
	f.IntVar(&fl.minDF, "min-df", 1, "keep only features in at least this many documents")
	f.IntVar(&fl.shingle, "shingle", 0, "tokens per feature (default: the default pipeline's)")
	f.StringVar(&fl.units, "units", "", "words or chars (default: the default pipeline's)")
	f.StringVar(&fl.cjk, "cjk", "", "unigram, bigram or segment (default: the default pipeline's)")
	f.BoolVar(&fl.html, "html", false, "read documents as HTML")
	return cmd
}

func runIDFBuild(cmd *cobra.Command, fl idfBuildFlags, args []string) error {
	if fl.minDF < 1 {
		return usagef("idf build: --min-df %d must be at least 1", fl.minDF)
	}
	p := neardup.DefaultPipeline()
	p.HTML = fl.html
	if fl.shingle != 0 {
		p.Shingle = fl.shingle
	}
	if fl.units != "" {
		p.Units = neardup.Units(fl.units)
	}
	if fl.cjk != "" {
		p.CJK = neardup.CJKMode(fl.cjk)
	}
	feats, err := neardup.NewFeatures(p)
	if err != nil {
		return usageError{fmt.Errorf("idf build: %w", err)}
	}
	if len(args) == 0 {
		args = []string{"-"}
	}
	var b weight.Builder
	var keys []uint64
	add := func(doc []byte) {
		keys = feats.Keys(keys[:0], doc)
		b.Add(keys)
	}
	for _, name := range args {
		if err := readDocuments(cmd.InOrStdin(), name, fl.lines, add); err != nil {
			return err
		}
	}
	table := b.IDF(fl.minDF)
	w := cmd.OutOrStdout()
	var file *os.File
	if fl.out != "" {
		file, err = os.Create(fl.out)
		if err != nil {
			return usageError{fmt.Errorf("idf build: %w", err)}
		}
		w = file
	}
	if _, err := table.WriteTo(w); err != nil {
		if file != nil {
			file.Close()
		}
		return fmt.Errorf("idf build: %w", err)
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return fmt.Errorf("idf build: %w", err)
		}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "idf build: %d documents, %d features\n", b.Docs(), table.Len())
	return nil
}

// readDocuments calls add for each document of the file name ("-" is in):
// the whole file, or each line without its terminator when lines is set.
func readDocuments(in io.Reader, name string, lines bool, add func([]byte)) error {
	r := in
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return usageError{fmt.Errorf("idf build: %w", err)}
		}
		defer f.Close()
		r = f
	}
	label := name
	if name == "-" {
		label = "standard input"
	}
	if !lines {
		doc, err := io.ReadAll(r)
		if err != nil {
			return fmt.Errorf("idf build: reading %s: %w", label, ioCause(err))
		}
		add(doc)
		return nil
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			doc := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			add(doc)
		}
		line = line[:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("idf build: reading %s: %w", label, ioCause(err))
		}
	}
}
