package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONOutputsKeepURLs checks that the JSON the commands write gives
// ids with &, < and > as they were read (a crawl's URLs), not as \u0026
// escapes, and that it still decodes to the same ids.
func TestJSONOutputsKeepURLs(t *testing.T) {
	a, b := "https://example.com/news?id=7&page=1", "https://example.com/news?id=7&page=2&ref=<rss>"
	in := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(in, fmt.Appendf(nil, "{\"id\":%q,\"text\":%q}\n{\"id\":%q,\"text\":%q}\n", a, fox, b, fox2), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := filepath.Join(t.TempDir(), "rep.jsonl")
	var out, errb bytes.Buffer
	if code := run([]string{"dedup", "--report", rep, in}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("dedup: exit %d, stderr %q", code, errb.String())
	}
	report, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := run([]string{"cluster", in}, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("cluster: exit %d, stderr %q", code, errb.String())
	}
	for name, got := range map[string][]byte{"dedup --report": report, "cluster": out.Bytes()} {
		if !bytes.Contains(got, []byte(b)) || bytes.Contains(got, []byte(`\u0026`)) {
			t.Errorf("%s wrote %s; want %q as it is", name, got, b)
		}
		var v map[string]any
		if err := json.Unmarshal(bytes.TrimSpace(got), &v); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
