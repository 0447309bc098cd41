package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/zeebo/xxh3"
	"golang.org/x/term"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/internal/decompress"
	"github.com/neardup/neardup/internal/jsonscan"
	"github.com/neardup/neardup/store"
	"github.com/parquet-go/parquet-go"
)

// docInput holds the flags that say how documents are read; dedup and
// cluster share them.
type docInput struct {
	format    string
	lines     bool
	idField   string
	textField string
	onError   string
	maxLine   int
	// warcStatusFlag is --warc-status; warcStatus, the set it names
	// (validate parses it).
	warcStatusFlag string
	warcStatus     *statusSet

	// runID, when set (dedup --db), goes before every id made of a line
	// number, so that ids of different runs differ.
	runID string
	// oneSchema (dedup, whose output has one header or schema) refuses
	// a CSV input whose header differs from the first one's, and a
	// Parquet input whose schema does, before any of its records is
	// read; csvHeader and csvHeaderOf are that first header and its
	// input.
	oneSchema   bool
	csvHeader   []string
	csvHeaderOf string
	// parquetSchema and parquetSchemaOf are the first Parquet input's
	// schema and name, which every other must have with oneSchema.
	parquetSchema   *parquet.Schema
	parquetSchemaOf string

	// timeField and metaField (dedup --time-field, --meta-field) name the
	// JSONL field or CSV column of each document's time and metadata;
	// "" reads none.
	timeField, metaField string

	flags *pflag.FlagSet // the command's, to tell flags given from defaults
	// notes are the warnings sources found, for the command to print.
	notes []string
}

// addFlags adds the input flags to cmd.
func (in *docInput) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	in.flags = f
	f.StringVar(&in.format, "format", "auto", "input format: auto, jsonl, csv, parquet, warc, lines or dir (auto: by extension, .csv is CSV, .parquet Parquet, .warc and .wet WARC, a directory is dir, or its files when all are shards of those formats, anything else JSONL; plain text needs --lines)")
	f.BoolVar(&in.lines, "lines", false, "read plain text, one document per line (id = line number)")
	f.StringVar(&in.idField, "id-field", "id", "JSONL/CSV field, Parquet column or WARC header field (default there WARC-Record-ID) holding the document id (missing: the line or row number)")
	f.StringVar(&in.textField, "text-field", "text", "JSONL/CSV field or Parquet column holding the text; a.b is field b of object a (JSONL) or column b of group a (Parquet) when none is named a.b itself")
	f.StringVar(&in.onError, "on-error", "fail", "on a malformed line: fail (exit 2) or skip (report it on stderr and go on)")
	f.IntVar(&in.maxLine, "max-line", 64<<20, "longest line or file, in bytes, accepted as one document")
	f.StringVar(&in.warcStatusFlag, "warc-status", defaultWARCStatus, "HTTP statuses of the WARC response records that are documents: codes (200) and classes (2xx) separated by commas, or all; the others (redirects, 404 pages) are neither decided nor written")
}

// validate checks the input flags; a bad one is a usage error.
func (in *docInput) validate() error {
	switch in.format {
	case "auto", "jsonl", "csv", "parquet", "warc", "lines", "dir":
	default:
		return usagef("--format %q: want auto, jsonl, csv, parquet, warc, lines or dir", in.format)
	}
	if in.lines && in.format != "auto" && in.format != "lines" {
		return usagef("--lines conflicts with --format %s (--lines is --format lines)", in.format)
	}
	if in.lines || in.format == "lines" {
		for _, name := range []string{"text-field", "id-field"} {
			if in.flags != nil && in.flags.Changed(name) {
				return usagef("--%s with plain text (--lines): a line is the text, and its number the id; there are no fields to name", name)
			}
		}
	}
	if in.onError != "fail" && in.onError != "skip" {
		return usagef("--on-error %q: want fail or skip", in.onError)
	}
	if in.maxLine <= 0 {
		return usagef("--max-line must be positive")
	}
	set, err := parseStatusSet(in.warcStatusFlag)
	if err != nil {
		return usagef("--warc-status %q: %v", in.warcStatusFlag, err)
	}
	in.warcStatus = set
	return nil
}

// record is one input document with what is needed to write it back in
// its own format.
type record struct {
	doc    neardup.Document
	where  string          // "file:line" for messages
	raw    []byte          // the JSONL or text line, the WARC record, or the directory path
	fields []string        // the CSV record
	kind   string          // jsonl, csv, parquet, warc, lines or dir
	header []string        // CSV header of its file
	row    parquet.Row     // the Parquet row
	schema *parquet.Schema // and its file's schema
}

// inputError is a malformed input line; --on-error skip passes over it.
type inputError struct {
	where string
	err   error
}

// Error returns "file:line: what is wrong".
func (e *inputError) Error() string { return e.where + ": " + e.err.Error() }

// stopError is an input that cannot be read on (a read failure, a CSV
// header unlike the first one's): reading stops there, whatever
// --on-error says. The reader returns it as a usageError.
type stopError struct {
	where string
	err   error
}

// Error returns "file:line: what is wrong".
func (e *stopError) Error() string { return e.where + ": " + e.err.Error() }

// ioCause is err without the operation and path an *fs.PathError adds,
// for messages that name the path already.
func ioCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// utf8BOM is the byte order mark some editors put at the start of a file.
const utf8BOM = "\ufeff"

// source is one input (a file, a directory, or standard input).
type source struct {
	name string // as given; "-" for standard input
	kind string
	size int64 // bytes, for the progress bar (0 if unknown)
}

// sources resolves the inputs and their formats.
func (in *docInput) sources(args []string) ([]source, error) {
	if len(args) == 0 {
		args = []string{"-"}
	}
	if n := countStdin(args); n > 1 {
		return nil, usagef(`"-" is given %d times, but standard input can be read once; give it once`, n)
	}
	var out []source
	for _, a := range args {
		s := source{name: a}
		var info fs.FileInfo
		if a != "-" {
			var err error
			if info, err = os.Stat(a); err != nil {
				return nil, usageError{err}
			}
			s.size = info.Size()
		}
		if in.format == "auto" && !in.lines && info != nil && info.IsDir() {
			shards, odd := recordFiles(a)
			if len(shards) > 0 {
				out = append(out, shards...)
				continue
			}
			if odd != "" {
				in.notes = append(in.notes, shardsNote(a, odd))
			}
		}
		switch {
		case in.lines:
			s.kind = "lines"
		case in.format != "auto":
			s.kind = in.format
		case info != nil && info.IsDir():
			s.kind = "dir"
		case recordKind(a) != "":
			s.kind = recordKind(a)
		default:
			s.kind = "jsonl" // .jsonl, or any other name
		}
		if s.kind == "parquet" {
			if a == "-" {
				return nil, usagef("--format parquet reads files, not standard input (a Parquet file is read from its end); save it to a file first")
			}
			s.size = 0 // read by row groups, not as a stream: no progress by bytes
		}
		if s.kind == "dir" {
			if info == nil || !info.IsDir() {
				return nil, usagef("%s is not a directory", a)
			}
			s.size = 0
		} else if info != nil && info.IsDir() {
			return nil, usagef("%s is a directory; --format %s reads files", a, s.kind)
		}
		out = append(out, s)
	}
	return out, nil
}

// oneFormat refuses dedup inputs of more than one format: the documents
// kept are written in their input's format, to one output, which would
// then mix two (a CSV header and rows amid JSON lines, WARC records amid
// either).
func oneFormat(srcs []source) error {
	for _, s := range srcs[1:] {
		if s.kind != srcs[0].kind {
			return usagef("dedup: %s is %s and %s is %s: the documents kept are written in their input's format, and one output cannot hold both; dedup each format in a run of its own (with the same --db to dedup across them)", srcs[0].name, formatName(srcs[0].kind), s.name, formatName(s.kind))
		}
	}
	return nil
}

// formatName names an input format (source.kind) for messages.
func formatName(kind string) string {
	switch kind {
	case "jsonl":
		return "JSON Lines"
	case "csv", "warc":
		return strings.ToUpper(kind)
	case "lines":
		return "plain text"
	case "dir":
		return "a directory of files"
	}
	return kind
}

// recordFiles returns the files under dir, in name order, as sources of
// their formats when dir is a corpus kept in shards: every file that is
// not hidden (named with a leading "." or "_", as Spark's _SUCCESS and
// .crc files are) is JSONL (.jsonl, .ndjson, or .json when the first
// such file's first line is a JSON object), CSV, Parquet or WARC by its
// name, compressed or not, and there is one at least. For any
// other directory it returns none, and the directory is read one document
// a file.
//
// odd is the file that made dir no corpus of shards, when it is not the
// first file of the walk, or is but files named as shards are beside it:
// one README among shards, say, which turns them into documents.
func recordFiles(dir string) (shards []source, odd string) {
	var out []source
	isShards, jsonChecked := true, false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			// Unlisted: read as a directory of documents, which says
			// what it cannot list.
			isShards = false
			return filepath.SkipAll
		}
		if path != dir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		kind := recordKind(path)
		if kind == "" && strings.EqualFold(filepath.Ext(decompress.TrimExt(path)), ".json") && (jsonChecked || firstLineJSON(path)) {
			// JSON Lines too, as many datasets name them, unless the
			// first one is a JSON document of several lines (one a
			// file, as API dumps keep them).
			kind, jsonChecked = "jsonl", true
		}
		if kind == "" {
			isShards, odd = false, path
			return filepath.SkipAll
		}
		s := source{name: path, kind: kind}
		if info, err := d.Info(); err == nil && kind != "parquet" {
			s.size = info.Size()
		}
		out = append(out, s)
		return nil
	})
	if !isShards {
		if odd != "" && len(out) == 0 && !namedAsShards(dir) && !namedAsShards(filepath.Dir(odd)) {
			odd = "" // a directory of documents, as it looks
		}
		return nil, odd
	}
	return out, ""
}

