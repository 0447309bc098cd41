package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/internal/memlimit"
)

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4194304", 4 << 20, true},
		{"4MiB", 4 << 20, true},
		{"4mib", 4 << 20, true},
		{"500KB", 500000, true},
		{"2M", 2 << 20, true},
		{"1GiB", 1 << 30, true},
		{"10B", 10, true},
		{" 3 KiB ", 3 << 10, true},
		{"0", 0, false},
		{"-1", 0, false},
		{"lots", 0, false},
		{"4XB", 0, false},
		{"2000GiB", 2000 << 30, true},
		{"100TB", 100e12, true},
		{"2TiB", 2 << 40, true},
		{"1024TiB", 1 << 50, true},
		{"1025TiB", 0, false},
		// The largest size, as the error message names it.
		{"1PiB", 1 << 50, true},
		{"1pib", 1 << 50, true},
		{"1P", 1 << 50, true},
		{"1PB", 1e15, true},
		{"2PiB", 0, false},
		{"9223372036854775807", 0, false},
	}
	for _, tt := range tests {
		var b byteSize
		err := b.Set(tt.in)
		if (err == nil) != tt.ok || (tt.ok && int64(b) != tt.want) {
			t.Errorf("Set(%q) = %d, %v; want %d, ok %v", tt.in, b, err, tt.want, tt.ok)
		}
	}
}

// TestByteSizeString checks that sizes print in the largest binary unit
// that divides them, and that what is printed reads back as the same size.
func TestByteSizeString(t *testing.T) {
	for n, want := range map[int64]string{4 << 20: "4MiB", 64 << 20: "64MiB", 3 << 30: "3GiB", 3072: "3KiB", 1536: "1536", 1000: "1000", 500000: "500000", 1: "1", 1<<20 + 1: "1048577", 3 << 40: "3TiB", 1 << 50: "1PiB"} {
		b := byteSize(n)
		got := b.String()
		if got != want {
			t.Errorf("byteSize(%d).String() = %q, want %q", n, got, want)
		}
		var back byteSize
		if err := back.Set(got); err != nil || back != b {
			t.Errorf("Set(%q) = %d, %v; want %d", got, back, err, n)
		}
	}
	for n, want := range map[int64]string{0: "0", 64 << 20: "64MiB"} {
		m := freeMargin(n)
		if got := m.String(); got != want {
			t.Errorf("freeMargin(%d).String() = %q, want %q", n, got, want)
		}
	}
}

// TestFreeMargin reads --min-free: a size, or 0 or "off" for none.
func TestFreeMargin(t *testing.T) {
	for in, want := range map[string]int64{"64MiB": 64 << 20, "1GB": 1e9, "0": 0, " off ": 0, "OFF": 0} {
		var m freeMargin
		if err := m.Set(in); err != nil || int64(m) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, m, err, want)
		}
	}
	for _, in := range []string{"-1", "lots", "", "2000TiB"} {
		var m freeMargin
		if err := m.Set(in); err == nil || !strings.Contains(err.Error(), "or 0 (off)") {
			t.Errorf("Set(%q) = %d, %v; want an error naming 0", in, m, err)
		}
	}
}

