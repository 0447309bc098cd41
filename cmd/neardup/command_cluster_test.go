package main

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/internal/testtext"
	"github.com/neardup/neardup/similarity"
)

func TestCluster(t *testing.T) {
	in := fmt.Sprintf("{\"id\":\"a\",\"text\":%q}\n{\"id\":\"x\",\"text\":%q}\n{\"id\":\"b\",\"text\":%q}\n{\"id\":\"c\",\"text\":%q}\n{\"id\":\"y\",\"text\":%q}\n{\"id\":\"z\",\"text\":\"\"}\n",
		fox, other, fox2, "Something else entirely, about gardens and the winter.", strings.ToUpper(other))
	tests := []struct {
		args []string
		want string
		code int
	}{
		{nil, "{\"cluster\":1,\"representative\":\"a\",\"members\":[\"a\",\"b\"]}\n{\"cluster\":2,\"representative\":\"x\",\"members\":[\"x\",\"y\"]}\n", 0},
		{[]string{"--strict"}, "{\"cluster\":1,\"representative\":\"a\",\"members\":[\"a\",\"b\"]}\n{\"cluster\":2,\"representative\":\"x\",\"members\":[\"x\",\"y\"]}\n", 0},
		{[]string{"--profile", "nilsimsa"}, "", 2},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"cluster"}, tc.args...), strings.NewReader(in), &out, &errb)
		if code != tc.code || out.String() != tc.want {
			t.Errorf("%v: exit %d, stderr %s, output:\n%s\nwant:\n%s", tc.args, code, errb.String(), out.String(), tc.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"cluster"}, strings.NewReader("{bad\n"), &out, &errb); code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), "standard input:1: malformed JSON") {
		t.Errorf("bad input: exit %d, out %q, stderr %q", code, out.String(), errb.String())
	}
	// An output that cannot be written (a full disk) fails the run,
	// saying what failed.
	errb.Reset()
	full := &fullWriter{limit: 10}
	if code := run([]string{"cluster"}, strings.NewReader(in), full, &errb); code != 1 || errb.String() != "neardup: cluster: writing output: write /dev/stdout: no space left on device\n" {
		t.Errorf("full disk: exit %d, stderr %q", code, errb.String())
	}
}

