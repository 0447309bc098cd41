package eval

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette holds distinguishable line colours (Okabe-Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255}, color.RGBA{120, 120, 120, 255},
}

// PlotPR writes a precision-recall chart of every scorer in r to path (PNG),
// one curve per scorer, with each scorer's default decision marked.
func PlotPR(r *Report, path string) error {
	p := plot.New()
	p.Title.Text = "Precision-recall: " + r.Dataset
	p.X.Label.Text = "recall"
	p.Y.Label.Text = "precision"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1.02
	p.Legend.Top = false
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	for i, s := range r.Scorers {
		sweep := Sweep(s.samples)
		pts := make(plotter.XYs, 0, len(sweep)+1)
		pts = append(pts, plotter.XY{X: 0, Y: 1})
		for _, pt := range sweep {
			pts = append(pts, plotter.XY{X: pt.Recall, Y: pt.Precision})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("eval: plot: %w", err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		if i >= len(palette) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		d := s.Overall.Default
		sc, err := plotter.NewScatter(plotter.XYs{{X: d.Recall, Y: d.Precision}})
		if err != nil {
			return fmt.Errorf("eval: plot: %w", err)
		}
		sc.Color = l.Color
		sc.Shape = draw.CircleGlyph{}
		sc.Radius = vg.Points(3.5)
		p.Add(l, sc)
		p.Legend.Add(fmt.Sprintf("%s (AUC %.3f)", s.Name, float64(s.Overall.AUC)), l)
	}
	return save(p, 6, 5, path)
}

// PlotHistograms writes one PNG per scorer into dir, named
// <prefix>hist-<scorer>.png: the distance distribution of positives and
// negatives, each normalized to sum to 1. It returns the file names.
func PlotHistograms(r *Report, dir, prefix string) ([]string, error) {
	var files []string
	for _, s := range r.Scorers {
		bins := s.Overall.Histogram
		if len(bins) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: %s distances", r.Dataset, s.Name)
		p.X.Label.Text = "distance"
		p.Y.Label.Text = "fraction of pairs"
		p.Add(plotter.NewGrid())
		pos, neg := float64(s.Overall.Positives), float64(s.Overall.Pairs-s.Overall.Positives)
		for _, series := range []struct {
			name  string
			total float64
			get   func(Bin) int
			col   color.Color
		}{
			{"near-duplicates", pos, func(b Bin) int { return b.Pos }, color.NRGBA{0, 114, 178, 110}},
			{"distinct", neg, func(b Bin) int { return b.Neg }, color.NRGBA{213, 94, 0, 110}},
		} {
			if series.total == 0 {
				continue
			}
			h := &plotter.Histogram{LineStyle: plotter.DefaultLineStyle}
			for _, b := range bins {
				h.Bins = append(h.Bins, plotter.HistogramBin{Min: b.Lo, Max: b.Hi, Weight: float64(series.get(b)) / series.total})
			}
			h.Width = bins[0].Hi - bins[0].Lo
			h.FillColor = series.col
			h.LineStyle.Width = vg.Points(0.5)
			h.LineStyle.Color = series.col
			p.Add(h)
			p.Legend.Add(series.name, h)
		}
		p.Legend.Top = true
		name := prefix + "hist-" + fileSafe(s.Name) + ".png"
		if err := save(p, 6, 3.5, filepath.Join(dir, name)); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

func save(p *plot.Plot, w, h float64, path string) error {
	if err := p.Save(vg.Length(w)*vg.Inch, vg.Length(h)*vg.Inch, path); err != nil {
		return fmt.Errorf("eval: plot %s: %w", path, err)
	}
	return nil
}

// PlotRecallAtK writes to path (PNG) the recall (solid) and false positive
// rate (dashed) of every fingerprint scorer in r at distances 0 to maxK:
// what an index searched within k returns. Scorers whose thresholds are not
// whole numbers (measures, policies) are left out.
func PlotRecallAtK(r *Report, path string, maxK int) error {
	p := plot.New()
	p.Title.Text = "Recall (solid) and false positive rate (dashed) within k: " + r.Dataset
	p.Title.TextStyle.Font.Size = vg.Points(10)
	p.X.Label.Text = "k (Hamming distance, 64-bit scale)"
	p.Y.Label.Text = "fraction of pairs"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, float64(maxK), 0, 1.02
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	i := 0
	for _, s := range r.Scorers {
		bt := s.Overall.ByThreshold
		if len(bt) < 2 || float64(bt[1].Threshold) != 1 {
			continue
		}
		// 128- and 256-bit scorers are drawn on the 64-bit scale.
		scale := float64(len(bt)-1) / 32
		var rec, fpr plotter.XYs
		for _, pt := range bt {
			x := float64(pt.Threshold) / scale
			if x > float64(maxK) {
				break
			}
			rec = append(rec, plotter.XY{X: x, Y: pt.Recall})
			fpr = append(fpr, plotter.XY{X: x, Y: pt.Confusion.FPR()})
		}
		col := palette[i%len(palette)]
		i++
		lr, err := plotter.NewLine(rec)
		if err != nil {
			return fmt.Errorf("eval: plot: %w", err)
		}
		lf, err := plotter.NewLine(fpr)
		if err != nil {
			return fmt.Errorf("eval: plot: %w", err)
		}
		lr.Color, lf.Color = col, col
		lr.Width, lf.Width = vg.Points(1.5), vg.Points(1)
		lf.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(lr, lf)
		p.Legend.Add(s.Name, lr)
	}
	return save(p, 6, 4.5, path)
}
