// Package history keeps the bounded time series the TUI draws from: total
// ops/s per interval, per-operation latency percentiles per interval, and
// the events of the run. Snapshots go in once per interval; components read
// it when they redraw. Memory stays bounded whatever the run length.
package history

import (
	"time"

	"benchtop/rundata"
)

// Ring is a fixed-capacity ring buffer that keeps the newest values.
type Ring[T any] struct {
	buf   []T
	start int
	n     int
}

// NewRing returns an empty ring holding at most capacity values.
func NewRing[T any](capacity int) *Ring[T] {
	if capacity < 1 {
		capacity = 1
	}
	return &Ring[T]{buf: make([]T, capacity)}
}

// Push appends v, dropping the oldest value when full.
func (r *Ring[T]) Push(v T) {
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = v
		r.n++
		return
	}
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
}

// Len is the number of values held.
func (r *Ring[T]) Len() int { return r.n }

// At returns the i-th value, 0 being the oldest.
func (r *Ring[T]) At(i int) T { return r.buf[(r.start+i)%len(r.buf)] }

// Last returns the newest value and whether there is one.
func (r *Ring[T]) Last() (T, bool) {
	var zero T
	if r.n == 0 {
		return zero, false
	}
	return r.At(r.n - 1), true
}

// Cap is the most values the ring holds.
func (r *Ring[T]) Cap() int { return len(r.buf) }

// grow raises the capacity to n (never lowers it), keeping the values.
func (r *Ring[T]) grow(n int) {
	if n <= len(r.buf) {
		return
	}
	buf := make([]T, n)
	for i := 0; i < r.n; i++ {
		buf[i] = r.At(i)
	}
	r.buf, r.start = buf, 0
}

// Tail returns the newest n values (fewer if fewer are held), oldest first.
func (r *Ring[T]) Tail(n int) []T {
	if n > r.n {
		n = r.n
	}
	out := make([]T, n)
	for i := range out {
		out[i] = r.At(r.n - n + i)
	}
	return out
}

// Point is the throughput of one interval.
type Point struct {
	End  time.Duration // Snapshot.Elapsed: the end of the interval
	Mid  time.Duration // the middle of the interval, where it is plotted
	Rate float64       // total ops/s: successful operations (or the workload's own rate)
	// Failed is failed operations per second in the interval (0: none
	// failed): the chart's ! marks.
	Failed float64
	// Target is the target rate in force at the end of the interval, 0
	// for unlimited.
	Target float64
}

// Lat is the latency of one operation type in one interval, in nanoseconds.
// The intended (coordinated-omission corrected) values are set when the
// snapshot had them. OK (IOK) says some operation succeeded: without one
// there is no latency, drawn as a gap and shown as "–", never 0.
type Lat struct {
	P50, P95, P99    float64
	IP50, IP95, IP99 float64
	Intended         bool
	OK, IOK          bool
}

// ErrorNote is the latest error of a run: its operation, kind, message
// and when.
type ErrorNote struct {
	Op, Kind, Cause string
	At              time.Duration
}

// Window is the longest time span the throughput series keeps.
const Window = 60 * time.Minute

// sparkCap bounds the per-operation latency series: no sparkline is wider.
const sparkCap = 512

// eventCap bounds the events kept for markers.
const eventCap = 2000

// History is the bounded record of a run, fed one snapshot per interval.
type History struct {
	// Last is the newest snapshot, nil before the first.
	Last *rundata.Snapshot
	// MaxRate is the highest rate of a whole interval in the phase so
	// far (as MeanRate, since the phase's start): an interval shorter
	// than half the status interval (a load of 1,000 records in 12 ms, a
	// last interval cut at the stop) counts only while no whole one has,
	// a few operations over a sliver being no rate the phase held.
	MaxRate float64
	// Unit is what the rates count: "ops/s", or "rows/s" for the
	// partitioned stream, whose rates are rows consumed.
	Unit string
	// CurRate and MeanRate are the newest interval's rate and the mean
	// since the phase's start, in Unit: successful operations; intervals
	// spent paused do not count in the mean (meanRate). CurFailed and
	// MeanFailed are the failed ones per second. A phase's last interval
	// cut short at the stop (35 ms of operations in flight draining: 221
	// ops/s at a target of 1,000) leaves CurRate and CurFailed at the
	// newest whole interval's.
	CurRate, MeanRate     float64
	CurFailed, MeanFailed float64
	// RateName names what a workload's own rate counts ("Consumed" for
	// the stream's rows), "" for operations; MBps is the same traffic in
	// MB/s when the workload knows it.
	RateName string
	MBps     float64
	// Stream is the newest per-partition view of a workload that consumes
	// partitions (the stream), nil for other runs.
	Stream *rundata.PartitionsView

	// ErrorSeen is when errors of each operation and kind ("READ
	// unavailable") were last seen, as elapsed time; LastError is the
	// newest of them.
	ErrorSeen map[string]time.Duration
	LastError ErrorNote

	points *Ring[Point]
	lat    map[string]*Ring[Lat]
	events *Ring[rundata.Event]
	mean   meanRate
	max    maxRate
}

