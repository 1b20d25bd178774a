package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload"
)

// ErrCannotRepartition is returned by SetPartitions when the adapter
// cannot change its partition count.
var ErrCannotRepartition = errors.New("this adapter cannot change its partition count")

// Options are the parts of a run that are not properties.
type Options struct {
	// Info is copied into every report; Start is set by New.
	Info Info
	// OnSnapshot hooks are called synchronously by the sampler with every
	// snapshot (exports, status lines). Keep them quick.
	OnSnapshot []func(*Snapshot)
	// OnInterval hooks receive each interval's merged measurements (for
	// HDR interval logs). The Set must not be kept.
	OnInterval []func(phase Phase, names []string, start, end time.Time, set *measure.Set)
	// OnPhase hooks are called when a phase starts, before its workers.
	OnPhase []func(Phase)
	// Host samples the client host; nil creates one.
	Host *host.Sampler
	// OnIntervalData hooks get each snapshot with its interval's raw
	// measurements, theirs to keep (an agent sends them to its
	// coordinator), before the OnSnapshot hooks.
	OnIntervalData []func(*Snapshot, *IntervalData)
	// StopGrace is how long in-flight operations get after Stop before
	// their context is cancelled (default 2 s).
	StopGrace time.Duration
}

// Runner runs a workload against an adapter: it owns the workers, takes
// live Controls and publishes Snapshots. It is the one owner of the
// control state; the running phase gets a copy on every change.
type Runner struct {
	cfg       *Config
	db        adapters.DB
	wl        workload.Workload
	opts      Options
	info      Info
	snaps     chan *Snapshot
	host      *host.Sampler
	start     time.Time
	loadFirst bool

	mu        sync.Mutex
	ctl       Controls
	wantParts int // the partition count asked for last (ctl has the one in force)
	stopped   bool
	cur       *phase
	results   []*PhaseResult
	pending   []Event // events while no phase runs
	dropped   atomic.Int64

	stopCh      chan struct{}
	stopOnce    sync.Once
	interrupted atomic.Bool

	betweenPhases func() // a test's hook: after a phase another follows
}

// prepareTimeout bounds an adapter's Prepare (a table's creation).
const prepareTimeout = time.Minute

// New prepares a run: it builds the workload on the adapter, and lets an
// adapter that implements adapters.Preparer set its store up for the
// run's first phase, but sends the workload's operations nothing yet.
func New(cfg *Config, db adapters.DB, opts Options) (*Runner, error) {
	f, ok := workload.Lookup(cfg.Workload)
	if !ok {
		return nil, &adapters.ConfigError{Key: "workload", Value: cfg.Workload, Allowed: strings.Join(workloadNames(), ", ")}
	}
	wl, err := f.New(cfg.Command, cfg.Props, db)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", cfg.Workload, err)
	}
	r := &Runner{
		cfg: cfg, db: db, wl: wl, opts: opts, info: opts.Info,
		snaps:  make(chan *Snapshot, 512),
		host:   opts.Host,
		ctl:    Controls{Threads: cfg.Threads, Target: cfg.Target, Partitions: cfg.Partitions},
		stopCh: make(chan struct{}),
	}
	if r.host == nil {
		r.host = host.NewSampler()
	}
	// The phase the run does (dotransactions may have changed it).
	if cfg.Command != "" {
		r.info.Command = cfg.Command
	}
	if cfg.NICSpeedMbps > 0 {
		r.host.SetLinkSpeed(cfg.NICSpeedMbps) // -p host.nicspeed
	}
	r.info.RateUnit, r.info.OpUnits = f.RateUnit, f.OpUnits
	if r.info.Mix == "" {
		r.info.Mix = cfg.Workload
		if d, ok := wl.(workload.Describer); ok {
			r.info.Mix = d.Describe()
		}
	}
	if _, ok := wl.(workload.Partitioned); ok {
		r.info.CanRepartition = true
		if pw, ok := wl.(workload.PartitionWatcher); ok {
			pw.WatchPartitions(r.followPartitions, r.partitionsLater)
		}
	} else if rp, ok := db.(adapters.Repartitioner); ok {
		r.ctl.Partitions = rp.Partitions()
		r.info.CanRepartition = true
	}
	r.wantParts = r.ctl.Partitions
	// A run against a store that starts empty (in-process) loads first.
	_, loads := wl.(workload.Loader)
	r.loadFirst = cfg.Command == "run" && loads && (adapters.CapabilitiesOf(db).StartsEmpty || cfg.LoadBeforeRun)
	// An adapter that sets its store up (a SQL table) does it now, before
	// anything is measured: created for a load, checked for a run.
	if p, ok := db.(adapters.Preparer); ok {
		pctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
		err := p.Prepare(pctx, r.phases()[0] == PhaseLoad)
		cancel()
		if err != nil {
			return nil, err
		}
	}
	// A store's own partitions, fixed for the run (a table's), are the
	// run's partitions as the screen and reports show them.
	if _, ok := db.(adapters.Repartitioner); !ok && !r.info.CanRepartition {
		if p, ok := db.(adapters.Partitioned); ok && p.Partitions() > 0 {
			r.ctl.Partitions = p.Partitions()
			r.wantParts = r.ctl.Partitions
		}
	}
	if r.opts.StopGrace == 0 {
		r.opts.StopGrace = 2 * time.Second
	}
	// The run's clock starts here rather than in Run, so that Info can be
	// read (by the screen) while Run starts without a race.
	r.start = time.Now()
	r.info.Start = r.start
	return r, nil
}

