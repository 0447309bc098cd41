package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/cputime"
	"github.com/neardup/neardup/internal/testtext"
	"github.com/spf13/cobra"
)

// benchIndexLimits bound the flags of `neardup bench index`: the
// fingerprints and the queries are generated in memory.
const (
	maxBenchIndexN       = 1_000_000_000
	maxBenchIndexQueries = 100_000_000
)

// benchIndexConfig holds the flags of `neardup bench index`.
type benchIndexConfig struct {
	n, k, queries int
	tableK        int // K the tables are built for (-1: k)
	wide          bool
	design        string
	data          string
	seed          uint64
	json          bool
	baseline      bool
	pairs         bool
	snapshot      bool
	adds          int
	maxBytes      float64
	batch         int
	expire        bool
}

// benchIndexResult is the report of `neardup bench index`.
type benchIndexResult struct {
	benchBuild
	N                int     `json:"n"`
	K                int     `json:"k"`
	TableK           int     `json:"table_k"`
	Wide             bool    `json:"wide"`
	Seed             uint64  `json:"seed"`
	Queries          int     `json:"queries"`
	Data             string  `json:"data"`
	Design           string  `json:"design"`
	Tables           int     `json:"tables"`
	GOMAXPROCS       int     `json:"gomaxprocs"`
	Kernel           string  `json:"kernel"` // index.Kernel: avx512, avx2 or go
	BuildSeconds     float64 `json:"build_seconds"`
	BuildCPUSeconds  float64 `json:"build_cpu_seconds"` // process CPU time of the build, all cores
	InsertsPerSecond float64 `json:"inserts_per_second"`
	Adds             int     `json:"adds"` // online adds timed: --adds, at most -n
	AddsPerSecond    float64 `json:"adds_per_second"`
	AddCPUNs         float64 `json:"add_cpu_ns"` // process CPU time per online add
	QueryP50Ns       float64 `json:"query_p50_ns"`
	QueryP99Ns       float64 `json:"query_p99_ns"`
	// QueryCPUNs is the process CPU time of the sequential timed query
	// loop divided by the number of queries: on a loaded machine it stays
	// near the unloaded latency, which wall-clock percentiles do not.
	QueryCPUNs          float64 `json:"query_cpu_ns"`
	QueriesPerSecond    float64 `json:"queries_per_second"`
	BytesPerFingerprint float64 `json:"bytes_per_fingerprint"`
	BruteforceNs        float64 `json:"bruteforce_ns"`
	Speedup             float64 `json:"speedup"`
	Recall              float64 `json:"recall"`
	MatchesPerQuery     float64 `json:"matches_per_query"`
	// With --batch: the queries asked in calls of QueryBatch of Batch
	// queries each, on every core: queries a second and process CPU time
	// per query.
	Batch                 int     `json:"batch,omitempty"`
	BatchQueriesPerSecond float64 `json:"batch_queries_per_second,omitempty"`
	BatchCPUNs            float64 `json:"batch_cpu_ns,omitempty"`

	SnapshotBytes       int64   `json:"snapshot_bytes,omitempty"`
	SnapshotWriteSecond float64 `json:"snapshot_write_seconds,omitempty"`
	SnapshotLoadSeconds float64 `json:"snapshot_load_seconds,omitempty"`

	// Expiring the older half while one goroutine keeps querying: how long
	// it took and the latency of the queries that ran meanwhile.
	ExpireSeconds    float64 `json:"expire_seconds,omitempty"`
	ExpireQueries    int     `json:"expire_queries,omitempty"`
	ExpireQueryP99Ns float64 `json:"expire_query_p99_ns,omitempty"`
	ExpireQueryMaxNs float64 `json:"expire_query_max_ns,omitempty"`

	PairsSeconds float64 `json:"pairs_seconds,omitempty"`
	PairsFound   int     `json:"pairs_found,omitempty"`

	Baseline *benchBaselineResult `json:"baseline_4x16,omitempty"`
}

