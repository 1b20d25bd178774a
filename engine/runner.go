package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/engine/workload"
)

// ErrCannotRepartition is returned by SetPartitions when the adapter
// cannot change its partition count.
var ErrCannotRepartition = errors.New("this adapter cannot change its partition count")

// Options are the parts of a run that are not properties.
type Options struct {
	// Info is copied into every report; Start is set by Run.
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
	// LoadFirst runs a load phase before the run phase of a "run" command
	// (the in-process store starts empty).
	LoadFirst bool
	// StopGrace is how long in-flight operations get after Stop before
	// their context is cancelled (default 2 s).
	StopGrace time.Duration
}

// Runner runs a workload against an adapter: it owns the workers, takes
// live controls and publishes Snapshots.
type Runner struct {
	cfg   *Config
	db    adapters.DB
	wl    workload.Workload
	opts  Options
	info  Info
	snaps chan *Snapshot
	host  *host.Sampler
	start time.Time

	mu         sync.Mutex
	threads    int
	target     float64
	partitions int
	paused     bool
	stopped    bool
	cur        *phase
	results    []*PhaseResult
	pending    []Event
	dropped    atomic.Int64

	stopCh      chan struct{}
	stopOnce    sync.Once
	interrupted atomic.Bool
}

// New prepares a run: it builds the workload on the adapter but sends it
// nothing yet.
func New(cfg *Config, db adapters.DB, opts Options) (*Runner, error) {
	r := &Runner{
		cfg:        cfg,
		db:         db,
		opts:       opts,
		info:       opts.Info,
		snaps:      make(chan *Snapshot, 512),
		host:       opts.Host,
		threads:    cfg.Threads,
		target:     cfg.Target,
		partitions: cfg.Partitions,
		stopCh:     make(chan struct{}),
	}
	if cfg.Workload == "core" {
		wl, err := newCoreWorkload(cfg, db)
		if err != nil {
			return nil, err
		}
		r.wl = wl
	} else {
		f, ok := workload.Lookup(cfg.Workload)
		if !ok {
			return nil, &adapters.ConfigError{Key: "workload", Value: cfg.Workload, Allowed: strings.Join(append([]string{"core"}, workload.Names()...), ", ")}
		}
		wl, err := f.New(cfg.Props, db)
		if err != nil {
			return nil, fmt.Errorf("workload %s: %w", cfg.Workload, err)
		}
		r.wl = wl
	}
	if cfg.Workload != "core" {
		// A workload other than YCSB's core one names its own mix.
		r.info.Mix = cfg.Workload
		if d, ok := r.wl.(workload.Describer); ok {
			r.info.Mix = d.Describe()
		}
	}
	if _, ok := r.wl.(workload.Partitioned); ok {
		r.info.CanRepartition = true
	} else if rp, ok := db.(adapters.Repartitioner); ok {
		r.partitions = rp.Partitions()
		r.info.CanRepartition = true
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

// Run runs the phases to completion, Stop or ctx cancellation, then closes
// the snapshot channel. It returns the phase results.
func (r *Runner) Run(ctx context.Context) ([]*PhaseResult, error) {
	defer close(r.snaps)
	if r.host == nil {
		r.host = host.NewSampler()
	}
	hctx, hcancel := context.WithCancel(context.Background())
	defer hcancel()
	go r.host.Run(hctx, r.cfg.StatusInterval)

	var phases []Phase
	switch {
	case r.cfg.Command == "load":
		phases = []Phase{PhaseLoad}
	case r.opts.LoadFirst:
		phases = []Phase{PhaseLoad, PhaseRun}
	default:
		phases = []Phase{PhaseRun}
	}
	for i, ph := range phases {
		res, err := r.runPhase(ctx, r.wl, ph, i == len(phases)-1)
		if res != nil {
			r.mu.Lock()
			r.results = append(r.results, res)
			r.mu.Unlock()
		}
		if err != nil {
			return r.Results(), err
		}
		r.mu.Lock()
		stopped := r.stopped
		r.mu.Unlock()
		if stopped || res == nil || res.Interrupted {
			break
		}
	}
	if f, ok := r.wl.(workload.Finisher); ok {
		fctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		final, err := f.Finish(fctx)
		cancel()
		if err != nil {
			return r.Results(), fmt.Errorf("workload %s: final check: %w", r.cfg.Workload, err)
		}
		r.mu.Lock()
		if n := len(r.results); n > 0 {
			r.results[n-1].Closing = &final
		}
		r.mu.Unlock()
	}
	return r.Results(), nil
}

// Interrupt ends the run like Stop, and marks the results as interrupted
// (a signal, not the planned end or the user's quit).
func (r *Runner) Interrupt() {
	r.interrupted.Store(true)
	r.Stop()
}

// Stop ends the run: workers finish their current operation, the final
// snapshot is published and Run returns.
func (r *Runner) Stop() {
	r.stopOnce.Do(func() { close(r.stopCh) })
	r.mu.Lock()
	r.stopped = true
	ph := r.cur
	r.mu.Unlock()
	if ph != nil {
		ph.stop()
	}
}

func (r *Runner) addEvent(kind, from, to, text string) Event {
	e := Event{At: time.Since(r.start), Kind: kind, From: from, To: to, Text: text}
	r.pending = append(r.pending, e)
	return e
}

// SetThreads changes the number of worker goroutines (1 to MaxThreads).
func (r *Runner) SetThreads(n int) error {
	if n < 1 || n > MaxThreads {
		return fmt.Errorf("threads: %d is out of range (1 to %d)", n, MaxThreads)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == r.threads {
		return nil
	}
	e := r.addEvent("threads", fmt.Sprint(r.threads), fmt.Sprint(n), fmt.Sprintf("threads %d→%d", r.threads, n))
	r.threads = n
	if r.cur != nil {
		r.cur.setThreads(n)
		r.cur.cut(e)
	}
	return nil
}

// SetTarget changes the total target rate in ops/s (0 = unlimited).
func (r *Runner) SetTarget(opsPerSec float64) error {
	if opsPerSec < 0 || opsPerSec > 1e12 || opsPerSec != opsPerSec {
		return fmt.Errorf("target: %v is out of range (0 = unlimited, up to 1e12)", opsPerSec)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if opsPerSec == r.target {
		return nil
	}
	e := r.addEvent("target", FormatTarget(r.target), FormatTarget(opsPerSec), fmt.Sprintf("target %s→%s", FormatTarget(r.target), FormatTarget(opsPerSec)))
	r.target = opsPerSec
	if r.cur != nil {
		r.cur.setTarget(opsPerSec)
		r.cur.cut(e)
	}
	return nil
}

// FormatTarget renders a target rate: "unlimited" or the number.
func FormatTarget(t float64) string {
	if t <= 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%.0f", t)
}

// SetPartitions asks the adapter to repartition (1 to MaxPartitions). It
// returns at once; the change is made in the background and recorded as an
// event when done.
func (r *Runner) SetPartitions(n int) error {
	if n < 1 || n > MaxPartitions {
		return fmt.Errorf("partitions: %d is out of range (1 to %d)", n, MaxPartitions)
	}
	type repart interface {
		SetPartitions(ctx context.Context, n int) error
	}
	var rp repart
	if wp, ok := r.wl.(workload.Partitioned); ok {
		rp = wp
	} else if ap, ok := r.db.(adapters.Repartitioner); ok {
		rp = ap
	} else {
		return ErrCannotRepartition
	}
	r.mu.Lock()
	if n == r.partitions {
		r.mu.Unlock()
		return nil
	}
	from := r.partitions
	r.partitions = n
	r.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		err := rp.SetPartitions(ctx, n)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			r.partitions = from
			if ap, ok := rp.(adapters.Repartitioner); ok {
				r.partitions = ap.Partitions()
			}
			r.addEvent("error", "", "", fmt.Sprintf("partitions %d→%d failed: %v", from, n, err))
			return
		}
		e := r.addEvent("partitions", fmt.Sprint(from), fmt.Sprint(n), fmt.Sprintf("partitions %d→%d", from, n))
		if r.cur != nil {
			r.cur.partitions.Store(int64(n))
			r.cur.cut(e)
		}
	}()
	return nil
}

// Pause holds all workers after their current operation.
func (r *Runner) Pause() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.paused {
		return
	}
	r.paused = true
	e := r.addEvent("pause", "", "", "paused")
	if r.cur != nil {
		r.cur.setPaused(true)
		r.cur.cut(e)
	}
}

// Resume lets paused workers go on; the pacing schedule restarts from now.
func (r *Runner) Resume() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.paused {
		return
	}
	r.paused = false
	e := r.addEvent("resume", "", "", "resumed")
	if r.cur != nil {
		r.cur.setPaused(false)
		r.cur.cut(e)
	}
}

