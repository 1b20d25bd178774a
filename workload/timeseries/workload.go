package timeseries

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/adapters"
	"benchtop/workload"
)

// Why a batch was sent.
const (
	reasonFull  = iota // batch.size records
	reasonAged         // its oldest record waited flush.interval
	reasonFinal        // what was left at the end of a phase
	numReasons
)

// Workload is the time-series ingest workload. It implements
// workload.Workload, Starter, Sampler and Finisher.
type Workload struct {
	cfg       Config
	loadCount int64 // records a load phase writes
	lw        adapters.LineWriter
	counter   adapters.PointCounter // nil: no final count
	gen       *lineGen
	runID     string
	t0        time.Time // the workload's own monotonic clock starts here
	bufPool   sync.Pool // *[]byte batch buffers

	nextSeq atomic.Int64 // point sequence, claimed in blocks by writers

	mu       sync.Mutex
	writers  []*writer
	leftover []*batch // batches a cancelled writer could not hand over
	phase    string
	flushers chan struct{} // closed to stop the flusher
	flushWG  sync.WaitGroup

	sendCtx    context.Context // async sends; cancelled when a phase's drain times out
	sendCancel context.CancelFunc
	sendWG     sync.WaitGroup // batches being sent
	draining   atomic.Bool    // after the drain deadline: cancelled sends count as failed

	// Totals over the whole run (all phases), for the final check.
	acked, ackedBytes     atomic.Int64
	failed, failedBatches atomic.Int64
	batches               [numReasons]atomic.Int64
	attempts, retries     atomic.Int64

	baseline int64 // points of the measurement before the run (runtag=false)

	stats stats
}

var (
	_ workload.Workload = (*Workload)(nil)
	_ workload.Starter  = (*Workload)(nil)
	_ workload.Sampler  = (*Workload)(nil)
	_ workload.Finisher = (*Workload)(nil)
)

// New builds the workload on db, which must implement adapters.LineWriter.
func New(cfg Config, db adapters.DB) (*Workload, error) {
	lw, ok := db.(adapters.LineWriter)
	if !ok {
		return nil, &adapters.ConfigError{Key: "workload", Value: Name, Allowed: "only with an adapter that writes line protocol: benchtop run influx ..."}
	}
	prec := lw.Precision()
	if prec <= 0 {
		prec = time.Nanosecond
	}
	var id [4]byte
	if _, err := crand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("timeseries: run id: %w", err)
	}
	w := &Workload{cfg: cfg, lw: lw, runID: hex.EncodeToString(id[:]), t0: time.Now()}
	if pc, ok := db.(adapters.PointCounter); ok {
		w.counter = pc
	}
	gen, err := newLineGen(cfg, w.runID, prec, w.t0)
	if err != nil {
		return nil, err
	}
	w.gen = gen
	lineLen := len(gen.appendLine(nil, 0, func() uint64 { return 0 }))
	// Room for a whole batch, up to 8 MiB; larger batches grow by append.
	bufCap := min(cfg.BatchSize*(lineLen+8), 8<<20)
	w.bufPool.New = func() any {
		b := make([]byte, 0, bufCap)
		return &b
	}
	w.sendCtx, w.sendCancel = context.WithCancel(context.Background())
	w.stats.init()
	return w, nil
}

// Describe says what the workload writes, in one line for headers (the
// YCSB mix does not apply to it), e.g. "line protocol: batch 5000, flush
// 300ms, 1000 series (100 hosts x 10 regions), 3 fields, 132 B/record,
// 1 batch in flight per writer".
func (w *Workload) Describe() string {
	size := len(w.gen.appendLine(nil, 0, func() uint64 { return 0 }))
	flush := "when full"
	if w.cfg.FlushInterval > 0 {
		flush = w.cfg.FlushInterval.String()
	}
	inflight := fmt.Sprintf("%d batch in flight per writer", w.cfg.InFlight)
	if w.cfg.InFlight == 0 {
		inflight = "synchronous sends"
	} else if w.cfg.InFlight > 1 {
		inflight = fmt.Sprintf("%d batches in flight per writer", w.cfg.InFlight)
	}
	return fmt.Sprintf("line protocol: batch %d, flush %s, %d series (%d hosts x %d regions), %d fields, %d B/record, %s",
		w.cfg.BatchSize, flush, w.gen.series, w.cfg.Hosts, w.cfg.Regions, len(w.cfg.Fields), size, inflight)
}