// Interval is the status interval: one snapshot each.
func (r *Runner) Interval() time.Duration { return r.cfg.StatusInterval }

// Info returns the run's static description.
func (r *Runner) Info() Info { return r.info }

// Snapshots is the channel of snapshots, closed after the last one. A
// reader that falls more than 512 snapshots behind loses the oldest.
func (r *Runner) Snapshots() <-chan *Snapshot { return r.snaps }

// Results returns the phases run so far (after Run returns: all of them).
func (r *Runner) Results() []*PhaseResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*PhaseResult(nil), r.results...)
}

// phases lists the phases of this run in order.
func (r *Runner) phases() []Phase {
	switch {
	case r.cfg.Command == "load":
		return []Phase{PhaseLoad}
	case r.loadFirst:
		return []Phase{PhaseLoad, PhaseRun}
	}
	return []Phase{PhaseRun}
}

// Run runs the phases to completion, Stop or ctx cancellation, then closes
// the snapshot channel. It returns the phase results.
func (r *Runner) Run(ctx context.Context) ([]*PhaseResult, error) {
	defer close(r.snaps)
	hctx, hcancel := context.WithCancel(context.Background())
	defer hcancel()
	go r.host.Run(hctx, r.cfg.StatusInterval)

	phases := r.phases()
	for i, ph := range phases {
		res, err := r.runPhase(ctx, ph, i == len(phases)-1)
		if res != nil {
			r.mu.Lock()
			r.results = append(r.results, res)
			r.mu.Unlock()
		}
		if err != nil {
			return r.Results(), err
		}
		if r.betweenPhases != nil && i < len(phases)-1 {
			r.betweenPhases()
		}
		r.mu.Lock()
		stopped := r.stopped
		r.mu.Unlock()
		if stopped || res == nil || res.Interrupted {
			break
		}
	}
	r.markCutShort(ctx, len(phases))
	if err := r.finish(); err != nil {
		return r.Results(), err
	}
	return r.Results(), nil
}

// markCutShort marks the last result interrupted when a signal stopped
// the run between its phases (after the load, before the run phase): the
// load ended whole, but the run did not, and its report says so as one
// stopped inside a phase does.
func (r *Runner) markCutShort(ctx context.Context, phases int) {
	if !r.interrupted.Load() && ctx.Err() == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.results); n > 0 && n < phases {
		r.results[n-1].Interrupted = true
	}
}

