package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/weight"
)

func TestIDFBuild(t *testing.T) {
	dir := t.TempDir()
	corpus := "the cat sat on the mat\nthe dog sat on the log\nthe cat ate the fish\n"
	path := filepath.Join(dir, "corpus.txt")
	if err := os.WriteFile(path, []byte(corpus), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "idf.txt")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"idf", "build", "--lines", "--shingle", "1", "--out", out, path}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "3 documents") {
		t.Fatalf("stderr %q", stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := weight.ReadIDF(f)
	if err != nil {
		t.Fatal(err)
	}
	// 9 distinct words; "the" is in every line, "fish" in one.
	if tab.Docs() != 3 || tab.Len() != 9 {
		t.Fatalf("docs %d, features %d", tab.Docs(), tab.Len())
	}
	feats, _ := neardup.NewFeatures(neardup.Pipeline{Shingle: 1})
	key := func(w string) uint64 { return feats.Keys(nil, []byte(w))[0] }
	if tab.Lookup(key("the")) >= tab.Lookup(key("fish")) {
		t.Fatal("a word in every document must weigh less than a rare one")
	}

	// Whole files as documents, from standard input, to standard output.
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"idf", "build"}, strings.NewReader(corpus), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "neardup-idf 1\ndocs 1\n") {
		t.Fatalf("stdout %q", stdout.String())
	}
}

func TestIDFBuildErrors(t *testing.T) {
	tests := [][]string{
		{"idf", "build", "/nonexistent/file"},
		{"idf", "build", "--min-df", "0"},
		{"idf", "build", "--cjk", "trigram"},
		{"idf", "build", "--shingle", "99"},
		{"idf", "build", "--bogus"},
	}
	for _, args := range tests {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || !strings.HasPrefix(stderr.String(), "neardup: ") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, code, stderr.String())
		}
	}
}

// TestIDFBuildDirectory checks that a directory given as input is named
// once in the error, not once by the command and again by the system call.
func TestIDFBuildDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"idf", "build", dir}, {"idf", "build", "--lines", dir}} {
		var stdout, stderr bytes.Buffer
		code := run(args, nil, &stdout, &stderr)
		if code == 0 || !strings.Contains(stderr.String(), "is a directory") || strings.Count(stderr.String(), dir) != 1 {
			t.Errorf("%v: exit %d, stderr %q, want an error naming the directory once", args, code, stderr.String())
		}
	}
}
