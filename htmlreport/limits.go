package htmlreport

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"benchtop/results/report"
	"benchtop/rundata/units"
)

// Thresholds of the signals, as the live screen's warnings use them.
const (
	cpuSaturated = 90.0 // % of all cores
	nicSaturated = 0.90 // of the link speed
	targetMet    = 0.95 // of the target rate
)

// limitFindings collects what limits finds: findings and advice for the
// reader, and the signals checked that did not fire (calm).
type limitFindings struct {
	run      *Run
	findings []Finding
	advice   []string
	calm     []string
}

func (l *limitFindings) find(signal, text string) {
	l.findings = append(l.findings, Finding{Signal: signal, Text: text})
}

func (l *limitFindings) advise(text string) { l.advice = append(l.advice, text) }

// limits builds "What limited this run" from measured signals only, each
// with its figure, and the capacity-planning advice the signals support.
func limits(run *Run) (findings []Finding, advice []string) {
	l := &limitFindings{run: run}
	l.cpu()
	l.nic()
	l.errors()
	l.target()
	l.kneeAndBest()
	l.sections()
	l.checks()
	if !hasAny(l.findings, "cpu", "nic", "errors", "target", "knee", "check", "backpressure") {
		l.find("none", "No limit was measured on the client side: the database (or the workload's own settings) set the rate.")
	}
	if len(l.calm) > 0 {
		l.find("checked", "Checked and not limiting: "+strings.Join(l.calm, "; ")+".")
	}
	return l.findings, l.advice
}

// cpu: client CPU per segment, and the share of intervals above 90 %.
func (l *limitFindings) cpu() {
	s := &l.run.Summary
	cores := 0
	if s.Machine() != nil {
		cores = s.Machine().Cores
	}
	var hot []string
	peakCPU := 0.0
	for _, g := range s.Segments {
		if g.CPU == nil { // not measured
			continue
		}
		cpu := *g.CPU
		peakCPU = max(peakCPU, cpu)
		if cpu > cpuSaturated && g.DurationS >= minSweepSegmentS {
			hot = append(hot, fmt.Sprintf("segment %d (%s) %.0f %%", g.Index, config(g), cpu))
		}
	}
	hotRows, runRows := 0, 0
	var procs []float64
	for _, r := range l.run.Rows {
		if r.Phase == "load" {
			continue
		}
		runRows++
		peakCPU = max(peakCPU, r.CPU)
		if r.CPU > cpuSaturated {
			hotRows++
		}
		if cores > 0 {
			procs = append(procs, procShare(r, cores))
		}
	}
	if len(hot) == 0 && (runRows == 0 || hotRows*2 <= runRows) {
		l.calm = append(l.calm, fmt.Sprintf("client CPU peaked at %.0f %%", peakCPU))
		return
	}
	t := fmt.Sprintf("Client CPU was above %.0f %% of its %s: %s.", cpuSaturated, coresText(cores), strings.Join(hot, ", "))
	if len(hot) == 0 {
		t = fmt.Sprintf("Client CPU was above %.0f %% of its %s", cpuSaturated, coresText(cores))
	}
	if runRows > 0 {
		t = strings.TrimSuffix(t, ".") + fmt.Sprintf(" (%d of %d intervals).", hotRows, runRows)
	}
	if len(procs) > 0 {
		sort.Float64s(procs)
		own := procs[len(procs)/2]
		t += fmt.Sprintf(" benchtop itself used %.0f %% of them (median of the intervals)", own)
		if own < 50 {
			t += ": other processes on the client took the rest, so this run shared its client"
		}
		t += "."
	}
	if s.Database == "memory" {
		t += " The memory store runs inside the client process, so its work is the client's."
	}
	l.find("cpu", t)
	l.advise("The client's CPU is saturated: the figures may be the client's limit, not the database's. Add client machines (or a larger one) before sizing the database from this run.")
}

// nic: the client's network against its link speed.
func (l *limitFindings) nic() {
	peakNIC := 0.0
	for _, r := range l.run.Rows {
		peakNIC = max(peakNIC, r.RxBps/1e6, r.TxBps/1e6)
	}
	link := linkMBps(&l.run.Summary)
	switch {
	case len(l.run.Rows) == 0:
		l.calm = append(l.calm, "network not measured (no time series)")
	case peakNIC < 0.05:
		l.calm = append(l.calm, "no network traffic beyond loopback")
	case link > 0 && peakNIC > nicSaturated*link:
		l.find("nic", fmt.Sprintf("The client's network reached %.1f MB/s of its %.1f MB/s link (%.0f %%).", peakNIC, link, 100*peakNIC/link))
		l.advise("The client's NIC is saturated: add client machines (or a faster link); more threads or partitions on this client cannot raise throughput.")
	case link > 0:
		l.calm = append(l.calm, fmt.Sprintf("network peaked at %.1f MB/s of %.1f MB/s (%.0f %%)", peakNIC, link, 100*peakNIC/link))
	default:
		l.calm = append(l.calm, fmt.Sprintf("network peaked at %.1f MB/s (link speed unknown, saturation not checked)", peakNIC))
	}
}

// errors: failed operations and their causes.
func (l *limitFindings) errors() {
	s := &l.run.Summary
	var ops, errs int64
	for _, o := range s.Operations {
		ops += o.Count
		errs += o.Errors
	}
	if errs == 0 {
		l.calm = append(l.calm, "no operation failed")
		return
	}
	var kinds []string
	for _, k := range sortedKeys(s.Errors) {
		kinds = append(kinds, fmt.Sprintf("%s %s", k, units.Count(s.Errors[k])))
	}
	l.find("errors", fmt.Sprintf("%s of %s operations failed (%.3f %%): %s.", units.Count(errs), units.Count(ops), 100*float64(errs)/float64(max(ops, 1)), orDash(strings.Join(kinds, ", "))))
	l.advise("Operations failed: the throughput figures count only the successful ones (failed ones per second are shown beside them). Look at their causes before comparing this run with another.")
}