func TestParseScores(t *testing.T) {
	for in, want := range map[string]bool{"all": false, "rule": true} {
		if got, err := parseScores(in); err != nil || got != want {
			t.Errorf("parseScores(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseScores("All"); err == nil {
		t.Error(`parseScores("All"): no error`)
	}
}

// TestServeUsage checks that bad flags and environment values are usage
// errors (exit 2) that name what is wrong, before anything is opened.
func TestServeUsage(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"serve", "--durability", "maybe"}, nil, "--durability"},
		{[]string{"serve", "--compression", "lz4"}, nil, "--compression"},
		{[]string{"serve", "--scores", "some"}, nil, "--scores"},
		{[]string{"serve"}, map[string]string{"NEARDUP_SCORES": "jaccard"}, "jaccard"},
		{[]string{"serve"}, map[string]string{"NEARDUP_COMPRESSION": "gzip"}, "gzip"},
		{[]string{"serve", "--retention", "-1h"}, nil, "--retention"},
		{[]string{"serve", "--bits", "96"}, nil, "96"},
		{[]string{"serve", "--profile", "nilsimsa"}, nil, "nilsimsa"},
		{[]string{"serve", "--k", "40"}, nil, "--k 40"},
		{[]string{"serve", "--short-k", "40"}, nil, "--short-k 40"},
		{[]string{"serve", "--expected-docs", "-1"}, nil, "--expected-docs -1"},
		{[]string{"serve"}, map[string]string{"NEARDUP_EXPECTED_DOCS": "many"}, "NEARDUP_EXPECTED_DOCS"},
		{[]string{"serve", "--max-body", "huge"}, nil, "huge"},
		{[]string{"serve"}, map[string]string{"NEARDUP_MAX_BODY": "-5"}, "NEARDUP_MAX_BODY"},
		// A body between the two would be refused as overloaded on
		// every try.
		{[]string{"serve", "--max-body-memory", "1KB"}, nil, "--max-body-memory 1000 is less than --max-body 4MiB"},
		{[]string{"serve", "--max-body", "100MiB"}, nil, "--max-body-memory 64MiB is less than --max-body 100MiB"},
		{[]string{"serve", "--max-body", "2MiB"}, map[string]string{"NEARDUP_MAX_BODY_MEMORY": "1MiB"}, `NEARDUP_MAX_BODY_MEMORY="1MiB": --max-body-memory 1MiB is less than --max-body 2MiB`},
		{[]string{"serve", "--min-free", "lots"}, nil, "lots"},
		{[]string{"serve"}, map[string]string{"NEARDUP_MIN_FREE": "-1MiB"}, "NEARDUP_MIN_FREE"},
		{[]string{"serve", "--memory-limit", "lots"}, nil, "--memory-limit"},
		{[]string{"serve"}, map[string]string{"NEARDUP_MEMORY_LIMIT": "-1GiB"}, "NEARDUP_MEMORY_LIMIT"},
		{[]string{"serve"}, map[string]string{"NEARDUP_K": "x"}, "NEARDUP_K"},
		{[]string{"serve", "extra"}, nil, "unknown command"},
		{[]string{"bench", "serve", "--url", "http://example.com:80"}, nil, "loopback"},
		{[]string{"bench", "serve", "--conns", "0"}, nil, "--conns"},
		{[]string{"bench", "serve", "--no-engine", "--url", "http://127.0.0.1:1"}, nil, "--no-engine"},
		{[]string{"bench", "serve", "--no-engine", "--query"}, nil, "--query"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", tt.args, tt.env, code, errb.String(), tt.want)
			}
		})
	}
}

