package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/neardup/neardup/internal/decompress"
)

// recordFormats lists the --format values of fingerprint and idf build,
// for their help and errors.
const recordFormats = "auto, file, lines, jsonl, csv, parquet, warc or dir"

// validKind reports whether format is one of recordFormats.
func validKind(format string) bool {
	switch format {
	case "auto", "file", "lines", "jsonl", "csv", "parquet", "warc", "dir":
		return true
	}
	return false
}

// addRecordFlags adds to fs the flags of dedup's record formats that
// fingerprint and idf build take (--max-line is their own): --text-field,
// --on-error, --warc-status, and --id-field when ids name the output
// (without it, the documents' ids are their line or row numbers).
func (in *docInput) addRecordFlags(fs *pflag.FlagSet, ids bool) {
	fs.StringVar(&in.textField, "text-field", "text", "JSONL/CSV field or Parquet column holding the text; a.b is field b of object a (JSONL) or column b of group a (Parquet) when none is named a.b itself")
	if ids {
		fs.StringVar(&in.idField, "id-field", "id", "JSONL/CSV field, Parquet column or WARC header field (default there WARC-Record-ID) naming each document (missing: its line or row number)")
	} else {
		// No field is read as the id, so that a record whose "id" is
		// of a type no id has (an object, a bool) is no bad record.
		in.idField = ""
	}
	fs.StringVar(&in.onError, "on-error", "fail", "on a malformed JSONL, CSV, Parquet or WARC record: fail (exit 2) or skip (report it on stderr and go on)")
	fs.StringVar(&in.warcStatusFlag, "warc-status", defaultWARCStatus, "HTTP statuses of the WARC response records that are documents, as in dedup")
}

// recordKind returns the record format that name says by its extension,
// a compression extension after it aside (docs.csv.gz is CSV): jsonl for
// .jsonl and .ndjson, csv, parquet (not compressed: a Parquet file is read
// from its end), or warc for .warc and .wet; "" for any other name.
func recordKind(name string) string {
	if strings.EqualFold(filepath.Ext(name), ".parquet") {
		return "parquet"
	}
	switch strings.ToLower(filepath.Ext(decompress.TrimExt(name))) {
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".csv":
		return "csv"
	case ".warc", ".wet":
		return "warc"
	}
	return ""
}

// checkFormat checks the --format and --lines of fingerprint and idf
// build (command) and in's record flags, and returns the format the input
// kinds are chosen by (--lines is --format lines).
func (in *docInput) checkFormat(command, format string, lines bool) (string, error) {
	if !validKind(format) {
		return "", usagef("%s: --format %q: want %s", command, format, recordFormats)
	}
	if lines {
		if format != "auto" && format != "lines" {
			return "", usagef("%s: --lines conflicts with --format %s (--lines is --format lines)", command, format)
		}
		format = "lines"
	}
	in.format = "jsonl" // for validate; set for each input
	if err := in.validate(); err != nil {
		return "", fmt.Errorf("%s: %w", command, err)
	}
	return format, nil
}

// inputKind returns how fingerprint and idf build read the input name
// with --format format: "file" (the whole input one document), "lines",
// or one of dedup's record formats (jsonl, csv, parquet, warc, dir). auto
// tells the record formats and directories by name, as dedup does, but
// for the extensions: .jsonl and .ndjson are JSONL, and any other input,
// standard input included, is one document, as both commands read every
// input before they read records.
func inputKind(name, format string) string {
	if format != "auto" {
		return format
	}
	if name == "-" {
		return "file"
	}
	if fi, err := os.Stat(name); err == nil && fi.IsDir() {
		return "dir"
	}
	if k := recordKind(name); k != "" {
		return k
	}
	return "file"
}

// badRecord returns the handler of bad records of fingerprint and idf
// build (command): with --on-error skip it says on stderr which record it
// skipped and goes on; else it stops with a usage error naming the record,
// and after says what became of the output, for the caller to name the
// command.
func (in *docInput) badRecord(stderr io.Writer, command, after string) func(*inputError) error {
	return func(ie *inputError) error {
		if in.onError == "skip" {
			fmt.Fprintf(stderr, "neardup: %s: skipped %s\n", command, ie)
			return nil
		}
		return usagef("%s (%s; --on-error skip passes over bad records)", ie, after)
	}
}
