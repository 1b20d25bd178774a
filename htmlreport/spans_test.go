package htmlreport

import (
	"testing"

	"benchtop/results/report"
)

func TestThroughputSpans(t *testing.T) {
	t.Parallel()
	segs := []report.SegmentSummary{{StartS: 2, DurationS: 3, OpsPerSec: 100}, {StartS: 5, DurationS: 2, OpsPerSec: 300}}
	// From the CSV rows: one span per interval, the load phase's marked.
	run := &Run{Summary: report.Summary{Segments: segs}, Rows: []Row{
		{ElapsedS: 1, IntervalS: 1, Phase: "load", OpsPerSec: 50},
		{ElapsedS: 2, IntervalS: 1, Phase: "load", OpsPerSec: 60},
		{ElapsedS: 3, IntervalS: 1, Phase: "run", OpsPerSec: 90},
		{ElapsedS: 3.5, IntervalS: 0.5, Phase: "run", OpsPerSec: 110},
	}}
	want := []Span{{0, 1, 50, true}, {1, 2, 60, true}, {2, 3, 90, false}, {3, 3.5, 110, false}}
	if got := ThroughputSpans(run); !equalSpans(got, want) || !run.PerInterval() {
		t.Errorf("from rows: %v (per interval %v), want %v", got, run.PerInterval(), want)
	}
	// From the JSON alone: one span per segment.
	run = &Run{Summary: report.Summary{Segments: segs}}
	want = []Span{{2, 5, 100, false}, {5, 7, 300, false}}
	if got := ThroughputSpans(run); !equalSpans(got, want) || run.PerInterval() {
		t.Errorf("from segments: %v (per interval %v), want %v", got, run.PerInterval(), want)
	}
}

func equalSpans(a, b []Span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
