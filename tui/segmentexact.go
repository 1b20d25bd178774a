package tui

import (
	"fmt"
	"strconv"

	"benchtop/rundata"
	"benchtop/tui/format"
)

// segmentExact is the `: segment N` answer: segment n's (0: the latest)
// goodput and p99 with their 95 % confidence intervals, exact, and its
// steady intervals: "#1: 153.1 ops/s [146.1, 160.1], p99 240ms [209ms,
// 290ms] (95 %, 18 intervals)", within 80 columns.
func segmentExact(s *rundata.Snapshot, n int) string {
	if s == nil || len(s.Segments) == 0 {
		return "no segment yet"
	}
	g := s.Segments[len(s.Segments)-1]
	if n > 0 {
		found := false
		for _, x := range s.Segments {
			if x.Index == n {
				g, found = x, true
			}
		}
		if !found {
			return fmt.Sprintf("segment %d: no such segment (1 to %d)", n, g.Index)
		}
	}
	rate := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	text := fmt.Sprintf("#%d: %s ops/s [%s, %s]", g.Index, rate(g.OpsPerSec), rate(g.OpsPerSecLow), rate(g.OpsPerSecHigh))
	if g.HasLatency {
		text += fmt.Sprintf(", p99 %s [%s, %s]", format.Duration(g.P99), format.Duration(g.P99Low), format.Duration(g.P99High))
	} else {
		text += ", p99 " + format.NoLatency
	}
	return text + fmt.Sprintf(" (95 %%, %d intervals)", g.Intervals)
}
