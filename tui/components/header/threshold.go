package header

import (
	"fmt"

	"benchtop/engine"
	"benchtop/results/thresholds"
	"benchtop/themes"
)

// thresholdMark is the --threshold verdict so far, on the run's
// cumulative figures: "✓ 3/3 thresholds" while all pass, "✗ 1/3" in the
// alarm colour when one is crossed; "" without thresholds, before the
// first snapshot and during the load phase that precedes a run.
func thresholdMark(st themes.Styles, info engine.Info, snap *engine.Snapshot) string {
	if len(info.Thresholds) == 0 || snap == nil || (snap.Phase == engine.PhaseLoad && info.Command == "run") {
		return "" // the thresholds judge the run phase, not the load before it
	}
	var ts []thresholds.Threshold
	for _, e := range info.Thresholds {
		if t, err := thresholds.Parse(e); err == nil {
			ts = append(ts, t)
		}
	}
	rs := thresholds.Evaluate(ts, thresholds.FromSnapshot(snap))
	crossed := thresholds.Crossed(rs)
	if crossed > 0 {
		return st.Alarm.Render(fmt.Sprintf("✗ %d/%d thresholds", crossed, len(rs)))
	}
	return st.Good.Render(fmt.Sprintf("✓ %d/%d thresholds", len(rs), len(rs)))
}