// Mark records a labelled mark and starts a new segment.
func (r *Runner) Mark(label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if label == "" {
		label = "mark"
	}
	e := r.addEvent("mark", "", "", label)
	if r.cur != nil {
		r.cur.cut(e)
	}
}

// NewSegment starts a new segment with nothing changed.
func (r *Runner) NewSegment() {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.addEvent("segment", "", "", "new segment")
	if r.cur != nil {
		r.cur.cut(e)
	}
}

var _ Controller = (*Runner)(nil)

// worker is one worker goroutine's handle.
type worker struct {
	id   int
	stop atomic.Bool
}

// phase is one load or run phase: its workers, measurements and segments.
type phase struct {
	r        *Runner
	name     Phase
	wl       workload.Workload
	opNames  []string
	last     bool
	start    time.Time
	base     int64 // nanotime at the phase start: now() counts from it
	opsTotal int64

	// Budget of operations left to hand out (limited phases).
	limited bool
	budget  atomic.Int64

	stopping   atomic.Bool
	paused     atomic.Bool
	epoch      atomic.Int64 // bumped when pacing must be re-planned
	tickNs     atomic.Int64 // per-worker ns between operations, 0 = unpaced
	partitions atomic.Int64
	targetEver atomic.Bool

	wakeMu sync.Mutex
	wake   chan struct{} // closed on every control change

	opCtx    context.Context
	opCancel context.CancelFunc

	wmu       sync.Mutex
	workers   []*worker
	recorders []*measure.Recorder
	active    atomic.Int64
	wg        sync.WaitGroup
	doneCh    chan struct{}
	doneOnce  sync.Once

	// Sampler state (sampler goroutine only, except cuts under smu).
	smu         sync.Mutex
	cutReqs     []cutReq
	spare       *measure.Set
	interval    *measure.Set
	cumulative  *measure.Set
	seg         *segmentAcc
	segments    []Segment
	lastTick    time.Time
	seq         int
	underTarget int
	lagGrowing  int
	lastLag     int64
	cpuSum      float64
	cpuN        int
	lastSnap    *Snapshot
	endTime     time.Time // when the workers stopped (zero while running); under smu

	// events are the events published in this phase's snapshots, for the
	// reports; under r.mu.
	events []Event
}

