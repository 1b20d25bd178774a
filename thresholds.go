package main

import (
	"fmt"
	"strconv"
	"time"

	"benchtop/engine"
	"benchtop/engine/report"
	"benchtop/engine/steps"
	"benchtop/engine/verdict"
)

// exitThresholds is the exit status of a run that crossed a threshold
// (k6's convention).
const exitThresholds = 99

// parseRunFlag reads --duration and --threshold into o; cli.go hands
// them here.
func parseRunFlag(o *cliOptions, name, v string) error {
	switch name {
	case "duration":
		d, err := steps.ParseOffset(v)
		if err != nil || d < time.Second/10 {
			return usagef("--duration %q: expected a duration of at least 100ms, e.g. 60s or 10m (the run stops after it, with no operation limit)", v)
		}
		o.Duration = d
	case "threshold":
		if _, err := verdict.Parse(v); err != nil {
			return usagef("--threshold: %v", err)
		}
		o.Thresholds = append(o.Thresholds, v)
	}
	return nil
}

// applyDuration makes --duration the run's length: no operation limit,
// maxexecutiontime the duration (it wins over -P and -p).
func applyDuration(o *cliOptions, props map[string]string) {
	if o.Duration <= 0 {
		return
	}
	props["operationcount"] = "0"
	props["maxexecutiontime"] = strconv.FormatFloat(o.Duration.Seconds(), 'f', -1, 64)
}

// thresholdsCrossed prints the crossed thresholds on stderr and reports
// whether there were any.
func thresholdsCrossed(results []*engine.PhaseResult, info engine.Info, stderr interface{ Write([]byte) (int, error) }) bool {
	rs := report.Verdicts(results, info)
	n := verdict.Crossed(rs)
	for _, r := range rs {
		if !r.Pass {
			fmt.Fprintf(stderr, "benchtop: threshold %s crossed: %s\n", r.Threshold, r.Text)
		}
	}
	return n > 0
}
