package findmax

import "benchtop/rundata"

// The search's outcome as the outputs record it lives in the contract
// package (benchtop/rundata), so that the reports read it without
// importing the search; these are its names here.
type (
	Report    = rundata.Capacity
	Result    = rundata.CapacityResult
	Probe     = rundata.CapacityProbe
	Condition = rundata.CapacityCondition
	Bracket   = rundata.CapacityBracket
	Reason    = rundata.CapacityReason
)

// Outcomes of a search (Result.Outcome), of a probe (Probe.Outcome),
// statuses of a search and kinds of reasons (Reason.Kind): rundata's.
const (
	Answer     = rundata.SearchAnswer
	None       = rundata.SearchNone
	Unfinished = rundata.SearchUnfinished

	Pass      = rundata.ProbePass
	Fail      = rundata.ProbeFail
	Void      = rundata.ProbeVoid
	Unjudged  = rundata.ProbeUnjudged
	Undecided = rundata.ProbeUndecided

	StatusTrusted   = rundata.CapacityTrusted
	StatusUntrusted = rundata.CapacityUntrusted
	StatusNone      = rundata.CapacityNone

	ReasonClient   = rundata.ReasonClient
	ReasonThreads  = rundata.ReasonThreads
	ReasonErrors   = rundata.ReasonErrors
	ReasonUnclosed = rundata.ReasonUnclosed
	ReasonWakeup   = rundata.ReasonWakeup
	ReasonLocal    = rundata.ReasonLocal
	ReasonUnheld   = rundata.ReasonUnheld

	Hold       = rundata.ProbeHold
	ThreadTest = rundata.ProbeThreadTest
)

// rateText is a rate in ops/s: "1,950 ops/s", "12.5 ops/s".
func rateText(r float64) string { return rundata.RateText(r) }
