package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/results/report"
	"benchtop/workload"
)

// AgentConfig is how an agent serves its coordinators.
type AgentConfig struct {
	// Token is the shared token; "" when none (loopback or stdio only).
	Token string
	// CheckToken is false over stdio, where ssh authenticated the peer.
	CheckToken bool
	// Log receives one line per notable event (stderr); nil: discarded.
	Log io.Writer
	// Version is the binary's build, sent in the hello.
	Version string
	// Once ends ServeListener after the first session that ran (a
	// Kubernetes Job's pod completes).
	Once bool
	// IdleTimeout ends ServeListener with an *IdleError when no
	// authenticated coordinator held the agent for that long (0: never).
	IdleTimeout time.Duration
	// AuthTimeout is how long a connection to ServeListener has to finish
	// its TLS handshake and prove the token (DefaultAuthTimeout when 0).
	AuthTimeout time.Duration
	// MaxUnauthenticated is how many connections may wait to
	// authenticate at once; at the bound the oldest is closed
	// (DefaultMaxUnauthenticated when 0).
	MaxUnauthenticated int
}

func (c *AgentConfig) logf(format string, a ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, "benchtop agent: "+format+"\n", a...)
	}
}

// session is one coordinator's session with this agent.
type session struct {
	cfg     *AgentConfig
	conn    *Conn
	peer    string
	host    *host.Sampler
	spec    RunSpec
	runner  *engine.Runner
	db      adapters.DB
	props   map[string]string // the agent's own, for masking
	group   *workload.Group   // the workload's part in a fleet (nil: none)
	started bool              // the run started
	out     chan outMsg       // to the coordinator, in order
	dropped int               // messages lost to a full queue (sampler goroutine only)
	hooks   sessionHooks
	release func() // frees the agent for another coordinator
}

// sessionHooks are what a listener learns of a session's handshake (the
// zero value for stdio, where ssh authenticated the peer).
type sessionHooks struct {
	// authenticated is called once the coordinator has proved the token:
	// it claims the agent (release frees it) or says it is busy.
	authenticated func() (release func(), err error)
	// failed is told why a handshake failed before authentication, in
	// place of the session's own log line.
	failed func(err error)
}

// errHandshake marks an error of the handshake, or a refusal, already
// told of.
var errHandshake = errors.New("handshake")

// handshakeError is a handshake's failure: the cause, marked.
type handshakeError struct{ err error }

func (e *handshakeError) Error() string { return e.err.Error() }
func (e *handshakeError) Unwrap() []error {
	return []error{e.err, errHandshake}
}

// Serve runs one session on conn: the handshake, then at most one run.
// It returns when the run is over or the peer leaves; a refused peer is
// logged and its error returned.
func Serve(ctx context.Context, conn *Conn, peer string, cfg AgentConfig) error {
	_, err := serve(ctx, conn, peer, cfg, sessionHooks{})
	return err
}

// serve is Serve that also tells whether a run started.
func serve(ctx context.Context, conn *Conn, peer string, cfg AgentConfig, hooks sessionHooks) (ran bool, err error) {
	s := &session{cfg: &cfg, conn: conn, peer: peer, host: host.NewSampler(), hooks: hooks}
	defer s.close()
	if err := s.handshake(); err != nil {
		return false, &handshakeError{err}
	}
	err = s.loop(ctx)
	return s.started, err
}

func (s *session) close() {
	if s.db != nil {
		_ = s.db.Close()
	}
	if s.release != nil {
		s.release()
	}
}

// refuse tells the peer why, logs it, and returns it as an error.
func (s *session) refuse(format string, a ...any) error {
	return s.refuseWith(Refuse{Reason: fmt.Sprintf(format, a...)})
}

// refuseWith is refuse with the whole message.
func (s *session) refuseWith(r Refuse) error {
	r.Reason = adapters.MaskSecretsIn(r.Reason, s.props)
	_ = s.conn.Send(TypeRefuse, r)
	s.cfg.logf("refused coordinator %s: %s", s.peer, r.Reason)
	return &handshakeError{errors.New(r.Reason)} // told of: not logged again
}