// TestClusterRepeatedID checks that cluster reads ids as dedup does: an id
// seen again with another text is a bad line, and the same line twice is
// one document, not a group of itself.
func TestClusterRepeatedID(t *testing.T) {
	line := func(id, text string) string { return fmt.Sprintf("{\"id\":%q,\"text\":%q}\n", id, text) }
	conflict := line("x", fox) + line("x", other) + line("y", fox2)
	var out, errb bytes.Buffer
	code := run([]string{"cluster"}, strings.NewReader(conflict), &out, &errb)
	if code != 2 || out.Len() != 0 || errb.String() != "neardup: cluster: standard input:2: id already seen with another text: \"x\" (nothing written; --on-error skip passes over bad lines)\n" {
		t.Errorf("conflict: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"cluster", "--on-error", "skip"}, strings.NewReader(conflict), &out, &errb)
	if want := "{\"cluster\":1,\"representative\":\"x\",\"members\":[\"x\",\"y\"]}\n"; code != 0 || out.String() != want || !strings.Contains(errb.String(), "skipped standard input:2: id already seen with another text") {
		t.Errorf("conflict skipped: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	for in, want := range map[string]string{
		line("x", fox) + line("x", fox):                   "",
		line("x", fox) + line("x", fox) + line("y", fox2): "{\"cluster\":1,\"representative\":\"x\",\"members\":[\"x\",\"y\"]}\n",
	} {
		out.Reset()
		errb.Reset()
		if code := run([]string{"cluster"}, strings.NewReader(in), &out, &errb); code != 0 || out.String() != want {
			t.Errorf("repeat %q: exit %d, stdout %q, stderr %q, want %q", in, code, out.String(), errb.String(), want)
		}
	}
}

// TestClusterStrictNoVerify checks that --strict, which merges by the
// similarity test, is refused with --no-verify, which turns it off.
func TestClusterStrictNoVerify(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"cluster", "--strict", "--no-verify"}, strings.NewReader(fmt.Sprintf("{\"text\":%q}\n{\"text\":%q}\n", fox, fox2)), &out, &errb)
	wantUsageError(t, errb.String(), code, "--strict conflicts with --no-verify")
	if out.Len() != 0 {
		t.Errorf("wrote %q", out.String())
	}
}

// TestClusterInvisibleText checks that cluster leaves out, as empty, the
// texts the engine refuses as empty (dedup decides them so too): white
// space, or characters that normalization drops (a zero-width space, a
// soft hyphen), or with --html markup with no text.
func TestClusterInvisibleText(t *testing.T) {
	for _, tc := range []struct {
		args []string
		in   string
	}{
		{[]string{"--lines"}, "a b\n\u200b\n\u00ad\n   \n\u3000\n\ufeff\u200b\n"},
		{[]string{"--lines", "--html"}, "a b\n<p></p>\n<b> </b>\n<p>\u200b</p>\n"},
	} {
		in := tc.in + fox + "\n" + fox2 + "\n"
		n := strings.Count(tc.in, "\n")
		want := fmt.Sprintf("{\"cluster\":1,\"representative\":\"%d\",\"members\":[\"%d\",\"%d\"]}\n", n+1, n+1, n+2)
		var out, errb bytes.Buffer
		if code := run(append([]string{"cluster"}, tc.args...), strings.NewReader(in), &out, &errb); code != 0 || out.String() != want {
			t.Errorf("%v %q: exit %d, stderr %q, output %q, want %q", tc.args, tc.in, code, errb.String(), out.String(), want)
		}
	}
}

// TestClusterCandidatesExact checks the candidate pairs cluster finds
// without verification, at 64 and 128 bits, against every pair within the
// policy's distances by a quadratic scan. At 128 bits each half is
// searched at half the distance, which must miss nothing.
func TestClusterCandidatesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	var docs []neardup.Document
	for i := range 400 {
		var text string
		if i > 0 && rng.IntN(2) == 0 {
			// A copy of an earlier text with a few words changed.
			words := strings.Fields(docs[rng.IntN(i)].Text)
			for range 1 + rng.IntN(3) {
				words[rng.IntN(len(words))] = testtext.English(rng, 1)
			}
			text = strings.Join(words, " ")
		} else {
			text = testtext.English(rng, []int{5, 12, 40, 150}[rng.IntN(4)])
		}
		docs = append(docs, neardup.Document{ID: fmt.Sprint(i), Text: text})
	}
	policy := neardup.DefaultPolicy()
	for _, bits := range []int{64, 128} {
		fp, err := neardup.NewFingerprinter(neardup.Config{Bits: bits})
		if err != nil {
			t.Fatal(err)
		}
		scale := func(d int) int { return d * bits / 64 }
		var want []cluster.Pair
		for a := range docs {
			for b := a + 1; b < len(docs); b++ {
				d, _ := neardup.Distance(fp.Fingerprint([]byte(docs[a].Text)), fp.Fingerprint([]byte(docs[b].Text)))
				ra, rb := utf8.RuneCountInString(docs[a].Text), utf8.RuneCountInString(docs[b].Text)
				// The rule of the pair's class by their lengths: the
				// tiny one's distance for two tiny texts.
				if r, _ := policy.RuleFor(ra, rb); d <= scale(r.MaxDistance) {
					want = append(want, cluster.Pair{A: a, B: b, Distance: d})
				}
			}
		}
		got := clusterDocs(docs, fp, neardup.Config{}, policy, false, false, 0)
		if w := cluster.Build(len(docs), want, cluster.Options{}); !reflect.DeepEqual(got, w) || len(w) < 20 {
			t.Errorf("%d bits: %d groups, want %d (from %d pairs)", bits, len(got), len(w), len(want))
		}
	}
}

