package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newDistanceCmd returns `neardup distance`.
func newDistanceCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "distance HEX HEX",
		Short: "Print the Hamming distance between two fingerprints",
		Long: `Distance prints the number of bit positions in which two fingerprints differ.
Both are hex (16, 32 or 64 digits, either case, optional 0x) of the same width;
different widths or bad hex are an error (exit status 2). For nilsimsa digests
the reference's score is 128 minus the distance.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := parseHex(args[0])
			if err != nil {
				return err
			}
			b, err := parseHex(args[1])
			if err != nil {
				return err
			}
			d, err := fingerprintDistance(a, b)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), d)
			return err
		},
	}
}
