package main

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/spf13/cobra"
)

// newPairsCmd returns `neardup pairs`: every pair of 64-bit fingerprints
// within a Hamming distance, from a list.
func newPairsCmd() *cobra.Command {
	var k int
	cmd := &cobra.Command{
		Use:   "pairs [FILE]",
		Short: "Print every pair of fingerprints within distance K",
		Long: `Pairs reads 64-bit fingerprints, one a line, as HEX (the id is the 1-based
line number) or ID<TAB>HEX, from FILE or standard input, and prints
ID_A<TAB>ID_B<TAB>DISTANCE for every unordered pair within distance K, ID_A
being the one that comes first in the input. Blank lines are skipped. The
output of 'neardup fingerprint' (HEX<TAB>NAME) is read too: a line whose
second field is not a fingerprint but whose first is, is taken as HEX<TAB>ID,
so 'neardup fingerprint --lines F | neardup pairs' works. It
sorts one permuted copy of the fingerprints per table of a multi-table
design and compares only entries whose keys agree, on all cores.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if k < 0 || k > 64 {
				return usagef("pairs: --k %d out of range 0..64", k)
			}
			in := cmd.InOrStdin()
			name := "standard input"
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return usageError{fmt.Errorf("pairs: %w", err)}
				}
				defer f.Close()
				in, name = f, args[0]
			}
			ids, es, err := readFingerprintList(in, name)
			if err != nil {
				return err
			}
			return writePairs(cmd.OutOrStdout(), ids, es, k)
		},
	}
	cmd.Flags().IntVar(&k, "k", 3, "largest Hamming distance of a pair (0..64)")
	return cmd
}

// readFingerprintList parses `HEX` or `ID<TAB>HEX` lines; entry i has
// ID i (its place in the input) and ids[i] is its printed id.
func readFingerprintList(r io.Reader, name string) ([]string, []index.Entry, error) {
	var ids []string
	var es []index.Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		id, hex, ok := strings.Cut(text, "\t")
		if !ok {
			id, hex = fmt.Sprint(line), text
		}
		fp, err := neardup.ParseFingerprint(strings.TrimSpace(hex))
		if err != nil && ok {
			// neardup fingerprint's own output: HEX<TAB>NAME.
			if fp2, err2 := neardup.ParseFingerprint(strings.TrimSpace(id)); err2 == nil {
				fp, err, id, hex = fp2, nil, hex, id
			}
		}
		if err != nil {
			return nil, nil, usagef("pairs: %s: line %d: %q is not a hex fingerprint", name, line, hex)
		}
		if fp.Bits() != 64 {
			return nil, nil, usagef("pairs: %s: line %d: %d-bit fingerprint; pairs handles 64-bit fingerprints", name, line, fp.Bits())
		}
		ids = append(ids, id)
		es = append(es, index.Entry{ID: uint64(len(es)), FP: fp.Uint64()})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, usagef("pairs: %s: %w", name, err)
	}
	return ids, es, nil
}

// writePairs prints the pairs in input order of their first, then second,
// entry.
func writePairs(w io.Writer, ids []string, es []index.Entry, k int) error {
	type pair struct{ a, b, d uint32 }
	var ps []pair
	index.Pairs(es, k, func(a, b index.Entry, d int) {
		ps = append(ps, pair{uint32(a.ID), uint32(b.ID), uint32(d)})
	})
	slices.SortFunc(ps, func(x, y pair) int {
		return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b))
	})
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, p := range ps {
		fmt.Fprintf(bw, "%s\t%s\t%d\n", ids[p.a], ids[p.b], p.d)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pairs: %w", err)
	}
	return nil
}
