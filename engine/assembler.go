package engine

import (
	"time"

	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/results/ci"
	"benchtop/rundata"
	"benchtop/workload"
)

// Controls are the live controls in force: threads, total target,
// partitions, paused.
type Controls struct {
	Threads    int
	Target     float64 // total ops/s, 0 = unlimited
	Partitions int
	Paused     bool
}

// AssemblerConfig is what an Assembler needs to know of its phase.
type AssemblerConfig struct {
	Phase            Phase
	OpNames          []string // operation types by index in the Sets
	OpsTotal         int64    // operations planned, 0 = no limit
	Last             bool     // the run's last phase: its final snapshot is Done
	RunStart         time.Time
	PhaseStart       time.Time
	MaxExecutionTime time.Duration // the run phase's limit, 0 = none
	Measurement      string        // measurement.interval: op, intended, both
	Percentiles      []float64
	// Counters, if set, are read at every segment boundary (exact
	// per-segment workload figures).
	Counters workload.Counters
	// Granularity, when set, keeps the timeseries measurement type's
	// units of this length (PhaseResult.Units).
	Granularity time.Duration
	// Interval is the status interval: an interval shorter than half of
	// it (a phase's last) is never taken for a stall.
	Interval time.Duration
	// RateKey, when set, is the workload figure (Counters and
	// Sample.Delta) whose rate is the throughput (workload.Factory's).
	RateKey string
}

// OutageIntervals is how many consecutive intervals without a successful
// operation make an outage (rundata.OutageIntervals).
const OutageIntervals = rundata.OutageIntervals

// stallMinOps is how many operations the phase's rate so far must promise
// in an interval for an interval in which none completed to be a stall
// (slow operations, a few a second, leave intervals empty as a matter of
// course).
const stallMinOps = 5

// Outage is a span of OutageIntervals or more consecutive intervals in
// which no operation succeeded.
type Outage struct {
	Start, End time.Duration // since the start of the run
	Intervals  int
}

// Assembler builds Snapshots from intervals of measurements: the phase's
// sampler feeds it the workers' Sets every interval, and a coordinator can
// feed it the merged intervals of many agents. It keeps the cumulative
// measurements, the segments and the bottleneck detector. It is not safe
// for concurrent use: its owner locks around it.
type Assembler struct {
	c          AssemblerConfig
	ctl        Controls
	events     []Event // since the last snapshot
	published  []Event // in the snapshots so far, for the reports
	interval   *measure.Set
	cumulative *measure.Set
	segs       segments
	lastTick   time.Time
	seq        int
	warn       bottleneck
	nicWarn    nicSaturation
	cpuSum     float64
	cpuN       int
	targetEver bool
	last       *Snapshot
	units      *seriesUnits // the timeseries measurement type's, nil without it
	// noSuccess counts the consecutive intervals without a successful
	// operation, from noSuccessStart; outages are those that reached
	// OutageIntervals.
	noSuccess      int
	noSuccessStart time.Duration
	outages        []Outage
	// rate0 is the RateKey counter at the phase's start, rateSum its
	// Delta summed (when the workload keeps no counters: a fleet).
	rate0, rateSum float64
	// run is the phase's intervals for its confidence intervals.
	run ci.Batches
}

// NewAssembler starts a phase with the controls in force; label names its
// first segment.
func NewAssembler(c AssemblerConfig, ctl Controls, label string) *Assembler {
	a := &Assembler{c: c, ctl: ctl, interval: &measure.Set{}, cumulative: &measure.Set{}, lastTick: c.PhaseStart}
	a.segs = segments{runStart: c.RunStart, interval: c.Interval, measurement: c.Measurement, counters: c.Counters, rateKey: c.RateKey}
	if c.RateKey != "" && c.Counters != nil {
		a.rate0 = c.Counters.Counters()[c.RateKey]
	}
	a.segs.begin(label, ctl)
	a.targetEver = ctl.Target > 0
	if c.Granularity > 0 {
		a.units = &seriesUnits{gran: c.Granularity}
	}
	return a
}

// Add merges one batch of measurements into the interval, the run so far
// and the open segment.
func (a *Assembler) Add(s *measure.Set) {
	a.interval.Merge(s)
	a.cumulative.Merge(s)
	a.segs.add(s)
	a.run.Add(s)
}

// Event records an event for the next snapshot.
func (a *Assembler) Event(e Event) { a.events = append(a.events, e) }