// runTime is the phase's run time: until the workers stopped, or until at
// for a phase still running. Caller holds smu.
func (p *phase) runTime(at time.Time) time.Duration {
	if !p.endTime.IsZero() {
		return p.endTime.Sub(p.start)
	}
	return at.Sub(p.start)
}

type cutReq struct {
	e       Event
	threads int
	target  float64
}

type segmentAcc struct {
	Segment
	sums   map[string]float64
	first  map[string]float64 // workload counters at the segment's start
	set    *measure.Set
	cpuSum float64
	cpuN   int
	startT time.Time
}

func (p *phase) now() int64 { return nanotime() - p.base }

func (r *Runner) runPhase(ctx context.Context, wl workload.Workload, name Phase, last bool) (*PhaseResult, error) {
	p := &phase{
		r:          r,
		name:       name,
		wl:         wl,
		opNames:    wl.OpNames(),
		last:       last,
		start:      time.Now(),
		wake:       make(chan struct{}),
		doneCh:     make(chan struct{}),
		spare:      &measure.Set{},
		interval:   &measure.Set{},
		cumulative: &measure.Set{},
	}
	p.base = nanotime()
	p.lastTick = p.start
	p.opCtx, p.opCancel = context.WithCancel(context.Background())
	defer p.opCancel()
	switch name {
	case PhaseLoad:
		p.limited = true
		p.opsTotal = r.cfg.InsertCount
	case PhaseRun:
		if r.cfg.OperationCount > 0 {
			p.limited = true
			p.opsTotal = r.cfg.OperationCount
		}
	}
	p.budget.Store(p.opsTotal)
	nrec := max(64, 8*runtime.GOMAXPROCS(0))
	p.recorders = make([]*measure.Recorder, nrec)
	for i := range p.recorders {
		p.recorders[i] = measure.NewRecorder()
	}

	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return nil, nil
	}
	st, hasStarter := wl.(workload.Starter)
	stopped := false
	stopWorkload := func() {
		if !hasStarter || stopped {
			return
		}
		stopped = true
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = st.Stop(sctx)
	}
	if hasStarter {
		if err := st.Start(ctx, string(name), r.partitions); err != nil {
			r.mu.Unlock()
			return nil, fmt.Errorf("%s phase: start: %w", name, err)
		}
		defer stopWorkload()
	}
	r.cur = p
	p.partitions.Store(int64(r.partitions))
	p.setTarget(r.target)
	p.paused.Store(r.paused)
	e := r.addEvent("phase", "", string(name), string(name)+" phase")
	p.seg = p.newSegment(e, r.threads, r.target)
	p.setThreads(r.threads)
	r.mu.Unlock()

	if p.limited && p.opsTotal == 0 {
		p.finish()
	}
	for _, h := range r.opts.OnPhase {
		h(name)
	}

	var deadline <-chan time.Time
	if r.cfg.MaxExecutionTime > 0 && name == PhaseRun {
		t := time.NewTimer(r.cfg.MaxExecutionTime)
		defer t.Stop()
		deadline = t.C
	}
	tick := time.NewTicker(r.cfg.StatusInterval)
	defer tick.Stop()
	interrupted := false