// TestServeFlagErrors checks the bad values docs/HTTP.md promises to
// refuse with status 2 and one line naming the flag, or the variable and
// the flag when the value came from the environment, before a store is
// opened or an address listened on: out-of-range addresses, distances and
// counts, a profile serve cannot use or a width it does not make, and
// pipeline flags with another profile. An address in use is not a usage
// error: it exits 1.
func TestServeFlagErrors(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--addr", "127.0.0.1:99999"}, nil, `--addr "127.0.0.1:99999": port "99999": want a number from 0 to 65535`},
		{[]string{"--addr", "nonsense"}, nil, `--addr "nonsense": want host:port`},
		{[]string{"--profile", "bogus"}, nil, `--profile "bogus": no such profile; want default, classic, py-simhash or go-mfonda`},
		{[]string{"--profile", "nilsimsa"}, nil, `--profile "nilsimsa": the engine indexes SimHash fingerprints`},
		{[]string{"--profile", "go-mfonda", "--bits", "128"}, nil, `--bits 128: profile "go-mfonda" makes 64-bit fingerprints only`},
		{[]string{"--bits", "32"}, nil, "--bits 32: want 64 or 128"},
		{nil, map[string]string{"NEARDUP_PROFILE": "bogus"}, `--profile "bogus": no such profile`},
		{nil, map[string]string{"NEARDUP_PROFILE": "go-mfonda", "NEARDUP_BITS": "128"}, "--bits 128"},
		{[]string{"--in-memory", "--profile", "bogus"}, nil, `--profile "bogus"`},
		{[]string{"--html", "--profile", "classic"}, nil, `profile "classic" is fixed`},
		{nil, map[string]string{"NEARDUP_PIPELINE": "Shingle=x"}, `--pipeline "Shingle=x"`},
		{[]string{"--addr", "[::1]:-1"}, nil, `--addr "[::1]:-1"`},
		{nil, map[string]string{"NEARDUP_ADDR": "localhost:65536"}, `NEARDUP_ADDR="localhost:65536": --addr "localhost:65536"`},
		{[]string{"--k", "70"}, nil, "--k 70: want 0 to 32"},
		{[]string{"--k", "-1"}, nil, "--k -1: want 0 to 32"},
		{nil, map[string]string{"NEARDUP_K": "99"}, `NEARDUP_K="99": --k 99: want 0 to 32`},
		{[]string{"--short-k", "-1"}, nil, "--short-k -1: want 0 to 32"},
		{nil, map[string]string{"NEARDUP_SHORT_K": "33"}, `NEARDUP_SHORT_K="33": --short-k 33`},
		{[]string{"--tiny-k", "40"}, nil, "--tiny-k 40: want 0 to 32"},
		{nil, map[string]string{"NEARDUP_TINY_K": "-2"}, `NEARDUP_TINY_K="-2": --tiny-k -2: want 0 to 32`},
		{[]string{"--tiny-length", "501"}, nil, "--tiny-length 501: want 0 to 500 characters (0: no text is tiny)"},
		{nil, map[string]string{"NEARDUP_TINY_LENGTH": "-1"}, `NEARDUP_TINY_LENGTH="-1": --tiny-length -1: want 0 to 500`},
		{nil, map[string]string{"NEARDUP_DISTINCT_NUMBERS": "maybe"}, `NEARDUP_DISTINCT_NUMBERS="maybe"`},
		{[]string{"--tiny-words", "65"}, nil, "--tiny-words 65: want 0 (none are found by their words) or 4 to 64 words"},
		{[]string{"--tiny-words", "3"}, nil, "--tiny-words 3: want 0 (none are found by their words) or 4 to 64 words (texts of fewer than 4 never are)"},
		{nil, map[string]string{"NEARDUP_TINY_WORDS": "-2"}, `NEARDUP_TINY_WORDS="-2": --tiny-words -2: want 0 (none are found by their words) or 4 to 64`},
		{[]string{"--long-min", "2"}, nil, "--long-min 2: want a score from 0 to 1"},
		{nil, map[string]string{"NEARDUP_SHORT_MIN": "-1"}, `NEARDUP_SHORT_MIN="-1": --short-min -1: want a score from 0 to 1`},
		{[]string{"--expected-docs", "-5"}, nil, "--expected-docs -5 is negative"},
		{nil, map[string]string{"NEARDUP_EXPECTED_DOCS": "-5"}, `NEARDUP_EXPECTED_DOCS="-5": --expected-docs -5`},
		{[]string{"--max-batch", "-1"}, nil, "--max-batch -1 is negative"},
		{[]string{"--max-in-flight", "-1"}, nil, "--max-in-flight -1 is negative"},
		{nil, map[string]string{"NEARDUP_MAX_IN_FLIGHT": "-1"}, `NEARDUP_MAX_IN_FLIGHT="-1": --max-in-flight -1`},
		{[]string{"--drain-delay", "-1s"}, nil, "--drain-delay -1s is negative"},
		{[]string{"--allowed-hosts", "neardup.example:8080"}, nil, `--allowed-hosts "neardup.example:8080": allowed host "neardup.example:8080": want a host name without a port`},
		{nil, map[string]string{"NEARDUP_ALLOWED_HOSTS": "*, neardup.example"}, `NEARDUP_ALLOWED_HOSTS="*, neardup.example": --allowed-hosts "*, neardup.example": allowed host "*" allows every host`},
		{[]string{"--tls-cert", "/nonexistent/cert.pem"}, nil, "--tls-cert needs --tls-key"},
		{[]string{"--tls-key", "/nonexistent/key.pem"}, nil, "--tls-key needs --tls-cert"},
		{[]string{"--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"}, nil, "--tls-cert /nonexistent/cert.pem, --tls-key /nonexistent/key.pem: TLS: stat /nonexistent/cert.pem: no such file or directory"},
		{nil, map[string]string{"NEARDUP_TLS_CERT": "/nonexistent/c.pem", "NEARDUP_TLS_KEY": "/nonexistent/k.pem"}, `NEARDUP_TLS_CERT="/nonexistent/c.pem": --tls-cert /nonexistent/c.pem`},
		// The command line wins over the variable, and is named alone.
		{[]string{"--k", "40"}, map[string]string{"NEARDUP_K": "5"}, "neardup: --k 40: want 0 to 32"},
		{[]string{"--compression", "gzip"}, nil, `neardup: --compression "gzip"`},
		{nil, map[string]string{"NEARDUP_COMPRESSION": "gzip"}, `NEARDUP_COMPRESSION="gzip": --compression "gzip"`},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args, tt.env), func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			data := filepath.Join(t.TempDir(), "store")
			args := []string{"serve", "--data", data, "--memory-limit", "off"}
			if tt.env["NEARDUP_ADDR"] == "" && !slices.Contains(tt.args, "--addr") {
				args = append(args, "--addr", busy.Addr().String())
			}
			args = append(args, tt.args...)
			var out, errb bytes.Buffer
			code := run(args, strings.NewReader(""), &out, &errb)
			msg := errb.String()
			if code != 2 || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 {
				t.Errorf("%v %v: exit %d, stderr %q; want 2 and one line with %q", tt.args, tt.env, code, msg, tt.want)
			}
			for _, field := range []string{"ExpectedDocuments", "MaxBatch", "MaxInFlight", "server:", "policy ", "timeouts"} {
				if strings.Contains(msg, field) {
					t.Errorf("%v %v: stderr %q names %q rather than the flag", tt.args, tt.env, msg, field)
				}
			}
			if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%v %v: the data directory exists (%v)", tt.args, tt.env, err)
			}
		})
	}
	// A good address in use is a failure to listen, not a usage error.
	var out, errb bytes.Buffer
	code := run([]string{"serve", "--in-memory", "--memory-limit", "off", "--addr", busy.Addr().String()}, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "address already in use") && !strings.Contains(errb.String(), "bind") {
		t.Errorf("address in use: exit %d, stderr %q; want 1", code, errb.String())
	}
}

