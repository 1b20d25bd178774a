package fleet

import (
	"fmt"
	"slices"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload"
)

// phaseOrder orders phases: load before run.
func phaseOrder(p engine.Phase) int {
	switch p {
	case engine.PhaseLoad:
		return 0
	case engine.PhaseRun:
		return 1
	}
	return 2
}

// phaseMerge is one phase being merged: interval k of every agent goes
// into the Assembler together.
type phaseMerge struct {
	phase   engine.Phase
	asm     *engine.Assembler
	names   []string
	start   time.Time
	next    int                          // the next interval to publish
	pending map[int]map[*agent]*Interval // intervals waiting for the others
	firstAt map[int]time.Time            // when an interval's first part came
	lastNow time.Time                    // the end of the last published interval
	final   *engine.Snapshot
	done    bool
}

// merger is the merge loop's state; only the loop's goroutine touches it.
type merger struct {
	c        *Coordinator
	runStart time.Time
	interval time.Duration
	phases   map[engine.Phase]*phaseMerge
	cuts     []ctlChange
	parts    int
	rowCache rowScratch
	sum      measure.Accumulator
	// The agents' workload figures of the interval being built.
	views []*workload.View
	delta map[string]float64
	// events are the agents' events of the interval being built;
	// rebalanced the partition counts whose rebalance was told
	// (agentEvents).
	events     []engine.Event
	rebalanced map[string]bool
}

// interval1 takes one agent's interval: merged now when its number has
// been published already (late), else kept until the others' come.
func (m *merger) interval1(a *agent, iv *Interval) {
	if iv.Set == nil {
		return
	}
	pm := m.phase(a, iv)
	if !slices.Equal(pm.names, iv.OpNames) {
		m.c.lose(a, time.Since(m.runStart), fmt.Sprintf("its operation names %v differ from %v", iv.OpNames, pm.names))
		return
	}
	if iv.Done {
		a.past[engine.PhaseLoad], a.past[engine.PhaseRun] = true, true
		a.finishedAt = time.Now()
		m.setState(a, StateDone, 0)
	}
	a.parts.Store(int64(iv.Partitions))
	if a.gotSeq[iv.Phase] < iv.Seq {
		a.gotSeq[iv.Phase] = iv.Seq
	}
	if iv.Seq < pm.next {
		m.takeLate(pm, a, iv)
		return
	}
	if pm.pending[iv.Seq] == nil {
		pm.pending[iv.Seq] = map[*agent]*Interval{}
		pm.firstAt[iv.Seq] = time.Now()
	}
	pm.pending[iv.Seq][a] = iv
}

// phase returns the merge of iv's phase (started by the agent's
// PhaseStart, which comes first on its stream).
func (m *merger) phase(a *agent, iv *Interval) *phaseMerge {
	return m.phaseAt(iv.Phase, iv.Start.Add(-a.offset))
}

// phaseAt returns the merge of phase p, starting it at start (the
// coordinator's clock) when it is the first word of it.
func (m *merger) phaseAt(p engine.Phase, start time.Time) *phaseMerge {
	if pm := m.phases[p]; pm != nil {
		return pm
	}
	if p == m.firstPhase(p) || start.Before(m.runStart) {
		start = m.runStart
	}
	names := m.c.opNames
	pm := &phaseMerge{phase: p, names: names, start: start, next: 1, lastNow: start,
		pending: map[int]map[*agent]*Interval{}, firstAt: map[int]time.Time{}}
	cfg := m.c.cfg.Config
	total := int64(0)
	switch p {
	case engine.PhaseRun:
		total = cfg.OperationCount
	case engine.PhaseLoad:
		for _, o := range m.c.agents {
			total += o.ready.Share.InsertCount
		}
		if total < 0 {
			total = 0 // an agent's own store: not split, not known here
		}
	}
	m.c.mu.Lock()
	ctl := m.c.ctl
	m.c.mu.Unlock()
	ctl.Partitions = m.parts
	pm.asm = engine.NewAssembler(engine.AssemblerConfig{
		Phase: p, OpNames: names, OpsTotal: total, RunStart: m.runStart, PhaseStart: start,
		MaxExecutionTime: cfg.MaxExecutionTime, Measurement: cfg.MeasurementIntvl, Percentiles: cfg.Percentiles,
		Granularity: granularity(cfg), Interval: cfg.StatusInterval, RateKey: rateKey(cfg.Workload),
	}, ctl, string(p)+" phase")
	pm.asm.Event(engine.Event{At: start.Sub(m.runStart), Kind: "phase", To: string(p), Text: string(p) + " phase"})
	m.phases[p] = pm
	for _, h := range m.c.cfg.OnPhase {
		h(p)
	}
	return pm
}

// firstPhase is the earliest phase seen so far, p included.
func (m *merger) firstPhase(p engine.Phase) engine.Phase {
	for q := range m.phases {
		if phaseOrder(q) < phaseOrder(p) {
			p = q
		}
	}
	return p
}

// current is the earliest phase not yet finished.
func (m *merger) current() *phaseMerge {
	var cur *phaseMerge
	for _, pm := range m.phases {
		if !pm.done && (cur == nil || phaseOrder(pm.phase) < phaseOrder(cur.phase)) {
			cur = pm
		}
	}
	return cur
}

