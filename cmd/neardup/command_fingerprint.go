package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/nilsimsa"
)

// defaultMaxLine is the longest line --lines and --pairs read: a longer
// line is an error naming it, so memory stays bounded whatever the input.
const defaultMaxLine = 64 << 20

// fingerprintFlags selects the fingerprinter of fingerprint and compare.
type fingerprintFlags struct {
	profile string
	bits    int
	algo    string
	pipe    pipelineFlags
}

// register adds the flags to cmd.
func (f *fingerprintFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.profile, "profile", "default", "fingerprint profile: default, classic, py-simhash, go-mfonda or nilsimsa")
	fl.IntVar(&f.bits, "bits", 64, "SimHash width: 64 or 128 (nilsimsa is always 256: any other --bits with it is an error)")
	fl.StringVar(&f.algo, "algo", "simhash", "simhash, or nilsimsa (the same as --profile nilsimsa)")
	f.pipe.addFlags(fl)
}

// fingerprinter returns the Fingerprinter the flags describe and its
// Config, or a usage error for an unknown profile, width or algorithm.
func (f *fingerprintFlags) fingerprinter(cmd *cobra.Command) (neardup.Fingerprinter, neardup.Config, error) {
	profile := f.profile
	switch f.algo {
	case "simhash":
		if profile == "nilsimsa" && cmd.Flags().Changed("algo") {
			return nil, neardup.Config{}, usagef("--algo simhash conflicts with --profile nilsimsa")
		}
	case "nilsimsa":
		if cmd.Flags().Changed("profile") && profile != "nilsimsa" {
			return nil, neardup.Config{}, usagef("--algo nilsimsa conflicts with --profile %s", profile)
		}
		profile = "nilsimsa"
	default:
		return nil, neardup.Config{}, usagef("unknown --algo %q: want simhash or nilsimsa", f.algo)
	}
	if profile == "nilsimsa" && cmd.Flags().Changed("bits") && f.bits != 256 {
		by := "--profile nilsimsa"
		if f.algo == "nilsimsa" {
			by = "--algo nilsimsa"
		}
		return nil, neardup.Config{}, usagef("--bits %d conflicts with %s: nilsimsa digests are 256 bits", f.bits, by)
	}
	if err := checkProfileBits(profile, f.bits); err != nil {
		return nil, neardup.Config{}, err
	}
	pipe, err := f.pipe.pipeline(profile)
	if err != nil {
		return nil, neardup.Config{}, err
	}
	cfg := neardup.Config{Profile: profile, Bits: f.bits, Pipeline: pipe}
	fp, err := neardup.NewFingerprinter(cfg)
	if err != nil {
		return nil, neardup.Config{}, usageError{unprefixed{err}}
	}
	return fp, cfg, nil
}

// checkProfileBits returns a usage error naming --profile or --bits, as
// cluster's are worded, unless profile is known and, a SimHash profile,
// makes fingerprints bits wide (nilsimsa's width is checked by the caller).
func checkProfileBits(profile string, bits int) error {
	if !slices.Contains(neardup.Profiles(), profile) {
		return usagef("--profile %q: no such profile; want %s", profile, orList(neardup.Profiles()))
	}
	if profile == "nilsimsa" {
		return nil
	}
	if bits != 64 && bits != 128 {
		return usagef("--bits %d: want 64 or 128", bits)
	}
	if (neardup.Config{Profile: profile, Bits: bits}).Validate() != nil {
		var widths []string
		for _, w := range []int{64, 128} {
			if (neardup.Config{Profile: profile, Bits: w}).Validate() == nil {
				widths = append(widths, strconv.Itoa(w))
			}
		}
		return usagef("--bits %d: profile %q makes %s-bit fingerprints only", bits, profile, orList(widths))
	}
	return nil
}

// maxWorkers is the most goroutines fingerprint --workers may ask for:
// each holds batches of up to a megabyte in flight, so that a mistyped
// count cannot take gigabytes of memory, and more than this many gain
// nothing on any machine neardup runs on.
const maxWorkers = 1024

