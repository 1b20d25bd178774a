package fleet

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
	"benchtop/engine"
)

// serveAgent serves one agent on loopback with cfg (its token the test
// token, its log in the returned buffer), TLS when tlsCfg is set.
func serveAgent(t *testing.T, cfg AgentConfig, tlsCfg *tls.Config) (string, *syncBuf) {
	t.Helper()
	ln, err := Listen("127.0.0.1:0", testToken, tlsCfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := &syncBuf{}
	cfg.Token, cfg.Log, cfg.Version = testToken, log, "test"
	go ServeListener(ctx, ln, cfg)
	return ln.Addr().String(), log
}

// idle opens a TCP connection that sends nothing.
func idle(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByAgent reads c until the agent closes it (true), or until
// limit passes with c still open (false). Whatever the agent sent first
// (its hello) is read and dropped.
func closedByAgent(c net.Conn, limit time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(limit))
	_, err := io.Copy(io.Discard, c)
	return err == nil || !errors.Is(err, os.ErrDeadlineExceeded)
}

// runOn is a small run of a coordinator against ep, which must succeed.
func runOn(t *testing.T, ep Endpoint) {
	t.Helper()
	cfg, props := memoryRun(t, "run", map[string]string{"operationcount": "300"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Connect(ctx, CoordConfig{Config: cfg, Props: props, Token: testToken, Agents: []Endpoint{ep}})
	if err != nil {
		t.Fatalf("a real coordinator: %v", err)
	}
	go func() {
		for range c.Snapshots() {
		}
	}()
	res, err := c.Run(ctx)
	if err != nil || len(res) == 0 || res[len(res)-1].Set.Ops != 300 {
		t.Fatalf("a real coordinator's run: %v", err)
	}
}

// Idle sockets neither make the agent busy nor keep a coordinator out:
// many of them (more than the bound) are open while a real coordinator
// runs, the oldest were closed to make room, the newest still wait.
func TestIdleSocketsDoNotHoldTheAgent(t *testing.T) {
	t.Parallel()
	for _, withTLS := range []bool{false, true} {
		name := "plain"
		var agentTLS, coordTLS *tls.Config
		if withTLS {
			name = "tls"
			cert, pool := selfSigned(t)
			agentTLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
			coordTLS = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		}
		t.Run(name, func(t *testing.T) {
			const bound, opened = 4, 12
			addr, log := serveAgent(t, AgentConfig{AuthTimeout: time.Minute, MaxUnauthenticated: bound}, agentTLS)
			var conns []net.Conn
			for range opened {
				conns = append(conns, idle(t, addr))
			}
			// Every connection is accepted in order: the first opened-bound
			// are closed to make room for the last bound.
			for i, c := range conns[:opened-bound] {
				if !closedByAgent(c, 30*time.Second) {
					t.Fatalf("idle connection %d of %d still open with %d newer ones waiting (bound %d)", i+1, opened, opened-1-i, bound)
				}
			}
			// The coordinator's connection takes a place too while it
			// authenticates: the oldest idle one left makes room for it.
			runOn(t, TCPEndpoint("a", addr, coordTLS))
			for i, c := range conns[opened-bound+1:] {
				if closedByAgent(c, 50*time.Millisecond) {
					t.Errorf("idle connection %d closed though it was among the newest %d", opened-bound+1+i+1, bound-1)
				}
			}
			if strings.Contains(log.String(), "busy") {
				t.Errorf("the agent called itself busy:\n%s", log)
			}
			if !strings.Contains(log.String(), "closed the oldest") {
				t.Errorf("the agent did not say it closed idle connections:\n%s", log)
			}
		})
	}
}

// A connection that does not authenticate is closed at the deadline:
// plain, and on a TLS agent one that never starts its handshake.
func TestUnauthenticatedClosedAtDeadline(t *testing.T) {
	t.Parallel()
	cert, _ := selfSigned(t)
	for name, tlsCfg := range map[string]*tls.Config{"plain": nil, "tls": {Certificates: []tls.Certificate{cert}}} {
		t.Run(name, func(t *testing.T) {
			addr, log := serveAgent(t, AgentConfig{AuthTimeout: 300 * time.Millisecond}, tlsCfg)
			c := idle(t, addr)
			if !closedByAgent(c, 30*time.Second) {
				t.Fatal("an idle connection outlived the authentication deadline")
			}
			if !waitFor(func() bool { return strings.Contains(log.String(), "not authenticated within 300ms") }) {
				t.Errorf("the agent did not say why it closed the connection:\n%s", log)
			}
		})
	}
}

// A coordinator that authenticated holds the agent; another that has the
// token is then refused as busy, after proving it, and nothing else is.
func TestBusyOnlyAfterAuthentication(t *testing.T) {
	if testing.Short() {
		t.Skip("fleet runs of seconds (go test -short skips it)")
	}
	t.Parallel()
	addr, _ := serveAgent(t, AgentConfig{}, nil)
	// The first coordinator authenticates and stays (no run sent yet).
	c1, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	conn := NewConn(c1, c1, c1)
	var h Hello
	if err := conn.Expect(TypeHello, &h); err != nil {
		t.Fatal(err)
	}
	cn, _ := nonce()
	if err := conn.Send(TypeAuth, Auth{Protocol: Protocol, Range: LocalRange(), Nonce: cn, MAC: mac(testToken, "coordinator", h.Nonce, cn)}); err != nil {
		t.Fatal(err)
	}
	var w Welcome
	if err := conn.Expect(TypeWelcome, &w); err != nil {
		t.Fatalf("the first coordinator: %v", err)
	}
	// A peer without the token learns nothing of it: it is refused for
	// its token, not told who runs here.
	c2 := idle(t, addr)
	conn2 := NewConn(c2, c2, c2)
	if err := conn2.Expect(TypeHello, &h); err != nil {
		t.Fatal(err)
	}
	_ = conn2.Send(TypeAuth, Auth{Protocol: Protocol, Range: LocalRange(), Nonce: cn, MAC: []byte("not the mac")})
	var re *RefusedError
	if err := conn2.Expect(TypeWelcome, &w); !errors.As(err, &re) || re.Reason != "wrong token" {
		t.Errorf("a peer without the token: %v, want refused for a wrong token", err)
	}
	// A second coordinator with the token is refused as busy.
	cfg, props := memoryRun(t, "run", nil)
	_, err = Connect(context.Background(), CoordConfig{Config: cfg, Props: props, Token: testToken, Agents: []Endpoint{TCPEndpoint("a", addr, nil)}})
	if err == nil || !strings.Contains(err.Error(), busyReason) {
		t.Errorf("a second coordinator while the first holds the agent: %v, want busy", err)
	}
	// Once the first leaves, a coordinator runs.
	c1.Close()
	runOn(t, TCPEndpoint("a", addr, nil))
}

// A coordinator in plain text against a TLS agent, and with TLS against a
// plain agent, says which in one line; the agents log it, and a real
// run works afterwards.
func TestTLSMismatchDetected(t *testing.T) {
	if testing.Short() {
		t.Skip("fleet runs of seconds (go test -short skips it)")
	}
	t.Parallel()
	cert, pool := selfSigned(t)
	tlsAgent, tlsLog := serveAgent(t, AgentConfig{}, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	plainAgent, plainLog := serveAgent(t, AgentConfig{}, nil)
	cfg, props := memoryRun(t, "run", nil)
	connect := func(ep Endpoint) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c, err := Connect(ctx, CoordConfig{Config: cfg, Props: props, Token: testToken, Agents: []Endpoint{ep}})
		if err == nil {
			c.callOff(errors.New("test"))
		}
		return err
	}
	err := connect(TCPEndpoint("t", tlsAgent, nil))
	if err == nil || !strings.Contains(err.Error(), tlsAgent+" speaks TLS: give --tls-ca") {
		t.Errorf("plain coordinator, TLS agent: %v", err)
	}
	coordTLS := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	err = connect(TCPEndpoint("p", plainAgent, coordTLS))
	if err == nil || !strings.Contains(err.Error(), plainAgent+" does not speak TLS") {
		t.Errorf("TLS coordinator, plain agent: %v", err)
	}
	if !waitFor(func() bool {
		return strings.Contains(plainLog.String(), "speaks TLS; this agent listens in plain text")
	}) {
		t.Errorf("the plain agent's log does not say its peer spoke TLS:\n%s", plainLog)
	}
	// A plain client that writes to the TLS agent (an HTTP probe) is
	// told of as not speaking TLS.
	c := idle(t, tlsAgent)
	_, _ = c.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
	if !waitFor(func() bool { return strings.Contains(tlsLog.String(), "does not speak TLS; this agent does") }) {
		t.Errorf("the TLS agent's log does not say its peer spoke plain text:\n%s", tlsLog)
	}
	runOn(t, TCPEndpoint("t", tlsAgent, coordTLS))
	runOn(t, TCPEndpoint("p", plainAgent, nil))
}

// Probes (connect and close, as a readiness check does) are not logged.
func TestProbesAreNotLogged(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	for name, tc := range map[string][2]*tls.Config{"plain": {nil, nil},
		"tls": {{Certificates: []tls.Certificate{cert}}, {RootCAs: pool}}} {
		t.Run(name, func(t *testing.T) {
			addr, log := serveAgent(t, AgentConfig{}, tc[0])
			for range 5 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				c.Close()
			}
			// A probe that reads the hello first, then closes.
			c := idle(t, addr)
			if tc[0] == nil {
				var h Hello
				if err := NewConn(c, c, c).Expect(TypeHello, &h); err != nil {
					t.Fatal(err)
				}
			}
			c.Close()
			runOn(t, TCPEndpoint("a", addr, tc[1]))
			// What the log may hold: the real coordinator's session.
			for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
				if !strings.HasSuffix(line, " authenticated") && !strings.Contains(line, ": run from ") && !strings.HasSuffix(line, " done") {
					t.Errorf("a probe was logged: %q", line)
				}
			}
		})
	}
}

// waitFor polls cond for up to 30 s (a bound for a failing test, not a
// timing assertion).
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// boundTestAdapter fails to open, saying how long it was given: 2 hours
// with fleettest.slow=true, the default otherwise.
const boundTestAdapter = "fleettest-bound"

func init() { adapters.Register(adaptertest.OpenBoundDriver(boundTestAdapter, "fleettest.slow")) }

// An agent opens its adapter within the driver's bound, as a process
// does (an HBase table's creation outlasted a fixed 30 s).
func TestAgentOpenBoundIsTheDrivers(t *testing.T) {
	t.Parallel()
	addr, _ := serveAgent(t, AgentConfig{}, nil)
	for _, c := range []struct{ slow, want string }{{"false", "given 30s"}, {"true", "given 2h0m0s"}} {
		props := map[string]string{"recordcount": "10", "operationcount": "10", "fleettest.slow": c.slow}
		cfg, _, err := engine.NewConfig("run", boundTestAdapter, props)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Connect(context.Background(), CoordConfig{Config: cfg, Props: props, Token: testToken, Agents: []Endpoint{TCPEndpoint("a", addr, nil)}})
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(re.Reason, "cannot open: "+c.want) {
			t.Errorf("fleettest.slow=%s: %v, want a refusal saying %q", c.slow, err, c.want)
		}
	}
}

// An agent whose adapter refuses the run's input (its memory store's load
// would not fit in its memory) says so as bad input, which the
// coordinator's command exits 2 for; a failure to connect is not.
func TestAgentRefusesBadInput(t *testing.T) {
	t.Parallel()
	addr, _ := serveAgent(t, AgentConfig{}, nil)
	cfg, props := memoryRun(t, "run", map[string]string{"recordcount": "1000000000000", "fieldcount": "100"})
	_, err := Connect(context.Background(), CoordConfig{Config: cfg, Props: props, Token: testToken, Agents: []Endpoint{TCPEndpoint("a", addr, nil)}})
	var re *RefusedError
	if !errors.As(err, &re) || !re.BadInput || !strings.Contains(re.Reason, "recordcount") || !strings.Contains(re.Reason, "available") {
		t.Errorf("a load no machine holds: %v, want a bad-input refusal naming recordcount and the memory available", err)
	}
	_, err = Connect(context.Background(), CoordConfig{Config: cfg, Props: props, Token: "another token, 32 bytes long.....", Agents: []Endpoint{TCPEndpoint("a", addr, nil)}})
	if !errors.As(err, &re) || re.BadInput {
		t.Errorf("a wrong token: %v, want a refusal that is not bad input", err)
	}
}
