package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WARC inputs (ISO 28500, as crawlers and Common Crawl write them, the
// WET files of extracted text included): a sequence of records, each a
// "WARC/1.x" line, named header fields, a blank line, a block of
// Content-Length bytes and two line ends. The records whose block is a
// document are conversion and resource records (their block is the
// text) and response records (the body of the HTTP response they hold,
// after its status line and header fields, decoded: see warcText); their
// id is the WARC-Record-ID field, or the field --id-field names. Other
// records (warcinfo, request, metadata, revisit), those whose payload is
// not text (an image, a PDF), resource records about the crawl itself
// (a metadata: URI, as wget writes its log) and responses whose HTTP status --warc-status
// does not keep (by default all but 2xx: redirects, error pages) are no
// documents: they are neither decided nor written.

// maxWARCHeader is the most bytes a WARC record's header (its first line
// and header fields) may hold.
const maxWARCHeader = 1 << 20

// warcDocTypes are the WARC-Type values of the records that are
// documents.
var warcDocTypes = map[string]bool{"conversion": true, "resource": true, "response": true}

// readWARC reads the WARC records of r, the input name. A record whose
// block is longer than --max-line is malformed, and skipped past. A
// record that cannot be read to its end (a line other than "WARC/..."
// where a record starts, a Content-Length missing or not a number, a
// block cut short, a header longer than maxWARCHeader) stops the run, as a read error does: what follows
// cannot be told apart.
func (in *docInput) readWARC(r io.Reader, name, idPrefix string, emit func(*record) error, bad func(*inputError) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	line := 1 // the number of the line the next record starts on
	for {
		start := line
		where := fmt.Sprintf("%s:%d", name, start)
		stop := func(format string, args ...any) error {
			return usageError{&stopError{where, fmt.Errorf(format, args...)}}
		}
		// cut stops the run on err, met reading the record: the input
		// ends there (the record is cut short, as format says), or
		// cannot be read on (a compressed stream damaged or cut short,
		// a read error), as err says.
		cut := func(err error, format string, args ...any) error {
			if err != io.EOF && err != io.ErrUnexpectedEOF {
				return stop("cannot read: %w", ioCause(err))
			}
			return stop(format, args...)
		}
		var raw bytes.Buffer
		// The header, its first line included, is read to
		// maxWARCHeader bytes at most: a file without line ends is not
		// read whole.
		left := maxWARCHeader
		first, err := readLineMax(br, left)
		if len(first) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errLineTooLong) {
			return stop("cannot read: %w", ioCause(err))
		}
		if err == nil && strings.TrimSpace(first) == "" {
			line++ // a blank line between records
			continue
		}
		if !strings.HasPrefix(first, "WARC/") {
			return stop("not a WARC record: a record starts with a line such as WARC/1.0, not %q", truncate(strings.TrimRight(first, "\r\n"), 40))
		}
		raw.WriteString(first)
		line++
		left -= len(first)
		fields := map[string]string{}
		for {
			h, err := readLineMax(br, left)
			if errors.Is(err, errLineTooLong) {
				return stop("WARC record header is longer than %d bytes (is the file WARC?)", maxWARCHeader)
			}
			if err != nil {
				return cut(err, "WARC record cut short in its header fields")
			}
			left -= len(h)
			raw.WriteString(h)
			line++
			h = strings.TrimRight(h, "\r\n")
			if h == "" {
				break
			}
			k, v, ok := strings.Cut(h, ":")
			if !ok {
				return stop("WARC header field %q has no colon", truncate(h, 40))
			}
			fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
		}
		n, err := strconv.ParseInt(fields["content-length"], 10, 64)
		if err != nil || n < 0 {
			return stop("WARC record without a valid Content-Length (%q)", fields["content-length"])
		}
		if n > int64(in.maxLine) {
			if _, err := io.CopyN(lineCounter{&line}, br, n); err != nil {
				return cut(err, "WARC record cut short: its block of %d bytes ends early", n)
			}
			if err := warcRecordEnd(br, &raw, &line); err != nil {
				return stop("%v", err)
			}
			if e := bad(&inputError{where, fmt.Errorf("WARC block of %d bytes is longer than --max-line %d", n, in.maxLine)}); e != nil {
				return e
			}
			continue
		}
		block := make([]byte, n)
		if _, err := io.ReadFull(br, block); err != nil {
			return cut(err, "WARC record cut short: its block of %d bytes ends early", n)
		}
		raw.Write(block)
		line += bytes.Count(block, []byte("\n"))
		if err := warcRecordEnd(br, &raw, &line); err != nil {
			return stop("%v", err)
		}
		typ := fields["warc-type"]
		if !warcDocTypes[typ] {
			continue
		}
		text, err := warcText(typ, fields, block, in.maxLine, in.warcStatus)
		if errors.Is(err, errNotText) || errors.Is(err, errStatus) {
			continue
		}
		if err != nil {
			if e := bad(&inputError{where, err}); e != nil {
				return e
			}
			continue
		}
		rec := &record{where: where, raw: raw.Bytes(), kind: "warc"}
		rec.doc.Text = string(text)
		rec.doc.ID = fields[strings.ToLower(in.warcIDField())]
		if rec.doc.ID == "" {
			rec.doc.ID = in.runID + idPrefix + strconv.Itoa(start)
		}
		if err := emit(rec); err != nil {
			return err
		}
	}
}

// warcIDField is the header field that holds a WARC record's id:
// --id-field when it was given, else WARC-Record-ID.
func (in *docInput) warcIDField() string {
	if in.idField == "" || in.idField == "id" {
		return "WARC-Record-ID"
	}
	return in.idField
}

// warcRecordEnd reads the two line ends that end a record's block into
// raw, counting them in line. The last record of the input may lack them.
func warcRecordEnd(br *bufio.Reader, raw *bytes.Buffer, line *int) error {
	for range 2 {
		l, err := readLineMax(br, 64) // a line end, or the block goes on
		if l == "" && errors.Is(err, io.EOF) {
			return nil
		}
		raw.WriteString(l)
		if errors.Is(err, errLineTooLong) || strings.TrimRight(l, "\r\n") != "" {
			return errors.New("WARC record does not end with two line ends after its block (is its Content-Length right?)")
		}
		if err == nil {
			*line++
		}
	}
	return nil
}

// errLineTooLong is readLineMax's error for a line longer than its limit.
var errLineTooLong = errors.New("line too long")

// readLineMax reads a line of br, its line end included, as ReadString
// does, but stops with errLineTooLong (and the first max bytes or more
// of the line) once the line holds more than max bytes without ending.
func readLineMax(br *bufio.Reader, max int) (string, error) {
	var line []byte
	for {
		b, err := br.ReadSlice('\n')
		line = append(line, b...)
		if len(line) > max {
			return string(line), errLineTooLong
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return string(line), err
		}
	}
}

// lineCounter counts the line ends written to it, discarding the bytes.
type lineCounter struct{ n *int }

// Write counts the line ends of p.
func (c lineCounter) Write(p []byte) (int, error) {
	*c.n += bytes.Count(p, []byte("\n"))
	return len(p), nil
}

// truncate returns s cut to at most n bytes, on a rune boundary, with
// "..." when it was longer.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
