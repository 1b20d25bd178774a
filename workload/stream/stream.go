// Package stream is benchtop's partitioned change-stream workload (the
// "tunnel" pattern of incremental synchronisation): producer threads write
// rows of about 220 bytes spread over P partitions by a hash of their key,
// and one consumer per partition reads its partition strictly in order,
// the partitions in parallel. The figures of merit are rows/s and MB/s
// consumed, how they grow with P, the consumer lag and the end-to-end
// latency from write to delivery.
//
// It plugs into the engine through package workload: select it with
// -p workload=stream. The producers are the runner's workers (each
// Transaction hands one row to the worker's producer, which writes a batch
// of stream.batchsize rows per Produce call, so -target is in rows/s);
// the consumers are goroutines of the workload's own (workload.Starter),
// one per partition. SetPartitions (workload.Partitioned) grows or shrinks
// the stream while it runs without breaking any key's order (see
// epoch.go). Every delivered row is checked (check.go), and the final
// report says how many rows were produced, consumed, lost, duplicated and
// delivered out of order; any of the last three makes the run fail.
// A stream consumed by a group of processes (adapters.SharedStream: the
// agents of a fleet in one Kafka consumer group) is checked per partition
// and accounted in a Ledger per process, which Merge adds into the
// fleet's verdict (see shared.go).
//
// The adapter side is the optional adapters.Streamer interface.
package stream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
	"benchtop/workload"
)

// Name is the value of the workload property that selects this workload.
const Name = "stream"

// MaxPartitions is the largest partition count: the one limit of package
// adapters, which the engine's is too.
const MaxPartitions = adapters.MaxPartitions

// Operation types, in report order.
const (
	OpProduce = iota // one row handed to a producer (counted in ops/s)
	OpFlush          // one Produce call: a batch written to the stream
)

// Defaults of the stream.* properties.
const (
	DefaultBatchSize = 100
	DefaultRowSize   = 220
	DefaultLinger    = 5 * time.Millisecond
	DefaultMaxLag    = 100000
	DefaultKeys      = 1000
	DefaultReadBatch = 1000
	// DefaultDrain bounds the drain at the end of the run: the consumers
	// reaching the stream's end (a group: its committed offsets reaching
	// the partitions' end offsets).
	DefaultDrain = 30 * time.Second
)

func init() {
	workload.Register(workload.Factory{
		Name:       Name,
		Validate:   func(_ string, p adapters.Properties) error { _, err := parseOptions(p); return err },
		Produces:   func(string, adapters.Properties) []string { return (&Workload{}).OpNames() },
		Properties: []string{"stream."},
		Keys:       Keys,
		Group:      group,
		New: func(_ string, p adapters.Properties, db adapters.DB) (workload.Workload, error) {
			return New(p, db)
		},
	})
}

// Options are the workload's properties.
type Options struct {
	BatchSize  int           // stream.batchsize: rows per Produce call
	RowSize    int           // stream.rowsize: bytes per row
	Linger     time.Duration // stream.linger: longest wait of a row in a producer's batch
	MaxLag     int64         // stream.maxlag: producers wait while this many rows are unconsumed (0 = no limit)
	Keys       int           // stream.keys: keys (uids) per producer
	ReadBatch  int           // stream.readbatch: rows per consumer read
	Partitions int           // partitions: the initial partition count
	Origin     int           // stream.origin: this process's place in a fleet (0: unset)
	Drain      time.Duration // stream.drain: how long the end of the run may wait for the consumers
}

// Property names.
const (
	PropBatchSize = "stream.batchsize"
	PropRowSize   = "stream.rowsize"
	PropLinger    = "stream.linger"
	PropMaxLag    = "stream.maxlag"
	PropKeys      = "stream.keys"
	PropReadBatch = "stream.readbatch"
	PropParts     = "partitions" // the core property
	// PropOrigin numbers the process (1, 2, ...; 0: unset): it goes into
	// every row, so that rows of one shared stream name their producer
	// across processes. A fleet's coordinator sets it (agent i is i+1);
	// unset on a shared stream, the process draws a random one.
	PropOrigin = "stream.origin"
	// PropDrain bounds the drain at the end of the run.
	PropDrain = "stream.drain"
)

