package tui

import (
	"benchtop/results/thresholds"
	"benchtop/rundata"
	"benchtop/tui/components/header"
)

// thresholdState is the --threshold verdict so far, on the run's
// cumulative figures, for the header; nothing without thresholds, before
// the first snapshot and during the load phase that precedes a run.
func thresholdState(info rundata.Info, snap *rundata.Snapshot) header.Thresholds {
	if len(info.Thresholds) == 0 || snap == nil || (snap.Phase == rundata.PhaseLoad && info.Command == "run") {
		return header.Thresholds{} // the thresholds judge the run phase, not the load before it
	}
	var ts []thresholds.Threshold
	for _, e := range info.Thresholds {
		if t, err := thresholds.Parse(e); err == nil {
			ts = append(ts, t)
		}
	}
	rs := thresholds.Evaluate(ts, thresholds.FromSnapshot(snap))
	return header.Thresholds{Crossed: thresholds.Crossed(rs), Total: len(rs)}
}
