package main

import (
	"bufio"
	"cmp"
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
	var most int
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
document, listed once. A run that ends well says on standard error how many
documents it clustered (those it read, less the empty texts and the same
documents again) and how many groups hold how many of them.

Pairs are found with the multi-table index (all pairs within the default
policy's distance, the wider short-text distance among short texts, and the
tiny-text distance among texts of a few words), then each pair is verified
by the policy's similarity test (--no-verify trusts the distance alone) and
joined by union-find. --strict also requires the two representatives of
groups about to merge to pass the test, so a chain of texts each close to
the next cannot join texts that are not alike; it needs the test, so it
conflicts with --no-verify. Empty texts are not clustered.

Each document is compared with its 64 nearest candidates (--max-candidates;
nearest by distance, then input order; at --bits 128 the nearest by each
half), as dedup does: texts that share a long header or footer (a
newsletter's, a mail signature) can put thousands of unrelated texts within
the distance of each one, and testing every such pair grows with the square
of their number (40,000 lines with one 200-character footer took more than
five minutes, 10 s with 64). --max-candidates 0 tests every candidate pair
not already joined, for groups that are exactly the connected components of
the pairs that pass; with 64 each group lies within one of those, and on the
corpora tried (SpamAssassin, the fortunes, Brown) they were the same. --strict
merges groups closest pair first, which needs every pair: it searches them
all, and giving it --max-candidates too is an error.

Cluster holds every document in memory. What the test needs of each text
(its normalized runes and character grams, about 24 bytes a byte of text) is
kept for the texts in many pairs within a quarter of --memory-limit (1 GiB
when it is off) and made again for each pair beyond it, so that long texts
do not take many times the input's size.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := in.validate(); err != nil {
				return err
			}
			if strict && noVerify {
				return usagef("--strict conflicts with --no-verify: --strict merges groups by the similarity test, which --no-verify turns off")
			}
			if most < 0 {
				return usagef("cluster: --max-candidates %d: want 0 (every candidate) or more", most)
			}
			if strict && most > 0 {
				if cmd.Flags().Changed("max-candidates") {
					return usagef("--strict conflicts with --max-candidates: --strict merges groups closest pair first, which needs every pair")
				}
				most = 0 // --strict searches every pair
			}
			if ef.k < 0 || ef.k > 32 {
				return usagef("cluster: --k %d: want 0 to 32 bits per 64 (0: the policy's default, %d)", ef.k, neardup.DefaultPolicy().Long.MaxDistance)
			}
			o, err := ef.options()
			if err != nil {
				return err
			}
			srcs, err := in.sources(args)
			if err != nil {
				return err
			}
			for _, n := range in.notes {
				fmt.Fprintf(cmd.ErrOrStderr(), "neardup: cluster: %s\n", n)
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
			cfg := o.Fingerprint
			var sc analysis.Scratch
			emit := func(r *record) error {
				if emptyText(&sc, r.doc.Text, cfg) {
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
			groups := clusterDocs(docs, fp, cfg, policy, !noVerify, strict, most)
			w := bufio.NewWriter(cmd.OutOrStdout())
			enc := newJSONEncoder(w)
			grouped := 0
			for i, g := range groups {
				line := clusterLine{Cluster: i + 1, Representative: docs[g.Representative].ID}
				for _, m := range g.Members {
					line.Members = append(line.Members, docs[m].ID)
				}
				grouped += len(g.Members)
				if err := enc.Encode(line); err != nil {
					return fmt.Errorf("cluster: writing output: %w", err)
				}
			}
			if err := w.Flush(); err != nil {
				return fmt.Errorf("cluster: writing output: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "neardup: cluster: %s, %s of near-duplicates holding %d of them\n", plural(len(docs), "document"), plural(len(groups), "group"), grouped)
			return nil
		},
	}
	in.addFlags(cmd)
	ef.addFlags(cmd)
	cmd.Flags().BoolVar(&noVerify, "no-verify", false, "join every pair within the distance, without the similarity test")
	cmd.Flags().BoolVar(&strict, "strict", false, "merge two groups only if their representatives also pass the similarity test")
	cmd.Flags().IntVar(&most, "max-candidates", 64, "compare each document with at most its N nearest candidates (0: every candidate pair, exact groups; --strict takes every pair)")
	return cmd
}

// emptyText reports whether text has nothing to compare, as the engine
// decides it (neardup.ErrEmptyText): its normalized form (analysis.Normalize)
// is empty, as for white space, zero-width or other invisible characters
// alone. It is the text the policy measures (Config.Measured: the visible
// text of HTML, say) that is normalized.
func emptyText(sc *analysis.Scratch, text string, cfg neardup.Config) bool {
	return sc.NormalizedLen(cfg.Measured([]byte(text))) == 0
}

// clusterDocs fingerprints docs on all cores, finds the candidate pairs,
// verifies them with policy and groups them. The policy measures the
// text of each as fp, made with cfg, reads it (Config.Measured: the
// visible text with --html, the main text with --main-text, without
// accents with --fold-accents).
// With most > 0 (not with strict) the candidates of each document are its
// most nearest ones only (clusterNearest).
//
// The groups are as if every candidate pair were verified and the ones
// that pass joined in the order cluster.Build takes them, but no pair is
// kept beyond a bounded buffer: without strict, the groups are the
// connected components of the pairs that pass, so a pair whose documents
// are already joined needs no test (clusterJoiner); with strict, the pairs
// are taken in Build's order, closest first, from repeated searches that
// each keep the next clusterStrictBuffer pairs not already joined.
func clusterDocs(docs []neardup.Document, fp neardup.Fingerprinter, cfg neardup.Config, policy neardup.Policy, verify, strict bool, most int) []cluster.Group {
	n := len(docs)
	bits := fp.Bits()
	fps := make([]neardup.Fingerprint, n)
	hi := make([]uint64, n)    // the fingerprints, or their high halves at 128 bits
	lo := make([]uint64, n)    // their low halves at 128 bits
	texts := make([]string, n) // what the policy measures
	runes := make([]int, n)
	parallelDo(n, func(i int) {
		texts[i] = docs[i].Text
		if m := cfg.Measured([]byte(docs[i].Text)); string(m) != docs[i].Text {
			texts[i] = string(m)
		}
		runes[i] = utf8.RuneCountInString(texts[i])
		// A longer text that punctuation and symbols make short, as the
		// rules count it, is short, as the engine takes it (up to five
		// ShortCaps of runes).
		if c := policy.ShortCap(); runes[i] >= c+c/4 && runes[i] < 5*c {
			if n := similarity.LenUnder([]byte(texts[i]), c, nil); n < c {
				runes[i] = n
			}
		}
		fps[i] = fp.Fingerprint([]byte(docs[i].Text))
		hi[i] = fps[i].Uint64()
		if bits == 128 {
			hi[i], lo[i] = fps[i].Uint128()
		}
	})
	scale := func(d int) int { return d * bits / 64 }
	// The engine's rule: short texts are under the policy's ShortCap (a
	// pair's longer text under it may be judged by the short rule) plus a
	// quarter, before normalization, or under ShortCap as the rules count
	// them (runes, above). Their pairs are
	// found by a second pass at the short rule's distance, when it is the
	// wider, so the first pass leaves them out: no pair is found twice.
	// Tiny texts, counted the same way, have a third pass of their own
	// at the tiny rule's distance when it is wider still, which the
	// passes before leave them out of.
	shortPass := policy.Short.MaxDistance > policy.Long.MaxDistance
	tinyPass := policy.TinyLength > 0 && policy.Tiny.MaxDistance > policy.Long.MaxDistance &&
		(!shortPass || policy.Tiny.MaxDistance > policy.Short.MaxDistance)
	shortCap, tinyCap := policy.ShortCap(), policy.TinyCap()
	isShort := func(i int) bool { return runes[i] < shortCap+shortCap/4 }
	isTiny := func(i int) bool { return runes[i] < tinyCap+tinyCap/4 }
	u := cluster.New(n)
	// find calls emit for the pairs of the items sel within bound bits of
	// each other that alone does not leave out, the earlier item first. At
	// 128 bits a pair within bound has a half within bound/2 (the halves'
	// distances sum to the whole's), so each half is searched at that, the
	// high first; a pair the low half finds is the high half's if its high
	// halves are within bound/2 too. With join, the pairs of crowded runs
	// go to join.test instead (see index.Joiner), which joins them in u
	// if they pass: only for groups that are u's connected components.
	// alone, if set, names the items that pair only with items it does not
	// name (the short texts of the first pass).
	find := func(sel []int, bound int, alone func(i int) bool, emit func(c clusterPair), join *clusterRuns) {
		es := make([]index.Entry, len(sel))
		for j, i := range sel {
			es[j] = index.Entry{ID: uint64(i), FP: hi[i]}
		}
		found := 0
		defer func() { clusterCandidates.Add(int64(found)) }()
		// pair returns the pair of a and b if it is one to find.
		pair := func(a, b index.Entry) (clusterPair, bool) {
			ia, ib := int(min(a.ID, b.ID)), int(max(a.ID, b.ID))
			if alone != nil && alone(ia) && alone(ib) {
				return clusterPair{}, false
			}
			d, _ := neardup.Distance(fps[ia], fps[ib])
			if d > bound {
				return clusterPair{}, false
			}
			found++
			return clusterPair{A: int32(ia), B: int32(ib), D: int32(d)}, true
		}
		// search finds the pairs within k of es that keep (if set)
		// does not leave out.
		search := func(k int, keep func(a, b index.Entry) bool) {
			add := func(a, b index.Entry, _ int) {
				if keep != nil && !keep(a, b) {
					return
				}
				if p, ok := pair(a, b); ok {
					emit(p)
				}
			}
			if join == nil {
				index.Pairs(es, k, add)
				return
			}
			var lone func(e index.Entry) bool
			if alone != nil {
				lone = func(e index.Entry) bool { return alone(int(e.ID)) }
			}
			index.PairsJoin(es, k, add, index.Joiner{
				MinRun: clusterMinRun,
				Alone:  lone,
				Find:   func(e index.Entry) int { return u.Find(int(e.ID)) },
				Join: func(a, b index.Entry, _ int) bool {
					if keep != nil && !keep(a, b) {
						return false
					}
					p, ok := pair(a, b)
					return ok && join.test(p)
				},
				Settle: join.settle,
			})
		}
		if bits != 128 {
			search(bound, nil)
			return
		}
		half := bound / 2
		search(half, nil)
		for j, i := range sel {
			es[j] = index.Entry{ID: uint64(i), FP: lo[i]}
		}
		search(half, func(a, b index.Entry) bool {
			return bits64.OnesCount64(hi[a.ID]^hi[b.ID]) > half
		})
	}
	sketch := newSketchCache(texts, sketchBudget()).get
	// The documents searched: all of them, or without strict the first of
	// each text only (see clusterCopies).
	all := make([]int, 0, n)
	if strict {
		for i := range n {
			all = append(all, i)
		}
	} else {
		all = clusterCopies(docs, u, func(i int) bool {
			if !verify {
				return true // distance 0 joins any two texts
			}
			dup, _ := policy.Decide(sketch(i), sketch(i), 0, bits)
			return dup
		})
	}
	var firstAlone, shortAlone func(i int) bool
	var short, tiny []int
	if shortPass {
		firstAlone = isShort
		for _, i := range all {
			if isShort(i) {
				short = append(short, i)
			}
		}
	}
	if tinyPass {
		if shortPass {
			shortAlone = isTiny
		} else {
			firstAlone = isTiny
		}
		for _, i := range all {
			if isTiny(i) {
				tiny = append(tiny, i)
			}
		}
	}
	// candidates calls emit once for every candidate pair, in no set
	// order, from the calling goroutine; with join, the pairs of crowded
	// runs go to join instead.
	candidates := func(emit func(c clusterPair), join *clusterRuns) {
		if verify {
			clusterKeyPairs(all, isTiny, sketch, fps, policy, scale(policy.Tiny.MaxDistance), emit)
		}
		if most > 0 && !strict {
			halves := [][]uint64{hi}
			if bits == 128 {
				halves = append(halves, lo)
			}
			near := func(sel []int, bound int, alone func(i int) bool) {
				clusterNearest(sel, halves, fps, bound, alone, most, emit)
			}
			near(all, scale(policy.Long.MaxDistance), firstAlone)
			if shortPass {
				near(short, scale(policy.Short.MaxDistance), shortAlone)
			}
			if tinyPass {
				near(tiny, scale(policy.Tiny.MaxDistance), nil)
			}
			return
		}
		find(all, scale(policy.Long.MaxDistance), firstAlone, emit, join)
		if shortPass {
			find(short, scale(policy.Short.MaxDistance), shortAlone, emit, join)
		}
		if tinyPass {
			find(tiny, scale(policy.Tiny.MaxDistance), nil, emit, join)
		}
	}
	if !verify {
		// Trust the distance alone, by the rule of each pair's length
		// class (as Policy.Verify does for texts it cannot compare).
		joins := func(p clusterPair) bool {
			r, _ := policy.RuleFor(runes[p.A], runes[p.B])
			return int(p.D) <= scale(r.MaxDistance)
		}
		candidates(func(p clusterPair) {
			if joins(p) {
				u.Union(int(p.A), int(p.B))
			}
		}, &clusterRuns{test: func(p clusterPair) bool {
			return joins(p) && u.Union(int(p.A), int(p.B))
		}})
		return u.Groups(2)
	}
	// test reports, for each pair, whether it passes the policy's test,
	// on all cores.
	var ok []bool
	test := func(ps []clusterPair) []bool {
		ok = slices.Grow(ok[:0], len(ps))[:len(ps)]
		clusterVerified.Add(int64(len(ps)))
		parallelDo(len(ps), func(i int) {
			p := ps[i]
			ok[i], _ = policy.Decide(sketch(int(p.A)), sketch(int(p.B)), int(p.D), bits)
		})
		return ok
	}
	if !strict {
		j := clusterJoiner{u: u, test: test, links: make(map[int32]int32)}
		candidates(j.add, &clusterRuns{
			test: func(p clusterPair) bool {
				clusterVerified.Add(1)
				ok, _ := policy.Decide(sketch(int(p.A)), sketch(int(p.B)), int(p.D), bits)
				return ok && u.Union(int(p.A), int(p.B))
			},
			settle: j.finish,
		})
		j.finish()
		return u.Groups(2)
	}
	// Strict: the representatives of the groups a pair would merge must
	// pass too.
	every := func(emit func(clusterPair)) { candidates(emit, nil) }
	return clusterStrict(u, every, test, func(a, b int) bool {
		d, _ := neardup.Distance(fps[a], fps[b])
		dup, _ := policy.Decide(sketch(a), sketch(b), d, bits)
		return dup
	})
}

// clusterNearest emits the candidate pairs of the items sel when each is
// compared with its most nearest others within bound bits (of the whole
// fingerprints fps) that alone does not leave out (two items it names are
// no pair): nearest by distance, then by item. halves holds the 64-bit
// fingerprints of every item, or their high and low halves at 128 bits,
// each searched at half the bound (a pair within it has a half within
// half of it) for its most nearest by that half; the whole distance then
// picks the most nearest of both. A pair that both its items find is
// emitted once, the earlier item first. Queries go clusterNearestChunk at
// a time, and each item keeps only the items it found, so memory stays
// about 4 bytes a candidate whatever most is.
func clusterNearest(sel []int, halves [][]uint64, fps []neardup.Fingerprint, bound int, alone func(i int) bool, most int, emit func(clusterPair)) {
	k := bound / len(halves)
	ixs := make([]*index.Index, len(halves))
	for h, fp := range halves {
		// As the engine's short-text index: tables of 3 bits, probed
		// wider (multi-index hashing) for a larger k.
		ix, err := index.New(index.Options{K: min(k, 3), Wide: k > 3, ExpectedN: len(sel)})
		if err != nil {
			panic(err) // a fixed, valid design
		}
		es := make([]index.Entry, len(sel))
		for j, i := range sel {
			es[j] = index.Entry{ID: uint64(i), FP: fp[i]}
		}
		ix.AddBatch(es)
		ixs[h] = ix
	}
	found := make([][]int32, len(sel)) // the items each found, nearest first
	var ps []clusterPair
	for lo := 0; lo < len(sel); lo += clusterNearestChunk {
		chunk := sel[lo:min(len(sel), lo+clusterNearestChunk)]
		keep := func(q int, m index.Match) bool {
			i, j := chunk[q], int(m.ID)
			return i != j && !(alone != nil && alone(i) && alone(j))
		}
		qs := make([]uint64, len(chunk))
		near := make([][]clusterPair, len(chunk))
		for h, ix := range ixs {
			for q, i := range chunk {
				qs[q] = halves[h][i]
			}
			for q, ms := range ix.QueryBatchNearest(qs, k, most, keep) {
				i := chunk[q]
				for _, m := range ms {
					j := int(m.ID)
					if d, _ := neardup.Distance(fps[i], fps[j]); d <= bound {
						near[q] = append(near[q], clusterPair{A: int32(i), B: int32(j), D: int32(d)})
					}
				}
			}
		}
		for q := range chunk {
			// The most nearest of what the halves found, each once.
			ps = append(ps[:0], near[q]...)
			slices.SortFunc(ps, func(x, y clusterPair) int {
				return cmp.Or(cmp.Compare(x.D, y.D), cmp.Compare(x.B, y.B))
			})
			ps = slices.Compact(ps)
			for _, p := range ps[:min(len(ps), most)] {
				found[lo+q] = append(found[lo+q], p.B)
			}
		}
	}
	at := make([]int32, len(fps)) // item -> its place in sel
	for q, i := range sel {
		at[i] = int32(q)
	}
	for q, js := range found {
		i := int32(sel[q])
		for _, j := range js {
			// A pair the later item found is emitted by it only if the
			// earlier one did not find it.
			if j < i && slices.Contains(found[at[j]], i) {
				continue
			}
			d, _ := neardup.Distance(fps[i], fps[j])
			clusterCandidates.Add(1)
			emit(clusterPair{A: min(i, j), B: max(i, j), D: int32(d)})
		}
	}
}

// clusterNearestChunk is the number of queries clusterNearest sends to
// the index at a time.
const clusterNearestChunk = 4096

// clusterCopies joins in u every document of docs whose text is an
// earlier one's, byte for byte, to that earlier one, and returns the
// documents left to search: the first of each text, in order. A copy has
// the first's fingerprint, length and sketch, so every pair it makes is
// decided as the first's pair with the same other document is, and
// joining the copies at once leaves the groups as they would be. Without
// it a page repeated n times (an error page of a crawled site) made
// n²/2 candidate pairs to search and skip. A text that selfJoins says does
// not pass the test with itself (a policy no text passes) is searched
// whole, every copy of it.
//
// Under --strict the order in which groups merge decides them, so strict
// searches every document (clusterDocs).
func clusterCopies(docs []neardup.Document, u *cluster.UnionFind, selfJoins func(i int) bool) []int {
	first := make(map[string]int, len(docs))
	copies := make([]int, len(docs)) // -1, or the first document of the text
	for i, d := range docs {
		copies[i] = -1
		if f, ok := first[d.Text]; ok {
			copies[i] = f
		} else {
			first[d.Text] = i
		}
	}
	joins := make(map[int]bool) // by first document, for texts with copies
	search := make([]int, 0, len(first))
	for i, f := range copies {
		if f < 0 {
			search = append(search, i)
			continue
		}
		ok, seen := joins[f]
		if !seen {
			ok = selfJoins(f)
			joins[f] = ok
		}
		if ok {
			u.Union(f, i)
		} else {
			search = append(search, i)
		}
	}
	return search
}

// clusterStrict groups the items of u (singletons) by the candidate pairs
// as cluster.Build with Strict does, test telling which pairs pass and
// repsPass whether two representatives do. This is Build over the pairs
// that pass, taken closest first, then by their items (Build's order over
// the pairs sorted so), with no more than clusterStrictBuffer of them at a
// time: each search keeps the first of the pairs after the last one taken
// whose items are not joined yet (those that are would be skipped: groups
// only grow), then takes them in order.
func clusterStrict(u *cluster.UnionFind, candidates func(emit func(clusterPair)), test func([]clusterPair) []bool, repsPass func(a, b int) bool) []cluster.Group {
	n := u.Len()
	// needReps reports whether Build tests the representatives ra and rb
	// of p's items, skip whether it skips p without the test of p (as a
	// test has no side effects, it makes no difference which of the two
	// tests Build gives first).
	needReps := func(p clusterPair, ra, rb int) bool {
		a, b := int(p.A), int(p.B)
		return (ra != a || rb != b) && !(ra == b && rb == a)
	}
	repsFail := make(map[[2]int32]bool) // representatives that failed the test
	skip := func(p clusterPair) bool {
		ra, rb := u.Find(int(p.A)), u.Find(int(p.B))
		return ra == rb || needReps(p, ra, rb) && repsFail[[2]int32{int32(ra), int32(rb)}]
	}
	size := max(clusterStrictBuffer, 1)
	buf := make([]clusterPair, 0, 2*size)
	var batch, toTest []clusterPair // the pairs to take, those to test
	var known, ok []bool            // whether each is tested, their results
	var last clusterPair            // the last pair taken, when started
	started := false
	// A search also leaves out the pairs it would skip for their
	// representatives, and marks those representatives: while they stay
	// representatives, the pairs are skipped still when their turn comes.
	// When one stops being one, the pairs after are searched again. After
	// clusterStrictRestarts such searches, searches leave them out no more.
	guard := make([]bool, n)
	restarts := 0
	for {
		buf = buf[:0]
		full := false
		var limit clusterPair // with full, buf holds size pairs before it
		keep := func() {
			slices.SortFunc(buf, clusterPair.compare)
			buf = buf[:min(len(buf), size)]
			if len(buf) == size {
				full = true
				limit = buf[size-1]
			}
		}
		guarding := restarts < clusterStrictRestarts
		clear(guard)
		candidates(func(p clusterPair) {
			if started && p.compare(last) <= 0 || full && p.compare(limit) >= 0 {
				return
			}
			ra, rb := u.Find(int(p.A)), u.Find(int(p.B))
			if ra == rb {
				return
			}
			if guarding && needReps(p, ra, rb) && repsFail[[2]int32{int32(ra), int32(rb)}] {
				guard[ra], guard[rb] = true, true
				return
			}
			buf = append(buf, p)
			if len(buf) == cap(buf) {
				keep()
			}
		})
		keep()
		if len(buf) == 0 {
			break
		}
		// Test the next pairs not skipped yet on all cores, then take them
		// in order. A pair whose groups' representatives are known to fail
		// the test needs no test of its own, unless a pair before it
		// changes them.
		stop := -1 // the pair after which the pairs are searched again
	take:
		for i := 0; i < len(buf); {
			batch, toTest, known = batch[:0], toTest[:0], known[:0]
			for ; i < len(buf) && len(toTest) < clusterStrictBatch; i++ {
				p := buf[i]
				ra, rb := u.Find(int(p.A)), u.Find(int(p.B))
				if ra == rb {
					continue
				}
				k := !(needReps(p, ra, rb) && repsFail[[2]int32{int32(ra), int32(rb)}])
				batch, known = append(batch, p), append(known, k)
				if k {
					toTest = append(toTest, p)
				}
			}
			ok = append(ok[:0], test(toTest)...)
			t := 0
			for k, p := range batch {
				var pass bool
				if known[k] {
					pass = ok[t]
					t++
				}
				if skip(p) {
					continue
				}
				if !known[k] {
					pass = test([]clusterPair{p})[0]
				}
				if !pass {
					continue
				}
				ra, rb := u.Find(int(p.A)), u.Find(int(p.B))
				if needReps(p, ra, rb) && !repsPass(ra, rb) {
					if len(repsFail) >= clusterStrictBuffer {
						clear(repsFail)
					}
					repsFail[[2]int32{int32(ra), int32(rb)}] = true
					continue
				}
				u.Union(ra, rb)
				if guard[max(ra, rb)] {
					stop = slices.Index(buf, p)
					break take
				}
			}
		}
		if stop >= 0 {
			restarts++
			last, started = buf[stop], true
			continue
		}
		if !full {
			break
		}
		last, started = buf[len(buf)-1], true
	}
	return u.Groups(2)
}

// clusterPair is a candidate pair of documents, A < B, at Hamming
// distance D.
type clusterPair struct{ A, B, D int32 }

// compare orders pairs as cluster.Build takes them from pairs sorted by
// their items: closest first, then by A, then by B.
func (p clusterPair) compare(q clusterPair) int {
	switch {
	case p.D != q.D:
		return cmp.Compare(p.D, q.D)
	case p.A != q.A:
		return cmp.Compare(p.A, q.A)
	}
	return cmp.Compare(p.B, q.B)
}

// The buffers of clusterDocs, in pairs; variables so that tests can
// make them small.
var (
	clusterChunk        = 1 << 13 // pairs tested at a time without --strict
	clusterDeferred     = 1 << 16 // pairs held back until the chunk's are tested
	clusterStrictBuffer = 1 << 20 // pairs kept by each search with --strict
	clusterStrictBatch  = 1 << 10 // pairs tested at a time with --strict
	// searches with --strict that may end early; see clusterStrict
	clusterStrictRestarts = 8
)

// clusterRuns joins the pairs of crowded runs of candidates (see
// index.Joiner): test tests a pair and joins it if it passes, reporting
// whether it did; settle, if set, first tests and joins the candidates
// found before.
type clusterRuns struct {
	test   func(clusterPair) bool
	settle func()
}

// clusterMinRun is the smallest run of entries sharing a table's key that
// clusterDocs joins through clusterRuns instead of taking its pairs as
// candidates, a variable so that tests can make it small. A run of n
// texts of one template (n²/2 pairs within the short rule's distance)
// then costs about n tests. Smaller runs keep the candidates' tests on
// all cores.
var clusterMinRun = 2048

// clusterCandidates and clusterVerified count the candidate pairs
// clusterDocs finds and the pairs it tests, for tests.
var clusterCandidates, clusterVerified atomic.Int64

// clusterJoiner joins documents by the candidate pairs that pass the
// test, testing only pairs whose documents are not joined yet, a chunk of
// them at a time on all cores. The groups are the connected components
// of the pairs that pass, whatever the order: a pair left out joined
// nothing new. So that a chunk does not spend tests on pairs its own
// pairs will join if they pass (a group of thousands of copies would
// otherwise fill chunks with pairs of the same few), a pair whose
// documents the chunk's pairs would join is held back until the chunk is
// tested, then dropped if they were joined, or taken again.
type clusterJoiner struct {
	u     *cluster.UnionFind
	test  func([]clusterPair) []bool
	links map[int32]int32 // the chunk's pairs' links between u's roots, larger to smaller
	chunk []clusterPair
	held  []clusterPair
	spare []clusterPair
}

// root returns the root of u's root r with the chunk's links.
func (j *clusterJoiner) root(r int32) int32 {
	x := r
	for {
		p, ok := j.links[x]
		if !ok {
			break
		}
		x = p
	}
	for r != x { // shorten the path
		p := j.links[r]
		j.links[r] = x
		r = p
	}
	return x
}

// place puts p in the chunk or holds it back, or drops it if its
// documents are joined.
func (j *clusterJoiner) place(p clusterPair) {
	ra, rb := j.u.Find(int(p.A)), j.u.Find(int(p.B))
	if ra == rb {
		return
	}
	la, lb := j.root(int32(ra)), j.root(int32(rb))
	if la == lb {
		j.held = append(j.held, p)
		return
	}
	j.links[max(la, lb)] = min(la, lb)
	j.chunk = append(j.chunk, p)
}

// add takes a candidate pair.
func (j *clusterJoiner) add(p clusterPair) {
	j.place(p)
	for len(j.chunk) >= clusterChunk || len(j.held) >= clusterDeferred {
		j.round()
	}
}

// round tests the chunk, joins the pairs that pass, and places again the
// pairs held back. Pairs are held back only with a chunk, so it empties
// the chunk or places one of them there.
func (j *clusterJoiner) round() {
	ok := j.test(j.chunk)
	for i, p := range j.chunk {
		if ok[i] {
			j.u.Union(int(p.A), int(p.B))
		}
	}
	j.chunk = j.chunk[:0]
	clear(j.links)
	held := j.held
	j.held = j.spare[:0]
	for _, p := range held {
		j.place(p)
	}
	j.spare = held[:0]
}

// finish tests the pairs left.
func (j *clusterJoiner) finish() {
	for len(j.chunk) > 0 {
		j.round()
	}
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

// clusterKeyPairs calls emit for the pairs of the tiny texts of sel
// (isTiny, under the policy's TinyCap too) that share a deletion key
// (similarity.DeletionKeys, of the texts of 4 to Policy.TinyWords words)
// and are more than bound bits apart, the tiny rule's distance, within
// which the tiny pass finds them. Like the engine, a key shared by many
// texts pairs only its last 64 (clusterKeyMost) with each other.
func clusterKeyPairs(sel []int, isTiny func(i int) bool, sketch func(i int) *similarity.Sketch, fps []neardup.Fingerprint, policy neardup.Policy, bound int, emit func(c clusterPair)) {
	if policy.TinyLength == 0 || policy.TinyWords == 0 {
		return
	}
	keys := make(map[uint64][]int)
	for _, i := range sel {
		if !isTiny(i) {
			continue
		}
		s := sketch(i)
		if s.Len() >= policy.TinyCap() {
			continue
		}
		words := s.Words(nil, policy.TinyWords)
		if len(words) < 4 || len(words) > policy.TinyWords {
			continue
		}
		for _, k := range similarity.DeletionKeys(words, nil) {
			if ks := keys[k]; len(ks) == 0 || ks[len(ks)-1] != i {
				if len(ks) == clusterKeyMost {
					ks = ks[1:]
				}
				keys[k] = append(ks, i)
			}
		}
	}
	seen := make(map[[2]int]bool)
	var pairs []clusterPair
	for _, ks := range keys {
		for x, a := range ks {
			for _, b := range ks[x+1:] {
				pair := [2]int{min(a, b), max(a, b)}
				if seen[pair] {
					continue
				}
				seen[pair] = true
				if d, _ := neardup.Distance(fps[a], fps[b]); d > bound {
					pairs = append(pairs, clusterPair{A: int32(pair[0]), B: int32(pair[1]), D: int32(d)})
				}
			}
		}
	}
	// In an order of their own, not the map's.
	slices.SortFunc(pairs, func(x, y clusterPair) int {
		return cmp.Or(cmp.Compare(x.D, y.D), cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	})
	for _, p := range pairs {
		emit(p)
	}
}

// clusterKeyMost is the most texts a deletion key pairs (see
// clusterKeyPairs), the engine's maxKeySeqs.
const clusterKeyMost = 64

// sketchCache makes the sketches of the texts a cluster run verifies, and
// keeps them while the bytes they may take (sketchBytes) fit its budget:
// a text in many pairs is sketched once, and long texts, whose sketches
// take some 24 bytes a byte of text, do not hold the memory of many times
// the input (300 texts of a megabyte each took 4.2 GB). A sketch beyond
// the budget is made again for each pair that needs it.
type sketchCache struct {
	texts    []string
	sketches []atomic.Pointer[similarity.Sketch]
	left     atomic.Int64 // the budget not yet taken
}

// newSketchCache returns the cache of the sketches of texts, which keeps
// up to budget bytes of them.
func newSketchCache(texts []string, budget int64) *sketchCache {
	c := &sketchCache{texts: texts, sketches: make([]atomic.Pointer[similarity.Sketch], len(texts))}
	c.left.Store(budget)
	return c
}

// get returns the sketch of text i. Calls from many goroutines may make
// one sketch twice; one is kept.
func (c *sketchCache) get(i int) *similarity.Sketch {
	if s := c.sketches[i].Load(); s != nil {
		return s
	}
	s := similarity.NewSketch([]byte(c.texts[i]))
	if size := sketchBytes(len(c.texts[i])); c.left.Add(-size) >= 0 {
		if !c.sketches[i].CompareAndSwap(nil, s) {
			c.left.Add(size)
			return c.sketches[i].Load()
		}
	} else {
		c.left.Add(size)
	}
	return s
}

// sketchBytes estimates the memory the sketch of a text of n bytes takes
// once its measures are made: its runes and their EditRunes (4 bytes a
// rune each), its shingles (8 bytes a rune) and the rest, with room.
func sketchBytes(n int) int64 { return 24*int64(n) + 256 }

// sketchBudget is the memory cluster's sketches may take: a quarter of
// the Go heap's limit (--memory-limit), or 1 GiB without one.
func sketchBudget() int64 {
	if n := heapLimit(); n > 0 {
		return n / 4
	}
	return 1 << 30
}