// namedAsShards reports whether dir holds a file (not hidden) named as a
// shard is (recordKind): a listing of names, none opened.
func namedAsShards(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if n := e.Name(); !strings.HasPrefix(n, ".") && !strings.HasPrefix(n, "_") && e.Type().IsRegular() && recordKind(n) != "" {
			return true
		}
	}
	return false
}

// shardsNote is the warning for a directory of shards read as a
// directory of documents because of the one file odd.
func shardsNote(dir, odd string) string {
	return fmt.Sprintf("warning: %s is read one document a file (its files' paths are what is written), not as shards of records: %s is not named as a shard is (.jsonl, .ndjson, .json, .csv, .parquet, .warc, .wet, compressed or not); move it out, or start its name with . or _ to have the shards read", dir, odd)
}

// firstLineJSON reports whether the first line of the file at path
// (decompressed) is a JSON object whole, as a JSONL file's is.
func firstLineJSON(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	z, err := decompress.NewReader(f)
	if err != nil {
		return false
	}
	defer z.Close()
	line, err := bufio.NewReaderSize(z, 64<<10).ReadSlice('\n')
	if err != nil && err != io.EOF {
		return false
	}
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte(utf8BOM)))
	return len(line) > 0 && line[0] == '{' && json.Valid(line)
}

// read calls emit for every document of the sources, in order. A malformed
// line is passed to bad; if bad returns an error, reading stops with it.
// progress, if not nil, is told how many bytes were read.
func (in *docInput) read(stdin io.Reader, srcs []source, emit func(*record) error, bad func(*inputError) error, progress func(int)) error {
	multi := len(srcs) > 1
	for _, s := range srcs {
		if err := in.readSource(stdin, s, multi, emit, bad, progress); err != nil {
			return err
		}
	}
	return nil
}

// readSource is read for the one source s (multi: one of several, whose
// ids made of line numbers then name it). A file is closed once read, so
// that any number of inputs can be read one after the other.
func (in *docInput) readSource(stdin io.Reader, s source, multi bool, emit func(*record) error, bad func(*inputError) error, progress func(int)) error {
	if s.kind == "dir" {
		return in.readDir(s.name, emit, bad)
	}
	if s.kind == "parquet" {
		prefix := ""
		if multi {
			prefix = s.name + ":"
		}
		return in.readParquet(s.name, prefix, emit, bad)
	}
	r := stdin
	name := "standard input"
	if s.name != "-" {
		f, err := os.Open(s.name)
		if err != nil {
			return usageError{err}
		}
		defer f.Close() // read only: nothing to report on closing
		r, name = f, s.name
	}
	if progress != nil {
		r = &countReader{r: r, add: progress} // the bytes of the file, compressed or not
	}
	z, err := decompress.NewReader(r)
	if err != nil {
		return usageError{&stopError{name + ":1", fmt.Errorf("cannot read: %w", ioCause(err))}}
	}
	defer z.Close()
	prefix := ""
	if multi {
		prefix = name + ":"
	}
	switch s.kind {
	case "csv":
		return in.readCSV(z, name, prefix, emit, bad)
	case "warc":
		return in.readWARC(z, name, prefix, emit, bad)
	}
	return in.readLines(z, name, prefix, s.kind, emit, bad)
}

// countReader tells add how many bytes each Read of r read (the
// progress bar).
type countReader struct {
	r   io.Reader
	add func(int)
}

// Read reads from the underlying reader and adds what it read.
func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.add(n)
	return n, err
}

// readLines reads JSONL or plain lines. Lines longer than --max-line are
// malformed; a final line without a newline counts. A UTF-8 byte order
// mark at the start of a JSONL input is dropped.
func (in *docInput) readLines(r io.Reader, name, idPrefix, kind string, emit func(*record) error, bad func(*inputError) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte
	first := true // no line but blank ones read yet
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		tooLong := -1 // the length of a line longer than --max-line
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= in.maxLine {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				// Too long: measure the rest without keeping it, minding
				// a "\r\n" split between two reads.
				n, last := len(long), long[len(long)-1]
				for errors.Is(err, bufio.ErrBufferFull) {
					b, err = br.ReadSlice('\n')
					n += len(b)
					if len(b) > 0 && bytes.HasSuffix(b, []byte("\n")) {
						n--
						if len(b) > 1 && b[len(b)-2] == '\r' || len(b) == 1 && last == '\r' {
							n--
						}
					}
					if len(b) > 0 {
						last = b[len(b)-1]
					}
				}
				tooLong = n
			}
			b = long
		}
		where := fmt.Sprintf("%s:%d", name, line)
		if err != nil && !errors.Is(err, io.EOF) {
			return usageError{&stopError{where, fmt.Errorf("cannot read: %w", ioCause(err))}}
		}
		if len(b) == 0 && err != nil {
			return nil
		}
		raw := bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
		if line == 1 && kind == "jsonl" {
			raw = bytes.TrimPrefix(raw, []byte(utf8BOM))
		}
		if tooLong < 0 && len(raw) > in.maxLine {
			tooLong = len(raw)
		}
		atFirst := first
		if len(bytes.TrimSpace(raw)) > 0 {
			first = false
		}
		if tooLong >= 0 {
			if e := bad(&inputError{where, fmt.Errorf("line of %d bytes is longer than --max-line %d", tooLong, in.maxLine)}); e != nil {
				return e
			}
		} else if rec, perr := in.parseLine(raw, kind, where, in.runID+idPrefix+strconv.Itoa(line)); perr != nil {
			if atFirst && kind == "jsonl" && errors.Is(perr.err, errNotObject) && looksPlain(name, raw, perr.err) {
				perr.err = fmt.Errorf("%w (plain text? --lines reads one document per line)", perr.err)
			}
			if e := bad(perr); e != nil {
				return e
			}
		} else if rec != nil {
			if e := emit(rec); e != nil {
				return e
			}
		}
		if err != nil {
			return nil
		}
	}
}

// parseLine turns one line into a record; it returns nil for a blank JSONL
// line.
func (in *docInput) parseLine(raw []byte, kind, where, lineID string) (*record, *inputError) {
	rec := &record{where: where, raw: bytes.Clone(raw), kind: kind}
	if kind == "lines" {
		rec.doc = neardup.Document{ID: lineID, Text: string(raw)}
		return rec, nil
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	if in.timeField == "" && in.metaField == "" {
		if doc, ok := in.fastLine(raw, lineID); ok {
			rec.doc = doc
			return rec, nil
		}
	}
	doc, err := in.jsonLine(raw, lineID)
	if err != nil {
		return nil, &inputError{where, err}
	}
	rec.doc = doc
	return rec, nil
}

// errNotObject marks a JSONL line that is not a JSON object: malformed
// JSON, or another JSON value.
var errNotObject = errors.New("not a JSON object")

// notObjectError is a JSONL line that is not a JSON object (syntax: not
// JSON at all); Is reports errNotObject.
type notObjectError struct {
	msg    string
	syntax bool
}

// Error returns the message.
func (e *notObjectError) Error() string { return e.msg }

// Is reports whether target is errNotObject.
func (e *notObjectError) Is(target error) bool { return target == errNotObject }

// looksPlain reports whether a JSONL input whose first line, raw, is not
// a JSON object (err) is likely plain text: its name ends in .txt, or the
// line is not JSON at all and does not start with '{' (after white space
// and a byte order mark).
func looksPlain(name string, raw []byte, err error) bool {
	if strings.EqualFold(filepath.Ext(decompress.TrimExt(name)), ".txt") {
		return true
	}
	var ne *notObjectError
	if !errors.As(err, &ne) || !ne.syntax {
		return false
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte(utf8BOM)), " \t\r\n")
	return len(t) == 0 || t[0] != '{'
}

// jsonKind names the kind of a JSON value, for messages: "an object",
// "an array", "a string", "a number", "a bool" or "null".
func jsonKind(v []byte) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a bool"
	case 'n':
		return "null"
	}
	return "a number"
}

// jsonLine reads a JSONL line with encoding/json. The id field may be a
// string or a number (its text as written: 5 and "5" are the same id);
// null or missing, the id is lineID. The text field must be a string.
func (in *docInput) jsonLine(raw []byte, lineID string) (neardup.Document, error) {
	doc := neardup.Document{ID: lineID}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return doc, &notObjectError{msg: fmt.Sprintf("want a JSON object, got %s", jsonKind(raw))}
		}
		msg := err.Error()
		if se, ok := err.(*json.SyntaxError); ok {
			msg = jsonscan.SyntaxMessage(raw, se)
		}
		return doc, &notObjectError{"malformed JSON: " + msg, true}
	}
	if obj == nil {
		return doc, &notObjectError{msg: "want a JSON object, got null"}
	}
	if v, ok := jsonField(obj, in.idField); ok {
		switch k := jsonKind(v); k {
		case "null":
		case "a string":
			if !utf8.Valid(v) {
				// encoding/json would read each bad byte as U+FFFD, and
				// two different ids could become one.
				return doc, fmt.Errorf("field %q is not valid UTF-8", in.idField)
			}
			if esc, ok := loneSurrogate(v); ok {
				// Read as U+FFFD too: "a\ud800" and "a\udbff" would
				// be one id.
				return doc, fmt.Errorf("field %q holds %s, a lone UTF-16 surrogate, which is no character (JSON decoding reads it as U+FFFD, so two different ids could become one)", in.idField, esc)
			}
			if err := json.Unmarshal(v, &doc.ID); err != nil {
				return doc, fmt.Errorf("field %q: %w", in.idField, err)
			}
		case "a number":
			doc.ID = string(bytes.TrimSpace(v)) // as written
		default:
			return doc, fmt.Errorf("field %q is %s; want a string or a number", in.idField, k)
		}
	}
	v, ok := jsonField(obj, in.textField)
	if !ok {
		return doc, fmt.Errorf("no %q field", in.textField)
	}
	if k := jsonKind(v); k != "a string" {
		return doc, fmt.Errorf("field %q is %s; want a string", in.textField, k)
	}
	if err := json.Unmarshal(v, &doc.Text); err != nil {
		return doc, fmt.Errorf("field %q: %w", in.textField, err)
	}
	if in.timeField != "" {
		if v, ok := jsonField(obj, in.timeField); ok {
			var err error
			if doc.Time, err = jsonTime(v); err != nil {
				return doc, fmt.Errorf("field %q: %w", in.timeField, err)
			}
		}
	}
	if in.metaField != "" {
		if v, ok := jsonField(obj, in.metaField); ok && jsonKind(v) != "null" {
			doc.Meta = bytes.Clone(bytes.TrimSpace(v))
		}
	}
	return doc, nil
}