// Bounds of the throughput series, in points: at least an hour at 1 s, at
// most an hour at 36 ms (about 4 MB).
const (
	minPoints = 3600
	maxPoints = 100000
)

// pointsFor is the ring size that holds Window at snapshots every
// interval.
func pointsFor(interval time.Duration) int {
	if interval <= 0 {
		interval = time.Second
	}
	return min(max(int(Window/interval)+2, minPoints), maxPoints)
}

// New returns an empty history for snapshots every interval. The interval
// is a hint: the series grows to hold Window at the interval the
// snapshots actually come at (status.interval), measured as they arrive.
func New(interval time.Duration) *History {
	return &History{
		max:    maxRate{interval: interval},
		points: NewRing[Point](pointsFor(interval)),
		lat:    map[string]*Ring[Lat]{},
		events: NewRing[rundata.Event](eventCap),
	}
}

// Add records a snapshot. A snapshot whose elapsed time goes backwards
// (a new phase that restarted the clock) starts the series afresh.
func (h *History) Add(s *rundata.Snapshot) {
	if s == nil {
		return
	}
	if p, ok := h.points.Last(); ok && s.Elapsed < p.End {
		h.points = NewRing[Point](len(h.points.buf))
		h.lat = map[string]*Ring[Lat]{}
		h.events = NewRing[rundata.Event](eventCap)
		h.MaxRate = 0
		h.mean = meanRate{}
		h.max = maxRate{interval: h.max.interval}
	}
	h.Last = s
	rate := s.Total.Interval.Rate
	h.Unit, h.CurRate, h.MeanRate, h.Stream = "ops/s", rate, s.Total.Cumulative.Rate, nil
	h.CurFailed, h.MeanFailed = s.Total.Interval.FailedRate, s.Total.Cumulative.FailedRate
	h.RateName, h.MBps = "", 0
	if w := s.Workload; w != nil {
		// A workload's own figure of merit (the stream's rows consumed)
		// replaces the operations handed to it.
		if w.Rate != nil {
			rate = w.Rate.Value
			h.Unit, h.CurRate, h.MeanRate = w.Rate.Unit, rate, w.Rate.Mean
			h.RateName, h.MBps = w.Rate.Name, w.Rate.MBps
		}
		h.Stream = w.Partitions
	}
	h.MeanRate = h.mean.add(s, rate, h.MeanRate)
	h.MaxRate = h.max.add(s, rate)
	if whole, ok := h.max.lastWhole(s); ok {
		h.CurRate, h.CurFailed = whole.rate, whole.failed
	}
	h.points.Push(Point{End: s.Elapsed, Mid: s.Elapsed - s.Interval/2, Rate: rate, Failed: s.Total.Interval.FailedRate, Target: s.Target})
	h.fit()
	for _, op := range s.Ops {
		r, ok := h.lat[op.Name]
		if !ok {
			r = NewRing[Lat](sparkCap)
			h.lat[op.Name] = r
		}
		l := Lat{OK: op.Interval.HasLatency()}
		if l.OK {
			l.P50, l.P95, l.P99 = float64(op.Interval.P50), float64(op.Interval.P95), float64(op.Interval.P99)
		}
		if it := op.IntendedInterval; it != nil {
			l.Intended, l.IOK = true, it.HasLatency()
			if l.IOK {
				l.IP50, l.IP95, l.IP99 = float64(it.P50), float64(it.P95), float64(it.P99)
			}
		}
		r.Push(l)
	}
	for _, e := range s.Events {
		h.events.Push(e)
	}
	for _, op := range s.Ops {
		for k, n := range op.Interval.ErrorsByKind {
			if n <= 0 {
				continue
			}
			if h.ErrorSeen == nil {
				h.ErrorSeen = map[string]time.Duration{}
			}
			h.ErrorSeen[op.Name+" "+k] = s.Elapsed
			if c := op.Interval.Causes[k]; c != "" || h.LastError.At < s.Elapsed {
				h.LastError = ErrorNote{Op: op.Name, Kind: k, Cause: c, At: s.Elapsed}
			}
		}
	}
}

