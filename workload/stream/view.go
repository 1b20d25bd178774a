package stream

import (
	"fmt"
	"sort"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/workload"
)

// View is the stream's state for the screen, one per interval: the
// engine's typed partitions view (workload), which screens draw
// without importing this package.
type View = workload.PartitionsView

// PartitionView is one partition in a View.
type PartitionView = workload.PartitionView

// Latency is an end-to-end latency summary.
type Latency = workload.Latency

// scenario is a stretch of intervals with the same partitions and
// threads: one row of the stream's final table.
type scenario struct {
	parts, threads int
	start, end     time.Duration
	rates, mbps    []float64 // per clean interval
	cpu            []float64
	rss            uint64
	maxLag         int64
	rows, bytes    int64
	dur            time.Duration
	hist           *hdr.Histogram
}

// sampler is the state Sample keeps between intervals.
type sampler struct {
	mu        sync.Mutex // guards cum and scenarios against Finish
	lastNow   int64
	prevProd  int64
	prevPB    int64
	prevCons  int64
	prevBytes int64
	prevWait  int64
	prevCPU   time.Duration
	prevCalls map[*producer]int64
	epochs    int
	total     *hdr.Histogram // this interval, all partitions
	cum       *hdr.Histogram // the whole run
	scen      []*scenario
	peakRSS   uint64
}

func (s *sampler) init(w *Workload) {
	s.lastNow = w.now()
	s.prevCPU = procCPU()
	s.prevCalls = map[*producer]int64{}
	s.epochs = 1
	s.total = newE2E()
	s.cum = newE2E()
}

func latencyOf(h *hdr.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
	return Latency{Count: h.TotalCount(), P50: us(h.ValueAtQuantile(50)), P95: us(h.ValueAtQuantile(95)), P99: us(h.ValueAtQuantile(99)), Max: us(h.Max())}
}

// Sample reports the interval: Delta {"rows": consumed rows, "mb":
// consumed MB} (so that segments get rows_per_sec and mb_per_sec) and the
// typed view for the screen.
func (w *Workload) Sample(_ time.Duration) workload.Sample {
	if !w.running.Load() {
		return workload.Sample{}
	}
	s := &w.samp
	now := w.now()
	ivl := time.Duration(now - s.lastNow)
	s.lastNow = now
	secs := ivl.Seconds()
	if secs <= 0 {
		secs = 1e-9
	}
	nEpochs := w.ep.count()
	changed := nEpochs != s.epochs
	s.epochs = nEpochs

	v := &View{Elapsed: time.Duration(now), Interval: ivl, Epoch: int(w.curEpoch.Load()), Partitions: int(w.curParts.Load())}
	prods := *w.prods.Load()
	dRows := w.sampleTotals(v, prods, secs)
	bytesTotal := w.sampleParts(v, prods, now, secs)
	v.ConsumedMBps = float64(bytesTotal-s.prevBytes) / secs / 1e6
	deltaBytes := bytesTotal - s.prevBytes
	s.prevBytes = bytesTotal
	v.E2E = latencyOf(s.total)

	s.mu.Lock()
	s.peakRSS = max(s.peakRSS, v.RSS)
	s.cum.Merge(s.total)
	s.record(v, changed, dRows, deltaBytes)
	s.mu.Unlock()

	// The stream's figure of merit is rows consumed, not rows handed to
	// the producers.
	rate := &workload.Rate{Name: "Consumed", Unit: "rows/s", Value: v.ConsumedRate, MBps: v.ConsumedMBps}
	if el := v.Elapsed.Seconds(); el > 0 {
		rate.Mean = float64(v.Consumed) / el
	}
	return workload.Sample{
		Delta:    map[string]float64{"rows": float64(dRows), "mb": float64(deltaBytes) / 1e6},
		View:     &workload.View{Rate: rate, Line: line(v), Partitions: v},
		Warnings: warnings(v),
	}
}

// sampleTotals fills the view's whole-stream figures (producers, rates,
// checks, errors, process CPU and memory) and returns the rows consumed in
// the interval.
func (w *Workload) sampleTotals(v *View, prods []*producer, secs float64) int64 {
	s := &w.samp
	for _, p := range prods {
		c := p.calls.Load()
		if c != s.prevCalls[p] {
			v.Threads++
		}
		s.prevCalls[p] = c
	}
	produced, pbytes := w.produced.Load(), w.producedBytes.Load()
	consumed := w.consumed.Load()
	v.Produced, v.Consumed = produced, consumed
	v.ProducedRate = float64(produced-s.prevProd) / secs
	v.ProducedMBps = float64(pbytes-s.prevPB) / secs / 1e6
	dRows := consumed - s.prevCons
	v.ConsumedRate = float64(dRows) / secs
	s.prevProd, s.prevPB, s.prevCons = produced, pbytes, consumed
	wait := w.waiting.Load()
	v.Held = min(1, float64(wait-s.prevWait)/1e9/secs/float64(max(v.Threads, 1)))
	s.prevWait = wait
	v.OutOfOrder = w.check.outOfOrder.Load()
	v.Duplicated = w.check.duplicated.Load()
	v.Unknown = w.check.unknown.Load()
	v.FailedRows = w.failed.Load()
	v.ReadErrors = w.readErrors.Load()
	if e := w.lastErr.Load(); e != nil {
		v.LastError = *e
	}
	cpu := procCPU()
	v.CPUCores = (cpu - s.prevCPU).Seconds() / secs
	s.prevCPU = cpu
	v.RSS = procRSS()
	return dRows
}