loop:
	for {
		select {
		case <-tick.C:
			p.sample(false)
		case <-p.doneCh:
			break loop
		case <-deadline:
			p.stop()
			break loop
		case <-r.stopCh:
			interrupted = r.interrupted.Load()
			p.stop()
			break loop
		case <-ctx.Done():
			interrupted = true
			p.stop()
			break loop
		}
	}
	// Let in-flight operations finish; cancel them after the grace time.
	p.stop()
	waited := make(chan struct{})
	go func() { p.wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(r.opts.StopGrace):
		p.opCancel()
		<-waited
	}
	// The run time ends when the workers have stopped, not after the
	// workload's drain below.
	p.smu.Lock()
	p.endTime = time.Now()
	p.smu.Unlock()
	// The workload's own goroutines drain (last batches, consumers) before
	// the final snapshot, so that it holds everything.
	stopWorkload()
	final := p.sample(true)
	r.mu.Lock()
	r.cur = nil
	r.mu.Unlock()
	res := p.result(final, interrupted)
	return res, nil
}

// setThreads starts or stops workers so that n run. Caller holds r.mu.
func (p *phase) setThreads(n int) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	// p.workers holds the running workers only: a stopped one is dropped
	// here when it is told to stop, and finishes its operation on its own.
	for len(p.workers) > n {
		w := p.workers[len(p.workers)-1]
		w.stop.Store(true)
		p.workers = p.workers[:len(p.workers)-1]
	}
	for len(p.workers) < n {
		id := len(p.workers)
		w := &worker{id: id}
		ri := id % len(p.recorders)
		p.workers = append(p.workers, w)
		p.wg.Add(1)
		p.active.Add(1)
		go p.runWorker(w, p.recorders[ri])
	}
	p.replanTarget(p.r.target, n)
	p.wakeAll()
}

// setTarget re-plans pacing for a new total target. Caller holds r.mu.
func (p *phase) setTarget(t float64) {
	if t > 0 {
		p.targetEver.Store(true)
	}
	p.replanTarget(t, p.r.threads)
	p.wakeAll()
}

func (p *phase) replanTarget(t float64, n int) {
	if t > 0 && n > 0 {
		p.tickNs.Store(int64(float64(n) * 1e9 / t))
	} else {
		p.tickNs.Store(0)
	}
	p.epoch.Add(1)
}

func (p *phase) setPaused(v bool) {
	p.paused.Store(v)
	if !v {
		p.epoch.Add(1)
	}
	p.wakeAll()
}

func (p *phase) wakeAll() {
	p.wakeMu.Lock()
	close(p.wake)
	p.wake = make(chan struct{})
	p.wakeMu.Unlock()
}

