package htmlreport

// Span is a rate held over a stretch of a run, timed in seconds from the
// run's start.
type Span struct{ FromS, ToS, Rate float64 }

// ThroughputSpans is a run's ops/s over time in its main phase (the run
// phase; the load phase of a load), in time order, from the best source it
// has, as its throughput chart draws it: the CSV time series, else the HDR
// log's intervals, else one span per segment of the JSON summary. A live
// run draws its --baseline from it.
func ThroughputSpans(run *Run) []Span {
	var main, load []Span
	switch {
	case len(run.Rows) > 0:
		for _, r := range run.Rows {
			if r.IntervalS <= 0 {
				continue
			}
			sp := Span{r.ElapsedS - r.IntervalS, r.ElapsedS, r.OpsPerSec}
			if r.Phase == "load" {
				load = append(load, sp)
			} else {
				main = append(main, sp)
			}
		}
	case len(run.Intervals) > 0:
		for _, r := range intervalRates(run) {
			if r.load {
				load = append(load, Span{r.startS, r.endS, r.rate})
			} else {
				main = append(main, Span{r.startS, r.endS, r.rate})
			}
		}
	default:
		for _, g := range run.Summary.Segments {
			main = append(main, Span{g.StartS, g.StartS + g.DurationS, g.OpsPerSec})
		}
	}
	if len(main) == 0 {
		return load
	}
	return main
}

// PerInterval tells whether ThroughputSpans has one span per interval (a
// CSV time series or an HDR log was read), rather than one per segment.
func (run *Run) PerInterval() bool { return len(run.Rows) > 0 || len(run.Intervals) > 0 }