// target: a target not met, and the schedule lag growing.
func (l *limitFindings) target() {
	for _, g := range l.run.Summary.Segments {
		if g.Target <= 0 || g.DurationS < minSweepSegmentS || g.OpsPerSec >= targetMet*g.Target {
			continue
		}
		t := fmt.Sprintf("Segment %d (%s) reached %s of its %s ops/s target (%.0f %%).", g.Index, config(g), fmtRate(g.OpsPerSec), fmtRate(g.Target), 100*g.OpsPerSec/g.Target)
		if a, b, ok := intendedGrowth(l.run, g); ok {
			t += fmt.Sprintf(" Intended p99 grew from %s to %s across it: operations fell further behind the schedule.", fmtUS(a), fmtUS(b))
		}
		l.find("target", t)
	}
	if hasSignal(l.findings, "target") {
		l.advise("The target rate was not met: the client or the database is at its limit there. The intended latency is what callers at that rate would see.")
	}
}

// kneeAndBest: the knee and the best segment as the run marked them
// (results/marks: the same marks as the table, the screen and the text
// report), and the capacity advice from the qualified segment the knee was
// judged against, never from a segment the rules could not judge.
func (l *limitFindings) kneeAndBest() {
	if c := l.run.Capacity; c != nil {
		l.capacity(c) // the search's verdicts, not the segments' time order (capacity.go)
		return
	}
	s := &l.run.Summary
	segs := s.Segments
	for _, g := range segs {
		if !g.Knee {
			continue
		}
		t := fmt.Sprintf("p99 started growing faster than throughput at segment %d (%s): p99 %s at %s ops/s", g.Index, config(g), fmtUSp(g.P99US), fmtRate(g.OpsPerSec))
		if from := segmentByIndex(segs, g.KneeFrom); from != nil {
			t += fmt.Sprintf(", against p99 %s at %s ops/s in segment %d (%s)", fmtUSp(from.P99US), fmtRate(from.OpsPerSec), from.Index, config(*from))
			l.advise(fmt.Sprintf("Plan capacity below the knee: about %s ops/s (%s) held p99 at %s on this setup.", fmtRate(from.OpsPerSec), config(*from), fmtUSp(from.P99US)))
		}
		l.find("knee", t+".")
	}
	for _, g := range segs {
		if g.Best {
			l.find("best", fmt.Sprintf("The best throughput was %s ops/s in segment %d (%s), p99 %s.", fmtRate(g.OpsPerSec), g.Index, config(g), fmtUSp(g.P99US)))
		}
	}
	if s.SegmentsNote != "" {
		l.find("best", upperFirst(s.SegmentsNote)+".")
	}
}

// segmentByIndex is the segment of that Index, nil for none.
func segmentByIndex(segs []report.SegmentSummary, index int) *report.SegmentSummary {
	for i := range segs {
		if segs[i].Index == index && index > 0 {
			return &segs[i]
		}
	}
	return nil
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// sections: what the workloads' sections found (a stream's partitions
// and loss check, an ingest check and backpressure).
func (l *limitFindings) sections() {
	nicFull := hasSignal(l.findings, "nic")
	for _, sec := range l.run.Sections {
		l.findings = append(l.findings, sec.Findings...)
		if !nicFull {
			l.advice = append(l.advice, sec.AdviceBelowNIC...)
		}
		l.calm = append(l.calm, sec.Calm...)
	}
}

// checks: data integrity, an interruption.
func (l *limitFindings) checks() {
	s := &l.run.Summary
	if s.Integrity > 0 {
		l.find("check", fmt.Sprintf("%s values read back did not match what was written (dataintegrity).", units.Count(s.Integrity)))
	}
	if s.Interrupted {
		l.find("interrupted", "The run was interrupted: the figures cover what ran until the stop.")
	}
}

func coresText(n int) string {
	if n <= 0 {
		return "cores"
	}
	if n == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%d cores", n)
}

// config names a segment's configuration: "threads 4, partitions 1".
func config(g report.SegmentSummary) string {
	t := fmt.Sprintf("threads %d, partitions %d", g.Threads, g.Partitions)
	if g.Target > 0 {
		t += ", target " + fmtRate(g.Target)
	}
	return t
}

func hasSignal(fs []Finding, sig string) bool { return hasAny(fs, sig) }

func hasAny(fs []Finding, sigs ...string) bool {
	for _, f := range fs {
		for _, s := range sigs {
			if f.Signal == s {
				return true
			}
		}
	}
	return false
}

// intendedGrowth is the intended p99 (all operations) of the first and the
// last interval inside segment g, when it grew past twice and 10 ms.
func intendedGrowth(run *Run, g report.SegmentSummary) (first, last float64, ok bool) {
	byEnd := map[int64]float64{}
	for _, iv := range run.Intervals {
		if !iv.Intended || iv.Load || iv.Failed || iv.StartS < g.StartS-0.05 || iv.EndS > g.StartS+g.DurationS+0.05 {
			continue
		}
		k := int64(math.Round(iv.EndS * 1e3))
		byEnd[k] = max(byEnd[k], float64(iv.H.ValueAtQuantile(99))/1e3)
	}
	if len(byEnd) < 2 {
		return 0, 0, false
	}
	keys := make([]int64, 0, len(byEnd))
	for k := range byEnd {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	first, last = byEnd[keys[0]], byEnd[keys[len(keys)-1]]
	return first, last, last > 2*first && last > 10_000
}
