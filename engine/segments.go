package engine

import (
	"fmt"
	"time"

	"benchtop/engine/measure"
	"benchtop/results/ci"
	"benchtop/results/marks"
	"benchtop/workload"
)

// segments is a phase's what-if table being built: the closed segments and
// the open one, which every drain of the workers' measurements feeds. It
// is used under the phase's sampler lock.
type segments struct {
	runStart    time.Time     // the run's start: segment times count from it
	interval    time.Duration // the status interval
	measurement string        // measurement.interval
	counters    workload.Counters
	// rateKey, when set, is the workload figure whose rate is the
	// segment's throughput (workload.Factory.RateKey).
	rateKey string

	closed []Segment
	open   *segmentAcc
}

// segmentAcc is the open segment and what it accumulates.
type segmentAcc struct {
	Segment
	sums  map[string]float64 // workload Delta figures summed per interval
	first map[string]float64 // workload counters at the segment's start
	// steadySums and steadyFirst are the same from the first tick on:
	// the workload's rates cover the steady part, as the operations' do.
	steadySums, steadyFirst map[string]float64
	set                     *measure.Set
	cpuSum                  float64
	cpuN                    int
	startT                  time.Time
	// steady is what ran after the segment's first interval ended (the
	// first tick), from steadyT on; ticks counts the intervals that ended
	// in the segment.
	steady  *measure.Set
	steadyT time.Time
	ticks   int
	stalls  int // steady intervals that were stalls
	// batches are the steady intervals for the confidence intervals
	// (results/ci); lastT is when the last interval ended.
	batches ci.Batches
	lastT   time.Time
}

// begin opens a new segment for the Controls in force.
func (sg *segments) begin(label string, ctl Controls) {
	s := &segmentAcc{set: &measure.Set{}, steady: &measure.Set{}, startT: time.Now()}
	s.Index = len(sg.closed) + 1
	s.Start = time.Since(sg.runStart)
	s.Threads = ctl.Threads
	s.Partitions = ctl.Partitions
	s.Target = ctl.Target
	s.Paused = ctl.Paused
	s.Label = label
	s.Open = true
	if sg.counters != nil {
		s.first = sg.counters.Counters()
	}
	sg.open = s
}

// add merges one batch of measurements into the open segment (and into
// its steady part once its first interval is over).
func (sg *segments) add(set *measure.Set) {
	sg.open.set.Merge(set)
	if sg.open.ticks > 0 {
		sg.open.steady.Merge(set)
		sg.open.batches.Add(set)
	}
}

// tick tells the open segment that an interval ended at now; stalled
// says it was a stall (no operation completed while the workers ran),
// which counts once the segment's first interval is over.
func (sg *segments) tick(now time.Time, stalled bool) {
	if sg.open.ticks == 0 {
		sg.open.steadyT = now
		if sg.counters != nil {
			sg.open.steadyFirst = sg.counters.Counters()
		}
	} else {
		if stalled {
			sg.open.stalls++
		}
		sg.open.batches.Tick(now.Sub(sg.open.lastT).Seconds())
	}
	sg.open.lastT = now
	sg.open.ticks++
}

// addCPU adds one host CPU reading to the open segment.
func (sg *segments) addCPU(pct float64) {
	sg.open.cpuSum += pct
	sg.open.cpuN++
}

// addDelta adds a workload's interval figures to the open segment.
func (sg *segments) addDelta(delta map[string]float64) {
	for k, v := range delta {
		if sg.open.sums == nil {
			sg.open.sums = map[string]float64{}
		}
		sg.open.sums[k] += v
		if sg.open.ticks > 0 { // after the first tick: the steady part's
			if sg.open.steadySums == nil {
				sg.open.steadySums = map[string]float64{}
			}
			sg.open.steadySums[k] += v
		}
	}
}

// close closes the open segment at at; latestCPU is the host's latest
// reading, the CPU of a segment shorter than an interval (negative:
// unknown).
func (sg *segments) close(at time.Time, latestCPU float64) {
	s := sg.open
	s.End = at.Sub(sg.runStart)
	s.Open = false
	if s.cpuN == 0 && latestCPU >= 0 {
		s.cpuSum, s.cpuN = latestCPU, 1
	}
	sg.fill(s, at)
	// A segment in which nothing ran is dropped (the instant between two
	// steps at once), unless it was a pause: a pause that no operation in
	// flight outlived is still a configuration held.
	if s.Ops > 0 || s.Errors > 0 || s.set.CutOff > 0 || (sg.rateKey != "" && s.OpsPerSec > 0) || (s.Paused && s.End > s.Start) {
		s.Index = len(sg.closed) + 1
		sg.closed = append(sg.closed, s.Segment)
	}
}

