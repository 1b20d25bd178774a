package fleet

import (
	"fmt"
	"time"
)

// IdleError ends ServeListener when no coordinator held the agent for
// AgentConfig.IdleTimeout: none authenticated since the agent started
// listening, or since the last one left without a run to show for it.
type IdleError struct{ After time.Duration }

func (e *IdleError) Error() string {
	return fmt.Sprintf("no coordinator within --idle-timeout %s: exiting (nothing ran)", e.After)
}

// The idle clock of a listening agent (AgentConfig.IdleTimeout). Only an
// authenticated coordinator stops it: a readiness probe, a port scan or a
// peer with the wrong token does not, or a probe every 2 s would keep an
// agent no coordinator ever reaches alive for good. It starts again when
// a coordinator leaves without a run (with Once, a run ends the agent
// anyway; without it, an agent idle that long after its last run ends).
//
// The clock and a coordinator's authentication decide under the gate's
// lock which came first: a coordinator that authenticates once the agent
// has decided to exit is refused, one that came first stops the clock.

// startIdle arms the clock: after d with no coordinator, expired is
// called once (ServeListener's cancel). d <= 0: no clock.
func (g *gate) startIdle(d time.Duration, expired func()) {
	if d <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.idleFor, g.onIdle = d, expired
	g.idleTimer = time.AfterFunc(d, g.idleExpired)
}

// idleExpired is the clock's end: the agent exits unless a coordinator
// holds it.
func (g *gate) idleExpired() {
	g.mu.Lock()
	if g.busy != nil || g.idleOver || g.onIdle == nil {
		g.mu.Unlock()
		return
	}
	g.idleOver = true
	g.mu.Unlock()
	g.onIdle()
}

// stopIdleLocked stops the clock: a coordinator holds the agent. It
// tells false when the clock has already ended the agent.
func (g *gate) stopIdleLocked() bool {
	if g.idleOver {
		return false
	}
	if g.idleTimer != nil {
		g.idleTimer.Stop()
	}
	return true
}

// sessionEnded restarts the clock when p, the coordinator that held the
// agent, left and the agent goes on (no run, or no Once).
func (g *gate) sessionEnded(p *pending, ran bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !p.claimed || g.idleTimer == nil || g.idleOver || g.busy != nil || (ran && g.cfg.Once) {
		return
	}
	g.idleTimer.Reset(g.idleFor)
}

// idleErr is the IdleError that ended the agent, or nil.
func (g *gate) idleErr() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.idleTimer != nil {
		g.idleTimer.Stop()
	}
	if !g.idleOver {
		return nil
	}
	return &IdleError{After: g.idleFor}
}