// clusterAllPairs is clusterDocs as it was, quadratic in a group's size:
// every candidate pair, by a scan of all pairs, verified, sorted by its
// items and grouped by cluster.Build.
func clusterAllPairs(t *testing.T, docs []neardup.Document, fp neardup.Fingerprinter, policy neardup.Policy, verify, strict bool) []cluster.Group {
	t.Helper()
	bits := fp.Bits()
	scale := func(d int) int { return d * bits / 64 }
	fps := make([]neardup.Fingerprint, len(docs))
	runes := make([]int, len(docs))
	sketches := make([]*similarity.Sketch, len(docs))
	for i, d := range docs {
		fps[i] = fp.Fingerprint([]byte(d.Text))
		runes[i] = utf8.RuneCountInString(d.Text)
		sketches[i] = similarity.NewSketch([]byte(d.Text))
	}
	shortCap, tinyCap := policy.ShortCap(), policy.TinyCap()
	isShort := func(i int) bool { return runes[i] < shortCap+shortCap/4 }
	isTiny := func(i int) bool { return runes[i] < tinyCap+tinyCap/4 }
	var pairs []cluster.Pair
	for a := range docs {
		for b := a + 1; b < len(docs); b++ {
			d, _ := neardup.Distance(fps[a], fps[b])
			if d <= scale(policy.Long.MaxDistance) || isShort(a) && isShort(b) && d <= scale(policy.Short.MaxDistance) ||
				isTiny(a) && isTiny(b) && (d <= scale(policy.Tiny.MaxDistance) || verify && policy.OneWordApart(sketches[a], sketches[b])) {
				pairs = append(pairs, cluster.Pair{A: a, B: b, Distance: d})
			}
		}
	}
	var kept []cluster.Pair
	for _, p := range pairs {
		if !verify {
			if r, _ := policy.RuleFor(runes[p.A], runes[p.B]); p.Distance <= scale(r.MaxDistance) {
				kept = append(kept, p)
			}
		} else if ok, _ := policy.Decide(sketches[p.A], sketches[p.B], p.Distance, bits); ok {
			kept = append(kept, p)
		}
	}
	opts := cluster.Options{}
	if strict {
		opts = cluster.Options{Strict: true, Verify: func(a, b int) bool {
			d, _ := neardup.Distance(fps[a], fps[b])
			ok, _ := policy.Decide(sketches[a], sketches[b], d, bits)
			return ok
		}}
	}
	return cluster.Build(len(docs), kept, opts)
}

// clusterTestDocs returns documents with large groups: copies of spam
// templates with a number changed (and a word or two), chains of texts
// each a few words from the one before, and texts alike in nothing.
func clusterTestDocs(rng *rand.Rand, copies int) []neardup.Document {
	var texts []string
	templates := []string{
		"Congratulations! You have been selected to receive a free gift card worth five hundred dollars. Click the link below to claim your reward before it expires. Reference number %d. Terms and conditions apply.",
		"Dear customer, your account has been suspended because of unusual activity. Please confirm your identity within 24 hours at the address below or lose access. Case %d.",
		testtext.English(rng, 120) + " order %d " + testtext.English(rng, 40),
	}
	for range copies {
		text := fmt.Sprintf(templates[rng.IntN(len(templates))], rng.IntN(100000))
		if rng.IntN(4) == 0 {
			words := strings.Fields(text)
			words[rng.IntN(len(words))] = testtext.English(rng, 1)
			text = strings.Join(words, " ")
		}
		texts = append(texts, text)
	}
	for _, size := range []int{15, 60, 200} {
		words := strings.Fields(testtext.English(rng, size))
		for range 40 {
			for range 1 + size/30 {
				words[rng.IntN(len(words))] = testtext.English(rng, 1)
			}
			texts = append(texts, strings.Join(words, " "))
		}
	}
	for range copies / 4 {
		texts = append(texts, testtext.English(rng, []int{10, 40, 150}[rng.IntN(3)]))
	}
	// Tiny texts of 5 words and copies of each with one word replaced,
	// some of them farther than the tiny rule's distance.
	vocab := strings.Fields("the a man woman dog cat is was playing riding eating a guitar horse bread slowly fast in on park street today now red old")
	word := func() string { return vocab[rng.IntN(len(vocab))] }
	for range 30 {
		base := make([]string, 5)
		for i := range base {
			base[i] = word()
		}
		texts = append(texts, strings.Join(base, " "))
		for range 4 {
			words := slices.Clone(base)
			words[rng.IntN(len(words))] = word()
			texts = append(texts, strings.Join(words, " "))
		}
	}
	// Texts repeated byte for byte, as pages a crawler fetched twice.
	for range copies / 10 {
		texts = append(texts, texts[rng.IntN(len(texts))])
	}
	rng.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
	docs := make([]neardup.Document, len(texts))
	for i, text := range texts {
		docs[i] = neardup.Document{ID: fmt.Sprint(i), Text: text}
	}
	return docs
}

