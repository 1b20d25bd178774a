// Package thresholds judges a run by thresholds, as k6 does: expressions such
// as READ.p99<10ms, Intended-TOTAL.p95<=20ms, errors<0.1% or ops>5000,
// each checked against the run's cumulative measurements, live on the
// screen and at the end, where a crossed one makes the exit status 99
// (k6's convention) so that a CI pipeline can gate on a benchmark.
package thresholds

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Threshold is one parsed expression.
type Threshold struct {
	Expr     string  // as given, trimmed
	Op       string  // operation name in upper case (READ, ...); TOTAL for all
	Intended bool    // latency from the intended start (Intended-READ)
	Metric   string  // "latency", "errors", "errors%", "ops" (successful per second) or "attempts" (all per second)
	Stat     string  // latency: "p", "mean", "min" or "max"
	Q        float64 // latency percentile, 0-100
	Cmp      string  // <, <=, > or >=
	Value    float64 // ns for latency, a count, a percentage, or ops/s
}

// Syntax is the one-line description of the expressions, for errors and
// help.
const Syntax = "[Intended-]OP.STAT<DURATION (STAT: p50, p99, p99.9, p(95), mean, min, max; OP: READ, UPDATE, ..., TOTAL; a bare number is ms), [OP.]errors<N or <N%, [OP.]ops>N (successful operations per second), [OP.]attempts>N (successful and failed); comparisons <, <=, >, >="

// Parse reads one threshold expression.
func Parse(expr string) (Threshold, error) {
	t := Threshold{Expr: strings.TrimSpace(expr)}
	lhs, cmp, rhs, ok := splitCmp(t.Expr)
	if !ok {
		return t, fmt.Errorf("threshold %q: no comparison (allowed: %s)", t.Expr, Syntax)
	}
	t.Cmp = cmp
	if err := t.parseMetric(lhs); err != nil {
		return t, fmt.Errorf("threshold %q: %v (allowed: %s)", t.Expr, err, Syntax)
	}
	if err := t.parseValue(rhs); err != nil {
		return t, fmt.Errorf("threshold %q: %v (allowed: %s)", t.Expr, err, Syntax)
	}
	return t, nil
}

// splitCmp splits at the first comparison operator.
func splitCmp(s string) (lhs, cmp, rhs string, ok bool) {
	i := strings.IndexAny(s, "<>")
	if i < 0 {
		return "", "", "", false
	}
	cmp = s[i : i+1]
	rest := s[i+1:]
	if strings.HasPrefix(rest, "=") {
		cmp += "="
		rest = rest[1:]
	}
	return strings.TrimSpace(s[:i]), cmp, strings.TrimSpace(rest), true
}

func (t *Threshold) parseMetric(lhs string) error {
	if lhs == "" {
		return fmt.Errorf("no metric before %s", t.Cmp)
	}
	// Operation names have no dot: the first one separates (READ.p99.9).
	op, stat := "TOTAL", lhs
	if i := strings.Index(lhs, "."); i >= 0 && !isPercentile(lhs) {
		op, stat = lhs[:i], lhs[i+1:]
	}
	if strings.HasPrefix(strings.ToLower(op), "intended-") {
		t.Intended = true
		op = op[len("intended-"):]
	}
	if op == "" || strings.ContainsAny(op, " .<>=") {
		return fmt.Errorf("operation %q", op)
	}
	t.Op = strings.ToUpper(op)
	switch s := strings.ToLower(stat); s {
	case "ops", "errors", "attempts":
		if t.Intended {
			return fmt.Errorf("%s has no intended form", s)
		}
		t.Metric = s
	case "mean", "avg", "min", "max":
		t.Metric, t.Stat = "latency", strings.Replace(s, "avg", "mean", 1)
	case "med":
		t.Metric, t.Stat, t.Q = "latency", "p", 50
	default:
		q, ok := parsePercentile(s)
		if !ok {
			return fmt.Errorf("unknown statistic %q", stat)
		}
		t.Metric, t.Stat, t.Q = "latency", "p", q
	}
	return nil
}

// isPercentile reports whether s is a bare percentile such as p99.9.
func isPercentile(s string) bool {
	_, ok := parsePercentile(strings.ToLower(s))
	return ok
}

// parsePercentile reads p99, p99.9 or p(95).
func parsePercentile(s string) (float64, bool) {
	if !strings.HasPrefix(s, "p") {
		return 0, false
	}
	s = s[1:]
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		s = s[1 : len(s)-1]
	}
	q, err := strconv.ParseFloat(s, 64)
	if err != nil || q <= 0 || q > 100 || math.IsNaN(q) {
		return 0, false
	}
	return q, true
}

func (t *Threshold) parseValue(rhs string) error {
	switch t.Metric {
	case "latency":
		d, err := parseLatency(rhs)
		if err != nil {
			return err
		}
		t.Value = float64(d)
	case "errors":
		if p, ok := strings.CutSuffix(rhs, "%"); ok {
			t.Metric = "errors%"
			rhs = strings.TrimSpace(p)
		}
		fallthrough
	default:
		f, err := strconv.ParseFloat(rhs, 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("value %q is not a number >= 0", rhs)
		}
		if t.Metric == "errors%" && f > 100 {
			return fmt.Errorf("value %q is above 100%%", rhs)
		}
		t.Value = f
	}
	return nil
}

// parseLatency reads 10ms, 250us, 250µs, 1.5s or a bare number of ms.
func parseLatency(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("latency %q is not >= 0", s)
		}
		return time.Duration(f * float64(time.Millisecond)), nil
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, "µ", "u"))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("latency %q is not a duration such as 10ms", s)
	}
	return d, nil
}
