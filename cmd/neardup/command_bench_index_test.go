package main

import (
	"bytes"
	"encoding/json"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
)

func TestBenchIndexJSON(t *testing.T) {
	for _, data := range []string{"random", "text"} {
		t.Run(data, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"bench", "index", "-n", "3000", "-k", "3", "--queries", "400", "--adds", "500", "--data", data, "--pairs", "--snapshot", "--expire", "--json"}
			if code := run(args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var r benchIndexResult
			if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
				t.Fatalf("%v: %s", err, stdout.String())
			}
			if r.N != 3000 || r.K != 3 || r.Tables < 1 || r.Kernel != index.Kernel() || r.Recall != 1 || r.Baseline == nil || r.Baseline.Recall != 1 {
				t.Fatalf("report %+v", r)
			}
			if r.QueryP50Ns <= 0 || r.BruteforceNs <= 0 || r.BytesPerFingerprint <= 0 || r.SnapshotBytes <= 0 || r.PairsFound < 1 || r.ExpireQueries < 1 {
				t.Fatalf("report %+v", r)
			}
			if strings.Count(stdout.String(), "\n") != 1 {
				t.Fatalf("want one JSON line, got %q", stdout.String())
			}
		})
	}
}

// TestBenchIndexBaselineMemory checks the baseline's memory figure after
// online adds: the index they filled may still be building a tier in the
// background, and its memory, freed while the baseline was measured, made
// the figure too small or less than nothing. The maps hold each
// fingerprint four times, so 32 bytes a fingerprint is the least they take.
func TestBenchIndexBaselineMemory(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "index", "-n", "200000", "-k", "3", "--queries", "100", "--json"}
	if code := run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var r benchIndexResult
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if r.Baseline == nil || r.Baseline.BytesPerFingerprint < 32 || r.Baseline.BytesPerFingerprint > 1000 {
		t.Fatalf("baseline %+v, want 32 to 1000 bytes a fingerprint", r.Baseline)
	}
}

// TestBenchIndexBeyondTables queries a wide 4/1 index at k=10, beyond
// its tables: the answers (by probing or scan) must still be exact, also
// after a snapshot round trip, and QueryBatch must find as many.
func TestBenchIndexBeyondTables(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "index", "-n", "3000", "-k", "10", "--table-k", "3", "--design", "seed", "--wide", "--data", "text", "--queries", "300", "--adds", "300", "--snapshot", "--batch", "64", "--json"}
	if code := run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var r benchIndexResult
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if r.K != 10 || r.TableK != 3 || r.Tables != 4 || r.Recall != 1 || r.SnapshotBytes <= 0 || r.Batch != 64 || r.BatchQueriesPerSecond <= 0 {
		t.Fatalf("report %+v", r)
	}
	// The run's settings and the build are in the report.
	if !r.Wide || r.Seed != 1 || r.Queries != 300 || r.Adds != 300 || r.benchBuild != benchBuildInfo() || r.GoVersion != runtime.Version() {
		t.Fatalf("report %+v; want wide, seed 1, 300 queries and adds, and the build %+v", r, benchBuildInfo())
	}
	for _, field := range []string{`"wide":true`, `"seed":1,`, `"queries":300,`, `"go_version":`, `"goamd64":`, `"vcs_revision":`, `"cpu_model":`} {
		if !strings.Contains(stdout.String(), field) {
			t.Errorf("JSON lacks %s: %s", field, stdout.String())
		}
	}
}

// TestBenchIndexAdjusts checks the runs bench index adjusts, each with a
// note on standard error: at -k 4 the baseline, on by default, is skipped
// (it answers k <= 3 only), and --adds above -n times the -n generated
// fingerprints; the text report starts with the build and shows
// --table-k and --wide.
func TestBenchIndexAdjusts(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "index", "-n", "1000", "-k", "4", "--queries", "100", "--adds", "1000000"}
	if code := run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"bench index: note: the 4 x 16 baseline answers k <= 3 only; skipped at -k 4\n", "bench index: note: --adds 1000000 is above -n 1000; the 1000 generated fingerprints are added, and timed\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, stderr.String())
		}
	}
	out := stdout.String()
	if !strings.HasPrefix(out, benchBuildInfo().line()+"\nn=1000 k=4 table_k=4 wide=false data=random ") || !strings.Contains(out, "online adds 1000 at ") || strings.Contains(out, "baseline") {
		t.Errorf("report:\n%s", out)
	}
}

