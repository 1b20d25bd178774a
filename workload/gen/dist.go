package gen

import (
	"fmt"
	"math"
)

// Hotspot is YCSB's HotspotIntegerGenerator: a fraction hotOpnFraction of the
// draws fall uniformly in the hot set, the first hotsetFraction of [lo, hi];
// the others fall uniformly in the rest (the cold set).
type Hotspot struct {
	lo, hot, cold int64
	hotOpn        float64
}

// NewHotspot returns a hotspot generator over [lo, hi], both inclusive. The
// hot set is [lo, lo+h) with h = int64((hi-lo+1) * hotsetFraction), as in
// YCSB (which truncated h to 32 bits). As in YCSB, bounds in the wrong order
// are swapped and a fraction outside [0, 1] (see ValidateFraction) is taken as
// 0. When the hot set or the cold set is empty every draw falls in the other
// one (YCSB would divide by zero).
func NewHotspot(lo, hi int64, hotsetFraction, hotOpnFraction float64) *Hotspot {
	lo, _, n := normRange(lo, hi)
	if ValidateFraction(hotsetFraction) != nil {
		hotsetFraction = 0
	}
	if ValidateFraction(hotOpnFraction) != nil {
		hotOpnFraction = 0
	}
	hot := min(int64(float64(n)*hotsetFraction), n)
	h := &Hotspot{lo: lo, hot: hot, cold: n - hot, hotOpn: hotOpnFraction}
	switch {
	case h.hot == 0:
		h.hotOpn = 0
	case h.cold == 0:
		h.hotOpn = 1
	}
	return h
}

// HotSize returns the number of values in the hot set [lo, lo+HotSize()).
func (h *Hotspot) HotSize() int64 { return h.hot }

// Next returns a value in [lo, hi].
func (h *Hotspot) Next(r *Rand) int64 {
	if r.Float64() < h.hotOpn {
		return h.lo + r.Int64N(h.hot)
	}
	return h.lo + h.hot + r.Int64N(h.cold)
}

// Exponential is YCSB's ExponentialGenerator built from (percentile, range):
// exponentially distributed values with rate
// gamma = -ln(1 - percentile/100) / range, so that percentile % of the draws
// fall below range. YCSB's workload uses it as an offset back from the latest
// inserted key (key = last - draw, redrawn while negative).
type Exponential struct {
	gamma float64
}

// Defaults of YCSB's exponential.percentile and exponential.frac properties.
const (
	ExponentialPercentileDefault = 95.0
	ExponentialFracDefault       = 0.8571428571
)

// ValidateExponential reports whether NewExponential can use percentile and
// rng: percentile must lie strictly between 0 and 100 and rng must be finite
// and > 0.
func ValidateExponential(percentile, rng float64) error {
	if !(percentile > 0 && percentile < 100) {
		return fmt.Errorf("exponential percentile %v must be > 0 and < 100", percentile)
	}
	if !(rng > 0) || math.IsInf(rng, 0) {
		return fmt.Errorf("exponential range %v must be finite and > 0", rng)
	}
	return nil
}

// NewExponential returns YCSB's ExponentialGenerator(percentile, range). An
// invalid percentile (see ValidateExponential) is replaced by
// ExponentialPercentileDefault and an invalid range by 1.
func NewExponential(percentile, rng float64) *Exponential {
	if !(percentile > 0 && percentile < 100) {
		percentile = ExponentialPercentileDefault
	}
	if !(rng > 0) || math.IsInf(rng, 0) {
		rng = 1
	}
	return &Exponential{gamma: -math.Log(1-percentile/100) / rng}
}

// Gamma returns the rate of the distribution.
func (e *Exponential) Gamma() float64 { return e.gamma }

// Mean returns 1/gamma, the mean of NextFloat.
func (e *Exponential) Mean() float64 { return 1 / e.gamma }

// NextFloat returns an exponentially distributed value with rate gamma (YCSB's
// nextValue, -ln(U)/gamma).
func (e *Exponential) NextFloat(r *Rand) float64 { return r.ExpFloat64() / e.gamma }

// Next returns NextFloat truncated towards zero (YCSB's intValue()), capped at
// math.MaxInt64.
func (e *Exponential) Next(r *Rand) int64 {
	f := e.NextFloat(r)
	if f >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(f)
}

// ValidateWeight reports whether w can be given to Discrete.Add: finite and
// >= 0 (a zero weight is accepted and ignored).
func ValidateWeight(w float64) error {
	if !(w >= 0) || math.IsInf(w, 0) {
		return fmt.Errorf("weight %v must be finite and >= 0", w)
	}
	return nil
}

// Discrete is YCSB's DiscreteGenerator: it returns one of a set of values with
// probability proportional to its weight (weights need not sum to 1). It is
// built with Add before being shared; Next is then safe for concurrent use.
type Discrete struct {
	cum   []float64 // running sums of the weights
	vals  []int
	total float64
}

// NewDiscrete returns an empty Discrete.
func NewDiscrete() *Discrete { return &Discrete{} }

// Add adds value with the given weight. Weights that are zero, negative,
// infinite or NaN are ignored, as YCSB's workload skips operations whose
// proportion is 0. Add must not run concurrently with Next or another Add.
func (d *Discrete) Add(weight float64, value int) {
	if !(weight > 0) || math.IsInf(weight, 0) {
		return
	}
	d.total += weight
	d.cum = append(d.cum, d.total)
	d.vals = append(d.vals, value)
}

// Empty reports whether no value has a positive weight.
func (d *Discrete) Empty() bool { return len(d.vals) == 0 }

// Next returns a value chosen with probability weight/sum of weights, or -1
// when the Discrete is Empty.
func (d *Discrete) Next(r *Rand) int {
	if len(d.vals) == 0 {
		return -1
	}
	x := r.Float64() * d.total
	for i, c := range d.cum {
		if x < c {
			return d.vals[i]
		}
	}
	return d.vals[len(d.vals)-1] // rounding at the very top
}
