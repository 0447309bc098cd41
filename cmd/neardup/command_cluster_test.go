package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/internal/testtext"
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
			text = testtext.English(rng, []int{12, 40, 150}[rng.IntN(3)])
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
				long := ra >= policy.ShortLength || rb >= policy.ShortLength
				if d <= scale(policy.Long.MaxDistance) || !long && d <= scale(policy.Short.MaxDistance) {
					want = append(want, cluster.Pair{A: a, B: b, Distance: d})
				}
			}
		}
		got := clusterDocs(docs, fp, policy, false, false, false)
		if w := cluster.Build(len(docs), want, cluster.Options{}); !reflect.DeepEqual(got, w) || len(w) < 20 {
			t.Errorf("%d bits: %d groups, want %d (from %d pairs)", bits, len(got), len(w), len(want))
		}
	}
}
