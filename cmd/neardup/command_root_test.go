package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestParentCommands runs every command that groups subcommands (found in
// the command tree, so that a new one is checked too) with a word that is
// none of them: a typo in a script must exit 2, with a message naming the
// word and the subcommands there are, while the parent alone prints its
// help and exits 0.
func TestParentCommands(t *testing.T) {
	var parents []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if s.HasAvailableSubCommands() {
				parents = append(parents, s)
			}
			walk(s)
		}
	}
	walk(newRootCmd(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
	if len(parents) < 3 {
		t.Fatalf("found %d parent commands, want bench, eval and idf at least", len(parents))
	}
	for _, p := range parents {
		path := strings.Fields(p.CommandPath())[1:]
		var subs []string
		for _, s := range p.Commands() {
			if s.IsAvailableCommand() {
				subs = append(subs, s.Name())
			}
		}
		for _, extra := range [][]string{{"bogus"}, {"foo", "bar"}} {
			args := append(append([]string(nil), path...), extra...)
			var out, errb bytes.Buffer
			code := run(args, strings.NewReader(""), &out, &errb)
			msg := errb.String()
			if code != 2 || !strings.Contains(msg, `unknown subcommand "`+extra[0]+`"`) || strings.Count(msg, "\n") != 1 {
				t.Errorf("%v: exit %d, stderr %q; want 2 and one line naming %q", args, code, msg, extra[0])
			}
			for _, s := range subs {
				if !strings.Contains(msg, s) {
					t.Errorf("%v: stderr %q does not list subcommand %q", args, msg, s)
				}
			}
		}
		var out, errb bytes.Buffer
		if code := run(path, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "Available Commands:") {
			t.Errorf("%v: exit %d, stdout %q; want 0 and the help", path, code, out.String())
		}
	}
}

// TestParentSuggests checks that a near miss of a subcommand is answered
// with the subcommand meant.
func TestParentSuggests(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"bench", "indx"}, strings.NewReader(""), &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), `did you mean "index"?`) {
		t.Errorf("bench indx: exit %d, stderr %q; want 2 and a suggestion of index", code, errb.String())
	}
}

// TestParentTypoBeforeFlags checks that a typo of a subcommand followed,
// or preceded, by the flags of the subcommand meant is reported as the
// typo, with the subcommand meant, not as an unknown flag; that a flag
// alone is refused naming it; and that --help still gives the help.
func TestParentTypoBeforeFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "pair", "--input", "x"}, `eval: unknown subcommand "pair" (did you mean "pairs"?)`},
		{[]string{"eval", "--input", "x", "pair"}, `eval: unknown subcommand "pair" (did you mean "pairs"?)`},
		{[]string{"idf", "bild", "-o", "x"}, `idf: unknown subcommand "bild" (did you mean "build"?)`},
		{[]string{"idf", "--", "-o"}, `idf: unknown subcommand "-o"`},
		{[]string{"eval", "--bogus"}, "eval: unknown flag --bogus: eval takes no flags but --help; want a subcommand: corpus, edits or pairs"},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &out, &errb)
		wantUsageError(t, errb.String(), code, tc.want)
	}
	for _, args := range [][]string{{"eval", "--help"}, {"idf", "-h"}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "Available Commands:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and the help", args, code, out.String(), errb.String())
		}
	}
}

// TestHelpUnknownTopic checks that `neardup help` on a topic that is no
// command is a usage error of one line naming it (with the command meant
// for a typo), as an unknown command is, while help on a command works.
func TestHelpUnknownTopic(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "nosuch"}, `help: unknown topic "nosuch"; want a command: `},
		{[]string{"help", "fingerprnt"}, `help: unknown topic "fingerprnt" (did you mean "fingerprint"?)`},
		{[]string{"help", "eval", "pair"}, `help: unknown topic "eval pair" (did you mean "eval pairs"?); want a subcommand of eval: corpus, edits or pairs`},
		{[]string{"help", "distance", "x"}, `help: unknown topic "distance x": neardup distance has no subcommands`},
	} {
		var out, errb bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &out, &errb)
		wantUsageError(t, errb.String(), code, tc.want)
		if out.Len() != 0 {
			t.Errorf("%v: stdout %q; want nothing", tc.args, out.String())
		}
	}
	for _, args := range [][]string{{"help"}, {"help", "eval", "pairs"}, {"help", "help"}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "Usage:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and the help", args, code, out.String(), errb.String())
		}
	}
}
