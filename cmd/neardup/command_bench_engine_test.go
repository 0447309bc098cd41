package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
)

// TestBenchEngine runs both parts of `neardup bench engine` small: every
// acknowledged document is stored after the reopen, and the restart
// reopens every record, with document sizes spread or not, one document
// per call or in batches (400 is not a multiple of 7: the last batch is
// short).
func TestBenchEngine(t *testing.T) {
	for _, sizes := range [][]string{{"--text-bytes", "300"}, {"--min-text-bytes", "20", "--text-bytes", "500"}, {"--text-bytes", "300", "--batch", "7", "--compression", "zstd"}} {
		t.Run(strings.Join(sizes, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"bench", "engine", "--docs", "400", "--writers", "8", "--restart-docs", "3000", "--json"}, sizes...)
			if code := run(args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var r benchEngineResult
			if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
				t.Fatalf("%v: %s", err, stdout.String())
			}
			wantComp := "minlz"
			if slices.Contains(sizes, "zstd") {
				wantComp = "zstd"
			}
			if r.Compression != wantComp {
				t.Fatalf("compression %q, want %q", r.Compression, wantComp)
			}
			if r.Kernel != index.Kernel() {
				t.Fatalf("kernel %q, want %q", r.Kernel, index.Kernel())
			}
			if r.benchBuild != benchBuildInfo() || r.GoVersion != runtime.Version() || r.GOAMD64 == "" || r.Revision == "" || r.CPU == "" || !strings.Contains(stdout.String(), `"cpu_model"`) {
				t.Fatalf("build %+v, want %+v", r.benchBuild, benchBuildInfo())
			}
			if r.Docs != 400 || r.Acknowledged != 400 || r.Batch < 1 || r.StoredAfterOpen != 400 || r.Lost != 0 || r.DocsPerSecond <= 0 || r.Syncs == 0 || r.Syncs > 400 {
				t.Fatalf("throughput report %+v", r)
			}
			if r.RestartDocs != 3000 || r.ReopenDocuments != 3000 || r.ReopenSeconds <= 0 {
				t.Fatalf("restart report %+v", r)
			}
		})
	}
	for _, args := range [][]string{{"--min-text-bytes", "600", "--text-bytes", "500"}, {"--min-text-bytes", "-1"}, {"--batch", "0"}} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"bench", "engine", "--docs", "10"}, args...), nil, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
}

// TestBenchEngineProfile checks --cpuprofile: a profile is written for the
// timed runs, and a path that cannot be created is a usage error reported
// before any document is generated.
func TestBenchEngineProfile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cpu.prof")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bench", "engine", "--docs", "300", "--writers", "4", "--restart-docs", "2000", "--cpuprofile", path}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	checkProfile(t, path)
	stdout.Reset()
	stderr.Reset()
	bad := filepath.Join(dir, "missing", "cpu.prof")
	if code := run([]string{"bench", "engine", "--docs", "1000000", "--cpuprofile", bad}, nil, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "--cpuprofile") {
		t.Fatalf("bad path: exit %d, want 2 naming --cpuprofile (%s)", code, stderr.String())
	}
}

// TestBenchEngineFlagErrors checks that each bad value exits 2 with one
// line naming its flag and the values allowed, rather than "bad counts"
// or, once the texts are made, an engine option's name and status 1.
func TestBenchEngineFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--docs", "-1"}, "--docs -1 is negative"},
		{[]string{"--restart-docs", "-1"}, "--restart-docs -1 is negative"},
		{[]string{"--writers", "0"}, "--writers 0: want at least 1"},
		{[]string{"--text-bytes", "0"}, "--text-bytes 0: want at least 10"},
		{[]string{"--short-share", "2"}, "--short-share 2: want a share from 0 to 1"},
		{[]string{"--short-share", "NaN"}, "--short-share NaN"},
		{[]string{"--batch", "0"}, "--batch 0: want at least 1"},
		{[]string{"--min-text-bytes", "5000"}, "--min-text-bytes 5000: want 0 to --text-bytes (1000)"},
		{[]string{"--k", "40"}, "--k 40: want 0 to 32"},
		{[]string{"--expected-docs", "-1"}, "--expected-docs -1 is negative"},
		{[]string{"--commit-delay", "2s"}, "--commit-delay 2s: want at most 1s"},
		{[]string{"--durability", "maybe"}, `--durability "maybe": want group, sync or nosync`},
		{[]string{"--compression", "lz4"}, `--compression "lz4": want minlz, snappy, zstd or none`},
		// Values that panicked (makeslice) or had no bound.
		{[]string{"--docs", "4611686018427387904"}, "--docs 4611686018427387904: want at most 1000000000"},
		{[]string{"--restart-docs", "4611686018427387904"}, "--restart-docs 4611686018427387904: want at most 1000000000"},
		{[]string{"--writers", "100000"}, "--writers 100000: want at least 1, at most 4096"},
		{[]string{"--text-bytes", "100000000"}, "--text-bytes 100000000: want at least 10, at most 1048576"},
		{[]string{"--batch", "4611686018427387904"}, "--batch 4611686018427387904: want at least 1, at most 100000"},
		{[]string{"--expected-docs", "4611686018427387904"}, "--expected-docs 4611686018427387904: want 0 (the engine's default) to 1000000000"},
		{[]string{"--docs", "100000000", "--text-bytes", "1000"}, "--docs 100000000 of --text-bytes 1000: the texts, generated in memory before the run, would take 93 GiB; want at most 64 GiB"},
		// Runs that would do nothing, or something else than asked.
		{[]string{"--docs", "0", "--restart-docs", "0"}, "--docs 0, --restart-docs 0: nothing to run"},
		{[]string{"--reopen-only"}, "--reopen-only: want --dir"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench", "engine", "--docs", "2000", "--writers", "4"}, tt.args...), nil, &stdout, &stderr)
		msg := stderr.String()
		if code != 2 || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 || strings.Contains(msg, "bad counts") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tt.args, code, msg, tt.want)
		}
	}
}