// TestServeMemoryLimitZero checks that --memory-limit 0, which the parser
// takes as off, is documented as such in the help, which otherwise asks
// for a size of at least 64MiB.
func TestServeMemoryLimitZero(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"serve", "--help"}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("serve --help: exit %d: %s", code, errb.String())
	}
	var line string
	for l := range strings.Lines(out.String()) {
		if strings.Contains(l, "--memory-limit") {
			line = l
		}
	}
	if !strings.Contains(line, "off (or 0)") || !strings.Contains(line, "at least 64MiB") {
		t.Errorf("serve --help: --memory-limit %q; want off (or 0) and a size of at least 64MiB", line)
	}
	var m memoryLimit
	if err := m.Set("0"); err != nil || !m.off {
		t.Errorf(`Set("0") = %+v, %v; want off as the help says`, m, err)
	}
}

// benchServe runs bench serve with args, skipped in short mode, and returns
// its report.
func benchServe(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a server")
	}
	var out, errb bytes.Buffer
	if code := run(append([]string{"bench", "serve"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	return out.String()
}

// TestBenchServe runs the load generator briefly against an in-process
// server and checks that it reports both modes.
func TestBenchServe(t *testing.T) {
	out := benchServe(t, "--duration", "300ms", "--warmup", "0s", "--conns", "4", "--batch", "20", "--batch-conns", "2", "--in-memory")
	for _, want := range []string{"single", "batch", "p99", "req/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Every document sent is new, so the store holds some.
	var stored int
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, "store after the runs: "); ok {
			stored, _ = strconv.Atoi(strings.TrimSuffix(v, " documents"))
		}
	}
	if stored < 1 {
		t.Errorf("no store size, or an empty store, in the report:\n%s", out)
	}
}

// TestBenchServeQuery checks that --query sends the documents as queries,
// alone and in batches: answered without errors, and none stored.
func TestBenchServeQuery(t *testing.T) {
	out := benchServe(t, "--query", "--duration", "300ms", "--warmup", "0s", "--conns", "4", "--batch", "20", "--batch-conns", "2", "--in-memory")
	if !strings.Contains(out, "sent as queries") || !strings.Contains(out, "store after the runs: 0 documents") {
		t.Errorf("the report does not say the documents went as queries, or the store is not empty:\n%s", out)
	}
	for _, mode := range []string{"single", "batch"} {
		if f := benchRow(out, mode); f == nil {
			t.Errorf("no %s row with requests and no errors:\n%s", mode, out)
		}
	}
}

// benchRow returns the fields of bench serve's report row for mode when it
// has requests and no errors, or nil.
func benchRow(out, mode string) []string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) == 11 && f[0] == mode {
			if n, _ := strconv.Atoi(f[3]); n > 0 && f[10] == "0" {
				return f
			}
		}
	}
	return nil
}

