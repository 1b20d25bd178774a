package engine

import "benchtop/rundata"

// The run's data as everyone reads it lives in benchtop/rundata, the
// contract apart from the runner (docs/architecture.md); these names keep
// the engine's own code and its older callers reading as before.
type (
	Phase          = rundata.Phase
	Info           = rundata.Info
	Stats          = rundata.Stats
	Percentile     = rundata.Percentile
	OpSnapshot     = rundata.OpSnapshot
	Event          = rundata.Event
	Segment        = rundata.Segment
	Snapshot       = rundata.Snapshot
	AgentRow       = rundata.AgentRow
	IntervalData   = rundata.IntervalData
	SearchView     = rundata.SearchView
	ProbeView      = rundata.ProbeView
	RunMeta        = rundata.RunMeta
	BuildVersion   = rundata.BuildVersion
	WorkloadView   = rundata.WorkloadView
	WorkloadRate   = rundata.WorkloadRate
	PartitionsView = rundata.PartitionsView
	PartitionView  = rundata.PartitionView
	Latency        = rundata.Latency
	Figure         = rundata.Figure
)

// The phases of a run, in order.
const (
	PhaseLoad = rundata.PhaseLoad
	PhaseRun  = rundata.PhaseRun
	PhaseDone = rundata.PhaseDone
)
