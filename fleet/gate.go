package fleet

import (
	"container/list"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// gate is what a listening agent knows of its connections: those not yet
// authenticated, oldest first, and the one coordinator it runs for.
//
// Nothing a peer does before it proves the token costs it more than a
// place among the waiting: the agent is busy only once a coordinator has
// authenticated (authenticated), a waiting connection has AuthTimeout to
// get there (the deadline serveConn sets), and when MaxUnauthenticated
// wait, the oldest is closed to make room (admit). Refusing the newest
// instead would let a peer that keeps opening sockets keep every real
// coordinator out.
type gate struct {
	cfg *AgentConfig
	max int

	mu      sync.Mutex
	waiting *list.List // of *pending, oldest first
	busy    *pending   // the authenticated coordinator running here
	notes   map[string]*noteState

	// The idle clock (idle.go): AgentConfig.IdleTimeout, its timer, and
	// whether it ended the agent.
	idleFor   time.Duration
	idleTimer *time.Timer
	idleOver  bool
	onIdle    func()
}

// pending is one accepted connection.
type pending struct {
	conn    net.Conn
	peer    string
	elem    *list.Element // in gate.waiting while it has not authenticated
	evicted bool          // closed to make room for a newer one
	claimed bool          // it authenticated and held the agent
}

func newGate(max int, cfg *AgentConfig) *gate {
	return &gate{cfg: cfg, max: max, waiting: list.New(), notes: map[string]*noteState{}}
}

// admit puts c among the waiting, closing the oldest waiting connection
// when there are max already.
func (g *gate) admit(c net.Conn) *pending {
	p := &pending{conn: c, peer: c.RemoteAddr().String()}
	g.mu.Lock()
	var old *pending
	if g.waiting.Len() >= g.max {
		e := g.waiting.Front()
		old = e.Value.(*pending)
		g.waiting.Remove(e)
		old.elem, old.evicted = nil, true
	}
	p.elem = g.waiting.PushBack(p)
	g.mu.Unlock()
	if old != nil {
		old.conn.Close()
		g.note("evicted", fmt.Sprintf("%d connections waiting to authenticate: closed the oldest (%s) to make room", g.max, old.peer))
	}
	return p
}

// authenticated takes p out of the waiting and, when no other
// coordinator runs here, makes it the one: its deadline is lifted and
// release frees the agent again. A busy agent returns a *busyError.
func (g *gate) authenticated(p *pending) (release func(), err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if p.elem != nil {
		g.waiting.Remove(p.elem)
		p.elem = nil
	}
	if p.evicted {
		return nil, net.ErrClosed
	}
	if g.busy != nil {
		return nil, &busyError{with: g.busy.peer}
	}
	if !g.stopIdleLocked() {
		return nil, net.ErrClosed // the idle timeout ended the agent
	}
	g.busy, p.claimed = p, true
	_ = p.conn.SetDeadline(time.Time{})
	return func() {
		g.mu.Lock()
		if g.busy == p {
			g.busy = nil
		}
		g.mu.Unlock()
	}, nil
}

// leave forgets p when its connection ends.
func (g *gate) leave(p *pending) {
	g.mu.Lock()
	if p.elem != nil {
		g.waiting.Remove(p.elem)
		p.elem = nil
	}
	g.mu.Unlock()
}

// busyError: another authenticated coordinator runs here.
type busyError struct{ with string }

func (e *busyError) Error() string { return busyReason + e.with }

// handshakeFailed says why a connection did not authenticate, in one
// line, or says nothing: a probe that connects and closes (a load
// balancer's health check, a port scan) is no error, and a connection
// closed to make room was told of when it was closed.
func (g *gate) handshakeFailed(p *pending, err error) {
	switch {
	case p.evicted, isHangUp(err):
	case errors.Is(err, os.ErrDeadlineExceeded):
		g.note("timeout", fmt.Sprintf("coordinator %s: not authenticated within %s: closed (--auth-timeout)", p.peer, g.cfg.AuthTimeout))
	case errors.Is(err, ErrTLSRecord):
		g.note("tls", fmt.Sprintf("coordinator %s speaks TLS; this agent listens in plain text: start it with --tls-cert and --tls-key, or drop the coordinator's --tls-ca", p.peer))
	case isNotTLS(err):
		g.note("plain", fmt.Sprintf("coordinator %s does not speak TLS; this agent does: give the coordinator --tls-ca FILE (the CA that signed this agent's certificate)", p.peer))
	default:
		g.note("hello", fmt.Sprintf("coordinator %s: no valid hello: %v", p.peer, err))
	}
}

// isHangUp is a peer that closed or reset its connection.
func isHangUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// isNotTLS is a TLS handshake that read something other than TLS.
func isNotTLS(err error) bool {
	var rh tls.RecordHeaderError
	return errors.As(err, &rh)
}

// noteEvery is how often one kind of line about unauthenticated peers
// is logged: an attack of idle sockets must not flood the agent's log.
const noteEvery = 10 * time.Second

type noteState struct {
	last       time.Time
	suppressed int
}

// note logs line unless a line of the same kind was logged in the last
// noteEvery; the next one logged says how many were left out.
func (g *gate) note(kind, line string) {
	g.mu.Lock()
	st := g.notes[kind]
	if st == nil {
		st = &noteState{}
		g.notes[kind] = st
	}
	now := time.Now()
	if !st.last.IsZero() && now.Sub(st.last) < noteEvery {
		st.suppressed++
		g.mu.Unlock()
		return
	}
	if st.suppressed > 0 {
		line += fmt.Sprintf(" (and %d more like it since %s)", st.suppressed, st.last.Format("15:04:05"))
	}
	st.last, st.suppressed = now, 0
	g.mu.Unlock()
	g.cfg.logf("%s", line)
}
