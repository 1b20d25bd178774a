package ycsb

import (
	"context"
	"strings"
	"time"

	"benchtop/adapters"
)

// loadRetry is a failed load-phase insert (or batch) waiting to be tried
// again: YCSB's core_workload_insertion_retry_limit and _interval.
type loadRetry struct {
	pending bool
	tries   int       // retries done for this step
	at      time.Time // the next try, not before
	key     string
	fields  []adapters.Field
	batch   []adapters.Record
}

// Delay implements workload.Delayer: how long until a pending retry may
// run. The runner waits it out before the step, outside the measured time.
func (cw *coreWorker) Delay() time.Duration {
	if !cw.retry.pending {
		return 0
	}
	return time.Until(cw.retry.at)
}

// Load runs one load-phase step: one insert, or one batch when the
// adapter batches, or the retry of a failed one. It returns the number of
// records, 0 when the load is done. Each try is measured as an INSERT, as
// YCSB's measurements count every attempt.
func (cw *coreWorker) Load(ctx context.Context, limit func(int) int) (int, error) {
	cw.took = nil
	if cw.retry.pending {
		return cw.loadAgain(ctx)
	}
	w := cw.w
	if w.batcher == nil {
		if limit(1) == 0 {
			return 0, nil
		}
		n := w.keySequence.Next()
		key := unsafeString(w.keyInto(&cw.keyArr, n))
		values := cw.buildValues(key, Fields{All: true})
		err := w.db.Insert(ctx, w.cfg.Table, key, values)
		if err != nil {
			cw.keepForRetry(key, values, nil)
		}
		return 1, err
	}
	want := limit(w.batch)
	if want == 0 {
		return 0, nil
	}
	built := cw.buildBatch(want)
	var err error
	if w.rowTimer != nil {
		err = cw.insertRowTimed(ctx, cw.batch, built)
	} else {
		err = w.batcher.InsertBatch(ctx, w.cfg.Table, cw.batch)
	}
	if err != nil {
		cw.keepForRetry("", nil, cw.batch)
	}
	return want, err
}

// insertRowTimed inserts records through the adapter's RowTimer and
// keeps in cw.took each record's building (built, none for a retry) and
// statement time but the last's: YCSB's executeUpdate per record with
// jdbc.autocommit=false, each OK, the commit in the last record's time.
func (cw *coreWorker) insertRowTimed(ctx context.Context, records []adapters.Record, built []int64) error {
	var err error
	cw.rowTook, err = cw.w.rowTimer.InsertBatchTimed(ctx, cw.w.cfg.Table, records, cw.rowTook[:0])
	if err != nil || len(cw.rowTook) != len(records) {
		return err
	}
	took := make([]int64, len(records)-1)
	for i := range took {
		took[i] = cw.rowTook[i]
		if i < len(built) {
			took[i] += built[i]
		}
	}
	cw.took, cw.batched = took, false
	return nil
}

// epoch is the origin of monotonic.
var epoch = time.Now()

// monotonic is the time (ns) on the monotonic clock.
func monotonic() int64 { return int64(time.Since(epoch)) }

// Queued implements workload.Queuer: the time of each record of the last
// load step timed on its own, when the adapter's batches report as
// queued (batched) or time each record.
func (cw *coreWorker) Queued() ([]int64, bool) { return cw.took, cw.batched }

// queuedTimes keeps in cw.took what YCSB's rule makes of a batch of n
// records whose records' own times are took (all of them, built or not):
// a full batch's last record sends it, so it is left out (the runner
// gives it the rest of the step); a short one, the load's last, is all
// queued.
func (cw *coreWorker) queuedTimes(took []int64, n int) {
	if n >= cw.w.batch {
		took = took[:n-1]
	}
	cw.took, cw.batched = took, true
}

// buildBatch fills cw.batch with the next want records, timing each
// record's building when the batches report as queued (its addBatch, in
// YCSB's binding; kept in cw.took) or time each record (returned).
// Batches need stable keys and values until the call returns: they are
// built in per-call arenas.
func (cw *coreWorker) buildBatch(want int) []int64 {
	w := cw.w
	cw.batch = cw.batch[:0]
	var valArena []byte
	var took []int64
	var last int64
	timed := w.queues || w.rowTimer != nil
	if timed {
		took = make([]int64, 0, want)
		last = cw.clock()
	}
	for i := 0; i < want; i++ {
		n := w.keySequence.Next()
		key := string(w.keyInto(&cw.keyArr, n))
		vals := make([]adapters.Field, len(w.fieldNames))
		for j, name := range w.fieldNames {
			v := cw.value(j, key, name)
			valArena = append(valArena, v...)
			vals[j] = adapters.Field{Name: name, Value: valArena[len(valArena)-len(v):]}
		}
		cw.batch = append(cw.batch, adapters.Record{Key: key, Fields: vals})
		if timed {
			now := cw.clock()
			took = append(took, now-last)
			last = now
		}
	}
	if w.queues {
		cw.queuedTimes(took, want)
	}
	return took
}

// keepForRetry keeps a failed insert (copied: the buffers are reused) or
// batch (built for this call only) for its next try, unless the retries
// are spent.
func (cw *coreWorker) keepForRetry(key string, values []adapters.Field, batch []adapters.Record) {
	if !cw.scheduleRetry() {
		return
	}
	if batch != nil {
		cw.retry.batch = append(cw.retry.batch[:0], batch...)
		return
	}
	cw.retry.key = strings.Clone(key)
	cw.retry.fields = cw.retry.fields[:0]
	for _, f := range values {
		cw.retry.fields = append(cw.retry.fields, adapters.Field{Name: f.Name, Value: append([]byte(nil), f.Value...)})
	}
}

// scheduleRetry counts one more retry and sets its time, after YCSB's
// pause of 0.8 to 1.2 times the interval; it returns false (and forgets
// the step) when the retries are spent.
func (cw *coreWorker) scheduleRetry() bool {
	cfg := cw.w.cfg
	if cw.retry.tries >= cfg.InsertionRetryLimit {
		cw.retry = loadRetry{fields: cw.retry.fields[:0]}
		return false
	}
	cw.retry.tries++
	cw.retry.pending = true
	pause := time.Duration(float64(cfg.InsertionRetryInterval) * (0.8 + 0.4*cw.r.Float64()))
	cw.retry.at = time.Now().Add(pause)
	return true
}

// loadAgain tries a kept insert or batch again, after what remains of its
// pause (the runner normally waited it out already).
func (cw *coreWorker) loadAgain(ctx context.Context) (int, error) {
	if d := cw.Delay(); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return 0, ctx.Err()
		}
	}
	w := cw.w
	cw.retry.pending = false
	var n int
	var err error
	switch {
	case cw.retry.batch != nil && w.rowTimer != nil:
		n, err = len(cw.retry.batch), cw.insertRowTimed(ctx, cw.retry.batch, nil)
	case cw.retry.batch != nil:
		n, err = len(cw.retry.batch), w.batcher.InsertBatch(ctx, w.cfg.Table, cw.retry.batch)
	default:
		n, err = 1, w.db.Insert(ctx, w.cfg.Table, cw.retry.key, cw.retry.fields)
	}
	if err == nil && cw.retry.batch != nil && w.queues {
		// Queued before: the records' queuing takes no time now.
		cw.queuedTimes(make([]int64, n), n)
	}
	if err == nil || !cw.scheduleRetry() {
		cw.retry = loadRetry{fields: cw.retry.fields[:0]}
	}
	return n, err
}
