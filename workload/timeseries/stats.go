package timeseries

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/adapters"
	"benchtop/rundata/units"
	"benchtop/workload"
)

// View is the workload's figures for one interval, for the screen
// (Snapshot.Extra). It is immutable once returned; String gives one line.
type View struct {
	Writers          int     // writers active in the interval
	RecordsPerSec    float64 // records acknowledged per second, this interval
	MBPerSec         float64 // MB (10^6 bytes) of line protocol acknowledged per second, this interval
	AvgRecordsPerSec float64 // the same since the phase started
	AvgMBPerSec      float64
	// Backpressure is the share (0-1) of the active writers' time spent
	// waiting to hand a batch over to a sender, this interval.
	Backpressure  float64
	BatchesPerSec float64
	// WriteP50 and WriteP99 are batch write latencies, this interval.
	WriteP50, WriteP99 time.Duration
	// Pending counts records accepted but not yet acknowledged or failed.
	Pending int64
	// Written and Failed count records over the whole run.
	Written, Failed int64
	// HTTPStatus counts non-2xx answers by status over the whole run.
	HTTPStatus map[int]int64
}

// typed is the view as the engine carries it: its line and its figures.
func (v View) typed() *workload.View {
	return &workload.View{Line: v.String(),
		// The run's one rate: records acknowledged (the screen's header
		// and chart), MB/s beside.
		Rate: &workload.Rate{Name: "Acknowledged", Unit: "records/s", Value: v.RecordsPerSec, Mean: v.AvgRecordsPerSec, MBps: v.MBPerSec},
		Figures: []workload.Figure{
			{Name: "writers", Value: float64(v.Writers)},
			{Name: "records", Value: v.RecordsPerSec, Unit: "records/s"},
			{Name: "mb", Value: v.MBPerSec, Unit: "MB/s"},
			{Name: "backpressure", Value: 100 * v.Backpressure, Unit: "%"},
			{Name: "write_p99", Value: v.WriteP99.Seconds() * 1e3, Unit: "ms"},
			{Name: "pending", Value: float64(v.Pending), Unit: "records"},
		}}
}

// String renders the view in one line, e.g. "records 51,234/s (avg
// 50,120/s), 6.76 MB/s (avg 6.62), 8 writers, backpressure 3%, write
// p99 41ms".
func (v View) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "records %s/s (avg %s/s), %.2f MB/s (avg %.2f), %d writers, backpressure %.0f%%",
		units.Count(int64(v.RecordsPerSec+0.5)), units.Count(int64(v.AvgRecordsPerSec+0.5)), v.MBPerSec, v.AvgMBPerSec, v.Writers, v.Backpressure*100)
	if v.WriteP99 > 0 {
		fmt.Fprintf(&b, ", write p50 %v p99 %v", roundDur(v.WriteP50), roundDur(v.WriteP99))
	}
	if v.Failed > 0 {
		fmt.Fprintf(&b, ", %s records failed", units.Count(v.Failed))
	}
	if len(v.HTTPStatus) > 0 {
		b.WriteString(", HTTP")
		for _, s := range sortedStatus(v.HTTPStatus) {
			fmt.Fprintf(&b, " %d×%d", s, v.HTTPStatus[s])
		}
	}
	return b.String()
}

// part is a sum over some intervals.
type part struct {
	ns, records, bytes, blocked, writerNs, batches, errors int64
}

func (p *part) add(o part) {
	p.ns += o.ns
	p.records += o.records
	p.bytes += o.bytes
	p.blocked += o.blocked
	p.writerNs += o.writerNs
	p.batches += o.batches
	p.errors += o.errors
}

// row is one line of the parallelism table: consecutive intervals with
// the same number of active writers. The first interval after a change
// is kept apart (it holds the change itself) and used only when the row
// has nothing else.
type row struct {
	writers int
	first   part
	steady  part
	hist    *hdr.Histogram // batch write latency (µs) of the row's intervals
}

func (r *row) figures() part {
	if r.steady.ns > 0 {
		return r.steady
	}
	return r.first
}

