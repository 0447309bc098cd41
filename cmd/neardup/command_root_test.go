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