func (p *phase) wakeCh() <-chan struct{} {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	return p.wake
}

func (p *phase) stop() {
	if p.stopping.Swap(true) {
		return
	}
	p.wakeAll()
}

func (p *phase) finish() {
	p.doneOnce.Do(func() { close(p.doneCh) })
}

// claim takes up to n operations from the budget.
func (p *phase) claim(n int64) int64 {
	for {
		b := p.budget.Load()
		if b <= 0 {
			return 0
		}
		take := min(n, b)
		if p.budget.CompareAndSwap(b, b-take) {
			return take
		}
	}
}

const claimChunk = 64

// wstate is one worker goroutine's private state.
type wstate struct {
	w     *worker
	rec   *measure.Recorder
	cw    workload.Worker
	ctx   context.Context
	local int64 // operations claimed from the budget but not yet done

	epoch      int64
	tick       int64 // ns between this worker's operations, 0 = unpaced
	schedStart int64
	schedDone  int64
	timer      *time.Timer

	sub   workload.SubRecorder
	limit func(int) int
	clock func() int64 // p.now, bound once: a method value allocates
}

func (p *phase) newWState(w *worker, rec *measure.Recorder) *wstate {
	ws := &wstate{w: w, rec: rec, ctx: p.opCtx, epoch: -1, clock: p.now}
	ws.cw = p.wl.NewWorker(uint64(w.id)*7919 + uint64(time.Now().UnixNano()))
	ws.sub = func(op int, start, end int64, err error) {
		set := rec.Lock()
		if err != nil {
			set.Record(measure.Slot(op, measure.Failed), end-start)
			set.AddError(op, adapters.Kind(err), 1)
		} else {
			set.Record(measure.Slot(op, measure.OK), end-start)
		}
		rec.Unlock()
	}
	ws.limit = func(want int) int {
		if !p.limited {
			return want
		}
		if ws.local == 0 {
			ws.local = p.claim(max(claimChunk, int64(want)))
		}
		got := min(int64(want), ws.local)
		ws.local -= got
		return int(got)
	}
	return ws
}

func (p *phase) runWorker(w *worker, rec *measure.Recorder) {
	defer p.wg.Done()
	ws := p.newWState(w, rec)
	defer func() {
		if ws.local > 0 {
			p.budget.Add(ws.local)
		}
		if p.active.Add(-1) == 0 && (p.stopping.Load() || (p.limited && p.budget.Load() <= 0)) {
			p.finish()
		}
	}()
	for p.step(ws) {
	}
}