// stats is the workload's bookkeeping besides the atomic totals.
type stats struct {
	mu sync.Mutex
	// Batch write latencies (µs) of successful attempts.
	ivlHist, runHist *hdr.Histogram
	// Failed attempts by HTTP status and by error kind.
	ivlStatus, status map[int]int64
	ivlKinds, kinds   map[string]int64
	ivlDropped        int64 // records given up on this interval
	ivlBatches        int64

	phase                string
	phaseStart, phaseEnd int64
	acked0, bytes0       int64
	ackedEnd, bytesEnd   int64
	failed0              int64
	phaseTotal           part // every sampled interval of the phase

	longest     int64 // longest sampled interval (ns), the nominal length
	lastT       int64
	lastAcked   int64
	lastBytes   int64
	lastBlocked map[*writer]int64
	lastCalls   map[*writer]int64
	rows        []*row
	cur         *row
}

func (s *stats) init() {
	s.ivlHist, s.runHist = newWriteHist(), newWriteHist()
	s.ivlStatus, s.status = map[int]int64{}, map[int]int64{}
	s.ivlKinds, s.kinds = map[string]int64{}, map[string]int64{}
}

// statusOf returns the HTTP status an error carries, or 0.
func statusOf(err error) int {
	var hs interface{ HTTPStatus() int }
	if errors.As(err, &hs) {
		return hs.HTTPStatus()
	}
	return 0
}

// write accounts one write attempt of el nanoseconds.
func (s *stats) write(el int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		us := max(el/1000, 1)
		_ = s.ivlHist.RecordValue(min(us, s.ivlHist.HighestTrackableValue()))
		s.ivlBatches++
		return
	}
	k := adapters.Kind(err)
	s.ivlKinds[k]++
	s.kinds[k]++
	if st := statusOf(err); st != 0 {
		s.ivlStatus[st]++
		s.status[st]++
	}
}

// dropped accounts records given up on.
func (s *stats) dropped(n int64) {
	s.mu.Lock()
	s.ivlDropped += n
	s.mu.Unlock()
}

func (s *stats) startPhase(phase string, now, acked, bytes, failed int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.phase = phase
	s.phaseStart, s.phaseEnd = now, 0
	s.acked0, s.bytes0, s.failed0 = acked, bytes, failed
	s.lastT, s.lastAcked, s.lastBytes = now, acked, bytes
	s.lastBlocked = map[*writer]int64{}
	s.lastCalls = map[*writer]int64{}
	s.rows, s.cur = nil, nil
	s.phaseTotal = part{}
	s.longest = 0
}

func (s *stats) endPhase(now, acked, bytes int64) {
	s.mu.Lock()
	s.phaseEnd, s.ackedEnd, s.bytesEnd = now, acked, bytes
	s.mu.Unlock()
}

