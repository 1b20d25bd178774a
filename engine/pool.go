package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
	"benchtop/engine/measure"
	"benchtop/workload"
)

// worker is one worker goroutine's handle.
type worker struct {
	id   int
	stop atomic.Bool
}

// pool is a phase's worker goroutines and what they share on the hot
// path: the stop and pause flags, the pacing plan, the operation budget and
// the recorders they measure into.
type pool struct {
	name    Phase
	wl      workload.Workload
	base    int64 // nanotime at the phase start: now() counts from it
	limited bool  // an operation budget applies
	budget  atomic.Int64

	stopping atomic.Bool
	paused   atomic.Bool
	plan     plan
	waker    *waker // wakes paced workers at their intended starts

	wakeMu sync.Mutex
	wake   chan struct{} // closed on every control change

	opCtx    context.Context
	opCancel context.CancelFunc
	// cutAt is when the grace after a stop ended and opCtx was cancelled
	// (now()'s clock; 0: not yet): an operation that ends from then on
	// was cut off, and is counted apart (measure.Set.CutOff).
	cutAt atomic.Int64
	// lastEnd is when the last operation counted after a stop ended
	// (now()'s clock; 0: none): the phase's run time extends to it, so
	// that the operations in flight at the stop count with their time.
	lastEnd atomic.Int64

	wmu       sync.Mutex
	workers   []*worker // the running workers only
	recorders []*measure.Recorder
	late      []lateness // the pacer's lateness, one per recorder, under its lock
	active    atomic.Int64
	wg        sync.WaitGroup

	// onIdle is called once when the last worker exits after a stop or
	// when the budget is spent.
	onIdle func()

	cleanups cleanups // each worker's cleanup, for [CLEANUP]
}

func (p *pool) now() int64 { return nanotime() - p.base }

// resize starts or stops workers so that n run.
func (p *pool) resize(n int) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	// A stopped worker is dropped from p.workers when it is told to stop,
	// and finishes its operation on its own.
	for len(p.workers) > n {
		w := p.workers[len(p.workers)-1]
		w.stop.Store(true)
		p.workers = p.workers[:len(p.workers)-1]
	}
	// No worker starts once the pool is stopping: the drain may be
	// waiting on wg already (an Add then would race with its Wait).
	for len(p.workers) < n && !p.stopping.Load() {
		id := len(p.workers)
		w := &worker{id: id}
		p.workers = append(p.workers, w)
		p.wg.Add(1)
		p.active.Add(1)
		go p.runWorker(w, id%len(p.recorders))
	}
}

func (p *pool) wakeAll() {
	p.wakeMu.Lock()
	close(p.wake)
	p.wake = make(chan struct{})
	p.wakeMu.Unlock()
}

func (p *pool) wakeCh() <-chan struct{} {
	p.wakeMu.Lock()
	defer p.wakeMu.Unlock()
	return p.wake
}

// stop tells every worker to exit after its current operation. It takes
// wmu so that no resize starts a worker after it (see resize).
func (p *pool) stop() {
	p.wmu.Lock()
	already := p.stopping.Swap(true)
	p.wmu.Unlock()
	if already {
		return
	}
	p.wakeAll()
}

// noteEnd records end as lastEnd if it is the latest so far.
func (p *pool) noteEnd(end int64) {
	for {
		cur := p.lastEnd.Load()
		if end <= cur || p.lastEnd.CompareAndSwap(cur, end) {
			return
		}
	}
}

