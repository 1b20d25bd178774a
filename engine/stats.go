package engine

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
)

// Summarize turns a histogram (values in ns) into Stats over a period of
// length period. errs and oor are carried over as given.
func Summarize(h *hdr.Histogram, period time.Duration, percentiles []float64) Stats {
	var s Stats
	if h == nil || h.TotalCount() == 0 {
		return s
	}
	s.Count = h.TotalCount()
	s.OK = s.Count
	if period > 0 {
		s.Rate = float64(s.Count) / period.Seconds()
	}
	s.Mean = time.Duration(h.Mean())
	s.Min = time.Duration(h.Min())
	s.Max = time.Duration(h.Max())
	s.P50 = time.Duration(h.ValueAtQuantile(50))
	s.P95 = time.Duration(h.ValueAtQuantile(95))
	s.P99 = time.Duration(h.ValueAtQuantile(99))
	s.P999 = time.Duration(h.ValueAtQuantile(99.9))
	for _, q := range percentiles {
		s.Percentiles = append(s.Percentiles, Percentile{Q: q, Value: time.Duration(h.ValueAtQuantile(q))})
	}
	return s
}

// mergeVariant merges one variant's histograms across all operation types.
func mergeVariant(set *measure.Set, variant int) *hdr.Histogram {
	var out *hdr.Histogram
	for op := 0; op < measure.NumOps; op++ {
		h := set.H[measure.Slot(op, variant)]
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		if out == nil {
			out = measure.NewHistogram()
		}
		measure.MergeHistogram(out, h)
	}
	return out
}

// opStats summarises one operation type of set: latencies and Rate of
// successful operations, Count of all, Errors and FailedRate of failed
// ones.
func opStats(set *measure.Set, op, okVariant, failVariant int, period time.Duration, pct []float64) Stats {
	s := Summarize(set.H[measure.Slot(op, okVariant)], period, pct)
	var failed int64
	if h := set.H[measure.Slot(op, failVariant)]; h != nil {
		failed = h.TotalCount()
	}
	if len(set.Errors[op]) > 0 {
		s.ErrorsByKind = make(map[string]int64, len(set.Errors[op]))
		for k, n := range set.Errors[op] {
			s.ErrorsByKind[k] = n
		}
	}
	s.Causes = copyCauses(nil, set.Causes[op])
	s.Errors = failed
	s.Count += failed
	if period > 0 {
		s.FailedRate = float64(failed) / period.Seconds()
	}
	s.OutOfRange = set.OutOfRange[measure.Slot(op, okVariant)] + set.OutOfRange[measure.Slot(op, failVariant)]
	return s
}

func hasOp(set *measure.Set, op int) bool {
	for v := 0; v < measure.NumVariants; v++ {
		if h := set.H[measure.Slot(op, v)]; h != nil && h.TotalCount() > 0 {
			return true
		}
	}
	return len(set.Errors[op]) > 0
}

// buildOps builds the per-operation and total entries of a snapshot.
func buildOps(names []string, ivl, cum *measure.Set, ivlLen, cumLen time.Duration, intended bool, pct []float64) ([]OpSnapshot, OpSnapshot) {
	var ops []OpSnapshot
	for op := 0; op < len(names) && op < measure.NumOps; op++ {
		if !hasOp(cum, op) {
			continue
		}
		o := OpSnapshot{
			Name:       names[op],
			Interval:   opStats(ivl, op, measure.OK, measure.Failed, ivlLen, pct),
			Cumulative: opStats(cum, op, measure.OK, measure.Failed, cumLen, pct),
		}
		if intended {
			ii := opStats(ivl, op, measure.OKIntended, measure.FailedIntended, ivlLen, pct)
			ci := opStats(cum, op, measure.OKIntended, measure.FailedIntended, cumLen, pct)
			o.IntendedInterval, o.IntendedCumulative = &ii, &ci
		}
		ops = append(ops, o)
	}
	total := OpSnapshot{Name: "TOTAL"}
	total.Interval = totalStats(ivl, ivlLen)
	total.Cumulative = totalStats(cum, cumLen)
	if intended {
		// Latency from the intended start over all operation types: the
		// time series' overall intended columns and the thresholds on
		// Intended-TOTAL.
		ii := Summarize(mergeVariant(ivl, measure.OKIntended), ivlLen, nil)
		ci := Summarize(mergeVariant(cum, measure.OKIntended), cumLen, nil)
		total.IntendedInterval, total.IntendedCumulative = &ii, &ci
	}
	return ops, total
}

// totalStats summarises every operation type of set: operations as the
// workload counts them (a read-modify-write is one), successful and
// failed, and the successful ones' latency.
func totalStats(set *measure.Set, period time.Duration) Stats {
	s := Summarize(mergeVariant(set, measure.OK), period, nil)
	s.Count, s.OK, s.Errors = set.Ops, set.OK(), set.Failed
	if s.OK <= 0 {
		// Nothing succeeded: whatever sub-operation latency the
		// histograms hold (a read-modify-write's READ) is no latency of
		// an operation.
		s = Stats{Count: set.Ops, Errors: set.Failed}
	}
	for op, m := range set.Errors {
		for k, n := range m {
			if s.ErrorsByKind == nil {
				s.ErrorsByKind = map[string]int64{}
			}
			s.ErrorsByKind[k] += n
		}
		s.Causes = copyCauses(s.Causes, set.Causes[op])
	}
	s.Rate, s.FailedRate = 0, 0
	if period > 0 {
		s.Rate = float64(max(s.OK, 0)) / period.Seconds()
		s.FailedRate = float64(set.Failed) / period.Seconds()
	}
	return s
}

// copyCauses adds the causes of src to dst (allocated when needed).
func copyCauses(dst, src map[string]string) map[string]string {
	for k, msg := range src {
		if dst == nil {
			dst = make(map[string]string, len(src))
		}
		dst[k] = msg
	}
	return dst
}
