package findmax

import (
	"fmt"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
	"benchtop/results/ci"
	"benchtop/results/report"
	"benchtop/results/thresholds"
)

// source is a probe's steady measurements as the conditions read them
// (verdict.Source): latency from the intended start when the probe is
// paced, service time when it is not or when service is asked for.
type source struct {
	set     *measure.Set
	names   []string
	secs    float64
	paced   bool
	service bool // judge service time even when paced
	// memo keeps each merged histogram for the source's life (one
	// evaluation): the conditions, the intervals and the record read
	// the same few, and a histogram is ~100 KB to allocate and clear
	// (46 % of the search's tests' CPU before it).
	memo map[histKey]*hdr.Histogram
}

// histKey names a merged histogram: an operation (as named) and a
// variant.
type histKey struct {
	op string
	v  int
}

var _ thresholds.Source = source{}

// ops are the indexes of the operation types op names (every type for
// TOTAL).
func (s source) ops(op string) []int {
	var out []int
	for i, n := range s.names {
		if i < measure.NumOps && (op == "TOTAL" || strings.EqualFold(n, op)) {
			out = append(out, i)
		}
	}
	return out
}

// variant is the histogram variant latency is judged on.
func (s source) variant() int {
	if s.paced && !s.service {
		return measure.OKIntended
	}
	return measure.OK
}

// hist merges op's histograms of variant v; nil when none holds a value.
// The caller only reads it (it may be the memo's).
func (s source) hist(op string, v int) *hdr.Histogram {
	k := histKey{op, v}
	if h, ok := s.memo[k]; ok {
		return h
	}
	h := s.merge(op, v)
	if s.memo != nil {
		s.memo[k] = h
	}
	return h
}

// merge merges op's histograms of variant v, for hist.
func (s source) merge(op string, v int) *hdr.Histogram {
	var h *hdr.Histogram
	for _, i := range s.ops(op) {
		if x := s.set.H[measure.Slot(i, v)]; x != nil && x.TotalCount() > 0 {
			if h == nil {
				h = measure.NewHistogram()
			}
			measure.MergeHistogram(h, x)
		}
	}
	return h
}

func (s source) Latency(op string, _ bool, stat string, q float64) (time.Duration, bool) {
	h := s.hist(op, s.variant())
	if h == nil {
		return 0, false
	}
	switch stat {
	case "mean":
		return time.Duration(h.Mean()), true
	case "min":
		return time.Duration(h.Min()), true
	case "max":
		return time.Duration(h.Max()), true
	}
	return time.Duration(h.ValueAtQuantile(q)), true
}

func (s source) Errors(op string) (int64, int64, bool) {
	idx := s.ops(op)
	var errs, count int64
	for _, i := range idx {
		for _, n := range s.set.Errors[i] {
			errs += n
		}
		for _, v := range []int{measure.OK, measure.Failed} {
			if h := s.set.H[measure.Slot(i, v)]; h != nil {
				count += h.TotalCount()
			}
		}
	}
	if op == "TOTAL" {
		count = s.set.Ops // a read-modify-write is one operation
		errs = failedOps(s.set)
	}
	return errs, count, len(idx) > 0 && count > 0
}

// Rate is op's successful operations a second (goodput); with attempts,
// every operation, successful and failed.
func (s source) Rate(op string, attempts bool) (float64, bool) {
	if s.secs <= 0 {
		return 0, false
	}
	errs, count, ok := s.Errors(op)
	if !attempts {
		count -= errs
	}
	return float64(count) / s.secs, ok
}

// failedOps counts the failed operations of set as the workload counts
// them (a read-modify-write is one): the engine's own count.
func failedOps(set *measure.Set) int64 {
	return min(set.Failed, set.Ops)
}

// okCount is the number of successful operations op's latency is judged
// on.
func (s source) okCount(op string) int64 {
	var n int64
	for _, i := range s.ops(op) {
		if h := s.set.H[measure.Slot(i, s.variant())]; h != nil {
			n += h.TotalCount()
		}
	}
	return n
}

