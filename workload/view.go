package workload

import "benchtop/rundata"

// A workload's own figures, typed, as the Snapshot carries them: the
// types live in the contract package (benchtop/rundata) so that the
// screens draw them without importing a workload or the runner.
type (
	View           = rundata.WorkloadView
	Rate           = rundata.WorkloadRate
	Figure         = rundata.Figure
	PartitionsView = rundata.PartitionsView
	PartitionView  = rundata.PartitionView
	Latency        = rundata.Latency
)

// MergeRates adds processes' views of one interval into one (a fleet's):
// their rates added up; nil views are skipped, and nil is returned when
// all are. A workload's Group adds what else its views hold.
func MergeRates(views []*View) *View {
	var out *View
	rate := &Rate{}
	for _, v := range views {
		if v == nil {
			continue
		}
		if out == nil {
			out = &View{}
		}
		if r := v.Rate; r != nil {
			rate.Name, rate.Unit = r.Name, r.Unit
			rate.Value += r.Value
			rate.Mean += r.Mean
			rate.MBps += r.MBps
			out.Rate = rate
		}
	}
	return out
}
