package fleet

import (
	"context"
	"errors"
	"time"

	"benchtop/engine"
)

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
