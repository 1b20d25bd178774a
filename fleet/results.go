package fleet

import (
	"encoding/json"
	"slices"
	"time"

	"benchtop/engine"
	"benchtop/workload"
)

// Results is the merged run's phases (after Run: all of them).
func (c *Coordinator) Results() []*engine.PhaseResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*engine.PhaseResult(nil), c.results...)
}

// Current returns the phases so far, the one in progress as of its last
// merged interval (the `s` key saves them); after the run, Results.
func (c *Coordinator) Current() []*engine.PhaseResult {
	req := make(chan []*engine.PhaseResult, 1)
	select {
	case c.curCh <- req:
	case <-c.loopDone:
		return c.Results()
	}
	select {
	case r := <-req:
		return r
	case <-c.loopDone:
		return c.Results()
	}
}

// results builds the merged phases: each phase's run time is its longest
// agent's (YCSB's aggregate of many clients: all operations over the
// longest run time).
func (m *merger) results() []*engine.PhaseResult {
	var order []*phaseMerge
	for _, pm := range m.phases {
		if pm.final != nil {
			order = append(order, pm)
		}
	}
	slices.SortFunc(order, func(a, b *phaseMerge) int { return phaseOrder(a.phase) - phaseOrder(b.phase) })
	m.c.mu.Lock()
	interrupted := m.c.interrupted
	m.c.mu.Unlock()
	var out []*engine.PhaseResult
	for _, pm := range order {
		var rt time.Duration
		for _, a := range m.c.agents {
			if a.done == nil {
				continue
			}
			for _, f := range a.done.Phases {
				if f.Phase == pm.phase {
					rt = max(rt, f.RunTime)
				}
			}
		}
		if rt == 0 {
			rt = pm.final.Time.Sub(pm.start)
		}
		res := pm.asm.Result(pm.final, rt, pm.start, interrupted)
		res.Output = m.c.cfg.Config.Output // measurementtype, ... as one process reports
		out = append(out, res)
	}
	if n := len(out); n > 0 {
		out[n-1].Closing = m.closing()
	}
	return out
}

// soFar is the phases merged so far, the one in progress as of its last
// published interval, its measurements copied (the loop goes on).
func (m *merger) soFar() []*engine.PhaseResult {
	var order []*phaseMerge
	for _, pm := range m.phases {
		if pm.asm.Last() != nil {
			order = append(order, pm)
		}
	}
	slices.SortFunc(order, func(a, b *phaseMerge) int { return phaseOrder(a.phase) - phaseOrder(b.phase) })
	var out []*engine.PhaseResult
	for _, pm := range order {
		last := pm.asm.Last()
		if pm.final != nil {
			last = pm.final
		}
		res := pm.asm.Result(last, last.Time.Sub(pm.start), pm.start, false)
		res.Set = pm.asm.Cumulative().Clone()
		res.Output = m.c.cfg.Config.Output
		out = append(out, res)
	}
	return out
}

// closing is the fleet's closing section: the agents' closing sections
// added up by their workload's Group (a stream's produced, consumed,
// lost, duplicated, out of order), nil when no agent has one; on a shared
// stream the row counts are the merged ledgers' verdict (Verdict). An
// agent lost sent none: its rows are not counted (a shared stream's
// verdict then says a ledger is missing).
func (m *merger) closing() *workload.Final {
	g := m.c.group()
	if g == nil || g.MergeClosing == nil {
		return nil
	}
	var parts []json.RawMessage
	for _, a := range m.c.agents {
		if a.done != nil && len(a.done.Summary) > 0 {
			parts = append(parts, a.done.Summary)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	var v workload.Verdict
	shared := m.c.sharedPartitions()
	if shared {
		v, _ = m.c.Verdict()
	}
	return g.MergeClosing(parts, shared, v)
}

// granularity is the timeseries measurement type's unit for the merged
// run's Assembler, as a process's own (0 for the other types).
func granularity(cfg *engine.Config) time.Duration {
	if cfg.Output.MeasurementType == "timeseries" {
		return cfg.Output.Granularity
	}
	return 0
}
