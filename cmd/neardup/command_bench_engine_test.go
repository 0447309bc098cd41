package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
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
	// A profile is a gzipped protocol buffer.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("the profile is not gzipped: %v", err)
	}
	if b, err := io.ReadAll(zr); err != nil || len(b) == 0 {
		t.Fatalf("the profile holds %d bytes: %v", len(b), err)
	}
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
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench", "engine", "--docs", "2000", "--writers", "4"}, tt.args...), nil, &stdout, &stderr)
		msg := stderr.String()
		if code != 2 || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 || strings.Contains(msg, "bad counts") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tt.args, code, msg, tt.want)
		}
	}
}
