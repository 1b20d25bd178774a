package fleet

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"benchtop/engine"
	"benchtop/workload"
)

// send fans one control out to the live agents, in parallel.
func (c *Coordinator) send(ctl Control, perAgent func(i, n int) Control) {
	c.mu.Lock()
	live := c.live()
	c.mu.Unlock()
	c.sendTo(live, ctl, perAgent)
}

// sendTo sends one control to the agents given, in parallel; perAgent,
// when set, gives agent i of n its own.
func (c *Coordinator) sendTo(live []*agent, ctl Control, perAgent func(i, n int) Control) {
	var wg sync.WaitGroup
	for i, a := range live {
		m := ctl
		if perAgent != nil {
			m = perAgent(i, len(live))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = a.conn.Send(TypeControl, m)
		}()
	}
	wg.Wait()
}

// ctlChange is a control change for the merge loop: an event, and a new
// segment from the next interval on.
type ctlChange struct {
	ctl   engine.Controls
	event engine.Event
	cut   bool
}

func (c *Coordinator) change(ctl engine.Controls, kind, from, to, text string, cut bool) {
	e := engine.Event{At: time.Since(c.info.Start), Kind: kind, From: from, To: to, Text: text}
	select {
	case c.ctlCh <- ctlChange{ctl: ctl, event: e, cut: cut}:
	case <-c.stopCh:
	}
}

// SetThreads sets every agent's threads (threads are per agent).
func (c *Coordinator) SetThreads(n int) error {
	if err := engine.ValidateThreads(n); err != nil {
		return err
	}
	c.mu.Lock()
	if n == c.ctl.Threads {
		c.mu.Unlock()
		return nil
	}
	old := c.ctl.Threads
	c.ctl.Threads = n
	ctl := c.ctl
	c.mu.Unlock()
	c.send(Control{Op: "threads", N: n}, nil)
	c.change(ctl, "threads", fmt.Sprint(old), fmt.Sprint(n), fmt.Sprintf("threads %d→%d per agent", old, n), true)
	return nil
}

// SetTarget sets the fleet's total target, split evenly over the agents
// not lost.
func (c *Coordinator) SetTarget(t float64) error {
	if err := engine.ValidateTarget(t); err != nil {
		return err
	}
	c.mu.Lock()
	if t == c.ctl.Target {
		c.mu.Unlock()
		return nil
	}
	old := c.ctl.Target
	c.ctl.Target = t
	ctl := c.ctl
	c.mu.Unlock()
	c.send(Control{Op: "target"}, func(_, n int) Control { return Control{Op: "target", F: splitTarget(t, n)} })
	from, to := engine.FormatTarget(old), engine.FormatTarget(t)
	c.change(ctl, "target", from, to, fmt.Sprintf("target %s→%s", from, to), true)
	return nil
}

// SetPartitions sets the fleet's partitions; the change is recorded when
// the agents report it. Divided (DividesPartitions): n is the fleet's
// total, re-divided over the agents not lost, each its new portion, and
// n below their count is refused. Otherwise the store divides partitions
// among the agents itself: the change goes to one agent only.
func (c *Coordinator) SetPartitions(n int) error {
	if err := engine.ValidatePartitions(n); err != nil {
		return err
	}
	if !c.info.CanRepartition {
		return engine.ErrCannotRepartition
	}
	c.mu.Lock()
	live := c.live()
	c.partsAsked, c.partsAskedN = time.Now(), n
	c.mu.Unlock()
	if len(live) == 0 {
		return errors.New("partitions: no agent is running")
	}
	switch {
	case c.sharedPartitions():
		// One stream the server divides: grown once (shared.go).
		c.mu.Lock()
		for _, a := range live {
			a.wantParts = n
		}
		c.mu.Unlock()
		return c.setSharedPartitions(n)
	case !c.divided && live[0].ready.Share.OwnStore:
		// Each agent's store is its own (in-process): each repartitions.
		c.mu.Lock()
		for _, a := range live {
			a.wantParts = n
		}
		c.mu.Unlock()
		c.sendTo(live, Control{Op: "partitions", N: n}, nil)
		return nil
	case !c.divided:
		// A store that repartitions server-side: the command goes once.
		c.mu.Lock()
		live[0].wantParts = n
		c.mu.Unlock()
		c.sendTo(live[:1], Control{Op: "partitions", N: n}, nil)
		return nil
	}
	if n < len(live) {
		return fmt.Errorf("%d is fewer than the %d agents running (the fleet divides the stream's partitions among them, at least one each)", n, len(live))
	}
	c.mu.Lock()
	for i, a := range live {
		a.wantParts = int(workload.Portion(int64(n), i, len(live)))
	}
	c.mu.Unlock()
	c.sendTo(live, Control{Op: "partitions"}, func(i, k int) Control {
		return Control{Op: "partitions", N: int(workload.Portion(int64(n), i, k))}
	})
	return nil
}