// errTimeWant says what a document's time may be.
var errTimeWant = errors.New(`want a time in RFC 3339 ("2026-12-03T10:15:00Z") or Unix seconds`)

// jsonTime reads a document's time from the JSON value v: a string in RFC
// 3339, or a number of seconds since 1970 (fractions allowed). null is no
// time: the document is seen at the run's time, as without the field.
func jsonTime(v json.RawMessage) (time.Time, error) {
	switch jsonKind(v) {
	case "null":
		return time.Time{}, nil
	case "a string":
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return time.Time{}, err
		}
		return parseDocTime(s)
	case "a number":
		return parseDocTime(string(bytes.TrimSpace(v)))
	}
	return time.Time{}, fmt.Errorf("%s: %w", jsonKind(v), errTimeWant)
}

// parseDocTime reads a document's time from text: RFC 3339, or Unix
// seconds. The zero instant (year 1), which the engine reads as "now",
// is refused rather than taken for the time of the run.
func parseDocTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e11 {
			return time.Time{}, fmt.Errorf("%q: %w", s, errTimeWant)
		}
		sec, frac := math.Modf(f)
		t = time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
	}
	if t.IsZero() {
		return time.Time{}, fmt.Errorf("%q is the zero time, no time a document was seen", s)
	}
	return t, nil
}

// jsonField returns the member of obj that field names: the member of
// that name, or, when there is none and field holds dots, the member its
// path names through nested objects ("data.text": the text member of the
// data object), as tweets and API exports nest their texts.
func jsonField(obj map[string]json.RawMessage, field string) (json.RawMessage, bool) {
	if v, ok := obj[field]; ok || !strings.Contains(field, ".") {
		return v, ok
	}
	parts := strings.Split(field, ".")
	for _, p := range parts[:len(parts)-1] {
		v, ok := obj[p]
		if !ok || jsonKind(v) != "an object" {
			return nil, false
		}
		obj = nil
		if json.Unmarshal(v, &obj) != nil {
			return nil, false
		}
	}
	v, ok := obj[parts[len(parts)-1]]
	return v, ok
}

// loneSurrogate returns the first escape of a UTF-16 surrogate that is not
// part of a pair (a high one, \uD800 to \uDBFF, followed by a low one,
// \uDC00 to \uDFFF) in the JSON string s (as written, quotes included),
// as written, and whether there is one.
func loneSurrogate(s []byte) (string, bool) {
	// hex4 returns the value of the four hex digits at s[i:], or -1.
	hex4 := func(i int) int {
		if i+4 > len(s) {
			return -1
		}
		v, err := strconv.ParseUint(string(s[i:i+4]), 16, 16)
		if err != nil {
			return -1
		}
		return int(v)
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		i++ // the escaped byte
		if i >= len(s) || s[i] != 'u' {
			continue
		}
		r := hex4(i + 1)
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return string(s[i-1 : i+5]), true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+6 < len(s) && s[i+5] == '\\' && s[i+6] == 'u' {
				if lo := hex4(i + 7); lo >= 0xDC00 && lo <= 0xDFFF {
					i += 10 // the pair
					continue
				}
			}
			return string(s[i-1 : i+5]), true
		}
		if r >= 0 {
			i += 4
		}
	}
	return "", false
}

// hasLoneSurrogate reports whether the JSON string s (as written) holds
// the escape of a lone UTF-16 surrogate (see loneSurrogate).
func hasLoneSurrogate(s []byte) bool {
	_, ok := loneSurrogate(s)
	return ok
}

// fastLine is parseLine's reading of a JSONL line, without encoding/json,
// for a line whose members are all strings or scalars and whose text
// field is a string (jsonscan.Members); it reports false for any other
// line, which parseLine then reads with encoding/json, errors included.
func (in *docInput) fastLine(raw []byte, lineID string) (neardup.Document, bool) {
	doc := neardup.Document{ID: lineID}
	hasText, badID := false, false
	ok := jsonscan.Members(raw, func(key, str string, v []byte, isString bool) {
		if key == in.idField {
			badID = false
			switch {
			case isString && !utf8.Valid(v):
				badID = true // jsonLine says so
			case isString && hasLoneSurrogate(v):
				badID = true // jsonLine says so
			case isString:
				doc.ID = str
			case string(v) == "null":
				doc.ID = lineID
			case string(v) == "true" || string(v) == "false":
				badID = true // jsonLine says so
			default:
				doc.ID = string(v) // a number, as written
			}
		}
		if key == in.textField {
			doc.Text, hasText = str, isString
		}
	})
	return doc, ok && hasText && !badID
}

// csvTimeMeta sets doc's time and metadata from the CSV record's columns
// at timeCol and metaCol (-1: none). An empty field gives none: the time
// of the run, no metadata.
func (in *docInput) csvTimeMeta(doc *neardup.Document, fields []string, timeCol, metaCol int) error {
	if timeCol >= 0 && fields[timeCol] != "" {
		t, err := parseDocTime(fields[timeCol])
		if err != nil {
			return fmt.Errorf("column %q: %w", in.timeField, err)
		}
		doc.Time = t
	}
	if metaCol >= 0 && fields[metaCol] != "" && strings.TrimSpace(fields[metaCol]) != "null" {
		if !json.Valid([]byte(fields[metaCol])) {
			return fmt.Errorf("column %q is not JSON, which the metadata must be", in.metaField)
		}
		doc.Meta = []byte(fields[metaCol])
	}
	return nil
}

// errCSVTooLong is the read error of a CSV record that runs past twice
// --max-line (csvLimit).
var errCSVTooLong = errors.New("CSV record too long")

// csvLimit is the reader under a CSV input's csv.Reader, which reads a
// record into memory whole, to the end of the file when a quote is left
// open: once the record being read runs past limit bytes, csvLimit fails
// with errCSVTooLong.
type csvLimit struct {
	r     io.Reader
	read  int64 // the bytes read from r
	start int64 // the offset of the record being read (read sets it)
	limit int64
}

// Read reads from the underlying reader, or fails with errCSVTooLong
// once the record being read holds more than limit bytes.
func (c *csvLimit) Read(p []byte) (int, error) {
	if c.read-c.start > c.limit {
		return 0, errCSVTooLong
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	return n, err
}

// readCSV reads a CSV file with a header line. A UTF-8 byte order mark at
// the start of the header is dropped. A record of more than twice
// --max-line bytes stops the run: what follows it (a quote left open)
// cannot be told apart.
func (in *docInput) readCSV(r io.Reader, name, idPrefix string, emit func(*record) error, bad func(*inputError) error) error {
	lr := &csvLimit{r: r, limit: 2 * int64(in.maxLine)}
	cr := csv.NewReader(lr)
	tooLong := func(line int) error {
		return usageError{&stopError{fmt.Sprintf("%s:%d", name, line), fmt.Errorf("CSV record runs past %d bytes, twice --max-line (is a quote left open?)", lr.limit)}}
	}
	// read reads the next record, which starts where the last one ended.
	read := func() ([]string, error) {
		lr.start = cr.InputOffset()
		return cr.Read()
	}
	header, err := read()
	if errors.Is(err, errCSVTooLong) {
		return tooLong(1)
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return usagef("%s: CSV header: %v", name, err)
	}
	// A byte order mark is dropped, so that it is not written back with
	// the header (recordWriter).
	header[0] = strings.TrimPrefix(header[0], utf8BOM)
	idCol, textCol, timeCol, metaCol := -1, -1, -1, -1
	for i, h := range header {
		if h != "" && (h == in.idField || h == in.textField || h == in.timeField || h == in.metaField) {
			if j := slices.Index(header, h); j < i {
				return usagef("%s: CSV header names column %q twice (columns %d and %d); rename one of them", name, h, j+1, i+1)
			}
		}
		switch h {
		case in.idField:
			idCol = i
		case in.textField:
			textCol = i
		}
		if in.timeField != "" && h == in.timeField {
			timeCol = i
		}
		if in.metaField != "" && h == in.metaField {
			metaCol = i
		}
	}
	if textCol < 0 {
		return usagef("%s: CSV header has no %q column (see --text-field)", name, in.textField)
	}
	for _, c := range []struct {
		flag, name string
		col        int
	}{{"--time-field", in.timeField, timeCol}, {"--meta-field", in.metaField, metaCol}} {
		if c.name != "" && c.col < 0 {
			return usagef("%s: CSV header has no %q column (see %s)", name, c.name, c.flag)
		}
	}
	if in.oneSchema {
		// Checked before any record of this input is read, so none of
		// them is decided (or stored) when the run stops here.
		if in.csvHeader == nil {
			in.csvHeader, in.csvHeaderOf = header, name
		} else if !slices.Equal(in.csvHeader, header) {
			return usageError{&stopError{name + ":1", fmt.Errorf("CSV header differs from the one of %s, the first CSV input; dedup them separately", in.csvHeaderOf)}}
		}
	}
	next := nextCSVLine(cr, header) // the line the next record starts on
	for {
		fields, err := read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if errors.Is(err, errCSVTooLong) {
			return tooLong(next)
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return usageError{&stopError{fmt.Sprintf("%s:%d", name, next), fmt.Errorf("cannot read: %w", ioCause(err))}}
			}
			where := fmt.Sprintf("%s:%d", name, pe.StartLine)
			if e := bad(&inputError{where, fmt.Errorf("malformed CSV: %w", pe.Err)}); e != nil {
				return e
			}
			next = pe.Line + 1
			continue
		}
		// Only now: a record that failed may have no field whose
		// position FieldPos could give (it panics then).
		line, _ := cr.FieldPos(0)
		next = nextCSVLine(cr, fields)
		where := fmt.Sprintf("%s:%d", name, line)
		if len(fields[textCol]) > in.maxLine {
			if e := bad(&inputError{where, fmt.Errorf("text of %d bytes is longer than --max-line %d", len(fields[textCol]), in.maxLine)}); e != nil {
				return e
			}
			continue
		}
		rec := &record{where: where, fields: fields, kind: "csv", header: header}
		rec.doc = neardup.Document{ID: in.runID + idPrefix + strconv.Itoa(line), Text: fields[textCol]}
		if idCol >= 0 && fields[idCol] != "" {
			rec.doc.ID = fields[idCol]
		}
		if err := in.csvTimeMeta(&rec.doc, fields, timeCol, metaCol); err != nil {
			if e := bad(&inputError{where, err}); e != nil {
				return e
			}
			continue
		}
		if err := emit(rec); err != nil {
			return err
		}
	}
}