// MaxOrigin is the largest stream.origin (two bytes of the row header).
const MaxOrigin = 1<<16 - 1

// Keys are the properties the workload reads (the Factory's Keys).
var Keys = []string{PropBatchSize, PropRowSize, PropLinger, PropMaxLag, PropKeys, PropReadBatch, PropParts, PropOrigin, PropDrain}

func parseOptions(p adapters.Properties) (Options, error) {
	r := adapters.NewReader(p)
	o := readOptions(r)
	return o, r.Err()
}

func readOptions(r *adapters.Reader) Options {
	return Options{
		BatchSize:  r.Int(PropBatchSize, DefaultBatchSize, 1, 100000),
		RowSize:    r.Int(PropRowSize, DefaultRowSize, MinRowSize, MaxRowSize),
		MaxLag:     r.Int64(PropMaxLag, DefaultMaxLag, 0, 1<<40),
		Keys:       r.Int(PropKeys, DefaultKeys, 1, 1<<20),
		ReadBatch:  r.Int(PropReadBatch, DefaultReadBatch, 1, 100000),
		Partitions: r.Int(PropParts, 1, 1, MaxPartitions),
		Origin:     r.Int(PropOrigin, 0, 0, MaxOrigin),
		Linger:     r.Duration(PropLinger, DefaultLinger, time.Millisecond, 0, time.Minute),
		Drain:      r.Duration(PropDrain, DefaultDrain, time.Second, time.Second, time.Hour),
	}
}

// Workload is the partitioned change-stream workload. Build it with New;
// the engine drives it through the workload interfaces.
type Workload struct {
	opts     Options
	db       adapters.DB
	streamer adapters.Streamer
	base     time.Time // produce timestamps count from here
	check    *checker

	// Producers, registered by NewWorker; the slice is copy-on-write so
	// that consumers index it without locks.
	prodMu sync.Mutex
	prods  atomic.Pointer[[]*producer]

	// Run state, from Start to Stop.
	ctlMu   sync.Mutex // serialises Start, SetPartitions and Stop
	started bool
	stopped bool
	// Mirrors for Sample, which must not wait for a change in progress.
	running  atomic.Bool // between Start and Stop
	curParts atomic.Int64
	curEpoch atomic.Int64
	stream   adapters.Stream
	name     string
	ep       *epochs
	parts    atomic.Pointer[[]*partition] // copy-on-write, grows only
	consCtx  context.Context
	consStop context.CancelFunc
	consWG   sync.WaitGroup
	lingerWG sync.WaitGroup
	lingerC  chan struct{}

	produced      atomic.Int64 // rows acknowledged by Produce
	producedBytes atomic.Int64
	consumed      atomic.Int64 // rows delivered (duplicates included)
	failed        atomic.Int64 // rows whose Produce call failed
	readErrors    atomic.Int64
	lastErr       atomic.Pointer[string]
	waiting       atomic.Int64 // ns producers spent held back by maxlag

	samp sampler // sampler goroutine state (Sample)

	// shared: the stream is consumed by a group of processes (see
	// shared.go); set by Start, with this process's origin (stream.origin
	// or a random one) and run id, which its rows carry.
	shared bool
	ss     adapters.SharedStream
	origin int
	runID  uint32
	// A group another member can grow (adapters.GroupStream), and the
	// runner's function for partition changes made here (WatchPartitions).
	gs      adapters.GroupStream
	watch   func(from, to int, why string)
	later   func(partitions int, what string)
	spans   []adapters.Span // the stream's spans when the drain began
	spanErr error
	// collided counts rows delivered with this process's origin and
	// another's run id: another process drew the same origin.
	collided atomic.Int64
	// integrity counts reads that found rows missing or repeated in the
	// stream (an adapter's KindIntegrity errors); lastIntegrity is the
	// latest.
	integrity     atomic.Int64
	lastIntegrity atomic.Pointer[string]

	// noBarrier (tests only) lets consumers deliver rows of a new epoch
	// without waiting for older ones to drain, to show that order breaks.
	noBarrier bool

	// Set by Stop, read by Finish.
	drainErr   error
	drainTime  time.Duration
	finalParts int
}