// step is one turn of a worker's loop: wait for the pacer slot, run one
// operation (or load batch), record it. It returns false when the worker
// must exit. This is the engine's hot path.
func (p *phase) step(ws *wstate) bool {
	if ws.w.stop.Load() || p.stopping.Load() {
		return false
	}
	if p.paused.Load() {
		ch := p.wakeCh()
		if p.paused.Load() && !p.stopping.Load() && !ws.w.stop.Load() {
			<-ch
		}
		return true
	}
	if p.limited && p.name == PhaseRun && ws.local == 0 {
		ws.local = p.claim(claimChunk)
		if ws.local == 0 {
			return false
		}
	}
	// Pacing: the schedule restarts whenever the plan changes, so a
	// change never leaves a stale plan to catch up with.
	var intended int64
	if e := p.epoch.Load(); e != ws.epoch {
		ws.epoch = e
		ws.tick = p.tickNs.Load()
		ws.schedStart = p.now()
		ws.schedDone = 0
	}
	tick := ws.tick
	if tick > 0 {
		intended = ws.schedStart + ws.schedDone*tick
		ws.schedDone++
		if d := intended - p.now(); d > 0 {
			// Go's timers fire on a millisecond grid here (a 20 µs sleep
			// takes ~1 ms), which would add up to a millisecond of client
			// slop to every latency measured from the intended start. Long
			// waits use a timer (interruptible by a control change) up to
			// the last stretch; the last stretch is a nanosleep system call
			// (~70 µs slack).
			if d > int64(precisePacing) {
				ch := p.wakeCh()
				if p.epoch.Load() != ws.epoch {
					ws.schedDone--
					return true
				}
				wait := time.Duration(d) - precisePacing
				if ws.timer == nil {
					ws.timer = time.NewTimer(wait)
				} else {
					ws.timer.Reset(wait)
				}
				select {
				case <-ws.timer.C:
				case <-ch:
					ws.timer.Stop()
					ws.schedDone--
					return true
				}
				d = intended - p.now()
			}
			if d > 0 {
				sleepPrecise(time.Duration(d))
			}
		}
	}
	start := p.now()
	var op, n int
	var err error
	if p.name == PhaseLoad {
		n, err = ws.cw.Load(ws.ctx, ws.limit)
		op = p.wl.LoadOp()
		if n == 0 {
			return false
		}
	} else {
		op, n, err = ws.cw.Transaction(ws.ctx, ws.clock, ws.sub)
		if p.limited {
			ws.local--
		}
	}
	end := p.now()
	set := ws.rec.Lock()
	set.Ops += int64(n)
	if err != nil {
		set.RecordN(measure.Slot(op, measure.Failed), end-start, int64(n))
		kind := adapters.Kind(err)
		set.AddError(op, kind, int64(n))
		if kind == adapters.KindIntegrity {
			set.Integrity++
		}
		if tick > 0 {
			set.RecordN(measure.Slot(op, measure.FailedIntended), end-intended, int64(n))
		}
	} else {
		set.RecordN(measure.Slot(op, measure.OK), end-start, int64(n))
		if tick > 0 {
			set.RecordN(measure.Slot(op, measure.OKIntended), end-intended, int64(n))
		}
	}
	if tick > 0 {
		if lag := start - intended; lag > set.MaxLag {
			set.MaxLag = lag
		}
	}
	ws.rec.Unlock()
	return err == nil || ws.ctx.Err() == nil
}

// cut closes the current segment at a control change. Caller holds r.mu.
func (p *phase) cut(e Event) {
	p.smu.Lock()
	p.cutReqs = append(p.cutReqs, cutReq{e: e, threads: p.r.threads, target: p.r.target})
	p.smu.Unlock()
	// Drain now so that the closing segment holds what ran before the
	// change; the sampler goroutine does it to keep one writer.
	p.drainInto(true)
}

func (p *phase) newSegment(e Event, threads int, target float64) *segmentAcc {
	s := &segmentAcc{set: &measure.Set{}, startT: time.Now()}
	s.Index = len(p.segments) + 1
	s.Start = time.Since(p.r.start)
	s.Threads = threads
	s.Partitions = int(p.partitions.Load())
	s.Target = target
	s.Label = e.String()
	s.Open = true
	if c, ok := p.wl.(workload.Counters); ok {
		s.first = c.Counters()
	}
	return s
}

// drainInto swaps every recorder's Set and merges it into the interval,
// cumulative and segment sets; with cutting, it also applies pending
// segment cuts.
func (p *phase) drainInto(cutting bool) {
	p.smu.Lock()
	defer p.smu.Unlock()
	for _, rec := range p.recorders {
		if rec == nil {
			continue
		}
		old := rec.Swap(p.spare)
		if old.Empty() {
			p.spare = old
			continue
		}
		p.interval.Merge(old)
		p.cumulative.Merge(old)
		p.seg.set.Merge(old)
		old.Reset()
		p.spare = old
	}
	if !cutting {
		return
	}
	for _, c := range p.cutReqs {
		p.closeSegmentLocked()
		p.seg = p.newSegment(c.e, c.threads, c.target)
	}
	p.cutReqs = p.cutReqs[:0]
}

func (p *phase) closeSegmentLocked() {
	s := p.seg
	s.End = time.Since(p.r.start)
	s.Open = false
	if s.cpuN == 0 && p.r.host != nil {
		// Shorter than an interval: one reading of its own.
		if hs := p.r.host.Sample(); hs.Cores > 0 {
			s.cpuSum, s.cpuN = hs.CPUTotal, 1
		}
	}
	p.fillSegment(s)
	if s.Ops > 0 || s.Errors > 0 {
		s.Index = len(p.segments) + 1
		p.segments = append(p.segments, s.Segment)
	}
}