// sampleParts fills the view's per-partition rows (and the lag and
// consumer totals), swapping each partition's latency histogram into the
// interval's total; it returns the bytes consumed so far.
func (w *Workload) sampleParts(v *View, prods []*producer, now int64, secs float64) int64 {
	s := &w.samp
	var bytesTotal int64
	s.total.Reset()
	// A shared stream's lag is the group's: what this process produced
	// less what it consumed says nothing (another member may consume its
	// rows, and it others'). The group's is measured by the stream, when
	// it can; else it is left at 0.
	var groupLag []int64
	if w.gs != nil {
		groupLag = w.gs.Lag()
	}
	for _, pt := range *w.parts.Load() {
		consuming := w.ep.isRunning(pt.idx)
		active := pt.idx < v.Partitions
		var prodTotal int64
		for _, p := range prods {
			prodTotal += p.perPart[pt.idx].Load()
		}
		cons, b := pt.consumed.Load(), pt.bytes.Load()
		bytesTotal += b
		pt.hmu.Lock()
		h := pt.hist
		pt.hist = pt.spare
		pt.hmu.Unlock()
		lat := latencyOf(h)
		s.total.Merge(h)
		h.Reset()
		pt.spare = h
		pv := PartitionView{
			Index: pt.idx, Active: active, Consuming: consuming, Held: pt.held.Load(),
			ProducedRate: float64(prodTotal-pt.prevProduced) / secs,
			Rate:         float64(cons-pt.prevConsumed) / secs,
			MBps:         float64(b-pt.prevBytes) / secs / 1e6,
			Consumed:     cons, ProducedTotal: prodTotal,
			Lag: max(0, prodTotal-cons),
			P50: lat.P50, P95: lat.P95, P99: lat.P99, Max: lat.Max, LatencyCount: lat.Count,
		}
		if w.shared {
			pv.Lag = 0
			if pt.idx < len(groupLag) {
				pv.Lag = groupLag[pt.idx]
			}
		}
		// Shared: the age of the lag is known only of a partition this
		// process is consuming now.
		if pv.Lag > 0 && (!w.shared || pv.Rate > 0) {
			pv.LagSeconds = time.Duration(w.rowClock(now) - max(pt.lastTS.Load(), 0)).Seconds()
		}
		pt.prevProduced, pt.prevConsumed, pt.prevBytes = prodTotal, cons, b
		v.Lag += pv.Lag
		v.LagSeconds = max(v.LagSeconds, pv.LagSeconds)
		if consuming {
			v.Consumers++
		}
		if active || consuming || pv.Lag > 0 {
			v.Parts = append(v.Parts, pv)
		}
	}
	return bytesTotal
}

// warnings are the stream's warnings for an interval's view.
func warnings(v *View) []string {
	var warns []string
	if v.OutOfOrder > 0 || v.Duplicated > 0 || v.Unknown > 0 {
		warns = append(warns, fmt.Sprintf("stream: %d out of order, %d duplicated, %d unknown rows delivered", v.OutOfOrder, v.Duplicated, v.Unknown))
	}
	if v.Held > 0.5 {
		warns = append(warns, fmt.Sprintf("stream: producers held back %.0f %% of the time by stream.maxlag: the consumers are the bottleneck", 100*v.Held))
	}
	return warns
}

// record adds the interval to the scenario table. Intervals during which
// the partition count changed are transitions and belong to none.
func (s *sampler) record(v *View, changed bool, rows, bytes int64) {
	if changed || v.Threads == 0 {
		return
	}
	var sc *scenario
	if n := len(s.scen); n > 0 && s.scen[n-1].parts == v.Partitions && s.scen[n-1].threads == v.Threads && s.scen[n-1].end == v.Elapsed-v.Interval {
		sc = s.scen[n-1]
	} else {
		sc = &scenario{parts: v.Partitions, threads: v.Threads, start: v.Elapsed - v.Interval, hist: newE2E()}
		s.scen = append(s.scen, sc)
	}
	sc.end = v.Elapsed
	sc.dur += v.Interval
	sc.rates = append(sc.rates, v.ConsumedRate)
	sc.mbps = append(sc.mbps, v.ConsumedMBps)
	sc.cpu = append(sc.cpu, v.CPUCores)
	sc.rss = max(sc.rss, v.RSS)
	sc.maxLag = max(sc.maxLag, v.Lag)
	sc.rows += rows
	sc.bytes += bytes
	sc.hist.Merge(s.total)
}

// median of xs (which it sorts).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	m := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[m]
	}
	return (xs[m-1] + xs[m]) / 2
}

// Counters implements workload.Counters: rows consumed and MB consumed so
// far, so that every segment gets exactly its own rows/s and MB/s.
func (w *Workload) Counters() map[string]float64 {
	var b int64
	if ps := w.parts.Load(); ps != nil {
		for _, pt := range *ps {
			b += pt.bytes.Load()
		}
	}
	return map[string]float64{"rows": float64(w.consumed.Load()), "mb": float64(b) / 1e6}
}

// line is the view in one line, for headless status lines: rows/s and
// MB/s consumed, lag, end-to-end p99 and the order checks.
func line(v *View) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf("STREAM: partitions=%d consumed=%.0f rows/s %.1f MB/s lag=%d rows %.2fs e2e p99=%s out_of_order=%d duplicated=%d",
		v.Partitions, v.ConsumedRate, v.ConsumedMBps, v.Lag, v.LagSeconds, v.E2E.P99, v.OutOfOrder, v.Duplicated)
}
