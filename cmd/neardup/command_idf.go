package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
		Long: `Build reads a corpus and writes an IDF table (text format "neardup-idf 2",
see package weight) for tf-idf weighting of the default pipeline.

Each FILE is one document, or, with --lines, each line of each FILE is one
document; blank files and lines are not documents. Without FILE, or with
FILE "-", it reads standard input. Documents are analysed like the default
pipeline (the --shingle, --units, --cjk and --html flags change that, and
must match the pipeline the table is used with); each feature's IDF is
ln((N+1)/(df+1)) + 1 over N documents, df of which contain it. A corpus
without documents is refused: it has nothing to weigh. The table goes to
--out, written whole or not at all (an existing file is replaced only when
the new table is complete), or to standard output.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIDFBuild(cmd, fl, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&fl.out, "out", "o", "", "write the table to FILE (default standard output)")
	f.BoolVar(&fl.lines, "lines", false, "each non-blank line is a document (default: each file is one)")
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
	if b.Docs() == 0 {
		return usagef("idf build: no documents in %s (blank files and lines are none): nothing to weigh", inputsLabel(args))
	}
	table := b.IDF(fl.minDF)
	if fl.out == "" {
		if _, err := table.WriteTo(cmd.OutOrStdout()); err != nil {
			return fmt.Errorf("idf build: %w", err)
		}
	} else if err := writeFileWhole(fl.out, table); err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "idf build: %d documents, %d features\n", b.Docs(), table.Len())
	return nil
}

// inputsLabel names the inputs of idf build in a message.
func inputsLabel(args []string) string {
	if len(args) == 1 && args[0] == "-" {
		return "standard input"
	}
	return strings.Join(args, ", ")
}

// writeFileWhole writes w's output to path through a temporary file in the
// same directory, renamed over path once complete, so that path never
// holds a partial table: on any failure the temporary file is removed and
// path is left as it was. A new file gets mode 0644, a replaced one keeps
// its mode.
func writeFileWhole(path string, w io.WriterTo) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return usagef("idf build: --out %s is a directory", path)
		}
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return usageError{fmt.Errorf("idf build: --out %s: %w", path, ioCause(err))}
	}
	tmp := f.Name()
	_, err = w.WriteTo(f)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("idf build: writing %s: %w", path, err)
	}
	return nil
}

// readDocuments calls add for each document of the file name ("-" is in):
// the whole file, or each line without its terminator when lines is set.
// Blank (empty or white-space-only) files and lines are not documents. Read
// errors, like a directory given as a file, are usage errors naming the
// input.
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
			return usagef("idf build: reading %s: %v", label, ioCause(err))
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			add(doc)
		}
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
		if len(bytes.TrimSpace(line)) > 0 {
			doc := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			add(doc)
		}
		line = line[:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return usagef("idf build: reading %s: %v", label, ioCause(err))
		}
	}
}