func (p *phase) fillSegment(s *segmentAcc) {
	dur := time.Since(s.startT).Seconds()
	if !s.Open {
		dur = (s.End - s.Start).Seconds()
	}
	s.Ops = s.set.Ops
	if dur > 0 {
		s.OpsPerSec = float64(s.Ops) / dur
	}
	var errs int64
	for _, m := range s.set.Errors {
		for _, n := range m {
			errs += n
		}
	}
	s.Errors = errs
	variant := measure.OK
	if s.Target > 0 && p.r.cfg.MeasurementIntvl != "op" {
		variant = measure.OKIntended
	}
	h := mergeVariant(s.set, variant)
	if h != nil && h.TotalCount() > 0 {
		s.P50 = time.Duration(h.ValueAtQuantile(50))
		s.P95 = time.Duration(h.ValueAtQuantile(95))
		s.P99 = time.Duration(h.ValueAtQuantile(99))
	}
	if s.cpuN > 0 {
		s.CPU = s.cpuSum / float64(s.cpuN)
	}
	sums := s.sums
	if c, ok := p.wl.(workload.Counters); ok && s.first != nil {
		now := c.Counters()
		sums = make(map[string]float64, len(now))
		for k, v := range now {
			sums[k] = v - s.first[k]
		}
	}
	if len(sums) > 0 && dur > 0 {
		s.Extra = make(map[string]float64, len(sums))
		for k, v := range sums {
			s.Extra[k+"_per_sec"] = v / dur
		}
	}
}