var (
	_ workload.Workload    = (*Workload)(nil)
	_ workload.Starter     = (*Workload)(nil)
	_ workload.Partitioned = (*Workload)(nil)
	_ workload.Sampler     = (*Workload)(nil)
	_ workload.Finisher    = (*Workload)(nil)
	_ workload.Drainer     = (*Workload)(nil)
	// PartitionWatcher: a shared stream grown by another process.
	_ workload.PartitionWatcher = (*Workload)(nil)
)

// New builds the workload on db, which must implement adapters.Streamer.
func New(props adapters.Properties, db adapters.DB) (*Workload, error) {
	o, err := parseOptions(props)
	if err != nil {
		return nil, err
	}
	st, ok := db.(adapters.Streamer)
	if !ok {
		return nil, &adapters.ConfigError{Key: "workload", Value: Name, Allowed: "an adapter with streams (memory, redis, nats, kafka); this one has none"}
	}
	w := &Workload{opts: o, db: db, streamer: st, base: time.Now(), check: newChecker()}
	w.prods.Store(&[]*producer{})
	w.parts.Store(&[]*partition{})
	return w, nil
}

// Options returns the workload's options.
func (w *Workload) Options() Options { return w.opts }

// OpNames names the operation types: PRODUCE counts rows handed to the
// producers (so ops/s is produced rows/s), FLUSH times each Produce call.
func (w *Workload) OpNames() []string { return []string{"PRODUCE", "FLUSH"} }

// LoadOp is PRODUCE; the stream has no load phase (Load writes nothing).
func (w *Workload) LoadOp() int { return OpProduce }

// now is the workload's monotonic clock in ns.
func (w *Workload) now() int64 { return int64(time.Since(w.base)) }

// rowClock is t (of now's clock) as rows carry their write time: now's
// clock in a stream of this process's own; in a shared stream, whose rows
// another process may deliver, nanoseconds since the Unix epoch (this
// process's wall clock at its start, plus its monotonic clock since), so
// that end-to-end latency holds across processes (across machines it
// includes their clocks' skew).
func (w *Workload) rowClock(t int64) int64 {
	if w.shared {
		return w.base.UnixNano() + t
	}
	return t
}