// Sample implements workload.Sampler: records and MB acknowledged in the
// interval (Delta "records" and "mb"), the View, and warnings for
// backpressure, HTTP errors and records given up on.
func (w *Workload) Sample(time.Duration) workload.Sample {
	now := w.now()
	w.mu.Lock()
	ws := append([]*writer(nil), w.writers...)
	w.mu.Unlock()
	acked, bytes := w.acked.Load(), w.ackedBytes.Load()
	failed := w.failed.Load()

	s := &w.stats
	s.mu.Lock()
	defer s.mu.Unlock()
	dt := now - s.lastT
	if dt <= 0 {
		dt = 1
	}
	s.longest = max(s.longest, dt)
	var ivl part
	ivl.ns = dt
	ivl.records = acked - s.lastAcked
	ivl.bytes = bytes - s.lastBytes
	ivl.batches = s.ivlBatches
	for _, n := range s.ivlKinds {
		ivl.errors += n
	}
	var produced int64
	active := 0
	for _, wr := range ws {
		blocked := wr.blockedNs.Load()
		if since := wr.blockSince.Load(); since > 0 {
			blocked += max(now-(since-1), 0)
		}
		calls := wr.calls.Load()
		produced += calls
		db := max(blocked-s.lastBlocked[wr], 0)
		if calls != s.lastCalls[wr] || wr.busy.Load() || db > 0 {
			active++
			ivl.writerNs += dt
			ivl.blocked += min(db, dt)
		}
		s.lastBlocked[wr], s.lastCalls[wr] = blocked, calls
	}
	s.lastT, s.lastAcked, s.lastBytes = now, acked, bytes

	v := View{
		Writers:       active,
		RecordsPerSec: float64(ivl.records) / secs(dt),
		MBPerSec:      float64(ivl.bytes) / 1e6 / secs(dt),
		BatchesPerSec: float64(ivl.batches) / secs(dt),
		Pending:       max(produced-(acked-s.acked0)-(failed-s.failed0), 0),
		Written:       acked,
		Failed:        failed,
	}
	if el := now - s.phaseStart; el > 0 {
		v.AvgRecordsPerSec = float64(acked-s.acked0) / secs(el)
		v.AvgMBPerSec = float64(bytes-s.bytes0) / 1e6 / secs(el)
	}
	if ivl.writerNs > 0 {
		v.Backpressure = float64(ivl.blocked) / float64(ivl.writerNs)
	}
	if s.ivlHist.TotalCount() > 0 {
		v.WriteP50 = time.Duration(s.ivlHist.ValueAtQuantile(50)) * time.Microsecond
		v.WriteP99 = time.Duration(s.ivlHist.ValueAtQuantile(99)) * time.Microsecond
	}
	if len(s.status) > 0 {
		v.HTTPStatus = make(map[int]int64, len(s.status))
		for k, n := range s.status {
			v.HTTPStatus[k] = n
		}
	}

	warns := s.warnings(v, w.cfg.Retries)
	s.endInterval(ivl, active)
	return workload.Sample{
		Delta:    map[string]float64{"records": float64(ivl.records), "mb": float64(ivl.bytes) / 1e6},
		View:     v.typed(),
		Warnings: warns,
	}
}

// warnings are the interval's warnings: backpressure, failed batches,
// records given up on. Caller holds s.mu.
func (s *stats) warnings(v View, retries int) []string {
	var warns []string
	if v.Backpressure >= 0.5 {
		warns = append(warns, fmt.Sprintf("backpressure: writers waited %.0f%% of the time to hand over batches (the database sets the pace)", v.Backpressure*100))
	}
	if len(s.ivlStatus) > 0 || len(s.ivlKinds) > 0 {
		var parts []string
		for _, st := range sortedStatus(s.ivlStatus) {
			parts = append(parts, fmt.Sprintf("HTTP %d ×%d", st, s.ivlStatus[st]))
		}
		kinds := make([]string, 0, len(s.ivlKinds))
		for k := range s.ivlKinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			parts = append(parts, fmt.Sprintf("%s ×%d", k, s.ivlKinds[k]))
		}
		warns = append(warns, "batch writes failed this interval: "+strings.Join(parts, ", "))
	}
	if s.ivlDropped > 0 {
		warns = append(warns, fmt.Sprintf("%s records given up on after %d retries", units.Count(s.ivlDropped), retries))
	}
	return warns
}

// endInterval adds the interval to the phase and the parallelism table and
// resets the interval's counters. Caller holds s.mu.
func (s *stats) endInterval(ivl part, active int) {
	// The parallelism table: a change of active writers starts a row; an
	// interval with none (paused, finished) ends the current one.
	s.phaseTotal.add(ivl)
	switch {
	case active == 0:
		s.cur = nil
	case s.cur == nil || s.cur.writers != active:
		s.cur = &row{writers: active, first: ivl, hist: newWriteHist()}
		s.rows = append(s.rows, s.cur)
	default:
		s.cur.steady.add(ivl)
	}
	if s.cur != nil {
		s.cur.hist.Merge(s.ivlHist)
	}
	s.runHist.Merge(s.ivlHist)
	s.ivlHist.Reset()
	clear(s.ivlStatus)
	clear(s.ivlKinds)
	s.ivlDropped, s.ivlBatches = 0, 0
}

func secs(ns int64) float64 { return float64(ns) / 1e9 }

func sortedStatus(m map[int]int64) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond)
	case d >= 10*time.Microsecond:
		return d.Round(time.Microsecond)
	}
	return d
}
