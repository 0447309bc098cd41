package main

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"strings"
	"time"

	"github.com/neardup/neardup/client"
	"github.com/neardup/neardup/store"
	"github.com/spf13/cobra"
)

// newExportCmd returns `neardup export`.
func newExportCmd() *cobra.Command {
	var (
		fingerprints, noText bool
		retention            time.Duration
		url                  string
	)
	cmd := &cobra.Command{
		Use:   "export [flags] DIR | --url URL",
		Short: "Write the documents a store keeps, one JSON line each",
		Long: `Export writes to standard output every document the store in DIR keeps (a
directory that neardup serve --data or dedup --db wrote), one JSON line
each, in the store's order: by the hour they were seen, and within an hour
in the order they were stored:

  {"id": "...", "time": "2026-12-03T10:15:00Z", "fingerprint": "8c3a5f7e9ecb3f35", "text": "...", "meta": {...}}

time is when the document was seen (UTC, to the second), fingerprint its
fingerprint in hex as neardup fingerprint prints it (32 digits at 128 bits),
meta the JSON it was stored with (left out when none was). A store written
without texts (the engine's DropText) has none to give: its lines have no
text, and keep their meta. The lines are
JSON Lines with the id and text fields dedup reads, so 'neardup dedup --db
NEW --time-field time --meta-field meta export.jsonl' stores the same
documents again, with their times and metadata, and any tool that reads
JSON Lines can read them.

--fingerprints writes HEX<TAB>ID lines instead, as neardup fingerprint does,
for 'neardup export --fingerprints DIR | neardup pairs --k 3' (all the pairs
of the store within 3 bits; 64-bit fingerprints). --no-text leaves out the
texts and metadata, which is also faster: only the records are read.
--retention leaves out the documents older than that, as a server with that
window would have expired them.

The store is opened as a store, so it must not be open in a running neardup:
for a running server give --url instead of DIR (http://127.0.0.1:8080), and
export reads the same lines from its GET /v1/documents, a page of 1,000 at a
time, while it goes on serving (documents stored meanwhile are written or
not by where they fall in the store's order). Otherwise the documents are
only read. A directory that holds no store is refused and
left as it is. A store that a dedup --db run left with a batch stored but
not written (the process died) still holds that batch, and export writes
it: export says so on standard error, and the next dedup --db run on the
store takes the batch back out. Documents whose texts are missing from the
store's text files (the last commit of a machine that stopped, never
acknowledged, or text files cut short or removed) are left out, as serve
and dedup --db delete them, and export says how many. On success export
says on standard error
how many documents it wrote. SIGINT or SIGTERM stops it after the line in
progress, with exit status 130 or 143.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			switch {
			case dir == "" && url == "":
				return usagef("export: want the directory of a store, or --url of a running server")
			case dir != "" && url != "":
				return usagef("export: give the directory of a store or --url of a running server, not both")
			case retention < 0:
				return usagef("export: --retention %v is negative; 0 keeps every document", retention)
			case fingerprints && noText:
				return usagef("export: --fingerprints writes no texts already; give one of --fingerprints and --no-text")
			}
			if url != "" {
				if err := checkServerURL(url); err != nil {
					return err
				}
				return exportURL(cmd, url, fingerprints, noText, retention)
			}
			if !store.Exists(dir) {
				return usagef("export: %s: no store there (want the directory a neardup store was written in, by serve --data or dedup --db)", dir)
			}
			if _, err := os.Stat(pendingPath(dir)); err == nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "neardup: export: warning: %s holds a batch that a dedup --db run stored but did not write (%s); it is exported, and the next dedup --db run takes it back out\n", dir, pendingName)
			}
			ctx, stop := notifyInterrupt(cmd.Context())
			defer stop()
			out := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
			x := exporter{out: out, fingerprints: fingerprints, noText: noText}
			if retention > 0 {
				x.cutoff = time.Now().Add(-retention).Unix()
			}
			err := x.run(ctx, dir)
			if x.lost > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "neardup: export: warning: %s: left out %s whose texts are missing from the store's text files (a run that a stopped machine never finished, or, if many, text files cut short or removed); serve and dedup --db delete their records\n", dir, plural(x.lost, "document"))
			}
			return endExport(ctx, cmd, out, err, dir, x.written, x.older)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fingerprints, "fingerprints", false, "write HEX<TAB>ID lines, as neardup fingerprint does, instead of JSON")
	f.BoolVar(&noText, "no-text", false, "leave the texts and metadata out of the JSON lines (only the records are read)")
	f.DurationVar(&retention, "retention", 0, "leave out documents older than this (0: every document)")
	f.StringVar(&url, "url", "", "read the documents from the running server at this base URL (GET /v1/documents) instead of a store's directory")
	return cmd
}

// exporter writes the documents of a store, one line each.
type exporter struct {
	out          *bufio.Writer
	enc          *json.Encoder
	fingerprints bool
	noText       bool
	cutoff       int64 // unix seconds; older documents are left out
	written      int
	older        int
	lost         int // records left out whose texts are missing
}

// exportDoc is one JSON line of export.
type exportDoc struct {
	ID          string          `json:"id"`
	Time        time.Time       `json:"time"`
	Fingerprint string          `json:"fingerprint"`
	Text        *string         `json:"text,omitempty"`
	Meta        json.RawMessage `json:"meta,omitempty"`
}

// errStopExport ends the scan of a run that ctx stopped.
var errStopExport = errors.New("export stopped")

// run opens the store in dir and writes its documents until the end or
// until ctx is done.
func (x *exporter) run(ctx context.Context, dir string) error {
	db, err := store.Open(dir, &store.Options{MustExist: true})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	x.enc = newJSONEncoder(x.out)
	err = db.ScanViews(0, 0, func(v *store.View) error {
		if ctx.Err() != nil {
			return errStopExport
		}
		if v.Time < x.cutoff {
			x.older++
			return nil
		}
		if db.TextMissing(v) {
			// Never acknowledged, or their text files were damaged:
			// the engine deletes them when it opens the store.
			x.lost++
			return nil
		}
		if err := x.write(db, v); err != nil {
			return err
		}
		x.written++
		return nil
	})
	if errors.Is(err, errStopExport) {
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("export: reading %s: %w", dir, err)
	}
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("export: closing %s: %w", dir, cerr)
	}
	return err
}

// write writes the line of the record v of db. A text in the text log is
// read from where v says it is, without a lookup of its record.
func (x *exporter) write(db *store.DB, v *store.View) error {
	fp := hex.EncodeToString(v.Fingerprint)
	if x.fingerprints {
		x.out.WriteString(fp)
		x.out.WriteByte('\t')
		x.out.WriteString(tsvField(string(v.ID)))
		return x.out.WriteByte('\n')
	}
	d := exportDoc{ID: string(v.ID), Time: time.Unix(v.Time, 0).UTC(), Fingerprint: fp}
	if !x.noText {
		text, meta, err := db.TextMetaAt(v.Seq, v.TextPlace())
		switch {
		case err == nil:
			d.Meta = meta
			if len(text) > 0 || v.TextLen == 0 { // not a text dropped
				s := string(text)
				d.Text = &s
			}
		case !errors.Is(err, store.ErrNotFound):
			return fmt.Errorf("document %s: %w", quoteCut(d.ID), err)
		}
	}
	return x.enc.Encode(d)
}

// checkServerURL refuses, as bad input, an --url that cannot be a server's
// base URL: one that does not parse, is not http or https, names no host,
// or has a query or a fragment, which the API's paths cannot follow.
func checkServerURL(raw string) error {
	u, err := neturl.Parse(raw)
	switch {
	case err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https":
		return usagef("export: --url %q: want the base URL of a server, such as http://127.0.0.1:8080", raw)
	case strings.ContainsAny(raw, "?#"):
		return usagef("export: --url %q has a query or a fragment; give the server's scheme, host and port", raw)
	}
	return nil
}

// exportURL is export from the running server at url, through its GET
// /v1/documents.
func exportURL(cmd *cobra.Command, url string, fingerprints, noText bool, retention time.Duration) error {
	ctx, stop := notifyInterrupt(cmd.Context())
	defer stop()
	out := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	enc := newJSONEncoder(out)
	cutoff := time.Time{}
	if retention > 0 {
		cutoff = time.Now().Add(-retention)
	}
	written, older := 0, 0
	var err error
	for d, derr := range client.New(url, nil).Documents(ctx, exportPage, noText || fingerprints) {
		if err = derr; err != nil {
			break
		}
		if d.Time.Before(cutoff) {
			older++
			continue
		}
		if fingerprints {
			out.WriteString(d.Fingerprint)
			out.WriteByte('\t')
			out.WriteString(tsvField(d.ID))
			err = out.WriteByte('\n')
		} else {
			line := exportDoc{ID: d.ID, Time: d.Time.UTC(), Fingerprint: d.Fingerprint, Meta: d.Meta}
			if !noText {
				line.Text = &d.Text
			}
			err = enc.Encode(line)
		}
		if err != nil {
			break
		}
		written++
	}
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("export: %s after %s: %w", url, plural(written, "document"), err)
	}
	return endExport(ctx, cmd, out, err, url, written, older)
}

// endExport ends a run of export from source that wrote written
// documents and left out older ones, with err: it flushes out, and
// returns the error of a run that ctx stopped, err, or nil after the
// summary line on standard error.
func endExport(ctx context.Context, cmd *cobra.Command, out *bufio.Writer, err error, source string, written, older int) error {
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("export: writing the output: %w", ferr)
	}
	if ctx.Err() != nil {
		ie, how := interruptedBy(ctx)
		ie.msg = fmt.Sprintf("export: %s after %s", how, plural(written, "document"))
		return ie
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "neardup: export: %s from %s", plural(written, "document"), source)
	if older > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), ", %s older than --retention left out", plural(older, "document"))
	}
	fmt.Fprintln(cmd.ErrOrStderr())
	return nil
}

// exportPage is the page size export asks a server for.
const exportPage = 1000
