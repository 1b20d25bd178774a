package fleet

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// An agent with Once and an IdleTimeout that no coordinator reaches ends
// with an *IdleError, saying so in its log; a probe that connects and
// closes (a readiness probe) does not keep it alive.
func TestIdleTimeoutEndsAnAgentNoCoordinatorReached(t *testing.T) {
	t.Parallel()
	ln, err := Listen("127.0.0.1:0", testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuf{}
	cfg := AgentConfig{Token: testToken, Log: log, Version: "test", Once: true, IdleTimeout: 50 * time.Millisecond}
	done := make(chan error, 1)
	go func() { done <- ServeListener(context.Background(), ln, cfg) }()
	if c, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		c.Close()
	}
	var ierr *IdleError
	select {
	case err := <-done:
		if !errors.As(err, &ierr) || ierr.After != cfg.IdleTimeout {
			t.Fatalf("ServeListener returned %v, want an *IdleError after %s", err, cfg.IdleTimeout)
		}
	case <-time.After(time.Minute):
		t.Fatal("an agent no coordinator reached did not end")
	}
	want := "no coordinator within --idle-timeout 50ms: exiting (nothing ran)"
	if got := log.String(); strings.Count(got, want) != 1 {
		t.Errorf("log %q: want the line %q once", got, want)
	}
}

// The idle clock and the coordinators, driven by hand: a coordinator
// that holds the agent keeps it, however long the run; one that left
// without a run lets the clock end it; once the clock has ended it, a
// coordinator that authenticates is refused.
func TestIdleClockAndCoordinators(t *testing.T) {
	t.Parallel()
	cfg := &AgentConfig{Once: true}
	g := newGate(4, cfg)
	fired := 0
	g.startIdle(time.Hour, func() { fired++ }) // never by itself here
	defer g.idleErr()
	conn := func() net.Conn {
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		return a
	}

	probe := g.admit(conn()) // never authenticates
	coord := g.admit(conn())
	release, err := g.authenticated(coord)
	if err != nil {
		t.Fatal(err)
	}
	g.idleExpired() // the clock's end while the coordinator holds the agent
	if fired != 0 || g.idleErr() != nil {
		t.Fatalf("the idle clock ended an agent a coordinator held")
	}
	g.leave(probe)
	g.sessionEnded(probe, false)
	release()
	g.sessionEnded(coord, false) // it left without a run: the clock runs again
	g.idleExpired()
	g.idleExpired()
	var ierr *IdleError
	if fired != 1 || !errors.As(g.idleErr(), &ierr) || ierr.After != time.Hour {
		t.Fatalf("after the coordinator left: fired %d times, idleErr %v; want once, an *IdleError after 1h", fired, g.idleErr())
	}
	late := g.admit(conn())
	if _, err := g.authenticated(late); !errors.Is(err, net.ErrClosed) {
		t.Errorf("a coordinator after the idle timeout: %v, want refused (net.ErrClosed)", err)
	}
}

// Without an IdleTimeout there is no clock: the clock's end, called by
// hand, ends nothing.
func TestNoIdleTimeoutNoClock(t *testing.T) {
	t.Parallel()
	g := newGate(4, &AgentConfig{Once: true})
	g.startIdle(0, func() { t.Error("ended by a clock that was never set") })
	g.idleExpired()
	if err := g.idleErr(); err != nil {
		t.Errorf("idleErr %v without a timeout", err)
	}
}