// TestBenchIndexErrors checks that bad flags exit 2 with one line naming
// the flag, its value and what is allowed, before any work.
func TestBenchIndexErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "-n 0: want at least 1"},
		{[]string{"-k", "-1"}, "-k -1: want 0 to 32"},
		{[]string{"-k", "40"}, "-k 40: want 0 to 32"},
		{[]string{"--queries", "0"}, "--queries 0: want at least 1"},
		{[]string{"--adds", "-1"}, "--adds -1 is negative"},
		{[]string{"--table-k", "-2"}, "--table-k -2: want 0 to -k, or -1"},
		{[]string{"--max-bytes", "-1"}, "--max-bytes -1: want 0"},
		{[]string{"--data", "xml"}, `--data "xml": want random or text`},
		{[]string{"--design", "9/9/9"}, "--design: bad design"},
		{[]string{"--design", "bogus"}, "--design: bad design"},
		{[]string{"-k", "4", "--design", "seed"}, "--design 4/1 answers k <= 3, not --table-k (or -k) 4"},
		{[]string{"-k", "3", "--table-k", "4"}, "--table-k 4 is above -k 3"},
		{[]string{"-k", "10", "--table-k", "4", "--design", "seed"}, "--table-k (or -k) 4"},
		{[]string{"--batch", "-1"}, "--batch -1 is negative"},
		// Values that panicked (makeslice) or had no bound.
		{[]string{"-n", "1152921504606846976"}, "-n 1152921504606846976: want at most 1000000000"},
		{[]string{"--queries", "1152921504606846976"}, "--queries 1152921504606846976: want at least 1, at most 100000000"},
		{[]string{"--batch", "1152921504606846976"}, "--batch 1152921504606846976: want 0 (skip) to 100000000"},
		// A baseline asked for where it does not answer.
		{[]string{"-k", "4", "--baseline"}, "--baseline with -k 4: the 4 x 16 baseline answers k <= 3 only"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench", "index"}, tt.args...), nil, &stdout, &stderr)
		if msg := stderr.String(); code != 2 || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tt.args, code, msg, tt.want)
		}
	}
}

// TestBenchIndexRatios checks that the report says "slower" when the index
// took longer than what it is compared with: "0.7x faster" read as a gain.
func TestBenchIndexRatios(t *testing.T) {
	r := benchIndexResult{Speedup: 0.5, Baseline: &benchBaselineResult{IndexP50Speedup: 0.7}}
	var out bytes.Buffer
	if err := printBenchIndex(&out, r, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"per scan; index p50 2.0x slower;", "candidates/query; index p50 1.4x slower\n", "online adds not measured"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "faster") {
		t.Errorf("report calls a slower index faster:\n%s", out.String())
	}
	r = benchIndexResult{Speedup: 2300, AddsPerSecond: 1e6, AddCPUNs: 900, Baseline: &benchBaselineResult{IndexP50Speedup: 2.42}}
	out.Reset()
	if err := printBenchIndex(&out, r, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"per scan; index p50 2300x faster;", "index p50 2.4x faster\n", "online adds 1000000/s, 900 ns CPU each"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	for ratio, want := range map[float64]string{1: "as fast", 0: "not comparable", math.Inf(1): "not comparable", 0.1: "10x slower", 9.96: "10.0x faster"} {
		if got := timesFaster(ratio); !strings.HasPrefix(got, want) {
			t.Errorf("timesFaster(%v) = %q, want %q", ratio, got, want)
		}
	}
}
