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
