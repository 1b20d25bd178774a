package rundata

import (
	"fmt"
	"time"
)

// Phase is the stage of a run.
type Phase string

// The phases of a run, in order.
const (
	PhaseLoad Phase = "load"
	PhaseRun  Phase = "run"
	PhaseDone Phase = "done"
)

// Info is what does not change during a run: what is being measured, shown
// in headers and reports.
type Info struct {
	Command  string // "load" or "run"
	Adapter  string // registry name, e.g. "memory"
	Target   string // Describer output (URL with password masked), may be ""
	Workload string // e.g. "workloada" or "core"
	// Mix describes the operation mix and key choice, e.g.
	// "read 50 / update 50, zipfian".
	Mix string
	// CanRepartition tells whether SetPartitions reaches the database.
	CanRepartition bool
	// Properties are the effective properties, secrets removed.
	Properties map[string]string
	Start      time.Time
	// Meta describes the run (command line, build, client host) for the
	// report's header and the JSON summary.
	Meta RunMeta
	// Agents is how many agents a fleet run has (0: a run of one
	// process); its threads are per agent.
	Agents int
	// Thresholds are the --threshold expressions the run is judged by
	// (results/thresholds parses and evaluates them).
	Thresholds []string
	// RateUnit is the unit of the run's one rate when it is not
	// operations per second (the time series' "records/s":
	// workload.Factory.RateUnit); "" for ops/s.
	RateUnit string
	// OpUnits names what an operation type counts when it is not an
	// operation of that rate (the time series' WRITE: "batches").
	OpUnits map[string]string
}

// Stats summarises latencies and outcomes of one operation type over a
// period (an interval, a segment or the whole run).
//
// The latency figures summarise the successful operations only (failed
// ones are kept apart, as YCSB's [READ-FAILED]): with none (OK == 0)
// there is no latency, HasLatency is false and the figures are zero and
// mean nothing; outputs show "–" (JSON null), never 0.
type Stats struct {
	// Count is the number of operations that completed, successful or
	// failed (the attempts that ended); OK how many succeeded.
	Count, OK int64
	// Errors is how many of them failed; ErrorsByKind splits them (per
	// operation type: a read-modify-write's failed READ counts under READ
	// too), and Causes holds the latest message of each kind.
	Errors       int64
	ErrorsByKind map[string]int64
	Causes       map[string]string
	// Rate is successful operations per second over the period
	// (goodput), FailedRate failed ones: throughput is Rate, never the
	// two together.
	Rate, FailedRate float64
	// Latency summary of the successful operations (see HasLatency).
	Mean, Min, Max      time.Duration
	P50, P95, P99, P999 time.Duration
	Percentiles         []Percentile // the configured hdrhistogram.percentiles
	OutOfRange          int64        // values beyond the histogram range, clamped
}

// HasLatency reports whether the latency figures mean anything: some
// operation succeeded.
func (s Stats) HasLatency() bool { return s.OK > 0 }

// AttemptRate is operations per second, successful and failed.
func (s Stats) AttemptRate() float64 { return s.Rate + s.FailedRate }

// Percentile is one configured percentile value.
type Percentile struct {
	Q     float64 // 0-100, e.g. 99.9
	Value time.Duration
}

// OpSnapshot is one operation type in a snapshot.
type OpSnapshot struct {
	Name string // YCSB name: READ, UPDATE, INSERT, SCAN, READ-MODIFY-WRITE, DELETE
	// Interval and Cumulative hold service time (from the actual start).
	Interval, Cumulative Stats
	// IntendedInterval and IntendedCumulative hold latency from the
	// intended start time (coordinated omission corrected); nil when the
	// run has no target rate or measurement.interval is op.
	IntendedInterval, IntendedCumulative *Stats
}

// Event is a timed change, mark or notable occurrence.
type Event struct {
	At   time.Duration // since the start of the run
	Kind string        // threads, partitions, target, pause, resume, mark, segment, phase, warning, error
	From string
	To   string
	Text string // human form, e.g. "threads 2→4"
}

// String returns the human form of the event.
func (e Event) String() string {
	if e.Text != "" {
		return e.Text
	}
	if e.From != "" || e.To != "" {
		return fmt.Sprintf("%s %s→%s", e.Kind, e.From, e.To)
	}
	return e.Kind
}

