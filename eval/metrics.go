package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// A Sample is one labelled pair after scoring: its distance under a scorer,
// the scorer's own decision, and the truth.
type Sample struct {
	// Distance is the scorer's distance: smaller means more alike.
	Distance float64
	// Dup is the scorer's own decision.
	Dup bool
	// Positive reports whether the pair is a true near-duplicate.
	Positive bool
}

// Confusion counts decisions against the truth.
type Confusion struct {
	TP int `json:"tp"`
	FP int `json:"fp"`
	FN int `json:"fn"`
	TN int `json:"tn"`
}

// Precision returns TP / (TP + FP), or 1 when nothing was called a
// duplicate (no false alarms were raised).
func (c Confusion) Precision() float64 {
	if c.TP+c.FP == 0 {
		return 1
	}
	return float64(c.TP) / float64(c.TP+c.FP)
}

// Recall returns TP / (TP + FN). Without positives recall is undefined; it
// is then 0, as scikit-learn's default has it (zero_division), so that
// reports stay numbers: check TP + FN (the Markdown summaries print "-").
func (c Confusion) Recall() float64 {
	if c.TP+c.FN == 0 {
		return 0
	}
	return float64(c.TP) / float64(c.TP+c.FN)
}

// F1 returns the harmonic mean of precision and recall, 0 when either is 0.
// It is computed from the counts (2TP / (2TP + FP + FN)) so that it is 0,
// not 1, when nothing is found.
func (c Confusion) F1() float64 {
	if c.TP == 0 {
		return 0
	}
	return 2 * float64(c.TP) / float64(2*c.TP+c.FP+c.FN)
}

// FPR returns the false positive rate FP / (FP + TN), or 0 without negatives.
func (c Confusion) FPR() float64 {
	if c.FP+c.TN == 0 {
		return 0
	}
	return float64(c.FP) / float64(c.FP+c.TN)
}

// A Point is the quality of one decision rule: call a pair a duplicate when
// its distance is at most Threshold (or, for a scorer's default decision,
// when the scorer says so).
type Point struct {
	Threshold Num `json:"threshold"`
	Confusion
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

func pointOf(t float64, c Confusion) Point {
	return Point{Threshold: Num(t), Confusion: c, Precision: c.Precision(), Recall: c.Recall(), F1: c.F1()}
}

// Decide returns the Point of the scorers' own decisions (Sample.Dup).
// Its Threshold is NaN.
func Decide(samples []Sample) Point {
	var c Confusion
	for _, s := range samples {
		c.add(s.Positive, s.Dup)
	}
	return pointOf(math.NaN(), c)
}

func (c *Confusion) add(positive, called bool) {
	switch {
	case positive && called:
		c.TP++
	case positive:
		c.FN++
	case called:
		c.FP++
	default:
		c.TN++
	}
}

// Curve returns one Point per threshold in ts: a pair is called a duplicate
// when its distance is at most the threshold. It runs in O((n + t) log n).
func Curve(samples []Sample, ts []float64) []Point {
	sorted := sortedByDistance(samples)
	// cum[i] is the number of positives among the first i sorted samples.
	cum := make([]int, len(sorted)+1)
	for i, s := range sorted {
		cum[i+1] = cum[i]
		if s.Positive {
			cum[i+1]++
		}
	}
	pos := cum[len(sorted)]
	neg := len(sorted) - pos
	out := make([]Point, len(ts))
	for i, t := range ts {
		n, _ := slices.BinarySearchFunc(sorted, t, func(s Sample, t float64) int {
			if s.Distance <= t {
				return -1
			}
			return 1
		})
		tp := cum[n]
		out[i] = pointOf(t, Confusion{TP: tp, FP: n - tp, FN: pos - tp, TN: neg - (n - tp)})
	}
	return out
}

// Sweep returns the Point at every distinct distance in samples, in
// increasing order: the full precision-recall curve.
func Sweep(samples []Sample) []Point {
	sorted := sortedByDistance(samples)
	pos := 0
	for _, s := range sorted {
		if s.Positive {
			pos++
		}
	}
	neg := len(sorted) - pos
	var out []Point
	tp, fp := 0, 0
	for i, s := range sorted {
		if s.Positive {
			tp++
		} else {
			fp++
		}
		if i+1 < len(sorted) && sorted[i+1].Distance == s.Distance {
			continue
		}
		out = append(out, pointOf(s.Distance, Confusion{TP: tp, FP: fp, FN: pos - tp, TN: neg - fp}))
	}
	return out
}

// BestF1 returns the Point with the highest F1 (the smallest threshold among
// ties), or a zero Point with NaN threshold when points is empty.
func BestF1(points []Point) Point {
	best := Point{Threshold: Num(math.NaN())}
	for i, p := range points {
		if i == 0 || p.F1 > best.F1 {
			best = p
		}
	}
	return best
}

// AtPrecision returns the Point with the highest recall whose precision is
// at least minPrecision, and false when no threshold reaches it.
func AtPrecision(points []Point, minPrecision float64) (Point, bool) {
	best, ok := Point{Threshold: Num(math.NaN())}, false
	for _, p := range points {
		if p.TP > 0 && p.Precision >= minPrecision && (!ok || p.Recall > best.Recall) {
			best, ok = p, true
		}
	}
	return best, ok
}

// AUC returns the area under the ROC curve when a smaller distance means
// "more likely a duplicate": the probability that a random positive has a
// smaller distance than a random negative, ties counting one half. It is NaN
// when there are no positives or no negatives.
func AUC(samples []Sample) float64 {
	sorted := sortedByDistance(samples)
	var pos, neg float64
	for _, s := range sorted {
		if s.Positive {
			pos++
		} else {
			neg++
		}
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	// For each tie group, every positive beats the negatives after the group
	// and ties with the negatives inside it.
	var sum, negSeen float64
	for i := 0; i < len(sorted); {
		j := i
		var p, n float64
		for ; j < len(sorted) && sorted[j].Distance == sorted[i].Distance; j++ {
			if sorted[j].Positive {
				p++
			} else {
				n++
			}
		}
		after := neg - negSeen - n
		sum += p * (after + n/2)
		negSeen += n
		i = j
	}
	return sum / (pos * neg)
}

func sortedByDistance(samples []Sample) []Sample {
	sorted := slices.Clone(samples)
	slices.SortStableFunc(sorted, func(a, b Sample) int {
		switch {
		case a.Distance < b.Distance:
			return -1
		case a.Distance > b.Distance:
			return 1
		}
		return 0
	})
	return sorted
}

// Num is a float64 that encodes NaN and infinities as JSON null, so that an
// undefined metric (AUC without negatives, the threshold of a default
// decision) does not break the report.
type Num float64

// MarshalJSON encodes n as a JSON number, or null when it is not finite.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON decodes a number, or null as NaN.
func (n *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Num(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("eval: bad number %q: %w", b, err)
	}
	*n = Num(f)
	return nil
}