// Cut closes the open segment and opens one for ctl, labelled; latestCPU
// is the host's latest CPU reading, the CPU of a segment shorter than an
// interval (negative: unknown).
func (a *Assembler) Cut(label string, ctl Controls, latestCPU float64) {
	a.ctl = ctl
	a.targetEver = a.targetEver || ctl.Target > 0
	a.segs.close(time.Now(), latestCPU)
	a.segs.begin(label, ctl)
}

// SetControls records the controls in force without a new segment.
func (a *Assembler) SetControls(ctl Controls) {
	a.ctl = ctl
	a.targetEver = a.targetEver || ctl.Target > 0
}

// Intended reports whether intended latency is measured in this phase.
func (a *Assembler) Intended() bool { return a.targetEver && a.c.Measurement != "op" }

// Cumulative is the phase's measurements so far (not a copy).
func (a *Assembler) Cumulative() *measure.Set { return a.cumulative }

// Last is the last snapshot built, nil before the first.
func (a *Assembler) Last() *Snapshot { return a.last }

// CPU is the mean host CPU over the phase's measured readings (those
// with Cores > 0), -1 when there was none.
func (a *Assembler) CPU() float64 {
	if a.cpuN == 0 {
		return -1
	}
	return a.cpuSum / float64(a.cpuN)
}

// Snapshot builds the snapshot of the interval ending now and starts the
// next interval. runTime is the phase's run time so far (the cumulative
// rates' period), and the interval's raw measurements beside it. With
// keepData the interval's Set is the data's to keep instead of being
// reused (see Recycle).
func (a *Assembler) Snapshot(now time.Time, runTime time.Duration, hs host.Sample, ws workload.Sample, final, keepData bool) (*Snapshot, *IntervalData) {
	if now.Before(a.lastTick) {
		now = a.lastTick // a final snapshot dated at the stop, before the last tick
	}
	ivl := now.Sub(a.lastTick)
	ivlStart := a.lastTick
	a.lastTick = now
	a.seq++
	c := a.c
	snap := &Snapshot{
		Seq: a.seq, Time: now, Elapsed: now.Sub(c.RunStart), Interval: ivl,
		Phase: c.Phase, OpsTotal: c.OpsTotal, Progress: -1, Host: hs, Done: final && c.Last,
		Threads: a.ctl.Threads, Partitions: a.ctl.Partitions, Target: a.ctl.Target, Paused: a.ctl.Paused,
		Events: a.events, Workload: ws.View,
	}
	a.published = append(a.published, a.events...)
	a.events = nil
	if hs.Cores > 0 && !a.ctl.Paused {
		a.segs.addCPU(hs.CPUTotal)
		a.cpuSum += hs.CPUTotal
		a.cpuN++
	}
	a.segs.addDelta(ws.Delta)
	a.rateSum += ws.Delta[c.RateKey]
	stalled := a.stalled(ivl, runTime, ws.Delta[c.RateKey] > 0)
	a.segs.tick(now, stalled)
	a.run.Tick(ivl.Seconds())
	snap.NoSuccess = a.trackOutage(ivlStart.Sub(c.RunStart), snap.Elapsed, stalled)
	snap.Ops, snap.Total = buildOps(c.OpNames, a.interval, a.cumulative, ivl, runTime, a.Intended(), c.Percentiles)
	snap.OpsDone = a.cumulative.Ops
	switch {
	case c.OpsTotal > 0:
		snap.Progress = min(1, float64(snap.OpsDone)/float64(c.OpsTotal))
	case c.MaxExecutionTime > 0 && c.Phase == PhaseRun:
		snap.Progress = min(1, float64(now.Sub(c.PhaseStart))/float64(c.MaxExecutionTime))
	}
	if final && !snap.Done {
		snap.Progress = 1
	}
	snap.IntegrityErrors = a.cumulative.Integrity
	if final {
		cpu := -1.0
		if hs.Cores > 0 {
			cpu = hs.CPUTotal
		}
		a.segs.close(now, cpu)
	}
	snap.Segments, snap.SegmentsNote = a.segs.table(now, final)
	snap.Warnings = append(a.warn.check(interval{
		paused: a.ctl.Paused, rate: snap.Total.Interval.AttemptRate(), target: a.ctl.Target,
		maxLag: a.interval.MaxLag, host: hs, threads: a.ctl.Threads,
		ops: snap.Total.Interval.Count, errors: snap.Total.Interval.Errors,
		mean: snap.Total.Interval.Mean,
	}), ws.Warnings...)
	if a.units != nil {
		a.units.add(ivlStart.Sub(c.PhaseStart), a.interval)
	}
	snap.Warnings = append(snap.Warnings, a.nicWarn.check(a.ctl.Paused, hs)...)
	data := &IntervalData{Phase: c.Phase, OpNames: c.OpNames, Start: ivlStart, End: now, Set: a.interval, Delta: ws.Delta}
	if keepData {
		a.interval = &measure.Set{}
	}
	a.last = snap
	return snap, data
}

