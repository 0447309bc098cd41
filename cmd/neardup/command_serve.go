package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/server"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newServeCmd() *cobra.Command {
	// env maps each flag to the environment variable that sets it when the
	// flag is not given.
	env := [][2]string{
		{"addr", "NEARDUP_ADDR"},
		{"data", "NEARDUP_DATA"},
		{"retention", "NEARDUP_RETENTION"},
		{"k", "NEARDUP_K"},
		{"short-k", "NEARDUP_SHORT_K"},
		{"short-min", "NEARDUP_SHORT_MIN"},
		{"tiny-k", "NEARDUP_TINY_K"},
		{"tiny-length", "NEARDUP_TINY_LENGTH"},
		{"tiny-words", "NEARDUP_TINY_WORDS"},
		{"distinct-numbers", "NEARDUP_DISTINCT_NUMBERS"},
		{"distinct-negation", "NEARDUP_DISTINCT_NEGATION"},
		{"long-min", "NEARDUP_LONG_MIN"},
		{"expected-docs", "NEARDUP_EXPECTED_DOCS"},
		{"profile", "NEARDUP_PROFILE"},
		{"bits", "NEARDUP_BITS"},
		{"max-body", "NEARDUP_MAX_BODY"},
		{"max-batch", "NEARDUP_MAX_BATCH"},
		{"max-in-flight", "NEARDUP_MAX_IN_FLIGHT"},
		{"max-body-memory", "NEARDUP_MAX_BODY_MEMORY"},
		{"durability", "NEARDUP_DURABILITY"},
		{"compression", "NEARDUP_COMPRESSION"},
		{"scores", "NEARDUP_SCORES"},
		{"in-memory", "NEARDUP_IN_MEMORY"},
		{"drain-delay", "NEARDUP_DRAIN_DELAY"},
		{"min-free", "NEARDUP_MIN_FREE"},
		{"memory-limit", "NEARDUP_MEMORY_LIMIT"},
		{"html", "NEARDUP_HTML"},
		{"main-text", "NEARDUP_MAIN_TEXT"},
		{"fold-accents", "NEARDUP_FOLD_ACCENTS"},
		{"idf", "NEARDUP_IDF"},
		{"pipeline", "NEARDUP_PIPELINE"},
		{"allowed-hosts", "NEARDUP_ALLOWED_HOSTS"},
		{"tls-cert", "NEARDUP_TLS_CERT"},
		{"tls-key", "NEARDUP_TLS_KEY"},
	}
	var pipe pipelineFlags
	var policy policyFlags
	var (
		addr, data, profile, durability string
		compression, scores             string
		allowedHosts                    string
		tlsCert, tlsKey                 string
		maxBody                         byteSize   = server.DefaultMaxBody
		maxBodyMemory                   byteSize   = server.DefaultMaxBodyMemory
		minFree                         freeMargin = neardup.DefaultMinFreeBytes
		retention, drainDelay           time.Duration
		k, bits, maxBatch, maxInFlight  int
		expectedDocs                    int
		inMemory                        bool
		memLimit                        memoryLimit
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the near-duplicate engine over HTTP: JSON API, web page, metrics",
		Long: `serve runs the near-duplicate engine with its embedded store and answers
HTTP: the JSON API under /v1 (documented at /v1/openapi.json), a web page at
/, /healthz, /readyz and Prometheus metrics at /metrics.

With no flags it listens on 127.0.0.1:8080 and keeps its store in
./neardup-data. On a loopback address it answers only requests whose Host
is localhost or a loopback address, against DNS rebinding: --allowed-hosts
adds names. With --tls-cert and --tls-key it serves HTTPS, reading the
files again when they change (a renewed certificate needs no restart).
Each flag not given is read from the environment variable named in its
help, if set. SIGTERM or SIGINT (after --drain-delay, during which /readyz
answers 503) stops accepting connections, finishes the requests in flight,
flushes the store and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fromEnv, err := applyEnv(cmd.Flags(), env)
			if err != nil {
				return err
			}
			// options checks every value, naming the flag of a bad one,
			// and returns the engine's and the server's options.
			options := func() (neardup.Options, server.Options, error) {
				var eopts neardup.Options
				var sopts server.Options
				if err := checkAddr(addr); err != nil {
					return eopts, sopts, err
				}
				dur, err := parseDurability(durability)
				if err != nil {
					return eopts, sopts, err
				}
				comp, err := neardup.ParseCompression(compression)
				if err != nil {
					return eopts, sopts, usagef("--compression %q: want minlz, snappy, zstd or none", compression)
				}
				if retention < 0 {
					return eopts, sopts, usagef("--retention %v is negative; 0 keeps documents forever", retention)
				}
				ruleOnly, err := parseScores(scores)
				if err != nil {
					return eopts, sopts, err
				}
				if err := checkEngineProfile(profile, bits); err != nil {
					return eopts, sopts, err
				}
				def := neardup.DefaultPolicy()
				if err := checkDistance("k", k, def.Long.MaxDistance); err != nil {
					return eopts, sopts, err
				}
				for _, c := range []struct {
					flag, zero string
					v          int
				}{
					{"expected-docs", "1M", expectedDocs},
					{"max-batch", fmt.Sprint(server.DefaultMaxBatch), maxBatch},
					{"max-in-flight", fmt.Sprint(server.DefaultMaxInFlight), maxInFlight},
				} {
					if c.v < 0 {
						return eopts, sopts, usagef("--%s %d is negative; want a positive number, or 0 for the default (%s)", c.flag, c.v, c.zero)
					}
				}
				if maxBodyMemory < maxBody {
					// A body between the two would get 429 overloaded,
					// retry shortly, on every try, while /v1/stats tells
					// clients they may send it.
					return eopts, sopts, usagef("--max-body-memory %s is less than --max-body %s: a body of more than %s would be refused as overloaded on every try; give --max-body-memory at least --max-body", maxBodyMemory.String(), maxBody.String(), maxBodyMemory.String())
				}
				if drainDelay < 0 {
					return eopts, sopts, usagef("--drain-delay %v is negative; want 0 (no delay) or more", drainDelay)
				}
				p, err := pipe.pipeline(profile)
				if err != nil {
					return eopts, sopts, err
				}
				eopts = neardup.DefaultOptions()
				eopts.Fingerprint = neardup.Config{Profile: profile, Bits: bits, Pipeline: p}
				eopts.K = k
				if err := policy.apply(&eopts); err != nil {
					return eopts, sopts, err
				}
				eopts.ExpectedDocuments = expectedDocs
				eopts.Retention = retention
				if retention == 0 {
					eopts.Retention = -1
				}
				eopts.Durability = dur
				eopts.Compression = comp
				eopts.InMemory = inMemory
				eopts.RuleScoreOnly = ruleOnly
				eopts.MinFreeBytes = int64(minFree)
				if minFree == 0 {
					eopts.MinFreeBytes = -1
				}
				hosts, err := parseAllowedHosts(allowedHosts)
				if err != nil {
					return eopts, sopts, err
				}
				if err := checkTLSFiles(tlsCert, tlsKey); err != nil {
					return eopts, sopts, err
				}
				sopts = server.Options{
					MaxBody:       int64(maxBody),
					MaxBodyMemory: int64(maxBodyMemory),
					MaxBatch:      maxBatch,
					MaxInFlight:   maxInFlight,
					DrainDelay:    drainDelay,
					AllowedHosts:  hosts,
				}
				// The checks above name the flag of every value these
				// refuse; they stay as a backstop.
				if err := eopts.Validate(); err != nil {
					return eopts, sopts, usageError{err}
				}
				if err := sopts.Validate(); err != nil {
					return eopts, sopts, usageError{err}
				}
				return eopts, sopts, nil
			}
			eopts, sopts, err := options()
			if err != nil {
				return noteEnv(err, fromEnv)
			}
			sopts.Logger = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			eopts.MemoryLimit = memLimit.apply(sopts.Logger)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return server.Run(ctx, server.Config{Addr: addr, Dir: data, Engine: eopts, Server: sopts, TLSCert: tlsCert, TLSKey: tlsKey})
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on, host:port (NEARDUP_ADDR)")
	f.StringVar(&data, "data", "./neardup-data", "directory of the store, created if missing (NEARDUP_DATA)")
	f.DurationVar(&retention, "retention", neardup.DefaultRetention, "how long documents are kept, from their time; 0 keeps them forever (NEARDUP_RETENTION)")
	f.IntVar(&k, "k", 0, longKUsage()+" (NEARDUP_K)")
	policy.addFlags(f, true)
	f.IntVar(&expectedDocs, "expected-docs", 0, "documents the store will hold, which sizes the id map and lock stripes (the index sizes itself); 0 means 1M (NEARDUP_EXPECTED_DOCS)")
	f.StringVar(&profile, "profile", "default", "fingerprint profile: "+orList(engineProfiles())+" (NEARDUP_PROFILE)")
	f.IntVar(&bits, "bits", 64, "fingerprint width, 64 or 128 (NEARDUP_BITS)")
	f.Var(&maxBody, "max-body", "largest request body, such as 4MiB or 500KB (NEARDUP_MAX_BODY)")
	f.IntVar(&maxBatch, "max-batch", server.DefaultMaxBatch, "most documents in one batch request (NEARDUP_MAX_BATCH)")
	f.IntVar(&maxInFlight, "max-in-flight", server.DefaultMaxInFlight, "most API requests served at once, counted once their bodies are read; more get 429 (NEARDUP_MAX_IN_FLIGHT)")
	f.Var(&maxBodyMemory, "max-body-memory", "most bytes of request bodies held at once, at least --max-body; a body past it gets 429. Handling a document takes 10 to 15 times its bytes of memory (NEARDUP_MAX_BODY_MEMORY)")
	f.StringVar(&durability, "durability", "group", "when a write is acknowledged: group (synced, commits shared), sync (synced one by one), nosync (survives a crash of the process, not of the machine) (NEARDUP_DURABILITY)")
	f.StringVar(&compression, "compression", "minlz", "how stored texts are compressed, each on its own: minlz, snappy (a little less disk, more CPU), zstd (least disk, most CPU) or none; applies to what is written from then on (NEARDUP_COMPRESSION)")
	f.StringVar(&scores, "scores", "all", "similarity scores of a duplicate's matches: all (Jaccard, cosine and Levenshtein), or rule (only the measure the policy decided by, the others null, not computed: no edit distance of long duplicates, the costly part of their check) (NEARDUP_SCORES)")
	f.StringVar(&allowedHosts, "allowed-hosts", "", "host names, comma-separated, that requests may give in their Host header besides localhost and loopback addresses: a name, *.domain (every name under it) or an IP address; * alone for any. Others get 403 host_not_allowed, against DNS rebinding. When not given, a loopback --addr serves only localhost and loopback addresses, another address any name (NEARDUP_ALLOWED_HOSTS)")
	f.StringVar(&tlsCert, "tls-cert", "", "PEM file of the certificate (or chain, the server's first) to serve HTTPS with; needs --tls-key (NEARDUP_TLS_CERT)")
	f.StringVar(&tlsKey, "tls-key", "", "PEM file of the certificate's private key; needs --tls-cert (NEARDUP_TLS_KEY)")
	f.DurationVar(&drainDelay, "drain-delay", 0, "on SIGTERM, answer 503 on /readyz but keep serving this long before closing (NEARDUP_DRAIN_DELAY)")
	f.Var(&minFree, "min-free", "free disk space the store keeps: with less, posts get 507 insufficient_storage and store nothing until there is room again; 0 never refuses (NEARDUP_MIN_FREE)")
	f.Var(&memLimit, "memory-limit", "soft limit of the Go heap, which the garbage collector keeps to by collecting more often as it nears it: auto (90% of the machine's or the cgroup's memory, unless GOMEMLIMIT is set), off (or 0), or a size of at least 64MiB such as 20GiB (NEARDUP_MEMORY_LIMIT)")
	f.BoolVar(&inMemory, "in-memory", false, "keep everything in memory; nothing survives a restart (NEARDUP_IN_MEMORY)")
	pipe.addFlags(f)
	for _, name := range []string{"html", "main-text", "fold-accents", "idf", "pipeline"} {
		fl := f.Lookup(name)
		fl.Usage += " (NEARDUP_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + ")"
	}
	return cmd
}

// applyEnv sets every flag the command line did not set from its
// environment variable, if that is set and not empty, and returns the
// flags it set with their variables and values.
func applyEnv(fs *pflag.FlagSet, env [][2]string) (envValues, error) {
	var set envValues
	for _, fe := range env {
		v, ok := os.LookupEnv(fe[1])
		if !ok || v == "" || fs.Changed(fe[0]) {
			continue
		}
		if err := fs.Set(fe[0], v); err != nil {
			return nil, usagef("%s=%q: %v", fe[1], v, err)
		}
		set = append(set, [3]string{fe[0], fe[1], v})
	}
	return set, nil
}

// envValues are the flags applyEnv set: flag name, variable, value.
type envValues [][3]string

// noteEnv returns err, which names a flag as "--name ..." when it is a
// usage error about one, with the variable and value in front when the
// flag's value came from the environment, as applyEnv writes them: a
// variable set long ago is easier to find named.
func noteEnv(err error, set envValues) error {
	var ue usageError
	if !errors.As(err, &ue) {
		return err
	}
	msg := err.Error()
	for _, fe := range set {
		if rest, ok := strings.CutPrefix(msg, "--"+fe[0]); ok && (rest == "" || rest[0] == ' ' || rest[0] == ':') {
			return usagef("%s=%q: %s", fe[1], fe[2], msg)
		}
	}
	return err
}

// checkAddr returns a usage error naming --addr unless addr is host:port
// with a port from 0 to 65535 (or a service name), so that a bad address
// is refused as one before the store is opened; one in use or a host that
// does not resolve is found by listening.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--addr %q: want host:port, such as 127.0.0.1:8080 or :8080 (%v)", addr, err)
	}
	if port == "" {
		return nil // any free port, as with 0
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return usagef("--addr %q: port %q: want a number from 0 to 65535", addr, port)
	}
	return nil
}

// checkDistance returns a usage error naming --flag unless k is a Hamming
// distance the policy takes: 0 to 32 bits per 64, 0 for the default def.
func checkDistance(flag string, k, def int) error {
	if k < 0 || k > 32 {
		return usagef("--%s %d: want 0 to 32 bits per 64 (0: the policy's default, %d)", flag, k, def)
	}
	return nil
}

func parseDurability(s string) (neardup.Durability, error) {
	switch s {
	case "group", "group-commit":
		return neardup.GroupCommit, nil
	case "sync", "sync-each":
		return neardup.SyncEach, nil
	case "nosync", "none":
		return neardup.NoSync, nil
	}
	return 0, usagef("--durability %q: want group, sync or nosync", s)
}

// checkTLSFiles checks --tls-cert and --tls-key: both or neither, and a
// pair that loads, so that a mistyped path is a usage error naming the
// flags before the store is opened.
func checkTLSFiles(cert, key string) error {
	switch {
	case cert == "" && key == "":
		return nil
	case key == "":
		return usagef("--tls-cert needs --tls-key: the certificate's private key")
	case cert == "":
		return usagef("--tls-key needs --tls-cert: the certificate to serve")
	}
	if _, err := server.TLSConfig(cert, key, nil); err != nil {
		return usagef("--tls-cert %s, --tls-key %s: %s", cert, key, strings.TrimPrefix(err.Error(), "server: "))
	}
	return nil
}

// parseAllowedHosts parses --allowed-hosts: names separated by commas,
// with spaces around them ignored; nil when there are none (the default
// check).
func parseAllowedHosts(s string) ([]string, error) {
	var hosts []string
	for h := range strings.SplitSeq(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	if err := (server.Options{AllowedHosts: hosts}).Validate(); err != nil {
		return nil, usagef("--allowed-hosts %q: %s", s, strings.TrimPrefix(err.Error(), "server: "))
	}
	return hosts, nil
}

// parseScores parses --scores and reports whether duplicates get the
// rule's score only (neardup.Options.RuleScoreOnly).
func parseScores(s string) (bool, error) {
	switch s {
	case "all":
		return false, nil
	case "rule":
		return true, nil
	}
	return false, usagef("--scores %q: want all or rule", s)
}

// freeMargin is --min-free: a size as byteSize reads it, or 0 (or "off")
// for no margin.
type freeMargin int64

func (m *freeMargin) String() string { return formatSize(int64(*m)) }
func (m *freeMargin) Type() string   { return "size" }

func (m *freeMargin) Set(s string) error {
	if t := strings.TrimSpace(s); t == "0" || strings.EqualFold(t, "off") {
		*m = 0
		return nil
	}
	var b byteSize
	if err := b.Set(s); err != nil {
		return fmt.Errorf("%w; or 0 (off) for no margin", err)
	}
	*m = freeMargin(b)
	return nil
}

// byteSize is a flag value for a size in bytes with an optional unit
// (B, KB, MB, GB, TB, PB powers of 1000; KiB, MiB, GiB, TiB, PiB powers of
// 1024), from 1 byte to maxSize.
type byteSize int64

// maxSize is the largest size a flag takes: 1 PiB.
const maxSize = 1 << 50

func (b *byteSize) String() string { return formatSize(int64(*b)) }
func (b *byteSize) Type() string   { return "size" }

// formatSize writes n bytes as byteSize reads them: in the largest of
// PiB, TiB, GiB, MiB and KiB that divides it, else as a number of bytes, so that the
// help shows "4MiB" rather than 4194304.
func formatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"PiB", 1 << 50}, {"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Set(s string) error {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"PiB", 1 << 50}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"PB", 1e15}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"P", 1 << 50}, {"B", 1}}
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		// Longer suffixes come first, so "4MiB" is not read as "4Mi" bytes.
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > maxSize/mult {
		return fmt.Errorf("size %q: want a number of bytes from 1 to 1PiB, with an optional unit (KiB, MiB, GiB, TiB, PiB, KB, MB, GB, TB, PB)", s)
	}
	*b = byteSize(n * mult)
	return nil
}
