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
// Its flags are not parsed by cobra but by groupArgs, so that a typo
// followed by the flags of the subcommand meant (`eval pair --input x`)
// is reported as the unknown subcommand it is, not as an unknown flag.
func groupCmd(cmd *cobra.Command) *cobra.Command {
	cmd.DisableFlagParsing = true
	cmd.Args = groupArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	return cmd
}

// groupArgs is the Args check of groupCmd, which sees every argument, flags
// included: no arguments or -h/--help alone (the help), or a usage error.
// A word that is not a flag names an unknown subcommand: the error names
// it, the subcommand it may be a typo of and the subcommands there are.
// Of several words, the first that looks like a typo of a subcommand is
// named (in `eval --input x pair` that is pair, not x, the value of a
// flag), else the first. Flags alone are unknown, but for -h and --help.
func groupArgs(cmd *cobra.Command, args []string) error {
	var words []string
	help := false
	for i, a := range args {
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		switch {
		case a == "-" || !strings.HasPrefix(a, "-"):
			words = append(words, a)
		case a == "-h" || a == "--help" || a == "--help=true":
			help = true
		}
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
	if len(words) > 0 {
		word, hint := words[0], ""
		for _, w := range words {
			if s := cmd.SuggestionsFor(w); len(s) > 0 {
				word, hint = w, fmt.Sprintf(" (did you mean %q?)", s[0])
				break
			}
		}
		return usagef("%s: unknown subcommand %q%s; want %s", path, word, hint, orList(names))
	}
	if help {
		return nil
	}
	for _, a := range args {
		if a != "-h" && a != "--help" && a != "--help=true" {
			flag, _, _ := strings.Cut(a, "=")
			return usagef("%s: unknown flag %s: %s takes no flags but --help; want a subcommand: %s", path, flag, path, orList(names))
		}
	}
	return nil
}

// newHelpCmd returns `neardup help [COMMAND...]`, cobra's help command but
// for a topic that is not a command: that is a usage error of one line, as
// an unknown command is, where cobra prints the root's help and exits 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long: `Help provides help for any command in the application.
Simply type neardup help [path to command] for full details.`,
		RunE: func(c *cobra.Command, args []string) error {
			cur := c.Root()
			for i, a := range args {
				var next *cobra.Command
				for _, s := range cur.Commands() {
					if s.Name() == a || s.HasAlias(a) {
						next = s
						break
					}
				}
				if next == nil {
					return unknownHelpTopic(cur, args[:i], a)
				}
				cur = next
			}
			cur.InitDefaultHelpFlag()
			cur.InitDefaultVersionFlag()
			return cur.Help()
		},
	}
}

// unknownHelpTopic is the error of `neardup help` for word, which is no
// subcommand of parent (reached by the words before): it names the word,
// the command it may be a typo of, and the commands there are.
func unknownHelpTopic(parent *cobra.Command, before []string, word string) error {
	var names []string
	for _, c := range parent.Commands() {
		if c.IsAvailableCommand() || c.Name() == "help" {
			names = append(names, c.Name())
		}
	}
	topic := strings.Join(append(append([]string(nil), before...), word), " ")
	if parent.SuggestionsMinimumDistance <= 0 {
		parent.SuggestionsMinimumDistance = 2
	}
	hint := ""
	if s := parent.SuggestionsFor(word); len(s) > 0 {
		hint = fmt.Sprintf(" (did you mean %q?)", strings.Join(append(append([]string(nil), before...), s[0]), " "))
	}
	if len(names) == 0 {
		return usagef("help: unknown topic %q: %s has no subcommands", topic, parent.CommandPath())
	}
	where := "a command"
	if len(before) > 0 {
		where = "a subcommand of " + strings.Join(before, " ")
	}
	return usagef("help: unknown topic %q%s; want %s: %s", topic, hint, where, orList(names))
}
