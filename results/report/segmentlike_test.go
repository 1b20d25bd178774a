package report

import "testing"

func TestSegmentLikeIsTheLongestOfTheConfiguration(t *testing.T) {
	t.Parallel()
	s := &Summary{Segments: []SegmentSummary{
		{Index: 1, Threads: 4, Partitions: 1, DurationS: 10, OpsPerSec: 100},
		{Index: 2, Threads: 8, Partitions: 1, DurationS: 10, OpsPerSec: 200},
		{Index: 3, Threads: 4, Partitions: 1, DurationS: 30, OpsPerSec: 110},
		{Index: 4, Threads: 4, Partitions: 1, Target: 500, DurationS: 60, OpsPerSec: 500},
	}}
	g, ok := s.SegmentLike(4, 1, 0)
	if !ok || g.Index != 3 {
		t.Fatalf("SegmentLike(4, 1, 0) = #%d, %v; want #3 (the longest at 4 threads, no target)", g.Index, ok)
	}
	if g, ok := s.SegmentLike(4, 1, 500); !ok || g.Index != 4 {
		t.Fatalf("SegmentLike(4, 1, 500) = #%d, %v; want #4", g.Index, ok)
	}
	if _, ok := s.SegmentLike(16, 1, 0); ok {
		t.Fatal("SegmentLike(16, 1, 0) found a segment the run never held")
	}
}
