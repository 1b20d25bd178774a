package header

import (
	"fmt"

	"benchtop/themes"
)

// Thresholds is the --threshold verdict so far, as the screen's root
// judged it on the run's cumulative figures: Total 0 when there are none
// to show (no thresholds, no snapshot yet, or the load phase that
// precedes a run).
type Thresholds struct {
	Crossed, Total int
}

// thresholdMark is "✓ 3/3 thresholds" while all pass, "✗ 1/3" in the
// alarm colour when one is crossed; "" when there is nothing to show.
func thresholdMark(st themes.Styles, t Thresholds) string {
	if t.Total == 0 {
		return ""
	}
	if t.Crossed > 0 {
		return st.Alarm.Render(fmt.Sprintf("✗ %d/%d thresholds", t.Crossed, t.Total))
	}
	return st.Good.Render(fmt.Sprintf("✓ %d/%d thresholds", t.Total, t.Total))
}