// table returns the closed segments and, unless final, the open one as it
// stands at now, with best and knee marked, and the note saying why best
// is undecided ("" when it is not).
func (sg *segments) table(now time.Time, final bool) ([]Segment, string) {
	out := append([]Segment(nil), sg.closed...)
	if !final {
		cur := *sg.open
		sg.fill(&cur, now)
		cur.End = now.Sub(sg.runStart)
		cur.Index = len(sg.closed) + 1
		out = append(out, cur.Segment)
	}
	return markSegments(out, sg.interval)
}

// fill computes a segment's figures from what it accumulated up to end:
// counts of the whole segment, rates and latencies of its steady part
// when it has one. Rates count successful operations (failed ones apart);
// latencies are the successful operations' (none: HasLatency false).
func (sg *segments) fill(s *segmentAcc, end time.Time) {
	if !s.Open {
		end = s.startT.Add(s.End - s.Start)
	}
	dur := end.Sub(s.startT).Seconds()
	s.Ops, s.OK, s.Errors = s.set.Ops, s.set.OK(), s.set.Failed
	figures, fdur := s.set, dur
	s.Intervals = 0
	if s.ticks > 1 {
		s.Intervals = s.ticks - 1
	}
	s.Stalls = s.stalls
	// The steady part counts once it holds a whole interval (two ticks):
	// after one tick it is the sliver between that tick and a change or
	// the stop, a few ms whose rate says nothing of the segment (a stream
	// segment of 5 M rows in 1 s showed 289,406 ops/s and 0 rows/s).
	steady := s.ticks > 1 && !s.steady.Empty() && end.After(s.steadyT)
	if steady {
		figures, fdur = s.steady, end.Sub(s.steadyT).Seconds()
	}
	s.OpsPerSec, s.FailedPerSec, s.ErrorRate = 0, 0, 0
	if fdur > 0 {
		s.OpsPerSec = float64(figures.OK()) / fdur
		s.FailedPerSec = float64(figures.Failed) / fdur
	}
	if figures.Ops > 0 {
		s.ErrorRate = float64(figures.Failed) / float64(figures.Ops)
	}
	intended := s.Target > 0 && sg.measurement != "op"
	s.P50, s.P95, s.P99, s.ServiceP99, s.IntendedP99 = 0, 0, 0, 0, 0
	s.HasLatency = false
	if figures.OK() <= 0 {
		// Nothing succeeded: a read-modify-write's READ alone is no
		// latency of the segment's operations.
	} else if h := mergeVariant(figures, measure.OK); h != nil && h.TotalCount() > 0 {
		s.HasLatency = true
		s.P50 = time.Duration(h.ValueAtQuantile(50))
		s.P95 = time.Duration(h.ValueAtQuantile(95))
		s.P99 = time.Duration(h.ValueAtQuantile(99))
		s.ServiceP99 = s.P99
		if h := mergeVariant(figures, measure.OKIntended); intended && h != nil && h.TotalCount() > 0 {
			s.P50 = time.Duration(h.ValueAtQuantile(50))
			s.P95 = time.Duration(h.ValueAtQuantile(95))
			s.P99 = time.Duration(h.ValueAtQuantile(99))
			s.IntendedP99 = s.P99
		}
	}
	sg.fillCI(s, figures, fdur, steady, end, intended)
	s.CPU = -1 // unknown unless measured
	if s.cpuN > 0 {
		s.CPU = s.cpuSum / float64(s.cpuN)
	}
	// The workload's figures over the same part as the operations' rates:
	// the steady part when there is one.
	sums, first, sdur := s.sums, s.first, dur
	if steady {
		sums, first, sdur = s.steadySums, s.steadyFirst, end.Sub(s.steadyT).Seconds()
	}
	if sg.counters != nil && first != nil {
		now := sg.counters.Counters()
		sums = make(map[string]float64, len(now))
		for k, v := range now {
			sums[k] = v - first[k]
		}
	}
	s.Extra = nil
	if len(sums) > 0 && sdur > 0 {
		s.Extra = make(map[string]float64, len(sums))
		for k, v := range sums {
			s.Extra[k+"_per_sec"] = v / sdur
		}
	}
	if k := sg.rateKey + "_per_sec"; sg.rateKey != "" {
		// The workload's own count is the throughput (the time series'
		// records acknowledged): one rate, not a column beside ops/s.
		s.OpsPerSec = s.Extra[k]
		delete(s.Extra, k)
		// Its interval: Poisson's on its count (no batches of it).
		iv := ci.Poisson(s.OpsPerSec, s.OpsPerSec*sdur, sdur)
		s.OpsPerSecLow, s.OpsPerSecHigh = iv.Low, iv.High
	}
}

