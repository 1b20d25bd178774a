package common

import (
	"fmt"
	"math"
	"time"
)

// Baseline is an earlier run shown beside the live one (--baseline): its
// throughput over time as a faint line behind the throughput line, its
// figures beside the live ones.
type Baseline struct {
	// Name is shown as "baseline: NAME" (the JSON summary's file name).
	Name string
	// Spans are its throughput over time in its main phase, timed from
	// its start, in time order.
	Spans []BaselineSpan
	// PerInterval is true when Spans has one span per interval (its CSV
	// time series or HDR log was given), false when one per segment.
	PerInterval bool
	// OpsPerSec is its throughput over its main phase; PhaseRates over
	// each phase ("load", "run"), compared with the live phase's.
	OpsPerSec  float64
	PhaseRates map[string]float64
	// SegmentLike finds its segment of a configuration (its longest) in
	// its JSON summary, compared with the live ones of the same
	// configuration; nil when it has no segments.
	SegmentLike func(threads, partitions int, target float64) (BaselineSegment, bool)
}

// BaselineSegment is what the segments table compares of a baseline's
// segment: its goodput and its p99 (µs, nil when nothing succeeded).
type BaselineSegment struct {
	OpsPerSec float64
	P99US     *float64
}

// BaselineSpan is a rate the baseline held from From to To after its
// start.
type BaselineSpan struct {
	From, To time.Duration
	Rate     float64
}

// PhaseRate is the baseline's throughput over the phase (its main
// throughput when it has no record per phase); ok is false when it did
// not run that phase.
func (b *Baseline) PhaseRate(phase string) (rate float64, ok bool) {
	if len(b.PhaseRates) == 0 {
		return b.OpsPerSec, true
	}
	rate, ok = b.PhaseRates[phase]
	return rate, ok
}

// Segment is the baseline's segment of the given configuration (its
// longest), for the live segment of that configuration.
func (b *Baseline) Segment(threads, partitions int, target float64) (BaselineSegment, bool) {
	if b == nil || b.SegmentLike == nil {
		return BaselineSegment{}, false
	}
	return b.SegmentLike(threads, partitions, target)
}

// PctChange is (now-base)/base in percent; NaN when base is 0.
func PctChange(base, now float64) float64 {
	if base == 0 {
		return math.NaN()
	}
	return 100 * (now - base) / base
}

// SignedPct writes a change as "+3.1 %" or "−8.0 %" (a true minus sign),
// "-" when unknown.
func SignedPct(p float64) string {
	switch {
	case math.IsNaN(p) || math.IsInf(p, 0):
		return "-"
	case p < 0:
		return fmt.Sprintf("−%.1f %%", -p)
	}
	return fmt.Sprintf("+%.1f %%", p)
}