// TestBenchServeNoEngine checks that --no-engine serves both modes without
// errors and says so in its report.
func TestBenchServeNoEngine(t *testing.T) {
	out := benchServe(t, "--no-engine", "--duration", "200ms", "--warmup", "0s", "--conns", "4", "--batch", "20", "--batch-conns", "2")
	if !strings.Contains(out, "no engine") || strings.Contains(out, "store after the runs") {
		t.Errorf("the report does not say there is no engine, or reports a store:\n%s", out)
	}
	for _, mode := range []string{"single", "batch"} {
		f := benchRow(out, mode)
		if f == nil {
			t.Errorf("no %s row with requests and no errors:\n%s", mode, out)
			continue
		}
		// The process's CPU time per document, where it is read.
		if runtime.GOOS == "linux" && !strings.HasSuffix(f[9], "µs") {
			t.Errorf("%s row without the CPU time per document: %q", mode, f)
		}
	}
}

// TestBenchServeRate checks that --rate paces the requests: at 100 a
// second for 500 ms no more than about 50 can be sent, where back to back
// even a slow machine sends hundreds.
func TestBenchServeRate(t *testing.T) {
	out := benchServe(t, "--single", "--duration", "500ms", "--warmup", "0s", "--conns", "4", "--rate", "100", "--in-memory")
	var requests int
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "single" {
			requests, _ = strconv.Atoi(f[3])
		}
	}
	if requests < 1 || requests > 52 || !strings.Contains(out, "100 requests a second scheduled") {
		t.Fatalf("%d requests measured at --rate 100 for 500ms, want 1 to 52:\n%s", requests, out)
	}
	// Paced runs also report the latency from the send.
	if !strings.Contains(out, "latency from the actual send") || !strings.Contains(out, "  single: p50 ") {
		t.Fatalf("no latency from the send in:\n%s", out)
	}
	if code := run([]string{"bench", "serve", "--rate", "-1"}, strings.NewReader(""), io.Discard, io.Discard); code != 2 {
		t.Fatalf("--rate -1: exit %d, want 2", code)
	}
}

