package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"runtime"
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
	entries := make([]index.Entry, n)
	texts := make([]string, n) // what the policy measures
	parallelDo(n, func(i int) {
		texts[i] = docs[i].Text
		if html {
			texts[i] = string(analysis.StripHTML(nil, []byte(docs[i].Text)))
		}
		fps[i] = fp.Fingerprint([]byte(docs[i].Text))
		v := fps[i].Uint64()
		if bits == 128 {
			v, _ = fps[i].Uint128() // the index holds the high half
		}
		entries[i] = index.Entry{ID: uint64(i), FP: v}
	})
	scale := func(d int) int { return d * bits / 64 }
	type pairKey struct{ a, b int }
	seen := make(map[pairKey]bool)
	var pairs []cluster.Pair
	add := func(a, b index.Entry, _ int) {
		k := pairKey{int(a.ID), int(b.ID)}
		if k.a > k.b {
			k.a, k.b = k.b, k.a
		}
		if seen[k] {
			return
		}
		seen[k] = true
		d, _ := neardup.Distance(fps[k.a], fps[k.b])
		pairs = append(pairs, cluster.Pair{A: k.a, B: k.b, Distance: d})
	}
	index.Pairs(entries, scale(policy.Long.MaxDistance), add)
	if policy.Short.MaxDistance > policy.Long.MaxDistance {
		var short []index.Entry
		for i, e := range entries {
			// The engine's rule: short texts are under the policy's
			// (normalized) short length plus a quarter, before
			// normalization.
			if utf8.RuneCountInString(texts[i]) < policy.ShortLength+policy.ShortLength/4 {
				short = append(short, e)
			}
		}
		index.Pairs(short, scale(policy.Short.MaxDistance), add)
	}
	if !verify {
		// Trust the distance alone, by each pair's length class.
		kept := pairs[:0]
		for _, p := range pairs {
			long := utf8.RuneCountInString(texts[p.A]) >= policy.ShortLength || utf8.RuneCountInString(texts[p.B]) >= policy.ShortLength
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
	verified := make(map[pairKey]bool, len(pairs))
	for i, p := range pairs {
		verified[pairKey{p.A, p.B}] = ok[i]
	}
	return cluster.Build(n, pairs, cluster.Options{
		Strict: strict,
		Verify: func(a, b int) bool {
			if a > b {
				a, b = b, a
			}
			if v, found := verified[pairKey{a, b}]; found {
				return v
			}
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
