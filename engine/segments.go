package engine

import (
	"time"

	"benchtop/engine/measure"
	"benchtop/engine/workload"
)

// segments is a phase's what-if table being built: the closed segments and
// the open one, which every drain of the workers' measurements feeds. It
// is used under the phase's sampler lock.
type segments struct {
	runStart    time.Time // the run's start: segment times count from it
	measurement string    // measurement.interval
	counters    workload.Counters

	closed []Segment
	open   *segmentAcc
}

// segmentAcc is the open segment and what it accumulates.
type segmentAcc struct {
	Segment
	sums   map[string]float64 // workload Delta figures summed per interval
	first  map[string]float64 // workload counters at the segment's start
	set    *measure.Set
	cpuSum float64
	cpuN   int
	startT time.Time
	// steady is what ran after the segment's first interval ended (the
	// first tick), from steadyT on; ticks counts the intervals that ended
	// in the segment.
	steady  *measure.Set
	steadyT time.Time
	ticks   int
}

// begin opens a new segment for the Controls in force.
func (sg *segments) begin(label string, ctl Controls) {
	s := &segmentAcc{set: &measure.Set{}, steady: &measure.Set{}, startT: time.Now()}
	s.Index = len(sg.closed) + 1
	s.Start = time.Since(sg.runStart)
	s.Threads = ctl.Threads
	s.Partitions = ctl.Partitions
	s.Target = ctl.Target
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
	}
}

// tick tells the open segment that an interval ended at now.
func (sg *segments) tick(now time.Time) {
	if sg.open.ticks == 0 {
		sg.open.steadyT = now
	}
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
	}
}

// close closes the open segment; latestCPU is the host's latest reading,
// the CPU of a segment shorter than an interval (negative: unknown).
func (sg *segments) close(latestCPU float64) {
	s := sg.open
	s.End = time.Since(sg.runStart)
	s.Open = false
	if s.cpuN == 0 && latestCPU >= 0 {
		s.cpuSum, s.cpuN = latestCPU, 1
	}
	sg.fill(s)
	if s.Ops > 0 || s.Errors > 0 {
		s.Index = len(sg.closed) + 1
		sg.closed = append(sg.closed, s.Segment)
	}
}

// table returns the closed segments and, unless final, the open one as it
// stands at elapsed, with best and knee marked.
func (sg *segments) table(elapsed time.Duration, final bool) []Segment {
	out := append([]Segment(nil), sg.closed...)
	if !final {
		cur := *sg.open
		sg.fill(&cur)
		cur.End = elapsed
		cur.Index = len(sg.closed) + 1
		out = append(out, cur.Segment)
	}
	return markSegments(out)
}

// fill computes a segment's figures from what it accumulated: counts of
// the whole segment, rates and latencies of its steady part when it has
// one.
func (sg *segments) fill(s *segmentAcc) {
	now := time.Now()
	end := now
	if !s.Open {
		end = s.startT.Add(s.End - s.Start)
	}
	dur := end.Sub(s.startT).Seconds()
	s.Ops = s.set.Ops
	s.Errors = errorCount(s.set)
	figures, fdur := s.set, dur
	s.Intervals = 0
	if s.ticks > 1 {
		s.Intervals = s.ticks - 1
	}
	if s.ticks > 0 && !s.steady.Empty() {
		figures, fdur = s.steady, end.Sub(s.steadyT).Seconds()
	}
	s.OpsPerSec, s.ErrorRate = 0, 0
	if fdur > 0 {
		s.OpsPerSec = float64(figures.Ops) / fdur
	}
	if figures.Ops > 0 {
		s.ErrorRate = float64(errorCount(figures)) / float64(figures.Ops)
	}
	intended := s.Target > 0 && sg.measurement != "op"
	s.P50, s.P95, s.P99, s.ServiceP99, s.IntendedP99 = 0, 0, 0, 0, 0
	if h := mergeVariant(figures, measure.OK); h != nil && h.TotalCount() > 0 {
		s.P50 = time.Duration(h.ValueAtQuantile(50))
		s.P95 = time.Duration(h.ValueAtQuantile(95))
		s.P99 = time.Duration(h.ValueAtQuantile(99))
		s.ServiceP99 = s.P99
	}
	if intended {
		if h := mergeVariant(figures, measure.OKIntended); h != nil && h.TotalCount() > 0 {
			s.P50 = time.Duration(h.ValueAtQuantile(50))
			s.P95 = time.Duration(h.ValueAtQuantile(95))
			s.P99 = time.Duration(h.ValueAtQuantile(99))
			s.IntendedP99 = s.P99
		}
	}
	s.CPU = -1 // unknown unless measured
	if s.cpuN > 0 {
		s.CPU = s.cpuSum / float64(s.cpuN)
	}
	sums := s.sums
	if sg.counters != nil && s.first != nil {
		now := sg.counters.Counters()
		sums = make(map[string]float64, len(now))
		for k, v := range now {
			sums[k] = v - s.first[k]
		}
	}
	if len(sums) > 0 && dur > 0 {
		s.Extra = make(map[string]float64, len(sums))
		for k, v := range sums {
			s.Extra[k+"_per_sec"] = v / dur
		}
	}
}

// errorCount is the number of failed operations in set.
func errorCount(set *measure.Set) int64 {
	var n int64
	for _, m := range set.Errors {
		for _, c := range m {
			n += c
		}
	}
	return n
}

// The rules of best and knee.
const (
	// MinSegmentIntervals is how many intervals after its first one a
	// segment must hold to be best or knee: the first interval after a
	// change is the transition and never counts.
	MinSegmentIntervals = 3
	// MaxBestErrorRate is the share of failed operations above which a
	// segment is never best: failed operations are not throughput.
	MaxBestErrorRate = 0.01
)

// markSegments sets Best and Knee on the segments that count: at least
// MinSegmentIntervals steady intervals with operations. Best: the highest
// ops/s of those whose error rate is at most MaxBestErrorRate. Knee: the
// first counted segment whose p99 grew faster than its throughput compared
// with the previous counted one (p99 ratio > ops ratio and p99 up >= 20 %),
// among those whose configuration differs from it (a mark or a new segment
// alone changes nothing, so it cannot be a knee). The screen and the
// report read the same marks.
func markSegments(segs []Segment) []Segment {
	best := -1
	prev := -1
	knee := -1
	for i := range segs {
		segs[i].Best, segs[i].Knee = false, false
		s := segs[i]
		if s.Ops == 0 || s.Intervals < MinSegmentIntervals {
			continue
		}
		if s.ErrorRate <= MaxBestErrorRate && (best < 0 || s.OpsPerSec > segs[best].OpsPerSec) {
			best = i
		}
		if prev >= 0 && knee < 0 && !sameConfig(segs[prev], s) {
			p := segs[prev]
			if p.P99 > 0 && p.OpsPerSec > 0 {
				p99Ratio := float64(s.P99) / float64(p.P99)
				opsRatio := s.OpsPerSec / p.OpsPerSec
				if p99Ratio >= 1.2 && p99Ratio > opsRatio {
					knee = i
				}
			}
		}
		prev = i
	}
	if best >= 0 && len(segs) > 1 {
		segs[best].Best = true
	}
	if knee >= 0 {
		segs[knee].Knee = true
	}
	return segs
}

// sameConfig tells whether two segments ran with the same controls.
func sameConfig(a, b Segment) bool {
	return a.Threads == b.Threads && a.Partitions == b.Partitions && a.Target == b.Target
}