// nextCSVLine returns the number of the line after the end of the record
// cr has just read, fields: where the next record starts, unless blank
// lines come first.
func nextCSVLine(cr *csv.Reader, fields []string) int {
	line, _ := cr.FieldPos(len(fields) - 1)
	return line + strings.Count(fields[len(fields)-1], "\n") + 1
}

// readDir reads every regular file under dir, in lexical order, as one
// document whose id is its path relative to dir. A file that cannot be
// read, or a directory that cannot be listed, is malformed input (bad).
func (in *docInput) readDir(dir string, emit func(*record) error, bad func(*inputError) error) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			// A directory that cannot be listed (WalkDir goes on with
			// the next entry when bad lets it).
			return bad(&inputError{path, fmt.Errorf("cannot list: %w", ioCause(err))})
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if info, err := d.Info(); err == nil && info.Size() > int64(in.maxLine) {
			return bad(&inputError{path, fmt.Errorf("file of %d bytes is longer than --max-line %d", info.Size(), in.maxLine)})
		}
		b, ok, err := readFileLimit(path, in.maxLine)
		if err != nil {
			return bad(&inputError{path, fmt.Errorf("cannot read: %w", ioCause(err))})
		}
		if !ok {
			return bad(&inputError{path, fmt.Errorf("file decompressed is longer than --max-line %d", in.maxLine)})
		}
		return emit(&record{where: path, raw: []byte(rel), kind: "dir", doc: neardup.Document{ID: in.runID + rel, Text: string(b)}})
	})
}

// recordWriter writes records back in their own format.
type recordWriter struct {
	w      *bufio.Writer
	csv    *csv.Writer
	header []string
	pq     parquetOut // the Parquet file, for records of Parquet inputs
}

// newRecordWriter returns a recordWriter that writes to w, buffered.
func newRecordWriter(w io.Writer) *recordWriter {
	bw := bufio.NewWriterSize(w, 1<<16)
	return &recordWriter{w: bw, csv: csv.NewWriter(bw)}
}

// write writes r; the header of the first CSV record goes before it (the
// reader refuses a CSV input with another header: docInput.oneSchema).
func (rw *recordWriter) write(r *record) error {
	if r.kind == "parquet" {
		return rw.pq.write(rw.w, r)
	}
	if r.kind == "csv" {
		if rw.header == nil {
			rw.header = r.header
			if err := rw.writeCSV(r.header); err != nil {
				return err
			}
		}
		return rw.writeCSV(r.fields)
	}
	rw.w.Write(r.raw)
	if r.kind == "warc" {
		return nil // the record as read, its line ends included
	}
	return rw.w.WriteByte('\n')
}

// writeCSV writes the CSV record rec. A record of one empty field is
// written "", quoted: encoding/csv writes it as an empty line, which
// readers skip, so that the record would be lost.
func (rw *recordWriter) writeCSV(rec []string) error {
	if len(rec) != 1 || rec[0] != "" {
		return rw.csv.Write(rec)
	}
	rw.csv.Flush() // what it holds goes first
	if err := rw.csv.Error(); err != nil {
		return err
	}
	_, err := rw.w.WriteString("\"\"\n")
	return err
}

// flush writes out what is buffered.
func (rw *recordWriter) flush() error {
	rw.csv.Flush()
	if err := rw.csv.Error(); err != nil {
		return err
	}
	return rw.w.Flush()
}

// close ends the output: a Parquet file's footer (without which it cannot
// be read), then what is buffered. schema is the schema of the run's
// Parquet inputs, nil when it had none: a Parquet output is written even
// when it keeps no row, as a file of no rows; header is the header of its
// CSV inputs, nil when it had none, written even when no record is, as a
// CSV file of no records.
func (rw *recordWriter) close(schema *parquet.Schema, header []string) error {
	var err error
	if rw.pq.w == nil && schema != nil {
		err = rw.pq.start(rw.w, schema)
	}
	if rw.header == nil && header != nil {
		rw.header = header
		err = rw.writeCSV(header)
	}
	if cerr := rw.pq.close(); err == nil {
		err = cerr
	}
	if ferr := rw.flush(); err == nil {
		err = ferr
	}
	return err
}

// engineFlags configures the engine for dedup.
type engineFlags struct {
	profile   string
	bits      int
	k         int
	db        string
	retention time.Duration
	minFree   freeMargin // --min-free; 0: no margin
	memLimit  memoryLimit
	pipe      pipelineFlags
	policy    policyFlags
}

// addFlags adds the engine flags to cmd.
func (ef *engineFlags) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&ef.profile, "profile", "default", "fingerprint profile: "+orList(engineProfiles()))
	f.IntVar(&ef.bits, "bits", 64, "fingerprint width: 64 or 128")
	f.IntVar(&ef.k, "k", 0, longKUsage())
	ef.policy.addFlags(f, false)
	ef.pipe.addFlags(f)
	f.Var(&ef.memLimit, "memory-limit", "soft limit of the Go heap: auto (90% of the machine's or the cgroup's memory, unless GOMEMLIMIT is set), off, or a size such as 20GiB")
}

// options returns the engine's options and, when they are valid, sets the
// memory limit.
func (ef *engineFlags) options() (neardup.Options, error) {
	if err := checkEngineProfile(ef.profile, ef.bits); err != nil {
		return neardup.Options{}, err
	}
	if err := checkDistance("k", ef.k, neardup.DefaultPolicy().Long.MaxDistance); err != nil {
		return neardup.Options{}, err
	}
	pipe, err := ef.pipe.pipeline(ef.profile)
	if err != nil {
		return neardup.Options{}, err
	}
	o := neardup.DefaultOptions()
	o.Fingerprint = neardup.Config{Profile: ef.profile, Bits: ef.bits, Pipeline: pipe}
	o.K = ef.k
	if err := ef.policy.apply(&o); err != nil {
		return o, err
	}
	o.RuleScoreOnly = true // the report and clusters use the rule's score only
	o.ExpiryInterval = -1
	o.Retention = -1
	if ef.retention > 0 {
		o.Retention = ef.retention
		o.ExpiryInterval = 0
	}
	o.MinFreeBytes = int64(ef.minFree)
	if ef.minFree == 0 {
		o.MinFreeBytes = -1
	}
	if err := o.Validate(); err != nil {
		return o, usageError{err}
	}
	o.MemoryLimit = ef.memLimit.apply(slog.New(slog.DiscardHandler))
	return o, nil
}

// dupReport is one line of --report.
type dupReport struct {
	ID          string  `json:"id"`
	DuplicateOf string  `json:"duplicate_of"`
	Distance    int     `json:"distance"`
	Similarity  float64 `json:"similarity"`
	// Repeat marks the same document again: its id with the same text,
	// earlier in the input or in the --db store.
	Repeat bool `json:"repeat,omitempty"`
}

// dedupBatch is how many documents go to the engine at a time: enough to
// keep every core fingerprinting.
const dedupBatch = 2048

// dedupBatchBytes bounds the bytes of a batch, its documents' texts and
// the lines they were read from (a batch ends at the document that reaches
// it), so that a batch of long documents does not take gigabytes: the
// reader holds a few batches at once, and the engine works on one.
const dedupBatchBytes = 64 << 20

// dedupBatchWait is how long the first document of a batch waits for the
// batch to fill before the batch is decided as it is, once the input has
// given nothing for a quarter of it. A var for the tests.
var dedupBatchWait = 500 * time.Millisecond

// runIDLayout is the run's start time (UTC, milliseconds) that dedup --db
// puts before ids made of line numbers.
const runIDLayout = "2006-01-02T15:04:05.000Z"

