package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/engine/stream"
	"benchtop/engine/workload"
)

// inMsg is one message from an agent's reader goroutine to the merge
// loop.
type inMsg struct {
	a     *agent
	iv    *Interval
	phase engine.Phase // a PhaseStart's
	at    time.Time    // a PhaseStart's, the agent's clock
	done  *Done
	err   error
}

// reader decodes one agent's messages (histograms included, so that the
// decoding spreads over goroutines) and hands them to the merge loop.
func (c *Coordinator) reader(a *agent) {
	for {
		env, err := a.conn.Recv()
		if err != nil {
			c.inbox <- inMsg{a: a, err: err}
			return
		}
		var m inMsg
		switch env.Type {
		case TypeInterval:
			iv, err := decodeInterval(env.Body)
			m = inMsg{a: a, iv: iv, err: err}
		case TypePhase:
			var p PhaseStart
			err = decode(env, TypePhase, &p)
			m = inMsg{a: a, phase: p.Phase, at: p.At, err: err}
		case TypeDone:
			var d Done
			err = decode(env, TypeDone, &d)
			m = inMsg{a: a, done: &d, err: err}
		default:
			err = decode(env, TypeInterval, nil) // a Refuse or a stray message
			m = inMsg{a: a, err: err}
		}
		c.inbox <- m
		if m.err != nil || m.done != nil {
			return
		}
	}
}

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
}

// Run starts every agent at one instant, merges their intervals until all
// are done or lost, and returns the merged phases. An agent lost does not
// end the run; Lost says which.
func (c *Coordinator) Run(ctx context.Context) ([]*engine.PhaseResult, error) {
	defer close(c.snaps)
	var maxRTT time.Duration
	for _, a := range c.agents {
		maxRTT = max(maxRTT, a.rtt)
	}
	start := time.Now().Add(500*time.Millisecond + 4*maxRTT)
	c.mu.Lock()
	c.info.Start = start
	c.mu.Unlock()
	for _, a := range c.agents {
		a.lastSeen = start
		if err := a.conn.Send(TypeStart, Start{At: start.Add(a.offset)}); err != nil {
			c.lose(a, 0, "start: "+oneLine(err))
			continue
		}
		go c.reader(a)
	}
	m := &merger{c: c, runStart: start, interval: c.cfg.Config.StatusInterval, phases: map[engine.Phase]*phaseMerge{}, parts: c.cfg.Config.Partitions}
	err := m.loop(ctx)
	close(c.loopDone)
	for _, a := range c.agents {
		a.conn.Close()
	}
	res := m.results()
	c.mu.Lock()
	c.results = res
	c.mu.Unlock()
	if err == nil && len(c.live()) == 0 {
		err = errors.New("every agent was lost")
	}
	return res, err
}

// loop is the merge loop: agents' messages, controls, and a tick for
// late and silent agents.
func (m *merger) loop(ctx context.Context) error {
	c := m.c
	tick := time.NewTicker(max(m.interval/4, 50*time.Millisecond))
	defer tick.Stop()
	var stopBy time.Time
	ctxDone := ctx.Done()
	for {
		select {
		case msg := <-c.inbox:
			m.handle(msg)
		case ch := <-c.ctlCh:
			m.control(ch)
		case req := <-c.curCh:
			req <- m.soFar()
		case <-tick.C:
			m.checkSilent(stopBy)
		case <-c.stopCh:
			if stopBy.IsZero() {
				stopBy = time.Now().Add(30*time.Second + c.cfg.LostAfter)
			}
			c.stopCh = nil // seen: a nil channel blocks
		case <-ctxDone:
			ctxDone = nil
			c.Interrupt()
		}
		m.publishReady()
		if m.over() {
			return nil
		}
	}
}

// over: every agent sent its Done or was lost, and the last phase is out.
func (m *merger) over() bool {
	for _, a := range m.c.agents {
		if a.state != StateLost && a.done == nil {
			return false
		}
	}
	for _, pm := range m.phases {
		if !pm.done {
			return false
		}
	}
	return true
}