// claim takes up to n operations from the budget.
func (p *pool) claim(n int64) int64 {
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

// claimChunk is how many operations an unpaced worker takes from the
// budget at a time (one atomic update per chunk). A paced worker takes
// one at a time: with a chunk, the workers that still held part of theirs
// when the budget ran out ran it alone at their own pace, and the run
// ended late (1,000 threads at 100,000 ops/s, 300,000 operations: 93,000
// ops/s achieved, a tail of up to 64 ticks).
const claimChunk = 64

// wstate is one worker goroutine's private state.
type wstate struct {
	w     *worker
	rec   *measure.Recorder
	late  *lateness // recorded under rec's lock
	cw    workload.Worker
	ctx   context.Context
	local int64 // operations claimed from the budget but not yet done
	sched schedule
	// last is the clock at the end of the worker's previous operation,
	// and chained says the worker went straight from it to the next one
	// (no wait, pause or control change between): that end is then the
	// next operation's start, one clock read fewer per operation. The
	// service time so measured includes the engine's recording of the
	// previous operation (tens of ns); latency from the intended start
	// is unaffected.
	last    int64
	chained bool
	timer   *time.Timer
	waker   *waker        // the pool's; nil in some tests
	wakeC   chan struct{} // the waker's token for this worker (buffered 1)

	delay workload.Delayer // nil unless the worker pauses between steps
	queue workload.Queuer  // nil unless the worker's load steps queue batches
	sub   workload.SubRecorder
	limit func(int) int
	clock func() int64 // p.now, bound once: a method value allocates
	wake  func() <-chan struct{}
}

func (p *pool) newWState(w *worker, ri int) *wstate {
	rec := p.recorders[ri]
	ws := &wstate{w: w, rec: rec, late: &p.late[ri], ctx: p.opCtx, sched: newWorkerSchedule(w.id), clock: p.now, wake: p.wakeCh,
		waker: p.waker, wakeC: make(chan struct{}, 1)}
	ws.cw = p.wl.NewWorker(uint64(w.id)*7919 + uint64(time.Now().UnixNano()))
	ws.delay, _ = ws.cw.(workload.Delayer)
	ws.queue, _ = ws.cw.(workload.Queuer)
	ws.sub = func(op int, start, end int64, err error) {
		set := rec.Lock()
		if err != nil {
			set.Record(measure.Slot(op, measure.Failed), end-start)
			kind := adapters.Kind(err)
			set.AddError(op, kind, 1)
			set.SetCause(op, kind, err.Error())
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

func (p *pool) runWorker(w *worker, ri int) {
	defer p.wg.Done()
	ws := p.newWState(w, ri)
	defer func() {
		if ws.local > 0 {
			p.budget.Add(ws.local)
		}
		if p.active.Add(-1) == 0 && (p.stopping.Load() || (p.limited && p.budget.Load() <= 0)) {
			p.onIdle()
		}
	}()
	for p.step(ws) {
	}
	p.cleanupWorker(ws)
}

// step is one turn of a worker's loop: wait for the pacer slot, run one
// operation (or load batch), record it. It returns false when the worker
// must exit. This is the engine's hot path.
func (p *pool) step(ws *wstate) bool {
	chained := ws.chained
	ws.chained = false
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
	if ws.delay != nil {
		if d := ws.delay.Delay(); d > 0 {
			ws.pause(d)
			return true
		}
	}
	if p.limited && p.name == PhaseRun && ws.local == 0 {
		chunk := int64(claimChunk)
		if p.plan.tickNs.Load() > 0 {
			chunk = 1
		}
		ws.local = p.claim(chunk)
		if ws.local == 0 {
			return false
		}
	}
	intended, paced := ws.sched.next(&p.plan, ws.clock)
	var start int64
	waited := false
	switch {
	case chained && intended <= ws.last:
		// Unpaced, or paced and behind its schedule: no wait.
		start = ws.last
	case paced:
		waited = true
		var ok bool
		if start, ok = ws.waitUntil(&p.plan, ws.wake, ws.clock, intended); !ok {
			ws.sched.unclaim()
			return true
		}
	default:
		start = p.now()
	}
	var op, n int
	var err error
	var took []int64 // a load step's records timed one by one (workload.Queuer)
	var batched bool
	if p.name == PhaseLoad {
		n, err = ws.cw.Load(ws.ctx, ws.limit)
		op = p.wl.LoadOp()
		if n == 0 {
			return false
		}
		took, batched = ws.queued(err)
	} else {
		op, n, err = ws.cw.Transaction(ws.ctx, ws.clock, ws.sub)
		if p.limited {
			ws.local--
		}
	}
	end := p.now()
	if c := p.cutAt.Load(); c != 0 && end >= c {
		ws.cutOff(n)
		return false
	}
	if took != nil {
		ws.recordQueued(op, n, took, batched, start, end, intended, paced, waited)
	} else {
		ws.record(op, n, start, end, intended, paced, waited, err)
	}
	if p.stopping.Load() {
		p.noteEnd(end)
	}
	ws.last, ws.chained = end, true
	return err == nil || ws.ctx.Err() == nil
}

// record adds one step's measurement to the worker's Set: service time
// from start, latency from the intended start when paced, errors by kind,
// the schedule lag, the pacer's lateness (waited: the operation waited
// for its intended start).
func (ws *wstate) record(op, n int, start, end, intended int64, paced, waited bool, err error) {
	set := ws.rec.Lock()
	set.Ops += int64(n)
	ok, okIntended := measure.OK, measure.OKIntended
	if err != nil {
		ok, okIntended = measure.Failed, measure.FailedIntended
		set.Failed += int64(n)
		kind := adapters.Kind(err)
		set.AddError(op, kind, int64(n))
		set.SetCause(op, kind, err.Error())
		switch kind {
		case adapters.KindIntegrity:
			set.Integrity++
		case adapters.KindMissing:
			set.Missing++
		}
	}
	set.RecordN(measure.Slot(op, ok), end-start, int64(n))
	if paced {
		set.RecordN(measure.Slot(op, okIntended), end-intended, int64(n))
		if lag := start - intended; lag > set.MaxLag {
			set.MaxLag = lag
		}
		ws.late.record(waited, start-intended)
	}
	ws.rec.Unlock()
}

// queued is what a successful load step of a Queuer timed by record, nil
// for any other step.
func (ws *wstate) queued(err error) ([]int64, bool) {
	if ws.queue == nil || err != nil {
		return nil, false
	}
	return ws.queue.Queued()
}

// sentLatency is YCSB's latency of the record that sends a batch (or
// commits it): its own call spans its queuing (or statement), the sending
// and the commit, which is the step's span less the times of the records
// before it (never below zero).
func sentLatency(span int64, took []int64) int64 {
	for _, d := range took {
		span -= d
	}
	return max(span, 0)
}

// recordQueued records a load step of n records timed one by one
// (workload.Queuer): each record in took is a success of its own time,
// counted as batched (YCSB's BATCHED_OK) when batched; the records past
// them (the one that sent or committed the batch) get sentLatency.
// Latency from the intended start adds the step's schedule lag to each.
func (ws *wstate) recordQueued(op, n int, took []int64, batched bool, start, end, intended int64, paced, waited bool) {
	set := ws.rec.Lock()
	set.Ops += int64(n)
	lag := start - intended
	queued := min(len(took), n)
	if batched {
		set.Batched[op] += int64(queued)
	}
	for _, d := range took[:queued] {
		set.Record(measure.Slot(op, measure.OK), d)
		if paced {
			set.Record(measure.Slot(op, measure.OKIntended), d+lag)
		}
	}
	if rest := int64(n - queued); rest > 0 {
		d := sentLatency(end-start, took[:queued])
		set.RecordN(measure.Slot(op, measure.OK), d, rest)
		if paced {
			set.RecordN(measure.Slot(op, measure.OKIntended), d+lag, rest)
		}
	}
	if paced {
		if lag > set.MaxLag {
			set.MaxLag = lag
		}
		ws.late.record(waited, lag)
	}
	ws.rec.Unlock()
}

// cutOff counts n operations that were still in flight when the grace
// after a stop ended: in no throughput, no error count, no histogram.
func (ws *wstate) cutOff(n int) {
	set := ws.rec.Lock()
	set.CutOff += int64(n)
	ws.rec.Unlock()
}

// pause waits d, or less when a control change or stop wakes the worker.
func (ws *wstate) pause(d time.Duration) {
	ch := ws.wake()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ch:
	case <-ws.ctx.Done():
	}
}
