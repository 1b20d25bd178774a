package tui

import (
	"testing"
	"time"

	"benchtop/rundata"
)

// `: segment N` gives the segment's exact figures with their intervals.
func TestSegmentExact(t *testing.T) {
	t.Parallel()
	s := &rundata.Snapshot{Segments: []rundata.Segment{
		{Index: 1, OpsPerSec: 153.14, OpsPerSecLow: 146.1, OpsPerSecHigh: 160.1, HasLatency: true,
			P99: 240 * time.Millisecond, P99Low: 209 * time.Millisecond, P99High: 290 * time.Millisecond, Intervals: 18},
		{Index: 2, OpsPerSec: 160.1, OpsPerSecLow: 155.4, OpsPerSecHigh: 164.8},
	}}
	for _, c := range []struct {
		n    int
		want string
	}{
		{1, "#1: 153.1 ops/s [146.1, 160.1], p99 240ms [209ms, 290ms] (95 %, 18 intervals)"},
		{0, "#2: 160.1 ops/s [155.4, 164.8], p99 – (95 %, 0 intervals)"},
		{3, "segment 3: no such segment (1 to 2)"},
	} {
		if got := segmentExact(s, c.n); got != c.want {
			t.Errorf("segment %d: %q, want %q", c.n, got, c.want)
		}
	}
}
