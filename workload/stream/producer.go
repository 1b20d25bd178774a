package stream

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
	"benchtop/workload"
)

// producer is one runner worker's producer. Each Transaction hands it one
// row (a key and that key's next sequence number); it writes them to the
// stream in batches of stream.batchsize, or after stream.linger.
//
// Pacing is per Transaction, so -target counts rows/s, and the operation
// count (operationcount) counts rows, as the published benchmarks do.
// The row bytes are built at flush time, all with the flush's timestamp:
// end-to-end latency runs from the Produce call that wrote a row to its
// delivery, and excludes the wait in the producer's batch.
type producer struct {
	w  *Workload
	id uint32

	// mu guards everything below: the worker's goroutine and the linger
	// flusher (and Stop) take it.
	mu        sync.Mutex
	rng       *rand.Rand
	keySeq    []uint32 // per key: the last seq handed out
	pendKeys  []uint32
	pendSeqs  []uint32
	pendSince int64
	sub       workload.SubRecorder
	calls     atomic.Int64 // rows handed in (read by Sample to count threads)

	lay       layout
	templates [][]byte
	buf       []byte
	rows      []adapters.StreamRow
	pidx      []int32 // partition of each pending row
	counts    []int   // rows per partition in this batch
	offBuf    []int

	// check holds the checker's state of each key, indexed by key.
	check []atomic.Uint64
	// perPart counts rows acknowledged per partition (read by Sample).
	perPart [MaxPartitions]atomic.Int64
}

// NewWorker makes the state of one worker goroutine: a producer with keys
// of its own.
func (w *Workload) NewWorker(seed uint64) workload.Worker {
	w.prodMu.Lock()
	defer w.prodMu.Unlock()
	old := *w.prods.Load()
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	lay := newLayout(w.opts.RowSize)
	p := &producer{
		w:         w,
		id:        uint32(len(old)),
		rng:       r,
		keySeq:    make([]uint32, w.opts.Keys),
		lay:       lay,
		templates: lay.templates(16, r),
		check:     make([]atomic.Uint64, w.opts.Keys),
		pendKeys:  make([]uint32, 0, w.opts.BatchSize),
		pendSeqs:  make([]uint32, 0, w.opts.BatchSize),
	}
	prods := append(append([]*producer(nil), old...), p)
	w.prods.Store(&prods)
	return p
}

// Transaction hands one row to the producer, writing the batch when it is
// full. It counts as one operation (one row).
func (p *producer) Transaction(ctx context.Context, clock func() int64, sub workload.SubRecorder) (op, n int, err error) {
	p.mu.Lock()
	p.sub = sub
	p.calls.Add(1)
	k := uint32(p.rng.Uint64N(uint64(len(p.keySeq))))
	p.keySeq[k]++
	if len(p.pendKeys) == 0 {
		p.pendSince = p.w.now()
	}
	p.pendKeys = append(p.pendKeys, k)
	p.pendSeqs = append(p.pendSeqs, p.keySeq[k])
	if len(p.pendKeys) >= p.w.opts.BatchSize {
		err = p.flushLocked(ctx, sub, false)
	}
	p.mu.Unlock()
	return OpProduce, 1, err
}

// Load writes nothing: the stream has no load phase.
func (p *producer) Load(context.Context, func(int) int) (int, error) { return 0, nil }

// flushLocked writes the pending rows in one Produce call. final skips the
// wait for consumer lag (the end of the run). Caller holds p.mu.
func (p *producer) flushLocked(ctx context.Context, sub workload.SubRecorder, final bool) error {
	n := len(p.pendKeys)
	if n == 0 {
		return nil
	}
	w := p.w
	defer func() {
		p.pendKeys = p.pendKeys[:0]
		p.pendSeqs = p.pendSeqs[:0]
	}()
	// A shared stream's rows are consumed by other processes too: this
	// one's own count says nothing of the lag.
	if w.opts.MaxLag > 0 && !final && !w.shared {
		if err := p.waitLag(ctx); err != nil {
			w.failed.Add(int64(n))
			w.check.failedRows(p.id, p.pendKeys, p.pendSeqs)
			return fmt.Errorf("stream: produce: %w", err)
		}
	}
	ep := w.ep
	ep.prodMu.RLock()
	cur := ep.cur
	if cur.parts == 0 {
		// The run is over (only reachable by a late linger flush).
		ep.prodMu.RUnlock()
		w.failed.Add(int64(n))
		w.check.failedRows(p.id, p.pendKeys, p.pendSeqs)
		return nil
	}
	start := w.now()
	p.build(cur, start)
	err := w.stream.Produce(ctx, p.rows)
	end := w.now()
	if err == nil {
		for part, c := range p.counts {
			if c > 0 {
				p.perPart[part].Add(int64(c))
			}
		}
		w.produced.Add(int64(n))
		w.producedBytes.Add(int64(n * p.lay.size))
	}
	ep.prodMu.RUnlock()
	if sub != nil {
		sub(OpFlush, start, end, err)
	}
	// Let the consumers just woken run: a producer catching up with its
	// schedule never blocks, and on a busy client they would otherwise
	// wait for the scheduler's 10 ms preemption, which is not the
	// stream's latency.
	runtime.Gosched()
	if err != nil {
		w.failed.Add(int64(n))
		w.check.failedRows(p.id, p.pendKeys, p.pendSeqs)
		w.setErr(err.Error())
		return fmt.Errorf("stream: produce %d rows: %w", n, err)
	}
	return nil
}

