package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/zeebo/xxh3"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/cputime"
	"github.com/neardup/neardup/internal/testtext"
	"github.com/neardup/neardup/store"
)

// benchEngineLimits bound the flags of `neardup bench engine`: the
// throughput run generates its texts in memory before it starts.
const (
	maxBenchEngineDocs    = 1_000_000_000
	maxBenchEngineWriters = 4096
	maxBenchEngineBatch   = 100_000
	maxBenchTextBytes     = 1 << 20
	// maxBenchTextMemory bounds the generated texts, --docs times
	// --text-bytes.
	maxBenchTextMemory = 64 << 30
)

// benchEngineResult is the report of `neardup bench engine`.
type benchEngineResult struct {
	benchBuild
	GOMAXPROCS int    `json:"gomaxprocs"`
	Kernel     string `json:"kernel"` // index.Kernel: avx512, avx2 or go
	Durability string `json:"durability"`
	// Compression is how the throughput run's store compressed texts.
	Compression string `json:"compression"`

	Writers int `json:"writers,omitempty"`
	// Batch is the number of documents a writer sends per call (1: one
	// CheckAndInsert each).
	Batch         int     `json:"batch,omitempty"`
	Docs          int     `json:"docs,omitempty"`
	TextBytes     int     `json:"text_bytes,omitempty"`
	MinTextBytes  int     `json:"min_text_bytes,omitempty"`
	Seconds       float64 `json:"seconds,omitempty"`
	DocsPerSecond float64 `json:"docs_per_second,omitempty"`
	MiBPerSecond  float64 `json:"mib_per_second,omitempty"`
	CPUSeconds    float64 `json:"cpu_seconds,omitempty"`
	// StealSeconds is the CPU time the hypervisor took from this machine
	// during the throughput run (absent when none, -1 when not known); see
	// hostSteal.
	StealSeconds    float64 `json:"steal_seconds,omitempty"`
	DocsPerCPUSec   float64 `json:"docs_per_cpu_second,omitempty"`
	Acknowledged    int64   `json:"acknowledged,omitempty"`
	StoredAfterOpen int     `json:"stored_after_reopen,omitempty"`
	Lost            int64   `json:"lost"`
	// CandidatesPerDoc is how many index candidates were verified per
	// document, RejectedPerDoc how many of them the policy turned down.
	CandidatesPerDoc float64 `json:"candidates_per_doc"`
	RejectedPerDoc   float64 `json:"rejected_per_doc"`
	// Syncs is how many synced commits carried the documents (0 with
	// nosync): acknowledged documents divided by it is how many a sync
	// carried.
	Syncs uint64 `json:"syncs"`

	// RestartDocs is the number of documents of the restart store: those
	// written, or with ReopenOnly those an earlier run left there.
	RestartDocs     int     `json:"restart_docs,omitempty"`
	ReopenOnly      bool    `json:"reopen_only,omitempty"`
	FillSeconds     float64 `json:"fill_seconds,omitempty"`
	ReopenSeconds   float64 `json:"reopen_seconds,omitempty"`
	CloseSeconds    float64 `json:"close_seconds,omitempty"`
	SnapshotSeconds float64 `json:"reopen_snapshot_seconds,omitempty"`
	ReopenCPU       float64 `json:"reopen_cpu_seconds,omitempty"`
	SnapshotCPU     float64 `json:"reopen_snapshot_cpu_seconds,omitempty"`
	ReopenDocuments int     `json:"reopen_documents,omitempty"`
	StoreBytes      uint64  `json:"store_bytes,omitempty"`
	HeapBytes       uint64  `json:"heap_bytes,omitempty"`
}

