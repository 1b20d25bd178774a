package htmlreport

import "sort"

// Span is a rate held over a stretch of a run, timed in seconds from the
// run's start; Load marks the load phase's.
type Span struct {
	FromS, ToS, Rate float64
	Load             bool
}

// ThroughputSpans is a run's ops/s over time, in time order, from the best
// source it has, as its throughput chart draws it: the CSV time series or
// the HDR log's intervals (both phases, the load phase's marked Load),
// else one span per segment of the JSON summary (its main phase). A live
// run draws its --baseline from it, load phase and all, as it draws its
// own.
func ThroughputSpans(run *Run) []Span {
	var main, load []Span
	switch {
	case len(run.Rows) > 0:
		for _, r := range run.Rows {
			if r.IntervalS <= 0 {
				continue
			}
			sp := Span{FromS: r.ElapsedS - r.IntervalS, ToS: r.ElapsedS, Rate: r.OpsPerSec, Load: r.Phase == "load"}
			if r.Phase == "load" {
				load = append(load, sp)
			} else {
				main = append(main, sp)
			}
		}
	case len(run.Intervals) > 0:
		for _, r := range intervalRates(run) {
			sp := Span{FromS: r.startS, ToS: r.endS, Rate: r.rate, Load: r.load}
			if r.load {
				load = append(load, sp)
			} else {
				main = append(main, sp)
			}
		}
	default:
		for _, g := range run.Summary.Segments {
			main = append(main, Span{FromS: g.StartS, ToS: g.StartS + g.DurationS, Rate: g.OpsPerSec})
		}
	}
	// The load phase comes first; sorting keeps that true of logs whose
	// intervals are out of order.
	out := append(load, main...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ToS < out[j].ToS })
	return out
}

// PerInterval tells whether ThroughputSpans has one span per interval (a
// CSV time series or an HDR log was read), rather than one per segment.
func (run *Run) PerInterval() bool { return len(run.Rows) > 0 || len(run.Intervals) > 0 }