// add sums one agent's interval into the interval publish hands the
// Assembler next (a late interval too: merged when it comes).
func (m *merger) add(a *agent, iv *Interval) {
	if hooks := m.c.cfg.OnAgentInterval; len(hooks) > 0 {
		if err := materialize(iv); err != nil {
			m.c.lose(a, time.Since(m.runStart), oneLine(err))
			return
		}
		start, end := iv.Start.Add(-a.offset), iv.End.Add(-a.offset)
		for _, h := range hooks {
			h(a.name, iv.Phase, iv.OpNames, start, end, iv.Set)
		}
	}
	m.rowCache.update(a, iv)
	m.events = append(m.events, iv.Events...)
	if iv.Workload != nil {
		m.views = append(m.views, iv.Workload)
	}
	for k, v := range iv.Delta {
		if m.delta == nil {
			m.delta = map[string]float64{}
		}
		m.delta[k] += v
	}
	if err := addInterval(&m.sum, iv); err != nil {
		m.c.lose(a, time.Since(m.runStart), oneLine(err))
		return
	}
	m.account(a, iv)
}

// publishReady publishes every interval that is complete (or whose wait
// is over), and finishes phases whose agents are all past them.
func (m *merger) publishReady() {
	for {
		pm := m.current()
		if pm == nil {
			return
		}
		var expected []*agent
		for _, a := range m.c.agents {
			if a.state != StateLost && !a.past[pm.phase] {
				expected = append(expected, a)
			}
		}
		if len(expected) == 0 {
			m.finish(pm)
			continue
		}
		k := pm.next
		got := pm.pending[k]
		if len(got) == 0 {
			return
		}
		var missing []*agent
		for _, a := range expected {
			if got[a] == nil {
				missing = append(missing, a)
			}
		}
		if len(missing) > 0 {
			if time.Since(pm.firstAt[k]) < m.interval {
				return
			}
			m.markLate(missing, k)
		}
		m.publish(pm, k, false)
	}
}

// finish publishes what is left of a phase, the last interval as its
// final snapshot.
func (m *merger) finish(pm *phaseMerge) {
	var seqs []int
	for k := range pm.pending {
		seqs = append(seqs, k)
	}
	slices.Sort(seqs)
	for i, k := range seqs {
		if i < len(seqs)-1 {
			m.publish(pm, k, false)
		}
	}
	last := pm.next
	if len(seqs) > 0 {
		last = seqs[len(seqs)-1]
	}
	pm.final = m.publish(pm, last, true)
	pm.done = true
}

// lastPhase: every agent still here has ended its run.
func (m *merger) lastPhase() bool {
	for _, a := range m.c.agents {
		if a.state != StateLost && !(a.past[engine.PhaseRun] && a.past[engine.PhaseLoad]) {
			return false
		}
	}
	return true
}

// publish merges interval k of every agent that sent it and publishes
// the snapshot.
func (m *merger) publish(pm *phaseMerge, k int, final bool) *engine.Snapshot {
	now := pm.lastNow
	for a, iv := range pm.pending[k] {
		m.add(a, iv)
		if end := iv.End.Add(-a.offset); end.After(now) {
			now = end
		}
	}
	if m.sum.N() > 0 {
		pm.asm.Add(m.sum.Take())
	}
	delete(pm.pending, k)
	delete(pm.firstAt, k)
	if k >= pm.next {
		pm.next = k + 1
	}
	if !now.After(pm.lastNow) {
		now = pm.lastNow.Add(time.Millisecond)
	}
	pm.lastNow = now
	m.observeParts(pm)
	m.agentEvents(pm, m.events)
	m.events = m.events[:0]

	ws := workload.Sample{Delta: m.delta, View: m.c.mergeViews(m.views)}
	m.views, m.delta = m.views[:0], nil
	snap, data := pm.asm.Snapshot(now, now.Sub(pm.start), m.fleetHost(), ws, final, false)
	if final && m.lastPhase() {
		snap.Done = true
	}
	snap.Agents = m.rows()
	for _, h := range m.c.cfg.OnInterval {
		h(pm.phase, pm.names, data.Start, now, data.Set)
	}
	pm.asm.Recycle(data)
	for _, h := range m.c.cfg.OnSnapshot {
		h(snap)
	}
	m.c.publish(snap)
	// Changes made during this interval start their segment with the next.
	for _, ch := range m.cuts {
		pm.asm.Cut(ch.event.String(), ch.ctl, -1)
	}
	m.cuts = m.cuts[:0]
	return snap
}

// fleetHost is the merged host figure: the busiest agent's CPU (what a
// client bottleneck shows in), cores, process figures and NIC rates
// summed over the agents.
func (m *merger) fleetHost() host.Sample {
	out := host.Sample{Time: time.Now()}
	var rx, tx float64
	for _, a := range m.c.agents {
		h := m.rowCache.host[a]
		if h.Cores == 0 {
			continue
		}
		out.CPUTotal = max(out.CPUTotal, h.CPUTotal)
		out.Cores += h.Cores
		out.ProcCPU += h.ProcCPU
		out.ProcRSS += h.ProcRSS
		if len(h.NICs) > 0 {
			rx += h.NICs[0].RxBytesPerSec
			tx += h.NICs[0].TxBytesPerSec
		} else if h.Loopback != nil {
			rx += h.Loopback.RxBytesPerSec
			tx += h.Loopback.TxBytesPerSec
		}
	}
	if out.Cores > 0 {
		out.NICs = []host.NIC{{Name: "fleet", RxBytesPerSec: rx, TxBytesPerSec: tx}}
	}
	return out
}

// rateKey is the workload figure whose rate is the run's throughput
// (workload.Factory.RateKey), "" for operations.
func rateKey(name string) string {
	f, _ := workload.Lookup(name)
	return f.RateKey
}
