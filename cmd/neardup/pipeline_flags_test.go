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

// pageText is a paragraph of the pages of TestPipelineFlags.
const pageText = "The river rose through the night and by morning the old town square stood under water; volunteers carried sandbags to the bakery, the school and the church while the mayor asked everyone living near the bridge to leave before noon."

// pageIn wraps text in one of two templates whose scripts and styles
// outweigh it.
func pageIn(template int, text string) string {
	var sb strings.Builder // words of the template's own
	for i := range 300 {
		fmt.Fprintf(&sb, "w%x ", (i*2654435761+template*104729)%1000003)
	}
	script := "var words = '" + sb.String() + "';"
	if template == 0 {
		return "<html><head><script>" + script + "</script></head><body><nav><img src=\"/logo.png\"></nav><article><p>" + text + "</p></article></body></html>"
	}
	return "<!doctype html><html><head><style>.x{color:red}</style><script>" + script + "</script></head><body><table><tr><td>" + text + "</td></tr></table></body></html>"
}

// TestPipelineFlags checks --html, --idf and --pipeline: with --html a
// page and its text in other markup have one fingerprint, compare calls
// them duplicates and dedup keeps the first; the flags are refused, exit
// status 2 naming them, with another profile or a bad value.
func TestPipelineFlags(t *testing.T) {
	a, b := pageIn(0, pageText), pageIn(1, pageText)
	run1 := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	// fps returns the fingerprints of fingerprint --lines' output.
	fps := func(out string) []string {
		var fs []string
		for l := range strings.Lines(out) {
			fs = append(fs, strings.Fields(l)[0])
		}
		return fs
	}
	code, out, errs := run1(a+"\n"+b+"\n"+pageText+"\n", "fingerprint", "--html", "--lines")
	if f := fps(out); code != 0 || len(f) != 3 || f[0] != f[1] || f[1] != f[2] {
		t.Fatalf("fingerprint --html of two pages and their text: exit %d, %q, %s; want one fingerprint", code, out, errs)
	}
	if _, plain, _ := run1(a+"\n"+b+"\n", "fingerprint", "--lines"); len(fps(plain)) != 2 || fps(plain)[0] == fps(plain)[1] {
		t.Fatalf("fingerprint without --html: %q; want the markup to count", plain)
	}

	for _, html := range []bool{false, true} {
		args := []string{"compare", "--json", a, b}
		if html {
			args = append([]string{"compare", "--html"}, args[1:]...)
		}
		code, out, errs := run1("", args...)
		var c comparison
		if code != 0 || json.Unmarshal([]byte(out), &c) != nil {
			t.Fatalf("compare, --html %v: exit %d, %q, %s", html, code, out, errs)
		}
		if c.Duplicate != html || (html && c.Distance != 0) {
			t.Errorf("compare, --html %v: duplicate %v at distance %d; want duplicates only with --html", html, c.Duplicate, c.Distance)
		}
	}

	docs := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n", a, b)
	if code, out, errs := run1(docs, "dedup", "--html"); code != 0 || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, `{"id":"a"`) {
		t.Errorf("dedup --html of a page and its copy in another template: exit %d, %q, %s; want the first alone", code, out, errs)
	}

	if code, out, errs := run1(docs, "cluster", "--html"); code != 0 || !strings.Contains(out, `"members":["a","b"]`) {
		t.Errorf("cluster --html of a page and its copy in another template: exit %d, %q, %s; want them in one cluster", code, out, errs)
	}

	dir := t.TempDir()
	idf := filepath.Join(dir, "idf.txt")
	if code, _, errs := run1(pageText+"\nanother document about the weather in spring\n", "idf", "build", "--lines", "-o", idf); code != 0 {
		t.Fatalf("idf build: exit %d, %s", code, errs)
	}
	_, plain, _ := run1(pageText+"\n", "fingerprint", "--lines")
	code, weighted, errs := run1(pageText+"\n", "fingerprint", "--lines", "--idf", idf)
	if code != 0 || weighted == plain {
		t.Errorf("fingerprint --idf: exit %d, %q (without: %q), %s; want tf-idf weights to change it", code, weighted, plain, errs)
	}

	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("not a table\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"fingerprint", "--html", "--profile", "classic", "x"}, `profile "classic" is fixed`},
		{[]string{"compare", "--pipeline", "Shingle=x", "a", "b"}, `--pipeline "Shingle=x"`},
		{[]string{"compare", "--pipeline", "Colour=red", "a", "b"}, `--pipeline "Colour=red": no field "Colour"`},
		{[]string{"fingerprint", "--pipeline", "Shingle=99", "x"}, `--pipeline "Shingle=99"`},
		{[]string{"dedup", "--idf", filepath.Join(dir, "none.txt")}, "--idf: open"},
		{[]string{"dedup", "--idf", bad}, "--idf " + bad},
		{[]string{"cluster", "--html", "--profile", "go-mfonda"}, `profile "go-mfonda" is fixed`},
	} {
		code, _, errs := run1("", c.args...)
		if code != 2 || !strings.Contains(errs, c.says) {
			t.Errorf("%v: exit %d, %q; want 2 saying %q", c.args, code, errs, c.says)
		}
	}
}

