package fleet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/measure"
)

// Endpoint is one agent to reach: a name and how to open its stream.
type Endpoint struct {
	Name string
	// Open returns the stream to the agent (a TCP or TLS connection, an
	// ssh process's pipes).
	Open func(ctx context.Context) (io.ReadWriteCloser, error)
}

// TCPEndpoint dials addr, with TLS when tlsCfg is set.
func TCPEndpoint(name, addr string, tlsCfg *tls.Config) Endpoint {
	return Endpoint{Name: name, Open: func(ctx context.Context) (io.ReadWriteCloser, error) {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 5 * time.Second}
		if tlsCfg != nil {
			c := tlsCfg.Clone()
			if c.ServerName == "" {
				if h, _, err := net.SplitHostPort(addr); err == nil {
					c.ServerName = h
				}
			}
			td := &tls.Dialer{NetDialer: d, Config: c}
			return td.DialContext(ctx, "tcp", addr)
		}
		return d.DialContext(ctx, "tcp", addr)
	}}
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

// CoordConfig is a fleet run.
type CoordConfig struct {
	// Config is the validated run (engine.NewConfig of Props).
	Config *engine.Config
	Props  map[string]string
	Label  string // the workload's label (-P file name)
	// Meta describes the run (command line, build, the coordinator's
	// host) for the report's header.
	Meta   engine.RunMeta
	Token  string
	Agents []Endpoint
	// Log receives one line per notable event (an agent late or lost).
	Log io.Writer
	// OnSnapshot hooks get every merged snapshot (status lines, exports).
	OnSnapshot []func(*engine.Snapshot)
	// OnInterval hooks get every merged interval (the HDR log); the Set
	// must not be kept.
	OnInterval []func(phase engine.Phase, names []string, start, end time.Time, set *measure.Set)
	// OnAgentInterval hooks get every agent's own interval as it arrives
	// (per-agent HDR tags); the Set must not be kept.
	OnAgentInterval []func(agent string, phase engine.Phase, names []string, start, end time.Time, set *measure.Set)
	// OnPhase hooks are called when a phase starts (its first agent's
	// word of it), from the merge loop: keep them quick.
	OnPhase []func(engine.Phase)
	// Pings per agent to measure its clock offset (default 8).
	Pings int
	// LostAfter is how long an agent may send nothing before it is lost
	// (default: 10 intervals, at least 10 s).
	LostAfter time.Duration
}

// Coordinator runs one fleet run: it has every agent's session, merges
// their intervals into Snapshots and fans the controls out. It is the
// engine.Controller of the merged run.
type Coordinator struct {
	cfg    CoordConfig
	agents []*agent
	info   engine.Info
	snaps  chan *engine.Snapshot
	inbox  chan inMsg
	ctlCh  chan ctlChange
	// curCh asks the merge loop for the phases so far (Current);
	// loopDone is closed when the loop is over.
	curCh    chan chan []*engine.PhaseResult
	loopDone chan struct{}
	// opNames are the operation types every agent's workload has.
	opNames []string
	// divided: the fleet divides the stream's partitions among its agents
	// (DividesPartitions, as the agents' adapters declared it).
	divided bool

	mu          sync.Mutex
	ctl         engine.Controls
	stopped     bool
	interrupted bool
	stopOnce    sync.Once
	stopCh      chan struct{}
	results     []*engine.PhaseResult
}

var _ engine.Controller = (*Coordinator)(nil)

// agent is one agent's session as the coordinator keeps it.
type agent struct {
	name   string
	conn   *Conn
	hello  Hello
	offset time.Duration // agent clock - coordinator clock
	rtt    time.Duration
	ready  Ready

	// Owned by the merge loop.
	state    string
	reason   string
	lostAt   time.Duration
	past     map[engine.Phase]bool // phases it has finished
	lastSeen time.Time
	row      engine.AgentRow
	done     *Done
	late     int // seq awaited while late
	// wantParts is the partition count last asked of the agent (0: none
	// asked); under c.mu.
	wantParts int
	// parts is the partition count of its last interval (any goroutine).
	parts  atomic.Int64
	gotSeq map[engine.Phase]int
	// finishedAt is when its run's last interval came (its Done may take
	// a while: the workload's closing check).
	finishedAt time.Time
}

// Agent states.
const (
	StateRunning = "running"
	StateLate    = "late"
	StateLost    = "lost"
	StateDone    = "done"
)

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
		for _, a := range c.agents {
			if a != nil {
				_ = a.conn.Send(TypeRefuse, Refuse{Reason: "the run was called off: " + first.Error()})
				a.conn.Close()
			}
		}
		return nil, first
	}
	names := c.agents[0].ready.OpNames
	for _, a := range c.agents[1:] {
		if !slices.Equal(a.ready.OpNames, names) {
			err := fmt.Errorf("agent %s: its workload's operations %v differ from %s's %v (another benchtop build?)",
				a.name, a.ready.OpNames, c.agents[0].name, names)
			for _, o := range c.agents {
				_ = o.conn.Send(TypeRefuse, Refuse{Reason: "the run was called off: " + err.Error()})
				o.conn.Close()
			}
			return nil, err
		}
	}
	c.opNames = names
	c.divided = c.agents[0].ready.Share.Partitions >= 0
	if c.divided {
		if err := CheckPartitions(cfg.Config.Partitions, len(c.agents)); err != nil {
			for _, o := range c.agents {
				_ = o.conn.Send(TypeRefuse, Refuse{Reason: "the run was called off: " + err.Error()})
				o.conn.Close()
			}
			return nil, err
		}
	}
	c.info = c.buildInfo()
	return c, nil
}