// RunID is the value of the run tag of this run's points.
func (w *Workload) RunID() string { return w.runID }

// OpNames implements workload.Workload.
func (w *Workload) OpNames() []string { return OpNames }

// LoadOp implements workload.Workload: a load phase writes records too.
func (w *Workload) LoadOp() int { return OpRecord }

func (w *Workload) now() int64 { return int64(time.Since(w.t0)) }

// NewWorker implements workload.Workload: one writer with its own batch.
func (w *Workload) NewWorker(seed uint64) workload.Worker {
	wr := &writer{
		wl:    w,
		rng:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		slots: make(chan struct{}, max(1, w.cfg.InFlight)),
		buf:   w.getBuf(),
	}
	w.mu.Lock()
	wr.id = len(w.writers)
	w.writers = append(w.writers, wr)
	w.mu.Unlock()
	return wr
}

func (w *Workload) getBuf() *[]byte {
	b := w.bufPool.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// batch is one batch of lines handed to a sender.
type batch struct {
	wr     *writer // whose in-flight slots it takes
	buf    *[]byte
	lines  int
	reason int
}

// writer is one worker goroutine's batch and its sending state.
type writer struct {
	wl    *Workload
	id    int
	rng   *rand.Rand
	slots chan struct{} // one token per batch being sent

	mu    sync.Mutex // guards the fields below (the flusher takes idle batches)
	buf   *[]byte
	lines int
	first int64 // w.now() when the batch's first record was appended
	ctx   context.Context
	sub   workload.SubRecorder
	clock func() int64

	seq, seqEnd int64 // claimed block of point numbers

	// Read by the sampler.
	calls      atomic.Int64 // records appended
	lastAt     atomic.Int64 // w.now() of the last record appended
	busy       atomic.Bool  // inside a Transaction
	blockedNs  atomic.Int64 // finished waits to hand over a batch
	blockSince atomic.Int64 // start of the current wait (w.now()+1), 0 when none
}

// Transaction implements workload.Worker: append one record; hand the
// batch over when it is full or its oldest record is flush.interval old.
func (wr *writer) Transaction(ctx context.Context, clock func() int64, sub workload.SubRecorder) (int, int, error) {
	return OpRecord, 1, wr.record(ctx, clock, sub)
}

// Load implements workload.Worker: a load step is one record as well, so
// that a target paces records in both phases.
func (wr *writer) Load(ctx context.Context, limit func(want int) int) (int, error) {
	if limit(1) == 0 {
		return 0, nil
	}
	return 1, wr.record(ctx, nil, nil)
}

func (wr *writer) record(ctx context.Context, clock func() int64, sub workload.SubRecorder) error {
	wl := wr.wl
	wr.busy.Store(true)
	defer wr.busy.Store(false)
	if wr.seq == wr.seqEnd {
		n := int64(wl.cfg.BatchSize)
		wr.seq = wl.nextSeq.Add(n) - n
		wr.seqEnd = wr.seq + n
	}
	now := wl.now()
	wr.mu.Lock()
	wr.ctx, wr.sub, wr.clock = ctx, sub, clock
	if wr.lines == 0 {
		wr.first = now
	}
	*wr.buf = wl.gen.appendLine(*wr.buf, wr.seq, wr.rng.Uint64)
	wr.seq++
	wr.lines++
	var b *batch
	switch {
	case wr.lines >= wl.cfg.BatchSize:
		b = wr.takeLocked(reasonFull)
	case wl.cfg.FlushInterval > 0 && now-wr.first >= int64(wl.cfg.FlushInterval):
		b = wr.takeLocked(reasonAged)
	}
	wr.mu.Unlock()
	wr.calls.Add(1)
	wr.lastAt.Store(now)
	if b != nil {
		wr.handOver(ctx, b, true)
	}
	return nil
}

// takeLocked removes the current batch. Caller holds wr.mu.
func (wr *writer) takeLocked(reason int) *batch {
	if wr.lines == 0 {
		return nil
	}
	b := &batch{wr: wr, buf: wr.buf, lines: wr.lines, reason: reason}
	wr.buf = wr.wl.getBuf()
	wr.lines = 0
	return b
}

// handOver gives b to a sender: it waits for a free in-flight slot, then
// sends in the background (or, with inflight=0, right here). A producer's
// waiting is backpressure. If ctx ends first, b is kept for the phase's
// Stop to send.
func (wr *writer) handOver(ctx context.Context, b *batch, producer bool) {
	wl := wr.wl
	synchronous := wl.cfg.InFlight == 0
	var t0 int64
	select {
	case wr.slots <- struct{}{}:
	default:
		if producer {
			t0 = wl.now()
			wr.blockSince.Store(t0 + 1)
		}
		select {
		case wr.slots <- struct{}{}:
		case <-ctx.Done():
			if producer {
				wr.blockedNs.Add(wl.now() - t0)
				wr.blockSince.Store(0)
			}
			wl.keep(b)
			return
		}
	}
	if !synchronous {
		if producer && t0 != 0 {
			wr.blockedNs.Add(wl.now() - t0)
			wr.blockSince.Store(0)
		}
		wl.sendWG.Add(1)
		go func() {
			defer wl.sendWG.Done()
			wl.send(wl.sendCtx, wr, b)
			<-wr.slots
		}()
		return
	}
	// Synchronous: the whole send is time the producer cannot produce.
	if producer && t0 == 0 {
		t0 = wl.now()
		wr.blockSince.Store(t0 + 1)
	}
	wl.sendWG.Add(1)
	wl.send(ctx, wr, b)
	wl.sendWG.Done()
	<-wr.slots
	if producer {
		wr.blockedNs.Add(wl.now() - t0)
		wr.blockSince.Store(0)
	}
}

// keep stores a batch that could not be handed over, for Stop.
func (w *Workload) keep(b *batch) {
	w.mu.Lock()
	w.leftover = append(w.leftover, b)
	w.mu.Unlock()
}

// retryable tells whether a failed write is worth another attempt.
func retryable(err error) bool {
	switch adapters.Kind(err) {
	case adapters.KindThrottled, adapters.KindUnavailable, adapters.KindTimeout:
		return true
	}
	return false
}

// send writes b, retrying throttled, unavailable and timed-out attempts,
// and accounts for the outcome. Every attempt is one WRITE.
func (w *Workload) send(ctx context.Context, wr *writer, b *batch) {
	wr.mu.Lock()
	sub, clock := wr.sub, wr.clock
	wr.mu.Unlock()
	body := *b.buf
	for attempt := 0; ; attempt++ {
		var cs int64
		if clock != nil {
			cs = clock()
		}
		t := w.now()
		err := w.lw.WriteLines(ctx, body, b.lines)
		el := w.now() - t
		if sub != nil {
			sub(OpWrite, cs, cs+el, err)
		}
		w.attempts.Add(1)
		w.stats.write(el, err)
		if err == nil {
			w.acked.Add(int64(b.lines))
			w.ackedBytes.Add(int64(len(body)))
			w.batches[b.reason].Add(1)
			w.putBuf(b)
			return
		}
		if ctx.Err() != nil && !w.draining.Load() {
			// Stopped before the answer: Stop sends it again (a point is
			// its series and timestamp, so a second write cannot add any).
			w.keep(b)
			return
		}
		if attempt >= w.cfg.Retries || !retryable(err) || ctx.Err() != nil {
			w.failed.Add(int64(b.lines))
			w.failedBatches.Add(1)
			w.stats.dropped(int64(b.lines))
			w.putBuf(b)
			return
		}
		w.retries.Add(1)
		backoff := min(100*time.Millisecond<<attempt, 2*time.Second)
		timer := time.NewTimer(backoff)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		}
	}
}

