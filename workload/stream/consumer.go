package stream

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/adapters"
)

// End-to-end latency histograms: microseconds from 1 µs to 1 hour at two
// significant digits (1 %), small enough for one per partition.
const (
	e2eLowest  = 1
	e2eHighest = int64(time.Hour / time.Microsecond)
	e2eDigits  = 2
)

func newE2E() *hdr.Histogram { return hdr.New(e2eLowest, e2eHighest, e2eDigits) }

// partition is one partition's reader and consumer figures.
type partition struct {
	idx    int
	reader adapters.StreamReader
	// rec is what the consumer delivered, for the ledger (shared mode;
	// its consumer goroutine only).
	rec *recorder

	consumed    atomic.Int64 // rows delivered
	bytes       atomic.Int64
	lastTS      atomic.Int64 // produce time of the last row delivered
	activeSince atomic.Int64 // when its current consumer started
	held        atomic.Bool  // waiting for older epochs to drain

	hmu   sync.Mutex
	hist  *hdr.Histogram // e2e latency this interval (µs)
	spare *hdr.Histogram

	// Sampler goroutine only.
	prevConsumed, prevBytes, prevProduced int64
}

func newPartition(idx int, r adapters.StreamReader, now int64) *partition {
	p := &partition{idx: idx, reader: r, hist: newE2E(), spare: newE2E(), rec: newRecorder()}
	p.lastTS.Store(now)
	p.activeSince.Store(now)
	return p
}

// tsRun is a run of consecutive rows with the same produce time (one
// batch's rows in one partition): recorded into the histogram at once.
type tsRun struct {
	ts int64
	n  int64
}

// consume is the consumer of one partition: it reads the partition in
// order, waits at epoch boundaries until older epochs are drained, checks
// every row and measures its end-to-end latency. It returns after the
// marker of the last epoch that writes to the partition, or when the
// consumers are cancelled.
func (w *Workload) consume(pt *partition) {
	defer w.consWG.Done()
	ctx := w.consCtx
	rows := make([][]byte, 0, w.opts.ReadBatch)
	d := &delivery{runs: make([]tsRun, 0, 64), allowed: w.ep.drainedThrough() + 1}
	// A shared stream's ledger keeps the positions delivered.
	pr, _ := pt.reader.(adapters.PositionedReader)
	if !w.shared {
		pr = nil
	}
	backoff := 10 * time.Millisecond
	for {
		var err error
		rows, err = pt.reader.Read(ctx, rows[:0], w.opts.ReadBatch)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			w.readErrors.Add(1)
			w.setErr(fmt.Sprintf("partition %d: read: %v", pt.idx, err))
			if adapters.Kind(err) == adapters.KindIntegrity {
				// Rows missing from the log: no retry brings them back.
				w.integrity.Add(1)
				msg := fmt.Sprintf("partition %d: %v", pt.idx, err)
				w.lastIntegrity.Store(&msg)
				continue
			}
			if waitCtx(ctx, backoff) != nil {
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		backoff = 10 * time.Millisecond
		if len(rows) == 0 {
			continue
		}
		d.now = w.rowClock(w.now())
		d.pos = nil
		if pr != nil {
			if pos := pr.Positions(); len(pos) == len(rows) {
				d.pos = pos
			}
		}
		end := w.deliver(ctx, pt, rows, d)
		w.commit(pt, d)
		if end {
			return
		}
	}
}

// delivery is what one read delivered, until it is committed to the
// partition's counters and latency histogram, and the consumer's epoch
// barrier.
type delivery struct {
	now           int64 // when the rows were read (rowClock)
	n, nb, lastTS int64 // rows, bytes, the newest write time
	runs          []tsRun
	allowed       int     // the newest epoch this consumer may deliver
	pos           []int64 // the rows' positions (a shared stream's, when its reader has them)
}

// deliver checks and counts one read's rows. It returns true when the
// consumer must end: its partition retired, or the consumers were
// cancelled while it waited at an epoch boundary.
func (w *Workload) deliver(ctx context.Context, pt *partition, rows [][]byte, d *delivery) bool {
	prods := *w.prods.Load()
	for i, row := range rows {
		h, ok := decodeHeader(row)
		if !ok {
			w.check.unknown.Add(1)
			continue
		}
		if w.shared {
			if h.kind == kindData {
				// In a shared stream the epoch field is the writer's run id.
				if int(h.origin) == w.origin && h.epoch != w.runID {
					w.collided.Add(1)
				}
				pt.rec.add(ledgerID{int(h.origin), h.epoch, h.producer, h.key}, h.seq)
				if d.pos != nil {
					pt.rec.at(d.pos[i])
				}
				d.add(h.ts, len(row))
			}
			continue
		}
		e := int(h.epoch)
		if h.kind == kindMarker {
			// Every row of epochs <= e in this partition is delivered.
			w.ep.sealThrough(pt.idx, e)
			if d.allowed <= e {
				d.allowed = max(d.allowed, w.ep.drainedThrough()+1)
			}
			if w.ep.retire(pt.idx, e) {
				return true
			}
			continue
		}
		if e > d.allowed && !w.noBarrier {
			w.commit(pt, d)
			w.ep.sealThrough(pt.idx, e-1)
			pt.held.Store(true)
			drained, err := w.ep.waitDrained(ctx, e-1)
			pt.held.Store(false)
			if err != nil {
				return true
			}
			d.allowed = drained + 1
			d.now = w.now()
		}
		if int(h.producer) >= len(prods) {
			prods = *w.prods.Load()
			if int(h.producer) >= len(prods) {
				w.check.unknown.Add(1)
				continue
			}
		}
		pr := prods[h.producer]
		if int(h.key) >= len(pr.check) {
			w.check.unknown.Add(1)
			continue
		}
		w.check.deliver(&pr.check[h.key], h.producer, h.key, h.seq)
		d.add(h.ts, len(row))
	}
	return false
}

// add counts one delivered row of size bytes written at ts.
func (d *delivery) add(ts int64, size int) {
	d.n++
	d.nb += int64(size)
	d.lastTS = ts
	if k := len(d.runs) - 1; k >= 0 && d.runs[k].ts == ts {
		d.runs[k].n++
	} else {
		d.runs = append(d.runs, tsRun{ts: ts, n: 1})
	}
}

// commit adds what was delivered to the partition's and the workload's
// counters and the rows' end-to-end latencies to the partition's
// histogram.
func (w *Workload) commit(pt *partition, d *delivery) {
	if d.n > 0 {
		pt.consumed.Add(d.n)
		pt.bytes.Add(d.nb)
		pt.lastTS.Store(d.lastTS)
		w.consumed.Add(d.n)
		d.n, d.nb = 0, 0
	}
	if len(d.runs) > 0 {
		pt.hmu.Lock()
		for _, r := range d.runs {
			us := (d.now - r.ts) / 1000
			_ = pt.hist.RecordValues(min(max(us, e2eLowest), e2eHighest), r.n)
		}
		pt.hmu.Unlock()
		d.runs = d.runs[:0]
	}
}

// waitCtx sleeps d or until ctx is done.
func waitCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
