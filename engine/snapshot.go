package engine

import (
	"time"

	"benchtop/engine/measure"
	"benchtop/rundata"
)

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

// IntervalData is one interval's raw measurements, apart from the
// Snapshot (the contract the screens read does not carry histograms): the
// OnInterval and OnIntervalData hooks get it. Set encodes to
// HdrHistogram's standard compressed encoding (MarshalBinary, MarshalJSON)
// and decodes to an equal value; two intervals merge exactly
// (measure.Set.Merge adds bucket by bucket).
type IntervalData struct {
	Phase      Phase
	OpNames    []string // operation types by index in Set
	Start, End time.Time
	Set        *measure.Set
	// Delta is the workload's counts of the interval (workload.Sample's,
	// e.g. the stream's rows and MB), nil when it has none.
	Delta map[string]float64
}
