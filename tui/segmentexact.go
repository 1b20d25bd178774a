package tui

import (
	"fmt"
	"strconv"

	"benchtop/rundata"
	"benchtop/tui/format"
)

// segmentExact is the `: segment N` answer: segment n's (0: the latest)
// goodput and p99 with their 95 % confidence intervals, exact.
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
	text := fmt.Sprintf("#%d: %s ops/s (95 %%: %s–%s)", g.Index, rate(g.OpsPerSec), rate(g.OpsPerSecLow), rate(g.OpsPerSecHigh))
	if g.HasLatency {
		text += fmt.Sprintf(", p99 %s (95 %%: %s–%s)", format.Duration(g.P99), format.Duration(g.P99Low), format.Duration(g.P99High))
	} else {
		text += ", p99 " + format.NoLatency
	}
	return text + fmt.Sprintf(", %d steady intervals", g.Intervals)
}
