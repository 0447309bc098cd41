package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/decompress"
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
	format  string
	in      docInput // the record formats' flags (--text-field, --on-error...)
	minDF   int
	shingle int
	units   string
	cjk     string
	html    bool
	main    bool
	fold    bool
}

// newIDFBuildCmd returns `neardup idf build`.
func newIDFBuildCmd() *cobra.Command {
	var fl idfBuildFlags
	cmd := &cobra.Command{
		Use:   "build [--out FILE] [--lines | --format F] [FILE...]",
		Short: "Build an IDF table from a corpus",
		Long: `Build reads a corpus and writes an IDF table (text format "neardup-idf 2",
see package weight) for tf-idf weighting of the default pipeline.

Each FILE is one document, or, with --lines, each line of each FILE is one
document (a line longer than --max-line is an error naming it); blank
files and lines are not documents. Without FILE, or with
FILE "-", it reads standard input. Corpora in dedup's formats are read as
dedup reads them, one document a record: --format jsonl, csv, parquet or
warc (the text in --text-field, or a WARC record's body; --on-error,
--max-line and --warc-status as in dedup), or dir (each file under a
directory one document). --format auto, the default, tells them by name:
.jsonl and .ndjson are JSONL, .csv CSV, .parquet Parquet, .warc and .wet
WARC, a directory is dir (or, as in dedup, its files when all are shards
of those formats), and any other FILE (standard input too) is one
document. A FILE (or standard input) compressed with gzip, zstd, bzip2 or
xz is read decompressed, the format told from its first bytes (a .gz,
.zst, .bz2 or .xz after the extension still names the format:
docs.jsonl.zst is JSONL). Documents are analysed like the default pipeline
(the --shingle, --units, --cjk, --html, --main-text and --fold-accents
flags change that, and must match the pipeline the table is used with);
each feature's IDF is ln((N+1)/(df+1)) + 1 over N documents, df of which
contain it. A corpus without documents is refused: it has nothing to weigh.
The table goes to standard output, or to --out, written whole or not at
all: through a temporary file in the same directory, renamed over the file
once the table is complete, and removed on any failure and on SIGINT or
SIGTERM (exit status 130 or 143), so that an existing file is left as it
was. A symbolic link is followed (the file it points to is replaced, the
link stays); a FIFO or a device (such as /dev/stdout) is written directly.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runIDFBuild(cmd, fl, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&fl.out, "out", "o", "", "write the table to FILE (default standard output)")
	f.BoolVar(&fl.lines, "lines", false, "each non-blank line is a document (default: each file is one); --format lines")
	f.StringVar(&fl.format, "format", "auto", "input format: "+recordFormats+" (auto: .jsonl and .ndjson are JSONL, .csv CSV, .parquet Parquet, .warc and .wet WARC, a directory dir, anything else one document; file: the whole input one document)")
	f.IntVar(&fl.in.maxLine, "max-line", defaultMaxLine, "longest line of --lines, record (a JSONL line, a CSV row...) or file of a directory, in bytes, read as one document")
	fl.in.addRecordFlags(f, false)
	f.IntVar(&fl.minDF, "min-df", 1, "keep only features in at least this many documents")
	f.IntVar(&fl.shingle, "shingle", 0, "tokens per feature (default: the default pipeline's)")
	f.StringVar(&fl.units, "units", "", "words or chars (default: the default pipeline's)")
	f.StringVar(&fl.cjk, "cjk", "", "unigram, bigram or segment (default: the default pipeline's)")
	f.BoolVar(&fl.html, "html", false, "read documents as HTML")
	f.BoolVar(&fl.main, "main-text", false, "read documents as HTML pages without their furniture, as fingerprinting with --main-text does")
	f.BoolVar(&fl.fold, "fold-accents", false, "take the accents off Latin and Greek letters and write Cyrillic ё as е, as fingerprinting with --fold-accents does")
	return cmd
}

// runIDFBuild runs idf build on the files args with the flags fl.
func runIDFBuild(cmd *cobra.Command, fl idfBuildFlags, args []string) error {
	if fl.minDF < 1 {
		return usagef("idf build: --min-df %d must be at least 1", fl.minDF)
	}
	format, err := fl.in.checkFormat("idf build", fl.format, fl.lines)
	if err != nil {
		return err
	}
	fl.format = format
	p := neardup.DefaultPipeline()
	p.HTML, p.MainText, p.FoldAccents = fl.html, fl.main, fl.fold
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
	if n := countStdin(args); n > 1 {
		return usagef(`idf build: "-" is given %d times, but standard input can be read once; give it once`, n)
	}
	var b weight.Builder
	var keys []uint64
	add := func(doc []byte) {
		keys = feats.Keys(keys[:0], doc)
		b.Add(keys)
	}
	for _, name := range args {
		kind := inputKind(name, fl.format)
		if kind == "file" || kind == "lines" {
			if err := readDocuments(cmd.InOrStdin(), name, kind == "lines", fl.in.maxLine, add); err != nil {
				return err
			}
			continue
		}
		in := fl.in
		in.format = kind
		if kind == "dir" && fl.format == "auto" {
			in.format = "auto" // a directory of shards is read as its files
		}
		srcs, err := in.sources([]string{name})
		if err != nil {
			return fmt.Errorf("idf build: %w", err)
		}
		bad := in.badRecord(cmd.ErrOrStderr(), "idf build", "no table written")
		emit := func(r *record) error {
			if strings.TrimSpace(r.doc.Text) != "" {
				add([]byte(r.doc.Text))
			}
			return nil
		}
		if err := in.read(cmd.InOrStdin(), srcs, emit, bad, nil); err != nil {
			return fmt.Errorf("idf build: %w", err)
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
	fmt.Fprintf(cmd.ErrOrStderr(), "neardup: idf build: %s, %s\n", plural(int(b.Docs()), "document"), plural(table.Len(), "feature"))
	return nil
}

// plural returns n and word, with an "s" unless n is 1: "1 document",
// "2 documents".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// inputsLabel names the inputs of idf build in a message.
func inputsLabel(args []string) string {
	if len(args) == 1 && args[0] == "-" {
		return "standard input"
	}
	return strings.Join(args, ", ")
}

// writeFileWhole writes w's output to path so that path never holds a
// partial table. A symbolic link is followed: it is the file it points to
// (EvalSymlinks, or the link's chain by hand when that file does not exist
// yet) that is written, and the link stays. A regular file, or a new one,
// is written through a temporary file in the same directory, renamed over
// it once complete: on any failure, or on SIGINT or SIGTERM while it is
// written, the temporary file is removed and the file is left as it was
// (an interrupted write returns an *interruptedError, so that neardup exits
// with 130 or 143). A new file gets mode 0644, a replaced one keeps its
// mode. Anything else that exists, such as a FIFO or a device, and any
// file named under /dev or /proc (/dev/stdout, /dev/fd/3), cannot be
// replaced by renaming and is written directly.
func writeFileWhole(path string, w io.WriterTo) error {
	// A name of an open file or device, such as /dev/stdout (a link to
	// /proc/self/fd/1, which links to a pipe or a terminal by a name that
	// is not a path), is written as it is.
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() && (!fi.Mode().IsRegular() || systemPath(path)) {
		return writeDirect(path, path, fi.Mode().IsRegular(), w)
	}
	target, err := resolveOut(path)
	if err != nil {
		return usageError{fmt.Errorf("idf build: --out %s: %w", path, ioCause(err))}
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		switch {
		case fi.IsDir():
			return usagef("idf build: --out %s is a directory; want a file", path)
		case !fi.Mode().IsRegular():
			return writeDirect(path, target, false, w)
		}
		mode = fi.Mode().Perm()
	}
	// Signals are caught before the temporary file exists, so that none
	// can end the process while it is there.
	sw := &sigWatch{c: make(chan os.Signal, 1)}
	signal.Notify(sw.c, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sw.c)
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return usageError{fmt.Errorf("idf build: --out %s: %w", path, ioCause(err))}
	}
	tmp := f.Name()
	_, err = w.WriteTo(&stopWriter{f, sw})
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if s := sw.caught(); s != nil {
		os.Remove(tmp)
		return &interruptedError{sig: s, msg: fmt.Sprintf("idf build: interrupted by %s while writing --out %s: it is left as it was, and the temporary file is removed", signalLabel(s), path)}
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("idf build: writing %s: %w", path, err)
	}
	signal.Stop(sw.c)
	if s := sw.caught(); s != nil {
		// Too late to stop: the table is whole. The run still ends as
		// the signal asked.
		return &interruptedError{sig: s, msg: fmt.Sprintf("idf build: interrupted by %s as --out %s was written whole", signalLabel(s), path)}
	}
	return nil
}

// sigWatch holds the signals caught while --out is written.
type sigWatch struct {
	c   chan os.Signal // signal.Notify's channel
	got os.Signal      // the first signal caught, nil before
}

// caught returns the signal caught so far, or nil; it does not wait.
func (w *sigWatch) caught() os.Signal {
	if w.got == nil {
		select {
		case s := <-w.c:
			w.got = s
		default:
		}
	}
	return w.got
}

// stopWriter writes to w until a signal is caught; then every write
// fails, so that a long write stops soon after SIGINT or SIGTERM.
type stopWriter struct {
	w   io.Writer
	sig *sigWatch
}

// Write writes p to the underlying writer, or fails once a signal came.
func (s *stopWriter) Write(p []byte) (int, error) {
	if sig := s.sig.caught(); sig != nil {
		return 0, fmt.Errorf("interrupted by %s", signalLabel(sig))
	}
	return s.w.Write(p)
}

// signalLabel names a signal as a shell does: SIGINT, SIGTERM.
func signalLabel(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// writeDirect writes w's output straight to target, an existing file that
// is neither regular nor a directory (a FIFO, a device), which path (as
// given to --out) names or links to, or a regular file open as standard
// output (/dev/stdout): that one is appended to, as the shell's own
// descriptor would write after what is there, not over it.
func writeDirect(path, target string, regular bool, w io.WriterTo) error {
	flag := os.O_WRONLY
	if regular {
		flag |= os.O_APPEND
	}
	f, err := os.OpenFile(target, flag, 0)
	if err != nil {
		return usageError{fmt.Errorf("idf build: --out %s: %w", path, ioCause(err))}
	}
	_, err = w.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("idf build: writing %s: %w", path, ioCause(err))
	}
	return nil
}

// systemPath reports whether path is under /dev or /proc, where names
// stand for devices and open files, not files to replace.
func systemPath(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	return strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")
}

// resolveOut returns the file path names once symbolic links are followed:
// path itself when it is not a link (or does not exist), else the file its
// chain of links ends at, which need not exist yet (a dangling link is
// followed to where the file is to be made).
func resolveOut(path string) (string, error) {
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t, nil
	}
	cur := path
	for range 40 { // as many links as Linux follows
		fi, err := os.Lstat(cur)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			// cur does not exist, or is not a link: it is the file (a
			// missing directory on the way is reported when it is made).
			return cur, nil
		}
		dest, err := os.Readlink(cur)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(cur), dest)
		}
		cur = dest
	}
	return "", errors.New("too many levels of symbolic links")
}

// readDocuments calls add for each document of the file name ("-" is in):
// the whole file, or each line without its terminator when lines is set
// (a line longer than maxLine is a usage error naming it).
// Blank (empty or white-space-only) files and lines are not documents. Read
// errors, like a directory given as a file, are usage errors naming the
// input.
func readDocuments(in io.Reader, name string, lines bool, maxLine int, add func([]byte)) error {
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
	z, err := decompress.NewReader(r)
	if err != nil {
		return usagef("idf build: reading %s: %v", label, ioCause(err))
	}
	defer z.Close()
	r = z
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
	err = eachLine(r, name, maxLine, func(_ int, line []byte) error {
		if len(bytes.TrimSpace(line)) > 0 {
			add(line)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("idf build: %w", err)
	}
	return nil
}