// TestMainTextFlag checks --main-text: two pages of one sentence in
// other menus and sidebars are duplicates at distance 0 for compare, and
// dedup keeps the first; with --html alone they are not; another profile
// refuses it.
func TestMainTextFlag(t *testing.T) {
	text := "The river rose through the night and by morning the old town square stood under water."
	a := "<html><body><nav>Home News Sport Weather Contact About</nav><article><p>" + text + "</p></article><footer>Copyright 2026 Daily Example. All rights reserved.</footer></body></html>"
	b := "<html><body><header><h1>Morning Post</h1><nav>Front page, Politics, Business, Culture</nav></header><div><p>" + text + "</p></div><aside>Most read: ten recipes for a rainy day</aside></body></html>"
	run1 := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, flag := range []string{"--html", "--main-text"} {
		main := flag == "--main-text"
		code, out, errs := run1("", "compare", "--json", flag, a, b)
		var c comparison
		if code != 0 || json.Unmarshal([]byte(out), &c) != nil {
			t.Fatalf("compare %s: exit %d, %q, %s", flag, code, out, errs)
		}
		if c.Duplicate != main || main && c.Distance != 0 {
			t.Errorf("compare %s: duplicate %v at distance %d; want duplicates at 0 only with --main-text", flag, c.Duplicate, c.Distance)
		}
		docs := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n", a, b)
		code, out, errs = run1(docs, "dedup", flag)
		if want := map[bool]int{false: 2, true: 1}[main]; code != 0 || strings.Count(out, "\n") != want {
			t.Errorf("dedup %s: exit %d, %q, %s; want %d documents written", flag, code, out, errs, want)
		}
	}
	if code, _, errs := run1("", "compare", "--main-text", "--profile", "classic", a, b); code != 2 || !strings.Contains(errs, `profile "classic" is fixed`) {
		t.Errorf("compare --main-text --profile classic: exit %d, %q; want 2 naming the profile", code, errs)
	}
}

// TestFoldAccentsFlag checks --fold-accents: a Polish sentence and its copy
// without marks (a Levenshtein ratio of 0.67 as they are) are duplicates
// at distance 0 for compare, and of one cluster, and dedup keeps the
// first; --pipeline FoldAccents=true is the same; without it they are
// different texts; another profile refuses it.
func TestFoldAccentsFlag(t *testing.T) {
	a, b := "Zażółć gęślą jaźń, łódź płynie źle po rzece", "Zazolc gesla jazn, lodz plynie zle po rzece"
	run1 := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	for _, flags := range [][]string{nil, {"--fold-accents"}, {"--pipeline", "FoldAccents=true"}} {
		fold := flags != nil
		code, out, errs := run1("", append(append([]string{"compare", "--json"}, flags...), a, b)...)
		var c comparison
		if code != 0 || json.Unmarshal([]byte(out), &c) != nil {
			t.Fatalf("compare %v: exit %d, %q, %s", flags, code, out, errs)
		}
		if c.Duplicate != fold || fold && (c.Distance != 0 || c.LevenshteinRatio != 1) {
			t.Errorf("compare %v: duplicate %v at distance %d, Levenshtein %v; want duplicates at 0 and 1 only when folding", flags, c.Duplicate, c.Distance, c.LevenshteinRatio)
		}
		docs := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n", a, b)
		code, out, errs = run1(docs, append([]string{"cluster"}, flags...)...)
		if grouped := strings.Contains(out, `"members":["a","b"]`); code != 0 || grouped != fold {
			t.Errorf("cluster %v: exit %d, %q, %s; want them one cluster only when folding", flags, code, out, errs)
		}
		code, out, errs = run1(docs, append([]string{"dedup"}, flags...)...)
		if want := map[bool]int{false: 2, true: 1}[fold]; code != 0 || strings.Count(out, "\n") != want {
			t.Errorf("dedup %v: exit %d, %q, %s; want %d documents written", flags, code, out, errs, want)
		}
	}
	if code, _, errs := run1("", "compare", "--fold-accents", "--profile", "py-simhash", a, b); code != 2 || !strings.Contains(errs, `profile "py-simhash" is fixed`) {
		t.Errorf("compare --fold-accents --profile py-simhash: exit %d, %q; want 2 naming the profile", code, errs)
	}
}