// finish runs the workload's closing check and attaches it to the last
// phase.
func (r *Runner) finish() error {
	f, ok := r.wl.(workload.Finisher)
	if !ok {
		return nil
	}
	fctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	final, err := f.Finish(fctx)
	cancel()
	if err != nil {
		return fmt.Errorf("workload %s: final check: %w", r.cfg.Workload, err)
	}
	r.mu.Lock()
	if n := len(r.results); n > 0 {
		r.results[n-1].Closing = &final
	}
	r.mu.Unlock()
	return nil
}

// runPhase runs one phase: the workload's own goroutines, the workers, the
// sampling loop, the drain and the final snapshot.
func (r *Runner) runPhase(ctx context.Context, name Phase, last bool) (*PhaseResult, error) {
	env := runEnv{cfg: r.cfg, runStart: r.start, host: r.host, opts: &r.opts, publish: r.publish}
	if l, ok := r.wl.(workload.Loader); ok {
		env.loadCount = l.LoadCount()
	}
	p := newPhase(env, r.wl, name, last)
	r.mu.Lock()
	stopped, parts := r.stopped, r.ctl.Partitions
	r.mu.Unlock()
	if stopped {
		return nil, nil
	}
	stopWorkload, err := startWorkload(ctx, r.wl, name, parts)
	if err != nil {
		return nil, err
	}
	defer stopWorkload()

	r.mu.Lock()
	r.cur = p
	pending := r.pending
	r.pending = nil
	p.begin(r.ctl, pending, r.event("phase", "", string(name), string(name)+" phase"))
	r.mu.Unlock()
	for _, h := range r.opts.OnPhase {
		h(name)
	}

	p.loop(ctx, r.stopCh)
	p.drainWorkers(r.opts.StopGrace)
	// The workload's own goroutines drain (last batches, consumers) before
	// the final snapshot, so that it holds everything.
	stopWorkload()
	final := p.sample(true)
	r.mu.Lock()
	r.cur = nil
	r.mu.Unlock()
	return p.result(final, r.interrupted.Load() || ctx.Err() != nil), nil
}

// startWorkload starts a workload's own goroutines, if it has any, and
// returns the function that stops them (once).
func startWorkload(ctx context.Context, wl workload.Workload, name Phase, partitions int) (func(), error) {
	st, ok := wl.(workload.Starter)
	if !ok {
		return func() {}, nil
	}
	if err := st.Start(ctx, string(name), partitions); err != nil {
		return nil, fmt.Errorf("%s phase: start: %w", name, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			bound := 30 * time.Second
			if d, ok := wl.(workload.Drainer); ok && d.DrainTime() > 0 {
				bound = d.DrainTime()
			}
			sctx, cancel := context.WithTimeout(context.Background(), bound)
			defer cancel()
			_ = st.Stop(sctx)
		})
	}, nil
}

// publish sends a snapshot to the channel; a reader far behind loses the
// oldest.
func (r *Runner) publish(snap *Snapshot) {
	select {
	case r.snaps <- snap:
		return
	default:
	}
	select {
	case <-r.snaps:
		r.dropped.Add(1)
	default:
	}
	select {
	case r.snaps <- snap:
	default:
	}
}

// Current returns the results so far including the phase in progress
// (measured up to its last snapshot), for saving a report mid-run.
func (r *Runner) Current() []*PhaseResult {
	r.mu.Lock()
	out := append([]*PhaseResult(nil), r.results...)
	p := r.cur
	r.mu.Unlock()
	if p == nil {
		return out
	}
	p.smu.Lock()
	last := p.asm.Last()
	cum := p.asm.Cumulative().Clone()
	p.smu.Unlock()
	if last == nil {
		return out
	}
	res := p.result(last, true)
	res.Set = cum
	return append(out, res)
}