// Segment is the span between two changes: one row of the what-if table.
//
// Ops and Errors count the whole segment. The rates and latencies are its
// steady part: everything after the first interval (the transition that a
// change causes) when the segment has one, else the whole segment.
type Segment struct {
	Index      int // 1-based
	Start, End time.Duration
	Threads    int
	Partitions int
	Target     float64 // ops/s, 0 = unlimited
	Label      string  // what started it, e.g. "threads 2→4"
	// Ops counts the segment's operations, successful and failed; OK the
	// successful ones, Errors the failed ones.
	Ops, OK int64
	// OpsPerSec is successful operations per second (goodput) over the
	// steady part, FailedPerSec failed ones.
	OpsPerSec, FailedPerSec float64
	// HasLatency: the steady part held successful operations. Without
	// any, P50 ... IntendedP99 are zero and mean nothing (shown "–").
	HasLatency bool
	// P50, P95 and P99 are from the intended start when the segment has a
	// target and intended latency is measured, else service time.
	P50 time.Duration
	P95 time.Duration
	P99 time.Duration
	// ServiceP99 is the p99 of the service time, IntendedP99 that of the
	// latency from the intended start (0 without a target).
	ServiceP99  time.Duration
	IntendedP99 time.Duration
	// OpsPerSecLow and OpsPerSecHigh bound OpsPerSec, P99Low and P99High
	// bound P99: 95 % confidence intervals (results/ci: batch means over
	// the steady intervals, order statistics of the histogram for p99).
	// Low <= figure <= High; equal to the figure when nothing was
	// measured.
	OpsPerSecLow, OpsPerSecHigh float64
	P99Low, P99High             time.Duration
	Errors                      int64
	// ErrorRate is the share of the steady part's operations that failed,
	// 0-1.
	ErrorRate float64
	// Intervals counts the snapshot intervals of the steady part: the
	// intervals that followed the first one. Stalls counts those of them
	// in which no operation completed while the workers ran.
	Intervals int
	Stalls    int
	Paused    bool    // the segment ran paused
	CPU       float64 // mean client CPU %, 0-100, over measured readings; negative: unknown
	// State is what the best and knee rules (results/marks) made of the
	// segment: qualified, too short, errors, stalled, paused, empty;
	// Note says in words why it was not judged ("" when qualified).
	State SegmentState
	Note  string
	Best  bool // the highest goodput, judged (see results/marks)
	Knee  bool // where p99 starts growing faster than throughput
	// KneeFrom is, on the knee, the index of the qualified segment it
	// was judged against: the capacity a plan can rely on (0: none).
	KneeFrom int
	Open     bool // the current, still growing segment
	// Extra carries per-workload figures, e.g. rows_per_sec for streams.
	Extra map[string]float64
}

// Duration is the length of the segment.
func (s Segment) Duration() time.Duration { return s.End - s.Start }

// Snapshot is what the Runner publishes every interval. It is immutable:
// readers may keep it and share it between goroutines.
type Snapshot struct {
	Seq      int
	Time     time.Time
	Elapsed  time.Duration // since the start of the run (pauses included)
	Interval time.Duration // length of the interval this snapshot covers

	Phase    Phase
	OpsDone  int64   // operations done in this phase
	OpsTotal int64   // operations planned in this phase, 0 = no limit
	Progress float64 // 0-1, -1 when unknown (no operation or time limit)
	Paused   bool
	Done     bool // the last snapshot of the run

	Threads    int
	Partitions int
	Target     float64 // total ops/s, 0 = unlimited

	// Ops holds one entry per operation type seen so far, in YCSB order.
	Ops []OpSnapshot
	// Total sums all operation types; its Intended* hold the successful
	// operations' latency from the intended start (nil as in Ops).
	Total OpSnapshot

	Host HostSample

	// Events since the previous snapshot.
	Events []Event
	// Segments: all closed segments plus the open one last (Open=true),
	// best and knee marked; SegmentsNote says why best is undecided when
	// there are two segments or more and none is marked best.
	Segments     []Segment
	SegmentsNote string
	// NoSuccess counts the consecutive intervals up to this one in which
	// operations were attempted and none succeeded (or none completed
	// while the workers ran): an outage from OutageIntervals on.
	NoSuccess int
	// Warnings in force now, e.g. the client-bottleneck warning.
	Warnings []string
	// IntegrityErrors counts dataintegrity mismatches so far.
	IntegrityErrors int64
	// Workload is the workload's own figures for this interval (the
	// stream's rows consumed and partitions), nil when it has none.
	Workload *WorkloadView
	// Agents is one row per agent of a fleet run (the coordinator's
	// merged snapshots), nil for a run of one process.
	Agents []AgentRow
	// Search is the capacity search's state (--find-max), nil without
	// one: the search's snapshot hook sets it (results/findmax).
	Search *SearchView
}

// AgentRow is one agent of a fleet run as the coordinator sees it in this
// interval: what the Agents panel draws.
type AgentRow struct {
	Name  string
	State string // connecting, running, late, lost, done
	// Figures of the agent's last interval merged (zero when none):
	// successful operations per second, failed ones apart; Errors counts
	// the failed operations.
	OpsPerSec    float64
	FailedPerSec float64
	P99          time.Duration // intended latency when the run has a target
	Errors       int64
	Threads      int
	Target       float64 // this agent's share, ops/s; 0 = unlimited
	// Partitions are the agent's own (its portion of the fleet's when the
	// fleet divides them); 0 when it has none.
	Partitions int
	// Host of the agent: CPU (0-100, negative when unknown) and its
	// busiest NIC's rates.
	CPU                          float64
	RxBytesPerSec, TxBytesPerSec float64
	// ClockOffset is the agent's clock minus the coordinator's.
	ClockOffset time.Duration
	// Pending is the interval a late agent has not delivered (0: none).
	Pending int
	// Reason says why a lost agent was lost.
	Reason string
}
