package fleet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
)

// Endpoint is one agent to reach: a name and how to open its stream.
type Endpoint struct {
	Name string
	// Open returns the stream to the agent (a TCP or TLS connection, an
	// ssh process's pipes).
	Open func(ctx context.Context) (io.ReadWriteCloser, error)
	// Silent, when set, is asked why an agent has sent no hello after
	// helloWait: an error (the agent speaks TLS) ends the wait.
	Silent func(ctx context.Context) error
}

// helloWait is how long an agent may take to send its hello before the
// coordinator looks for why (a TLS agent waits for a TLS client).
const helloWait = 2 * time.Second

// TCPEndpoint dials addr, with TLS when tlsCfg is set. Without TLS an
// agent that says nothing is probed for TLS; with TLS an agent that
// answers in plain text is told of as such.
func TCPEndpoint(name, addr string, tlsCfg *tls.Config) Endpoint {
	dialer := func() *net.Dialer { return &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 5 * time.Second} }
	serverName := func(c *tls.Config) *tls.Config {
		c = c.Clone()
		if c.ServerName == "" {
			if h, _, err := net.SplitHostPort(addr); err == nil {
				c.ServerName = h
			}
		}
		return c
	}
	if tlsCfg != nil {
		return Endpoint{Name: name, Open: func(ctx context.Context) (io.ReadWriteCloser, error) {
			td := &tls.Dialer{NetDialer: dialer(), Config: serverName(tlsCfg)}
			c, err := td.DialContext(ctx, "tcp", addr)
			var rh tls.RecordHeaderError
			if errors.As(err, &rh) {
				return nil, fmt.Errorf("%s does not speak TLS (a plain benchtop agent?): drop --tls-ca, or start the agent with --tls-cert and --tls-key", addr)
			}
			return c, err
		}}
	}
	return Endpoint{Name: name,
		Open: func(ctx context.Context) (io.ReadWriteCloser, error) {
			return dialer().DialContext(ctx, "tcp", addr)
		},
		Silent: func(ctx context.Context) error {
			if speaksTLS(ctx, addr, serverName(&tls.Config{})) {
				return fmt.Errorf("%s speaks TLS: give --tls-ca FILE, the CA that signed the agent's certificate", addr)
			}
			return nil
		},
	}
}

// speaksTLS dials addr once more and tells whether a TLS handshake
// succeeds there; nothing is sent after it (the agent sees a probe).
func speaksTLS(ctx context.Context, addr string, c *tls.Config) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	// Only whether the peer speaks TLS is asked: its certificate is not
	// trusted, and the connection is closed at once.
	c.InsecureSkipVerify = true
	td := &tls.Dialer{NetDialer: &net.Dialer{}, Config: c}
	conn, err := td.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Names gives agents of addresses the shortest unique names: the host
// when hosts differ, else host:port.
func Names(addrs []string) []string {
	hosts := map[string]int{}
	for _, a := range addrs {
		h, _, err := net.SplitHostPort(a)
		if err != nil {
			h = a
		}
		hosts[h]++
	}
	out := make([]string, len(addrs))
	for i, a := range addrs {
		h, _, err := net.SplitHostPort(a)
		if err != nil || hosts[h] > 1 {
			out[i] = a
		} else {
			out[i] = h
		}
	}
	return out
}

// ConnectError is a failure to bring one agent into the run.
type ConnectError struct {
	Agent string
	Err   error
}

func (e *ConnectError) Error() string { return fmt.Sprintf("agent %s: %v", e.Agent, e.Err) }
func (e *ConnectError) Unwrap() error { return e.Err }

