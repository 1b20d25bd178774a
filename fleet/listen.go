package fleet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
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

// ServeListener serves coordinators from ln, one session at a time (a
// second coordinator is refused while a run goes on), until ctx is done,
// or, with cfg.Once, until a session that ran something ends.
func ServeListener(ctx context.Context, ln net.Listener, cfg AgentConfig) error {
	cfg.CheckToken = true
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	var mu sync.Mutex
	busy := ""
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("agent: accept: %w", err)
		}
		peer := c.RemoteAddr().String()
		mu.Lock()
		if busy != "" {
			other := busy
			mu.Unlock()
			go func() {
				conn := NewConn(c, c, c)
				_ = conn.Send(TypeRefuse, Refuse{Reason: busyReason + other})
				c.Close()
			}()
			cfg.logf("refused coordinator %s: busy with %s", peer, other)
			continue
		}
		busy = peer
		mu.Unlock()
		go func() {
			defer func() {
				c.Close()
				mu.Lock()
				busy = ""
				mu.Unlock()
			}()
			if tc, ok := c.(*tls.Conn); ok {
				if err := tc.HandshakeContext(ctx); err != nil {
					cfg.logf("coordinator %s: TLS handshake: %v", peer, err)
					return
				}
			}
			ran, err := serve(ctx, NewConn(c, c, c), peer, cfg)
			if err != nil && !errors.Is(err, io.EOF) {
				cfg.logf("session with %s ended: %v", peer, err)
			}
			if ran && cfg.Once {
				cfg.logf("one run served (--once): exiting")
				cancel()
			}
		}()
	}
}

// ServeStdio serves one coordinator over in and out (an ssh channel); ssh
// authenticated the peer, so a token is checked only when one is set.
func ServeStdio(ctx context.Context, in io.Reader, out io.Writer, cfg AgentConfig) error {
	cfg.CheckToken = cfg.Token != ""
	return Serve(ctx, NewConn(in, out, nil), "stdio", cfg)
}
