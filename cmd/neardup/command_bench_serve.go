package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/cputime"
	"github.com/neardup/neardup/server"
	"github.com/spf13/cobra"
)

// benchServeLimits bound the load `bench serve` may generate.
const (
	maxBenchConns    = 1024
	maxBenchDuration = 10 * time.Minute
	// maxBenchBodyMemory bounds the request bodies the connections of
	// one mode hold at once (each connection builds its own).
	maxBenchBodyMemory = 1 << 30
	// transportBackoff is how long a connection waits after a transport
	// error before it dials again: a dead or refusing server fails at
	// once, and the loop would otherwise redial thousands of times a
	// second.
	transportBackoff = 20 * time.Millisecond
)

// benchBodyBytes estimates the bytes of a request body of n documents of
// words words each as docGen.body writes them, erring a little high for
// bodies of thousands of words: each document's frame, tag and number,
// and its words of a space and 2 to 4 benchSyllables (3 on average, of
// their mean length).
func benchBodyBytes(n, words int) float64 {
	syll := strings.Fields(benchSyllables)
	letters := 0
	for _, s := range syll {
		letters += len(s)
	}
	// 1% over the mean: a body of thousands of words is within a few
	// tenths of a percent of it.
	word := (1 + 3*float64(letters)/float64(len(syll))) * 1.01
	// {"text":"r<6 hex>-w<worker>-<number>"}, and a comma.
	const frame = len(`{"text":""},`) + len("r123456-w1024-") + 10
	return float64(n)*(float64(frame)+float64(words)*word) + 2
}

// benchSize writes a size in bytes in KiB below a MiB, else in MiB.
func benchSize(b float64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.0f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", b/(1<<20))
}

// checkBenchBodies refuses request bodies the modes to run cannot send:
// with the in-process server (local), batch bodies over its body limit,
// server.DefaultMaxBody, which would fail every request; and in any case,
// bodies that the connections of a mode together could not hold in
// maxBenchBodyMemory.
func checkBenchBodies(local, single, batchMode bool, conns, batchConns, batch, words int) error {
	if batchMode {
		size := benchBodyBytes(batch, words)
		if local && size > server.DefaultMaxBody {
			// --words is at most 100,000, a document of under 1 MiB: a
			// batch of one always fits.
			most := 1
			for most < batch && benchBodyBytes(most+1, words) <= server.DefaultMaxBody {
				most++
			}
			return usagef("bench serve: --batch %d of --words %d makes request bodies of about %s, over the server's body limit of %d bytes (%.0f MiB); want --batch at most %d at --words %d, or fewer --words",
				batch, words, benchSize(size), server.DefaultMaxBody, float64(server.DefaultMaxBody)/(1<<20), most, words)
		}
		if size*float64(batchConns) > maxBenchBodyMemory {
			return usagef("bench serve: --batch-conns %d, each building bodies of --batch %d documents of --words %d (about %s), would hold %.1f GiB; want at most %d GiB: fewer connections, documents or words",
				batchConns, batch, words, benchSize(size), size*float64(batchConns)/(1<<30), maxBenchBodyMemory>>30)
		}
	}
	if size := benchBodyBytes(1, words); single && size*float64(conns) > maxBenchBodyMemory {
		return usagef("bench serve: --conns %d, each building bodies of --words %d (about %s), would hold %.1f GiB; want at most %d GiB: fewer connections or words",
			conns, words, benchSize(size), size*float64(conns)/(1<<30), maxBenchBodyMemory>>30)
	}
	return nil
}