// fillCI sets the 95 % confidence intervals on a segment's rate and p99
// (results/ci): batch means over its steady intervals when it has a
// steady part, else Poisson's on its count and the order statistics of
// its histogram.
func (sg *segments) fillCI(s *segmentAcc, figures *measure.Set, fdur float64, steady bool, end time.Time, intended bool) {
	part := 0.0
	if steady && end.After(s.lastT) {
		part = end.Sub(s.lastT).Seconds()
	}
	var b ci.Batches // none: the whole segment's figures
	if steady {
		b = s.batches
	}
	var rate ci.Interval
	if steady {
		rate = b.Rate(s.OpsPerSec, part)
	} else {
		rate = ci.Poisson(s.OpsPerSec, float64(figures.OK()), fdur)
	}
	s.OpsPerSecLow, s.OpsPerSecHigh = rate.Low, rate.High
	s.P99Low, s.P99High = s.P99, s.P99
	if !s.HasLatency {
		return
	}
	series, variant := ci.Service, measure.OK
	if intended && s.IntendedP99 > 0 {
		series, variant = ci.Intended, measure.OKIntended
	}
	if h := mergeVariant(figures, variant); h != nil {
		iv := b.Quantile(h, 99, series, part)
		s.P99Low, s.P99High = min(s.P99, time.Duration(iv.Low)), max(s.P99, time.Duration(iv.High))
	}
}

// The rules of best and knee (results/marks holds them).
const (
	// MinSegmentIntervals is how many intervals after its first one a
	// segment must hold to be best or knee: the first interval after a
	// change is the transition and never counts.
	MinSegmentIntervals = marks.MinIntervals
	// MaxBestErrorRate is the share of failed operations above which a
	// segment is never best or knee: failed operations are not
	// throughput.
	MaxBestErrorRate = marks.MaxErrorRate
)

// markSegments sets each segment's State and Note, and Best, Knee and
// KneeFrom, by results/marks' rules (the one implementation: the screen,
// the reports, the JSON and the HTML show these marks); it returns the
// note saying why best is undecided.
func markSegments(segs []Segment, interval time.Duration) ([]Segment, string) {
	v := marks.Decide(SegmentRows(segs, interval), "ops/s", "segment")
	for i := range segs {
		segs[i].State, segs[i].Note = v.States[i], v.Notes[i]
		segs[i].Best, segs[i].Knee, segs[i].KneeFrom = i == v.Best, i == v.Knee, 0
		if i == v.Knee {
			segs[i].KneeFrom = segs[v.KneeFrom].Index
		}
	}
	return segs, v.Note
}

// SegmentRows are the segments as results/marks judges them; interval is
// the status interval (a segment held half of it has a rate to compare).
func SegmentRows(segs []Segment, interval time.Duration) []marks.Row {
	rows := make([]marks.Row, len(segs))
	for i, s := range segs {
		rows[i] = marks.Row{Index: s.Index, Rate: s.OpsPerSec, Intervals: s.Intervals, Ops: s.Ops, ErrorRate: s.ErrorRate,
			Stalls: s.Stalls, Paused: s.Paused, P99: s.P99, HasLatency: s.HasLatency, Config: configKey(s),
			Held:    interval > 0 && s.End-s.Start >= interval/2,
			RateLow: s.OpsPerSecLow, RateHigh: s.OpsPerSecHigh, P99Low: s.P99Low, P99High: s.P99High,
			HasControls: true, Threads: s.Threads, Partitions: s.Partitions, Target: s.Target}
	}
	return rows
}

// configKey names a segment's controls: segments of one configuration
// (a mark or a new segment changes nothing) are never a knee against
// each other.
func configKey(s Segment) string {
	return fmt.Sprintf("threads %d, partitions %d, target %g", s.Threads, s.Partitions, s.Target)
}