// beyond counts op's successful operations whose latency is above d.
func (s source) beyond(op string, d time.Duration) int64 {
	var n int64
	for _, i := range s.ops(op) {
		if h := s.set.H[measure.Slot(i, s.variant())]; h != nil {
			measure.EachBucket(h, func(lowest, _, count int64) {
				if lowest > int64(d) {
					n += count
				}
			})
		}
	}
	return n
}

// judged is one condition as judged on a probe.
type judged struct {
	t   thresholds.Threshold
	res thresholds.Result
	// ok is the successful operations its latency is judged on, need
	// how many it must have (0: none beyond the intervals), over how many
	// lie beyond its bound (latency under an upper bound only).
	ok, need, over int64
	// service is the same condition on service time (paced probes only).
	service *thresholds.Result
	// iv is a latency percentile's 95 % confidence interval (ns), when
	// hasIV.
	iv    ci.Interval
	hasIV bool
}

// straddles reports whether an upper bound on a latency percentile lies
// strictly within the percentile's 95 % interval: the probe does not
// know on which side its figure is.
func (j judged) straddles() bool {
	if !j.hasIV || j.res.NoData || !isUpper(j.t.Cmp) {
		return false
	}
	return j.iv.Low < j.t.Value && j.t.Value < j.iv.High
}

// ivText is the interval as the verdict gives it: "(95 %: 1.80ms–2.31ms)".
func (j judged) ivText() string {
	return "(95 %: " + report.FormatDuration(time.Duration(j.iv.Low)) + "–" + report.FormatDuration(time.Duration(j.iv.High)) + ")"
}

// evidence reports whether the condition has what it needs.
func (j judged) evidence() bool { return j.ok >= j.need }

// failsEarly reports whether the condition has already failed beyond
// doubt: an upper bound on latency that at least 100 successful
// operations exceed while its figure is above the bound (more operations
// could not bring it under at the evidence a pass needs), a maximum
// above its bound.
func (j judged) failsEarly() bool {
	if j.res.Pass || j.res.NoData || j.t.Metric != "latency" || !strings.HasPrefix(j.t.Cmp, "<") {
		return false
	}
	switch j.t.Stat {
	case "max":
		return true
	case "p":
		return j.over >= 100
	}
	return false
}

// judge evaluates every condition on src.
func judge(conds []thresholds.Threshold, src source) []judged {
	res := thresholds.Evaluate(conds, src)
	out := make([]judged, len(conds))
	for i, t := range conds {
		j := judged{t: t, res: res[i]}
		if t.Metric == "latency" {
			j.ok = src.okCount(t.Op)
			if t.Stat == "p" {
				j.need = needOps(t.Q)
			}
			if strings.HasPrefix(t.Cmp, "<") {
				j.over = src.beyond(t.Op, time.Duration(t.Value))
			}
			if src.paced {
				svc := src
				svc.service = true
				r := thresholds.Evaluate([]thresholds.Threshold{t}, svc)[0]
				j.service = &r
			}
		}
		out[i] = j
	}
	return out
}

// label is a condition's metric as the answer names it: "READ.p99",
// "p99", "errors".
func label(t thresholds.Threshold) string {
	lhs := t.Expr
	if i := strings.IndexAny(lhs, "<>"); i >= 0 {
		lhs = strings.TrimSpace(lhs[:i])
	}
	return lhs
}

// valueText is a condition's figure as the answer gives it: "8.70ms",
// "0.02 %", "1,200 ops/s".
func valueText(j judged) string {
	if j.res.NoData {
		return "no data"
	}
	switch j.t.Metric {
	case "latency":
		return report.FormatDuration(time.Duration(j.res.Actual * 1e3))
	case "errors%":
		return percentText(j.res.Actual)
	case "errors":
		return fmt.Sprintf("%.0f", j.res.Actual)
	}
	return j.res.Text
}

// percentText is a percentage with the figures that matter: "0 %",
// "0.02 %", "12.5 %".
func percentText(p float64) string {
	switch {
	case p == 0:
		return "0 %"
	case p < 0.1:
		return fmt.Sprintf("%.2g %%", p)
	case p < 10:
		return fmt.Sprintf("%.2f %%", p)
	}
	return fmt.Sprintf("%.1f %%", p)
}
