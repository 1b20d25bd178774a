package report

// SegmentLike is the summary's longest segment held at the given
// configuration (threads, partitions, target): the one a later run's
// segment of that configuration is compared with (benchtop report
// --compare, and --baseline on a live run). ok is false when the run never
// held it.
func (s *Summary) SegmentLike(threads, partitions int, target float64) (seg SegmentSummary, ok bool) {
	for _, g := range s.Segments {
		if g.Threads != threads || g.Partitions != partitions || g.Target != target {
			continue
		}
		if !ok || g.DurationS > seg.DurationS {
			seg, ok = g, true
		}
	}
	return seg, ok
}
