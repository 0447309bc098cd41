package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/server"
)

// exportLine is a JSON line of export, as a reader decodes it.
type exportLine struct {
	ID          string          `json:"id"`
	Time        time.Time       `json:"time"`
	Fingerprint string          `json:"fingerprint"`
	Text        *string         `json:"text"`
	Meta        json.RawMessage `json:"meta"`
}

// readExport decodes export's JSON lines, failing the test on a line that
// does not decode or has a field export does not write.
func readExport(t *testing.T, out string) []exportLine {
	t.Helper()
	var lines []exportLine
	for n, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var l exportLine
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("export line %d %q: %v", n+1, line, err)
		}
		lines = append(lines, l)
	}
	return lines
}

// exportStore stores migrateDocs in a new store with the default profile
// and returns its directory.
func exportStore(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "db")
	e := openStore(t, dir, "default")
	for _, d := range migrateDocs {
		if r, err := e.Insert(context.Background(), d); err != nil || !r.Inserted {
			t.Fatalf("insert %s: %+v, %v", d.ID, r, err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestExport checks that export writes every stored document with its id,
// text, metadata, time and fingerprint (the one neardup fingerprint gives
// its text), that --retention leaves out the old one, that --no-text
// leaves out texts and metadata, and that --fingerprints writes lines that
// neardup pairs reads.
func TestExport(t *testing.T) {
	dir := exportStore(t)
	fp, err := neardup.NewFingerprinter(neardup.Config{Profile: "default", Bits: 64})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]neardup.Document{}
	for _, d := range migrateDocs {
		byID[d.ID] = d
	}

	out, errOut, code := runFP(t, "", "export", dir)
	if code != 0 || !strings.Contains(errOut, "export: 4 documents from "+dir) {
		t.Fatalf("export: status %d, stderr %q", code, errOut)
	}
	lines := readExport(t, out)
	var ids []string
	for _, l := range lines {
		ids = append(ids, l.ID)
		d, ok := byID[l.ID]
		if !ok {
			t.Fatalf("export wrote id %q, which was not stored", l.ID)
		}
		if l.Text == nil || *l.Text != d.Text {
			t.Errorf("%s: text %v, want %q", l.ID, l.Text, d.Text)
		}
		if string(l.Meta) != string(d.Meta) {
			t.Errorf("%s: meta %s, want %s", l.ID, l.Meta, d.Meta)
		}
		if want := fp.Fingerprint([]byte(d.Text)).String(); l.Fingerprint != want {
			t.Errorf("%s: fingerprint %s, want %s (neardup fingerprint's)", l.ID, l.Fingerprint, want)
		}
		if !d.Time.IsZero() && !l.Time.Equal(d.Time.Truncate(time.Second)) {
			t.Errorf("%s: time %v, want %v", l.ID, l.Time, d.Time.Truncate(time.Second))
		}
		if d.Time.IsZero() && time.Since(l.Time) > time.Hour {
			t.Errorf("%s: time %v, want about now", l.ID, l.Time)
		}
		if l.Time.Location() != time.UTC {
			t.Errorf("%s: time %v not in UTC", l.ID, l.Time)
		}
	}
	// In the store's order: by hour, so the document of three days ago first.
	if want := []string{"old", "a", "b", "c"}; !slices.Equal(ids, want) {
		t.Fatalf("export wrote ids %q, want %q", ids, want)
	}

	out, errOut, code = runFP(t, "", "export", "--retention", "48h", "--no-text", dir)
	if code != 0 || !strings.Contains(errOut, "3 documents from") || !strings.Contains(errOut, "1 document older than --retention left out") {
		t.Fatalf("export --retention 48h: status %d, stderr %q", code, errOut)
	}
	for _, l := range readExport(t, out) {
		if l.ID == "old" || l.Text != nil || l.Meta != nil || l.Fingerprint == "" {
			t.Errorf("export --retention 48h --no-text wrote %+v", l)
		}
	}

	out, errOut, code = runFP(t, "", "export", "--fingerprints", dir)
	if code != 0 {
		t.Fatalf("export --fingerprints: status %d, stderr %q", code, errOut)
	}
	want := ""
	for _, l := range lines {
		want += l.Fingerprint + "\t" + l.ID + "\n"
	}
	if out != want {
		t.Fatalf("export --fingerprints wrote %q, want %q", out, want)
	}
	pairs, errOut, code := runFP(t, out, "pairs", "--k", "64")
	if code != 0 || strings.Count(pairs, "\n") != 6 || !strings.HasPrefix(pairs, "old\ta\t") {
		t.Fatalf("pairs --k 64 of export --fingerprints: status %d, stderr %q, output %q, want the 6 pairs of 4 ids", code, errOut, pairs)
	}
}

// TestExportRoundTrip checks that dedup --db of export's output stores the
// same documents: the same ids and texts, exported again in the same order,
// and with --time-field and --meta-field their times and metadata too, so
// that the second export is the first byte for byte.
func TestExportRoundTrip(t *testing.T) {
	dir := exportStore(t)
	out, errOut, code := runFP(t, "", "export", dir)
	if code != 0 {
		t.Fatalf("export: status %d, stderr %q", code, errOut)
	}
	file := writeFile(t, "export.jsonl", out)
	again := filepath.Join(t.TempDir(), "again")
	kept, errOut, code := runFP(t, "", "dedup", "--db", again, file)
	if code != 0 || kept != out {
		t.Fatalf("dedup --db of the export: status %d, stderr %q, output %q, want every line of the export", code, errOut, kept)
	}
	out2, errOut, code := runFP(t, "", "export", again)
	if code != 0 {
		t.Fatalf("export of the new store: status %d, stderr %q", code, errOut)
	}
	a, b := readExport(t, out), readExport(t, out2)
	if len(a) != len(b) {
		t.Fatalf("the new store exports %d documents, want %d", len(b), len(a))
	}
	for i := range a {
		if a[i].ID != b[i].ID || *a[i].Text != *b[i].Text || a[i].Fingerprint != b[i].Fingerprint {
			t.Errorf("line %d: %+v in the new store, want %+v", i+1, b[i], a[i])
		}
	}

	whole := filepath.Join(t.TempDir(), "whole")
	if _, errOut, code := runFP(t, "", "dedup", "--db", whole, "--time-field", "time", "--meta-field", "meta", file); code != 0 {
		t.Fatalf("dedup --db --time-field time --meta-field meta of the export: status %d, stderr %q", code, errOut)
	}
	out3, errOut, code := runFP(t, "", "export", whole)
	if code != 0 || out3 != out {
		t.Fatalf("export of the store with times and metadata: status %d, stderr %q, output\n%s\nwant\n%s", code, errOut, out3, out)
	}
	if !strings.Contains(out, `"meta":`) {
		t.Fatal("the exported store has no metadata for the test to carry over")
	}
}

// TestExportRefusals checks that export refuses a directory without a
// store (creating nothing in it), a store open elsewhere, and bad flags,
// each with a message that says what was wrong.
func TestExportRefusals(t *testing.T) {
	empty := t.TempDir()
	_, errOut, code := runFP(t, "", "export", empty)
	wantUsageError(t, errOut, code, empty+": no store there")
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("export of an empty directory left %d entries in it", len(ents))
	}
	missing := filepath.Join(empty, "missing")
	_, errOut, code = runFP(t, "", "export", missing)
	wantUsageError(t, errOut, code, missing+": no store there")

	dir := exportStore(t)
	_, errOut, code = runFP(t, "", "export", "--retention", "-1h", dir)
	wantUsageError(t, errOut, code, "--retention -1h0m0s is negative")
	_, errOut, code = runFP(t, "", "export", "--fingerprints", "--no-text", dir)
	wantUsageError(t, errOut, code, "give one of --fingerprints and --no-text")

	e := openStore(t, dir, "default")
	defer e.Close()
	out, errOut, code := runFP(t, "", "export", dir)
	if code != 1 || out != "" || !strings.Contains(errOut, "in use") || !strings.Contains(errOut, dir) {
		t.Fatalf("export of a store open elsewhere: status %d, output %q, stderr %q, want status 1 and a message that it is in use", code, out, errOut)
	}
}

// TestExportPendingWarns checks that export warns of a batch that a dedup
// --db run stored but did not write, and still exports it.
func TestExportPendingWarns(t *testing.T) {
	dir := exportStore(t)
	if err := os.WriteFile(pendingPath(dir), []byte(fmt.Sprintf("%q\n", "c")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runFP(t, "", "export", dir)
	if code != 0 || !strings.Contains(errOut, "warning: "+dir+" holds a batch that a dedup --db run stored but did not write") || len(readExport(t, out)) != 4 {
		t.Fatalf("export of a store with a pending batch: status %d, stderr %q, output %q", code, errOut, out)
	}
}

// TestExportLostTexts removes the text file that holds the texts of a
// store's last commit, as a damaged disk or a machine stopped before the
// file reached it would leave it: export leaves those documents out, as
// the engine deletes them when it opens the store, says how many, and
// writes the others whole.
func TestExportLostTexts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	e := openStore(t, dir, "default")
	// After a commit of 600 documents the store sends the texts of the
	// next commits to its text log (the first stays in pebble).
	var docs []neardup.Document
	for i := range 600 {
		words := make([]string, 12)
		for j := range words {
			words[j] = fmt.Sprint("w", (i*7919+j*104729)%100003)
		}
		docs = append(docs, neardup.Document{ID: fmt.Sprint("d", i), Text: strings.Join(words, " ")})
	}
	last := []neardup.Document{{ID: "a", Text: migrateDocs[0].Text}, {ID: "b", Text: migrateDocs[2].Text}}
	for _, batch := range [][]neardup.Document{docs, last} {
		if _, err := e.CheckAndInsertBatch(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "texts", "*.log"))
	if len(names) != 1 {
		t.Fatalf("text files %v, want one", names)
	}
	if err := os.Remove(names[0]); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runFP(t, "", "export", dir)
	lines := readExport(t, out)
	if code != 0 || len(lines) != len(docs) || !strings.Contains(errOut, "warning: "+dir+": left out 2 documents whose texts are missing") {
		t.Fatalf("export of a store without its text file: status %d, %d lines, stderr %q; want %d lines and a warning", code, len(lines), errOut, len(docs))
	}
	for i, l := range lines {
		if l.ID != docs[i].ID || l.Text == nil || *l.Text != docs[i].Text {
			t.Fatalf("line %d: %+v, want %+v", i+1, l, docs[i])
		}
	}
}

// TestExportDroppedTexts checks that a store written without texts
// exports its records and metadata, without a text, and no error.
func TestExportDroppedTexts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	o := neardup.DefaultOptions()
	o.DropText = true
	e, err := neardup.Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range migrateDocs[:3] {
		if _, err := e.Insert(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runFP(t, "", "export", dir)
	lines := readExport(t, out)
	if code != 0 || len(lines) != 3 {
		t.Fatalf("export of a store without texts: status %d, stderr %q, output %q", code, errOut, out)
	}
	for i, l := range lines {
		if d := migrateDocs[i]; l.ID != d.ID || l.Text != nil || string(l.Meta) != string(d.Meta) || len(l.Fingerprint) != 16 {
			t.Errorf("line %d: %+v, want id %q with a fingerprint, its meta %s and no text", i+1, l, d.ID, d.Meta)
		}
	}
}

// TestExportURL checks that export --url writes, from a running server,
// the same lines as export of its store's directory once it is stopped,
// and that DIR and --url are asked for one at a time.
func TestExportURL(t *testing.T) {
	dir := exportStore(t)
	e := openStore(t, dir, "default")
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(e)
	srv := httptest.NewServer(s.Handler())
	for _, args := range [][]string{nil, {"--no-text"}, {"--fingerprints"}, {"--retention", "48h"}} {
		out, errOut, code := runFP(t, "", append([]string{"export", "--url", srv.URL}, args...)...)
		if code != 0 || !strings.Contains(errOut, "from "+srv.URL) {
			t.Fatalf("export --url %q: status %d, stderr %q", args, code, errOut)
		}
		// Compared once the server is stopped and the store closed.
		defer func(args []string, out string) {
			want, errOut, code := runFP(t, "", append([]string{"export", dir}, args...)...)
			if code != 0 || out != want || strings.Count(want, "\n") < 3 {
				t.Errorf("export --url %q wrote %q; export of the stopped store's directory %q (status %d, %q)", args, out, want, code, errOut)
			}
		}(args, out)
	}
	srv.Close()
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	_, errOut, code := runFP(t, "", "export")
	wantUsageError(t, errOut, code, "want the directory of a store, or --url of a running server")
	_, errOut, code = runFP(t, "", "export", "--url", srv.URL, dir)
	wantUsageError(t, errOut, code, "not both")
	_, errOut, code = runFP(t, "", "export", "--url", srv.URL)
	if code != 1 || !strings.Contains(errOut, srv.URL) {
		t.Errorf("export --url of a stopped server: status %d, stderr %q", code, errOut)
	}
	// A URL that cannot be a server's is bad input, refused before any
	// request: without a scheme, of another scheme, without a host, or
	// with a query or a fragment.
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, bad := range []string{host, "ftp://" + host, "http://", srv.URL + "/?limit=5", srv.URL + "#top"} {
		_, errOut, code = runFP(t, "", "export", "--url", bad)
		wantUsageError(t, errOut, code, fmt.Sprintf("--url %q", bad))
	}
}
