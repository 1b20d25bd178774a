package fleet

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"syscall"
	"time"

	"benchtop/engine"
)

// markLate marks the agents missing from interval k late: the interval
// is published without them, and what they send of it later is merged
// into the interval being built then (takeLate).
func (m *merger) markLate(missing []*agent, k int) {
	for _, a := range missing {
		if a.state != StateLate {
			m.c.logf("agent %s late: interval %d has not arrived", a.name, k)
		}
		m.setState(a, StateLate, k)
	}
}

// takeLate merges an interval whose number has been published already
// into the interval being built now; a late agent is running again once
// it has sent the last interval published.
func (m *merger) takeLate(pm *phaseMerge, a *agent, iv *Interval) {
	m.add(a, iv)
	if a.state == StateLate && iv.Seq >= pm.next-1 {
		m.setState(a, StateRunning, 0)
	} else if a.state == StateLate {
		m.setState(a, StateLate, iv.Seq+1)
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

// Lost lists the agents lost, each as "name (why)".
func (c *Coordinator) Lost() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, a := range c.agents {
		if a.state == StateLost {
			out = append(out, a.name+" ("+a.reason+")")
		}
	}
	sort.Strings(out)
	return out
}

// describeLoss says in a few words why an agent's stream ended.
func describeLoss(err error) string {
	var re *RefusedError
	var pe *ExitError
	switch {
	case errors.As(err, &re):
		return "it refused: " + re.Reason
	case errors.As(err, &pe) && pe.Status != nil:
		return "its " + oneLine(pe) // ssh's exit status and message
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "timed out"
	case errors.Is(err, net.ErrClosed):
		return "connection closed"
	}
	return oneLine(err)
}