// newBenchEngineCmd returns `neardup bench engine`.
func newBenchEngineCmd() *cobra.Command {
	var (
		dir         string
		docs        int
		writers     int
		batch       int
		textBytes   int
		minBytes    int
		longK       int
		restart     int
		shortShare  float64
		durability  string
		compression string
		asJSON      bool
		cpuProfile  string
		reopenOnly  bool
		delay       time.Duration
		expected    int
	)
	cmd := &cobra.Command{
		Use:   "engine",
		Short: "Measure durable check-and-insert throughput and restart time of the engine",
		Long: `Engine measures two things in a fresh store under --dir (a temporary
directory by default, removed afterwards):

  throughput  --docs generated English documents of about --text-bytes bytes
              (or with --min-text-bytes, of sizes spread evenly on a log
              scale from it to --text-bytes, as short posts and titles are),
              new and distinct, sent by --writers goroutines to CheckAndInsert
              (or, with --batch N over 1, N at a time to CheckAndInsertBatch)
              with the chosen --durability; then the store is reopened and the
              stored documents counted against the acknowledged ones.
  restart     --restart-docs documents (records with random 64-bit
              fingerprints, a --short-share of them short texts, no text
              bodies) written straight to the store, then the time Open takes
              to restore the index from them.

Either part is skipped when its count is 0. With --dir, a part refuses a
store an earlier run left there, except the restart part with
--reopen-only, which times the reopen of that store alone. SIGINT or
SIGTERM stops the run, removes a temporary directory, and reports a part
that ended. It reports wall time and CPU time (user+sys), since the
machine may be shared, and on Linux the CPU time the hypervisor took from
the machine during the throughput run (steal).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dur, err := store.ParseDurability(durability)
			if err != nil {
				return usagef("bench engine: --durability %q: want group, sync or nosync", durability)
			}
			comp, err := store.ParseCompression(compression)
			if err != nil {
				return usagef("bench engine: --compression %q: want minlz, snappy, zstd or none", compression)
			}
			switch {
			case docs < 0:
				return usagef("bench engine: --docs %d is negative; want 0 (skip the throughput run) or more", docs)
			case docs > maxBenchEngineDocs:
				return usagef("bench engine: --docs %d: want at most %d", docs, maxBenchEngineDocs)
			case restart < 0:
				return usagef("bench engine: --restart-docs %d is negative; want 0 (skip the restart run) or more", restart)
			case restart > maxBenchEngineDocs:
				return usagef("bench engine: --restart-docs %d: want at most %d", restart, maxBenchEngineDocs)
			case writers < 1 || writers > maxBenchEngineWriters:
				return usagef("bench engine: --writers %d: want at least 1, at most %d", writers, maxBenchEngineWriters)
			case textBytes < 10 || textBytes > maxBenchTextBytes:
				return usagef("bench engine: --text-bytes %d: want at least 10, at most %d", textBytes, maxBenchTextBytes)
			case !(shortShare >= 0 && shortShare <= 1):
				return usagef("bench engine: --short-share %v: want a share from 0 to 1", shortShare)
			case batch < 1 || batch > maxBenchEngineBatch:
				return usagef("bench engine: --batch %d: want at least 1, at most %d", batch, maxBenchEngineBatch)
			case minBytes < 0 || minBytes > textBytes:
				return usagef("bench engine: --min-text-bytes %d: want 0 to --text-bytes (%d)", minBytes, textBytes)
			case longK < 0 || longK > 32:
				return usagef("bench engine: --k %d: want 0 to 32 bits per 64 (0: the default policy's)", longK)
			case expected < 0:
				return usagef("bench engine: --expected-docs %d is negative; want 0 (the engine's default) or more", expected)
			case expected > maxBenchEngineDocs:
				return usagef("bench engine: --expected-docs %d: want 0 (the engine's default) to %d", expected, maxBenchEngineDocs)
			case delay > time.Second:
				return usagef("bench engine: --commit-delay %v: want at most 1s (negative: never wait)", delay)
			case float64(docs)*float64(textBytes) > maxBenchTextMemory:
				return usagef("bench engine: --docs %d of --text-bytes %d: the texts, generated in memory before the run, would take %.0f GiB; want at most %d GiB of them",
					docs, textBytes, float64(docs)*float64(textBytes)/(1<<30), maxBenchTextMemory>>30)
			}
			log := cmd.ErrOrStderr()
			if reopenOnly {
				// --reopen-only times the restart store an earlier run
				// left in --dir, and nothing else.
				switch {
				case dir == "":
					return usagef("bench engine: --reopen-only: want --dir, the directory of an earlier run whose restart store to reopen")
				case cmd.Flags().Changed("docs") && docs > 0:
					return usagef("bench engine: --docs %d with --reopen-only: the throughput run fills a store; want --docs 0, or no --reopen-only", docs)
				}
				docs = 0
				rdir := filepath.Join(dir, "restart")
				if full, err := dirHoldsFiles(rdir); err != nil || !full {
					return usagef("bench engine: --reopen-only: %s holds no store to reopen; want the --dir of an earlier run with --restart-docs", rdir)
				}
			} else if docs == 0 && restart == 0 {
				return usagef("bench engine: --docs 0, --restart-docs 0: nothing to run; want a count for the throughput run, the restart run or both")
			}
			if dir != "" {
				// A fill into a store an earlier run left would time
				// duplicate checks, or reopen more than was written.
				for _, part := range []struct {
					name string
					run  bool
					hint string
				}{{"throughput", docs > 0, ""}, {"restart", restart > 0 && !reopenOnly, ", or time its reopen with --reopen-only"}} {
					p := filepath.Join(dir, part.name)
					if !part.run {
						continue
					}
					if full, err := dirHoldsFiles(p); err != nil {
						return usagef("bench engine: --dir %s: %v", dir, err)
					} else if full {
						return usagef("bench engine: --dir %s: %s holds the store of an earlier run; the %s run wants a new store: remove it or give another --dir%s", dir, p, part.name, part.hint)
					}
				}
			}
			// The profile starts once the texts are generated, so that it
			// shows the engine rather than the generator.
			prof, err := openCPUProfile(cpuProfile)
			if err != nil {
				return err
			}
			defer prof.stop()
			root := dir
			if root == "" {
				if root, err = os.MkdirTemp("", "neardup-bench-"); err != nil {
					return err
				}
				defer os.RemoveAll(root)
			}
			// SIGINT and SIGTERM stop the runs through ctx: the function
			// returns, so the stores are closed and the temporary ones
			// removed, the profile is flushed and a part that ended is
			// reported.
			ctx, stopSignals := benchContext(cmd)
			defer stopSignals()
			res := benchEngineResult{benchBuild: benchBuildInfo(), GOMAXPROCS: runtime.GOMAXPROCS(0), Kernel: index.Kernel(), Durability: dur.String(), Compression: comp.String()}
			var runErr error
			if docs > 0 {
				runErr = benchThroughput(ctx, &res, filepath.Join(root, "throughput"), log, throughputRun{docs: docs, writers: writers, batch: batch, comp: comp, minBytes: minBytes, textBytes: textBytes, longK: longK, dur: dur, delay: delay, expected: expected, prof: prof})
			}
			if runErr == nil && (restart > 0 || reopenOnly) {
				if runErr = prof.start(); runErr == nil {
					runErr = benchRestart(ctx, &res, filepath.Join(root, "restart"), log, restart, shortShare, reopenOnly)
				}
			}
			if runErr != nil && ctx.Err() == nil {
				return runErr
			}
			if runErr == nil || res.Docs > 0 {
				if err := printBenchEngine(cmd.OutOrStdout(), &res, asJSON); err != nil {
					return err
				}
			}
			if runErr != nil {
				done := "nothing was measured"
				if res.Docs > 0 {
					done = "the throughput run above was measured before it, the restart run was not"
				}
				return benchInterrupted(ctx, "bench engine", done)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "directory for the stores (default: a temporary one)")
	f.IntVar(&docs, "docs", 100000, "documents for the throughput run (0: skip)")
	f.IntVar(&writers, "writers", 64, "concurrent writers in the throughput run")
	f.IntVar(&batch, "batch", 1, "documents per call in the throughput run: 1 calls CheckAndInsert, more call CheckAndInsertBatch")
	f.IntVar(&textBytes, "text-bytes", 1000, "approximate size of a document")
	f.IntVar(&minBytes, "min-text-bytes", 0, "spread document sizes from about this many bytes to --text-bytes, evenly on a log scale (0: every document about --text-bytes)")
	f.IntVar(&longK, "k", 0, "Hamming distance within which long texts are candidates in the throughput run (0: the default policy's)")
	f.IntVar(&restart, "restart-docs", 0, "documents for the restart run (0: skip)")
	f.Float64Var(&shortShare, "short-share", 0.1, "share of short texts in the restart run")
	f.StringVar(&durability, "durability", "group", "group, sync or nosync")
	f.StringVar(&compression, "compression", "minlz", "how the throughput run's store compresses texts: minlz, snappy, zstd or none")
	f.DurationVar(&delay, "commit-delay", 0, "with group durability, how long a commit waits for more writes when writers queue (0: the default, 1ms; negative: never)")
	f.IntVar(&expected, "expected-docs", 0, "Options.ExpectedDocuments of the throughput run, which sizes the id map, the lock stripes and the index's first design (0: the engine's default)")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the timed runs (not the generation of texts) to this file")
	f.BoolVar(&reopenOnly, "reopen-only", false, "with --dir, time the reopen of the restart store an earlier run left there, without filling it, and skip the throughput run (--restart-docs, if given, sizes the engine as in the run that filled it)")
	return cmd
}

// dirHoldsFiles reports whether dir exists and holds anything: a store
// left by an earlier run. A directory that does not exist holds nothing.
func dirHoldsFiles(dir string) (bool, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return len(ents) > 0, nil
}

// printBenchEngine writes the report of the parts res holds: as JSON, or
// as text, the build first, then a header line a part and a labelled line
// a measure.
func printBenchEngine(out io.Writer, res *benchEngineResult, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintln(out, res.benchBuild.line())
	if res.Docs > 0 {
		size := strconv.Itoa(res.TextBytes)
		if res.MinTextBytes > 0 {
			size = strconv.Itoa(res.MinTextBytes) + "-" + size
		}
		calls := "one doc a call"
		if res.Batch > 1 {
			calls = fmt.Sprintf("batches of %d", res.Batch)
		}
		fmt.Fprintf(out, "throughput: %d docs of %s bytes, %d writers, %s, durability %s, compression %s, kernel %s\n",
			res.Docs, size, res.Writers, calls, res.Durability, res.Compression, res.Kernel)
		fmt.Fprintf(out, "  wall        %.2f s, %.0f docs/s, %.1f MiB/s\n", res.Seconds, res.DocsPerSecond, res.MiBPerSecond)
		fmt.Fprintf(out, "  cpu         %.2f s on GOMAXPROCS %d, %.0f docs per cpu-second\n", res.CPUSeconds, res.GOMAXPROCS, res.DocsPerCPUSec)
		if res.StealSeconds >= 0 {
			fmt.Fprintf(out, "  host steal  %.2f s of CPU taken by the hypervisor (%.0f%% of %d cores' time)\n",
				res.StealSeconds, 100*res.StealSeconds/(res.Seconds*float64(res.GOMAXPROCS)), res.GOMAXPROCS)
		}
		syncs := "no synced commits"
		if res.Syncs > 0 {
			syncs = fmt.Sprintf("%d syncs (%.1f docs each)", res.Syncs, float64(res.Acknowledged)/float64(res.Syncs))
		}
		fmt.Fprintf(out, "  durable     acknowledged %d, stored after reopen %d, lost %d; %s\n",
			res.Acknowledged, res.StoredAfterOpen, res.Lost, syncs)
		fmt.Fprintf(out, "  candidates  %.2f verified per doc, %.2f rejected\n", res.CandidatesPerDoc, res.RejectedPerDoc)
	}
	if res.ReopenSeconds > 0 {
		fill := fmt.Sprintf("filled in %.1f s", res.FillSeconds)
		if res.ReopenOnly {
			fill = "left by an earlier run (--reopen-only)"
		}
		fmt.Fprintf(out, "restart: %d docs, %s\n", res.RestartDocs, fill)
		fmt.Fprintf(out, "  reopen rebuilding the index  %.2f s, cpu %.2f s\n", res.ReopenSeconds, res.ReopenCPU)
		fmt.Fprintf(out, "  close writing a snapshot     %.2f s\n", res.CloseSeconds)
		fmt.Fprintf(out, "  reopen from the snapshot     %.2f s, cpu %.2f s\n", res.SnapshotSeconds, res.SnapshotCPU)
		fmt.Fprintf(out, "  memory                       store %.0f MiB, heap %.0f MiB\n", float64(res.StoreBytes)/(1<<20), float64(res.HeapBytes)/(1<<20))
	}
	return nil
}

// cpuSeconds is cputime.Process in seconds.
func cpuSeconds() float64 { return cputime.Process().Seconds() }

// throughputRun is what the throughput part of `bench engine` runs.
type throughputRun struct {
	docs, writers, batch int
	minBytes, textBytes  int
	longK                int
	dur                  store.Durability
	comp                 store.Compression
	delay                time.Duration
	expected             int
	prof                 *cpuProfile // started when the clock starts
}

// benchThroughput runs the throughput part of `bench engine` in a new
// store in dir and fills its fields of res. When ctx is cancelled it
// stops the writers, closes the store and returns ctx's error.
func benchThroughput(ctx context.Context, res *benchEngineResult, dir string, log io.Writer, c throughputRun) error {
	docs, writers, minBytes, textBytes := c.docs, c.writers, c.minBytes, c.textBytes
	// Texts are generated before the clock starts: distinct articles (their
	// content words differ, as unrelated real texts' do), each
	// with its number in front so no two are near-duplicates by accident.
	fmt.Fprintf(log, "bench engine: generating %d texts\n", docs)
	texts := make([]string, docs)
	parallelDo(docs, func(i int) {
		if ctx.Err() != nil {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(i), 99))
		size := float64(textBytes)
		if minBytes > 0 {
			size = math.Exp(math.Log(float64(minBytes)) + rng.Float64()*math.Log(float64(textBytes)/float64(minBytes)))
		}
		texts[i] = strconv.Itoa(i) + " " + testtext.Article(rng, max(1, int(size/7)))
	})
	if err := ctx.Err(); err != nil {
		return err
	}
	var total int64
	for _, t := range texts {
		total += int64(len(t))
	}
	fmt.Fprintf(log, "bench engine: throughput run\n")
	o := neardup.DefaultOptions()
	o.K = c.longK
	o.Durability = c.dur
	o.Compression = c.comp
	o.CommitDelay = c.delay
	o.ExpiryInterval = -1
	o.ExpectedDocuments = c.expected
	e, err := neardup.Open(dir, &o)
	if err != nil {
		return err
	}
	var next, acked atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	if err := c.prof.start(); err != nil {
		e.Close()
		return err
	}
	steal := startSteal()
	cpu0, t0 := cpuSeconds(), time.Now()
	for range writers {
		wg.Go(func() {
			ds := make([]neardup.Document, 0, c.batch)
			for {
				i := int(next.Add(int64(c.batch)) - int64(c.batch))
				if i >= docs || ctx.Err() != nil {
					return
				}
				ds = ds[:0]
				for j := i; j < min(i+c.batch, docs); j++ {
					ds = append(ds, neardup.Document{ID: strconv.Itoa(j), Text: texts[j]})
				}
				if c.batch == 1 {
					r, err := e.CheckAndInsert(ctx, ds[0])
					if err != nil {
						firstErr.CompareAndSwap(nil, &err)
						return
					}
					if r.Inserted {
						acked.Add(1)
					}
					continue
				}
				rs, err := e.CheckAndInsertBatch(ctx, ds)
				if err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				for _, r := range rs {
					if r.Inserted {
						acked.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed, cpu := time.Since(t0).Seconds(), cpuSeconds()-cpu0
	stolen := steal.seconds()
	st := e.Stats()
	if err := ctx.Err(); err != nil {
		e.Close()
		return err
	}
	if p := firstErr.Load(); p != nil {
		e.Close()
		return *p
	}
	if err := e.Close(); err != nil {
		return err
	}
	e, err = neardup.Open(dir, &o)
	if err != nil {
		return fmt.Errorf("bench engine: reopen: %w", err)
	}
	stored := e.Stats().Documents
	e.Close()
	*res = benchEngineResult{benchBuild: res.benchBuild, GOMAXPROCS: res.GOMAXPROCS, Kernel: res.Kernel, Durability: res.Durability, Compression: res.Compression,
		Writers: writers, Batch: c.batch, Docs: docs, TextBytes: textBytes, MinTextBytes: minBytes, Seconds: elapsed,
		DocsPerSecond: float64(docs) / elapsed, MiBPerSecond: float64(total) / elapsed / (1 << 20),
		CPUSeconds: cpu, DocsPerCPUSec: float64(docs) / cpu, StealSeconds: stolen,
		Acknowledged: acked.Load(), StoredAfterOpen: stored, Lost: max(0, acked.Load()-int64(stored)),
		CandidatesPerDoc: float64(st.Candidates) / float64(docs), RejectedPerDoc: float64(st.Rejected) / float64(docs), Syncs: st.Syncs}
	return nil
}

// benchRestart runs the restart part of `bench engine`: it fills a store
// in dir with n records (unless reopenOnly: an earlier run left them),
// then times reopening it, closing it and reopening it from the snapshot,
// and fills the restart fields of res. When ctx is cancelled it returns
// ctx's error between two of these steps.
func benchRestart(ctx context.Context, res *benchEngineResult, dir string, log io.Writer, n int, shortShare float64, reopenOnly bool) error {
	if !reopenOnly {
		fmt.Fprintf(log, "bench engine: restart run: writing %d records\n", n)
		if err := fillRestart(ctx, res, dir, n, shortShare); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fmt.Fprintf(log, "bench engine: restart run: reopening\n")
	o := neardup.DefaultOptions()
	o.ExpiryInterval = -1
	o.ExpectedDocuments = n
	runtime.GC()
	c1, t1 := cpuSeconds(), time.Now()
	e, err := neardup.Open(dir, &o)
	if err != nil {
		return err
	}
	reopen, reopenCPU := time.Since(t1).Seconds(), cpuSeconds()-c1
	st := e.Stats()
	res.ReopenDocuments, res.StoreBytes = st.Documents, st.StoreBytes
	// The store's own count: with --reopen-only, n is at most a hint.
	res.RestartDocs, res.ReopenOnly = st.Documents, reopenOnly
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	res.HeapBytes = ms.HeapAlloc
	t2 := time.Now()
	if err := e.Close(); err != nil { // writes the index snapshot
		return err
	}
	res.CloseSeconds = time.Since(t2).Seconds()
	e = nil
	if err := ctx.Err(); err != nil {
		return err
	}
	runtime.GC()
	c3, t3 := cpuSeconds(), time.Now()
	if e, err = neardup.Open(dir, &o); err != nil {
		return err
	}
	res.SnapshotSeconds, res.SnapshotCPU = time.Since(t3).Seconds(), cpuSeconds()-c3
	if got := e.Stats().Documents; got != res.ReopenDocuments {
		e.Close()
		return fmt.Errorf("bench engine: %d documents after the snapshot reopen, %d before", got, res.ReopenDocuments)
	}
	if err := e.Close(); err != nil {
		return err
	}
	// Set last: the report shows the restart part when it is set.
	res.ReopenSeconds, res.ReopenCPU = reopen, reopenCPU
	return nil
}

// fillRestart writes n records straight to a store in dir, and stops
// between two chunks of them when ctx is cancelled.
func fillRestart(ctx context.Context, res *benchEngineResult, dir string, n int, shortShare float64) error {
	db, err := store.Open(dir, &store.Options{Durability: store.NoSync})
	if err != nil {
		return err
	}
	t0 := time.Now()
	now := time.Now().Unix()
	rng := rand.New(rand.NewPCG(5, 6))
	const chunk = 50000
	for start := 0; start < n; start += chunk {
		if err := ctx.Err(); err != nil {
			db.Close()
			return err
		}
		b := db.NewBatch()
		for i := start; i < min(n, start+chunk); i++ {
			fp := neardup.FromUint64(rng.Uint64())
			id := "doc-" + strconv.Itoa(i)
			textLen, normLen := 2000, 0
			if rng.Float64() < shortShare {
				textLen, normLen = 140, 140
			}
			b.Put(&store.Doc{Record: store.Record{Seq: store.MakeSeq(now, uint64(i+1)), ID: id, Fingerprint: fp.Bytes(),
				Time: now, TextHash: xxh3.HashString(id), TextLen: textLen, NormLen: normLen}})
		}
		if err := db.Commit(b); err != nil {
			db.Close()
			return err
		}
	}
	if err := db.Close(); err != nil {
		return err
	}
	res.FillSeconds = time.Since(t0).Seconds()
	return nil
}