func (w *Workload) putBuf(b *batch) {
	if cap(*b.buf) <= 64<<20 {
		w.bufPool.Put(b.buf)
	}
	b.buf = nil
}

// Start implements workload.Starter: it starts the flusher of idle
// writers and, before the first phase of a run without a run tag, counts
// the points already stored.
func (w *Workload) Start(ctx context.Context, phase string, _ int) error {
	w.mu.Lock()
	first := w.phase == ""
	w.phase = phase
	w.writers = nil
	w.mu.Unlock()
	if first && w.cfg.Check && !w.cfg.RunTag && w.counter != nil {
		n, err := w.counter.CountPoints(ctx, w.cfg.Measurement, nil)
		if err != nil {
			return fmt.Errorf("timeseries: count the points stored before the run: %w", err)
		}
		w.baseline = n
	}
	w.draining.Store(false)
	if w.sendCtx.Err() != nil {
		w.sendCtx, w.sendCancel = context.WithCancel(context.Background())
	}
	w.stats.startPhase(phase, w.now(), w.acked.Load(), w.ackedBytes.Load(), w.failed.Load())
	if w.cfg.FlushInterval > 0 {
		stop := make(chan struct{})
		w.flushers = stop
		w.flushWG.Add(1)
		go w.flusher(stop)
	}
	return nil
}

