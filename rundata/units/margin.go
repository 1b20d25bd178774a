package units

import (
	"math"
	"strconv"
)

// Margin is a confidence interval [lo, hi] around figure as people read
// it: its larger distance from the figure relative to it, "±4.6%"
// ("±12%" from 10 % on), "" when the interval is unknown (both bounds
// zero) or the figure is 0.
func Margin(figure, lo, hi float64) string {
	if (lo == 0 && hi == 0) || figure == 0 {
		return ""
	}
	p := math.Max(figure-lo, hi-figure) / math.Abs(figure) * 100
	if p >= 10 {
		return "±" + strconv.FormatFloat(math.Round(p), 'f', 0, 64) + "%"
	}
	return "±" + strconv.FormatFloat(p, 'f', 1, 64) + "%"
}