func (s *session) handshake() error {
	an, err := nonce()
	if err != nil {
		return err
	}
	hs := s.host.Sample()
	if err := s.conn.Send(TypeHello, Hello{Protocol: Protocol, Benchtop: s.cfg.Version, Range: LocalRange(),
		Nonce: an, Token: s.cfg.CheckToken, Host: LocalFacts(hs)}); err != nil {
		return err
	}
	var a Auth
	if err := s.conn.Expect(TypeAuth, &a); err != nil {
		var re *RefusedError
		switch {
		case errors.As(err, &re):
			s.cfg.logf("coordinator %s: %s", s.peer, re.Reason)
		case s.hooks.failed != nil:
			s.hooks.failed(err)
		case !errors.Is(err, io.EOF):
			// A peer that connects and closes is no error.
			s.cfg.logf("coordinator %s: no valid hello: %v", s.peer, err)
		}
		return err
	}
	if a.Protocol != Protocol {
		return s.refuse("protocol version %d; this agent speaks %d (run the same benchtop on every machine)", a.Protocol, Protocol)
	}
	if a.Range != LocalRange() {
		l := LocalRange()
		return s.refuse("histogram range %d-%d ns at %d digits; this agent records %d-%d at %d", a.Range.Lowest, a.Range.Highest, a.Range.Digits,
			l.Lowest, l.Highest, l.Digits)
	}
	if s.cfg.CheckToken && !checkMAC(s.cfg.Token, "coordinator", an, a.Nonce, a.MAC) {
		return s.refuse("wrong token")
	}
	if s.hooks.authenticated != nil {
		// Only now may the peer claim this agent, or learn it is busy.
		release, err := s.hooks.authenticated()
		var be *busyError
		if errors.As(err, &be) {
			_ = s.conn.Send(TypeRefuse, Refuse{Reason: be.Error()})
			s.cfg.logf("refused coordinator %s: busy with %s", s.peer, be.with)
			return err
		}
		if err != nil {
			return err
		}
		s.release = release
	}
	if err := s.conn.Send(TypeWelcome, Welcome{MAC: mac(s.cfg.Token, "agent", an, a.Nonce)}); err != nil {
		return err
	}
	s.conn.SetLimit(MaxFrame)
	s.cfg.logf("coordinator %s authenticated", s.peer)
	return nil
}

// loop serves pings, the run, the start and the controls.
func (s *session) loop(ctx context.Context) error {
	for {
		env, err := s.conn.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("coordinator %s: %w", s.peer, err)
		}
		switch env.Type {
		case TypePing:
			var p Ping
			if err := decode(env, TypePing, &p); err != nil {
				return err
			}
			if err := s.conn.Send(TypePong, Pong{Sent: p.Sent, Agent: time.Now()}); err != nil {
				return err
			}
		case TypeRun:
			if s.runner != nil {
				return s.refuse("a second run in one session")
			}
			if err := decode(env, TypeRun, &s.spec); err != nil {
				return s.refuse("%v", err)
			}
			if err := s.prepare(ctx); err != nil {
				return err
			}
		case TypeStart:
			if s.runner == nil {
				return s.refuse("start before a run")
			}
			var st Start
			if err := decode(env, TypeStart, &st); err != nil {
				return s.refuse("%v", err)
			}
			return s.run(ctx, st.At)
		case TypeRefuse:
			var r Refuse
			_ = json.Unmarshal(env.Body, &r)
			s.cfg.logf("coordinator %s: %s", s.peer, r.Reason)
			return &RefusedError{Reason: r.Reason}
		case TypeControl:
			// Nothing runs yet: nothing to control.
		default:
			return s.refuse("unexpected %q message", env.Type)
		}
	}
}

// describe is a configuration error in one line, secrets masked.
func (s *session) describe(err error) string {
	var ce *adapters.ConfigError
	if errors.As(err, &ce) {
		return fmt.Sprintf("%s: %q is not allowed (allowed: %s)", ce.Key, ce.Shown(), ce.Allowed)
	}
	return strings.Join(strings.Fields(err.Error()), " ")
}