// newFingerprintCmd returns `neardup fingerprint`.
func newFingerprintCmd() *cobra.Command {
	var (
		ff      fingerprintFlags
		lines   bool
		format  string
		in      docInput // the record formats' flags
		maxLine int
		workers int
	)
	cmd := &cobra.Command{
		Use:   "fingerprint [--profile NAME] [--bits 64|128] [--algo simhash|nilsimsa] [--lines | --format F] [FILE...]",
		Short: "Print the fingerprint of each document",
		Long: `Fingerprint prints one line per document: the fingerprint in lower-case hex,
zero-padded to the full width (16, 32 or 64 digits), a tab, and the document's
name. In the name, a backslash is written \\, and a tab or a line break \t,
\n or \r, so that every line has one tab and each name is written one way
only ('neardup pairs' reads names so and writes them back the same).

Each FILE is one document, its exact bytes, named by the FILE argument; "-" or
no FILE at all reads standard input, named "-" ("-" can be given once). An
input compressed with gzip, zstd, bzip2 or xz (told from its first bytes, not
its name) is read decompressed: the document is the text it holds. With
--lines, each line of each input is a document, without its line terminator
("\n" or "\r\n"), named by its 1-based line number (FILE:N, or -:N for
standard input, when more than one input is given). --lines streams: memory
stays bounded whatever the size of the input: 2 x --workers + 1 batches of
lines are in flight, each of about a MiB or one line of up to --max-line
bytes, so lines near --max-line take that many times it; a longer line is an
error that names it. Without --lines a SimHash profile reads each
document into memory; nilsimsa digests whole documents as they stream by.

Corpora in dedup's formats are read as dedup reads them, one document a
record named by its id: --format jsonl, csv, parquet or warc (the text in
--text-field, the id in --id-field, or the line or row number, FILE:N when
more than one input is given; a WARC record's body, named by its
WARC-Record-ID; --on-error and --warc-status as in dedup), or dir (each
file under a directory, named by its relative path). --format auto, the
default, tells them by name: .jsonl and .ndjson are JSONL, .csv CSV,
.parquet Parquet, .warc and .wet WARC (a .gz, .zst, .bz2 or .xz after it
too), a directory is dir (or, as in dedup, its files when all are shards of
those formats), and any other FILE (standard input too) is one
document. 'neardup fingerprint corpus.jsonl | neardup pairs --k 3' lists
the pairs of a corpus by id.

Profiles (see neardup.Config): default (neardup's pipeline; empty text gives
0), classic (empty text gives all ones), py-simhash (empty text gives
e9800998ecf8427e), go-mfonda (64 bits only; empty text gives all ones),
nilsimsa (256 bits; texts under 3 bytes give 0). Invalid UTF-8 is read as
U+FFFD by the text profiles; nilsimsa hashes bytes as they are.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fp, _, err := ff.fingerprinter(cmd)
			if err != nil {
				return err
			}
			if maxLine < 1 {
				return usagef("--max-line must be positive, not %d", maxLine)
			}
			in.maxLine = maxLine
			if format, err = in.checkFormat("fingerprint", format, lines); err != nil {
				return err
			}
			bad := in.badRecord(cmd.ErrOrStderr(), "fingerprint", "the fingerprints before it were written")
			if workers < 1 || workers > maxWorkers {
				return usagef("--workers %d: want 1 to %d", workers, maxWorkers)
			}
			if len(args) == 0 {
				args = []string{"-"}
			}
			if n := countStdin(args); n > 1 {
				return usagef(`fingerprint: "-" is given %d times, but standard input can be read once; give it once`, n)
			}
			out := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
			for _, name := range args {
				switch kind := inputKind(name, format); kind {
				case "file", "lines":
				default:
					rin := in
					rin.format = kind
					if kind == "dir" && format == "auto" {
						rin.format = "auto" // a directory of shards is read as its files
					}
					var srcs []source
					if srcs, err = rin.sources([]string{name}); err == nil {
						for _, src := range srcs {
							if err = fingerprintRecords(&rin, cmd.InOrStdin(), src, len(args) > 1 || len(srcs) > 1, workers, fp, out, bad); err != nil {
								break
							}
						}
					}
					if err != nil {
						out.Flush()
						return fmt.Errorf("fingerprint: %w", err)
					}
					continue
				}
				if format == "lines" {
					prefix := ""
					if len(args) > 1 {
						prefix = name + ":"
					}
					err = withInput(cmd, name, func(r io.Reader) error {
						return fingerprintLines(r, name, prefix, maxLine, workers, fp, out)
					})
				} else {
					err = withInput(cmd, name, func(r io.Reader) error {
						f, err := fingerprintDocument(r, fp)
						if err != nil {
							// ioCause: the message names the input already.
							return usagef("read %s: %v", inputName(name), ioCause(err))
						}
						return printFingerprint(out, f, name)
					})
				}
				if err != nil {
					out.Flush()
					return err
				}
			}
			return out.Flush()
		},
	}
	ff.register(cmd)
	cmd.Flags().BoolVar(&lines, "lines", false, "each line of the input is a document, named by its line number")
	cmd.Flags().StringVar(&format, "format", "auto", "input format: "+recordFormats+" (auto: .jsonl and .ndjson are JSONL, .csv CSV, .parquet Parquet, .warc and .wet WARC, a directory dir, anything else one document; file: the whole input one document)")
	cmd.Flags().IntVar(&maxLine, "max-line", defaultMaxLine, "longest line --lines accepts, or record or file of a directory, in bytes")
	in.addRecordFlags(cmd.Flags(), true)
	cmd.Flags().IntVar(&workers, "workers", min(runtime.GOMAXPROCS(0), maxWorkers), fmt.Sprintf("goroutines fingerprinting the documents of --lines and of the record formats, 1 to %d (output stays in input order)", maxWorkers))
	return cmd
}

// lineBatch is a run of consecutive lines fingerprinted together.
type lineBatch struct {
	buf   []byte   // the lines' bytes, back to back
	ends  []int    // where each line ends in buf
	first int      // the number of the first line
	names []string // the documents' names, when they are not line numbers
	fps   []neardup.Fingerprint
	done  chan struct{} // closed when fps is filled
}

// Batches hold up to batchLines lines or about batchBytes bytes.
const (
	batchLines = 1024
	batchBytes = 1 << 20
)

// fingerprintLines prints the fingerprint of every line of r, named by
// prefix and its line number.
func fingerprintLines(r io.Reader, name, prefix string, maxLine, workers int, fp neardup.Fingerprinter, out *bufio.Writer) error {
	return fingerprintEach(workers, fp, out, false, prefix, func(add func(n int, name string, text []byte) error) error {
		return eachLine(r, name, maxLine, func(n int, line []byte) error { return add(n, "", line) })
	})
}

// fingerprintRecords prints the fingerprint of every record of the source
// s, read by in (one of several inputs when multi), named by its id.
func fingerprintRecords(in *docInput, stdin io.Reader, s source, multi bool, workers int, fp neardup.Fingerprinter, out *bufio.Writer, bad func(*inputError) error) error {
	return fingerprintEach(workers, fp, out, true, "", func(add func(n int, name string, text []byte) error) error {
		return in.readSource(stdin, s, multi, func(r *record) error {
			return add(0, r.doc.ID, []byte(r.doc.Text))
		}, bad, nil)
	})
}

// fingerprintEach prints the fingerprint of every document that each
// gives to add, computed by workers goroutines and printed in input
// order: named by name when named is set, else by prefix and its line
// number n. Memory stays bounded: at most 2*workers+1 batches are in
// flight, each of about batchBytes bytes or one document.
func fingerprintEach(workers int, fp neardup.Fingerprinter, out *bufio.Writer, named bool, prefix string, each func(add func(n int, name string, text []byte) error) error) error {
	nbatch := 2*workers + 1
	free := make(chan *lineBatch, nbatch)
	for range nbatch {
		free <- &lineBatch{done: make(chan struct{})}
	}
	work := make(chan *lineBatch, nbatch)
	ordered := make(chan *lineBatch, nbatch)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				b.fps = b.fps[:0]
				start := 0
				for _, end := range b.ends {
					b.fps = append(b.fps, fp.Fingerprint(b.buf[start:end]))
					start = end
				}
				close(b.done)
			}
		}()
	}
	// The reader fills batches and hands them to the workers and, in order,
	// to the printer below; it stops early when the printer fails.
	readErr := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		defer close(ordered)
		defer close(work)
		var b *lineBatch
		send := func() bool {
			select {
			case ordered <- b:
				work <- b
				b = nil
				return true
			case <-stop:
				return false
			}
		}
		err := each(func(n int, name string, line []byte) error {
			if b == nil {
				select {
				case b = <-free:
				case <-stop:
					return errStopped
				}
				b.buf, b.ends, b.first, b.names = b.buf[:0], b.ends[:0], n, b.names[:0]
				b.done = make(chan struct{})
			}
			b.buf = append(b.buf, line...)
			b.ends = append(b.ends, len(b.buf))
			if named {
				b.names = append(b.names, name)
			}
			if (len(b.ends) >= batchLines || len(b.buf) >= batchBytes) && !send() {
				return errStopped
			}
			return nil
		})
		// Lines read before an error are still printed.
		if b != nil && err != errStopped && !send() && err == nil {
			err = errStopped
		}
		readErr <- err
	}()
	var printErr error
	for b := range ordered {
		<-b.done
		for i, f := range b.fps {
			if printErr == nil {
				var name string
				if named {
					name = b.names[i]
				} else {
					name = prefix + strconv.Itoa(b.first+i)
				}
				printErr = printFingerprint(out, f, name)
				if printErr != nil {
					close(stop)
				}
			}
		}
		if printErr == nil {
			free <- b
		}
	}
	wg.Wait()
	if err := <-readErr; err != nil && err != errStopped {
		return err
	}
	return printErr
}

// errStopped ends reading when printing has failed.
var errStopped = errors.New("stopped")

// fingerprintDocument returns the fingerprint of all of r. nilsimsa digests
// are computed as the input streams by, in constant memory; the SimHash
// profiles need the whole document in memory.
func fingerprintDocument(r io.Reader, fp neardup.Fingerprinter) (neardup.Fingerprint, error) {
	if fp.Bits() == 8*nilsimsa.Size {
		d := nilsimsa.New()
		if _, err := io.Copy(d, r); err != nil {
			return neardup.Fingerprint{}, err
		}
		return neardup.FromBytes(d.Sum(nil))
	}
	text, err := io.ReadAll(r)
	if err != nil {
		return neardup.Fingerprint{}, err
	}
	return fp.Fingerprint(text), nil
}

// printFingerprint writes one output line: HEX, a tab, the name
// (tsvField).
func printFingerprint(w *bufio.Writer, f neardup.Fingerprint, name string) error {
	w.WriteString(f.String())
	w.WriteByte('\t')
	w.WriteString(tsvField(name))
	return w.WriteByte('\n')
}

// tsvEscaper writes tabs, line breaks and backslashes as escapes.
var tsvEscaper = strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)

// tsvField returns s as a field of a line of tab-separated values: with
// \\ for its backslashes and \t, \n and \r for its tabs and line breaks,
// which would break the line's columns. Backslashes are escaped always, so
// that two names never give one field (a name holding a backslash and a
// "t" is not written as one holding a tab); tsvUnescape reads it back.
func tsvField(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return s
	}
	return tsvEscaper.Replace(s)
}

// tsvUnescape undoes tsvField: \\, \t, \n and \r are a backslash, a tab
// and line breaks. A backslash before anything else, or at the end, is
// kept as it is, so that a field written by other tools reads as written.
func tsvUnescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '\\':
			case 't':
				c = '\t'
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			default:
				b.WriteByte(c)
				continue
			}
			i++
		}
		b.WriteByte(c)
	}
	return b.String()
}

// countStdin returns how many of the inputs args are "-", standard input.
func countStdin(args []string) int {
	n := 0
	for _, a := range args {
		if a == "-" {
			n++
		}
	}
	return n
}

// withInput calls f with the named input: standard input for "-", else the
// file, closed afterwards; decompressed when it is compressed (see
// decompressed). A file that cannot be opened is a usage error.
func withInput(cmd *cobra.Command, name string, f func(io.Reader) error) error {
	if name == "-" {
		return decompressed(cmd.InOrStdin(), inputName(name), f)
	}
	file, err := os.Open(name)
	if err != nil {
		return usageError{err}
	}
	defer file.Close()
	return decompressed(file, name, f)
}

// eachLine calls f with every line of r and its 1-based number, without the
// line terminator ("\n" or "\r\n"); a last line without a terminator counts,
// an empty input has no lines. line is only valid during the call. A line
// longer than maxLine bytes is a usage error naming name and the line.
func eachLine(r io.Reader, name string, maxLine int, f func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var long []byte // a line longer than the reader's buffer, assembled
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				if len(long) > maxLine {
					return usagef("%s: line %d is longer than --max-line (%d bytes)", inputName(name), n, maxLine)
				}
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			return usagef("read %s: line %d: %v", inputName(name), n, ioCause(err))
		}
		if len(line) == 0 && err == io.EOF {
			return nil
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > maxLine {
			return usagef("%s: line %d is longer than --max-line (%d bytes)", inputName(name), n, maxLine)
		}
		if ferr := f(n, line); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return nil
		}
	}
}

// fingerprintDistance returns the Hamming distance of a and b, or a usage
// error naming them when their widths differ.
func fingerprintDistance(a, b neardup.Fingerprint) (int, error) {
	d, err := neardup.Distance(a, b)
	if err != nil {
		return 0, usageError{unprefixed{fmt.Errorf("fingerprints %s (%d bits) and %s (%d bits) differ in width: %w",
			a, a.Bits(), b, b.Bits(), err)}}
	}
	return d, nil
}

// parseHex parses a fingerprint argument, with a usage error for bad hex.
func parseHex(s string) (neardup.Fingerprint, error) {
	f, err := neardup.ParseFingerprint(s)
	if err != nil {
		return f, usageError{unprefixed{err}}
	}
	return f, nil
}

// unprefixed shows a library error without its "neardup: " prefixes, since
// neardup prints its own; errors.Is and errors.As still see the error.
type unprefixed struct{ err error }

func (e unprefixed) Error() string { return strings.ReplaceAll(e.err.Error(), "neardup: ", "") }
func (e unprefixed) Unwrap() error { return e.err }

// inputName is how messages name an input: "standard input" for "-".
func inputName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}
