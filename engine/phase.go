package engine

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload"
)

// runEnv is what a phase needs of its run: settings, clocks, the host
// sampler and where snapshots go. A phase holds no pointer to the Runner.
type runEnv struct {
	cfg       *Config
	runStart  time.Time
	host      *host.Sampler
	opts      *Options
	publish   func(*Snapshot)
	loadCount int64
}

// phase is one load or run phase: its workers, measurements and segments.
type phase struct {
	env      runEnv
	name     Phase
	wl       workload.Workload
	opNames  []string
	last     bool
	start    time.Time
	opsTotal int64

	pool     pool
	doneCh   chan struct{} // closed when the workers are idle for good
	doneOnce sync.Once
	stopped  chan struct{} // closed when the workers are told to stop
	stopOnce sync.Once

	// Sampler state, under smu.
	smu       sync.Mutex
	asm       *Assembler
	asmConfig AssemblerConfig
	ctl       Controls // the controls in force, as the runner handed them
	cutReqs   []cutReq
	// drained gathers the recorders' Sets of one drain, which then goes
	// to the assembler in one Add (see drain); gather is its Merge.
	drained     *measure.Set
	gather      func(*measure.Set)
	endTime     time.Time // when the workers stopped (zero while running)
	lastSampled time.Time // the sampler goroutine's own
	gcStart     GCStats   // the runtime's collections when the phase began
}

// cutReq is a segment boundary waiting for the next drain.
type cutReq struct {
	label string
	ctl   Controls
}

func newPhase(env runEnv, wl workload.Workload, name Phase, last bool) *phase {
	p := &phase{
		env:     env,
		name:    name,
		wl:      wl,
		opNames: wl.OpNames(),
		last:    last,
		start:   time.Now(),
		doneCh:  make(chan struct{}),
		stopped: make(chan struct{}),
	}
	p.lastSampled = p.start
	p.drained = &measure.Set{}
	p.gather = p.drained.Merge
	pl := &p.pool
	pl.name, pl.wl, pl.base = name, wl, nanotime()
	pl.plan.phase = rand.Float64()
	pl.plan.grid = int64(env.cfg.PacingGrid)
	pl.plan.poisson = env.cfg.Arrivals == "poisson"
	pl.plan.seed = rand.Uint64()
	pl.wake = make(chan struct{})
	pl.waker = newWaker(pl.now, pl.base, int64(env.cfg.PacingWindow))
	pl.opCtx, pl.opCancel = context.WithCancel(context.Background())
	pl.onIdle = p.finish
	switch name {
	case PhaseLoad:
		pl.limited, p.opsTotal = true, env.loadCount
	case PhaseRun:
		if env.cfg.OperationCount > 0 {
			pl.limited, p.opsTotal = true, env.cfg.OperationCount
		}
	}
	pl.budget.Store(p.opsTotal)
	p.asmConfig = AssemblerConfig{
		Phase: name, OpNames: p.opNames, OpsTotal: p.opsTotal, Last: last,
		RunStart: env.runStart, PhaseStart: p.start, MaxExecutionTime: env.cfg.MaxExecutionTime,
		Measurement: env.cfg.MeasurementIntvl, Percentiles: env.cfg.Percentiles, Interval: env.cfg.StatusInterval,
	}
	if c, ok := wl.(workload.Counters); ok {
		p.asmConfig.Counters = c
	}
	if f, ok := workload.Lookup(env.cfg.Workload); ok {
		p.asmConfig.RateKey = f.RateKey
	}
	if env.cfg.Output.MeasurementType == "timeseries" {
		p.asmConfig.Granularity = env.cfg.Output.Granularity
	}
	p.gcStart = readGC()
	pl.recorders = make([]*measure.Recorder, recorderCount(runtime.GOMAXPROCS(0)))
	for i := range pl.recorders {
		pl.recorders[i] = measure.NewRecorder()
	}
	pl.late = make([]lateness, len(pl.recorders))
	return p
}

// begin starts the phase with the Controls in force and the events that
// came before it: the first segment, the pacing plan and the workers.
func (p *phase) begin(ctl Controls, pending []Event, e Event) {
	p.smu.Lock()
	p.ctl = ctl
	p.asm = NewAssembler(p.asmConfig, ctl, e.String())
	for _, pe := range append(pending, e) {
		p.asm.Event(pe)
	}
	p.smu.Unlock()
	p.pool.paused.Store(ctl.Paused)
	p.pool.plan.replan(ctl.Target, ctl.Threads)
	p.pool.resize(ctl.Threads)
	if p.pool.limited && p.opsTotal == 0 {
		p.finish()
	}
}

// apply takes a change of the Controls, recorded as event e, and starts a
// new segment. The runner calls it under its lock, so changes arrive in
// order.
func (p *phase) apply(ctl Controls, e Event) {
	p.smu.Lock()
	old := p.ctl
	p.ctl = ctl
	p.asm.Event(e)
	p.cutReqs = append(p.cutReqs, cutReq{label: e.String(), ctl: ctl})
	p.smu.Unlock()
	if ctl.Threads != old.Threads {
		p.pool.resize(ctl.Threads)
	}
	if ctl.Threads != old.Threads || ctl.Target != old.Target {
		p.pool.plan.replan(ctl.Target, ctl.Threads)
	}
	if ctl.Paused != old.Paused {
		p.pool.paused.Store(ctl.Paused)
		if !ctl.Paused {
			p.pool.plan.restart()
		}
	}
	p.pool.wakeAll()
	// Drain now so that the closing segment holds what ran before the
	// change.
	p.drain(true)
}