// Pause holds every agent.
func (c *Coordinator) Pause() { c.setPaused(true, "pause", "paused") }

// Resume lets every agent go on.
func (c *Coordinator) Resume() { c.setPaused(false, "resume", "resumed") }

func (c *Coordinator) setPaused(v bool, kind, text string) {
	c.mu.Lock()
	if c.ctl.Paused == v {
		c.mu.Unlock()
		return
	}
	c.ctl.Paused = v
	ctl := c.ctl
	c.mu.Unlock()
	c.send(Control{Op: kind}, nil)
	c.change(ctl, kind, "", "", text, true)
}

// Mark marks every agent and starts a segment.
func (c *Coordinator) Mark(label string) {
	if label == "" {
		label = "mark"
	}
	c.send(Control{Op: "mark", Label: label}, nil)
	c.mu.Lock()
	ctl := c.ctl
	c.mu.Unlock()
	c.change(ctl, "mark", "", "", label, true)
}

// NewSegment starts a segment on every agent.
func (c *Coordinator) NewSegment() {
	c.send(Control{Op: "segment"}, nil)
	c.mu.Lock()
	ctl := c.ctl
	c.mu.Unlock()
	c.change(ctl, "segment", "", "", "new segment", true)
}

// Stop ends the run on every agent; the final snapshot follows their
// last intervals.
func (c *Coordinator) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.send(Control{Op: "stop"}, nil)
	c.stopOnce.Do(func() { close(c.stopCh) })
}

// Interrupt is Stop for a signal: the results say interrupted.
func (c *Coordinator) Interrupt() {
	c.mu.Lock()
	c.interrupted = true
	c.mu.Unlock()
	c.Stop()
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
	asked, askedN := m.c.partsAsked, m.c.partsAskedN
	m.c.mu.Unlock()
	m.parts = total
	now := time.Since(m.runStart)
	text := fmt.Sprintf("partitions %d→%d", old, total)
	if m.c.divided {
		text += fmt.Sprintf(" over %d agents", len(m.c.live()))
	}
	if at := asked.Sub(m.runStart); askedN == total && !asked.IsZero() && now-at > m.interval {
		// Said, so that the segment's start is not read as the ask's.
		how := "each agent changed its portion"
		if m.c.sharedPartitions() {
			how = "the first agent grew the stream, the others followed it"
		}
		text += fmt.Sprintf(" (asked at %s; every agent ran them at %s: %s, and agents report once an interval)", round(at), round(now), how)
	}
	e := engine.Event{At: now, Kind: "partitions", From: fmt.Sprint(old), To: fmt.Sprint(total), Text: text}
	pm.asm.Event(e)
	m.cuts = append(m.cuts, ctlChange{ctl: ctl, event: e, cut: true})
}

// agentEvents takes the events of an agent's interval: the first word
// of a consumer group's rebalance after a growth (every agent of a shared
// stream sends it) becomes an event of the merged run, saying when the
// partitions asked took effect for the consumers.
func (m *merger) agentEvents(pm *phaseMerge, evs []engine.Event) {
	for _, e := range evs {
		if e.Kind != "rebalance" || e.To == "" || m.rebalanced[e.To] {
			continue
		}
		if m.rebalanced == nil {
			m.rebalanced = map[string]bool{}
		}
		m.rebalanced[e.To] = true
		now := time.Since(m.runStart)
		text := fmt.Sprintf("the consumer group gave all %s partitions a consumer at %s", e.To, round(now))
		m.c.mu.Lock()
		asked, askedN := m.c.partsAsked, m.c.partsAskedN
		m.c.mu.Unlock()
		if !asked.IsZero() && fmt.Sprint(askedN) == e.To {
			text += fmt.Sprintf(", %s after they were asked", round(now-asked.Sub(m.runStart)))
		}
		text += " (a rebalance: until then rows of the new partitions waited for a consumer)"
		pm.asm.Event(engine.Event{At: now, Kind: "rebalance", To: e.To, Text: text})
	}
}

// round is d to a tenth of a second, for events.
func round(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }

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
