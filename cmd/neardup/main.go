// Command neardup fingerprints texts, finds near-duplicates among them, and
// serves the near-duplicate engine over HTTP. Run `neardup help` for the list
// of subcommands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// usageError marks an error caused by the user's input (a bad flag, file or
// value); it makes neardup exit with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// newRootCmd builds the command tree. Each subcommand lives in its own file
// (command_<verb>.go) and is listed here.
func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "neardup",
		Short:         "Find near-duplicate texts with SimHash, nilsimsa and a multi-table Hamming index",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.SetHelpCommand(newHelpCmd())
	root.AddCommand(
		// subcommands: one constructor per line
		newIDFCmd(),
		newPairsCmd(),
		newBenchCmd(),
		newEvalCmd(),
		newServeCmd(),
		newFingerprintCmd(),
		newDistanceCmd(),
		newCompareCmd(),
		newDedupCmd(),
		newClusterCmd(),
		newMigrateCmd(),
		newExportCmd(),
	)
	return root
}

// run executes neardup with args and returns the process exit status:
// 0 on success, 2 for bad input or usage, 1 for other failures, or the
// status an error names (dedup interrupted by a signal: 128 + its number).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	// The library's errors name their package, once or, wrapped, again.
	msg := strings.ReplaceAll(strings.TrimPrefix(err.Error(), "neardup: "), ": neardup: ", ": ")
	fmt.Fprintf(stderr, "neardup: %s\n", msg)
	var es interface{ exitStatus() int } // an error that carries its own status
	if errors.As(err, &es) {
		return es.exitStatus()
	}
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return 2
	}
	return 1
}

// isCobraUsage reports whether err comes from cobra's own argument checks
// (unknown command, wrong number of arguments).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument", "flag needs an argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// main runs neardup with the process's arguments and exits with its status.
func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
