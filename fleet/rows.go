package fleet

import (
	"slices"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
)

// rowScratch keeps what the agents' rows need between intervals.
type rowScratch struct {
	host map[*agent]host.Sample
}

// update sets an agent's row from its interval: successful and failed
// ops/s, its own p99 over every operation type (service time), failed
// operations, threads, target, CPU and the busiest NIC.
func (r *rowScratch) update(a *agent, iv *Interval) {
	if r.host == nil {
		r.host = map[*agent]host.Sample{}
	}
	r.host[a] = iv.Host
	row := &a.row
	row.Name = a.name
	if d := iv.End.Sub(iv.Start).Seconds(); d > 0 {
		// Successful operations: failed ones are not throughput.
		row.OpsPerSec = float64(iv.Set.OK()) / d
		row.FailedPerSec = float64(iv.Set.Failed) / d
	}
	row.P99 = iv.P99
	row.Errors = iv.Set.Failed
	row.Threads, row.Target = iv.Threads, iv.Target
	row.Partitions = iv.Partitions
	row.CPU = -1
	if iv.Host.Cores > 0 {
		row.CPU = iv.Host.CPUTotal
	}
	row.RxBytesPerSec, row.TxBytesPerSec = 0, 0
	if len(iv.Host.NICs) > 0 {
		row.RxBytesPerSec, row.TxBytesPerSec = iv.Host.NICs[0].RxBytesPerSec, iv.Host.NICs[0].TxBytesPerSec
	} else if lo := iv.Host.Loopback; lo != nil {
		row.RxBytesPerSec, row.TxBytesPerSec = lo.RxBytesPerSec, lo.TxBytesPerSec
	}
}

// rows is every agent's row, in the order the agents were given.
func (m *merger) rows() []engine.AgentRow {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	out := make([]engine.AgentRow, len(m.c.agents))
	for i, a := range m.c.agents {
		row := a.row
		row.Name = a.name
		if row.State == "" {
			row.State = a.state
		}
		row.ClockOffset = a.offset
		out[i] = row
	}
	return out
}

// mergedFigures are one agent's figures of one phase as merged into the
// fleet's: its operations, errors and the span of its intervals (the
// coordinator's clock).
type mergedFigures struct {
	ops, errs  int64
	start, end time.Time
}

// account adds an agent's interval, as it is merged, to its figures.
// Caller is the merge loop.
func (m *merger) account(a *agent, iv *Interval) {
	errs := iv.Set.Failed // failed operations, counted as Ops counts them
	start, end := iv.Start.Add(-a.offset), iv.End.Add(-a.offset)
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	if a.merged == nil {
		a.merged = map[engine.Phase]*mergedFigures{}
	}
	f := a.merged[iv.Phase]
	if f == nil {
		f = &mergedFigures{start: start, end: end}
		a.merged[iv.Phase] = f
	}
	f.ops += iv.Set.Ops
	f.errs += errs
	if start.Before(f.start) {
		f.start = start
	}
	if end.After(f.end) {
		f.end = end
	}
}

// mergedPhases are the agent's phases as merged into the fleet's (a lost
// agent's, up to its loss), in phase order. Caller holds c.mu.
func (a *agent) mergedPhases() []PhaseFigures {
	var out []PhaseFigures
	for p, f := range a.merged {
		rt := f.end.Sub(f.start)
		pf := PhaseFigures{Phase: p, RunTime: rt, RunTimeMs: rt.Milliseconds(), Operations: f.ops, Errors: f.errs, Interrupted: true}
		if rt > 0 {
			pf.Throughput = float64(f.ops-f.errs) / rt.Seconds() // successful operations
		}
		out = append(out, pf)
	}
	slices.SortFunc(out, func(x, y PhaseFigures) int { return phaseOrder(x.Phase) - phaseOrder(y.Phase) })
	return out
}
