package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warcRecord returns a WARC record of that type, id, URI and block.
func warcRecord(typ, id, uri, block string) string {
	return fmt.Sprintf("WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Target-URI: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", typ, id, uri, len(block), block)
}

// TestDedupWARC checks that dedup reads the documents of a WARC file
// (conversion records, as WET files hold, and the bodies of response
// records), writes the records it keeps as they were, writes no record
// that is no document, and names them by WARC-Record-ID or the field
// --id-field names; compressed, as crawls keep them, too.
func TestDedupWARC(t *testing.T) {
	info := warcRecord("warcinfo", "0", "", "software: a crawler\r\n")
	a := warcRecord("conversion", "a", "http://a.example/", fox)
	b := warcRecord("conversion", "b", "http://b.example/", fox2)
	c := warcRecord("conversion", "c", "http://c.example/", other+"\nwith a second line")
	req := warcRecord("request", "q", "http://d.example/", "GET / HTTP/1.1\r\nHost: d.example\r\n\r\n")
	resp := warcRecord("response", "d", "http://d.example/", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>"+fox+"</p>")
	in := info + a + b + c + req + resp
	dir := t.TempDir()
	for _, name := range []string{"crawl.warc", "crawl.warc.wet.gz"} {
		content := []byte(in)
		if strings.HasSuffix(name, ".gz") {
			// One gzip member a record, as crawlers write them.
			content = nil
			for _, r := range []string{info, a, b, c, req, resp} {
				content = append(content, compress(t, "gz", []byte(r))...)
			}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			args []string
			out  string
			rep  string
		}{
			{nil, a + c + resp, "<urn:uuid:b>><urn:uuid:a>"},
			{[]string{"--html"}, a + c, "<urn:uuid:b>><urn:uuid:a> <urn:uuid:d>><urn:uuid:a>"},
			{[]string{"--id-field", "WARC-Target-URI"}, a + c + resp, "http://b.example/>http://a.example/"},
		} {
			rep := filepath.Join(dir, "rep.jsonl")
			var out, errb bytes.Buffer
			if code := run(append(append([]string{"dedup", "--report", rep}, tc.args...), path), strings.NewReader(""), &out, &errb); code != 0 {
				t.Fatalf("%s %v: exit %d, stderr %q", name, tc.args, code, errb.String())
			}
			if out.String() != tc.out {
				t.Errorf("%s %v: output\n%q\nwant\n%q", name, tc.args, out.String(), tc.out)
			}
			if p := reportPairs(t, rep); strings.Join(p, " ") != tc.rep {
				t.Errorf("%s %v: report %v, want %s", name, tc.args, p, tc.rep)
			}
		}
	}
}

// TestDedupWARCErrors checks that a WARC file that cannot be read on
// stops dedup at the record, named by its line, after writing the
// records before it, and that a block over --max-line is a malformed
// record that --on-error skip passes over.
func TestDedupWARCErrors(t *testing.T) {
	a := warcRecord("conversion", "a", "http://a.example/", fox)
	c := warcRecord("conversion", "c", "http://c.example/", other)
	tests := []struct {
		name, in, msg string
	}{
		{"not WARC", a + "hello\r\n", ":9: not a WARC record: a record starts with a line such as WARC/1.0, not \"hello\""},
		{"no length", a + "WARC/1.0\r\nWARC-Type: conversion\r\n\r\nx\r\n\r\n", ":9: WARC record without a valid Content-Length"},
		{"cut short", a + c[:len(c)-20], ":9: WARC record cut short: its block of"},
		{"length wrong", a + strings.Replace(c, "Content-Length: 70", "Content-Length: 60", 1), ":9: WARC record does not end with two line ends"},
		{"header cut", a + "WARC/1.0\r\nWARC-Type: conv", ":9: WARC record cut short in its header fields"},
	}
	for _, tc := range tests {
		path := writeDedupFile(t, t.TempDir(), "in.warc", tc.in)
		var out, errb bytes.Buffer
		code := run([]string{"dedup", path}, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), path+tc.msg) || out.String() != a {
			t.Errorf("%s: exit %d, output %q, stderr %q; want 2, the first record and %q", tc.name, code, out.String(), errb.String(), tc.msg)
		}
	}
	// The long block has three lines: the records after it are named by
	// the lines they start on all the same.
	long := warcRecord("conversion", "long", "u", strings.Repeat("long text\n", 20))
	path := writeDedupFile(t, t.TempDir(), "in.warc", a+long+c+"junk\r\n")
	var out, errb bytes.Buffer
	code := run([]string{"dedup", "--max-line", "100", "--on-error", "skip", path}, strings.NewReader(""), &out, &errb)
	if code != 2 || out.String() != a+c || !strings.Contains(errb.String(), path+":9: WARC block of 200 bytes is longer than --max-line 100") ||
		!strings.Contains(errb.String(), path+":45: not a WARC record") {
		t.Errorf("a long block: exit %d, output %q, stderr %q", code, out.String(), errb.String())
	}
	// A compressed input cut short in a record's block says so, as in
	// other formats, not that the record is.
	var words []string
	for i := range 3000 {
		words = append(words, fmt.Sprintf("w%d", i*7919%10007))
	}
	gz := compress(t, "gz", []byte(warcRecord("conversion", "long", "u", strings.Join(words, " "))))
	path = writeDedupFile(t, t.TempDir(), "in.warc.gz", string(compress(t, "gz", []byte(a)))+string(gz[:len(gz)/2]))
	out.Reset()
	errb.Reset()
	code = run([]string{"dedup", path}, strings.NewReader(""), &out, &errb)
	if code != 2 || out.String() != a || !strings.Contains(errb.String(), path+":9: cannot read: gzip data ends early") {
		t.Errorf("cut short compressed: exit %d, output %q, stderr %q", code, out.String(), errb.String())
	}
	// A header is read to 1 MiB, not to the end of a file without line
	// ends: the run stops there, whatever --on-error says.
	junk := strings.Repeat("x", 1<<20)
	for _, head := range []string{"WARC/1.0" + junk, "WARC/1.0\r\nWARC-Type: conversion\r\nX-Junk: " + junk} {
		path = writeDedupFile(t, t.TempDir(), "in.warc", a+head+"\r\nContent-Length: 1\r\n\r\nx\r\n\r\n")
		out.Reset()
		errb.Reset()
		code = run([]string{"dedup", "--on-error", "skip", path}, strings.NewReader(""), &out, &errb)
		if code != 2 || out.String() != a || !strings.Contains(errb.String(), path+":9: WARC record header is longer than 1048576 bytes (is the file WARC?)") {
			t.Errorf("a long header: exit %d, output %q, stderr %q", code, out.String(), errb.String())
		}
	}
}