// TestClusterMatchesAllPairs checks that clusterDocs, which tests only the
// pairs it needs and holds a bounded number of them, makes the groups of
// verifying every candidate pair and grouping them all (clusterAllPairs),
// at 64 and 128 bits, with and without --strict and --no-verify, with its
// buffers as they are and tiny (many chunks and --strict searches, some
// of which end early).
func TestClusterMatchesAllPairs(t *testing.T) {
	docs := clusterTestDocs(rand.New(rand.NewPCG(10, 11)), 500)
	policy := neardup.DefaultPolicy()
	defer func(c, d, s, b, r, m int) {
		clusterChunk, clusterDeferred, clusterStrictBuffer, clusterStrictBatch, clusterStrictRestarts, clusterMinRun = c, d, s, b, r, m
	}(clusterChunk, clusterDeferred, clusterStrictBuffer, clusterStrictBatch, clusterStrictRestarts, clusterMinRun)
	for _, bits := range []int{64, 128} {
		fp, err := neardup.NewFingerprinter(neardup.Config{Bits: bits})
		if err != nil {
			t.Fatal(err)
		}
		var candidates int64 // found by one search
		for _, mode := range []struct {
			name           string
			verify, strict bool
		}{{"no-verify", false, false}, {"verify", true, false}, {"strict", true, true}} {
			want := clusterAllPairs(t, docs, fp, policy, mode.verify, mode.strict)
			largest := 0
			for _, g := range want {
				largest = max(largest, len(g.Members))
			}
			if len(want) < 5 || largest < 100 {
				t.Fatalf("%d bits %s: %d groups, the largest of %d: want large groups", bits, mode.name, len(want), largest)
			}
			// The last of sizes is the smallest run joined at once
			// (clusterMinRun), which strict does not use.
			for _, sizes := range [][6]int{{1 << 13, 1 << 16, 1 << 20, 1 << 10, 8, 2048}, {3, 5, 100, 2, 2, 2}, {1, 1, 400, 1, 1 << 20, 30}, {2, 1, 1000, 3, 0, 1}} {
				clusterChunk, clusterDeferred, clusterStrictBuffer, clusterStrictBatch, clusterStrictRestarts, clusterMinRun = sizes[0], sizes[1], sizes[2], sizes[3], sizes[4], sizes[5]
				c0 := clusterCandidates.Load()
				got := clusterDocs(docs, fp, neardup.Config{}, policy, mode.verify, mode.strict, 0)
				searched := clusterCandidates.Load() - c0
				if candidates == 0 {
					candidates = searched
				} else if mode.strict && sizes[2] < 1<<20 && searched < 2*candidates {
					t.Errorf("%d bits %s, buffers %v: %d pairs in all searches, %d in one: want several searches", bits, mode.name, sizes, searched, candidates)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%d bits %s, buffers %v: %d groups, want %d:\n%v\nwant:\n%v", bits, mode.name, sizes, len(got), len(want), got, want)
				}
			}
		}
	}
}

