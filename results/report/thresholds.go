package report

import (
	"fmt"
	"io"

	"benchtop/engine"
	"benchtop/results/thresholds"
)

// CheckThresholds checks the run's thresholds (info.Thresholds, validated when
// the command line was read; one that does not parse is left out) against
// its last phase. It returns nil when there are none.
func CheckThresholds(results []*engine.PhaseResult, info engine.Info) []thresholds.Result {
	if len(info.Thresholds) == 0 || len(results) == 0 {
		return nil
	}
	var ts []thresholds.Threshold
	for _, e := range info.Thresholds {
		if t, err := thresholds.Parse(e); err == nil {
			ts = append(ts, t)
		}
	}
	return thresholds.Evaluate(ts, thresholds.FromResult(results[len(results)-1]))
}

// writeThresholds writes the thresholds' verdict table (comment lines in the
// end: see commented).
func writeThresholds(w io.Writer, rs []thresholds.Result) {
	if len(rs) == 0 {
		return
	}
	width := 0
	for _, r := range rs {
		width = max(width, len(r.Threshold))
	}
	fmt.Fprintf(w, "\n# Thresholds: %d of %d crossed\n", thresholds.Crossed(rs), len(rs))
	for _, r := range rs {
		mark := "pass"
		if !r.Pass {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s  %-*s  %s\n", mark, width, r.Threshold, r.Text)
	}
}