// meanRate is the mean rate of a phase over the time it ran: the rate of
// each interval weighted by its length, leaving out the intervals spent
// paused from end to end, so that a pause does not drag the mean down
// (the engine's cumulative rate is over the phase's wall time, pauses
// included, as YCSB's [OVERALL] Throughput is).
type meanRate struct {
	phase       rundata.Phase
	paused      bool    // the previous interval ended paused
	work, spent float64 // Σ rate × seconds, Σ seconds
}

// add counts one snapshot's interval at rate and returns the mean so
// far; fallback (the engine's or the workload's own mean) until an
// interval counted.
func (m *meanRate) add(s *rundata.Snapshot, rate, fallback float64) float64 {
	if s.Phase != m.phase {
		*m = meanRate{phase: s.Phase}
	}
	wholly := s.Paused && m.paused // paused before it began and still at its end
	m.paused = s.Paused
	if secs := s.Interval.Seconds(); secs > 0 && !wholly {
		m.work += rate * secs
		m.spent += secs
	}
	if m.spent <= 0 {
		return fallback
	}
	return m.work / m.spent
}

// maxRate is the highest rate of a phase's whole intervals (MaxRate),
// and the newest of them.
type maxRate struct {
	interval time.Duration // the status interval
	phase    rundata.Phase
	whole    bool // a whole interval has counted
	rate     float64
	last     struct{ rate, failed float64 } // the newest whole interval's
}

// add counts one snapshot's interval at rate and returns the maximum.
func (m *maxRate) add(s *rundata.Snapshot, rate float64) float64 {
	if s.Phase != m.phase {
		*m = maxRate{interval: m.interval, phase: s.Phase}
	}
	whole := s.Interval >= m.interval/2
	switch {
	case whole && !m.whole:
		m.whole, m.rate = true, rate
	case whole == m.whole:
		m.rate = max(m.rate, rate)
	}
	if whole {
		m.last.rate, m.last.failed = rate, s.Total.Interval.FailedRate
	}
	return m.rate
}

// lastWhole is the newest whole interval's rates when s, added last, is
// a sliver after one in its phase: the figures the header shows as
// current.
func (m *maxRate) lastWhole(s *rundata.Snapshot) (struct{ rate, failed float64 }, bool) {
	return m.last, m.whole && s.Interval < m.interval/2
}

// fit grows the throughput series so that it holds Window at the mean
// interval of the points so far (a run at status.interval=100ms keeps its
// hour, not 6 minutes), within maxPoints. The mean over many points is
// used, not one snapshot's interval: a phase's last one is short.
func (h *History) fit() {
	n := h.points.Len()
	if n < 10 || n < h.points.Cap()/2 {
		return
	}
	span := h.points.At(n-1).End - h.points.At(0).End
	if span <= 0 {
		return
	}
	h.points.grow(pointsFor(span / time.Duration(n-1)))
}

// Points is the throughput series, oldest first.
func (h *History) Points() *Ring[Point] { return h.points }

// Latency returns the newest n latency points of operation op, oldest first.
func (h *History) Latency(op string, n int) []Lat {
	r, ok := h.lat[op]
	if !ok {
		return nil
	}
	return r.Tail(n)
}

// Events is the events seen so far (the newest eventCap), oldest first.
func (h *History) Events() *Ring[rundata.Event] { return h.events }

// Elapsed is the elapsed time of the newest snapshot.
func (h *History) Elapsed() time.Duration {
	if h.Last == nil {
		return 0
	}
	return h.Last.Elapsed
}