// ThreadsPerAgent is the threads every agent runs now.
func (c *Coordinator) ThreadsPerAgent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctl.Threads
}

// Divided tells whether the fleet divides the stream's partitions among
// its agents (see DividesPartitions).
func (c *Coordinator) Divided() bool { return c.divided }

// busyReason begins an agent's refusal while it runs for another
// coordinator.
const busyReason = "busy: running for coordinator "

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
	timer := time.AfterFunc(2*time.Minute, func() { rw.Close() })
	defer timer.Stop()

	if err := conn.Expect(TypeHello, &a.hello); err != nil {
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
		Meta: c.cfg.Meta, Agents: len(c.agents)}
	for _, a := range c.agents {
		info.CanRepartition = info.CanRepartition && a.ready.Info.CanRepartition
	}
	return info
}

// Info is the merged run's description.
func (c *Coordinator) Info() engine.Info { return c.info }

// Snapshots is the channel of merged snapshots, closed after the last.
func (c *Coordinator) Snapshots() <-chan *engine.Snapshot { return c.snaps }

// Results is the merged run's phases (after Run: all of them).
func (c *Coordinator) Results() []*engine.PhaseResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*engine.PhaseResult(nil), c.results...)
}

// Current returns the phases so far, the one in progress as of its last
// merged interval (the `s` key saves them); after the run, Results.
func (c *Coordinator) Current() []*engine.PhaseResult {
	req := make(chan []*engine.PhaseResult, 1)
	select {
	case c.curCh <- req:
	case <-c.loopDone:
		return c.Results()
	}
	select {
	case r := <-req:
		return r
	case <-c.loopDone:
		return c.Results()
	}
}

// live are the agents not lost, for fan-out. Caller holds c.mu or owns
// the merge loop; state changes happen under c.mu.
func (c *Coordinator) live() []*agent {
	var out []*agent
	for _, a := range c.agents {
		if a.state != StateLost {
			out = append(out, a)
		}
	}
	return out
}

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
	if n < 1 || n > engine.MaxThreads {
		return fmt.Errorf("threads: %d is out of range (1 to %d)", n, engine.MaxThreads)
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
	if t < 0 || t > 1e12 || t != t {
		return fmt.Errorf("target: %v is out of range (0 = unlimited, up to 1e12)", t)
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
	if n < 1 || n > engine.MaxPartitions {
		return fmt.Errorf("partitions: %d is out of range (1 to %d)", n, engine.MaxPartitions)
	}
	if !c.info.CanRepartition {
		return engine.ErrCannotRepartition
	}
	c.mu.Lock()
	live := c.live()
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
		a.wantParts = int(Portion(int64(n), i, len(live)))
	}
	c.mu.Unlock()
	c.sendTo(live, Control{Op: "partitions"}, func(i, k int) Control {
		return Control{Op: "partitions", N: int(Portion(int64(n), i, k))}
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

// AgentReport is one agent in the JSON report.
type AgentReport struct {
	Name        string         `json:"name"`
	State       string         `json:"state"`
	Reason      string         `json:"reason,omitempty"`
	LostAtMs    int64          `json:"lost_at_ms,omitempty"`
	Benchtop    string         `json:"benchtop,omitempty"`
	Host        HostFacts      `json:"host"`
	ClockOffset float64        `json:"clock_offset_ms"`
	RTT         float64        `json:"rtt_ms"`
	Share       Share          `json:"share"`
	Phases      []PhaseFigures `json:"phases,omitempty"`
	Error       string         `json:"error,omitempty"`
	Problems    []string       `json:"problems,omitempty"`
	Report      string         `json:"report,omitempty"`
	Summary     any            `json:"summary,omitempty"`
}

// Agents reports every agent (after Run).
func (c *Coordinator) Agents() []AgentReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]AgentReport, 0, len(c.agents))
	for _, a := range c.agents {
		r := AgentReport{Name: a.name, State: a.state, Reason: a.reason, Benchtop: a.hello.Benchtop, Host: a.hello.Host,
			ClockOffset: float64(a.offset) / 1e6, RTT: float64(a.rtt) / 1e6, Share: a.ready.Share}
		if a.state == StateLost {
			r.LostAtMs = a.lostAt.Milliseconds()
		}
		if d := a.done; d != nil {
			r.Phases, r.Error, r.Problems, r.Report = d.Phases, d.Err, d.Problems, d.Report
			if len(d.Summary) > 0 {
				r.Summary = d.Summary
			}
		}
		out = append(out, r)
	}
	return out
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

// Problems are the agents' errors and closing problems, one line each.
func (c *Coordinator) Problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, a := range c.agents {
		if a.done == nil {
			continue
		}
		if a.done.Err != "" {
			out = append(out, a.name+": "+a.done.Err)
		}
		for _, p := range a.done.Problems {
			out = append(out, a.name+": "+p)
		}
	}
	return out
}

func (c *Coordinator) logf(format string, a ...any) {
	if c.cfg.Log != nil {
		fmt.Fprintf(c.cfg.Log, "benchtop: "+format+"\n", a...)
	}
}

// oneLine flattens an error for a log line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