// TestReadAnswer reads answers back to back from one connection's bytes:
// with a Content-Length, chunked, closing, and malformed, each leaving
// the reader at the next answer.
func TestReadAnswer(t *testing.T) {
	stream := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 5\r\n\r\nhello" +
		"HTTP/1.1 413 Request Entity Too Large\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nTrailer: 1\r\n\r\n" +
		"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}" +
		"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n" +
		"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n" +
		"HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n"
	br := bufio.NewReader(strings.NewReader(stream))
	for i, want := range []struct {
		status  int
		closing bool
	}{{200, false}, {413, false}, {503, true}, {200, true}, {204, false}} {
		status, closing, err := readAnswer(br)
		if err != nil || status != want.status || closing != want.closing {
			t.Fatalf("answer %d: %d, closing %v, %v; want %d, closing %v", i, status, closing, err, want.status, want.closing)
		}
	}
	if _, _, err := readAnswer(br); err == nil || !strings.Contains(err.Error(), "Content-Length") {
		t.Errorf("bad Content-Length: %v", err)
	}
	for _, bad := range []string{"HTTP/1.1 2x0 OK\r\n\r\n", "SPDY 200\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"} {
		if _, _, err := readAnswer(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestMemoryLimitFlag reads --memory-limit: auto, off (or 0), or a size.
func TestMemoryLimitFlag(t *testing.T) {
	for in, want := range map[string]memoryLimit{
		"auto": {}, " AUTO ": {}, "off": {off: true}, "0": {off: true}, "20GiB": {bytes: 20 << 30}, "1500MB": {bytes: 1500e6}, "64MiB": {bytes: 64 << 20},
	} {
		m := memoryLimit{bytes: 1}
		if err := m.Set(in); err != nil || m != want {
			t.Errorf("Set(%q) = %+v, %v; want %+v", in, m, err, want)
		}
	}
	for _, in := range []string{"-1", "lots", "", "2000TiB", "4MB", "67108863"} {
		var m memoryLimit
		if err := m.Set(in); err == nil || !strings.Contains(err.Error(), "auto or off") {
			t.Errorf("Set(%q) = %+v, %v; want an error naming the choices", in, m, err)
		}
	}
	for m, want := range map[memoryLimit]string{{}: "auto", {off: true}: "off", {bytes: 3 << 30}: "3GiB"} {
		if got := m.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", m, got, want)
		}
	}
}

// TestMemoryLimitApply checks the limit each setting gives the runtime,
// and what it logs.
func TestMemoryLimitApply(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	auto, _, err := memlimit.Auto()
	if err != nil && runtime.GOOS == "linux" {
		t.Fatal(err)
	}
	tests := []struct {
		m        memoryLimit
		env      string
		want     int64
		wantLogs string
	}{
		{memoryLimit{bytes: 3 << 30}, "", 3 << 30, "size=3.00GiB bytes=3221225472 from=--memory-limit"},
		{memoryLimit{off: true}, "", math.MaxInt64, "memory_limit=off"},
		{memoryLimit{bytes: 3 << 30}, "1GiB", 3 << 30, "from=--memory-limit"}, // the flag wins
		{memoryLimit{}, "1GiB", 1 << 30, "from=GOMEMLIMIT"},
	}
	if err == nil {
		tests = append(tests, struct {
			m        memoryLimit
			env      string
			want     int64
			wantLogs string
		}{memoryLimit{}, "", auto, "from=\"90% of "})
	}
	for _, tt := range tests {
		t.Setenv("GOMEMLIMIT", tt.env)
		debug.SetMemoryLimit(1 << 30) // as the runtime sets it from GOMEMLIMIT=1GiB
		if tt.env == "" {
			debug.SetMemoryLimit(math.MaxInt64)
		}
		var logs bytes.Buffer
		ret := tt.m.apply(slog.New(slog.NewTextHandler(&logs, nil)))
		if got := debug.SetMemoryLimit(-1); got != tt.want || !strings.Contains(logs.String(), tt.wantLogs) {
			t.Errorf("%+v with GOMEMLIMIT=%q: limit %d, logged %q; want %d and %q", tt.m, tt.env, got, logs.String(), tt.want, tt.wantLogs)
		}
		if want := tt.want; ret != want && !(want == math.MaxInt64 && ret == 0) {
			t.Errorf("%+v with GOMEMLIMIT=%q: apply returned %d, want %d (0 for none)", tt.m, tt.env, ret, want)
		}
	}
}

// TestProfileHelp checks that serve, dedup and cluster offer the SimHash
// profiles only: the engine does not index nilsimsa.
func TestProfileHelp(t *testing.T) {
	for _, verb := range []string{"serve", "dedup", "cluster"} {
		var out, errb bytes.Buffer
		if code := run([]string{verb, "--help"}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%s --help: exit %d: %s", verb, code, errb.String())
		}
		var line string
		for l := range strings.Lines(out.String()) {
			if strings.Contains(l, "--profile") {
				line = l
			}
		}
		if !strings.Contains(line, "default, classic, py-simhash or go-mfonda") || strings.Contains(line, "nilsimsa") {
			t.Errorf("%s --help: --profile offers %q; want the SimHash profiles only", verb, line)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeInMemoryLog starts serve --in-memory and checks that its
// start-up line says the store is in memory rather than naming --data, where
// nothing is written.
func TestServeInMemoryLog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	data := filepath.Join(t.TempDir(), "store")
	var errb syncBuffer
	root := newRootCmd(strings.NewReader(""), io.Discard, &errb)
	root.SetArgs([]string{"serve", "--in-memory", "--addr", "127.0.0.1:0", "--data", data, "--memory-limit", "off"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	deadline := time.After(30 * time.Second)
	for !strings.Contains(errb.String(), "msg=ready") {
		select {
		case err := <-done:
			t.Fatalf("serve returned before ready: %v\n%s", err, errb.String())
		case <-deadline:
			t.Fatalf("serve not ready after 30s:\n%s", errb.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v\n%s", err, errb.String())
	}
	var line string
	for l := range strings.Lines(errb.String()) {
		if strings.Contains(l, "listening") {
			line = l
		}
	}
	if !strings.Contains(line, " data=(in-memory)") || strings.Contains(line, data) {
		t.Errorf("start-up line %q: want data=(in-memory), not the --data directory", line)
	}
	if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the --data directory exists (%v)", err)
	}
}

// startServe runs serve with args (in memory, on a free loopback port)
// until the test ends, and returns the address it listens on.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a server")
	}
	var errb syncBuffer
	root := newRootCmd(strings.NewReader(""), io.Discard, &errb)
	root.SetArgs(append([]string{"serve", "--in-memory", "--addr", "127.0.0.1:0", "--memory-limit", "off"}, args...))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v\n%s", err, errb.String())
		}
	})
	deadline := time.After(30 * time.Second)
	for {
		for l := range strings.Lines(errb.String()) {
			if _, rest, ok := strings.Cut(l, " url=http://"); ok && strings.Contains(l, "msg=ready") {
				addr, _, _ := strings.Cut(rest, "/")
				return addr
			}
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("serve returned before ready: %v\n%s", err, errb.String())
		case <-deadline:
			t.Fatalf("serve not ready after 30s:\n%s", errb.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// serveRequest sends a request to addr with the given Host header and
// returns the status and the decoded JSON body.
func serveRequest(t *testing.T, addr, method, path, host, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, v
}

// TestServeAllowedHosts checks that serve on loopback answers the names
// NEARDUP_ALLOWED_HOSTS (--allowed-hosts) lists and localhost, and
// refuses others with 403 host_not_allowed, against DNS rebinding.
func TestServeAllowedHosts(t *testing.T) {
	t.Setenv("NEARDUP_ALLOWED_HOSTS", "neardup.example")
	addr := startServe(t)
	_, port, _ := net.SplitHostPort(addr)
	for host, want := range map[string]int{"neardup.example:" + port: 200, "localhost:" + port: 200, addr: 200, "evil.example:" + port: 403} {
		code, v := serveRequest(t, addr, "GET", "/v1/stats", host, "")
		if code != want {
			t.Errorf("Host %s: %d %v, want %d", host, code, v, want)
		}
		if e, _ := v["error"].(map[string]any); want == 403 && e["code"] != "host_not_allowed" {
			t.Errorf("Host %s: %v, want host_not_allowed", host, v)
		}
	}
}

// TestServeScoresRule checks that serve --scores rule sends the scores
// it did not compute as null, not 0: for a short near-copy, the
// Levenshtein ratio the policy decides by alone.
func TestServeScoresRule(t *testing.T) {
	addr := startServe(t, "--scores", "rule")
	text := "The river flooded the old town overnight and the bridge closed."
	if code, v := serveRequest(t, addr, "POST", "/v1/documents", addr, fmt.Sprintf(`{"id":"a","text":%q}`, text)); code != 200 {
		t.Fatalf("post: %d %v", code, v)
	}
	code, v := serveRequest(t, addr, "POST", "/v1/query", addr, fmt.Sprintf(`{"text":%q}`, strings.Replace(text, "old", "ancient", 1)))
	ms, _ := v["matches"].([]any)
	if code != 200 || len(ms) != 1 {
		t.Fatalf("query: %d %v", code, v)
	}
	m := ms[0].(map[string]any)
	scores := m["scores"].(map[string]any)
	for _, k := range []string{"jaccard", "cosine"} {
		if s, ok := scores[k]; !ok || s != nil {
			t.Errorf("%s: %v, want null (scores %v)", k, s, scores)
		}
	}
	if scores["levenshtein"] != m["similarity"] {
		t.Errorf("levenshtein %v, want the similarity %v", scores["levenshtein"], m["similarity"])
	}
}
