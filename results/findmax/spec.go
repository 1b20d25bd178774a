package findmax

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"benchtop/engine"
	"benchtop/results/thresholds"
)

// Spec is a capacity search as the command line asks for it.
type Spec struct {
	// Conditions are the --find-max expressions, parsed.
	Conditions []thresholds.Threshold
	// Precision is the bracket's relative width ((hi-lo)/lo) at which
	// the search ends.
	Precision float64
	// Budget is the time the whole search may take (all thread counts).
	Budget time.Duration
	// Floor is the lowest target tried, in ops/s; when 0, FloorShare of
	// the unlimited probe's rate.
	Floor      float64
	FloorShare float64
	// Threads are --find-max-over's thread counts, searched in turn; nil
	// searches at the run's threads.
	Threads []int
	// StopOnThreads ends the search when its first probes show the
	// threads as the limit (headless runs: the answer would only say
	// so after minutes); on the screen the search goes on.
	StopOnThreads bool
	// Local is the server's address when it is on the client's host
	// (loopback), "" otherwise: an untrusted answer says so.
	Local string
}

// Defaults of a search.
const (
	DefaultPrecision  = 0.05
	DefaultBudget     = 10 * time.Minute
	DefaultFloorShare = 0.01
	// MinIntervals is how many steady intervals (after its transition
	// interval) a probe holds before it is judged.
	MinIntervals = 5
	// MinBudget is the shortest budget a search may be given.
	MinBudget = 10 * time.Second
)

// NewSpec is a spec of the defaults for conditions.
func NewSpec(conditions []thresholds.Threshold) Spec {
	return Spec{Conditions: conditions, Precision: DefaultPrecision, Budget: DefaultBudget, FloorShare: DefaultFloorShare}
}

// Exprs are the conditions as given.
func (s Spec) Exprs() []string {
	out := make([]string, len(s.Conditions))
	for i, c := range s.Conditions {
		out[i] = c.Expr
	}
	return out
}

// HasLatency reports whether a condition judges latency.
func (s Spec) HasLatency() bool {
	return slices.ContainsFunc(s.Conditions, func(t thresholds.Threshold) bool { return t.Metric == "latency" })
}

// ParseCondition reads one --find-max expression (--threshold's
// language).
func ParseCondition(v string) (thresholds.Threshold, error) {
	t, err := thresholds.Parse(v)
	if err != nil {
		return t, fmt.Errorf("--find-max: %v", err)
	}
	return t, nil
}

// ParsePrecision reads --find-max-precision: a percentage (5%) or a
// fraction (0.05), from 0.1 % to 50 %.
func ParsePrecision(v string) (float64, error) {
	s := strings.TrimSpace(v)
	pct := strings.HasSuffix(s, "%")
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(s, "%")), 64)
	if err == nil && pct {
		f /= 100
	}
	if err != nil || math.IsNaN(f) || f < 0.001 || f > 0.5 {
		return 0, fmt.Errorf("--find-max-precision %q: expected a relative width of the bracket from 0.1%% to 50%%, such as 5%% or 0.05", v)
	}
	return f, nil
}

// ParseFloor reads --find-max-min: ops/s (500), or a percentage of the
// unlimited probe's rate (2%), above 0 and below 100 %.
func ParseFloor(v string) (abs, share float64, err error) {
	s := strings.TrimSpace(v)
	bad := fmt.Errorf("--find-max-min %q: expected ops/s > 0 (such as 500) or a share of the unlimited probe's rate (such as 2%%, below 100%%)", v)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || f <= 0 || f >= 100 {
			return 0, 0, bad
		}
		return 0, f / 100, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 || f > 1e12 {
		return 0, 0, bad
	}
	return f, 0, nil
}

// ParseOver reads --find-max-over threads=16,64,256: distinct thread
// counts, each searched in turn.
func ParseOver(v string) ([]int, error) {
	key, vals, ok := strings.Cut(strings.TrimSpace(v), "=")
	if !ok || strings.TrimSpace(key) != "threads" || strings.TrimSpace(vals) == "" {
		return nil, fmt.Errorf("--find-max-over %q: expected threads=N1,N2,... (such as threads=16,64,256)", v)
	}
	var out []int
	for _, f := range strings.Split(vals, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > engine.MaxThreads {
			return nil, fmt.Errorf("--find-max-over %q: threads %q: expected a whole number from 1 to %d", v, strings.TrimSpace(f), engine.MaxThreads)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("--find-max-over %q: threads %d given twice", v, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// needOps is how many successful operations a percentile q (0-100)
// needs before it is judged: 100/(1-q), so that at least 100 of them lie
// beyond it. A maximum (q = 100) needs none beyond the intervals.
func needOps(q float64) int64 {
	if q >= 100 {
		return 0
	}
	return int64(math.Ceil(100/(1-q/100) - 1e-6))
}