// TestBenchEngineDir checks bench engine --dir across runs: a second fill
// into the stores of the first is refused, naming the store (it timed
// duplicate checks and reported "acknowledged 0"); --reopen-only times
// the restart store left there, reporting its real number of documents
// and no fill, and is refused without a store to reopen, or with a fill
// of its own.
func TestBenchEngineDir(t *testing.T) {
	dir := t.TempDir()
	bench := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench", "engine", "--dir", dir}, args...), nil, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, _, msg := bench("--docs", "200", "--writers", "4", "--text-bytes", "100", "--restart-docs", "1000"); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, msg)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--docs", "200", "--writers", "4", "--text-bytes", "100"}, filepath.Join(dir, "throughput") + " holds the store of an earlier run; the throughput run wants a new store"},
		{[]string{"--docs", "0", "--restart-docs", "1000"}, filepath.Join(dir, "restart") + " holds the store of an earlier run; the restart run wants a new store: remove it or give another --dir, or time its reopen with --reopen-only"},
		{[]string{"--reopen-only", "--docs", "100"}, "--docs 100 with --reopen-only"},
	} {
		if code, out, msg := bench(tt.args...); code != 2 || !strings.Contains(msg, tt.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 2 and %q", tt.args, code, msg, out, tt.want)
		}
	}
	code, out, msg := bench("--reopen-only", "--restart-docs", "5000", "--json")
	if code != 0 {
		t.Fatalf("--reopen-only: exit %d: %s", code, msg)
	}
	var r benchEngineResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.RestartDocs != 1000 || r.ReopenDocuments != 1000 || !r.ReopenOnly || r.FillSeconds != 0 || r.Docs != 0 || r.ReopenSeconds <= 0 {
		t.Errorf("--reopen-only report %+v; want the store's 1000 documents, no fill and no throughput run", r)
	}
	code, out, msg = bench("--reopen-only")
	if code != 0 || !strings.Contains(out, "restart: 1000 docs, left by an earlier run (--reopen-only)") || strings.Contains(out, "fill") || strings.Contains(out, "throughput") {
		t.Errorf("--reopen-only: exit %d, stderr %q, report:\n%s", code, msg, out)
	}
	fresh := filepath.Join(t.TempDir(), "new")
	var stdout, stderr bytes.Buffer
	code = run([]string{"bench", "engine", "--reopen-only", "--dir", fresh}, nil, &stdout, &stderr)
	if want := filepath.Join(fresh, "restart") + " holds no store to reopen"; code != 2 || !strings.Contains(stderr.String(), want) {
		t.Errorf("--reopen-only of a new directory: exit %d, stderr %q; want 2 and %q", code, stderr.String(), want)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("--reopen-only created %s", fresh)
	}
}

// TestBenchEngineReport checks the text report: the build on the first
// line, then a header line a part and labelled lines no longer than 120
// characters (it was one line of 400), with the durability and the kernel
// labelled, and MiB for sizes.
func TestBenchEngineReport(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bench", "engine", "--docs", "200", "--writers", "4", "--text-bytes", "100", "--restart-docs", "1000", "--durability", "nosync"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "build: "+runtime.Version()+", GOAMD64 ") || !strings.Contains(lines[0], ", revision ") || !strings.Contains(lines[0], ", cpu ") {
		t.Errorf("first line %q; want the build", lines[0])
	}
	for _, want := range []string{"durability nosync,", "kernel " + index.Kernel() + "\n", "MiB/s", "\n  wall ", "\n  durable     acknowledged 200, stored after reopen 200, lost 0; no synced commits", "\nrestart: 1000 docs, filled in ", "\n  reopen from the snapshot "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "MB/s") || strings.Contains(out, "bit tests") {
		t.Errorf("report mixes units or names the kernel in two words:\n%s", out)
	}
	for _, l := range lines {
		if len(l) > 120 {
			t.Errorf("line of %d characters: %q", len(l), l)
		}
	}
}

// checkProfile fails the test unless path holds a CPU profile, a gzipped
// protocol buffer.
func checkProfile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the CPU profile is not gzipped (left empty?): %v", err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) == 0 {
		t.Fatalf("the CPU profile holds %d bytes: %v", len(b), err)
	}
}
