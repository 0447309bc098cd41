package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/server"
)

// TestDocGenBody checks bench serve's generator against its definition,
// a syllable at a time: each document is the tag, its number and words of
// 2 to 4 syllables that one random draw each picks, so that runs of the
// same seed send the same documents; every body is valid JSON, and no two
// documents repeat.
func TestDocGenBody(t *testing.T) {
	syll := strings.Fields(benchSyllables)
	if len(syll) != benchSyllableCount {
		t.Fatalf("%d syllables, benchSyllableCount %d", len(syll), benchSyllableCount)
	}
	const words = 30
	g := newDocGen(7, 3, words)
	ref := rand.New(rand.NewPCG(7, 3))
	seen := map[string]bool{}
	num := 0
	for _, n := range []int{1, 5, 500} {
		body := g.body(nil, n)
		var docs []struct{ Text string }
		if n == 1 {
			docs = make([]struct{ Text string }, 1)
			if err := json.Unmarshal(body, &docs[0]); err != nil {
				t.Fatalf("body of 1: %v: %s", err, body)
			}
		} else if err := json.Unmarshal(body, &docs); err != nil || len(docs) != n {
			t.Fatalf("body of %d: %d documents, %v", n, len(docs), err)
		}
		for _, d := range docs {
			num++
			var want strings.Builder
			want.WriteString(fmt.Sprintf("r%x-w%d-", 7, 3) + strconv.Itoa(num))
			for range words {
				r := ref.Uint64()
				want.WriteByte(' ')
				for j := range 2 + int(r&0xff)%3 {
					f := (r >> (8 + 12*j)) & 0xfff
					want.WriteString(syll[int(f)*len(syll)>>12])
				}
			}
			if d.Text != want.String() {
				t.Fatalf("document %d:\n got %q\nwant %q", num, d.Text, want.String())
			}
			if seen[d.Text] {
				t.Fatalf("document %d repeats an earlier one", num)
			}
			seen[d.Text] = true
		}
	}
}

// TestBenchServeFlagErrors checks that each out-of-range value exits 2
// with one line naming its own flag and value, not a pair of flags that
// leaves the user to guess which was wrong, before any server starts.
func TestBenchServeFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--conns", "0"}, "--conns 0: want 1 to 1024"},
		{[]string{"--batch-conns", "2000"}, "--batch-conns 2000: want 1 to 1024"},
		{[]string{"--duration", "0s"}, "--duration 0s: want more than 0"},
		{[]string{"--warmup", "-1s"}, "--warmup -1s: want 0 to 10m0s"},
		{[]string{"--batch", "0"}, "--batch 0: want 1 to 10000"},
		{[]string{"--words", "0"}, "--words 0: want 1 to 100000"},
		{[]string{"--rate", "-1"}, "--rate -1: want 0"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench", "serve"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
		msg := stderr.String()
		if code != 2 || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 || strings.Contains(msg, " and --") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tt.args, code, msg, tt.want)
		}
	}
}

// TestBenchServeFlagConflicts checks the values and combinations bench
// serve refuses before it starts anything, each with one line naming the
// flags and values: a rate too low to send a request in the run (at
// 1e-12 the interval between requests overflowed and the run went flat
// out), no mode left to run, flags of the in-process server given with
// --url, a URL that is not plain http, and bodies over the server's limit
// or, built by every connection, over the memory allowed.
func TestBenchServeFlagConflicts(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "0.1", "--duration", "1s"}, "--rate 0.1: want 0 (back to back) or at least 1 requests a second, one over --duration 1s"},
		{[]string{"--rate", "1e-12", "--duration", "1s"}, "--rate 1e-12: want 0"},
		{[]string{"--single=false", "--batch-mode=false"}, "--single=false, --batch-mode=false: no mode left to run"},
		{[]string{"--single=false"}, "--single=false, --batch-mode=false: no mode left to run"},
		{[]string{"--url", "http://127.0.0.1:1", "--durability", "maybe"}, `--durability "maybe": want group, sync or nosync`},
		{[]string{"--url", "http://127.0.0.1:1", "--durability", "nosync"}, "--durability applies to the in-process server, not to --url"},
		{[]string{"--url", "http://127.0.0.1:1", "--in-memory"}, "--in-memory applies to the in-process server, not to --url"},
		{[]string{"--url", "http://127.0.0.1:1", "--no-engine"}, "--no-engine applies to the in-process server, not to --url"},
		{[]string{"--url", "http://127.0.0.1:1", "--tiny-k", "12"}, "--tiny-k applies to the in-process server, not to --url"},
		{[]string{"--tiny-k", "40"}, "--tiny-k 40: want 0 to 32"},
		{[]string{"--tiny-length", "900"}, "--tiny-length 900: want 0 to 500"},
		{[]string{"--url", "https://127.0.0.1:1"}, `--url "https://127.0.0.1:1": want an http:// URL`},
		{[]string{"--batch", "10000"}, "--batch 10000 of --words 60 makes request bodies of about 4.9 MiB, over the server's body limit of 4194304 bytes (4 MiB); want --batch at most 8148 at --words 60"},
		{[]string{"--url", "http://127.0.0.1:1", "--batch", "10000", "--words", "100000"}, "--batch-conns 4, each building bodies of --batch 10000 documents of --words 100000"},
		{[]string{"--single", "--conns", "1024", "--words", "100000", "--url", "http://127.0.0.1:1"}, ""},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"bench", "serve"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
		msg := stderr.String()
		if tt.want == "" {
			// Allowed: it gets as far as the probe of the dead URL.
			if code != 1 || !strings.Contains(msg, "no neardup server answers at http://127.0.0.1:1") {
				t.Errorf("%v: exit %d, stderr %q; want 1 from the probe", tt.args, code, msg)
			}
			continue
		}
		if code != 2 || !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 || stdout.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 2 and one line with %q", tt.args, code, msg, stdout.String(), tt.want)
		}
	}
}