// stalled reports whether the interval that ended, of length ivl, was a
// stall: the workers ran (not paused), no operation completed, the
// workload's own count did not move (rated: its records acknowledged,
// while writers wait on backpressure) and the phase's rate so far
// promised at least stallMinOps in it.
func (a *Assembler) stalled(ivl, runTime time.Duration, rated bool) bool {
	if a.ctl.Paused || a.interval.Ops > 0 || a.interval.CutOff > 0 || rated || ivl <= 0 || ivl < a.c.Interval/2 {
		return false
	}
	prior := (runTime - ivl).Seconds()
	return prior > 0 && float64(a.cumulative.Ops)/prior*ivl.Seconds() >= stallMinOps
}

// trackOutage counts the interval from start to end into the run of
// intervals without a successful operation: one with operations that all
// failed, or a stall, starts or extends it; one with no operation at all
// (slow operations) extends a run already started; a success or a pause
// ends it. It returns the run's length, and keeps the runs that reach
// OutageIntervals as outages.
func (a *Assembler) trackOutage(start, end time.Duration, stalled bool) int {
	ok, ops := a.interval.OK(), a.interval.Ops
	switch {
	case a.ctl.Paused || ok > 0:
		a.noSuccess = 0
		return 0
	case ops > 0 || stalled || a.noSuccess > 0:
		if a.noSuccess == 0 {
			a.noSuccessStart = start
		}
		a.noSuccess++
	default:
		return 0
	}
	if a.noSuccess >= OutageIntervals {
		o := Outage{Start: a.noSuccessStart, End: end, Intervals: a.noSuccess}
		if n := len(a.outages); n > 0 && a.outages[n-1].Start == o.Start {
			a.outages[n-1] = o
		} else {
			a.outages = append(a.outages, o)
		}
	}
	return a.noSuccess
}

// runCI sets the phase's 95 % confidence intervals on its goodput and
// its p99 (intended when measured), batch means over its intervals.
func (a *Assembler) runCI(res *PhaseResult) {
	secs := res.RunTime.Seconds()
	if secs <= 0 {
		return
	}
	iv := a.run.Rate(float64(a.cumulative.OK())/secs, 0)
	res.GoodputLow, res.GoodputHigh = iv.Low, iv.High
	series, variant := ci.Service, measure.OK
	if a.Intended() {
		series, variant = ci.Intended, measure.OKIntended
	}
	if h := mergeVariant(a.cumulative, variant); h != nil && h.TotalCount() > 0 {
		res.P99 = time.Duration(h.ValueAtQuantile(99))
		q := a.run.Quantile(h, 99, series, 0)
		res.P99Low, res.P99High = min(res.P99, time.Duration(q.Low)), max(res.P99, time.Duration(q.High))
		res.HasP99 = true
	}
}

// Recycle empties the interval Set data built without keepData points
// at, for the next interval; call it once the hooks have seen data. It
// reports whether it did: data is then no longer to be read.
func (a *Assembler) Recycle(data *IntervalData) bool {
	if data != nil && data.Set == a.interval {
		a.interval.Reset()
		return true
	}
	return false
}

// Result is the phase's result from its final snapshot.
func (a *Assembler) Result(final *Snapshot, runTime time.Duration, start time.Time, interrupted bool) *PhaseResult {
	res := &PhaseResult{
		Phase:       a.c.Phase,
		Start:       start,
		RunTime:     runTime,
		Set:         a.cumulative,
		Final:       final,
		Segments:    final.Segments,
		Interrupted: interrupted,
		Intended:    a.Intended(),
		Percentiles: a.c.Percentiles,
		Measurement: a.c.Measurement,
		OpNames:     a.c.OpNames,
		MeanCPU:     a.CPU(),
		Events:      append([]Event(nil), a.published...),
		Outages:     append([]Outage(nil), a.outages...),
	}
	if a.units != nil {
		res.Units = a.units.units()
	}
	a.runCI(res)
	if k := a.c.RateKey; k != "" {
		res.RateCount = a.rateSum
		if a.c.Counters != nil {
			res.RateCount = a.c.Counters.Counters()[k] - a.rate0
		}
		res.Rated = true
	}
	return res
}