// benchBaselineResult reports the seed articles' 4 x 16-bit scheme: four
// maps from a 16-bit block value to the list of fingerprints holding it.
type benchBaselineResult struct {
	BuildSeconds        float64 `json:"build_seconds"`
	QueryP50Ns          float64 `json:"query_p50_ns"`
	QueryP99Ns          float64 `json:"query_p99_ns"`
	BytesPerFingerprint float64 `json:"bytes_per_fingerprint"`
	Recall              float64 `json:"recall"`
	IndexP50Speedup     float64 `json:"index_p50_speedup"` // baseline p50 over the index's p50
	// CandidatesPerQuery is the mean number of fingerprints the four block
	// lists hold for a query: the scan work of a 4 x 16-bit design, and a
	// measure of how skewed the fingerprints are (random: 4n/65536).
	CandidatesPerQuery float64 `json:"candidates_per_query"`
}

// newBenchIndexCmd returns `neardup bench index`.
func newBenchIndexCmd() *cobra.Command {
	c := benchIndexConfig{}
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Measure the Hamming index: build, insert, query latency, memory, recall",
		Long: `Index builds a multi-table Hamming index of N fingerprints (random, or SimHash
fingerprints of generated text from the default pipeline), one in ten a
planted near neighbour of an earlier one at distance 0..K, and measures the
bulk build, one-at-a-time adds, query latency (half the queries near stored
entries, half not: random fingerprints, or for text data fingerprints of
other generated texts), heap bytes per fingerprint (runtime.MemStats after GC),
a popcount brute-force scan of the same data, and recall against that scan
on a sample of queries (it must be 1). The seed articles' 4 x 16-bit bucket
scheme is measured in the same run as a baseline.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case c.batch < 0:
				return usagef("bench index: --batch %d is negative; want 0 (skip) or more", c.batch)
			case c.batch > maxBenchIndexQueries:
				return usagef("bench index: --batch %d: want 0 (skip) to %d", c.batch, maxBenchIndexQueries)
			case c.n < 1:
				return usagef("bench index: -n %d: want at least 1 fingerprint", c.n)
			case c.n > maxBenchIndexN:
				return usagef("bench index: -n %d: want at most %d fingerprints", c.n, maxBenchIndexN)
			case c.k < 0 || c.k > index.MaxK:
				return usagef("bench index: -k %d: want 0 to %d", c.k, index.MaxK)
			case c.queries < 1 || c.queries > maxBenchIndexQueries:
				return usagef("bench index: --queries %d: want at least 1, at most %d", c.queries, maxBenchIndexQueries)
			case c.adds < 0:
				return usagef("bench index: --adds %d is negative; want 0 (skip) or more", c.adds)
			case c.tableK < -1:
				return usagef("bench index: --table-k %d: want 0 to -k, or -1 for -k", c.tableK)
			case !(c.maxBytes >= 0):
				return usagef("bench index: --max-bytes %v: want 0 (the index default) or more bytes per entry", c.maxBytes)
			}
			if c.data != "random" && c.data != "text" {
				return usagef("bench index: --data %q: want random or text", c.data)
			}
			d, err := index.ParseDesign(c.design)
			if err != nil {
				return usagef("bench index: --design: %s", strings.TrimPrefix(err.Error(), "index: "))
			}
			if c.tableK < 0 {
				c.tableK = c.k
			}
			if c.tableK > c.k {
				return usagef("bench index: --table-k %d is above -k %d", c.tableK, c.k)
			}
			if !d.IsZero() && d.MaxK() < c.tableK {
				return usagef("bench index: --design %s answers k <= %d, not --table-k (or -k) %d", d, d.MaxK(), c.tableK)
			}
			log := cmd.ErrOrStderr()
			if c.baseline && c.k > 3 {
				// The 4 x 16-bit scheme finds every match within k <= 3
				// only (pigeonhole over four blocks).
				if cmd.Flags().Changed("baseline") {
					return usagef("bench index: --baseline with -k %d: the 4 x 16 baseline answers k <= 3 only; want -k 3 or less, or --baseline=false", c.k)
				}
				fmt.Fprintf(log, "bench index: note: the 4 x 16 baseline answers k <= 3 only; skipped at -k %d\n", c.k)
				c.baseline = false
			}
			if c.adds > c.n {
				// The report gives the number timed; a count asked for
				// explicitly gets a note too.
				if cmd.Flags().Changed("adds") {
					fmt.Fprintf(log, "bench index: note: --adds %d is above -n %d; the %d generated fingerprints are added, and timed\n", c.adds, c.n, c.n)
				}
				c.adds = c.n
			}
			// SIGINT and SIGTERM stop the run between two of its parts.
			ctx, stop := benchContext(cmd)
			defer stop()
			res, err := runBenchIndex(ctx, c, d, log)
			if err != nil {
				return err
			}
			return printBenchIndex(cmd.OutOrStdout(), res, c.json)
		},
	}
	f := cmd.Flags()
	f.IntVarP(&c.n, "n", "n", 1_000_000, "number of fingerprints")
	f.IntVarP(&c.k, "k", "k", 3, "distance the index is built for and queried with")
	f.IntVar(&c.tableK, "table-k", -1, "distance the tables are built for, when below -k (queries beyond it probe several keys per table or scan, whichever the index predicts cheaper; -1: -k)")
	f.BoolVar(&c.wide, "wide", false, "keep all 64 bits of each entry in every table (index.Options.Wide), for queries beyond --table-k")
	f.IntVar(&c.queries, "queries", 100_000, "number of timed queries")
	f.StringVar(&c.design, "design", "auto", `table design: auto, seed (4/1), manku20 (6/3), manku16 (4/1,4/1), or levels like 5/2`)
	f.StringVar(&c.data, "data", "random", "fingerprints: random, or text (SimHash of generated English)")
	f.Uint64Var(&c.seed, "seed", 1, "random seed")
	f.BoolVar(&c.json, "json", false, "print one JSON line")
	f.BoolVar(&c.baseline, "baseline", true, "also measure the 4 x 16-bit map baseline (at -k 3 or less; skipped above unless given)")
	f.BoolVar(&c.pairs, "pairs", false, "also time all-pairs over the same fingerprints")
	f.BoolVar(&c.snapshot, "snapshot", false, "also time writing and loading a snapshot (in a temporary file)")
	f.IntVar(&c.adds, "adds", 1_000_000, "entries added one at a time into a fresh index to measure online adds (at most -n: the generated fingerprints)")
	f.BoolVar(&c.expire, "expire", false, "also time expiring the older half of the entries while queries run")
	f.Float64Var(&c.maxBytes, "max-bytes", 0, "memory budget in bytes per entry for the automatic design (0: the index default)")
	f.IntVar(&c.batch, "batch", 0, "also time the queries asked in calls of QueryBatch of this many (0: skip)")
	return cmd
}

// printBenchIndex writes the report r: one JSON line, or text, the build
// first.
func printBenchIndex(w io.Writer, r benchIndexResult, asJSON bool) error {
	if asJSON {
		b, err := json.Marshal(r)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintln(w, r.benchBuild.line())
	fmt.Fprintf(w, "n=%d k=%d table_k=%d wide=%t data=%s design=%s tables=%d gomaxprocs=%d kernel=%s\n", r.N, r.K, r.TableK, r.Wide, r.Data, r.Design, r.Tables, r.GOMAXPROCS, r.Kernel)
	adds := "not measured (--adds 0)"
	if r.AddsPerSecond > 0 {
		adds = fmt.Sprintf("%.0f/s, %.0f ns CPU each", r.AddsPerSecond, r.AddCPUNs)
		if r.Adds > 0 {
			adds = fmt.Sprintf("%d at %s", r.Adds, adds)
		}
	}
	fmt.Fprintf(w, "build          %.2f s, %.2f s CPU (%.0f inserts/s); online adds %s\n", r.BuildSeconds, r.BuildCPUSeconds, r.InsertsPerSecond, adds)
	fmt.Fprintf(w, "query          p50 %.0f ns, p99 %.0f ns, %.0f ns CPU, %.0f queries/s, %.2f matches/query\n", r.QueryP50Ns, r.QueryP99Ns, r.QueryCPUNs, r.QueriesPerSecond, r.MatchesPerQuery)
	if r.Batch > 0 {
		fmt.Fprintf(w, "query batches  %d queries a call: %.0f queries/s, %.0f ns CPU each\n", r.Batch, r.BatchQueriesPerSecond, r.BatchCPUNs)
	}
	fmt.Fprintf(w, "memory         %.1f bytes/fingerprint\n", r.BytesPerFingerprint)
	fmt.Fprintf(w, "brute force    %.0f ns per scan; index p50 %s; recall %.4f\n", r.BruteforceNs, timesFaster(r.Speedup), r.Recall)
	if r.SnapshotBytes > 0 {
		fmt.Fprintf(w, "snapshot       %d bytes, write %.2f s, load %.2f s\n", r.SnapshotBytes, r.SnapshotWriteSecond, r.SnapshotLoadSeconds)
	}
	if r.ExpireSeconds > 0 {
		fmt.Fprintf(w, "expire half    %.2f s; %d queries meanwhile, p99 %.0f ns, max %.0f ns\n", r.ExpireSeconds, r.ExpireQueries, r.ExpireQueryP99Ns, r.ExpireQueryMaxNs)
	}
	if r.PairsSeconds > 0 {
		fmt.Fprintf(w, "pairs          %d pairs within k in %.2f s\n", r.PairsFound, r.PairsSeconds)
	}
	if b := r.Baseline; b != nil {
		fmt.Fprintf(w, "baseline 4x16  build %.2f s, p50 %.0f ns, p99 %.0f ns, %.1f bytes/fingerprint, recall %.4f, %.0f candidates/query; index p50 %s\n",
			b.BuildSeconds, b.QueryP50Ns, b.QueryP99Ns, b.BytesPerFingerprint, b.Recall, b.CandidatesPerQuery, timesFaster(b.IndexP50Speedup))
	}
	return nil
}

// timesFaster writes a speed ratio, another's time over the index's, as
// the index being that many times faster, or the inverse many times slower
// when it is below 1: "0.7x faster" reads as a gain. Below 10 it keeps a
// decimal.
func timesFaster(ratio float64) string {
	word := "faster"
	if ratio < 1 && ratio > 0 {
		ratio, word = 1/ratio, "slower"
	}
	switch {
	case ratio == 1:
		return "as fast"
	case math.IsNaN(ratio) || math.IsInf(ratio, 0) || ratio <= 0:
		return "not comparable (a time too short to measure)"
	case ratio < 10:
		return fmt.Sprintf("%.1fx %s", ratio, word)
	}
	return fmt.Sprintf("%.0fx %s", ratio, word)
}

// runBenchIndex runs `neardup bench index` as c says, logging its parts
// to log. When ctx is cancelled it stops after the part in progress and
// returns an *interruptedError.
func runBenchIndex(ctx context.Context, c benchIndexConfig, d index.Design, log io.Writer) (benchIndexResult, error) {
	res := benchIndexResult{benchBuild: benchBuildInfo(), N: c.n, K: c.k, TableK: c.tableK, Wide: c.wide, Seed: c.seed, Queries: c.queries,
		Data: c.data, GOMAXPROCS: runtime.GOMAXPROCS(0), Kernel: index.Kernel()}
	part := "generating the fingerprints"
	// stopped reports whether ctx is cancelled, checked between parts.
	stopped := func() bool { return ctx.Err() != nil }
	interrupted := func() (benchIndexResult, error) {
		return res, benchInterrupted(ctx, "bench index", "stopped after "+part+"; nothing is reported")
	}
	fmt.Fprintf(log, "bench index: generating %d %s fingerprints\n", c.n, c.data)
	var es []index.Entry
	var err error
	var fresh []uint64 // for text data, fingerprints of texts not stored
	if c.data == "text" {
		es, err = textEntries(c.n+c.queries/2, c.k, c.seed)
		if err != nil {
			return res, err
		}
		for _, e := range es[c.n:] {
			fresh = append(fresh, e.FP)
		}
		es = es[:c.n]
	} else {
		es = randomBenchEntries(c.n, c.k, c.seed)
	}
	fps := make([]uint64, len(es))
	for i, e := range es {
		fps[i] = e.FP
	}
	queries := benchQueries(fps, c.k, c.queries, c.seed)
	for i := 1; i < len(queries) && len(fresh) > 0; i += 2 {
		queries[i], fresh = fresh[0], fresh[1:]
	}

	if stopped() {
		return interrupted()
	}
	part = "building"
	fmt.Fprintf(log, "bench index: building\n")
	before := heapAfterGC()
	start := time.Now()
	cpu := cputime.Process()
	ix, err := index.New(index.Options{K: c.tableK, Wide: c.wide, ExpectedN: c.n, Design: d, MaxBytesPerEntry: c.maxBytes})
	if err != nil {
		return res, usageError{fmt.Errorf("bench index: %w", err)}
	}
	ix.AddBatch(es)
	res.BuildSeconds = time.Since(start).Seconds()
	res.BuildCPUSeconds = (cputime.Process() - cpu).Seconds()
	res.InsertsPerSecond = float64(c.n) / res.BuildSeconds
	res.BytesPerFingerprint = float64(heapAfterGC()-before) / float64(c.n)
	res.Design, res.Tables = ix.Design().String(), ix.Tables()

	if stopped() {
		return interrupted()
	}
	part = "querying"
	fmt.Fprintf(log, "bench index: querying\n")
	var buf []index.Match
	matches := 0
	cpu = cputime.Process()
	lat := timeQueries(queries, func(q uint64, timed bool) {
		if buf = ix.Query(q, c.k, buf[:0]); timed {
			matches += len(buf)
		}
	})
	res.QueryCPUNs = float64((cputime.Process() - cpu).Nanoseconds()) / float64(len(queries)+min(len(queries), warmQueries))
	res.QueryP50Ns, res.QueryP99Ns = percentile(lat, 0.50), percentile(lat, 0.99)
	res.MatchesPerQuery = float64(matches) / float64(len(queries))
	res.QueriesPerSecond = parallelQPS(queries, func(q uint64, dst []index.Match) []index.Match { return ix.Query(q, c.k, dst) })
	if c.batch > 0 {
		res.Batch = c.batch
		cpu = cputime.Process()
		start := time.Now()
		found := 0
		for b := 0; b < len(queries); b += c.batch {
			for _, ms := range ix.QueryBatch(queries[b:min(len(queries), b+c.batch)], c.k) {
				found += len(ms)
			}
		}
		res.BatchQueriesPerSecond = float64(len(queries)) / time.Since(start).Seconds()
		res.BatchCPUNs = float64((cputime.Process() - cpu).Nanoseconds()) / float64(len(queries))
		if found != matches {
			return res, fmt.Errorf("bench index: QueryBatch found %d matches, Query %d", found, matches)
		}
	}
	res.BruteforceNs = bruteForceNs(fps, c.k)
	res.Speedup = res.BruteforceNs / res.QueryP50Ns
	res.Recall = recall(fps, queries, c.k, func(q uint64) []uint64 {
		var ids []uint64
		for _, m := range ix.Query(q, c.k, nil) {
			ids = append(ids, m.ID)
		}
		return ids
	})

	if stopped() {
		return interrupted()
	}
	if c.snapshot {
		part = "the snapshot"
		fmt.Fprintf(log, "bench index: snapshot\n")
		if err := benchSnapshot(ix, &res); err != nil {
			return res, err
		}
	}
	if stopped() {
		return interrupted()
	}
	if c.expire {
		part = "expiring"
		fmt.Fprintf(log, "bench index: expire\n")
		benchExpire(ix, queries, c.k, int64(c.n/2), &res)
	}
	ix = nil
	if stopped() {
		return interrupted()
	}
	if c.adds > 0 {
		part = "online adds"
		fmt.Fprintf(log, "bench index: online adds\n")
		m := min(c.adds, len(es))
		res.Adds = m
		fresh, _ := index.New(index.Options{K: c.tableK, Wide: c.wide, ExpectedN: m, Design: ix0Design(d, res.Design)})
		start = time.Now()
		cpu = cputime.Process()
		for _, e := range es[:m] {
			fresh.Add(e)
		}
		res.AddsPerSecond = float64(m) / time.Since(start).Seconds()
		res.AddCPUNs = float64((cputime.Process() - cpu).Nanoseconds()) / float64(m)
		// A tier may still be building in the background, holding fresh:
		// AddBatch waits for it, so that fresh is gone before the
		// baseline's memory is measured (it read less than nothing).
		fresh.AddBatch(nil)
	}
	if stopped() {
		return interrupted()
	}
	if c.pairs {
		part = "pairs"
		fmt.Fprintf(log, "bench index: pairs\n")
		start = time.Now()
		index.Pairs(es, c.k, func(a, b index.Entry, d int) { res.PairsFound++ })
		res.PairsSeconds = time.Since(start).Seconds()
	}
	if stopped() {
		return interrupted()
	}
	if c.baseline && c.k <= 3 {
		part = "the baseline"
		fmt.Fprintf(log, "bench index: 4 x 16 baseline\n")
		es = nil
		res.Baseline = benchBaseline(fps, queries, c.k, res.QueryP50Ns)
	}
	if stopped() {
		return interrupted()
	}
	return res, nil
}

// randomBenchEntries returns n random fingerprints; every tenth is a
// planted neighbour of an earlier one at distance 0..k.
func randomBenchEntries(n, k int, seed uint64) []index.Entry {
	r := rand.New(rand.NewPCG(seed, 0x1d))
	es := make([]index.Entry, n)
	for i := range es {
		fp := r.Uint64()
		if i > 0 && i%10 == 0 {
			fp = flipBits(r, es[r.IntN(i)].FP, r.IntN(k+1))
		}
		es[i] = index.Entry{ID: uint64(i), FP: fp, Time: int64(i)}
	}
	return es
}

// flipBits flips n distinct random bits of fp.
func flipBits(r *rand.Rand, fp uint64, n int) uint64 {
	var mask uint64
	for bits.OnesCount64(mask) < n {
		mask |= 1 << r.UintN(64)
	}
	return fp ^ mask
}

// textEntries fingerprints n generated articles (testtext.Article, 40 to
// 200 words, whose distances are like real texts') with the default
// pipeline; every tenth is an edited copy of an earlier text (a few words
// replaced), so its fingerprint is a natural near neighbour.
func textEntries(n, k int, seed uint64) ([]index.Entry, error) {
	fpr, err := neardup.NewFingerprinter(neardup.Config{})
	if err != nil {
		return nil, fmt.Errorf("bench index: %w", err)
	}
	if fpr.Bits() != 64 {
		return nil, fmt.Errorf("bench index: the default profile gives %d-bit fingerprints, the index takes 64", fpr.Bits())
	}
	es := make([]index.Entry, n)
	workers := runtime.GOMAXPROCS(0)
	const chunk = 4096
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for lo := w * chunk; lo < n; lo += workers * chunk {
				r := rand.New(rand.NewPCG(seed, uint64(lo)))
				var prev []string
				for i := lo; i < min(n, lo+chunk); i++ {
					var words []string
					if len(prev) > 0 && i%10 == 0 {
						// An edited copy of the previous text of this chunk.
						words = slices.Clone(prev)
						for range 1 + r.IntN(k+1) {
							words[r.IntN(len(words))] = strings.Fields(testtext.English(r, 1))[0]
						}
					} else {
						words = strings.Fields(testtext.Article(r, 40+r.IntN(160)))
					}
					prev = words
					text := strings.Join(words, " ")
					es[i] = index.Entry{ID: uint64(i), FP: fpr.Fingerprint([]byte(text)).Uint64(), Time: int64(i)}
				}
			}
		})
	}
	wg.Wait()
	return es, nil
}

// benchQueries returns q queries: half stored fingerprints moved by 0..k
// bits (each has at least one match), half fresh random fingerprints.
func benchQueries(fps []uint64, k, q int, seed uint64) []uint64 {
	r := rand.New(rand.NewPCG(seed, 0x9e))
	out := make([]uint64, q)
	for i := range out {
		if i%2 == 0 {
			out[i] = flipBits(r, fps[r.IntN(len(fps))], r.IntN(k+1))
		} else {
			out[i] = r.Uint64()
		}
	}
	return out
}

func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// warmQueries is the number of queries timeQueries asks before it times
// any.
const warmQueries = 1000

// timeQueries times each query alone, after asking the first warmQueries
// of them once untimed (query's timed false), and returns the latencies in
// ns.
func timeQueries(queries []uint64, query func(q uint64, timed bool)) []float64 {
	for _, q := range queries[:min(len(queries), warmQueries)] {
		query(q, false) // warm up
	}
	lat := make([]float64, len(queries))
	for i, q := range queries {
		start := time.Now()
		query(q, true)
		lat[i] = float64(time.Since(start).Nanoseconds())
	}
	slices.Sort(lat)
	return lat
}

func percentile(sorted []float64, p float64) float64 {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// parallelQPS runs the queries on every core and returns queries per second.
func parallelQPS(queries []uint64, query func(uint64, []index.Match) []index.Match) float64 {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			var buf []index.Match
			for i := w; i < len(queries); i += workers {
				buf = query(queries[i], buf[:0])
			}
		})
	}
	wg.Wait()
	return float64(len(queries)) / time.Since(start).Seconds()
}

// bruteForceNs returns the median time of a popcount scan of every
// fingerprint for one query.
func bruteForceNs(fps []uint64, k int) float64 {
	r := rand.New(rand.NewPCG(3, 3))
	runs := max(3, min(21, int(2e8/float64(len(fps)+1))))
	ts := make([]float64, runs)
	found := 0
	for i := range ts {
		q := r.Uint64()
		start := time.Now()
		found += len(bruteForce(fps, q, k, nil))
		ts[i] = float64(time.Since(start).Nanoseconds())
	}
	slices.Sort(ts)
	runtime.KeepAlive(found) // the scans' results are used
	return ts[len(ts)/2]
}

// bruteForce appends the indexes of fingerprints within k of q.
func bruteForce(fps []uint64, q uint64, k int, dst []uint64) []uint64 {
	for i, fp := range fps {
		if bits.OnesCount64(fp^q) <= k {
			dst = append(dst, uint64(i))
		}
	}
	return dst
}

// recall checks the answers of query for up to 200 queries (ids are
// indexes into fps) against a brute-force scan and returns the share of
// expected matches found; a wrong extra answer counts as a miss.
func recall(fps, queries []uint64, k int, query func(uint64) []uint64) float64 {
	want, found := 0, 0
	for _, q := range queries[:min(200, len(queries))] {
		exp := bruteForce(fps, q, k, nil)
		got := query(q)
		slices.Sort(got)
		want += len(exp)
		for _, id := range got {
			if _, ok := slices.BinarySearch(exp, id); ok {
				found++
			} else {
				found--
			}
		}
	}
	if want == 0 {
		return 1
	}
	return float64(found) / float64(want)
}

// benchSnapshot times writing ix to a temporary file and reading it back.
// The file is removed as soon as it is created, and used through its
// handle: however the process ends, it leaves nothing behind.
func benchSnapshot(ix *index.Index, res *benchIndexResult) error {
	f, err := os.CreateTemp("", "neardup-bench-*.idx")
	if err != nil {
		return fmt.Errorf("bench index: %w", err)
	}
	// Where an open file cannot be removed (Windows), it is removed once
	// closed.
	removed := os.Remove(f.Name()) == nil
	defer func() {
		f.Close()
		if !removed {
			os.Remove(f.Name())
		}
	}()
	start := time.Now()
	n, err := ix.WriteTo(f)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("bench index: %w", err)
	}
	res.SnapshotBytes, res.SnapshotWriteSecond = n, time.Since(start).Seconds()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("bench index: %w", err)
	}
	start = time.Now()
	back, err := index.ReadIndex(f)
	if err != nil {
		return err
	}
	res.SnapshotLoadSeconds = time.Since(start).Seconds()
	if back.Len() != ix.Len() {
		return fmt.Errorf("bench index: snapshot holds %d entries, index %d", back.Len(), ix.Len())
	}
	return nil
}

// baseline4x16 is the seed articles' scheme: for each of the four 16-bit
// blocks, a map from the block's value to the fingerprints that have it.
type baseline4x16 [4]map[uint16][]uint64

func (b *baseline4x16) query(q uint64, k int, dst []uint64) []uint64 {
	for t := range b {
		shift := uint(48 - 16*t)
		for _, fp := range b[t][uint16(q>>shift)] {
			x := fp ^ q
			if bits.OnesCount64(x) > k {
				continue
			}
			// Report each match once: through the first block it shares.
			first := 0
			for first < t && uint16(x>>uint(48-16*first)) != 0 {
				first++
			}
			if first == t {
				dst = append(dst, fp)
			}
		}
	}
	return dst
}

func benchBaseline(fps, queries []uint64, k int, indexP50 float64) *benchBaselineResult {
	var res benchBaselineResult
	before := heapAfterGC()
	start := time.Now()
	var b baseline4x16
	for t := range b {
		b[t] = make(map[uint16][]uint64)
	}
	for _, fp := range fps {
		for t := range b {
			v := uint16(fp >> uint(48-16*t))
			b[t][v] = append(b[t][v], fp)
		}
	}
	res.BuildSeconds = time.Since(start).Seconds()
	res.BytesPerFingerprint = float64(heapAfterGC()-before) / float64(len(fps))
	cands := 0
	for _, q := range queries {
		for t := range b {
			cands += len(b[t][uint16(q>>uint(48-16*t))])
		}
	}
	res.CandidatesPerQuery = float64(cands) / float64(len(queries))
	var buf []uint64
	lat := timeQueries(queries, func(q uint64, _ bool) { buf = b.query(q, k, buf[:0]) })
	res.QueryP50Ns, res.QueryP99Ns = percentile(lat, 0.50), percentile(lat, 0.99)
	res.IndexP50Speedup = res.QueryP50Ns / indexP50
	// The baseline stores fingerprints, not ids: compare multisets of
	// fingerprints with the brute-force answer.
	want, found := 0, 0
	for _, q := range queries[:min(200, len(queries))] {
		var exp []uint64
		for _, i := range bruteForce(fps, q, k, nil) {
			exp = append(exp, fps[i])
		}
		got := b.query(q, k, nil)
		slices.Sort(exp)
		slices.Sort(got)
		want += len(exp)
		if slices.Equal(got, exp) {
			found += len(exp)
		}
	}
	res.Recall = 1
	if want > 0 {
		res.Recall = float64(found) / float64(want)
	}
	runtime.KeepAlive(b)
	return &res
}

// ix0Design returns the design the measured index used, so that online
// adds are timed on the same design.
func ix0Design(given index.Design, used string) index.Design {
	if !given.IsZero() {
		return given
	}
	d, err := index.ParseDesign(used)
	if err != nil {
		return given
	}
	return d
}

// benchExpire expires every entry before cut while a goroutine queries
// without pause, and records the latencies those queries saw.
func benchExpire(ix *index.Index, queries []uint64, k int, cut int64, res *benchIndexResult) {
	var stop atomic.Bool
	var lat []float64
	var wg sync.WaitGroup
	wg.Go(func() {
		var buf []index.Match
		for i := 0; i == 0 || !stop.Load(); i++ {
			start := time.Now()
			buf = ix.Query(queries[i%len(queries)], k, buf[:0])
			lat = append(lat, float64(time.Since(start).Nanoseconds()))
		}
	})
	start := time.Now()
	ix.ExpireBefore(cut)
	res.ExpireSeconds = time.Since(start).Seconds()
	stop.Store(true)
	wg.Wait()
	slices.Sort(lat)
	res.ExpireQueries = len(lat)
	if len(lat) > 0 {
		res.ExpireQueryP99Ns, res.ExpireQueryMaxNs = percentile(lat, 0.99), lat[len(lat)-1]
	}
}