// Start opens the stream and starts one consumer per partition, for the
// run phase; the load phase has nothing to do.
func (w *Workload) Start(ctx context.Context, phase string, partitions int) error {
	if phase != "run" {
		return nil
	}
	w.ctlMu.Lock()
	defer w.ctlMu.Unlock()
	if w.started {
		return errors.New("stream: already started")
	}
	if partitions < 1 || partitions > MaxPartitions {
		partitions = w.opts.Partitions
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	w.name = "benchtop-" + hex.EncodeToString(rnd[:])
	s, err := w.streamer.OpenStream(ctx, w.name, partitions)
	if err != nil {
		return fmt.Errorf("stream: open %s: %w", w.name, err)
	}
	w.stream = s
	if ss, ok := s.(adapters.SharedStream); ok && ss.Shared() {
		w.shared, w.ss = true, ss
		w.origin, w.runID = identity(w.opts.Origin)
		w.gs, _ = s.(adapters.GroupStream)
	}
	w.ep = newEpochs(partitions)
	w.consCtx, w.consStop = context.WithCancel(context.Background())
	if err := w.ensureReaders(ctx, partitions); err != nil {
		w.consStop()
		_ = s.Close(context.Background())
		return err
	}
	w.samp.init(w)
	w.started = true
	w.curParts.Store(int64(partitions))
	w.running.Store(true)
	w.startConsumers(partitions)
	w.lingerC = make(chan struct{})
	if w.opts.Linger > 0 {
		w.lingerWG.Add(1)
		go w.lingerLoop()
	}
	if w.gs != nil {
		go w.follow(w.consCtx, w.gs.Grown())
	}
	return nil
}

// DrainTime is stream.drain: the runner bounds Stop by it.
func (w *Workload) DrainTime() time.Duration { return w.opts.Drain }

// ensureReaders makes the partition states and readers of 0..n-1.
func (w *Workload) ensureReaders(ctx context.Context, n int) error {
	old := *w.parts.Load()
	if len(old) >= n {
		return nil
	}
	if err := w.stream.EnsurePartitions(ctx, n); err != nil {
		return fmt.Errorf("stream: %d partitions: %w", n, err)
	}
	parts := append([]*partition(nil), old...)
	for p := len(old); p < n; p++ {
		r, err := w.stream.Reader(ctx, p)
		if err != nil {
			return fmt.Errorf("stream: reader of partition %d: %w", p, err)
		}
		parts = append(parts, newPartition(p, r, w.rowClock(w.now())))
	}
	w.parts.Store(&parts)
	return nil
}

func (w *Workload) startConsumers(n int) {
	parts := *w.parts.Load()
	for _, p := range w.ep.claim(n) {
		pt := parts[p]
		pt.activeSince.Store(w.now())
		w.consWG.Add(1)
		go w.consume(pt)
	}
}

// Partitions returns the partition count producers write under now.
func (w *Workload) Partitions() int {
	w.ctlMu.Lock()
	defer w.ctlMu.Unlock()
	if w.ep == nil {
		return w.opts.Partitions
	}
	w.ep.prodMu.RLock()
	defer w.ep.prodMu.RUnlock()
	return w.ep.cur.parts
}

// SetPartitions changes the partition count while the stream runs: it
// creates the new partitions and their consumers, then switches the
// producers to the new partition map at an epoch boundary (see epoch.go).
// It returns once producers write under the new map; consumers of moved
// keys catch up on their own. A stream whose partitions cannot be removed
// (adapters.GrowOnlyStream) refuses a smaller count with its own error.
func (w *Workload) SetPartitions(ctx context.Context, n int) error {
	if n < 1 || n > MaxPartitions {
		return fmt.Errorf("stream: partitions: %d is out of range (1 to %d)", n, MaxPartitions)
	}
	w.ctlMu.Lock()
	defer w.ctlMu.Unlock()
	if !w.started {
		w.opts.Partitions = n
		return nil
	}
	if w.stopped {
		return errors.New("stream: stopped")
	}
	// ep.cur changes only under ctlMu, which is held.
	if g, ok := w.stream.(adapters.GrowOnlyStream); ok && n < w.ep.cur.parts {
		return g.ShrinkError(w.ep.cur.parts, n)
	}
	t0, grows := time.Now(), n > w.ep.cur.parts
	if err := w.ensureReaders(ctx, n); err != nil {
		return err
	}
	if err := w.switchEpoch(ctx, n); err != nil {
		return err
	}
	if grows {
		w.awaitAssigned(n, t0)
	}
	return nil
}

// switchEpoch moves producers to a new epoch with n partitions (0 at the
// end of the run: every consumer then stops at its last marker). Caller
// holds ctlMu.
func (w *Workload) switchEpoch(ctx context.Context, n int) error {
	ep := w.ep
	ep.prodMu.Lock()
	old := ep.cur
	if n == old.parts {
		ep.prodMu.Unlock()
		return nil
	}
	next := ep.begin(n)
	if n > 0 {
		w.startConsumers(n)
	}
	if w.shared {
		// No markers: another process may consume any partition, so no
		// consumer here could wait for them (see shared.go).
		ep.cur = next
		w.curParts.Store(int64(next.parts))
		w.curEpoch.Store(int64(next.epoch))
		ep.prodMu.Unlock()
		return nil
	}
	// One marker per partition of the old epoch, all in one Produce call;
	// retried, because a partition without its marker holds back every
	// consumer of the new epoch until a later row seals it.
	marker := markerRow(uint32(old.epoch))
	rows := make([]adapters.StreamRow, old.parts)
	for p := range rows {
		rows[p] = adapters.StreamRow{Partition: p, Data: marker}
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if err = w.stream.Produce(ctx, rows); err == nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
			continue
		}
		break
	}
	if err != nil {
		// The markers may be missing: seal the old epoch by force so that
		// the stream goes on; the checker will show any order broken.
		for p := 0; p < old.parts; p++ {
			ep.sealThrough(p, old.epoch)
		}
		w.setErr(fmt.Sprintf("epoch marker write failed: %v", err))
	}
	ep.cur = next
	w.curParts.Store(int64(next.parts))
	w.curEpoch.Store(int64(next.epoch))
	ep.prodMu.Unlock()
	if err != nil {
		return fmt.Errorf("stream: partitions %d→%d: epoch markers: %w (switched anyway)", old.parts, n, err)
	}
	return nil
}

