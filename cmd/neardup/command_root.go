package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// groupCmd makes cmd, a command that only groups subcommands (bench, eval,
// idf), print its help when run alone and refuse anything else: cobra
// hands a parent that has no subcommand of that name the word as an
// argument, and a parent that cannot run would print its help and exit 0,
// so that a typo such as `bench indx` looked like success to a script.
func groupCmd(cmd *cobra.Command) *cobra.Command {
	cmd.Args = groupArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	return cmd
}

// groupArgs is the Args check of groupCmd: no arguments, or a usage error
// naming the first one, the subcommand it may be a typo of, and the
// subcommands there are.
func groupArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	path := cmd.Name()
	if cmd.HasParent() {
		path = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's default for the root
	}
	hint := ""
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		hint = fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	return usagef("%s: unknown subcommand %q%s; want %s", path, args[0], hint, orList(names))
}