// newDedupCmd returns `neardup dedup`.
func newDedupCmd() *cobra.Command {
	var in docInput
	var ef engineFlags
	var report, dupsPath, cpuProfile string
	cmd := &cobra.Command{
		Use:   "dedup [flags] [INPUT...]",
		Short: "Write the documents that are not near-duplicates of earlier ones",
		Long: `Dedup reads documents and writes to standard output the ones that are not
near-duplicates of an earlier document, in the input's own format and order.

Inputs (standard input when none is given):
  JSONL      one JSON object a line; --id-field and --text-field (default id and
             text) name its fields, a.b the field b of its object a when it
             has no field named a.b (tweets' data.text); a missing or null id
             is the line number (file:line with several inputs). The text must
             be a string, the id a string (of valid UTF-8, without an escaped
             lone surrogate such as \ud800) or a number; a number id is read
             as its decimal text, as written, so 5 and "5" are the same id.
             Blank lines are skipped. Output: the line as is, but for its
             line end: a line ending in CRLF is written with LF. A first line
             that is not JSON (a .txt file without --lines) gets a hint in its
             error to use --lines.
  CSV        a .csv file (or --format csv) with a header line naming the fields
             (one that names the text or id column twice is refused); a
             missing or empty id is the line number, as for JSONL. All CSV
             inputs of a run must have the same header: one that differs stops
             the run at its line 1, before any of its records is read. A text
             longer than --max-line is malformed; a record of more than twice
             --max-line bytes (a quote left open reads on to the end of the
             file) stops the run there. Output: the header once, then the
             unique records (the header alone when none is).
  Parquet    a .parquet file (or --format parquet), one document a row: the
             --text-field column holds the text (a string column that holds
             one value a row; a.b is column b of group a), the --id-field
             column, if any, the id (a string or an integer); a row without one
             gets its row number, as a JSONL line gets its line number. A null
             text is malformed. Output: a Parquet file of the input's schema and
             column compression, written to standard output, the rows kept,
             every column as it was. All Parquet inputs of a run must have one
             schema, and none may be mixed with other formats or used with --db
             (a Parquet file is readable only once it is complete, so a run that
             died could not be taken back). Not from standard input (a Parquet
             file is read from its end).
  WARC       a .warc or .wet file (or --format warc), as crawlers and Common
             Crawl write them: its conversion and resource records are
             documents (their block is the text, as in WET files), and so are
             its response records (the body of the HTTP response, decoded
             as a browser decodes it: chunked, gzip, deflate, br or zstd, and
             from the charset its Content-Type or its HTML meta element
             names, GBK or Shift_JIS or windows-1252, to UTF-8; --html reads
             an HTML body). The id is the WARC-Record-ID field, or the
             header field --id-field names (WARC-Target-URI); where a record
             has none, the line it starts on. Other records (warcinfo, request,
             metadata, revisit), those whose Content-Type is not text (an
             image, a PDF), resource records about the crawl itself (a
             metadata: URI, such as wget's log) and responses whose HTTP status
             is not one --warc-status names (by default 2xx: redirects and 404
             pages are not) are no documents; a body that does not decode is
             malformed (with WARC-Truncated, a body cut short is read as far as
             it goes). Output: the records kept, as they were read; the others
             are not written. A record that cannot be read to its end (no
             Content-Length, a block cut short, a header of more than 1 MiB)
             stops the run there.
  lines      --lines: plain text, one document per line, id = line number.
             Output: the line, ending in LF (a CR before it is dropped).
  directory  one document per regular file, id = its relative path. Output: the
             relative paths of the unique files, one a line. A directory of
             shards, whose every file (but hidden ones, named with a leading
             "." or "_", such as Spark's _SUCCESS) is JSONL (.jsonl, .ndjson,
             or .json when the first .json file's first line is a JSON
             object), CSV, Parquet or WARC by its name, compressed or not, is
             read as those files instead, in name order (unless --format dir).
A UTF-8 byte order mark at the start of a JSONL or CSV input is ignored (and
not written). An input compressed with gzip, zstd, bzip2 or xz (a file,
standard input, or a file of a directory) is read decompressed: the format is
told from its first bytes, not its name, and a .gz, .zst, .bz2 or .xz after
.csv or .txt still names the format (docs.csv.gz is CSV). Output is not
compressed (but for the columns of a Parquet output, compressed as the
input's were). A compressed input that is damaged or cut short stops the run
where it could not be read on, as any read error does.

Decisions are made in input order, so the first of a group of near-duplicates
is kept; fingerprinting runs on all cores. Near-duplicates are decided by the
engine's default verification policy (see neardup.DefaultPolicy).

Edge cases: a text that is empty or only white space is never stored: the
first one of each run is kept (with --db, each run keeps its first one again)
and later ones in the run are duplicates of it. Invalid UTF-8 is read as
U+FFFD (JSON decoding does the same). A line (or file) longer than --max-line
is malformed, and so is a file of a directory input that cannot be read. A
malformed line (bad JSON, a text field missing or not a string, an id that
is an object, array or bool, bad CSV quoting) is reported with its file and
line number: with --on-error fail (the default) dedup stops with exit status
2 at that line: every line written before is complete, none after it is
written or stored, and the message says where it stopped. With --on-error
skip it is reported on standard error and skipped. An id seen twice with
different texts is an error of the same kind: an id stored (in the run or,
with --db, before it), or that of a duplicate earlier in the run, which is
not stored, so a later run may use it again (the run keeps 32 bytes for
each of its duplicates for this). A
--db store that cannot be read (a damaged text file) is not: dedup stops
with exit status 1, naming the store, whatever --on-error says.

--db DIR dedups against the documents stored in DIR by earlier runs and adds
the new ones (kept until --retention passes, forever by default); without it
the run is in memory. With --db, an id made of a line number or a file's
path follows the run's start time, as in 2026-11-24T02:40:01.123Z/3 or
2026-11-24T02:40:01.123Z/posts.txt:3, so that runs over other files (or
files changed since) do not reuse each other's ids, and the report says
which run, file and line a document came from; ids the input gives are kept
as they are. A document is seen at the run's time, unless --time-field
names the JSONL field or CSV column of its own: RFC 3339
("2026-12-03T10:15:00Z") or Unix seconds, which --retention counts from (a
time older than the window, or ahead of the clock by more than an hour, is
refused as an input error), so that a backfill of past documents keeps
their times. --meta-field names the field (any JSON value) or column (JSON
text) kept with each document as its metadata, which neardup export and
the server's GET /v1/documents/{id} give back. Both read JSON Lines and
CSV inputs.

Documents are decided and written in batches of 2048 (fewer when their
texts and lines reach 64 MiB, or once the first of a batch has waited half
a second and the input has given nothing for an eighth of one: a stream
that comes slowly, as from tail -f, is written as it comes), each written
out before the next is decided. On Ctrl-C
(SIGINT) or SIGTERM, dedup finishes and writes the batch in progress, stops
reading, says on standard error how far it got and exits with status 130
(SIGINT) or 143 (SIGTERM); with --db the decided documents are stored, so a
rerun on the same input writes the rest. If writing the output fails (exit
status 1), the documents of the batch being written are taken back out of
the store, so a rerun writes them. If the process dies between storing a
batch and writing it (kill -9, a crash, a power cut), the next run with the
same --db takes that batch back out of the store first (the ids of the
batch in hand that the store did not hold before it are kept in a file of
the store until it is written; documents of earlier runs stay): documents
may then be in two outputs, never in none. If the index snapshot cannot be
written when the store is closed (a full disk), dedup warns and still exits
with status 0 when all else succeeded: the next run rebuilds the index from
the store.

--report FILE writes one JSON line per duplicate:
{"id", "duplicate_of", "distance", "similarity"}: distance is the Hamming
distance of the two fingerprints, similarity the score of the measure that
confirmed the pair (the rule's, as neardup compare shows: by default the
Levenshtein ratio of short texts, the Jaccard similarity of long ones), not
compare's fingerprint similarity of 1 - distance/bits; plus "repeat": true when it
is the same document again: its id with the same text earlier in the input,
or already in the --db store (then "duplicate_of" is its own id). FILE is
created once the store is open, so a run that finds the store in use leaves
an earlier report as it is. If writing it fails, dedup exits with status 1
once the batch's output is written; that batch stays stored.

--duplicates FILE writes the duplicates there, as the output writes the
unique documents: in the input's own format and order (a CSV header, a
Parquet file of the input's schema), so that the output and FILE together
hold every document decided, each once. It is created and written as the
report is, and fails as it does. Neither the report nor this file may be
an input, lie in an input directory or be where standard output goes, and
they must be two files. A progress
bar is shown on standard error when it is a terminal, and a run that ends
well says there how it went: "neardup: dedup: 6046 documents, 5287 unique
(written), 759 duplicates (12.6%)", and how many bad lines it skipped.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := in.validate(); err != nil {
				return err
			}
			if ef.retention < 0 {
				return usagef("--retention %v is negative; 0 keeps documents forever", ef.retention)
			}
			if cmd.Flags().Changed("retention") && ef.db == "" {
				return usagef("--retention needs --db: without a store the run is in memory and keeps nothing to forget")
			}
			if cmd.Flags().Changed("min-free") && ef.db == "" {
				return usagef("--min-free needs --db: without a store the run is in memory and writes nothing to keep space for")
			}
			o, err := ef.options()
			if err != nil {
				return err
			}
			srcs, err := in.sources(args)
			if err != nil {
				return err
			}
			for _, n := range in.notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "neardup: dedup: %s\n", n)
			}
			if err := sideFilesClash(report, dupsPath, args, cmd.OutOrStdout()); err != nil {
				return err
			}
			if err := parquetOnly(srcs, ef.db); err != nil {
				return err
			}
			if err := oneFormat(srcs); err != nil {
				return err
			}
			for _, f := range []struct{ flag, name string }{{"--time-field", in.timeField}, {"--meta-field", in.metaField}} {
				if f.name == "" {
					continue
				}
				if ef.db == "" {
					return usagef("%s needs --db: without a store the run is in memory and keeps no document's time or metadata", f.flag)
				}
				if k := srcs[0].kind; k != "jsonl" && k != "csv" {
					return usagef("%s reads JSON Lines and CSV inputs; %s is %s", f.flag, srcs[0].name, formatName(k))
				}
			}
			in.oneSchema = true
			stopProfile, err := startCPUProfile(cpuProfile)
			if err != nil {
				return err
			}
			defer stopProfile()
			e, err := neardup.Open(ef.db, &o)
			if err != nil {
				return fmt.Errorf("dedup: %w", err)
			}
			if ef.db != "" {
				n, err := recoverPending(ef.db, e)
				if err != nil {
					e.Close()
					return fmt.Errorf("dedup: the last run with --db %s stopped between storing a batch and writing it: %w", ef.db, err)
				}
				if n > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "neardup: dedup: the last run with --db %s stopped between storing a batch and writing it; the %d documents that batch stored were taken out of the store, so that this run decides and writes them again (some may then be in both outputs)\n", ef.db, n)
				}
			}
			// Only once the store is open (and not in use by another run)
			// and recovered: a run that stops before leaves an earlier
			// report as it was.
			var rep *bufio.Writer
			var repFile io.WriteCloser
			if report != "" {
				if repFile, err = createSideFile(report); err != nil {
					e.Close()
					return usageError{err}
				}
				defer repFile.Close() // closed and checked below; this is for early returns
				rep = bufio.NewWriter(repFile)
			}
			var dups *recordWriter
			var dupsFile io.WriteCloser
			if dupsPath != "" {
				if dupsFile, err = createSideFile(dupsPath); err != nil {
					e.Close()
					return usageError{err}
				}
				defer dupsFile.Close() // closed and checked below; this is for early returns
				dups = newRecordWriter(dupsFile)
			}
			if n := e.Stats().MissingTexts; n > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "neardup: dedup: warning: %s: deleted %d records whose texts are missing from the store's text files (a run that a stopped machine never finished, or, if many, text files cut short or removed)\n", ef.db, n)
			}
			if ef.db != "" {
				// Taken once the store is open, and so locked by this
				// run: an earlier run took its own after its own open,
				// and has ended.
				in.runID = time.Now().UTC().Format(runIDLayout) + "/"
			}
			// From here on, SIGINT and SIGTERM end the run after the
			// batch in progress (deduper.run), not in the middle of it.
			ctx, stop := notifyInterrupt(cmd.Context())
			defer stop()
			if ef.db != "" {
				// A reader that goes away (| head) would otherwise kill
				// the process with SIGPIPE between storing a batch and
				// writing it; ignored, the write fails with EPIPE and the
				// batch is taken back out of the store (outputFailed).
				signal.Ignore(syscall.SIGPIPE)
				defer signal.Reset(syscall.SIGPIPE)
			}
			d := &deduper{e: e, out: newRecordWriter(cmd.OutOrStdout()), rep: rep, dupsOut: dups, in: &in, stderr: cmd.ErrOrStderr(), db: ef.db}
			if rep != nil {
				d.repEnc = newJSONEncoder(rep)
			}
			err = d.run(ctx, cmd.InOrStdin(), srcs)
			if cerr := e.Close(); cerr != nil {
				var se *neardup.SnapshotError
				switch {
				case errors.As(cerr, &se):
					// The store is closed intact: only the next open is
					// slower, as it rebuilds the index from the store.
					done := ""
					if err == nil {
						done = "the output and the store are complete; "
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "neardup: dedup: warning: --db %s: %s; %sthe next run rebuilds the index from the store (slower to start)\n", ef.db, strings.TrimPrefix(cerr.Error(), "neardup: "), done)
				case err == nil && ef.db != "":
					err = fmt.Errorf("dedup: --db %s: %w", ef.db, cerr)
				case err == nil:
					err = fmt.Errorf("dedup: %w", cerr)
				}
			}
			if ferr := d.out.close(in.parquetSchema, in.csvHeader); err == nil && ferr != nil {
				err = fmt.Errorf("dedup: writing output: %w", ferr)
			}
			if rep != nil {
				if ferr := rep.Flush(); err == nil && ferr != nil {
					err = fmt.Errorf("dedup: writing report: %w", ferr)
				}
				if cerr := repFile.Close(); err == nil && cerr != nil {
					err = fmt.Errorf("dedup: writing report: %w", cerr)
				}
			}
			if dups != nil {
				if ferr := dups.close(in.parquetSchema, in.csvHeader); err == nil && ferr != nil {
					err = fmt.Errorf("dedup: writing duplicates: %w", ferr)
				}
				if cerr := dupsFile.Close(); err == nil && cerr != nil {
					err = fmt.Errorf("dedup: writing duplicates: %w", cerr)
				}
			}
			if err == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "neardup: dedup: %s\n", d.summary())
			}
			return err
		},
	}
	in.addFlags(cmd)
	cmd.Flags().Lookup("lines").Usage = "read plain text, one document per line (id = line number; with --db after the run's start time)"
	cmd.Flags().Lookup("id-field").Usage = "JSONL/CSV field holding the document id (missing: the line number; with --db after the run's start time)"
	ef.addFlags(cmd)
	cmd.Flags().StringVar(&ef.db, "db", "", "persistent store directory to dedup against and add to, created if missing (default: in memory); a directory holding other files is refused")
	cmd.Flags().DurationVar(&ef.retention, "retention", 0, "with --db, forget documents older than this (0: keep forever)")
	ef.minFree = neardup.DefaultMinFreeBytes
	cmd.Flags().Var(&ef.minFree, "min-free", "with --db, the free disk space the store keeps: with less, the run stops before storing more; 0 never stops")
	cmd.Flags().StringVar(&report, "report", "", "write one JSON line per duplicate to this file")
	cmd.Flags().StringVar(&in.timeField, "time-field", "", "with --db, the JSONL field or CSV column holding when each document was seen (RFC 3339 or Unix seconds; missing, null or empty: the run's time), which --retention counts from")
	cmd.Flags().StringVar(&in.metaField, "meta-field", "", "with --db, the JSONL field (any JSON value) or CSV column (JSON text) stored with each document as its metadata, as neardup serve keeps a document's meta")
	cmd.Flags().StringVar(&dupsPath, "duplicates", "", "write the duplicates to this file, in the input's own format, as the output writes the unique documents")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile to this file")
	cmd.Flags().MarkHidden("cpuprofile")
	return cmd
}

// signalCause is why notifyInterrupt cancelled its context.
type signalCause struct{ sig os.Signal }

// Error names the signal.
func (c signalCause) Error() string { return c.sig.String() + " signal received" }

// notifyInterrupt returns a context cancelled, with a signalCause, when
// the process receives SIGINT or SIGTERM. Until stop is called, those
// signals no longer end the process.
func notifyInterrupt(parent context.Context) (ctx context.Context, stop func()) {
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithCancelCause(parent)
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigc:
			cancel(signalCause{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigc)
		cancel(nil)
	}
}

// interruptedError ends a run stopped by a signal; neardup exits with
// 128 plus the signal's number (130 for SIGINT, 143 for SIGTERM).
type interruptedError struct {
	sig os.Signal // nil: cancelled otherwise
	msg string
}

// Error returns the message.
func (e *interruptedError) Error() string { return e.msg }

// interruptedBy returns the interruptedError of a run whose context ctx
// was cancelled, its message not yet set, and the words that say how:
// "interrupted by SIGINT", or "interrupted" when no signal cancelled it.
func interruptedBy(ctx context.Context) (*interruptedError, string) {
	var sc signalCause
	if errors.As(context.Cause(ctx), &sc) {
		return &interruptedError{sig: sc.sig}, "interrupted by " + signalLabel(sc.sig)
	}
	return &interruptedError{}, "interrupted"
}

// exitStatus is the status neardup exits with (see run in main.go).
func (e *interruptedError) exitStatus() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// deduper runs dedup: it batches records, asks the engine, and writes the
// unique ones in order, one batch at a time.
type deduper struct {
	e       *neardup.Engine
	out     *recordWriter
	rep     *bufio.Writer
	repEnc  *json.Encoder // writes rep's lines; an error stays in rep until Flush
	dupsOut *recordWriter // --duplicates, nil without it
	dupsErr error         // the first write to dupsOut that failed
	// dupIDs maps the ids of the run's duplicates, which the store does
	// not hold, to their texts (xxh3 hashes of both): a later document
	// of such an id is the same again, or a conflict.
	dupIDs   map[xxh3.Uint128]xxh3.Uint128
	batchIDs map[xxh3.Uint128]int // the ids of the batch in hand sent to the engine, and where
	held     []int                // by document of the batch: sentToEngine, or what decides it
	ids      []xxh3.Uint128       // by document of the batch: its id's hash (zero for an empty text)
	fates    []fate               // by document of the batch: what became of it
	in       *docInput
	stderr   io.Writer
	db       string // --db, "" in memory
	batch    []*record
	docs     []neardup.Document
	empty    string // id of the first empty text
	emptyTxt string // and that text
	hasEmpty bool
	decided  int    // documents of the batches decided
	last     string // where the last of them is
	written  int
	dups     int
	repeats  int // of the dups, the same documents again (id and text)

	errMu   sync.Mutex // the reader and the decider both report skips
	skipped int
}

// summary is the line that ends a run on standard error: how many
// documents were decided, how many of them were unique (and written) and
// how many duplicates (and of those, the same documents again: their id
// with the same text, earlier in the input or in the --db store), and how
// many bad lines were skipped (those the engine refused, such as an id
// seen with another text, among them).
func (d *deduper) summary() string {
	n := d.written + d.dups
	s := fmt.Sprintf("%s, %d unique (written), %s", plural(n, "document"), d.written, plural(d.dups, "duplicate"))
	if n > 0 {
		s += fmt.Sprintf(" (%.1f%%", 100*float64(d.dups)/float64(n))
		if d.repeats > 0 {
			s += fmt.Sprintf(", %d of them the same documents again", d.repeats)
		}
		s += ")"
	}
	if d.skipped > 0 {
		s += fmt.Sprintf("; %s skipped", plural(d.skipped, "bad line"))
	}
	return s
}

// skip reports a skipped bad line on standard error.
func (d *deduper) skip(ie *inputError) {
	d.errMu.Lock()
	defer d.errMu.Unlock()
	d.skipped++
	fmt.Fprintf(d.stderr, "neardup: dedup: skipped %s\n", ie)
}

// run decides and writes the documents of srcs. When ctx is cancelled
// it finishes the batch in progress, stops reading and returns an
// *interruptedError.
func (d *deduper) run(ctx context.Context, stdin io.Reader, srcs []source) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var progress func(int)
	if f, ok := d.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var total int64
		for _, s := range srcs {
			total += s.size
		}
		if total == 0 {
			total = -1
		}
		bar := progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("dedup"),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
		defer bar.Finish()
		progress = func(n int) { bar.Add(n) }
	}
	// A reader goroutine parses the input into batches while this one has
	// the engine decide the previous batch and writes it: parsing and
	// deciding overlap, and output stays in input order.
	type batchMsg struct {
		recs []*record
		err  error // the reading stopped: a failed line (*inputError) or another error
		last bool  // the reader's last message
	}
	ch := make(chan batchMsg, 2)
	stop := make(chan struct{})
	defer close(stop)
	send := func(m batchMsg) bool {
		select {
		case ch <- m:
			return true
		case <-stop:
			return false
		}
	}
	errStopped := errors.New("stopped")
	go func() {
		defer close(ch)
		// cur is the batch being filled (mu), curBytes what its records
		// hold (texts and lines), since when it has its first record. A
		// batch is sent full, or once its first record has waited
		// dedupBatchWait (the ticker below): a slow stream (tail -f) is
		// decided and written as it comes, not 2,048 documents at a time.
		// sendMu keeps the batches in order: a batch is taken from cur
		// and sent under it.
		var mu, sendMu sync.Mutex
		var cur []*record
		var since, latest time.Time // of the first and the last record of cur
		curBytes := 0
		take := func() []*record {
			m := cur
			cur, curBytes = nil, 0
			return m
		}
		bad := func(ie *inputError) error {
			if d.in.onError == "skip" {
				d.skip(ie)
				return nil
			}
			return ie
		}
		emit := func(r *record) error {
			mu.Lock()
			latest = time.Now()
			if len(cur) == 0 {
				since = latest
			}
			cur = append(cur, r)
			curBytes += len(r.doc.Text) + len(r.raw)
			full := len(cur) == dedupBatch || curBytes >= dedupBatchBytes
			mu.Unlock()
			if full {
				sendMu.Lock()
				mu.Lock()
				m := take()
				mu.Unlock()
				ok := len(m) == 0 || send(batchMsg{recs: m})
				sendMu.Unlock()
				if !ok {
					return errStopped
				}
			}
			return nil
		}
		tick := time.NewTicker(dedupBatchWait / 4)
		tickDone, tickStop := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(tickDone)
			for {
				select {
				case <-tickStop:
					return
				case <-tick.C:
				}
				sendMu.Lock()
				mu.Lock()
				var m []*record
				// Only while the input gives nothing: a file read
				// slowly (a loaded machine) still fills its batches.
				if len(cur) > 0 && time.Since(since) >= dedupBatchWait && time.Since(latest) >= dedupBatchWait/4 {
					m = take()
				}
				mu.Unlock()
				ok := len(m) == 0 || send(batchMsg{recs: m})
				sendMu.Unlock()
				if !ok {
					return
				}
			}
		}()
		err := d.in.read(stdin, srcs, emit, bad, progress)
		tick.Stop()
		close(tickStop)
		<-tickDone
		send(batchMsg{recs: take(), err: err, last: true})
	}()
	for {
		// An interruption is seen between batches only: the batches
		// read but not taken are neither decided nor written.
		if ctx.Err() != nil {
			return d.interrupted(ctx)
		}
		var m batchMsg
		var ok bool
		select {
		case m, ok = <-ch:
		case <-ctx.Done():
			return d.interrupted(ctx)
		}
		if !ok {
			return nil
		}
		d.batch = m.recs
		if err := d.flush(ctx); err != nil {
			return err
		}
		var ie *inputError
		var se *stopError
		switch {
		case errors.As(m.err, &se):
			return usagef("dedup: %s (stopped there; the %d unique documents before it were written, every one complete)", se, d.written)
		case errors.As(m.err, &ie):
			// Everything before the bad line is decided and written.
			return usagef("dedup: %s (stopped there; the %d unique documents before it were written, every one complete; --on-error skip passes over bad lines)", ie, d.written)
		case m.err != nil:
			return m.err
		case m.last:
			return nil
		}
	}
}

// interrupted is the error of a run stopped between two batches.
func (d *deduper) interrupted(ctx context.Context) error {
	ie, by := interruptedBy(ctx)
	if d.decided == 0 {
		ie.msg = fmt.Sprintf("dedup: %s before any document was decided; nothing was written", by)
		if d.db != "" {
			ie.msg += " or stored"
		}
		return ie
	}
	ie.msg = fmt.Sprintf("dedup: %s after deciding %d documents (up to %s): %d unique ones were written, every one complete", by, d.decided, d.last, d.written)
	if d.db != "" {
		ie.msg += fmt.Sprintf("; the decided documents are stored in %s, so a rerun on the same input writes the rest", d.db)
	} else {
		ie.msg += "; the rest of the input was not decided"
	}
	return ie
}

// sideFilesClash refuses a --report or --duplicates file that the run
// would write over an input with, or read back as one: an input file
// itself (by name or through a link), a path inside an input directory,
// the file standard output goes to (stdout), or the other of the two.
func sideFilesClash(report, dups string, inputs []string, stdout io.Writer) error {
	if report != "" && dups != "" && sameFile(report, dups) {
		return usagef("--report and --duplicates both name %s; each needs a file of its own", dups)
	}
	for _, side := range []struct{ flag, name string }{{"--report", report}, {"--duplicates", dups}} {
		if side.name == "" {
			continue
		}
		// Checked before the store is opened (and, with --db, created),
		// which the file is not: a run refused for it leaves no store.
		if info, err := os.Stat(filepath.Dir(side.name)); err != nil || !info.IsDir() {
			return usagef("%s %s: there is no directory %s to create it in", side.flag, side.name, filepath.Dir(side.name))
		}
		if info, err := os.Stat(side.name); err == nil && info.IsDir() {
			return usagef("%s %s is a directory; name a file", side.flag, side.name)
		}
		if f, ok := stdout.(*os.File); ok {
			if out, err := f.Stat(); err == nil && out.Mode().IsRegular() {
				if info, err := os.Stat(side.name); err == nil && os.SameFile(out, info) {
					return usagef("%s %s is where standard output goes; each output needs a file of its own", side.flag, side.name)
				}
			}
		}
		for _, in := range inputs {
			if in == "-" {
				continue
			}
			if sameFile(side.name, in) {
				return usagef("%s %s is an input of the run; writing it would destroy that input", side.flag, side.name)
			}
			if inside(side.name, in) {
				return usagef("%s %s is inside the input directory %s; the run would read it as an input", side.flag, side.name, in)
			}
		}
	}
	return nil
}

// sameFile reports whether the paths a and b name one file: the same
// path, or files that exist and are one.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	return err == nil && os.SameFile(ia, ib)
}

// inside reports whether the file path (which need not exist) lies in
// the directory dir or below it, links resolved.
func inside(path, dir string) bool {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return false
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return false // no such directory: the file cannot be created there either
	}
	d, err1 := filepath.Abs(d)
	parent, err2 := filepath.Abs(parent)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, parent)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// createSideFile creates the --report and --duplicates files; the tests
// replace it with one whose writes fail.
var createSideFile = func(name string) (io.WriteCloser, error) { return os.Create(name) }

// afterStore, when not nil, is called by flush right after a batch is
// stored, before its output is written: the tests stop the process there,
// as a crash would (see dedup_pending.go).
var afterStore func()

// flush decides the batched records, writes the unique ones and flushes
// the output and the report, so that a batch is out before the next is
// decided. A batch taken is finished even if ctx is cancelled. If the
// output fails, the documents the batch stored are deleted again
// (outputFailed). A document the engine cannot decide because the store
// fails to read (a damaged text file) ends the run once the rest of the
// batch is written: that is no input error, and --on-error skip does not
// pass over it.
func (d *deduper) flush(ctx context.Context) error {
	if len(d.batch) == 0 {
		return nil
	}
	batch := d.batch
	d.docs = d.docs[:0]
	// A document whose id came before, as a duplicate in an earlier batch
	// (which the store does not hold) or earlier in this one, is not
	// sent: it is decided from that one, once its fate is known.
	held := d.held[:0]
	if d.batchIDs == nil {
		d.batchIDs, d.dupIDs = map[xxh3.Uint128]int{}, map[xxh3.Uint128]xxh3.Uint128{}
	}
	clear(d.batchIDs)
	ids := d.ids[:0]
	for i, r := range batch {
		h := sentToEngine
		var id xxh3.Uint128
		if strings.TrimSpace(r.doc.Text) != "" {
			id = xxh3.HashString128(r.doc.ID)
			if at, ok := d.batchIDs[id]; ok {
				h = at
			} else if _, ok := d.dupIDs[id]; ok {
				h = dupEarlier
			} else {
				d.batchIDs[id] = i
				d.docs = append(d.docs, r.doc)
			}
		}
		held, ids = append(held, h), append(ids, id)
	}
	d.held, d.ids = held, ids
	fates := d.fates[:0]
	if d.db != "" {
		// Only the ids the store does not hold yet: a recovery takes
		// them out, and must leave the documents of earlier runs.
		if ids := newIDs(d.e, d.docs); len(ids) > 0 {
			if err := writePending(d.db, ids); err != nil {
				return fmt.Errorf("dedup: --db %s: noting the batch in hand in %s: %w", d.db, pendingName, ioCause(err))
			}
		}
	}
	results, err := d.e.CheckAndInsertBatch(context.WithoutCancel(ctx), d.docs)
	if afterStore != nil {
		afterStore()
	}
	var be *neardup.BatchError
	if err != nil && !errors.As(err, &be) {
		// Nothing of the batch was stored: nothing to take back.
		if d.db != "" {
			clearPending(d.db)
		}
		if errors.Is(err, neardup.ErrDiskFull) {
			return fmt.Errorf("dedup: %w (--min-free sets that margin; nothing of the batch from %s on was stored)", err, batch[0].where)
		}
		return fmt.Errorf("dedup: %w", err)
	}
	before := d.written
	var failed *inputError
	var storeWhere string // the first document the store failed for
	var storeErr error    // and its error
	var werr error
	j := 0
	// empty decides a text with nothing to compare: the first is kept,
	// the others are its duplicates.
	empty := func(r *record) (res neardup.Result, repeat bool) {
		if !d.hasEmpty {
			d.hasEmpty, d.empty, d.emptyTxt = true, r.doc.ID, r.doc.Text
			return neardup.Result{ID: r.doc.ID, Inserted: true}, false
		}
		of := d.empty
		return neardup.Result{ID: r.doc.ID, Duplicate: true, DuplicateOf: &of, Similarity: 1}, r.doc.ID == d.empty && r.doc.Text == d.emptyTxt
	}
	// refused passes over a document refused for what it is: on with
	// --on-error skip, else the run stops at its line.
	refused := func(ie *inputError) {
		if d.in.onError == "skip" {
			d.skip(ie)
		} else if failed == nil {
			failed = ie
		}
	}
	for i, r := range batch {
		var res neardup.Result
		repeat := false
		fates = append(fates, fate{})
		if failed != nil {
			// Stopped at an earlier line of the batch: this one is
			// neither written nor kept, as if the run had ended there.
			if held[i] == sentToEngine && strings.TrimSpace(r.doc.Text) != "" {
				if res := results[j]; res.Inserted {
					if err := d.e.Delete(res.ID); err != nil && storeErr == nil {
						storeWhere, storeErr = r.where, err
					}
				}
				j++
			}
			continue
		}
		if strings.TrimSpace(r.doc.Text) == "" {
			res, repeat = empty(r)
		} else if held[i] != sentToEngine {
			var err error
			if res, repeat, err = d.again(r, ids[i], held[i], batch, fates); err != nil {
				fates[i].err = err
				if !refusesInput(err) {
					continue // the earlier one failed in the store
				}
				refused(&inputError{r.where, unprefixed{err}})
				continue
			}
		} else {
			res = results[j]
			j++
			if be != nil && errors.Is(be.Errs[j-1], neardup.ErrEmptyText) {
				// Invisible characters only, which the engine refuses
				// as it does white space.
				res, repeat = empty(r)
			} else if be != nil && be.Errs[j-1] != nil {
				fates[i].err = be.Errs[j-1]
				if !refusesInput(be.Errs[j-1]) {
					if storeErr == nil {
						storeWhere, storeErr = r.where, be.Errs[j-1]
					}
					continue
				}
				refused(&inputError{r.where, unprefixed{be.Errs[j-1]}})
				continue
			}
			if !res.Inserted && !res.Duplicate {
				// The id is already stored with this text (an earlier run
				// with --db, or a repeat in the input): seen before.
				of := r.doc.ID
				res = neardup.Result{ID: r.doc.ID, Duplicate: true, DuplicateOf: &of, Similarity: 1}
				repeat = true
			}
		}
		fates[i].stored = res.Inserted
		if res.Duplicate {
			d.dups++
			if repeat {
				d.repeats++
			} else if strings.TrimSpace(r.doc.Text) != "" {
				// Not stored: only this run knows its id.
				d.dupIDs[ids[i]] = xxh3.HashString128(r.doc.Text)
			}
			if d.rep != nil {
				d.repEnc.Encode(dupReport{ID: r.doc.ID, DuplicateOf: *res.DuplicateOf, Distance: res.Distance, Similarity: res.Similarity, Repeat: repeat})
			}
			if d.dupsOut != nil && d.dupsErr == nil {
				d.dupsErr = d.dupsOut.write(r)
			}
			continue
		}
		if werr = d.out.write(r); werr != nil {
			break
		}
		d.written++
	}
	d.fates = fates
	if werr == nil {
		werr = d.out.flush()
	}
	if werr != nil {
		return d.outputFailed(werr, results, before)
	}
	// The batch is out: from here on, it is never to be taken back out
	// of the store, whatever fails next (the report).
	if d.db != "" {
		if err := clearPending(d.db); err != nil {
			return fmt.Errorf("dedup: --db %s: %w (the output is complete up to %s)", d.db, err, batch[len(batch)-1].where)
		}
	}
	d.decided += len(batch)
	d.last = batch[len(batch)-1].where
	d.batch = d.batch[:0]
	if d.rep != nil {
		if err := d.rep.Flush(); err != nil {
			return fmt.Errorf("dedup: writing report: %w (the output is complete up to %s)", err, d.last)
		}
	}
	if d.dupsOut != nil {
		if d.dupsErr == nil {
			d.dupsErr = d.dupsOut.flush()
		}
		if d.dupsErr != nil {
			return fmt.Errorf("dedup: writing duplicates: %w (the output is complete up to %s)", d.dupsErr, d.last)
		}
	}
	if storeErr != nil {
		return d.storeFailed(storeWhere, storeErr, batch)
	}
	if failed != nil {
		return usagef("dedup: %s (stopped there; the %d unique documents before it were written, every one complete; --on-error skip passes over bad lines)", failed, d.written)
	}
	return nil
}

// Where a document of a batch goes (deduper.held): to the engine, or it is
// decided from an earlier document of its id, a duplicate of an earlier
// batch (dupEarlier) or the one of the batch at that index.
const (
	sentToEngine = -1
	dupEarlier   = -2
)

// fate is what became of a document of the batch in hand: err is nil
// when it was decided (written or a duplicate), else why not; stored says
// the engine stored it.
type fate struct {
	err    error
	stored bool
}

// errIDSeen is the refusal of a document whose id an earlier document of
// the run had, with another text.
var errIDSeen = errors.New("id already seen with another text")

// again decides r, whose id (of hash id) an earlier document of the run
// had (held is where that one is, see sentToEngine): with the same text it
// is the same document again, a repeat, whatever became of the first;
// with another it is refused (errIDSeen). The same text after a refused
// one is refused as that one was.
func (d *deduper) again(r *record, id xxh3.Uint128, held int, batch []*record, fates []fate) (neardup.Result, bool, error) {
	var same bool
	if held == dupEarlier {
		same = d.dupIDs[id] == xxh3.HashString128(r.doc.Text)
	} else {
		if same = batch[held].doc.Text == r.doc.Text; same && fates[held].err != nil {
			return neardup.Result{}, false, fates[held].err
		}
	}
	if !same {
		if held != dupEarlier && fates[held].stored {
			return neardup.Result{}, false, fmt.Errorf("%w: %q", neardup.ErrIDConflict, r.doc.ID)
		}
		return neardup.Result{}, false, fmt.Errorf("%w: %q", errIDSeen, r.doc.ID)
	}
	of := r.doc.ID
	return neardup.Result{ID: r.doc.ID, Duplicate: true, DuplicateOf: &of, Similarity: 1}, true, nil
}

// inputRefusals are the engine's errors for a document refused for what it
// is (its id, text or time), which --on-error skip passes over.
var inputRefusals = []error{
	neardup.ErrEmptyID, neardup.ErrIDTooLong, neardup.ErrTooLarge, neardup.ErrEmptyText,
	neardup.ErrInvalidUTF8, neardup.ErrBadMeta, neardup.ErrIDConflict, neardup.ErrExpired,
	neardup.ErrFutureTime, errIDSeen,
}

// refusesInput reports whether err, the engine's error for one document of
// a batch, refuses the document itself (inputRefusals) rather than saying
// the store or the engine failed (a damaged store, a read error).
func refusesInput(err error) bool {
	if errors.Is(err, store.ErrCorrupt) {
		return false
	}
	for _, r := range inputRefusals {
		if errors.Is(err, r) {
			return true
		}
	}
	return false
}

// storeFailed is the error that ends a run whose document at where could
// not be decided because the store or the engine failed (err), once the
// rest of its batch is written: exit status 1, whatever --on-error says.
func (d *deduper) storeFailed(where string, err error, batch []*record) error {
	done := fmt.Sprintf("the other documents of the batch from %s to %s were decided and %d unique ones written, every one complete", batch[0].where, batch[len(batch)-1].where, d.written)
	if d.db == "" {
		return fmt.Errorf("dedup: the engine failed deciding %s: %w (%s)", where, err, done)
	}
	what := "reading the store failed"
	if errors.Is(err, store.ErrCorrupt) {
		what = "the store is damaged"
	}
	return fmt.Errorf("dedup: --db %s: %s: %w (deciding %s, which is not stored; not an input error: --on-error skip does not pass over it; %s)", d.db, what, err, where, done)
}

// outputFailed takes the documents the batch in hand stored (results, of
// d.docs) back out of the store, as their output is lost, and returns the
// error that ends the run. The batches before were flushed whole.
func (d *deduper) outputFailed(werr error, results []neardup.Result, before int) error {
	first, last := d.batch[0].where, d.batch[len(d.batch)-1].where
	msg := fmt.Sprintf("dedup: writing output failed: %v; the %d unique documents before the batch from %s to %s were written, every one complete", werr, before, first, last)
	if d.db == "" {
		return errors.New(msg)
	}
	var left int
	var derr error
	for _, res := range results {
		if !res.Inserted {
			continue
		}
		if err := d.e.Delete(res.ID); err != nil && !errors.Is(err, neardup.ErrNotFound) {
			left++
			if derr == nil {
				derr = err
			}
		}
	}
	msg += "; that batch's documents were not kept in the store, so a rerun on the same input writes them (the part of it written before the failure may then be in both outputs)"
	if left > 0 {
		// The pending file stays: the next run takes them out.
		msg += fmt.Sprintf("; %d of them could not be taken out again (%v): the next run with --db %s takes them out first", left, derr, d.db)
	} else if err := clearPending(d.db); err != nil {
		msg += fmt.Sprintf("; %v", err)
	}
	return errors.New(msg)
}
