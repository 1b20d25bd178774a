package rundata

// SegmentState is what the rules of best and knee (results/marks) made of
// a segment or a row.
type SegmentState string

// The states of a segment.
const (
	Qualified SegmentState = "qualified"
	TooShort  SegmentState = "too short"
	Errors    SegmentState = "errors"
	Stalled   SegmentState = "stalled"
	Paused    SegmentState = "paused"
	Empty     SegmentState = "empty" // no operation at all
)

// OutageIntervals is how many consecutive intervals without a successful
// operation (operations attempted and all failed, or none completed while
// the workers ran) make an outage: a run phase holding one exits 1, and
// the header says so.
const OutageIntervals = 3
