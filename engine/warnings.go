package engine

import (
	"fmt"
	"runtime"
	"time"

	"benchtop/engine/host"
)

// bottleneck is the client-bottleneck detector: it watches each interval
// for a target the client does not reach, a schedule lag that keeps
// growing, and benchtop's own CPU at the limit of the cores it may use,
// and says so while it lasts. A host kept busy by other processes is a
// softer note of its own: it is not benchtop's doing.
type bottleneck struct {
	underTarget int   // intervals in a row under 95 % of the target
	lagGrowing  int   // intervals in a row with a growing schedule lag
	lastLag     int64 // the previous interval's largest lag, ns
}

// interval is what the detector reads of one interval.
type interval struct {
	paused  bool
	rate    float64 // achieved ops/s
	target  float64 // 0 = unlimited
	maxLag  int64   // largest schedule lag, ns
	host    host.Sample
	threads int   // threads in force
	ops     int64 // operations completed in the interval (OK or failed)
	errors  int64 // of which failed
	// procs is how many cores benchtop may use (GOMAXPROCS); 0 reads it.
	procs int
}

// Thresholds of the warnings.
const (
	// procCPUBusy is benchtop's CPU, in percent of the cores it may use,
	// from which the client itself is the bottleneck.
	procCPUBusy = 90
	// hostBusy is the share of the host's CPU used by other processes
	// from which a busy host is noted.
	hostBusy = 50
	// stalledErrorShare is the share of failed operations from which the
	// server is taken as erroring: more threads would not help.
	stalledErrorShare = 0.01
)

// check updates the detector with one interval and returns the warnings in
// force.
func (b *bottleneck) check(iv interval) []string {
	if iv.paused {
		b.underTarget, b.lagGrowing = 0, 0
		return nil
	}
	var out []string
	if iv.target > 0 && iv.rate < 0.95*iv.target {
		b.underTarget++
	} else {
		b.underTarget = 0
	}
	if b.underTarget >= 3 {
		w := fmt.Sprintf("client bottleneck: %.0f of %.0f target ops/s for %d intervals", iv.rate, iv.target, b.underTarget)
		out = append(out, w+moreThreads(iv))
	}
	if iv.target > 0 && iv.maxLag > b.lastLag && iv.maxLag > int64(10*time.Millisecond) {
		b.lagGrowing++
	} else if iv.maxLag <= b.lastLag {
		b.lagGrowing = 0
	}
	b.lastLag = iv.maxLag
	if b.lagGrowing >= 3 {
		out = append(out, fmt.Sprintf("client bottleneck: schedule lag growing (%v behind the target schedule)", time.Duration(iv.maxLag).Round(time.Millisecond)))
	}
	out = append(out, cpuNotes(iv)...)
	return out
}

// moreThreads is the hint that more threads may reach the target, or ""
// where they would not help: at the thread limit, while the server fails
// operations, or while it completes none (stalled).
func moreThreads(iv interval) string {
	switch {
	case iv.threads >= MaxThreads:
		return " (at the thread limit)"
	case iv.ops == 0:
		return " (the server completes no operation)"
	case float64(iv.errors) > stalledErrorShare*float64(iv.ops):
		return " (the server is failing operations)"
	}
	return " (more threads?)"
}

// cpuNotes are the CPU warnings: benchtop's own process CPU against the
// cores it may use (the client bottleneck), else a busy host.
func cpuNotes(iv interval) []string {
	hs := iv.host
	if hs.Cores <= 0 {
		return nil
	}
	own, procs := ownCPU(hs, iv.procs)
	if own >= procCPUBusy {
		return []string{fmt.Sprintf("client bottleneck: benchtop uses %.0f %% of its %d cores", min(own, 100), procs)}
	}
	// The host's busy share not explained by benchtop.
	others := hs.CPUTotal - hs.ProcCPU/float64(hs.Cores)
	if others >= hostBusy {
		return []string{fmt.Sprintf("host busy: other processes use %.0f %%", others)}
	}
	return nil
}

// ownCPU is benchtop's CPU in percent of the cores it may use (procs,
// GOMAXPROCS when 0, at most the host's cores), and that core count. The
// sample must have Cores > 0.
func ownCPU(hs host.Sample, procs int) (float64, int) {
	if procs <= 0 {
		procs = runtime.GOMAXPROCS(0)
	}
	procs = min(procs, hs.Cores)
	return hs.ProcCPU / float64(procs), procs
}

// ClientCPUBusy is the client-bottleneck rule's threshold: benchtop's own
// CPU, in percent of the cores it may use, from which the client itself
// is the limit.
const ClientCPUBusy = procCPUBusy

// ClientCPU is benchtop's own CPU in percent of the cores it may use and
// that core count, the figure the client-bottleneck rule reads (a capacity
// search reads it too); ok is false when the sample has no CPU figures.
func ClientCPU(hs host.Sample) (pct float64, cores int, ok bool) {
	if hs.Cores <= 0 {
		return 0, 0, false
	}
	pct, cores = ownCPU(hs, 0)
	return pct, cores, true
}