// waitLag holds the producer while more than stream.maxlag rows are
// produced but not consumed, so that a stream faster to write than to
// read cannot grow without bound; the time held is reported.
func (p *producer) waitLag(ctx context.Context) error {
	w := p.w
	if w.produced.Load()-w.consumed.Load() <= w.opts.MaxLag {
		return nil
	}
	t0 := w.now()
	defer func() { w.waiting.Add(w.now() - t0) }()
	for w.produced.Load()-w.consumed.Load() > w.opts.MaxLag {
		if err := ctx.Err(); err != nil {
			return err
		}
		if w.consCtx.Err() != nil {
			return nil // consumers gone: nothing will drain
		}
		time.Sleep(200 * time.Microsecond)
	}
	return nil
}

// build lays the pending rows out in p.buf grouped by partition (a stable
// counting sort, so each key's rows keep their order) and points p.rows
// at them.
func (p *producer) build(cur *epochState, ts int64) {
	n := len(p.pendKeys)
	parts := cur.parts
	size := p.lay.size
	if cap(p.buf) < n*size {
		p.buf = make([]byte, n*size)
	}
	p.buf = p.buf[:n*size]
	if cap(p.pidx) < n {
		p.pidx = make([]int32, n)
	}
	p.pidx = p.pidx[:n]
	if cap(p.counts) < parts {
		p.counts = make([]int, parts)
	}
	p.counts = p.counts[:parts]
	clear(p.counts)
	for i, k := range p.pendKeys {
		part := int32(uidOf(p.id, k) % uint32(parts))
		p.pidx[i] = part
		p.counts[part]++
	}
	// Start offset (in rows) of each partition's run.
	offs := p.offsets(parts)
	if cap(p.rows) < n {
		p.rows = make([]adapters.StreamRow, n)
	}
	p.rows = p.rows[:n]

	wall := p.w.base.Add(time.Duration(ts)).UnixMilli()
	var tbuf, c0buf [13]byte
	digits13(tbuf[:], wall)
	digits13(c0buf[:], wall-86_400_000)
	epoch := uint32(cur.epoch)
	origin := uint16(p.w.opts.Origin)
	if p.w.shared {
		// No epochs in a shared stream: the field names the writing
		// process's run (see shared.go).
		epoch, origin = p.w.runID, uint16(p.w.origin)
	}
	for i, k := range p.pendKeys {
		part := p.pidx[i]
		slot := offs[part]
		offs[part]++
		row := p.buf[slot*size : (slot+1)*size : (slot+1)*size]
		copy(row, p.templates[(k+p.pendSeqs[i])&15])
		binary.LittleEndian.PutUint16(row[2:], origin)
		binary.LittleEndian.PutUint32(row[4:], epoch)
		binary.LittleEndian.PutUint32(row[8:], p.id)
		binary.LittleEndian.PutUint32(row[12:], k)
		binary.LittleEndian.PutUint32(row[16:], p.pendSeqs[i])
		binary.LittleEndian.PutUint64(row[20:], uint64(p.w.rowClock(ts)))
		binary.LittleEndian.PutUint32(row[28:], uidOf(p.id, k))
		copy(row[p.lay.timeOff:], tbuf[:])
		copy(row[p.lay.col0Off:], c0buf[:])
		copy(row[p.lay.col1Off:], tbuf[:])
		p.rows[slot] = adapters.StreamRow{Partition: int(part), Data: row}
	}
}

// offsets returns, per partition, the index of its first row in the
// partition-ordered batch.
func (p *producer) offsets(parts int) []int {
	if cap(p.offBuf) < parts {
		p.offBuf = make([]int, parts)
	}
	offs := p.offBuf[:parts]
	sum := 0
	for i, c := range p.counts {
		offs[i] = sum
		sum += c
	}
	return offs
}