// Connect reaches every agent, authenticates both ways, measures clock
// offsets and hands each its run; every agent validates it with its own
// binary, opens its adapter and says ready. Any failure refuses the whole
// run (the others are told why) before anything runs.
func Connect(ctx context.Context, cfg CoordConfig) (*Coordinator, error) {
	if len(cfg.Agents) == 0 {
		return nil, errors.New("no agents")
	}
	if cfg.Pings <= 0 {
		cfg.Pings = 8
	}
	if cfg.LostAfter <= 0 {
		cfg.LostAfter = max(10*cfg.Config.StatusInterval, 10*time.Second)
	}
	if err := CheckSplit(cfg.Config.Command, cfg.Props, len(cfg.Agents)); err != nil {
		return nil, err
	}
	c := &Coordinator{cfg: cfg, snaps: make(chan *engine.Snapshot, 512), inbox: make(chan inMsg, 256*len(cfg.Agents)),
		ctlCh: make(chan ctlChange, 64), stopCh: make(chan struct{}),
		curCh: make(chan chan []*engine.PhaseResult), loopDone: make(chan struct{})}
	c.ctl = engine.Controls{Threads: cfg.Config.Threads, Target: cfg.Config.Target, Partitions: cfg.Config.Partitions}
	hash := RunHash(cfg.Config)
	c.agents = make([]*agent, len(cfg.Agents))
	errs := make([]error, len(cfg.Agents))
	var wg sync.WaitGroup
	for i, ep := range cfg.Agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := c.connectWhenFree(ctx, ep, i, hash)
			c.agents[i], errs[i] = a, err
		}()
	}
	wg.Wait()
	var first error
	for i, err := range errs {
		if err != nil && first == nil {
			first = &ConnectError{Agent: cfg.Agents[i].Name, Err: err}
		}
	}
	if first != nil {
		c.callOff(first)
		return nil, first
	}
	names := c.agents[0].ready.OpNames
	for _, a := range c.agents[1:] {
		if !slices.Equal(a.ready.OpNames, names) {
			err := fmt.Errorf("agent %s: its workload's operations %v differ from %s's %v (another benchtop build?)",
				a.name, a.ready.OpNames, c.agents[0].name, names)
			c.callOff(err)
			return nil, err
		}
	}
	c.opNames = names
	c.divided = c.agents[0].ready.Share.Partitions >= 0
	if c.divided {
		if err := CheckPartitions(cfg.Config.Partitions, len(c.agents)); err != nil {
			c.callOff(err)
			return nil, err
		}
	}
	c.info = c.buildInfo()
	return c, nil
}

// callOff tells every agent reached that the run is called off, and why,
// and closes its stream.
func (c *Coordinator) callOff(why error) {
	for _, a := range c.agents {
		if a != nil {
			_ = a.conn.Send(TypeRefuse, Refuse{Reason: "the run was called off: " + why.Error()})
			a.conn.Close()
		}
	}
}

// busyReason begins an agent's refusal while it runs for another
// coordinator.
const busyReason = "busy: running for coordinator "

// handshakeWait bounds an agent's handshake beside the time its adapter
// may take to open (adapters.OpenTimeout): 2 minutes in all by default.
const handshakeWait = 90 * time.Second

// busyGrace is how long a coordinator keeps asking an agent that says it
// is busy: an agent frees itself when it sees its last coordinator's
// connection close, which on a loaded machine can come after a new
// coordinator (the same command run again at once) has dialled.
const busyGrace = 3 * time.Second

