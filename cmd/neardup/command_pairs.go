package main

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/decompress"
	"github.com/spf13/cobra"
)

// newPairsCmd returns `neardup pairs`: every pair of 64-bit fingerprints
// within a Hamming distance, from a list.
func newPairsCmd() *cobra.Command {
	var k int
	var layout string
	cmd := &cobra.Command{
		Use:   "pairs [FILE...]",
		Short: "Print every pair of fingerprints within distance K",
		Long: `Pairs reads 64-bit fingerprints, one a line, as HEX (the id is the 1-based
line number), ID<TAB>HEX, or HEX<TAB>ID as 'neardup fingerprint' writes them,
from the FILEs or standard input ("-", which can be given once), and prints
ID_A<TAB>ID_B<TAB>DISTANCE for every unordered pair within distance K, ID_A
being the one that comes first in the input, in input order of ID_A, then
of ID_B. Blank lines are skipped, so 'neardup fingerprint --lines F |
neardup pairs' works, and a byte order mark at the start of a file is
ignored. Several FILEs are read in order as one input, one after the
other: a HEX line's id is its line number in the whole input, and ids are
not told apart by the file they come from. A FILE (or standard input)
compressed with gzip, zstd, bzip2 or xz is read decompressed, the format told
from its first bytes.

Ids are read and written with the escapes 'neardup fingerprint' uses for
names: \\ for a backslash, \t for a tab, \n and \r for line breaks (a
backslash before anything else is kept as it is), so that every output
line has three fields and a name comes out as fingerprint wrote it, white
space at its ends included (white space around a fingerprint is no part of
it).

The lines with a tab all have one layout, HEX<TAB>ID or ID<TAB>HEX: the
first of them in which only one field is a 64-bit fingerprint says which
(a later line the other way round is an error). Where both fields are in
every line (ids of 16 hex digits), the first field is taken as the
fingerprint, as 'neardup fingerprint' writes it, with a warning; --layout
says which it is instead.

It sorts one permuted copy of the fingerprints per table of a multi-table
design and compares only entries whose keys agree, on all cores. Pairs are
sorted in memory up to 4 million at a time; beyond that, sorted runs go to
temporary files (in TMPDIR) and are merged, so memory stays bounded however
many pairs there are (12 bytes a pair on disk). Texts with the same
fingerprint make a pair for every two of them: n of them make n(n-1)/2
pairs at distance 0. Empty texts do so in every profile, which gives
them all one fingerprint (0 for default, ffffffffffffffff for classic and
go-mfonda, e9800998ecf8427e for py-simhash): n empty lines fingerprinted
with --lines make n(n-1)/2 pairs, so leave blank lines out first.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if k < 0 || k > 64 {
				return usagef("pairs: --k %d out of range 0..64", k)
			}
			var lay pairsLayout
			switch layout {
			case "auto":
			case "hex-id":
				lay = hexFirst
			case "id-hex":
				lay = idFirst
			default:
				return usagef("pairs: --layout %q: want auto, hex-id or id-hex", layout)
			}
			if len(args) == 0 {
				args = []string{"-"}
			}
			if n := countStdin(args); n > 1 {
				return usagef(`pairs: "-" is given %d times, but standard input can be read once; give it once`, n)
			}
			var lines []fpLine
			base := 0 // lines of the inputs read
			for _, name := range args {
				var n int
				var err error
				if name == "-" {
					lines, n, err = scanFingerprintLines(cmd.InOrStdin(), "standard input", base, lines)
				} else {
					f, oerr := os.Open(name)
					if oerr != nil {
						return usageError{fmt.Errorf("pairs: %w", oerr)}
					}
					lines, n, err = scanFingerprintLines(f, name, base, lines)
					f.Close()
				}
				if err != nil {
					return err
				}
				base += n
			}
			ids, es, err := parseFingerprintList(lines, inputsName(args), lay, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return writePairs(cmd.OutOrStdout(), ids, es, k)
		},
	}
	cmd.Flags().IntVar(&k, "k", 3, "largest Hamming distance of a pair (0..64)")
	cmd.Flags().StringVar(&layout, "layout", "auto", "lines with a tab: hex-id (HEX<TAB>ID, as 'neardup fingerprint' writes), id-hex (ID<TAB>HEX), or auto: whichever field is a fingerprint")
	return cmd
}

// pairsLayout says which field of a line with a tab is the fingerprint.
type pairsLayout int

const (
	layoutUnknown pairsLayout = iota
	hexFirst                  // HEX<TAB>ID
	idFirst                   // ID<TAB>HEX
)

// maxPairsLine is the longest input line pairs reads.
const maxPairsLine = 1 << 20

// fpLine is a non-blank line of the input of pairs, cut at its first tab.
// The fields are as written: the white space around a fingerprint is no
// part of it, but an id's is.
type fpLine struct {
	name   string // the input it is in ("standard input" for "-")
	n      int    // its number in that input, from 1
	id     int    // its number in the whole input (the inputs one after another)
	f1, f2 string
	tab    bool
}

// inputsName names the inputs of pairs in a message: a file, standard
// input, or the files joined by commas.
func inputsName(args []string) string {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = inputName(a)
	}
	return strings.Join(names, ", ")
}

// scanFingerprintLines appends the non-blank lines of r, the input name,
// to lines, and returns them and the number of lines r had (blank ones
// included). Lines are numbered within r (n) and, in the whole input, on
// from base, the number of lines of the inputs before (id). A UTF-8 byte
// order mark at the start of r is dropped, as dedup and cluster do.
func scanFingerprintLines(r io.Reader, name string, base int, lines []fpLine) ([]fpLine, int, error) {
	z, err := decompress.NewReader(r)
	if err != nil {
		return nil, 0, usagef("pairs: %s: %v", name, ioCause(err))
	}
	defer z.Close()
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 64<<10), maxPairsLine)
	n := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		if n == 1 {
			text = strings.TrimPrefix(text, utf8BOM)
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		f1, f2, tab := strings.Cut(text, "\t")
		lines = append(lines, fpLine{name, n, base + n, f1, f2, tab})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, 0, usagef("pairs: %s: line %d is longer than %d bytes", name, n+1, maxPairsLine)
		}
		return nil, 0, usagef("pairs: %s: %v", name, ioCause(err))
	}
	return lines, n, nil
}

// parseFingerprintList parses `HEX`, `ID<TAB>HEX` or `HEX<TAB>ID` lines
// (layout, when not layoutUnknown, says which of the last two) of the
// inputs named names; entry i has ID i (its place in the input) and
// ids[i] is its id as printed: read with tsvUnescape, written with
// tsvField, so that an id holding a tab is one field. A warning goes to warn when
// the layout had to be guessed.
func parseFingerprintList(lines []fpLine, names string, layout pairsLayout, warn io.Writer) ([]string, []index.Entry, error) {
	// The layout: the first line where one field only is a fingerprint.
	guessed := false
	if layout == layoutUnknown {
		for _, l := range lines {
			if !l.tab {
				continue
			}
			_, ok1 := parse64(l.f1)
			_, ok2 := parse64(l.f2)
			if ok1 != ok2 {
				layout = map[bool]pairsLayout{true: hexFirst, false: idFirst}[ok1]
				break
			}
		}
		if layout == layoutUnknown {
			layout, guessed = hexFirst, true
		}
	}
	ids := make([]string, 0, len(lines))
	es := make([]index.Entry, 0, len(lines))
	for _, l := range lines {
		id, hex := strconv.Itoa(l.id), l.f1
		switch {
		case l.tab && layout == hexFirst:
			id = tsvUnescape(l.f2)
		case l.tab:
			id, hex = tsvUnescape(l.f1), l.f2
		}
		hex = strings.TrimSpace(hex)
		fp, ok := parse64(hex)
		if !ok {
			if f, err := neardup.ParseFingerprint(hex); err == nil {
				return nil, nil, usagef("pairs: %s: line %d: %d-bit fingerprint; pairs handles 64-bit fingerprints", l.name, l.n, f.Bits())
			}
			if l.tab {
				return nil, nil, usagef("pairs: %s: line %d: %s is not a 64-bit hex fingerprint (the line's other field is not either, or earlier lines have it in the other field: see --layout)", l.name, l.n, quoteCut(hex))
			}
			return nil, nil, usagef("pairs: %s: line %d: %s is not a 64-bit hex fingerprint", l.name, l.n, quoteCut(hex))
		}
		ids = append(ids, tsvField(id))
		es = append(es, index.Entry{ID: uint64(len(es)), FP: fp})
	}
	if guessed && len(es) > 0 && lines[0].tab {
		fmt.Fprintf(warn, "neardup: pairs: %s: both fields of every line are fingerprints; taking the first as the fingerprint, as 'neardup fingerprint' writes it (--layout id-hex if it is the second)\n", names)
	}
	return ids, es, nil
}

// parse64 parses a 64-bit hex fingerprint, white space around it aside.
func parse64(s string) (uint64, bool) {
	f, err := neardup.ParseFingerprint(strings.TrimSpace(s))
	if err != nil || f.Bits() != 64 {
		return 0, false
	}
	return f.Uint64(), true
}

// quoteCut quotes s for a message, cut to its first 40 characters.
func quoteCut(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%.40q...", s)
}

// pair is a pair of entries (their places in the input) and their
// distance, a before b.
type pair struct{ a, b, d uint32 }

// cmp orders pairs by their first, then second, entry.
func (x pair) cmp(y pair) int { return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b)) }

// pairsRun is how many pairs writePairs sorts in memory before it moves
// them, sorted, to a temporary file: 48 MiB of them. The file is unlinked
// as soon as it is made (where the system allows), so a run cut short by
// a signal or a closed pipe leaves nothing behind.
var pairsRun = 1 << 22

// writePairs prints the pairs in input order of their first, then second,
// entry. Runs of pairsRun pairs are sorted and spilled to temporary files,
// which are merged at the end.
func writePairs(w io.Writer, ids []string, es []index.Entry, k int) error {
	var ps []pair
	var runs []*pairRun
	defer func() {
		for _, r := range runs {
			r.close()
		}
	}()
	var err error
	index.Pairs(es, k, func(a, b index.Entry, d int) {
		if err != nil {
			return
		}
		ps = append(ps, pair{uint32(a.ID), uint32(b.ID), uint32(d)})
		if len(ps) == pairsRun {
			var r *pairRun
			if r, err = spillPairs(ps); err == nil {
				runs = append(runs, r)
				ps = ps[:0]
			}
		}
	})
	if err != nil {
		return fmt.Errorf("pairs: %w", err)
	}
	slices.SortFunc(ps, pair.cmp)
	bw := bufio.NewWriterSize(w, 1<<16)
	var line []byte
	put := func(p pair) {
		line = append(line[:0], ids[p.a]...)
		line = append(line, '\t')
		line = append(line, ids[p.b]...)
		line = append(line, '\t')
		line = strconv.AppendUint(line, uint64(p.d), 10)
		line = append(line, '\n')
		bw.Write(line)
	}
	if len(runs) == 0 {
		for _, p := range ps {
			put(p)
		}
	} else if err := mergePairs(runs, ps, put); err != nil {
		return fmt.Errorf("pairs: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pairs: %w", err)
	}
	return nil
}

// pairRun is a sorted run of pairs in a temporary file.
type pairRun struct {
	f    *os.File
	r    *bufio.Reader
	name string // the file's name while it is still linked, else ""
}

// close closes the run's file and removes it if it is still linked.
func (r *pairRun) close() {
	r.f.Close()
	if r.name != "" {
		os.Remove(r.name)
	}
}

// spillPairs sorts ps and writes it to a new temporary file, 12 bytes a
// pair, read back from its start.
func spillPairs(ps []pair) (*pairRun, error) {
	slices.SortFunc(ps, pair.cmp)
	f, err := os.CreateTemp("", "neardup-pairs-*")
	if err != nil {
		return nil, fmt.Errorf("a temporary file for sorted pairs: %w", err)
	}
	r := &pairRun{f: f, name: f.Name()}
	if os.Remove(f.Name()) == nil {
		r.name = "" // the open file lives on, nameless, until closed
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	var b [12]byte
	for _, p := range ps {
		binary.LittleEndian.PutUint32(b[0:], p.a)
		binary.LittleEndian.PutUint32(b[4:], p.b)
		binary.LittleEndian.PutUint32(b[8:], p.d)
		bw.Write(b[:])
	}
	if err = bw.Flush(); err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		r.close()
		return nil, fmt.Errorf("writing sorted pairs to %s: %w", f.Name(), err)
	}
	r.r = bufio.NewReaderSize(f, 1<<16)
	return r, nil
}

// next reads the run's next pair; ok is false at its end.
func (r *pairRun) next() (p pair, ok bool, err error) {
	var b [12]byte
	if _, err := io.ReadFull(r.r, b[:]); err != nil {
		if err == io.EOF {
			return p, false, nil
		}
		return p, false, fmt.Errorf("reading sorted pairs back from %s: %w", r.f.Name(), err)
	}
	return pair{binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])}, true, nil
}

// mergePairs calls put for every pair of the runs and of last (sorted), in
// order.
func mergePairs(runs []*pairRun, last []pair, put func(pair)) error {
	// The next pair of each source, least first; source len(runs) is last.
	h := &pairHeap{}
	for i, r := range runs {
		p, ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			h.s = append(h.s, pairHead{p, i})
		}
	}
	li := 0
	if len(last) > 0 {
		h.s = append(h.s, pairHead{last[0], len(runs)})
		li = 1
	}
	heap.Init(h)
	for h.Len() > 0 {
		top := &h.s[0]
		put(top.p)
		ok := false
		if top.src == len(runs) {
			if ok = li < len(last); ok {
				top.p = last[li]
				li++
			}
		} else {
			var err error
			if top.p, ok, err = runs[top.src].next(); err != nil {
				return err
			}
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// pairHead is a source's next pair in mergePairs.
type pairHead struct {
	p   pair
	src int
}

// pairHeap orders the sources' next pairs, least first (container/heap).
type pairHeap struct{ s []pairHead }

func (h *pairHeap) Len() int           { return len(h.s) }
func (h *pairHeap) Less(i, j int) bool { return h.s[i].p.cmp(h.s[j].p) < 0 }
func (h *pairHeap) Swap(i, j int)      { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *pairHeap) Push(x any)         { h.s = append(h.s, x.(pairHead)) }
func (h *pairHeap) Pop() any {
	x := h.s[len(h.s)-1]
	h.s = h.s[:len(h.s)-1]
	return x
}
