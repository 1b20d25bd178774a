package fleet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ErrNeedToken refuses a listen address beyond loopback without a token.
var ErrNeedToken = errors.New("without a token (--token-file FILE or BENCHTOP_TOKEN) an agent listens on loopback only, e.g. 127.0.0.1:7070")

// Listen opens the agent's listener: TCP, or TLS when tlsCfg is set. It
// refuses an address beyond loopback when there is no token.
func Listen(addr string, token string, tlsCfg *tls.Config) (net.Listener, error) {
	if token == "" && !IsLoopback(addr) {
		return nil, fmt.Errorf("--listen %s: %w", addr, ErrNeedToken)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	if tlsCfg != nil {
		ln = tls.NewListener(ln, tlsCfg)
	}
	return ln, nil
}

// Defaults of the listener's guard against connections that never
// authenticate (AgentConfig.AuthTimeout, MaxUnauthenticated).
const (
	DefaultAuthTimeout        = 5 * time.Second
	DefaultMaxUnauthenticated = 64
)

// ServeListener serves coordinators from ln until ctx is done, or, with
// cfg.Once, until a session that ran something ends, or, with
// cfg.IdleTimeout, until no coordinator held the agent for that long: it
// then returns an *IdleError (idle.go).
//
// A connection is nobody's until it authenticates: it must finish the TLS
// handshake (if any) and prove the token within cfg.AuthTimeout, or it is
// closed; at most cfg.MaxUnauthenticated wait at once, and at that bound
// the oldest is closed to make room, so that idle sockets can neither
// hold the agent nor keep a real coordinator out. The agent is busy only
// once a coordinator has authenticated: a second authenticated
// coordinator is refused as busy while a run goes on.
func ServeListener(ctx context.Context, ln net.Listener, cfg AgentConfig) (err error) {
	cfg.CheckToken = true
	if cfg.AuthTimeout <= 0 {
		cfg.AuthTimeout = DefaultAuthTimeout
	}
	if cfg.MaxUnauthenticated <= 0 {
		cfg.MaxUnauthenticated = DefaultMaxUnauthenticated
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	g := newGate(cfg.MaxUnauthenticated, &cfg)
	g.startIdle(cfg.IdleTimeout, cancel)
	defer func() {
		if ierr := g.idleErr(); err == nil && ierr != nil {
			cfg.logf("%v", ierr)
			err = ierr
		}
	}()
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// Out of file descriptors and the like: wait and go on, as
			// net/http's server does, rather than end the agent.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			g.note("accept", fmt.Sprintf("accept: %v (retrying)", err))
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return nil
			}
			continue
		}
		backoff = 0
		p := g.admit(c)
		go func() {
			ran := g.serveConn(ctx, p)
			if ran && cfg.Once {
				cfg.logf("one run served (--once): exiting")
				cancel()
			}
		}()
	}
}

// serveConn is one connection: the TLS handshake and the authentication
// under the deadline, then the session.
func (g *gate) serveConn(ctx context.Context, p *pending) (ran bool) {
	c, peer := p.conn, p.peer
	defer func() {
		g.leave(p)
		c.Close()
	}()
	_ = c.SetDeadline(time.Now().Add(g.cfg.AuthTimeout))
	if tc, ok := c.(*tls.Conn); ok {
		if err := tc.HandshakeContext(ctx); err != nil {
			g.handshakeFailed(p, err)
			return false
		}
	}
	hooks := sessionHooks{
		authenticated: func() (func(), error) { return g.authenticated(p) },
		failed:        func(err error) { g.handshakeFailed(p, err) },
	}
	ran, err := serve(ctx, NewConn(c, c, c), peer, *g.cfg, hooks)
	g.sessionEnded(p, ran)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errHandshake) {
		g.cfg.logf("session with %s ended: %v", peer, err)
	}
	return ran
}

// ServeStdio serves one coordinator over in and out (an ssh channel); ssh
// authenticated the peer, so a token is checked only when one is set.
func ServeStdio(ctx context.Context, in io.Reader, out io.Writer, cfg AgentConfig) error {
	cfg.CheckToken = cfg.Token != ""
	return Serve(ctx, NewConn(in, out, nil), "stdio", cfg)
}
