package thresholds

import (
	"fmt"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/rundata/units"
)

// Source is what thresholds are checked against: a run's cumulative
// measurements. ok is false when op has no data for the figure.
type Source interface {
	Latency(op string, intended bool, stat string, q float64) (d time.Duration, ok bool)
	Errors(op string) (errs, count int64, ok bool)
	// Rate is successful operations per second; with attempts, every
	// operation, successful and failed.
	Rate(op string, attempts bool) (opsPerSec float64, ok bool)
}

// Result is one threshold's outcome.
type Result struct {
	Threshold string  `json:"threshold"`
	Actual    float64 `json:"actual"` // µs for latency, a count, a percentage or ops/s
	Unit      string  `json:"unit"`   // "us", "errors", "%", "ops/s"
	Text      string  `json:"actual_text"`
	Pass      bool    `json:"pass"`
	// NoData is set when the run has no data for it (an operation that
	// never ran, a percentile the live view does not hold): it does not
	// pass.
	NoData bool `json:"no_data,omitempty"`
}

// Evaluate checks every threshold against src.
func Evaluate(ts []Threshold, src Source) []Result {
	out := make([]Result, 0, len(ts))
	for _, t := range ts {
		out = append(out, t.check(src))
	}
	return out
}

// Crossed counts the results that did not pass.
func Crossed(rs []Result) int {
	n := 0
	for _, r := range rs {
		if !r.Pass {
			n++
		}
	}
	return n
}

func (t Threshold) check(src Source) Result {
	r := Result{Threshold: t.Expr}
	var v float64
	var ok bool
	switch t.Metric {
	case "latency":
		var d time.Duration
		d, ok = src.Latency(t.Op, t.Intended, t.Stat, t.Q)
		v, r.Unit, r.Text = float64(d), "us", latencyText(d)
		r.Actual = float64(d) / 1e3
	case "errors", "errors%":
		var errs, count int64
		errs, count, ok = src.Errors(t.Op)
		if t.Metric == "errors" {
			v, r.Unit = float64(errs), "errors"
			r.Text = fmt.Sprintf("%d errors", errs)
		} else {
			if count > 0 {
				v = float64(errs) / float64(count) * 100
			}
			r.Unit, r.Text = "%", fmt.Sprintf("%.3g%% (%d of %d)", v, errs, count)
		}
		r.Actual = v
	case "ops", "attempts":
		v, ok = src.Rate(t.Op, t.Metric == "attempts")
		r.Actual, r.Unit, r.Text = v, "ops/s", units.Count(int64(v+0.5))+" ops/s"
		if t.Metric == "attempts" {
			r.Text += " attempted"
		}
	}
	if !ok {
		r.NoData, r.Text = true, "no data"
		return r
	}
	switch t.Cmp {
	case "<":
		r.Pass = v < t.Value
	case "<=":
		r.Pass = v <= t.Value
	case ">":
		r.Pass = v > t.Value
	case ">=":
		r.Pass = v >= t.Value
	}
	return r
}

// FromResult checks against a finished phase: any percentile, exactly,
// from its cumulative histograms.
func FromResult(res *engine.PhaseResult) Source { return resultSource{res} }

type resultSource struct{ res *engine.PhaseResult }

// ops returns the op indexes op names (all for TOTAL).
func (s resultSource) ops(op string) []int {
	var out []int
	for i, n := range s.res.OpNames {
		if i < measure.NumOps && (op == "TOTAL" || strings.EqualFold(n, op)) {
			out = append(out, i)
		}
	}
	return out
}

func (s resultSource) Latency(op string, intended bool, stat string, q float64) (time.Duration, bool) {
	variant := measure.OK
	if intended {
		variant = measure.OKIntended
	}
	var h *hdr.Histogram
	for _, i := range s.ops(op) {
		if x := s.res.Set.H[measure.Slot(i, variant)]; x != nil && x.TotalCount() > 0 {
			if h == nil {
				h = measure.NewHistogram()
			}
			h.Merge(x)
		}
	}
	if h == nil {
		return 0, false
	}
	return histStat(h, stat, q), true
}

func (s resultSource) Errors(op string) (int64, int64, bool) {
	set := s.res.Set
	var errs, count int64
	idx := s.ops(op)
	for _, i := range idx {
		for _, n := range set.Errors[i] {
			errs += n
		}
		for _, v := range []int{measure.OK, measure.Failed} {
			if h := set.H[measure.Slot(i, v)]; h != nil {
				count += h.TotalCount()
			}
		}
	}
	if op == "TOTAL" {
		count = set.Ops // a read-modify-write is one operation
	}
	return errs, count, len(idx) > 0 && count > 0
}

func (s resultSource) Rate(op string, attempts bool) (float64, bool) {
	if s.res.RunTime <= 0 {
		return 0, false
	}
	if op == "TOTAL" {
		if attempts {
			return s.res.Throughput(), true
		}
		return s.res.Goodput(), true
	}
	errs, count, ok := s.Errors(op)
	if !attempts {
		count -= errs
	}
	return float64(count) / s.res.RunTime.Seconds(), ok
}

func histStat(h *hdr.Histogram, stat string, q float64) time.Duration {
	switch stat {
	case "mean":
		return time.Duration(h.Mean())
	case "min":
		return time.Duration(h.Min())
	case "max":
		return time.Duration(h.Max())
	}
	return time.Duration(h.ValueAtQuantile(q))
}

// FromSnapshot checks against a snapshot's cumulative figures, for the
// live screen: p50, p95, p99, p99.9, the configured
// hdrhistogram.percentiles, mean, min and max (another percentile has no
// data until the end).
func FromSnapshot(s *engine.Snapshot) Source { return snapSource{s} }

type snapSource struct{ s *engine.Snapshot }

func (s snapSource) op(op string) (*engine.OpSnapshot, bool) {
	if op == "TOTAL" {
		return &s.s.Total, true
	}
	for i := range s.s.Ops {
		if strings.EqualFold(s.s.Ops[i].Name, op) {
			return &s.s.Ops[i], true
		}
	}
	return nil, false
}

func (s snapSource) Latency(op string, intended bool, stat string, q float64) (time.Duration, bool) {
	o, ok := s.op(op)
	if !ok {
		return 0, false
	}
	st := &o.Cumulative
	if intended {
		st = o.IntendedCumulative
	}
	if st == nil || !st.HasLatency() {
		return 0, false
	}
	switch stat {
	case "mean":
		return st.Mean, true
	case "min":
		return st.Min, true
	case "max":
		return st.Max, true
	}
	switch q {
	case 50:
		return st.P50, true
	case 95:
		return st.P95, true
	case 99:
		return st.P99, true
	case 99.9:
		return st.P999, true
	}
	for _, p := range st.Percentiles {
		if p.Q == q {
			return p.Value, true
		}
	}
	return 0, false
}

func (s snapSource) Errors(op string) (int64, int64, bool) {
	o, ok := s.op(op)
	if !ok || o.Cumulative.Count == 0 {
		return 0, 0, false
	}
	return o.Cumulative.Errors, o.Cumulative.Count, true
}

func (s snapSource) Rate(op string, attempts bool) (float64, bool) {
	o, ok := s.op(op)
	if !ok {
		return 0, false
	}
	if attempts {
		return o.Cumulative.AttemptRate(), true
	}
	return o.Cumulative.Rate, true
}

// latencyText renders a latency compactly: 850ns, 2.1µs, 11.0ms, 1.20s.
func latencyText(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fµs", float64(d)/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}
