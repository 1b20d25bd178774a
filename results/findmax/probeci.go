package findmax

// A probe's confidence intervals (results/ci) and the figures its
// reasons and its successor read: the longest service time (the backlog
// to drain) and the wake-up's share of p99.

import (
	"time"

	"benchtop/engine/measure"
	"benchtop/results/ci"
	"benchtop/results/thresholds"
)

// fillCI sets the probe's rate and p99 with their 95 % confidence
// intervals.
func (p *probe) fillCI(src source) {
	p.OpsPerSec = p.GoodputOpsSec
	iv := p.batches.Rate(p.OpsPerSec, 0)
	p.OpsPerSecCILow, p.OpsPerSecCIHigh = min(iv.Low, p.OpsPerSec), max(iv.High, p.OpsPerSec)
	p.P99US, p.P99USCILow, p.P99USCIHigh = nil, nil, nil
	p.serviceP99US = 0
	if h := src.hist("TOTAL", measure.OK); h != nil {
		p.serviceP99US = float64(h.ValueAtQuantile(99)) / 1e3
	}
	h := src.hist("TOTAL", src.variant())
	if h == nil {
		return
	}
	series := ci.Service
	if src.variant() == measure.OKIntended {
		series = ci.Intended
	}
	v := float64(h.ValueAtQuantile(99))
	q := p.batches.Quantile(h, 99, series, 0)
	lo, hi := min(q.Low, v)/1e3, max(q.High, v)/1e3
	v /= 1e3
	p.P99US, p.P99USCILow, p.P99USCIHigh = &v, &lo, &hi
}

// intervals sets the 95 % interval of each latency percentile condition
// judged, on the operation types it names.
func (p *probe) intervals(conds []thresholds.Threshold, src source) {
	for i, t := range conds {
		if i >= len(p.conds) || i >= len(p.judged) || t.Metric != "latency" || t.Stat != "p" {
			continue
		}
		h := src.hist(t.Op, src.variant())
		if h == nil {
			continue
		}
		series := ci.Service
		if src.variant() == measure.OKIntended {
			series = ci.Intended
		}
		iv := p.conds[i].Quantile(h, t.Q, series, 0)
		p.judged[i].iv, p.judged[i].hasIV = iv, true
	}
}

// maxService is the longest service time of the probe's successful
// operations (0: none).
func (p *probe) maxService() time.Duration {
	var m int64
	for op := range measure.NumOps {
		if h := p.set.H[measure.Slot(op, measure.OK)]; h != nil && h.TotalCount() > 0 {
			m = max(m, h.Max())
		}
	}
	return time.Duration(m)
}

// wakeP99US is what the host's wake-up adds at the p99 of a paced probe:
// its p99 from the intended start less that of its service time (µs; 0
// when unknown).
func (p *probe) wakeP99US() float64 {
	if p.P99US == nil || !p.paced() {
		return 0
	}
	return max(0, *p.P99US-p.serviceP99US)
}