// TestBenchBodyBytes checks the estimate of a request body against the
// bodies docGen writes for 20 runs of fixed seeds: for bodies of 10,000
// words or more, never below and within 4% (500 documents of 60 words came
// out 2.0-2.9% over, the estimate allowing 10 digits for each document's
// number), so that the largest batch allowed fits the server's limit; for
// smaller ones, near.
func TestBenchBodyBytes(t *testing.T) {
	for run := range uint64(20) {
		for _, c := range []struct{ n, words int }{{1, 1}, {1, 60}, {20, 60}, {500, 60}, {8148, 60}, {100, 1000}, {1, 100000}} {
			g := newDocGen(1+run*0x9e3779b97f4a7c15, maxBenchConns-1, c.words)
			got := len(g.body(nil, c.n))
			est := benchBodyBytes(c.n, c.words)
			big := c.n*c.words >= 10000
			if big && (float64(got) > est || est > 1.04*float64(got)) || !big && (est < 0.8*float64(got) || est > 2*float64(got)) {
				t.Errorf("%d documents of %d words: %d bytes, estimated %.0f", c.n, c.words, got, est)
			}
			if c.n == 8148 && got > server.DefaultMaxBody {
				t.Errorf("the largest batch allowed at 60 words takes %d bytes, over the limit of %d", got, server.DefaultMaxBody)
			}
		}
	}
}

// TestBenchServeDeadURL checks that bench serve --url where nothing
// listens fails at once, naming the URL, with nothing on standard output
// (it printed an empty table after redialling 32,000 times a second).
func TestBenchServeDeadURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	code := run([]string{"bench", "serve", "--url", base, "--duration", "1s", "--warmup", "0s"}, strings.NewReader(""), &stdout, &stderr)
	if msg := stderr.String(); code != 1 || !strings.Contains(msg, "no neardup server answers at "+base) || strings.Count(msg, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want 1 and one line naming %s", code, msg, base)
	}
	if stdout.Len() > 0 || time.Since(start) > 900*time.Millisecond {
		t.Errorf("took %v and printed %q before failing", time.Since(start), stdout.String())
	}
}

// TestBenchServePolicy checks that the policy flags reach the in-process
// server, whose distances the report's header names.
func TestBenchServePolicy(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "candidates within 6 bits, short texts 10, tiny ones 14 (under 64 characters)\n"},
		{[]string{"--tiny-k", "12", "--short-k", "9"}, "candidates within 6 bits, short texts 9, tiny ones 12 (under 64 characters)\n"},
		{[]string{"--tiny-length", "0"}, "candidates within 6 bits, short texts 10\n"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"bench", "serve", "--batch-mode", "--batch", "20", "--batch-conns", "1", "--words", "5", "--duration", "100ms", "--warmup", "0s", "--in-memory"}, tc.args...)
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q, output lacks %q:\n%s", tc.args, code, stderr.String(), tc.want, stdout.String())
		}
	}
}

// TestBenchServeLoadEnds checks loadServer's pacing: a connection whose
// next request is due after the run's end stops at the end, not when it
// was due (at 2 requests a second over 2 connections, each sends one at
// most in 600ms; the run took 1.5 s), and a connection whose server is
// gone waits between its attempts instead of redialling at once.
func TestBenchServeLoadEnds(t *testing.T) {
	base, stop, err := startNullServer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r, err := loadServer(context.Background(), loadSpec{base: base, conns: 2, perReq: 1, words: 10, duration: 600 * time.Millisecond, rate: 2})
	took := time.Since(start)
	stop()
	if err != nil || r.requests < 1 || r.requests > 2 {
		t.Fatalf("%+v, %v; want 1 or 2 requests", r, err)
	}
	if took > 1100*time.Millisecond {
		t.Errorf("a run of 600ms took %v", took)
	}
	if _, err := loadServer(context.Background(), loadSpec{base: base, conns: 1, perReq: 1, words: 10, duration: time.Second, rate: 1e-12}); err == nil {
		t.Errorf("rate 1e-12: no error; its interval overflows")
	}
	// The server is stopped: every attempt fails.
	_, err = loadServer(context.Background(), loadSpec{base: base, conns: 1, perReq: 1, words: 10, duration: 300 * time.Millisecond})
	var n int
	if err == nil {
		t.Fatal("no error from a stopped server")
	}
	_, after, _ := strings.Cut(err.Error(), "transport:")
	fmt.Sscan(strings.TrimSuffix(after, ")"), &n)
	if n < 1 || n > 30 {
		t.Errorf("%d transport errors in 300ms (%v); want a pause of %v after each", n, err, transportBackoff)
	}
}

// TestBenchServeBodyTooLarge loads a server whose body limit is below
// the batches sent: the answer is reported as 413, body too large, with
// the size of the bodies, rather than as transport errors.
func TestBenchServeBodyTooLarge(t *testing.T) {
	s, err := server.New(server.Options{MaxBody: 2000})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEngine(nullEngine{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	defer func() { cancel(); <-done }()
	base := "http://" + ln.Addr().String()
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "serve", "--url", base, "--batch-mode", "--batch", "50", "--batch-conns", "1", "--duration", "200ms", "--warmup", "0s"}, strings.NewReader(""), &stdout, &stderr)
	if msg := stderr.String(); code != 1 || !strings.Contains(msg, "answered 413, body too large, to requests of about 25 KiB (50 documents of 60 words)") {
		t.Errorf("exit %d, stderr %q; want 1 and 413, body too large", code, msg)
	}
}
