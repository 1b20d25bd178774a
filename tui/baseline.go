package tui

import (
	"benchtop/results/report"
	"benchtop/tui/common"
)

// BaselineSegments is common.Baseline's SegmentLike for an earlier run's
// JSON summary: its longest segment of a configuration; nil when the
// summary has no segments (the table then has no Δ columns).
func BaselineSegments(s *report.Summary) func(threads, partitions int, target float64) (common.BaselineSegment, bool) {
	if s == nil || len(s.Segments) == 0 {
		return nil
	}
	return func(threads, partitions int, target float64) (common.BaselineSegment, bool) {
		g, ok := s.SegmentLike(threads, partitions, target)
		return common.BaselineSegment{OpsPerSec: g.OpsPerSec, P99US: g.P99US}, ok
	}
}