// TestClusterVerifiesLinearly checks that a group of n copies of a
// template costs about n tests, not one per candidate pair (n²/2): only
// pairs of documents not joined yet are tested. Without --strict the
// search meets about n pairs too (index.Joiner); with it, the candidates
// are all n²/2 pairs, taken closest first.
func TestClusterVerifiesLinearly(t *testing.T) {
	const n = 3000
	var docs []neardup.Document
	for i := range n {
		docs = append(docs, neardup.Document{ID: fmt.Sprint(i), Text: fmt.Sprintf("Congratulations! You have been selected to receive a free gift card worth five hundred dollars. Click the link below to claim your reward before it expires. Reference number %d. Terms and conditions apply.", i)})
	}
	fp, err := neardup.NewFingerprinter(neardup.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		c0, v0 := clusterCandidates.Load(), clusterVerified.Load()
		groups := clusterDocs(docs, fp, neardup.Config{}, neardup.DefaultPolicy(), true, strict, 0)
		candidates, verified := clusterCandidates.Load()-c0, clusterVerified.Load()-v0
		if !strict && (len(groups) != 1 || len(groups[0].Members) != n) {
			t.Fatalf("%d groups, want one of all %d", len(groups), n)
		}
		t.Logf("strict %v: %d candidate pairs, %d tested", strict, candidates, verified)
		if verified < n-1 || verified > 3*n {
			t.Errorf("strict %v: %d pairs tested: want n-1 = %d to 3n = %d", strict, verified, n-1, 3*n)
		}
		if strict && candidates < n*n/4 {
			t.Errorf("strict: %d candidate pairs, want n²/4 = %d or more", candidates, n*n/4)
		}
		if !strict && candidates > 3*n {
			t.Errorf("%d candidate pairs, want at most 3n = %d", candidates, 3*n)
		}
	}
}

