package cli

// --duration, and --threshold: what a run must achieve, its verdicts
// deciding the exit status (exitThresholds).

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/results/report"
	"benchtop/results/steps"
	"benchtop/results/thresholds"
	"benchtop/workload"
)

// parseDuration reads --duration.
func parseDuration(v string) (time.Duration, error) {
	d, err := steps.ParseOffset(v)
	if err != nil || d < time.Second/10 {
		return 0, usagef("--duration %q: expected a duration of at least 100ms, e.g. 60s or 10m (the run stops after it, with no operation limit)", v)
	}
	return d, nil
}

// checkThreshold checks one --threshold expression.
func checkThreshold(v string) error {
	if _, err := thresholds.Parse(v); err != nil {
		return usagef("--threshold: %v", err)
	}
	return nil
}

// checkRunOps refuses, before anything is opened, a --threshold or a
// --find-max condition naming an operation the workload cannot produce
// with these properties (a typo such as REED, or UPDATE on a read-only
// mix): it would never have data, so a threshold could never pass and a
// search would run to its budget with no answer.
func checkRunOps(o *options, cfg *engine.Config) error {
	if err := checkThresholdOps("--threshold", o.Thresholds, cfg); err != nil {
		return err
	}
	return checkThresholdOps("--find-max", o.FindMax.exprs, cfg)
}

// checkThresholdOps is checkRunOps for one flag's expressions.
func checkThresholdOps(flag string, exprs []string, cfg *engine.Config) error {
	f, ok := workload.Lookup(cfg.Workload)
	if !ok || f.Produces == nil || len(exprs) == 0 {
		return nil
	}
	ops := f.Produces(cfg.Command, adapters.Properties(cfg.Props))
	if ops == nil {
		return nil
	}
	for _, e := range exprs {
		t, err := thresholds.Parse(e)
		if err != nil || t.Op == "TOTAL" || slices.ContainsFunc(ops, func(op string) bool { return strings.EqualFold(op, t.Op) }) {
			continue
		}
		return usagef("%s %q: this run produces no %s operation (it produces %s; TOTAL for all)", flag, e, t.Op, strings.Join(ops, ", "))
	}
	return nil
}

// durationProps makes --duration d the run's length: no operation limit,
// maxexecutiontime the duration (it wins over -P and -p). No duration
// (0) changes nothing.
func durationProps(d time.Duration, props map[string]string) {
	if d <= 0 {
		return
	}
	props["operationcount"] = "0"
	props["maxexecutiontime"] = strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// thresholdsCrossed prints the crossed thresholds on stderr and reports
// whether there were any.
func thresholdsCrossed(results []*engine.PhaseResult, info engine.Info, stderr io.Writer) bool {
	rs := report.CheckThresholds(results, info)
	n := thresholds.Crossed(rs)
	for _, r := range rs {
		if !r.Pass {
			fmt.Fprintf(stderr, "benchtop: threshold %s crossed: %s\n", r.Threshold, r.Text)
		}
	}
	return n > 0
}