// flusher sends the batches of idle writers once their oldest record is
// flush.interval old; busy writers check their own batch on every record.
func (w *Workload) flusher(stop chan struct{}) {
	defer w.flushWG.Done()
	period := min(max(w.cfg.FlushInterval/10, time.Millisecond), 50*time.Millisecond)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		w.mu.Lock()
		ws := append([]*writer(nil), w.writers...)
		w.mu.Unlock()
		now := w.now()
		for _, wr := range ws {
			if !wr.mu.TryLock() {
				continue // appending now: it checks the age itself
			}
			var b *batch
			if wr.lines > 0 && now-wr.first >= int64(w.cfg.FlushInterval) {
				b = wr.takeLocked(reasonAged)
			}
			ctx := wr.ctx
			wr.mu.Unlock()
			if b != nil {
				w.handOverBackground(ctx, wr, b)
			}
		}
	}
}

// handOverBackground hands b over without blocking the caller.
func (w *Workload) handOverBackground(ctx context.Context, wr *writer, b *batch) {
	if ctx == nil {
		ctx = w.sendCtx
	}
	w.sendWG.Add(1)
	go func() {
		defer w.sendWG.Done()
		wr.handOver(ctx, b, false)
	}()
}

// Stop implements workload.Starter: after the phase's last worker
// returned, it sends every writer's partial batch and what was kept
// back, and waits for the sends to finish, for as long as ctx allows.
func (w *Workload) Stop(ctx context.Context) error {
	if w.flushers != nil {
		close(w.flushers)
		w.flushWG.Wait()
		w.flushers = nil
	}
	// The phase's time ends with the last record appended (when the
	// runner stopped the writers: its run time), not with the drain;
	// what the drain acknowledges counts, as the runner's operations
	// completed in the grace after a deadline do. records/s is then the
	// runner's one rate ([OVERALL], segments, screen).
	end := w.now()
	w.mu.Lock()
	last := int64(0)
	for _, wr := range w.writers {
		last = max(last, wr.lastAt.Load())
	}
	w.mu.Unlock()
	err := w.drain(ctx)
	if last > 0 {
		end = last
	}
	w.stats.endPhase(end, w.acked.Load(), w.ackedBytes.Load())
	return err
}

// drain sends what is buffered or kept back and waits for all sends.
func (w *Workload) drain(ctx context.Context) error {
	for round := 0; ; round++ {
		w.mu.Lock()
		ws := append([]*writer(nil), w.writers...)
		left := w.leftover
		w.leftover = nil
		w.mu.Unlock()
		for _, wr := range ws {
			wr.mu.Lock()
			b := wr.takeLocked(reasonFinal)
			wr.mu.Unlock()
			if b != nil {
				w.handOverBackground(ctx, wr, b)
			}
		}
		for _, b := range left {
			b.reason = reasonFinal
			w.handOverBackground(ctx, b.wr, b)
		}
		done := make(chan struct{})
		go func() { w.sendWG.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			w.draining.Store(true)
			w.sendCancel()
			<-done
		}
		w.mu.Lock()
		more := len(w.leftover) > 0
		w.mu.Unlock()
		if !more || w.draining.Load() || round > 3 {
			if more {
				// Given up: what is still kept back is lost.
				w.mu.Lock()
				for _, b := range w.leftover {
					w.failed.Add(int64(b.lines))
					w.failedBatches.Add(1)
					w.stats.dropped(int64(b.lines))
				}
				w.leftover = nil
				w.mu.Unlock()
			}
			if ctx.Err() != nil {
				return fmt.Errorf("timeseries: drain: %w", ctx.Err())
			}
			return nil
		}
	}
}

// histogram range of batch write latencies, in microseconds.
func newWriteHist() *hdr.Histogram { return hdr.New(1, int64(time.Hour/time.Microsecond), 3) }

// Counters implements workload.Counters: records and MB acknowledged so
// far, so that every segment gets exactly its own records/s and MB/s.
func (w *Workload) Counters() map[string]float64 {
	return map[string]float64{"records": float64(w.acked.Load()), "mb": float64(w.ackedBytes.Load()) / 1e6}
}