// prepare validates the run with this binary, checks its hash, opens the
// adapter and builds the runner for this agent's share.
func (s *session) prepare(ctx context.Context) error {
	sp := s.spec
	s.props = sp.Props
	base, _, err := engine.NewConfig(sp.Command, sp.Adapter, sp.Props)
	if err != nil {
		return s.refuse("%s", s.describe(err))
	}
	if h := RunHash(base); h != sp.Hash {
		return s.refuse("run configuration hash %s differs from the coordinator's %s (another benchtop build? run the same one everywhere)",
			ShortHash(h), ShortHash(sp.Hash))
	}
	if sp.Count < 1 || sp.Index < 0 || sp.Index >= sp.Count {
		return s.refuse("agent %d of %d is not a place in a fleet", sp.Index, sp.Count)
	}
	aprops := adapters.Properties(sp.Props)
	octx, cancel := context.WithTimeout(ctx, adapters.OpenTimeout(sp.Adapter, aprops))
	db, err := adapters.Open(octx, sp.Adapter, aprops)
	cancel()
	var ce *adapters.ConfigError
	if errors.As(err, &ce) {
		// Bad input on this agent (its memory store's load does not fit
		// in its memory...): the coordinator exits 2, as a process would.
		return s.refuseWith(Refuse{Reason: fmt.Sprintf("%s: %s", sp.Adapter, s.describe(err)), BadInput: true})
	}
	if err != nil {
		return s.refuse("%s: cannot open: %s", sp.Adapter, s.describe(err))
	}
	s.db = db
	caps := adapters.CapabilitiesOf(db)
	props, share := SplitProps(sp.Command, base.Workload, sp.Props, sp.Index, sp.Count, caps)
	s.group = workload.GroupOf(base.Workload)
	share.SharedPartitions = s.group != nil && s.group.Partitioned && caps.SharedPartitions
	share.OwnStore = caps.StartsEmpty
	cfg, _, err := engine.NewConfig(sp.Command, sp.Adapter, props)
	if err != nil {
		return s.refuse("%s", s.describe(err))
	}
	info := engine.Info{Command: sp.Command, Adapter: sp.Adapter, Workload: sp.Label, Properties: adapters.MaskProperties(props)}
	if d, ok := db.(adapters.Describer); ok {
		info.Target = adapters.MaskURL(d.Describe())
	}
	s.out = make(chan outMsg, outQueue)
	opts := engine.Options{Info: info, Host: s.host}
	// The hooks run in order on the runner's goroutine: a phase's last
	// snapshot is queued before the next phase's start.
	opts.OnIntervalData = []func(*engine.Snapshot, *engine.IntervalData){func(snap *engine.Snapshot, d *engine.IntervalData) {
		s.queue(TypeInterval, toInterval(snap, d))
	}}
	opts.OnPhase = []func(engine.Phase){func(p engine.Phase) { s.queue(TypePhase, PhaseStart{Phase: p, At: time.Now()}) }}
	r, err := engine.New(cfg, db, opts)
	if err != nil {
		return s.refuse("%s", s.describe(err))
	}
	s.runner = r
	names, err := opNames(cfg, db)
	if err != nil {
		return s.refuse("%s", s.describe(err))
	}
	s.cfg.logf("run from %s: %s %s, agent %d of %d (%s)", s.peer, sp.Command, sp.Adapter, sp.Index+1, sp.Count, describeShare(share))
	return s.conn.Send(TypeReady, Ready{Hash: RunHash(base), OpNames: names, Info: r.Info(), Share: share})
}

// opNames are the workload's operation types, which the coordinator needs
// at the phase's start. The Runner does not tell them, so the workload is
// built once more (it sends the database nothing until it runs).
func opNames(cfg *engine.Config, db adapters.DB) ([]string, error) {
	f, ok := workload.Lookup(cfg.Workload)
	if !ok {
		return nil, fmt.Errorf("workload %q is not in this agent's benchtop", cfg.Workload)
	}
	wl, err := f.New(cfg.Command, cfg.Props, db)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", cfg.Workload, err)
	}
	return wl.OpNames(), nil
}