func (m *merger) handle(msg inMsg) {
	a := msg.a
	if a.state == StateLost {
		return
	}
	a.lastSeen = time.Now()
	switch {
	case msg.err != nil:
		if a.done != nil && errors.Is(msg.err, errEOF) {
			return
		}
		m.c.lose(a, time.Since(m.runStart), describeLoss(msg.err))
	case msg.iv != nil:
		m.interval1(a, msg.iv)
	case msg.phase != "":
		if phaseOrder(msg.phase) > phaseOrder(engine.PhaseLoad) {
			a.past[engine.PhaseLoad] = true
		}
		m.phaseAt(msg.phase, msg.at.Add(-a.offset))
	case msg.done != nil:
		m.c.mu.Lock()
		a.done = msg.done
		a.state = StateDone
		a.row.State = StateDone
		m.c.mu.Unlock()
		a.past[engine.PhaseLoad], a.past[engine.PhaseRun] = true, true
	}
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
		// Late: merged into the interval being built now.
		m.add(a, iv)
		if a.state == StateLate && iv.Seq >= pm.next-1 {
			m.setState(a, StateRunning, 0)
		} else if a.state == StateLate {
			m.setState(a, StateLate, iv.Seq+1)
		}
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
	}
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
			for _, a := range missing {
				if a.state != StateLate {
					m.c.logf("agent %s late: interval %d has not arrived", a.name, k)
				}
				m.setState(a, StateLate, k)
			}
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

	ws := workload.Sample{Delta: m.delta, View: stream.MergeViews(m.views)}
	m.views, m.delta = m.views[:0], nil
	snap := pm.asm.Snapshot(now, now.Sub(pm.start), m.fleetHost(), ws, final, false)
	if final && m.lastPhase() {
		snap.Done = true
	}
	snap.Agents = m.rows()
	for _, h := range m.c.cfg.OnInterval {
		h(pm.phase, pm.names, snap.Data.Start, now, snap.Data.Set)
	}
	pm.asm.Recycle(snap)
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

// observeParts records a partition change once every agent not lost
// runs the partitions last asked of it: the fleet's total is the sum of
// the agents' when it divides them, else the largest (the agents share
// one stream).
func (m *merger) observeParts(pm *phaseMerge) {
	total := 0
	m.c.mu.Lock()
	for _, a := range m.c.agents {
		if a.state == StateLost {
			continue
		}
		p := a.row.Partitions
		if a.wantParts > 0 && p != a.wantParts {
			m.c.mu.Unlock()
			return // a change is under way
		}
		if m.c.divided {
			total += p
		} else {
			total = max(total, p)
		}
	}
	if total == m.parts || total == 0 {
		m.c.mu.Unlock()
		return
	}
	old := m.parts
	m.c.ctl.Partitions = total
	ctl := m.c.ctl
	m.c.mu.Unlock()
	m.parts = total
	text := fmt.Sprintf("partitions %d→%d", old, total)
	if m.c.divided {
		text += fmt.Sprintf(" over %d agents", len(m.c.live()))
	}
	e := engine.Event{At: time.Since(m.runStart), Kind: "partitions", From: fmt.Sprint(old), To: fmt.Sprint(total), Text: text}
	pm.asm.Event(e)
	m.cuts = append(m.cuts, ctlChange{ctl: ctl, event: e, cut: true})
}

// control takes a change made through the Controller.
func (m *merger) control(ch ctlChange) {
	ch.ctl.Partitions = m.parts
	pm := m.current()
	if pm == nil {
		return
	}
	pm.asm.Event(ch.event)
	if ch.cut {
		m.cuts = append(m.cuts, ch)
	} else {
		pm.asm.SetControls(ch.ctl)
	}
}

// closingWait is how long an agent that sent its last interval may take
// to send its Done (the engine gives a workload's closing check 2 min).
const closingWait = 3 * time.Minute