// note records an event that changes nothing (a failed change).
func (p *phase) note(e Event) {
	p.smu.Lock()
	p.asm.Event(e)
	p.smu.Unlock()
}

// stop tells the workers to exit after their current operation. The
// phase's run time ends here (unless it ended before: the budget spent),
// or, when operations in flight complete in the grace after it
// (drainWorkers), when the last of them does: they count with their time.
func (p *phase) stop() {
	now := time.Now()
	p.pool.stop() // first: markEnd waits for the sampler's lock
	p.markEnd(now)
	p.stopOnce.Do(func() { close(p.stopped) })
}

// finish marks the workers idle for good (budget spent, or stopped and
// all exited): the phase's run time ends here.
func (p *phase) finish() {
	p.markEnd(time.Now())
	p.doneOnce.Do(func() { close(p.doneCh) })
}

func (p *phase) markEnd(t time.Time) {
	p.smu.Lock()
	if p.endTime.IsZero() {
		p.endTime = t
	}
	p.smu.Unlock()
}

// runTime is the phase's run time: until the workers stopped, or until at
// for a phase still running. Caller holds smu.
func (p *phase) runTime(at time.Time) time.Duration {
	if !p.endTime.IsZero() {
		return p.endTime.Sub(p.start)
	}
	return at.Sub(p.start)
}

// loop samples every status interval until the workers are done or told
// to stop (the deadline, Stop, ctx). The deadline does not wait for the
// sampling: it stops the workers from a timer of its own, so that a slow
// interval (an overloaded client) never makes the run overrun.
func (p *phase) loop(ctx context.Context, stopCh <-chan struct{}) {
	if d := p.env.cfg.MaxExecutionTime; d > 0 && p.name == PhaseRun {
		t := time.AfterFunc(d, p.stop)
		defer t.Stop()
	}
	tick := time.NewTicker(p.env.cfg.StatusInterval)
	defer tick.Stop()
	for {
		// The end first: a select with several ready cases picks any.
		select {
		case <-p.doneCh:
			return
		case <-p.stopped:
			return
		default:
		}
		select {
		case <-p.doneCh:
			return
		case <-p.stopped:
			return
		case <-stopCh:
			p.stop()
			return
		case <-ctx.Done():
			p.stop()
			return
		case <-tick.C:
			p.sample(false)
		}
	}
}

// drainWorkers stops the workers and waits for them; in-flight operations
// get grace (Options.StopGrace, 2 s by default), then their context is
// cancelled and those that end from then on are cut off: counted apart,
// in no throughput and no error count.
func (p *phase) drainWorkers(grace time.Duration) {
	p.stop()
	waited := make(chan struct{})
	go func() { p.pool.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(grace):
		p.pool.cutAt.Store(max(p.pool.now(), 1))
		p.pool.opCancel()
		<-waited
	}
	p.pool.opCancel()
	p.pool.waker.close()
	p.markEnd(time.Now())
	// The operations in flight at the stop count with their time: the run
	// time extends to the last one counted (YCSB's too waits for its
	// threads). Ended at the stop, the 64 operations that a 64-thread run
	// on a 160 ops/s model completed in the 0.4 s after it were counted
	// in a last interval of 0.003 s (25,240 ops/s) and its last segment
	// read 167 ops/s.
	if end := p.pool.lastEnd.Load(); end > 0 {
		p.extendEnd(p.start.Add(time.Duration(end)))
	}
}

// extendEnd moves the phase's end to t when t is later.
func (p *phase) extendEnd(t time.Time) {
	p.smu.Lock()
	if t.After(p.endTime) {
		p.endTime = t
	}
	p.smu.Unlock()
}

func (p *phase) result(final *Snapshot, interrupted bool) *PhaseResult {
	p.smu.Lock()
	defer p.smu.Unlock()
	res := p.asm.Result(final, p.runTime(final.Time), p.start, interrupted)
	res.Output = p.env.cfg.Output
	res.Grace = p.env.opts.StopGrace
	res.GC = readGC().since(p.gcStart)
	res.Cleanup = p.pool.cleanups.histogram()
	res.Pacer = pacerStats(p.pool.late, p.pool.recorders)
	return res
}

// recorderCount is how many recorders a phase's workers share (worker i
// records into recorder i mod the count): enough that the workers running
// at one instant, one per P, seldom share one, and no more. Each busy
// recorder holds two Sets of histograms of 270 KB each (a raw and an
// intended one per operation type): with 64 of them, 4096 workers
// allocated about 140 MB of histograms in a run's first seconds, and the
// garbage collections that growth set off held paced operations up by
// 10-30 ms (go tool trace); 8 recorders at 2 Ps allocate 18 MB.
func recorderCount(procs int) int { return max(8, 4*procs) }
