package metrics

import "benchtop/engine/measure"

// The one place that turns an interval's Set into counts of successful
// and failed operations: every series of this package that counts
// outcomes goes through these two functions, so that a change in how the
// engine keeps them (issue 24's verdicts) changes only these.

// outcomes counts one operation type's successful and failed operations
// in set: the values of its OK histogram (service time of successful
// operations) and of its Failed one. A failed operation is never a
// sample of the success histogram, so neither count holds the other.
func outcomes(set *measure.Set, op int) (ok, failed int64) {
	if h := set.H[measure.Slot(op, measure.OK)]; h != nil {
		ok = h.TotalCount()
	}
	if h := set.H[measure.Slot(op, measure.Failed)]; h != nil {
		failed = h.TotalCount()
	}
	return ok, failed
}

// workloadOps counts the workload's operations in set as its throughput
// counts them (a read-modify-write is one, though its read and update
// are measured too): Set.Ops, split by outcome as the engine counts the
// failed ones (Set.Failed: a read-modify-write whose read failed is one
// failed operation).
func workloadOps(set *measure.Set) (ok, failed int64) {
	return set.OK(), set.Failed
}
