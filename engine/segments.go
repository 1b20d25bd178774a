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
}

// begin opens a new segment for the Controls in force.
func (sg *segments) begin(label string, ctl Controls) {
	s := &segmentAcc{set: &measure.Set{}, startT: time.Now()}
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

// fill computes a segment's figures from what it accumulated.
func (sg *segments) fill(s *segmentAcc) {
	dur := time.Since(s.startT).Seconds()
	if !s.Open {
		dur = (s.End - s.Start).Seconds()
	}
	s.Ops = s.set.Ops
	if dur > 0 {
		s.OpsPerSec = float64(s.Ops) / dur
	}
	var errs int64
	for _, m := range s.set.Errors {
		for _, n := range m {
			errs += n
		}
	}
	s.Errors = errs
	variant := measure.OK
	if s.Target > 0 && sg.measurement != "op" {
		variant = measure.OKIntended
	}
	if h := mergeVariant(s.set, variant); h != nil && h.TotalCount() > 0 {
		s.P50 = time.Duration(h.ValueAtQuantile(50))
		s.P95 = time.Duration(h.ValueAtQuantile(95))
		s.P99 = time.Duration(h.ValueAtQuantile(99))
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

// markSegments sets Best and Knee on segments that ran long enough to
// count (at least 500 ms with operations). Best: the highest ops/s. Knee: the
// first segment whose p99 grew faster than its throughput compared with
// the previous counted segment (p99 ratio > ops ratio and p99 up >= 20 %).
func markSegments(segs []Segment) []Segment {
	best := -1
	prev := -1
	knee := -1
	for i := range segs {
		segs[i].Best, segs[i].Knee = false, false
		s := segs[i]
		if s.Ops == 0 || s.Duration() < 500*time.Millisecond {
			continue
		}
		if best < 0 || s.OpsPerSec > segs[best].OpsPerSec {
			best = i
		}
		if prev >= 0 && knee < 0 {
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
