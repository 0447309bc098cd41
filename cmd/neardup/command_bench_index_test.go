package main

import (
	"bytes"
	"encoding/json"
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
}

func TestBenchIndexErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "0"},
		{"-k", "-1"},
		{"--data", "xml"},
		{"--design", "9/9/9"},
		{"-k", "4", "--design", "seed"},
		{"-k", "3", "--table-k", "4"},
		{"-k", "10", "--table-k", "4", "--design", "seed"},
		{"--batch", "-1"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(append([]string{"bench", "index"}, args...), nil, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, stderr.String())
		}
	}
}