func newBenchServeCmd() *cobra.Command {
	var (
		target, durability, cpuProf string
		conns, batchConns, batch    int
		words                       int
		duration, warmup            time.Duration
		single, batchMode, inMemory bool
		policy                      policyFlags
		noEngine, query             bool
		rate                        float64
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Load a neardup server on loopback: throughput and p50/p99 latency",
		Long: `bench serve drives a neardup server with many concurrent clients and reports
throughput and latency percentiles, for single-document requests
(POST /v1/documents) and for batches (POST /v1/documents/batch).

With --url it loads a running server, which must answer plain http on a
loopback address (GET /v1/stats is asked once first); without, it starts
one in this process on 127.0.0.1 with a temporary store, removed
afterwards, whose body limit (4 MiB) bounds --batch times --words. Every
document is new (a distinct synthetic text of --words words), so every
request writes to the store. With --query the
documents are sent as queries instead (POST /v1/query, and
/v1/query/batch for batches): each is checked against the store and none
is stored, so the store keeps its size and the rates stay comparable.

By default each connection sends its next request as soon as the last one
is answered, which measures the most the server can do, with the latency
of a saturated server. With --rate the requests are sent on a schedule
(that many a second over all connections, each connection in turn) and
latency counts from the scheduled time, so it includes any wait for a
connection that was still busy: the latency a client sees at that load.
It also gives the latency from each request's actual send, which leaves
out the generator's own late wake-ups (a sleep can overshoot by
milliseconds on a virtual machine). A request due after the end of the
run is not sent, so the rate must schedule at least one in --duration.

SIGINT or SIGTERM stops the runs: the rows measured before it are
printed, the in-process server's store is removed, and neardup exits with
128 plus the signal's number.

The cpu/doc column is this process's CPU time (user and system) over the
measured time per document answered: the load generator's and, without
--url, the server's too. It varies less with the machine's phase than
throughput does, so it compares builds in fewer runs.

On Linux the report ends with the CPU time the hypervisor took from the
machine during the runs (steal): where it is large, so is the noise. Last
comes the number of documents the store holds after the runs: a query
costs more as the store grows, so a longer --duration gives lower rates.

With --no-engine the in-process server answers every document as new
without fingerprinting, checking or storing it: what is left is the cost
of HTTP, JSON and the load generator itself, the ceiling any engine works
under on this machine.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case conns < 1 || conns > maxBenchConns:
				return usagef("bench serve: --conns %d: want 1 to %d", conns, maxBenchConns)
			case batchConns < 1 || batchConns > maxBenchConns:
				return usagef("bench serve: --batch-conns %d: want 1 to %d", batchConns, maxBenchConns)
			case duration <= 0 || duration > maxBenchDuration:
				return usagef("bench serve: --duration %v: want more than 0, at most %v", duration, maxBenchDuration)
			case warmup < 0 || warmup > maxBenchDuration:
				return usagef("bench serve: --warmup %v: want 0 to %v", warmup, maxBenchDuration)
			case batch < 1 || batch > server.DefaultMaxBatch:
				return usagef("bench serve: --batch %d: want 1 to %d", batch, server.DefaultMaxBatch)
			case words < 1 || words > 100000:
				return usagef("bench serve: --words %d: want 1 to 100000", words)
			case !(rate >= 0 && rate <= 1e7):
				return usagef("bench serve: --rate %v: want 0 (back to back) to 1e7 requests a second", rate)
			case rate > 0 && rate*duration.Seconds() < 1:
				// Below one request a run the schedule sends nothing, and
				// the interval between a connection's requests overflows.
				return usagef("bench serve: --rate %v: want 0 (back to back) or at least %g requests a second, one over --duration %v", rate, 1/duration.Seconds(), duration)
			case query && noEngine:
				return usagef("--query needs an engine: --no-engine answers documents only")
			}
			if !cmd.Flags().Changed("single") && !cmd.Flags().Changed("batch-mode") {
				single, batchMode = true, true
			}
			if !single && !batchMode {
				return usagef("bench serve: --single=%t, --batch-mode=%t: no mode left to run; want --single, --batch-mode, or neither for both", single, batchMode)
			}
			dur, err := parseDurability(durability)
			if err != nil {
				return err
			}
			if target != "" {
				for _, name := range []string{"no-engine", "durability", "in-memory", "short-k", "tiny-k", "tiny-length", "tiny-words", "distinct-numbers", "distinct-negation", "short-min", "long-min"} {
					if cmd.Flags().Changed(name) {
						return usagef("--%s applies to the in-process server, not to --url", name)
					}
				}
				if err := checkLoopback(target); err != nil {
					return err
				}
			}
			if err := checkBenchBodies(target == "", single, batchMode, conns, batchConns, batch, words); err != nil {
				return err
			}
			opts := neardup.DefaultOptions()
			opts.Durability, opts.InMemory = dur, inMemory
			if err := policy.apply(&opts); err != nil {
				return err
			}
			stopProfile, err := startCPUProfile(cpuProf)
			if err != nil {
				return err
			}
			defer stopProfile()
			// SIGINT and SIGTERM stop the load (loadServer); the server
			// keeps running until the report is written, and is then
			// stopped and its store removed by the deferred stop.
			ctx, stopSignals := benchContext(cmd)
			defer stopSignals()
			base := target
			if base == "" {
				var u string
				var stop func()
				if noEngine {
					u, stop, err = startNullServer(context.WithoutCancel(ctx))
				} else {
					u, stop, err = startBenchServer(context.WithoutCancel(ctx), opts)
				}
				if err != nil {
					return err
				}
				defer stop()
				base = u
			}
			// One probe before anything is printed: a URL where no server
			// answers fails here, with its address, not after an empty
			// table of transport errors.
			first, err := serverStats(ctx, base)
			if err != nil {
				if ctx.Err() != nil {
					return benchInterrupted(ctx, "bench serve", "nothing was measured")
				}
				return fmt.Errorf("bench serve: no neardup server answers at %s: %v", base, err)
			}
			out, log := cmd.OutOrStdout(), cmd.ErrOrStderr()
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(out, benchBuildInfo().line())
			fmt.Fprintf(out, "server %s, %d-word documents, %v per run after %v warm-up, GOMAXPROCS %d", base, words, duration, warmup, runtime.GOMAXPROCS(0))
			if noEngine {
				fmt.Fprint(out, ", no engine (HTTP and JSON alone)")
			} else {
				if target == "" {
					fmt.Fprintf(out, ", kernel %s", index.Kernel())
				}
				fmt.Fprintf(out, ", candidates within %s", policyDistances(first))
			}
			if query {
				fmt.Fprint(out, ", sent as queries (nothing stored)")
			}
			if rate > 0 {
				fmt.Fprintf(out, ", %g requests a second scheduled", rate)
			}
			fmt.Fprintln(out)
			fmt.Fprintln(tw, "mode\tconns\tdocs/req\trequests\treq/s\tdocs/s\tp50\tp99\tmax\tcpu/doc\terrors\t")
			// With --rate, the latency from each request's actual send is
			// reported too: the generator's own late wake-ups (time.Sleep
			// overshoots by milliseconds on a busy or virtual machine)
			// count in the latency from the schedule, not in this one.
			var sentNotes []string
			rows := 0
			steal := startSteal()
			began := time.Now()
			run := func(mode string, c, per int) error {
				docs := "one document"
				if per > 1 {
					docs = strconv.Itoa(per) + " documents"
				}
				fmt.Fprintf(log, "bench serve: %s: %d connections, %s a request, %v after %v warm-up\n", mode, c, docs, duration, warmup)
				r, err := loadServer(ctx, loadSpec{base: base, conns: c, perReq: per, words: words, duration: duration, warmup: warmup, rate: rate, query: query})
				if err != nil {
					if ctx.Err() != nil {
						done := "nothing was measured"
						if rows > 0 {
							done = fmt.Sprintf("the rows above were measured before it (%s was not)", mode)
						}
						return benchInterrupted(ctx, "bench serve", done)
					}
					return err
				}
				rows++
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%.0f\t%v\t%v\t%v\t%s\t%s\t\n", mode, c, per, r.requests,
					float64(r.requests)/r.elapsed.Seconds(), float64(r.requests*per)/r.elapsed.Seconds(),
					r.pct(0.50), r.pct(0.99), r.pct(1), r.cpuPerDoc(per), r.errorSummary())
				if rate > 0 {
					sentNotes = append(sentNotes, fmt.Sprintf("  %s: p50 %v, p99 %v, max %v", mode,
						durationPct(r.sent, 0.50), durationPct(r.sent, 0.99), durationPct(r.sent, 1)))
				}
				return nil
			}
			// The report is written when the runs end, however they end:
			// an interrupted run still shows the rows measured before it.
			defer func() {
				if rows == 0 {
					return
				}
				tw.Flush()
				if len(sentNotes) > 0 {
					fmt.Fprintln(out, "latency from the actual send (the schedule's delays left out):")
					for _, n := range sentNotes {
						fmt.Fprintln(out, n)
					}
				}
				if s := steal.seconds(); s >= 0 {
					procs := runtime.GOMAXPROCS(0)
					fmt.Fprintf(out, "host steal during the runs: %.2f s of CPU taken by the hypervisor (%.0f%% of %d cores' time)\n",
						s, 100*s/(time.Since(began).Seconds()*float64(procs)), procs)
				}
				if !noEngine {
					// The store's size is part of the result: every query
					// scans buckets that fill as it grows.
					if st, err := serverStats(context.WithoutCancel(ctx), base); err == nil {
						fmt.Fprintf(out, "store after the runs: %d documents\n", st.Documents)
					} else {
						fmt.Fprintf(out, "store after the runs: unknown (%v)\n", err)
					}
				}
			}()
			if single {
				if err := run("single", conns, 1); err != nil {
					return err
				}
			}
			if batchMode {
				if err := run("batch", batchConns, batch); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&target, "url", "", "base URL of a running server on loopback (default: start one in this process)")
	f.IntVar(&conns, "conns", 64, "concurrent connections for single-document requests")
	f.IntVar(&batchConns, "batch-conns", 4, "concurrent connections for batch requests")
	f.IntVar(&batch, "batch", 500, "documents per batch request")
	f.IntVar(&words, "words", 60, "words per synthetic document")
	f.DurationVar(&duration, "duration", 10*time.Second, "measured time per mode")
	f.DurationVar(&warmup, "warmup", time.Second, "unmeasured time before each mode")
	f.BoolVar(&single, "single", false, "run only the single-document mode (default: both)")
	f.BoolVar(&batchMode, "batch-mode", false, "run only the batch mode (default: both)")
	f.StringVar(&durability, "durability", "group", "durability of the in-process server's store: group, sync or nosync")
	f.BoolVar(&inMemory, "in-memory", false, "the in-process server keeps its store in memory")
	f.BoolVar(&noEngine, "no-engine", false, "the in-process server answers every document as new without an engine: the HTTP layer's own ceiling")
	f.StringVar(&cpuProf, "cpuprofile", "", "write a CPU profile of this process (client and in-process server) to the file")
	f.BoolVar(&query, "query", false, "send the documents as queries (/v1/query, /v1/query/batch): checked, not stored")
	f.Float64Var(&rate, "rate", 0, "requests a second to send on a schedule, latency counted from the scheduled time (0: each connection back to back)")
	policy.addFlags(f, false)
	for _, name := range []string{"short-k", "tiny-k", "tiny-length", "tiny-words", "distinct-numbers", "distinct-negation", "short-min", "long-min"} {
		fl := f.Lookup(name)
		// The in-process server fingerprints at 64 bits: bench serve has no --bits.
		fl.Usage = "the in-process server's policy: " + strings.Replace(fl.Usage, " (doubled at --bits 128)", "", 1)
	}
	return cmd
}

// startBenchServer serves a fresh store, opened with opts, on a free
// loopback port and returns its URL and a function that stops it and
// removes the store.
func startBenchServer(ctx context.Context, opts neardup.Options) (string, func(), error) {
	dir, err := os.MkdirTemp("", "neardup-bench-serve-")
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, server.Config{Addr: "127.0.0.1:0", Dir: dir, Engine: opts,
			Server: server.Options{MaxInFlight: 4 * maxBenchConns}, Ready: func(a net.Addr) { ready <- a }})
	}()
	stop := func() {
		cancel()
		<-done
		os.RemoveAll(dir)
	}
	select {
	case a := <-ready:
		return "http://" + a.String(), stop, nil
	case err := <-done:
		os.RemoveAll(dir)
		cancel()
		return "", nil, err
	}
}

// startNullServer serves the API on a free loopback port with nullEngine
// and returns its URL and a function that stops it.
func startNullServer(ctx context.Context) (string, func(), error) {
	s, err := server.New(server.Options{MaxInFlight: 4 * maxBenchConns})
	if err != nil {
		return "", nil, err
	}
	s.SetEngine(nullEngine{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), func() { cancel(); <-done }, nil
}

// nullEngine answers every document as new and keeps nothing, so a load
// on a server using it measures the HTTP layer alone.
type nullEngine struct{}

func (nullEngine) CheckAndInsert(_ context.Context, d neardup.Document) (neardup.Result, error) {
	return neardup.Result{ID: d.ID, Inserted: true}, nil
}

func (nullEngine) CheckAndInsertBatch(_ context.Context, ds []neardup.Document) ([]neardup.Result, error) {
	rs := make([]neardup.Result, len(ds))
	for i, d := range ds {
		rs[i] = neardup.Result{ID: d.ID, Inserted: true}
	}
	return rs, nil
}

func (nullEngine) Check(_ context.Context, d neardup.Document) (neardup.Result, error) {
	return neardup.Result{ID: d.ID}, nil
}

func (nullEngine) Get(string) (neardup.Document, error) {
	return neardup.Document{}, neardup.ErrNotFound
}
func (nullEngine) Delete(string) error  { return neardup.ErrNotFound }
func (nullEngine) Stats() neardup.Stats { return neardup.Stats{} }
func (nullEngine) List(context.Context, neardup.ListOptions) ([]neardup.StoredDocument, string, error) {
	return nil, "", nil
}

// checkLoopback refuses URLs that are not plain http (the load generator
// speaks HTTP/1.1 on bare TCP) or whose host is not a loopback address:
// the benchmark is a load generator, not to be pointed at other machines.
func checkLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return usagef("--url %q: want a base URL such as http://127.0.0.1:8080", raw)
	}
	if u.Scheme != "http" {
		return usagef("--url %q: want an http:// URL such as http://127.0.0.1:8080 (bench serve speaks plain HTTP, not %s)", raw, u.Scheme)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return usagef("--url %q: bench serve loads loopback servers only (127.0.0.1, ::1, localhost)", raw)
	}
	return nil
}

type loadSpec struct {
	base             string
	conns, perReq    int
	words            int
	duration, warmup time.Duration
	rate             float64 // requests a second over all connections; 0: back to back
	query            bool    // post to /v1/query rather than /v1/documents
}

type loadResult struct {
	requests  int
	elapsed   time.Duration
	cpu       time.Duration   // the process's CPU time over elapsed; 0 where unknown
	latencies []time.Duration // sorted
	// sent holds, sorted, the latencies counted from when each request
	// was actually sent rather than scheduled (the same as latencies
	// without --rate).
	sent   []time.Duration
	errors map[string]int
}

func (r *loadResult) pct(p float64) time.Duration { return durationPct(r.latencies, p) }

// cpuPerDoc formats the process's CPU time per document measured, or "-"
// where the CPU time is unknown. Requests that straddle the window's ends
// are not counted but their work is, which errs high by at most the
// requests in flight at each end.
func (r *loadResult) cpuPerDoc(perReq int) string {
	if r.cpu <= 0 || r.requests == 0 {
		return "-"
	}
	us := float64(r.cpu.Microseconds()) / float64(r.requests*perReq)
	return strconv.FormatFloat(us, 'f', 1, 64) + "µs"
}

// sleepUntil sleeps until t and reports whether ctx was still live then.
// A time already past returns at once.
func sleepUntil(ctx context.Context, t time.Time) bool {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// durationPct returns the p-th quantile of the sorted ds, to the microsecond.
func durationPct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[int(p*float64(len(ds)-1))].Round(time.Microsecond)
}

func (r *loadResult) errorSummary() string {
	if len(r.errors) == 0 {
		return "0"
	}
	keys := make([]string, 0, len(r.errors))
	for k := range r.errors {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b bytes.Buffer
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%d", k, r.errors[k])
	}
	return b.String()
}

// loadServer runs spec.conns workers, each on its own keep-alive
// connection, posting new documents back to back, or with spec.rate set,
// each at its turn of a schedule of spec.rate requests a second (a request
// whose time came while its connection was busy goes as soon as it is
// free, and its latency counts from its time). Requests sent after the
// warm-up and completed before its end are measured.
func loadServer(ctx context.Context, spec loadSpec) (*loadResult, error) {
	u, err := url.Parse(spec.base)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return nil, usagef("bench serve: %q: want a base URL such as http://127.0.0.1:8080", spec.base)
	}
	path := strings.TrimRight(u.Path, "/") + "/v1/documents"
	if spec.query {
		path = strings.TrimRight(u.Path, "/") + "/v1/query"
	}
	if spec.perReq > 1 {
		path += "/batch"
	}
	target := spec.base + path
	var interval time.Duration
	if spec.rate > 0 {
		// The time between the requests of one connection; the command
		// refuses rates that send nothing in a run, which also keeps this
		// far from overflowing a time.Duration.
		iv := float64(time.Second) * float64(spec.conns) / spec.rate
		if !(iv < 1<<62) {
			return nil, usagef("bench serve: --rate %v: too low for %d connections", spec.rate, spec.conns)
		}
		interval = time.Duration(iv)
	}
	runID := rand.Uint64()
	start := time.Now()
	measureFrom := start.Add(spec.warmup)
	end := measureFrom.Add(spec.duration)
	type workerResult struct {
		lat, sent []time.Duration
		errors    map[string]int
	}
	results := make([]workerResult, spec.conns)
	// The process's CPU time over the measured window, read beside the
	// workers.
	var cpu time.Duration
	cpuDone := make(chan struct{})
	go func() {
		defer close(cpuDone)
		if !sleepUntil(ctx, measureFrom) {
			return
		}
		c0 := cputime.Process()
		if sleepUntil(ctx, end) {
			cpu = cputime.Process() - c0
		}
	}()
	var wg sync.WaitGroup
	for w := range spec.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := workerResult{errors: make(map[string]int)}
			gen := newDocGen(runID, uint64(w), spec.words)
			c := &rawClient{host: u.Host, path: path}
			defer c.close()
			var body []byte
			next := start
			if interval > 0 {
				next = start.Add(interval * time.Duration(w) / time.Duration(spec.conns))
			}
			for ctx.Err() == nil {
				body = gen.body(body[:0], spec.perReq)
				t0 := time.Now()
				if interval > 0 {
					// A request scheduled past the end is not sent: the
					// run never sleeps beyond its end.
					if !next.Before(end) {
						break
					}
					if next.After(t0) && !sleepUntil(ctx, next) {
						break
					}
					t0, next = next, next.Add(interval)
				}
				if !t0.Before(end) {
					break
				}
				sentAt := time.Now()
				status, err := c.post(body, 30*time.Second)
				t1 := time.Now()
				if err != nil {
					res.errors["transport"]++
					wake := t1.Add(transportBackoff)
					if wake.After(end) {
						wake = end
					}
					if !sleepUntil(ctx, wake) {
						break
					}
					continue
				}
				if status != http.StatusOK {
					key := strconv.Itoa(status)
					if status == http.StatusRequestEntityTooLarge {
						key += "-body-too-large"
					}
					res.errors[key]++
					continue
				}
				if t0.After(measureFrom) && t1.Before(end) {
					res.lat = append(res.lat, t1.Sub(t0))
					res.sent = append(res.sent, t1.Sub(sentAt))
				}
			}
			results[w] = res
		}()
	}
	wg.Wait()
	<-cpuDone
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r := &loadResult{elapsed: spec.duration, cpu: cpu, errors: make(map[string]int)}
	for _, w := range results {
		r.latencies = append(r.latencies, w.lat...)
		r.sent = append(r.sent, w.sent...)
		for k, v := range w.errors {
			r.errors[k] += v
		}
	}
	slices.Sort(r.latencies)
	slices.Sort(r.sent)
	r.requests = len(r.latencies)
	if r.requests == 0 {
		if r.errors["413-body-too-large"] > 0 {
			return nil, fmt.Errorf("bench serve: %s answered 413, body too large, to requests of about %s (%d documents of %d words): want fewer documents a request or words, or a server with a larger body limit (errors: %s)",
				target, benchSize(benchBodyBytes(spec.perReq, spec.words)), spec.perReq, spec.words, r.errorSummary())
		}
		return nil, fmt.Errorf("bench serve: no request to %s succeeded (errors: %s)", target, r.errorSummary())
	}
	return r, nil
}

// rawClient posts JSON on one keep-alive HTTP/1.1 connection, writing the
// request and reading the answer itself: none of net/http's transport
// goroutines and channels, and no allocation a request, so the load
// generator takes less of the CPU it shares with the server it measures
// (reading answers with http.ReadResponse took 5.6% of the CPU of a run of
// single documents, docs/PERFORMANCE.md, HTTP service, "Tenth pass").
type rawClient struct {
	host, path string
	conn       net.Conn
	br         *bufio.Reader
	head       []byte
}

// post sends one request and returns the answer's status, reconnecting
// when the previous connection was closed.
func (c *rawClient) post(body []byte, timeout time.Duration) (int, error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.host, timeout)
		if err != nil {
			return 0, err
		}
		c.conn, c.br = conn, bufio.NewReaderSize(conn, 64<<10)
	}
	c.conn.SetDeadline(time.Now().Add(timeout))
	c.head = append(c.head[:0], "POST "...)
	c.head = append(c.head, c.path...)
	c.head = append(c.head, " HTTP/1.1\r\nHost: "...)
	c.head = append(c.head, c.host...)
	c.head = append(c.head, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	c.head = strconv.AppendInt(c.head, int64(len(body)), 10)
	c.head = append(c.head, "\r\n\r\n"...)
	bufs := net.Buffers{c.head, body}
	if _, err := bufs.WriteTo(c.conn); err != nil {
		// A server may answer before it has read the body, as one
		// refusing a body over its limit (413) does, and close the
		// connection: its answer, if it is there, says more than the
		// failed write.
		status, _, rerr := readAnswer(c.br)
		c.close()
		if rerr == nil {
			return status, nil
		}
		return 0, err
	}
	status, closing, err := readAnswer(c.br)
	if err != nil || closing {
		c.close()
	}
	return status, err
}

// readAnswer reads one HTTP/1.1 response from br and discards its body (of
// a Content-Length, or chunked). It returns the status and whether the
// server closes the connection after it.
func readAnswer(br *bufio.Reader) (status int, closing bool, err error) {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	// "HTTP/1.1 200 OK"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return 0, false, fmt.Errorf("bench serve: bad status line %q", bytes.TrimSpace(line))
	}
	code, err := parseDecimal(line[9:12], "status")
	if err != nil {
		return 0, false, err
	}
	status = int(code)
	closing = line[7] == '0' // HTTP/1.0 closes unless told otherwise
	length, chunked := int64(-1), false
	for {
		if line, err = br.ReadSlice('\n'); err != nil {
			return 0, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, false, fmt.Errorf("bench serve: bad header line %q", line)
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = parseDecimal(value, "Content-Length"); err != nil {
				return 0, false, err
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			closing = bytes.EqualFold(value, []byte("close"))
		}
	}
	switch {
	case status < 200 || status == http.StatusNoContent || status == http.StatusNotModified:
		// No body.
	case chunked:
		err = skipChunks(br)
	case length >= 0:
		_, err = br.Discard(int(length))
	default:
		// The body runs to the end of the connection.
		_, err = io.Copy(io.Discard, br)
		closing = true
	}
	return status, closing, err
}

// skipChunks reads and discards a chunked body and its trailer.
func skipChunks(br *bufio.Reader) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, _, _ := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte(";"))
		n, err := strconv.ParseInt(string(size), 16, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("bench serve: bad chunk size %q", size)
		}
		if n == 0 {
			for { // the trailer, up to an empty line
				line, err := br.ReadSlice('\n')
				if err != nil {
					return err
				}
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					return nil
				}
			}
		}
		if _, err := br.Discard(int(n) + 2); err != nil { // the data and its CRLF
			return err
		}
	}
}

// parseDecimal parses the digits of b, what the answer calls them.
func parseDecimal(b []byte, what string) (int64, error) {
	if len(b) == 0 || len(b) > 18 {
		return 0, fmt.Errorf("bench serve: bad %s %q", what, b)
	}
	var n int64
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, fmt.Errorf("bench serve: bad %s %q", what, b)
		}
		n = n*10 + int64(d-'0')
	}
	return n, nil
}

func (c *rawClient) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// serverStats returns the statistics of the server at base, from
// GET /v1/stats.
func serverStats(ctx context.Context, base string) (neardup.Stats, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var st neardup.Stats
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/stats", nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("GET /v1/stats: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("GET /v1/stats: %w", err)
	}
	return st, nil
}

// policyDistances says, from a server's stats, within how many bits its
// texts are candidates: "6 bits, short texts 10, tiny ones 14 (under
// 64 characters)".
func policyDistances(st neardup.Stats) string {
	s := fmt.Sprintf("%d bits", st.K)
	if st.ShortK > 0 {
		s += fmt.Sprintf(", short texts %d", st.ShortK)
	}
	if st.TinyK > 0 {
		s += fmt.Sprintf(", tiny ones %d (under %d characters)", st.TinyK, st.TinyLength)
	}
	return s
}

// docGen writes request bodies of distinct synthetic documents: each text
// starts with a unique tag and continues with pseudo-random words.
type docGen struct {
	rng   *rand.Rand
	tag   string
	n     int
	words int
}

func newDocGen(run, worker uint64, words int) *docGen {
	return &docGen{rng: rand.New(rand.NewPCG(run, worker)), tag: fmt.Sprintf("r%x-w%d-", run&0xffffff, worker), words: words}
}

// benchSyllables make up the synthetic words.
const benchSyllables = "ka lo mi ren to sa vi de pul an so ter gu ni bar el qua zen fo ir"

// benchSyllableCount is the number of benchSyllables.
const benchSyllableCount = 20

// benchParts holds the pieces words are written with: a space and each
// pair of benchSyllables (lead), each pair alone (pair), and each
// syllable (syll), indexed by the syllables' positions. A word is written
// in two appends at most, not one a syllable, from tables small enough to
// stay in cache beside the server's: at 120 words a document, body's share
// of a batch run's CPU went from 14% to 10%, and the run took 93,150
// documents a second against 90,050 (means of 3 runs each). A table of
// every word, 4 MB, cost the server more in misses than it saved.
type benchParts struct {
	lead, pair [benchSyllableCount * benchSyllableCount]string
	syll       [benchSyllableCount]string
}

// benchPieces returns the benchParts, made on the first call.
var benchPieces = sync.OnceValue(func() *benchParts {
	p := &benchParts{}
	syll := strings.Fields(benchSyllables)
	for a, x := range syll {
		p.syll[a] = x
		for b, y := range syll {
			p.pair[a*benchSyllableCount+b] = x + y
			p.lead[a*benchSyllableCount+b] = " " + x + y
		}
	}
	return p
})

// appendWord appends the word that the random draw r picks, after a
// space: its low byte picks 2 to 4 syllables, and its 12-bit fields from
// bit 8 up pick each one.
func (p *benchParts) appendWord(b []byte, r uint64) []byte {
	pick := func(j int) int { return (int(r>>(8+12*j)) & 0xfff) * benchSyllableCount >> 12 }
	b = append(b, p.lead[pick(0)*benchSyllableCount+pick(1)]...)
	switch int(r&0xff) % 3 {
	case 1:
		b = append(b, p.syll[pick(2)]...)
	case 2:
		b = append(b, p.pair[pick(2)*benchSyllableCount+pick(3)]...)
	}
	return b
}

// body appends the JSON body of one request of n documents to b.
func (g *docGen) body(b []byte, n int) []byte {
	parts := benchPieces()
	if n > 1 {
		b = append(b, '[')
	}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		g.n++
		b = append(b, `{"text":"`...)
		b = append(b, g.tag...)
		b = strconv.AppendInt(b, int64(g.n), 10)
		for range g.words {
			b = parts.appendWord(b, g.rng.Uint64())
		}
		b = append(b, `"}`...)
	}
	if n > 1 {
		b = append(b, ']')
	}
	return b
}