func (w *Workload) setErr(s string) {
	w.lastErr.Store(&s)
}

// Stop ends the run: pending rows are flushed, every partition gets its
// final marker, and the consumers drain the stream to it (bounded by ctx).
// Then the stream is closed, which removes its data.
func (w *Workload) Stop(ctx context.Context) error {
	w.ctlMu.Lock()
	defer w.ctlMu.Unlock()
	if !w.started || w.stopped {
		return nil
	}
	w.stopped = true
	w.running.Store(false)
	t0 := time.Now()
	close(w.lingerC)
	w.lingerWG.Wait()
	var errs []error
	for _, p := range *w.prods.Load() {
		p.mu.Lock()
		if err := p.flushLocked(ctx, nil, true); err != nil {
			errs = append(errs, err)
		}
		p.mu.Unlock()
	}
	w.finalParts = w.ep.cur.parts
	if err := w.switchEpoch(ctx, 0); err != nil {
		errs = append(errs, err)
	}
	if w.shared {
		w.drainShared(ctx)
		// Every row was read; the consumers finish recording what their
		// last reads returned, then stop.
		w.consStop()
		w.consWG.Wait()
	} else {
		done := make(chan struct{})
		go func() { w.consWG.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			w.drainErr = fmt.Errorf("the consumers did not reach the end of the stream within %s (%v)", PropDrain, w.opts.Drain)
			w.consStop()
			<-done
		}
	}
	w.consStop()
	w.drainTime = time.Since(t0)
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, p := range *w.parts.Load() {
		_ = p.reader.Close()
	}
	if err := w.stream.Close(cctx); err != nil {
		errs = append(errs, fmt.Errorf("stream: close %s: %w", w.name, err))
	}
	return errors.Join(errs...)
}

// lingerLoop flushes batches that waited longer than stream.linger (a
// paced or paused producer, or one whose worker was stopped).
func (w *Workload) lingerLoop() {
	defer w.lingerWG.Done()
	every := max(w.opts.Linger/2, time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-w.lingerC:
			return
		case <-t.C:
		}
		now := w.now()
		for _, p := range *w.prods.Load() {
			if !p.mu.TryLock() {
				continue // busy: it flushes itself
			}
			if len(p.pendKeys) > 0 && now-p.pendSince >= int64(w.opts.Linger) {
				_ = p.flushLocked(w.consCtx, p.sub, false)
			}
			p.mu.Unlock()
		}
	}
}

// Describe says what the workload does, for headers and reports (where a
// key-value run shows its operation mix), e.g. "220-byte rows in batches
// of 100 over 4 partitions, one ordered consumer each".
func (w *Workload) Describe() string {
	n := int(w.curParts.Load())
	if n == 0 {
		n = w.opts.Partitions
	}
	return fmt.Sprintf("%d-byte rows in batches of %d over %d partitions, one ordered consumer each", w.opts.RowSize, w.opts.BatchSize, n)
}

// describeStream says where the stream lives.
func (w *Workload) describeStream() string {
	if w.stream == nil {
		return ""
	}
	return strings.TrimSpace(w.stream.Describe())
}