// connectWhenFree is connect, tried again every 100 ms for busyGrace
// while the agent refuses as busy.
func (c *Coordinator) connectWhenFree(ctx context.Context, ep Endpoint, i int, hash string) (*agent, error) {
	deadline := time.Now().Add(busyGrace)
	for {
		a, err := c.connect(ctx, ep, i, hash)
		var re *RefusedError
		if err == nil || !errors.As(err, &re) || !strings.HasPrefix(re.Reason, busyReason) || time.Now().After(deadline) {
			return a, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// connect runs one agent's handshake, pings and run.
func (c *Coordinator) connect(ctx context.Context, ep Endpoint, i int, hash string) (*agent, error) {
	rw, err := ep.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot connect: %w", err)
	}
	conn := NewConn(rw, rw, rw)
	a := &agent{name: ep.Name, conn: conn, past: map[engine.Phase]bool{}, gotSeq: map[engine.Phase]int{}, state: StateRunning}
	fail := func(err error) (*agent, error) {
		conn.Close()
		return nil, err
	}
	// Nothing may hang the start: the whole handshake has a deadline.
	stop := context.AfterFunc(ctx, func() { rw.Close() })
	defer stop()
	timer := time.AfterFunc(handshakeWait+adapters.OpenTimeout(c.cfg.Config.DB, adapters.Properties(c.cfg.Props)), func() { rw.Close() })
	defer timer.Stop()

	if err := c.expectHello(ctx, ep, rw, conn, &a.hello); err != nil {
		return fail(err)
	}
	if a.hello.Protocol != Protocol {
		reason := fmt.Sprintf("protocol version %d; this coordinator speaks %d (run the same benchtop on every machine)", a.hello.Protocol, Protocol)
		_ = conn.Send(TypeRefuse, Refuse{Reason: reason})
		return fail(errors.New(reason))
	}
	if a.hello.Range != LocalRange() {
		l, r := LocalRange(), a.hello.Range
		reason := fmt.Sprintf("histogram range %d-%d ns at %d digits; this coordinator merges %d-%d at %d", r.Lowest, r.Highest, r.Digits, l.Lowest, l.Highest, l.Digits)
		_ = conn.Send(TypeRefuse, Refuse{Reason: reason})
		return fail(errors.New(reason))
	}
	cn, err := nonce()
	if err != nil {
		return fail(err)
	}
	if err := conn.Send(TypeAuth, Auth{Protocol: Protocol, Range: LocalRange(), Nonce: cn, MAC: mac(c.cfg.Token, "coordinator", a.hello.Nonce, cn)}); err != nil {
		return fail(err)
	}
	var w Welcome
	if err := conn.Expect(TypeWelcome, &w); err != nil {
		return fail(err)
	}
	if a.hello.Token && !checkMAC(c.cfg.Token, "agent", a.hello.Nonce, cn, w.MAC) {
		reason := "the agent's proof does not match this token"
		_ = conn.Send(TypeRefuse, Refuse{Reason: reason})
		return fail(errors.New(reason))
	}
	conn.SetLimit(MaxFrame)
	if err := c.measureClock(a); err != nil {
		return fail(err)
	}
	spec := RunSpec{Command: c.cfg.Config.Command, Adapter: c.cfg.Config.DB, Props: c.cfg.Props, Hash: hash,
		Index: i, Count: len(c.cfg.Agents), Name: ep.Name, Label: c.cfg.Label}
	if err := conn.Send(TypeRun, spec); err != nil {
		return fail(err)
	}
	if err := conn.Expect(TypeReady, &a.ready); err != nil {
		return fail(err)
	}
	return a, nil
}

// expectHello reads the agent's hello; an agent that says nothing for
// helloWait is asked why (ep.Silent), and the answer, if any, is the
// error.
func (c *Coordinator) expectHello(ctx context.Context, ep Endpoint, rw io.Closer, conn *Conn, h *Hello) error {
	if ep.Silent == nil {
		return conn.Expect(TypeHello, h)
	}
	probed := make(chan error, 1)
	t := time.AfterFunc(helloWait, func() {
		err := ep.Silent(ctx)
		probed <- err
		if err != nil {
			rw.Close()
		}
	})
	err := conn.Expect(TypeHello, h)
	if err != nil && !t.Stop() {
		if why := <-probed; why != nil {
			return why
		}
	}
	t.Stop()
	return err
}

// measureClock sends pings and keeps the offset of the fastest round
// trip: offset = agent clock - (sent + rtt/2).
func (c *Coordinator) measureClock(a *agent) error {
	best := time.Duration(-1)
	for range c.cfg.Pings {
		sent := time.Now()
		if err := a.conn.Send(TypePing, Ping{Sent: sent}); err != nil {
			return err
		}
		var p Pong
		if err := a.conn.Expect(TypePong, &p); err != nil {
			return err
		}
		now := time.Now()
		rtt := now.Sub(sent)
		if best < 0 || rtt < best {
			best = rtt
			// Wall clocks: the monotonic reading does not cross the wire.
			a.offset = p.Agent.Sub(sent.Round(0).Add(rtt / 2))
		}
	}
	a.rtt = best
	a.row.ClockOffset = a.offset
	return nil
}

// buildInfo is the merged run's description, from the agents' readiness.
func (c *Coordinator) buildInfo() engine.Info {
	first := c.agents[0].ready.Info
	info := engine.Info{Command: c.cfg.Config.Command, Adapter: c.cfg.Config.DB, Target: first.Target,
		Workload: c.cfg.Label, Mix: first.Mix, Properties: adapters.MaskProperties(c.cfg.Props), CanRepartition: true,
		Meta: c.cfg.Meta, Agents: len(c.agents), RateUnit: first.RateUnit, OpUnits: first.OpUnits}
	for _, a := range c.agents {
		info.CanRepartition = info.CanRepartition && a.ready.Info.CanRepartition
	}
	return info
}