// sample publishes one snapshot: the interval since the last one.
func (p *phase) sample(final bool) *Snapshot {
	r := p.r
	// Read under r.mu before taking p.smu: control calls hold r.mu and
	// then take p.smu (cut), so the other order would deadlock.
	r.mu.Lock()
	target := r.target
	r.mu.Unlock()
	p.drainInto(true)
	now := time.Now()
	hs := r.host.Latest()
	if now.Sub(hs.Time) > r.cfg.StatusInterval {
		// The host sampler has not reported in this interval yet (the
		// first one): take a reading now.
		hs = r.host.Sample()
	}

	p.smu.Lock()
	ivl := now.Sub(p.lastTick)
	ivlStart := p.lastTick
	p.lastTick = now
	p.seq++
	intended := p.targetEver.Load() && r.cfg.MeasurementIntvl != "op"
	snap := &Snapshot{
		Seq:      p.seq,
		Time:     now,
		Elapsed:  now.Sub(r.start),
		Interval: ivl,
		Phase:    p.name,
		OpsTotal: p.opsTotal,
		Progress: -1,
		Host:     hs,
		Done:     final && p.last,
	}
	if hs.Cores > 0 && !p.paused.Load() {
		p.seg.cpuSum += hs.CPUTotal
		p.seg.cpuN++
		p.cpuSum += hs.CPUTotal
		p.cpuN++
	}
	var ws workload.Sample
	if sm, ok := p.wl.(workload.Sampler); ok {
		ws = sm.Sample(ivl)
		snap.Extra = ws.View
		for k, v := range ws.Delta {
			if p.seg.sums == nil {
				p.seg.sums = map[string]float64{}
			}
			p.seg.sums[k] += v
		}
	}
	snap.Ops, snap.Total = buildOps(p.opNames, p.interval, p.cumulative, ivl, now.Sub(p.start), intended, r.cfg.Percentiles)
	snap.OpsDone = p.cumulative.Ops
	switch {
	case p.opsTotal > 0:
		snap.Progress = min(1, float64(snap.OpsDone)/float64(p.opsTotal))
	case r.cfg.MaxExecutionTime > 0 && p.name == PhaseRun:
		snap.Progress = min(1, float64(now.Sub(p.start))/float64(r.cfg.MaxExecutionTime))
	}
	if final && !snap.Done {
		snap.Progress = 1
	}
	snap.IntegrityErrors = p.cumulative.Integrity
	// Segments: closed ones plus the open one.
	if final {
		p.closeSegmentLocked()
		snap.Segments = markSegments(append([]Segment(nil), p.segments...))
	} else {
		cur := *p.seg
		p.fillSegment(&cur)
		cur.End = snap.Elapsed
		cur.Index = len(p.segments) + 1
		snap.Segments = markSegments(append(append([]Segment(nil), p.segments...), cur.Segment))
	}
	snap.Warnings = append(p.warnings(snap, p.interval, target), ws.Warnings...)
	p.lastSnap = snap
	for _, h := range r.opts.OnInterval {
		h(p.name, p.opNames, ivlStart, now, p.interval)
	}
	p.interval.Reset()
	p.smu.Unlock()

	r.mu.Lock()
	snap.Threads = r.threads
	snap.Partitions = r.partitions
	snap.Target = r.target
	snap.Paused = r.paused
	snap.Events = r.pending
	p.events = append(p.events, r.pending...)
	r.pending = nil
	r.mu.Unlock()

	for _, h := range r.opts.OnSnapshot {
		h(snap)
	}
	select {
	case r.snaps <- snap:
	default:
		// The reader is far behind: drop the oldest to keep the newest.
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
	return snap
}

// warnings computes the client-bottleneck warnings for this interval.
func (p *phase) warnings(snap *Snapshot, ivl *measure.Set, target float64) []string {
	var out []string
	if p.paused.Load() {
		p.underTarget, p.lagGrowing = 0, 0
		return nil
	}
	rate := snap.Total.Interval.Rate
	if target > 0 && rate < 0.95*target {
		p.underTarget++
	} else {
		p.underTarget = 0
	}
	if p.underTarget >= 3 {
		out = append(out, fmt.Sprintf("client bottleneck: %.0f of %.0f target ops/s for %d intervals (more threads?)", rate, target, p.underTarget))
	}
	if target > 0 && ivl.MaxLag > p.lastLag && ivl.MaxLag > int64(10*time.Millisecond) {
		p.lagGrowing++
	} else if ivl.MaxLag <= p.lastLag {
		p.lagGrowing = 0
	}
	p.lastLag = ivl.MaxLag
	if p.lagGrowing >= 3 {
		out = append(out, fmt.Sprintf("client bottleneck: schedule lag growing (%v behind the target schedule)", time.Duration(ivl.MaxLag).Round(time.Millisecond)))
	}
	if snap.Host.Cores > 0 && snap.Host.CPUTotal > 90 {
		out = append(out, fmt.Sprintf("client bottleneck: client CPU at %.0f %%", snap.Host.CPUTotal))
	}
	return out
}

func (p *phase) result(final *Snapshot, interrupted bool) *PhaseResult {
	p.r.mu.Lock() // before smu: the lock order of the control calls
	events := append([]Event(nil), p.events...)
	p.r.mu.Unlock()
	p.smu.Lock()
	defer p.smu.Unlock()
	res := &PhaseResult{
		Phase:       p.name,
		Start:       p.start,
		RunTime:     p.runTime(final.Time),
		Set:         p.cumulative,
		Final:       final,
		Segments:    final.Segments,
		Interrupted: interrupted,
		Intended:    p.targetEver.Load() && p.r.cfg.MeasurementIntvl != "op",
		Percentiles: p.r.cfg.Percentiles,
		Measurement: p.r.cfg.MeasurementIntvl,
		OpNames:     p.opNames,
		Events:      events,
	}
	if p.cpuN > 0 {
		res.MeanCPU = p.cpuSum / float64(p.cpuN)
	}
	return res
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
	last := p.lastSnap
	cum := p.cumulative.Clone()
	p.smu.Unlock()
	if last == nil {
		return out
	}
	res := p.result(last, true)
	res.Set = cum
	return append(out, res)
}

// PhaseResult is what a finished phase measured, for reports.
type PhaseResult struct {
	Phase       Phase
	Start       time.Time
	RunTime     time.Duration
	Set         *measure.Set // cumulative measurements
	Final       *Snapshot
	Segments    []Segment
	Interrupted bool
	Intended    bool // intended-latency histograms were recorded
	Measurement string
	Percentiles []float64
	MeanCPU     float64
	// OpNames names the operation types of Set by index.
	OpNames []string
	// Closing is the workload's closing section (last phase only), if any.
	Closing *workload.Final
	// Events are the changes, marks and phase starts published during the
	// phase, in order, timed from the start of the run.
	Events []Event
}

// Throughput is operations per second over the phase.
func (r *PhaseResult) Throughput() float64 {
	if r.RunTime <= 0 {
		return 0
	}
	return float64(r.Set.Ops) / r.RunTime.Seconds()
}
