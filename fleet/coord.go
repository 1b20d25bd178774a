package fleet

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/workload"
)

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

	mu  sync.Mutex
	ctl engine.Controls
	// partsAsked is when partitions were last asked of the agents, and
	// the fleet's count asked (for the change's event: when it took
	// effect).
	partsAsked  time.Time
	partsAskedN int
	stopped     bool
	interrupted bool
	// verdict is the merged ledgers' verdict once made (Verdict), for
	// verdictOf ledgers and missing agents: the end's outputs ask for it
	// several times, and a merge decodes every ledger.
	verdict   workload.Verdict
	verdictOf [2]int
	stopOnce  sync.Once
	stopCh    chan struct{}
	results   []*engine.PhaseResult
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
	// merged are its figures as merged into the fleet's, per phase (under
	// c.mu): a lost agent's report, up to its loss.
	merged map[engine.Phase]*mergedFigures
}

// Agent states.
const (
	StateRunning = "running"
	StateLate    = "late"
	StateLost    = "lost"
	StateDone    = "done"
)

// ThreadsPerAgent is the threads every agent runs now.
func (c *Coordinator) ThreadsPerAgent() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctl.Threads
}

// Divided tells whether the fleet divides the stream's partitions among
// its agents (see DividesPartitions).
func (c *Coordinator) Divided() bool { return c.divided }

// Info is the merged run's description.
func (c *Coordinator) Info() engine.Info { return c.info }

// Snapshots is the channel of merged snapshots, closed after the last.
func (c *Coordinator) Snapshots() <-chan *engine.Snapshot { return c.snaps }

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
	// UpToLoss: a lost agent's Phases are what the coordinator merged of
	// it, up to its loss (its own report never came); they are in the
	// fleet's merged figures.
	UpToLoss bool     `json:"up_to_loss,omitempty"`
	Error    string   `json:"error,omitempty"`
	Problems []string `json:"problems,omitempty"`
	Report   string   `json:"report,omitempty"`
	Summary  any      `json:"summary,omitempty"`
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
		} else if a.state == StateLost {
			r.Phases, r.UpToLoss = a.mergedPhases(), true
		}
		out = append(out, r)
	}
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