// checkSilent loses agents that send nothing for too long, and after a
// stop, those that do not end in time.
func (m *merger) checkSilent(stopBy time.Time) {
	for _, a := range m.c.agents {
		if a.state == StateLost || a.done != nil {
			continue
		}
		limit := m.c.cfg.LostAfter
		if !a.finishedAt.IsZero() {
			limit = max(limit, closingWait)
		}
		if d := time.Since(a.lastSeen); d > limit {
			m.c.lose(a, time.Since(m.runStart), fmt.Sprintf("nothing received for %s", d.Round(time.Second)))
		} else if !stopBy.IsZero() && time.Now().After(stopBy) && a.finishedAt.IsZero() {
			m.c.lose(a, time.Since(m.runStart), "did not end after stop")
		}
	}
}

func (m *merger) setState(a *agent, state string, pending int) {
	m.c.mu.Lock()
	a.state, a.late = state, pending
	a.row.State, a.row.Pending = state, pending
	m.c.mu.Unlock()
}

// lose marks an agent lost; the run goes on with the others.
func (c *Coordinator) lose(a *agent, at time.Duration, reason string) {
	c.mu.Lock()
	if a.state == StateLost {
		c.mu.Unlock()
		return
	}
	a.state, a.reason, a.lostAt = StateLost, reason, at
	a.row.State, a.row.Reason = StateLost, reason
	c.mu.Unlock()
	a.conn.Close()
	c.logf("agent %s lost at %s: %s", a.name, at.Round(time.Millisecond), reason)
	c.redistribute(a)
}

// redistribute gives the agents still running a lost agent's share of the
// target, so that the fleet's total stays what the user set, and records
// the change as an event ("agent vm2 lost: target 1000/s per agent →
// 1500/s"). The sends go on apart: the merge loop calls lose.
func (c *Coordinator) redistribute(lost *agent) {
	c.mu.Lock()
	total, stopped := c.ctl.Target, c.stopped
	var live []*agent
	for _, a := range c.live() {
		if a.state != StateDone {
			live = append(live, a)
		}
	}
	before := len(live) + 1 // the agents sharing the target until now
	ctl := c.ctl
	c.mu.Unlock()
	if total <= 0 || len(live) == 0 || stopped {
		return
	}
	from, to := splitTarget(total, before), splitTarget(total, len(live))
	text := fmt.Sprintf("agent %s lost: target %s/s per agent → %s/s", lost.name, engine.FormatTarget(from), engine.FormatTarget(to))
	c.logf("%s (the fleet's %s/s over %d agents)", text, engine.FormatTarget(total), len(live))
	go func() {
		c.sendTo(live, Control{Op: "target", F: to}, nil)
		c.change(ctl, "target", engine.FormatTarget(from), engine.FormatTarget(to), text, true)
	}()
}

// publish sends a snapshot on; a reader far behind loses the oldest.
func (c *Coordinator) publish(s *engine.Snapshot) {
	select {
	case c.snaps <- s:
		return
	default:
	}
	select {
	case <-c.snaps:
	default:
	}
	select {
	case c.snaps <- s:
	default:
	}
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
		out = append(out, pm.asm.Result(pm.final, rt, pm.start, interrupted))
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
		out = append(out, res)
	}
	return out
}

// closing is the fleet's closing section: the agents' stream summaries
// added up (produced, consumed, lost, duplicated, out of order), nil when
// no agent has one. An agent lost sent none: its rows are not counted.
func (m *merger) closing() *workload.Final {
	var parts []*stream.Summary
	for _, a := range m.c.agents {
		if a.done == nil || len(a.done.Summary) == 0 {
			continue
		}
		var doc struct {
			Stream *stream.Summary `json:"stream"`
		}
		if err := json.Unmarshal(a.done.Summary, &doc); err != nil || doc.Stream == nil {
			continue
		}
		parts = append(parts, doc.Stream)
	}
	if len(parts) == 0 {
		return nil
	}
	f := stream.FinalOf(stream.SumSummaries(parts))
	return &f
}
