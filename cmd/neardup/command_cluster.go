package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"hash/maphash"
	bits64 "math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/analysis"
	"github.com/neardup/neardup/cluster"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/similarity"
)

// clusterLine is one line of `neardup cluster` output.
type clusterLine struct {
	Cluster        int      `json:"cluster"`
	Representative string   `json:"representative"`
	Members        []string `json:"members"`
}

// newClusterCmd returns `neardup cluster`.
func newClusterCmd() *cobra.Command {
	var in docInput
	var ef engineFlags
	var noVerify, strict bool
	cmd := &cobra.Command{
		Use:   "cluster [flags] [INPUT...]",
		Short: "Group near-duplicate documents",
		Long: `Cluster reads documents (the same inputs and flags as dedup) and writes one
JSON line per group of two or more near-duplicates:
  {"cluster": N, "representative": ID, "members": [ID, ...]}
The representative is the group's earliest document in input order, listed
first among the members; groups are numbered from 1 in the order of their
representatives. Documents in no group are not listed. As in dedup, an id
seen again with another text is a bad line (exit status 2, or skipped with
--on-error skip), and the same id with the same text again is the same
document, listed once.

Pairs are found with the multi-table index (all pairs within the default
policy's distance, and the wider short-text distance among short texts), then
each pair is verified by the policy's similarity test (--no-verify trusts the
distance alone) and joined by union-find. --strict also requires the two
representatives of groups about to merge to pass the test, so a chain of
texts each close to the next cannot join texts that are not alike; it needs
the test, so it conflicts with --no-verify. Empty texts are not clustered.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := in.validate(); err != nil {
				return err
			}
			if strict && noVerify {
				return usagef("--strict conflicts with --no-verify: --strict merges groups by the similarity test, which --no-verify turns off")
			}
			o, err := ef.options()
			if err != nil {
				return err
			}
			srcs, err := in.sources(args)
			if err != nil {
				return err
			}
			fp, err := neardup.NewFingerprinter(o.Fingerprint)
			if err != nil {
				return usageError{fmt.Errorf("cluster: %w", err)}
			}
			if fp.Bits() != 64 && fp.Bits() != 128 {
				return usagef("cluster: profile %q makes %d-bit fingerprints; cluster needs SimHash (64 or 128)", o.Fingerprint.Profile, fp.Bits())
			}
			var docs []neardup.Document
			bad := func(ie *inputError) error {
				if in.onError == "skip" {
					fmt.Fprintf(cmd.ErrOrStderr(), "neardup: cluster: skipped %s\n", ie)
					return nil
				}
				return usagef("cluster: %s (nothing written; --on-error skip passes over bad lines)", ie)
			}
			// As dedup (whose engine refuses it), an id seen again with
			// another text is a bad line; with the same text it is the
			// same document again, clustered once.
			seed := maphash.MakeSeed()
			texts := make(map[string]uint64)
			html := o.Fingerprint.ReadsHTML()
			var sc analysis.Scratch
			emit := func(r *record) error {
				if emptyText(&sc, r.doc.Text, html) {
					return nil
				}
				h := maphash.String(seed, r.doc.Text)
				if prev, ok := texts[r.doc.ID]; ok {
					if prev != h {
						return bad(&inputError{r.where, fmt.Errorf("id already seen with another text: %q", r.doc.ID)})
					}
					return nil
				}
				texts[r.doc.ID] = h
				docs = append(docs, r.doc)
				return nil
			}
			if err := in.read(cmd.InOrStdin(), srcs, emit, bad, nil); err != nil {
				return err
			}
			policy := o.Policy
			if o.K > 0 {
				policy.Long.MaxDistance = o.K
			}
			groups := clusterDocs(docs, fp, policy, !noVerify, strict, html)
			w := bufio.NewWriter(cmd.OutOrStdout())
			enc := json.NewEncoder(w)
			for i, g := range groups {
				line := clusterLine{Cluster: i + 1, Representative: docs[g.Representative].ID}
				for _, m := range g.Members {
					line.Members = append(line.Members, docs[m].ID)
				}
				if err := enc.Encode(line); err != nil {
					return err
				}
			}
			return w.Flush()
		},
	}
	in.addFlags(cmd)
	ef.addFlags(cmd)
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "join every pair within the distance, without the similarity test")
	cmd.Flags().BoolVar(&strict, "strict", false, "merge two groups only if their representatives also pass the similarity test")
	return cmd
}

// emptyText reports whether text has nothing to compare, as the engine
// decides it (neardup.ErrEmptyText): its normalized form (analysis.Normalize)
// is empty, as for white space, zero-width or other invisible characters
// alone. With html it is the visible text that is normalized.
func emptyText(sc *analysis.Scratch, text string, html bool) bool {
	b := []byte(text)
	if html {
		b = analysis.StripHTML(nil, b)
	}
	return sc.NormalizedLen(b) == 0
}

// clusterDocs fingerprints docs on all cores, finds the candidate pairs,
// verifies them with policy and groups them. With html the policy
// measures the visible text of each, as the pipeline reads it (--html).
func clusterDocs(docs []neardup.Document, fp neardup.Fingerprinter, policy neardup.Policy, verify, strict, html bool) []cluster.Group {
	n := len(docs)
	bits := fp.Bits()
	fps := make([]neardup.Fingerprint, n)
	hi := make([]uint64, n)    // the fingerprints, or their high halves at 128 bits
	lo := make([]uint64, n)    // their low halves at 128 bits
	texts := make([]string, n) // what the policy measures
	runes := make([]int, n)
	parallelDo(n, func(i int) {
		texts[i] = docs[i].Text
		if html {
			texts[i] = string(analysis.StripHTML(nil, []byte(docs[i].Text)))
		}
		runes[i] = utf8.RuneCountInString(texts[i])
		fps[i] = fp.Fingerprint([]byte(docs[i].Text))
		hi[i] = fps[i].Uint64()
		if bits == 128 {
			hi[i], lo[i] = fps[i].Uint128()
		}
	})
	scale := func(d int) int { return d * bits / 64 }
	// The engine's rule: short texts are under the policy's (normalized)
	// short length plus a quarter, before normalization. Their pairs are
	// found by a second pass at the short rule's distance, when it is the
	// wider, so the first pass leaves them out: no pair is found twice.
	shortPass := policy.Short.MaxDistance > policy.Long.MaxDistance
	isShort := func(i int) bool { return runes[i] < policy.ShortLength+policy.ShortLength/4 }
	var pairs []cluster.Pair
	// find adds the pairs of the items sel within bound bits of each other
	// that skip does not leave out. At 128 bits a pair within bound has a
	// half within bound/2 (the halves' distances sum to the whole's), so
	// each half is searched at that, the high first; a pair the low half
	// finds is the high half's if its high halves are within bound/2 too.
	find := func(sel []int, bound int, skip func(a, b int) bool) {
		es := make([]index.Entry, len(sel))
		for j, i := range sel {
			es[j] = index.Entry{ID: uint64(i), FP: hi[i]}
		}
		add := func(a, b index.Entry, _ int) {
			ia, ib := int(a.ID), int(b.ID)
			if skip != nil && skip(ia, ib) {
				return
			}
			d, _ := neardup.Distance(fps[ia], fps[ib])
			if d <= bound {
				pairs = append(pairs, cluster.Pair{A: ia, B: ib, Distance: d})
			}
		}
		if bits != 128 {
			index.Pairs(es, bound, add)
			return
		}
		half := bound / 2
		index.Pairs(es, half, add)
		for j, i := range sel {
			es[j] = index.Entry{ID: uint64(i), FP: lo[i]}
		}
		index.Pairs(es, half, func(a, b index.Entry, d int) {
			if bits64.OnesCount64(hi[a.ID]^hi[b.ID]) > half {
				add(a, b, d)
			}
		})
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	var bothShort func(a, b int) bool
	if shortPass {
		bothShort = func(a, b int) bool { return isShort(a) && isShort(b) }
	}
	find(all, scale(policy.Long.MaxDistance), bothShort)
	if shortPass {
		var short []int
		for i := range n {
			if isShort(i) {
				short = append(short, i)
			}
		}
		find(short, scale(policy.Short.MaxDistance), nil)
	}
	// The index finds pairs in no set order; with Strict, the order of
	// pairs at the same distance decides the groups, so fix it.
	slices.SortFunc(pairs, func(x, y cluster.Pair) int { return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B)) })
	if !verify {
		// Trust the distance alone, by each pair's length class.
		kept := pairs[:0]
		for _, p := range pairs {
			long := runes[p.A] >= policy.ShortLength || runes[p.B] >= policy.ShortLength
			if !long || p.Distance <= scale(policy.Long.MaxDistance) {
				kept = append(kept, p)
			}
		}
		return cluster.Build(n, kept, cluster.Options{})
	}
	sketches := make([]*similarity.Sketch, n)
	var once = make([]sync.Once, n)
	sketch := func(i int) *similarity.Sketch {
		once[i].Do(func() { sketches[i] = similarity.NewSketch([]byte(texts[i])) })
		return sketches[i]
	}
	ok := make([]bool, len(pairs))
	parallelDo(len(pairs), func(i int) {
		p := pairs[i]
		ok[i], _ = policy.Decide(sketch(p.A), sketch(p.B), p.Distance, bits)
	})
	kept := pairs[:0]
	for i, p := range pairs {
		if ok[i] {
			kept = append(kept, p)
		}
	}
	if !strict {
		return cluster.Build(n, kept, cluster.Options{})
	}
	// Strict: the representatives of the groups a pair would merge must
	// pass too (a pair kept passes again).
	return cluster.Build(n, kept, cluster.Options{
		Strict: true,
		Verify: func(a, b int) bool {
			d, _ := neardup.Distance(fps[a], fps[b])
			dup, _ := policy.Decide(sketch(a), sketch(b), d, bits)
			return dup
		},
	})
}

// parallelDo runs f(0..n-1) on all cores.
func parallelDo(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
