package rundata

import "time"

// SearchView is a capacity search's state (benchtop run ... --find-max,
// results/findmax) as the screens draw it: the conditions, the bracket so
// far, the probe in progress and every probe judged, and once it is over
// the answer. The search sets it on each snapshot of the run phase
// (Snapshot.Search) before the snapshot is published; it is immutable
// from then on, like the rest of the snapshot.
type SearchView struct {
	// Conditions are the --find-max expressions, as given.
	Conditions []string
	// Precision is the bracket's relative width at which the search ends
	// ((Hi-Lo)/Lo, 0.05 for 5 %); Budget its time budget and Elapsed the
	// time it has run.
	Precision       float64
	Budget, Elapsed time.Duration
	// Lo is the highest target that passed, Hi the lowest that failed
	// (ops/s; 0: none yet). Upper is the unlimited probe's goodput, the
	// search's upper bound, and Floor the lowest rate it tries (0 until
	// the unlimited probe is judged).
	Lo, Hi, Upper, Floor float64
	// Current is the probe in progress (nil when none is).
	Current *ProbeView
	// Probes are the probes judged or voided so far, in order.
	Probes []ProbeView
	// Done: the search is over; Answer is its one-line outcome
	// ("sustainable 1,950 ops/s (p99 45.2ms); 2,000 ops/s failed p99
	// 121ms"), Trusted whether it can be trusted and Reasons why not.
	Done    bool
	Answer  string
	Trusted bool
	Reasons []string
}

// ProbeView is one probe of a capacity search: a target held until it
// is judged against the conditions.
type ProbeView struct {
	N       int     // 1-based
	Threads int     // threads in force
	Target  float64 // ops/s, 0 = unlimited
	// Segment is the index of the segment the probe started (0: not
	// known yet).
	Segment int
	// Role is what it is for beside the bracket: "hold" (the answer
	// held before it is given) or "thread-test"; "" for the bracket's
	// own probes.
	Role string
	// State is "transition" (its first interval, left out), "steady"
	// (gathering evidence), "pass", "fail", "void" (a manual change, a
	// pause or the run's end cut it short) or "unjudged".
	State string
	// Intervals and NeedIntervals are its steady intervals and how many
	// it must hold; Ops and NeedOps the successful operations of its
	// scarcest percentile condition and how many that needs (100/(1-q)).
	Intervals, NeedIntervals int
	Ops, NeedOps             int64
	// Goodput is successful operations per second over its steady part.
	Goodput float64
	// Decided is the condition that decided it, with its value: the first
	// that failed ("p99 121ms > 100ms"), or for a pass the one closest to
	// its bound; the reason for a void.
	Decided string
}
