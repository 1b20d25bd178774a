package engine

import (
	"fmt"
	"runtime"
	"time"

	"benchtop/engine/host"
)

// bottleneck is the client-bottleneck detector: it watches each interval
// for a target not reached, a schedule lag that keeps growing, and
// benchtop's own CPU at the limit of the cores it may use, and says so
// while it lasts, with the advice that can help (advice). A target not
// met is not called the client's fault: a server at its capacity misses
// it too. A host kept busy by other processes is a softer note of its
// own: it is not benchtop's doing.
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
	// mean is the operations' mean service time (0: unknown): with the
	// rate, how many threads were in an operation at a time (Little).
	mean time.Duration
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
	// hostCPUFull is the host's busy share, all processes, from which its
	// CPU is full: more client threads would only queue for the cores.
	hostCPUFull = 90
	// threadsBusy is the share of the threads in an operation at a time
	// (rate × mean service time) from which the threads are the limit.
	threadsBusy = 0.8
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
		w := fmt.Sprintf("target not met: %.0f of %.0f target ops/s for %d intervals", iv.rate, iv.target, b.underTarget)
		out = append(out, w+advice(iv))
	}
	if iv.target > 0 && iv.maxLag > b.lastLag && iv.maxLag > int64(10*time.Millisecond) {
		b.lagGrowing++
	} else if iv.maxLag <= b.lastLag {
		b.lagGrowing = 0
	}
	b.lastLag = iv.maxLag
	if b.lagGrowing >= 3 {
		out = append(out, fmt.Sprintf("behind the target schedule: %v late and growing", time.Duration(iv.maxLag).Round(time.Millisecond))+advice(iv))
	}
	out = append(out, cpuNotes(iv)...)
	return out
}

// advice is what may help a target that is not met, only where it can:
// nothing at the thread limit, while the server fails operations or
// completes none (stalled). With the client's CPU full (the host's, by
// whoever, or benchtop's share of the cores it may use) the client is
// the limit: more threads would only queue for its cores. Otherwise the
// threads tell: when every thread is in an operation all the time (rate
// × mean service time ≈ threads) more threads may raise the rate; when
// they are not, they idle, and more would not help. An interval whose
// service time is unknown goes by the CPU alone.
func advice(iv interval) string {
	switch {
	case iv.threads >= MaxThreads:
		return " (at the thread limit)"
	case iv.ops == 0:
		return " (the server completes no operation)"
	case float64(iv.errors) > stalledErrorShare*float64(iv.ops):
		return " (the server is failing operations)"
	case cpuFull(iv):
		return " (the client is the limit: its CPU is full)"
	case iv.mean > 0 && iv.rate*iv.mean.Seconds() < threadsBusy*float64(iv.threads):
		return "" // the threads idle: more would not help
	}
	return " (more threads?)"
}

// cpuFull tells whether the client's CPU is full: the host's cores all
// busy (whoever uses them), or benchtop at the limit of the cores it may
// use.
func cpuFull(iv interval) bool {
	hs := iv.host
	if hs.Cores <= 0 {
		return false
	}
	own, _ := ownCPU(hs, iv.procs)
	return hs.CPUTotal >= hostCPUFull || own >= procCPUBusy
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
