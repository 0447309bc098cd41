package main

import "github.com/spf13/cobra"

// newBenchCmd returns `neardup bench`, the parent of the benchmarks of
// neardup's parts; each part adds its benchmark as a subcommand here.
func newBenchCmd() *cobra.Command {
	cmd := groupCmd(&cobra.Command{
		Use:   "bench",
		Short: "Measure the speed and memory of neardup's parts",
	})
	cmd.AddCommand(
		// benchmarks: one constructor per line
		newBenchIndexCmd(),
		newBenchEngineCmd(),
		newBenchServeCmd(),
	)
	return cmd
}
