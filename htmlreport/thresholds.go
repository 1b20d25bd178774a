package htmlreport

import (
	"fmt"

	"benchtop/results/thresholds"
)

// ThresholdSection is the run's --threshold verdicts, near the top of the
// page, so that a reviewer holding only the page sees why CI failed:
// each expression, what the run observed and pass or fail, and the exit
// status they give.
type ThresholdSection struct {
	Crossed, Total int
	// Status is the exit status the run had for its thresholds: 99 when
	// any was crossed (k6's convention), 1 when the workload's closing
	// check found problems (a status that ranks first), else 0.
	Status int
	// StatusText says why, with the statuses that would rank before; the
	// page leads with "Exit status N", or "All passed" for 0.
	StatusText string
	Table      *Table
}

// The exit statuses the section names (internal/cli/exit.go's table,
// docs/exit-status.md).
const (
	statusFailure    = 1
	statusThresholds = 99
)

// thresholdSection is run's verdicts (its JSON summary's "thresholds"),
// nil when the run had none.
func thresholdSection(run *Run) *ThresholdSection {
	rs := run.Summary.Thresholds
	if len(rs) == 0 {
		return nil
	}
	sec := &ThresholdSection{Crossed: thresholds.Crossed(rs), Total: len(rs),
		Table: &Table{ID: "thresholds", Caption: "--threshold verdicts, judged over the " + lastPhase(&run.Summary) + " phase",
			Columns: []string{"threshold", "observed", "verdict"}}}
	for _, r := range rs {
		verdict, class := "pass", "pass"
		switch {
		case r.NoData:
			verdict, class = "FAIL: no data", "fail"
		case !r.Pass:
			verdict, class = "FAIL", "fail"
		}
		observed := Cell{Text: r.Text}
		if !r.NoData {
			observed = numCell(r.Text, r.Unit, r.Actual)
		}
		sec.Table.Rows = append(sec.Table.Rows, TRow{Class: class, Cells: []Cell{textCell(r.Threshold), observed, textCell(verdict)}})
	}
	ranked := "unless a status that ranks before it applied: 1 (the run's data or operations failed), 3 (a fleet agent lost) or a signal's (130, 131, 143)"
	switch {
	case len(run.Problems) > 0:
		sec.Status = statusFailure
		sec.StatusText = fmt.Sprintf("the workload's closing check found problems (below), which rank before the thresholds' %d", statusThresholds)
		if sec.Crossed == 0 {
			sec.StatusText = "the workload's closing check found problems (below); the thresholds passed"
		}
	case sec.Crossed > 0:
		sec.Status = statusThresholds
		sec.StatusText = fmt.Sprintf("%d of %d thresholds crossed (k6's convention), %s", sec.Crossed, sec.Total, ranked)
	default:
		sec.StatusText = fmt.Sprintf("%d of %d thresholds passed: they add no exit status (0 unless the run failed otherwise)", sec.Total, sec.Total)
	}
	return sec
}