// TestClusterCopiesSearchedOnce checks that a text repeated n times, as
// an error page of a crawled site, is searched once, not as n²/2 candidate
// pairs, while its copies still join it and the texts near it: one group
// of the copies and a near-copy, the earliest document its representative.
func TestClusterCopiesSearchedOnce(t *testing.T) {
	const n = 2000
	page := "Page not found. The page you requested could not be found on this server. Check the address or go back to the home page."
	docs := []neardup.Document{{ID: "near", Text: strings.Replace(page, "requested", "asked for", 1)}}
	for i := range n {
		docs = append(docs, neardup.Document{ID: fmt.Sprint(i), Text: page})
	}
	docs = append(docs, neardup.Document{ID: "other", Text: fox})
	fp, err := neardup.NewFingerprinter(neardup.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, verify := range []bool{true, false} {
		c0 := clusterCandidates.Load()
		groups := clusterDocs(docs, fp, neardup.Config{}, neardup.DefaultPolicy(), verify, false, 0)
		candidates := clusterCandidates.Load() - c0
		if len(groups) != 1 || len(groups[0].Members) != n+1 || groups[0].Representative != 0 {
			t.Fatalf("verify %v: groups %v, want one of the %d copies and the near-copy, document 0 first", verify, groups, n)
		}
		if candidates > 10 {
			t.Errorf("verify %v: %d candidate pairs searched, want about one (the near-copy and the page), not n²/2", verify, candidates)
		}
	}
}

// TestClusterKRange checks that --k out of range names the command, the
// flag and the range, and that the flag's help gives the range.
func TestClusterKRange(t *testing.T) {
	for _, k := range []string{"33", "-1"} {
		var out, errb bytes.Buffer
		code := run([]string{"cluster", "--lines", "--k", k}, strings.NewReader(fox+"\n"), &out, &errb)
		if want := "neardup: cluster: --k " + k + ": want 0 to 32 bits per 64 (0: the policy's default, 6)\n"; code != 2 || out.Len() != 0 || errb.String() != want {
			t.Errorf("--k %s: exit %d, stdout %q, stderr %q, want %q", k, code, out.String(), errb.String(), want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"cluster", "--help"}, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "candidates, 0 to 32 bits per 64 (doubled at --bits 128)") {
		t.Errorf("--help: exit %d, stderr %q, no range of --k in:\n%s", code, errb.String(), out.String())
	}
}

// TestClusterJoinMatchesBuild checks clusterJoiner and clusterStrict
// against cluster.Build on random pairs, given in another order to each
// search, with a random test (the same for a pair and for two
// representatives, as in clusterDocs) and tiny buffers.
func TestClusterJoinMatchesBuild(t *testing.T) {
	defer func(c, d, s, b, r, m int) {
		clusterChunk, clusterDeferred, clusterStrictBuffer, clusterStrictBatch, clusterStrictRestarts, clusterMinRun = c, d, s, b, r, m
	}(clusterChunk, clusterDeferred, clusterStrictBuffer, clusterStrictBatch, clusterStrictRestarts, clusterMinRun)
	rng := rand.New(rand.NewPCG(12, 13))
	for trial := range 3000 {
		n := 2 + rng.IntN(40)
		seen := make(map[[2]int]bool)
		var pairs []cluster.Pair
		var cands []clusterPair
		for range rng.IntN(n * n / 2) {
			a, b := rng.IntN(n), rng.IntN(n)
			if a == b || seen[[2]int{min(a, b), max(a, b)}] {
				continue
			}
			a, b = min(a, b), max(a, b)
			seen[[2]int{a, b}] = true
			d := rng.IntN(4)
			pairs = append(pairs, cluster.Pair{A: a, B: b, Distance: d})
			cands = append(cands, clusterPair{A: int32(a), B: int32(b), D: int32(d)})
		}
		slices.SortFunc(pairs, func(x, y cluster.Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
		passRate := []uint64{30, 70, 95}[rng.IntN(3)]
		salt := rng.Uint64()
		pass := func(a, b int) bool {
			h := (uint64(a)*0x9e3779b97f4a7c15 ^ uint64(b)*0xc2b2ae3d27d4eb4f ^ salt) * 0xff51afd7ed558ccd
			return (h>>33)%100 < passRate
		}
		candidates := func(emit func(clusterPair)) {
			rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
			for _, p := range cands {
				emit(p)
			}
		}
		test := func(ps []clusterPair) []bool {
			ok := make([]bool, len(ps))
			for i, p := range ps {
				ok[i] = pass(int(p.A), int(p.B))
			}
			return ok
		}
		clusterChunk, clusterDeferred = 1+rng.IntN(6), 1+rng.IntN(6)
		clusterStrictBuffer, clusterStrictBatch = 1+rng.IntN(8), 1+rng.IntN(4)
		clusterStrictRestarts = []int{0, 3, 1 << 20}[rng.IntN(3)]
		u := cluster.New(n)
		j := clusterJoiner{u: u, test: test, links: make(map[int32]int32)}
		candidates(j.add)
		j.finish()
		if got, want := u.Groups(2), cluster.Build(n, pairs, cluster.Options{Verify: pass}); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: joined %v, want %v", trial, got, want)
		}
		got := clusterStrict(cluster.New(n), candidates, test, pass)
		if want := cluster.Build(n, pairs, cluster.Options{Verify: pass, Strict: true}); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: strict %v, want %v", trial, got, want)
		}
	}
}

// TestClusterMaxCandidates checks --max-candidates: with room for every
// candidate it gives the exact groups; with a few, each group lies within
// an exact one and about that many candidates are found per document; it
// is refused when negative and with --strict.
func TestClusterMaxCandidates(t *testing.T) {
	docs := clusterTestDocs(rand.New(rand.NewPCG(12, 13)), 300)
	policy := neardup.DefaultPolicy()
	for _, bits := range []int{64, 128} {
		fp, err := neardup.NewFingerprinter(neardup.Config{Bits: bits})
		if err != nil {
			t.Fatal(err)
		}
		for _, verify := range []bool{false, true} {
			want := clusterDocs(docs, fp, neardup.Config{}, policy, verify, false, 0)
			if got := clusterDocs(docs, fp, neardup.Config{}, policy, verify, false, len(docs)); !reflect.DeepEqual(got, want) {
				t.Errorf("%d bits, verify %v, room for all: %d groups, want the exact %d", bits, verify, len(got), len(want))
			}
			in := make([]int, len(docs)) // each document's exact group
			for g, grp := range want {
				for _, m := range grp.Members {
					in[m] = g + 1
				}
			}
			const most = 2
			c0 := clusterCandidates.Load()
			got := clusterDocs(docs, fp, neardup.Config{}, policy, verify, false, most)
			if found := clusterCandidates.Load() - c0; found > int64(2*most*len(docs)) {
				t.Errorf("%d bits, verify %v, %d candidates each: %d candidate pairs for %d documents", bits, verify, most, found, len(docs))
			}
			members := 0
			for _, grp := range got {
				members += len(grp.Members)
				for _, m := range grp.Members {
					if in[m] == 0 || in[m] != in[grp.Representative] {
						t.Fatalf("%d bits, verify %v: document %d is in the group of %d, not so in the exact groups", bits, verify, m, grp.Representative)
					}
				}
			}
			if members < len(docs)/2 {
				t.Errorf("%d bits, verify %v: %d documents grouped with %d candidates each, want most of the %d", bits, verify, members, most, len(docs))
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cluster", "--max-candidates", "-1"}, "--max-candidates -1"},
		{[]string{"cluster", "--strict", "--max-candidates", "8"}, "--strict conflicts with --max-candidates"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, strings.NewReader(fmt.Sprintf("{\"text\":%q}\n{\"text\":%q}\n", fox, fox2)), &out, &errb)
		wantUsageError(t, errb.String(), code, tc.want)
		if out.Len() != 0 {
			t.Errorf("%v wrote %q", tc.args, out.String())
		}
	}
}

// TestSketchCacheBudget checks that cluster keeps the sketches of the
// texts it verifies while they fit its budget, and makes the others again
// for each pair: memory stays bounded by the budget, not by the input.
func TestSketchCacheBudget(t *testing.T) {
	texts := []string{strings.Repeat("one two three ", 100), strings.Repeat("four five six ", 100), strings.Repeat("seven eight ", 100)}
	c := newSketchCache(texts, 2*sketchBytes(len(texts[0])))
	for i := range texts {
		if s := c.get(i); string(s.Runes) != strings.TrimSpace(texts[i]) {
			t.Fatalf("sketch %d of %q", i, string(s.Runes))
		}
	}
	if c.get(0) != c.get(0) || c.get(1) != c.get(1) {
		t.Error("the sketches within the budget were not kept")
	}
	if c.get(2) == c.get(2) {
		t.Error("the sketch beyond the budget was kept")
	}
	if left := c.left.Load(); left < 0 || left >= sketchBytes(len(texts[0])) {
		t.Errorf("%d bytes of the budget left, want under one sketch's", left)
	}
}

// TestClusterPunctuatedShortTexts checks that cluster, as dedup and
// compare, judges as short the texts of many runes that punctuation makes
// short: two sentences a word apart, each followed by a thousand "!", are
// one group (the tiny rule finds them, 11 bits apart), and dedup keeps
// one of them.
func TestClusterPunctuatedShortTexts(t *testing.T) {
	tail := strings.Repeat("!", 1000)
	in := "the cat sat on the mat" + tail + "\nthe cat sat on a mat" + tail + "\n"
	var out, errb bytes.Buffer
	if code := run([]string{"cluster", "--lines"}, strings.NewReader(in), &out, &errb); code != 0 || out.String() != "{\"cluster\":1,\"representative\":\"1\",\"members\":[\"1\",\"2\"]}\n" {
		t.Errorf("cluster: exit %d, stderr %s, output %q", code, errb.String(), out.String())
	}
	out.Reset()
	if code := run([]string{"dedup", "--lines"}, strings.NewReader(in), &out, &errb); code != 0 || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("dedup: exit %d, stderr %s, %d lines written", code, errb.String(), strings.Count(out.String(), "\n"))
	}
}
