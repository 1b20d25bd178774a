package engine

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
	"benchtop/workload"
)

// PhaseResult is what a finished phase measured, for reports.
type PhaseResult struct {
	Phase       Phase
	Start       time.Time
	RunTime     time.Duration
	Set         *measure.Set // cumulative measurements
	Final       *Snapshot
	Segments    []Segment
	Interrupted bool
	Intended    bool // intended-latency histograms were recorded
	Measurement string
	Percentiles []float64
	// MeanCPU is the mean client CPU % over the measured readings,
	// negative when none was measured (unknown).
	MeanCPU float64
	// OpNames names the operation types of Set by index.
	OpNames []string
	// Closing is the workload's closing section (last phase only), if any.
	Closing *workload.Final
	// Events are the changes, marks and phase starts published during the
	// phase, in order, timed from the start of the run.
	Events []Event
	// Rated: the throughput is the workload's own count (RateCount over
	// the run time: the time series' records acknowledged), not its
	// operations (workload.Factory.RateKey).
	Rated     bool
	RateCount float64
	// Grace is how long operations in flight at the deadline or a stop
	// were given before they were cut off (Options.StopGrace).
	Grace time.Duration
	// GoodputLow and GoodputHigh bound Goodput (rated workloads: its
	// operations'), a 95 % confidence interval; P99 is the successful
	// operations' p99 over the phase (from the intended start when
	// measured), P99Low and P99High its interval; HasP99: something
	// succeeded (results/ci).
	GoodputLow, GoodputHigh float64
	P99, P99Low, P99High    time.Duration
	HasP99                  bool
	// Outages are the spans of OutageIntervals or more consecutive
	// intervals in which no operation succeeded.
	Outages []Outage

	// Output is how the report is written (YCSB's exporter, measurement
	// type, ...).
	Output Output
	// GC is the Go runtime's collections during the phase.
	GC GCStats
	// Cleanup holds each worker's cleanup time (ns), for [CLEANUP]; nil
	// when no worker ran.
	Cleanup *hdr.Histogram
	// Pacer is the pacer's lateness over the phase; nil when no
	// operation was paced.
	Pacer *PacerStats
	// Units are the timeseries measurement type's units per histogram
	// slot (measure.Slot), when measurementtype=timeseries.
	Units [measure.NumSlots][]SeriesUnit
}

// Throughput is operations per second over the phase, successful and
// failed: YCSB's [OVERALL] Throughput(ops/sec), which counts every
// operation. Everywhere benchtop speaks for itself it gives Goodput.
// For a rated workload (the time series), it is its one rate: the
// workload's count per second (records acknowledged), as Goodput.
func (r *PhaseResult) Throughput() float64 {
	if r.RunTime <= 0 {
		return 0
	}
	if r.Rated {
		return r.RateCount / r.RunTime.Seconds()
	}
	return float64(r.Set.Ops) / r.RunTime.Seconds()
}

// Goodput is successful operations per second over the phase (for a
// rated workload, its count per second).
func (r *PhaseResult) Goodput() float64 {
	if r.RunTime <= 0 {
		return 0
	}
	if r.Rated {
		return r.RateCount / r.RunTime.Seconds()
	}
	return float64(r.Set.OK()) / r.RunTime.Seconds()
}

// FailedRate is failed operations per second over the phase.
func (r *PhaseResult) FailedRate() float64 {
	if r.RunTime <= 0 {
		return 0
	}
	return float64(r.Set.Failed) / r.RunTime.Seconds()
}
