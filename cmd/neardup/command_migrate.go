package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/store"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// migrateChunk is how many documents migrate reads and stores at a time.
const migrateChunk = 2048

// afterMigrateChunk, if not nil, is called after each chunk is stored
// (tests).
var afterMigrateChunk func()

// errChunkFull stops a scan of the old store once a chunk is read.
var errChunkFull = errors.New("chunk full")

// newMigrateCmd returns `neardup migrate`.
func newMigrateCmd() *cobra.Command {
	var (
		from, to, profile, compression string
		bits                           int
		retention                      time.Duration
		pipe                           pipelineFlags
	)
	cmd := &cobra.Command{
		Use:   "migrate --from DIR --to DIR [flags]",
		Short: "Copy a store's documents into a new store, fingerprinted with the given options",
		Long: `migrate copies every document of the store in --from (a directory that
neardup serve or dedup --db wrote) into a new store in --to, fingerprinting
each again with --profile, --bits and the pipeline flags, which neardup serve
must then be given with --data pointing at --to. Use it when the engine
refuses a store because its documents were fingerprinted otherwise (another
profile, width or pipeline, or another version of neardup), or to change
them. Each document keeps its id, text, metadata and time, and its order;
none is checked against the others, so every document kept stays kept.
With --retention, documents older than that are left out, as the engine
would expire them.

The old store's documents are read and left as they are (it is opened as
a store, so it must not be open in a running neardup). --to must not exist
yet, or be an empty directory: on failure, or when SIGINT or SIGTERM stops
the run, it is removed (emptied, if it was an empty directory), so a run
either copies every document or leaves nothing. Until the copy is whole,
--to holds the file neardup-incomplete: a run cut short otherwise (kill -9,
a crash, a power cut) leaves a store that serve, dedup, export and migrate
refuse, naming it, rather than one with part of the documents; remove it
and run migrate again. Documents stored without
their text (a store written with texts dropped) cannot be fingerprinted
again: migrate stops at the first and names it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case from == "":
				return usagef("migrate: --from is required: the directory of the store to copy")
			case to == "":
				return usagef("migrate: --to is required: a directory for the new store")
			case retention < 0:
				return usagef("migrate: --retention %v is negative; 0 keeps every document", retention)
			}
			if err := checkEngineProfile(profile, bits); err != nil {
				return err
			}
			comp, err := neardup.ParseCompression(compression)
			if err != nil {
				return usagef("migrate: --compression %q: want minlz, snappy, zstd or none", compression)
			}
			p, err := pipe.pipeline(profile)
			if err != nil {
				return err
			}
			if !store.Exists(from) {
				return usagef("migrate: --from %s: no store there (want the directory a neardup store was written in)", from)
			}
			created, err := newStoreDir(to)
			if err != nil {
				return err
			}
			o := neardup.DefaultOptions()
			o.Fingerprint = neardup.Config{Profile: profile, Bits: bits, Pipeline: p}
			o.Compression = comp
			o.Retention = -1 // every document copied is kept: serve applies its own window
			o.ExpiryInterval = -1
			ctx, stop := notifyInterrupt(cmd.Context())
			defer stop()
			var progress func(int)
			if f, ok := cmd.ErrOrStderr().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				bar := progressbar.NewOptions64(-1,
					progressbar.OptionSetWriter(f),
					progressbar.OptionSetDescription("migrate"),
					progressbar.OptionShowCount(),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionClearOnFinish(),
				)
				defer bar.Finish()
				progress = func(n int) { bar.Add(n) }
			}
			n, err := migrate(ctx, from, to, &o, retention, progress)
			if ctx.Err() != nil {
				// Stopped by a signal: the copy is incomplete, so none of
				// it is kept.
				ie, how := interruptedBy(ctx)
				ie.msg = fmt.Sprintf("migrate: %s after %s; %s removed, %s unchanged", how, plural(n.copied, "document"), to, from)
				err = ie
			}
			if err != nil {
				if created {
					os.RemoveAll(to)
				} else {
					removeContents(to)
				}
				return err
			}
			// On standard error, as every command says how it went.
			fmt.Fprintf(cmd.ErrOrStderr(), "neardup: migrate: %s copied from %s to %s", plural(n.copied, "document"), from, to)
			if n.expired > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), ", %s older than --retention left out", plural(n.expired, "document"))
			}
			fmt.Fprintln(cmd.ErrOrStderr())
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "directory of the store to copy (its documents are left as they are)")
	f.StringVar(&to, "to", "", "directory for the new store: must not exist, or be empty")
	f.StringVar(&profile, "profile", "default", "fingerprint profile of the new store: "+orList(engineProfiles()))
	f.IntVar(&bits, "bits", 64, "fingerprint width of the new store: 64 or 128")
	f.StringVar(&compression, "compression", "minlz", "how the new store compresses texts: minlz, snappy, zstd or none")
	f.DurationVar(&retention, "retention", 0, "leave out documents older than this (0: copy every one)")
	pipe.addFlags(f)
	return cmd
}

// migrated counts what migrate did.
type migrated struct {
	copied, expired int
}

// newStoreDir makes sure dir can take a new store: it creates it (created
// true) or finds it empty, or returns a usage error.
func newStoreDir(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("migrate: --to %s: %w", dir, err)
		}
		return true, nil
	case err != nil:
		return false, usagef("migrate: --to %s: %v", dir, err)
	case len(entries) > 0:
		return false, usagef("migrate: --to %s is not empty: want a new or empty directory, so that no store is overwritten", dir)
	}
	return false, nil
}

// removeContents empties dir, which migrate found empty.
func removeContents(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// migrate copies the documents of the store in from into a new engine in
// to with options o, in order, leaving out those older than retention
// (when positive).
//
// progress, if not nil, is called with the documents of each chunk
// stored. A cancelled ctx stops the copy after the chunk in progress.
func migrate(ctx context.Context, from, to string, o *neardup.Options, retention time.Duration, progress func(int)) (migrated, error) {
	var n migrated
	db, err := store.Open(from, &store.Options{MustExist: true})
	if err != nil {
		return n, fmt.Errorf("migrate: --from %s: %w", from, err)
	}
	defer db.Close()
	e, err := neardup.Open(to, o)
	if err != nil {
		return n, fmt.Errorf("migrate: --to %s: %w", to, err)
	}
	// Until the copy is whole, the new store is marked incomplete: a run
	// cut short by kill -9 or a crash, which cannot remove it, leaves a
	// store that nothing opens, rather than one of part of the documents.
	if err = store.MarkIncomplete(to, "neardup migrate --from "+from); err != nil {
		err = fmt.Errorf("migrate: --to %s: %w", to, err)
	} else {
		err = copyDocs(ctx, db, e, from, to, retention, progress, &n)
	}
	if cerr := e.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("migrate: closing %s: %w", to, cerr)
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil {
		if err = store.MarkComplete(to); err != nil {
			err = fmt.Errorf("migrate: --to %s: %w", to, err)
		}
	}
	return n, err
}

// copyDocs is migrate's loop: it stores the documents of db into e,
// migrateChunk at a time, counting them in n.
func copyDocs(ctx context.Context, db *store.DB, e *neardup.Engine, from, to string, retention time.Duration, progress func(int), n *migrated) error {
	cutoff := int64(0)
	if retention > 0 {
		cutoff = time.Now().Add(-retention).Unix()
	}
	next := uint64(0)
	for ctx.Err() == nil {
		var recs []store.Record
		err := db.Scan(next, 0, func(r store.Record) error {
			recs = append(recs, r)
			if len(recs) == migrateChunk {
				return errChunkFull
			}
			return nil
		})
		if err != nil && !errors.Is(err, errChunkFull) {
			return fmt.Errorf("migrate: reading %s: %w", from, err)
		}
		if len(recs) == 0 {
			return nil
		}
		next = recs[len(recs)-1].Seq + 1
		docs := make([]neardup.Document, 0, len(recs))
		for _, r := range recs {
			if r.Time < cutoff {
				n.expired++
				continue
			}
			text, meta, err := db.Text(r.Seq)
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("migrate: document %s of %s has no text (was the store written with texts dropped?): it cannot be fingerprinted again", quoteCut(r.ID), from)
			}
			if err != nil {
				return fmt.Errorf("migrate: reading document %s of %s: %w", quoteCut(r.ID), from, err)
			}
			docs = append(docs, neardup.Document{ID: r.ID, Text: string(text), Meta: meta, Time: time.Unix(r.Time, 0)})
		}
		if _, err := e.InsertBatch(ctx, docs); err != nil {
			return fmt.Errorf("migrate: storing into %s: %w", to, err)
		}
		n.copied += len(docs)
		if progress != nil {
			progress(len(recs))
		}
		if afterMigrateChunk != nil {
			afterMigrateChunk()
		}
	}
	return nil
}
