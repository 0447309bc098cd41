package eval

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// WriteSummary writes r as Markdown tables: one line per scorer overall,
// then one table per breakdown dimension.
func WriteSummary(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s: %d pairs (%d positive), %d texts\n\n", r.Dataset, r.Pairs, r.Positives, r.Texts)
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("| scorer | AUC | default P | default R | default F1 | best F1 | at | R at P>=0.99 | at |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Scorers {
		m := s.Overall
		fmt.Fprintf(&b, "| %s | %s | %.3f | %s | %.3f | %.3f | %s | %s\n", s.Name, fauc(float64(m.AUC)),
			m.Default.Precision, recall(m.Default.Confusion, "%.3f"), m.Default.F1, m.Best.F1, fnum(float64(m.Best.Threshold)), p99(m))
	}
	for _, dim := range dims(r) {
		fmt.Fprintf(&b, "\n### by %s: default F1 / best F1 (at) / recall at P>=0.99\n\n", dim)
		var groups []string
		for _, s := range r.Scorers {
			for _, g := range GroupNames(s.Groups[dim]) {
				if !slices.Contains(groups, g) {
					groups = append(groups, g)
				}
			}
		}
		b.WriteString("| scorer |")
		for _, g := range groups {
			fmt.Fprintf(&b, " %s (%d+) |", g, r.Scorers[0].Groups[dim][g].Positives)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(groups)) + "\n")
		for _, s := range r.Scorers {
			fmt.Fprintf(&b, "| %s |", s.Name)
			for _, g := range groups {
				m, ok := s.Groups[dim][g]
				if !ok {
					b.WriteString(" |")
					continue
				}
				r99 := "-"
				if m.P99 != nil {
					r99 = fmt.Sprintf("%.3f", m.P99.Recall)
				}
				fmt.Fprintf(&b, " %.3f / %.3f (%s) / %s |", m.Default.F1, m.Best.F1, fnum(float64(m.Best.Threshold)), r99)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func p99(m Metrics) string {
	if m.P99 == nil {
		return "- | - |"
	}
	return fmt.Sprintf("%.3f | %s |", m.P99.Recall, fnum(float64(m.P99.Threshold)))
}

// dims returns the breakdown dimensions of r: length first, then the rest
// alphabetically.
func dims(r *Report) []string {
	var ds []string
	for _, s := range r.Scorers {
		for d := range s.Groups {
			if !slices.Contains(ds, d) {
				ds = append(ds, d)
			}
		}
	}
	slices.SortFunc(ds, func(a, b string) int {
		if (a == "length") != (b == "length") {
			if a == "length" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return ds
}

// fauc formats an AUC with two decimals, always ("1.00", not "1"), or "-"
// when it is undefined.
func fauc(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return fmt.Sprintf("%.2f", f)
}

// recall formats the recall of c, or "-" when it is undefined (no
// positives).
func recall(c Confusion, format string) string {
	if c.TP+c.FN == 0 {
		return "-"
	}
	return fmt.Sprintf(format, c.Recall())
}

func fnum(f float64) string {
	switch {
	case math.IsNaN(f):
		return "-"
	case f == math.Trunc(f):
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.2f", f)
}

// WriteCorpusSummary writes a corpus report as a Markdown table.
func WriteCorpusSummary(w io.Writer, r *CorpusReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%d texts: %d planted copies, %d natural exact repeats, %d duplicate groups (seed %d)\n\n",
		r.Texts, r.Planted, r.Natural, r.Groups, r.Seed)
	b.WriteString("| run | pairs found | true pairs | precision | recall | F1 | docs flagged / should |\n|---|---|---|---|---|---|---|\n")
	for _, s := range r.Results {
		fmt.Fprintf(&b, "| %s | %d | %d | %.4f | %s | %.4f | %d / %d |\n", s.Name, s.Found, s.True, s.Precision, recall(s.Confusion, "%.4f"), s.F1, s.Docs, s.DocsShould)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}