func describeShare(sh Share) string {
	parts := []string{fmt.Sprintf("threads %d", sh.Threads)}
	if sh.Target > 0 {
		parts = append(parts, fmt.Sprintf("target %s ops/s", strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", sh.Target), "0"), ".")))
	}
	if sh.OperationCount > 0 {
		parts = append(parts, fmt.Sprintf("operationcount %d", sh.OperationCount))
	}
	if sh.Partitions >= 0 {
		parts = append(parts, fmt.Sprintf("partitions %d", sh.Partitions))
	}
	if sh.InsertCount >= 0 {
		parts = append(parts, fmt.Sprintf("insertstart %d insertcount %d", sh.InsertStart, sh.InsertCount))
	}
	return strings.Join(parts, ", ")
}

// run waits for the start instant, runs, streams every snapshot and
// applies the controls; a coordinator that leaves stops the run.
func (s *session) run(ctx context.Context, at time.Time) error {
	if d := time.Until(at); d > 0 {
		if d > time.Minute {
			return s.refuse("start time %s is more than a minute away", at.Format(time.RFC3339Nano))
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	r := s.runner
	s.started = true
	sent := make(chan error, 1)
	go func() { sent <- s.sender(r) }()
	go func() {
		// The channel's copies are not needed: the hooks send them.
		for range r.Snapshots() {
		}
	}()
	gone := make(chan struct{})
	go s.controls(r, gone)

	results, runErr := r.Run(ctx)
	close(s.out)
	sendErr := <-sent
	select {
	case <-gone:
		s.cfg.logf("run for %s interrupted: the coordinator left", s.peer)
		return nil
	default:
	}
	if sendErr != nil {
		return sendErr
	}
	done := s.done(results, runErr)
	fitLedger(&done, s.group)
	if err := s.conn.Send(TypeDone, done); err != nil {
		return err
	}
	s.cfg.logf("run for %s done", s.peer)
	// Wait for the coordinator to hang up, so that Done is read before the
	// stream closes (an ssh channel closes both ways at once).
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
	}
	return nil
}

// outMsg is one message queued by the engine's hooks.
type outMsg struct {
	typ  string
	body any
}

// outQueue is how many messages may wait for a slow link (minutes of
// intervals) before the oldest are dropped.
const outQueue = 1024

// queue is the engine hooks' side: it never blocks the sampler.
func (s *session) queue(typ string, body any) {
	select {
	case s.out <- outMsg{typ, body}:
	default:
		s.dropped++
	}
}

// sender sends the queued messages in order; a failed send stops the run.
func (s *session) sender(r *engine.Runner) error {
	var err error
	for m := range s.out {
		if err != nil {
			continue
		}
		if err = s.conn.Send(m.typ, m.body); err != nil {
			s.cfg.logf("coordinator %s gone (%v): stopping the run", s.peer, err)
			r.Interrupt()
		}
	}
	return err
}

// controls applies the coordinator's controls until it leaves (closing
// gone), then stops the run.
func (s *session) controls(r *engine.Runner, gone chan<- struct{}) {
	defer close(gone)
	for {
		env, err := s.conn.Recv()
		if err != nil {
			r.Interrupt()
			return
		}
		if env.Type != TypeControl {
			continue
		}
		var c Control
		if err := json.Unmarshal(env.Body, &c); err != nil {
			continue
		}
		if err := Apply(r, c); err != nil {
			s.cfg.logf("%s: %v", c.Op, err)
		}
	}
}

// Apply applies one control to a Controller.
func Apply(ctl engine.Controller, c Control) error {
	switch c.Op {
	case "threads":
		return ctl.SetThreads(c.N)
	case "target":
		return ctl.SetTarget(c.F)
	case "partitions":
		return ctl.SetPartitions(c.N)
	case "pause":
		ctl.Pause()
	case "resume":
		ctl.Resume()
	case "mark":
		ctl.Mark(c.Label)
	case "segment":
		ctl.NewSegment()
	case "stop":
		ctl.Stop()
	default:
		return fmt.Errorf("unknown control %q", c.Op)
	}
	return nil
}

func toInterval(s *engine.Snapshot, d *engine.IntervalData) Interval {
	iv := Interval{
		Seq: s.Seq, Phase: s.Phase, Host: s.Host, Events: s.Events, Warnings: s.Warnings,
		Threads: s.Threads, Target: s.Target, Partitions: s.Partitions, Paused: s.Paused,
		OpsDone: s.OpsDone, OpsTotal: s.OpsTotal, Done: s.Done, P99: s.Total.Interval.P99,
		Workload: s.Workload,
	}
	if d != nil {
		iv.OpNames, iv.Start, iv.End, iv.Set, iv.Delta = d.OpNames, d.Start, d.End, d.Set, d.Delta
	}
	return iv
}

// done is the agent's figures and reports.
func (s *session) done(results []*engine.PhaseResult, runErr error) Done {
	var d Done
	for _, res := range results {
		var errs int64
		for _, m := range res.Set.Errors {
			for _, n := range m {
				errs += n
			}
		}
		d.Phases = append(d.Phases, PhaseFigures{Phase: res.Phase, RunTime: res.RunTime, RunTimeMs: res.RunTime.Milliseconds(),
			Operations: res.Set.Ops, Throughput: res.Goodput(), Errors: errs, Interrupted: res.Interrupted})
		d.Segments = res.Segments
		if res.Closing != nil {
			d.Problems = append(d.Problems, res.Closing.Problems...)
			if s.group != nil && s.group.TakeLedger != nil {
				// The ledger goes once, as Rows, not in the summary too.
				rows, err := s.group.TakeLedger(res.Closing)
				if err != nil {
					d.Problems = append(d.Problems, err.Error())
				}
				d.Rows = rows
			}
		}
	}
	var b bytes.Buffer
	report.WriteText(&b, results, s.runner.Info())
	d.Report = b.String()
	b.Reset()
	if err := report.WriteJSON(&b, results, s.runner.Info()); err == nil {
		d.Summary = json.RawMessage(bytes.TrimSpace(b.Bytes()))
	}
	if runErr != nil {
		d.Err = adapters.MaskSecretsIn(strings.Join(strings.Fields(runErr.Error()), " "), s.props)
	}
	return d
}

// fitLedger drops a ledger too large for one frame (a stream's: stream.keys x
// threads of a few hundred bytes each; a frame holds MaxFrame), and says
// so: the fleet's verdict then lacks this agent, which fails the run.
func fitLedger(d *Done, g *workload.Group) {
	if d.Rows == nil || g == nil {
		return
	}
	b, err := json.Marshal(d)
	if err == nil && len(b) < MaxFrame-4096 {
		return
	}
	d.Problems = append(d.Problems, g.LedgerTooLarge(d.Rows, MaxFrame))
	d.Rows = nil
}
