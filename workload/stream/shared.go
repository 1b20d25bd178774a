package stream

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"time"

	"benchtop/adapters"
)

// Shared mode: the stream is consumed by a group of processes
// (adapters.SharedStream; Kafka with kafka.group: the agents of a fleet,
// or processes started apart), and the server decides which process
// delivers which partition, moving partitions when members or partitions
// come and go. What changes here:
//
//   - Every row names the process that wrote it: its origin
//     (stream.origin, set by a fleet's coordinator; unset, a random one
//     from 1 to 65535, never the PID, which is 1 in every container) and
//     a random run id, which tells two processes that drew one origin
//     apart (a collision is counted and said, and the verdicts hold).
//   - Order is checked per partition: a key's rows rise in seq within each
//     partition, which the server promises. The epoch barrier of
//     epoch.go, which holds a key's new partition back until its old one
//     is drained, needs every partition's end to be seen by this process:
//     in a group another process may own the old one, so there is no
//     barrier and no epoch marker. After a live partition change a key's
//     rows in its old and new partitions may be delivered interleaved.
//   - Every delivered row goes into its partition's recorder, whoever
//     produced it, with its position (a Kafka offset); the ledger of every
//     process merged (Merge) is the verdict. A process judges from its own
//     ledger what it can: order, rows it delivered twice, rows missing
//     from the log it read. Lost rows it judges only when it delivered
//     every row the stream holds and none another process wrote
//     (VerdictComplete: alone in its group); otherwise its verdict is
//     partial, and `benchtop verdict` (or a fleet's coordinator) merges
//     the members' ledgers.
//   - A group another member can grow (adapters.GroupStream) is
//     followed: when the stream has more partitions than this process
//     made, it makes readers for them and switches its producers.
//   - The end of the run waits until the group has delivered everything
//     in the stream (WaitConsumed: the group's committed offsets reach
//     the partitions' end offsets, within stream.drain) rather than for
//     this process's readers to reach markers they may never own.
//   - stream.maxlag is not applied: what this process consumed says
//     nothing of the lag of rows other processes consume.

// identity is this process's origin (stream.origin, or a random non-zero
// one when unset) and a random non-zero run id.
func identity(origin int) (int, uint32) {
	var b [6]byte
	for {
		_, _ = rand.Read(b[:])
		run := binary.LittleEndian.Uint32(b[2:])
		o := origin
		if o == 0 {
			o = int(binary.LittleEndian.Uint16(b[:2]))
		}
		if o != 0 && run != 0 {
			return o, run
		}
	}
}

// drainShared waits, after the last rows and before the consumers stop,
// until the group delivered every row in the stream (bounded by ctx,
// stream.drain). It first takes the stream's spans, against which the
// verdict checks that this process delivered every row (complete) or not.
func (w *Workload) drainShared(ctx context.Context) {
	if w.gs != nil {
		w.spans, w.spanErr = w.gs.Spans(ctx)
	}
	if err := w.ss.WaitConsumed(ctx); err != nil {
		w.drainErr = fmt.Errorf("the consumer group did not deliver every row within %s (%v): %w", PropDrain, w.opts.Drain, err)
	}
}

// Shared reports whether the run's stream was consumed by a group of
// processes (valid after Start).
func (w *Workload) Shared() bool {
	w.ctlMu.Lock()
	defer w.ctlMu.Unlock()
	return w.shared
}

// WatchPartitions takes the runner's functions for partition changes
// made here without SetPartitions (following a group's growth) and for a
// growth that takes effect later (the group's rebalance).
func (w *Workload) WatchPartitions(changed func(from, to int, why string), later func(partitions int, what string)) {
	w.ctlMu.Lock()
	defer w.ctlMu.Unlock()
	w.watch, w.later = changed, later
}

// assignWait bounds the wait for a group's rebalance after a growth.
const assignWait = 2 * time.Minute

// awaitAssigned tells the runner, once the group has given every one of
// n partitions to a member, how long after the growth (at t0) that was:
// until then the new partitions' rows wait for a consumer. Caller holds
// ctlMu.
func (w *Workload) awaitAssigned(n int, t0 time.Time) {
	if w.gs == nil || w.later == nil {
		return
	}
	later, gs, ctx := w.later, w.gs, w.consCtx
	go func() {
		ctx, cancel := context.WithTimeout(ctx, assignWait)
		defer cancel()
		if err := gs.WaitAssigned(ctx, n); err != nil {
			return
		}
		later(n, fmt.Sprintf("the consumer group gave all %d partitions a consumer %v after the growth (a rebalance: until then rows of the new partitions waited)", n, time.Since(t0).Round(100*time.Millisecond)))
	}()
}

// follow takes the stream's growth by another member of the group: it
// makes the readers of the new partitions and switches the producers, as
// SetPartitions does, and tells the runner.
func (w *Workload) follow(ctx context.Context, grown <-chan int) {
	for {
		var n int
		select {
		case <-ctx.Done():
			return
		case n = <-grown:
		}
		t0 := time.Now()
		w.ctlMu.Lock()
		if w.stopped || n <= w.ep.cur.parts || n > MaxPartitions {
			w.ctlMu.Unlock()
			continue
		}
		from := w.ep.cur.parts
		err := w.ensureReaders(ctx, n)
		if err == nil {
			err = w.switchEpoch(ctx, n)
		}
		if err == nil {
			w.awaitAssigned(n, t0)
		}
		watch := w.watch
		w.ctlMu.Unlock()
		if err != nil {
			w.setErr(fmt.Sprintf("following the group's growth to %d partitions: %v", n, err))
			continue
		}
		if watch != nil {
			watch(from, n, fmt.Sprintf("another member of the group grew the stream; followed in %v", time.Since(t0).Round(time.Millisecond)))
		}
	}
}

// Ledger is this process's account of the rows of a shared stream: every
// row it delivered (whoever produced it) and what its producers wrote.
// It is nil unless the stream was shared. Call it after the run.
func (w *Workload) Ledger() *Ledger {
	w.ctlMu.Lock()
	shared, stopped := w.shared, w.stopped
	w.ctlMu.Unlock()
	if !shared || !stopped {
		return nil
	}
	produced := map[ledgerID]uint32{}
	for _, p := range *w.prods.Load() {
		p.mu.Lock()
		for k, n := range p.keySeq {
			if n > 0 {
				produced[ledgerID{w.origin, w.runID, p.id, uint32(k)}] = n
			}
		}
		p.mu.Unlock()
	}
	failed := map[ledgerID][]uint32{}
	w.check.mu.Lock()
	for id, set := range w.check.failed {
		kid := ledgerID{w.origin, w.runID, uint32(id >> 32), uint32(id)}
		for s := range set {
			failed[kid] = append(failed[kid], s)
		}
	}
	w.check.mu.Unlock()
	parts := *w.parts.Load()
	recs := make([]*recorder, len(parts))
	for i, pt := range parts {
		recs[i] = pt.rec
	}
	return ledgerOf(w.origin, w.runID, recs, produced, failed, w.check.unknown.Load())
}

// sharedSummary fills the row accounting of a shared stream's summary
// from this process's ledger: complete when this process delivered every
// row the stream holds and no other process's, else partial (lost rows
// not judged).
func (w *Workload) sharedSummary(s *Summary) {
	l := w.Ledger()
	if l == nil {
		return
	}
	v := Merge(l)
	s.Ledger, s.Origin, s.Run = l, w.origin, w.runID
	s.OriginShared = w.collided.Load()
	s.Distinct, s.Duplicated, s.Redelivered, s.OutOfOrder, s.Unknown = v.Distinct, v.Duplicated, v.Redelivered, v.OutOfOrder, v.Unknown
	s.FailedWrites, s.FailedDelivered = v.FailedWrites, v.FailedDelivered
	s.ForeignConsumed = foreignRows(l)
	if s.ForeignConsumed == 0 && w.spanErr == nil && w.spans != nil && coversSpans(l, w.spans) {
		s.Verdict = VerdictComplete
		s.Lost = v.Lost
		return
	}
	s.Verdict = VerdictPartial
	// Rows unknown to a partial verdict may be another process's: only
	// the corrupt ones are this process's to judge.
	s.Unknown = l.Corrupt
	s.ConsumedElsewhere = v.Lost
}

// foreignRows counts deliveries of rows another process produced.
func foreignRows(l *Ledger) int64 {
	var n int64
	for _, k := range l.Keys {
		if k.Origin == l.Origin && k.Run == l.Run {
			continue
		}
		for _, r := range k.Delivered {
			if r.Hi >= r.Lo {
				n += int64(r.Hi-r.Lo) + 1
			}
		}
	}
	return n
}

// coversSpans reports whether the ledger's positions hold every position
// of every span: this process delivered every row the stream held when
// its drain began.
func coversSpans(l *Ledger, spans []adapters.Span) bool {
	byPart := map[int][]Offsets{}
	for _, pp := range l.Positions {
		byPart[pp.Partition] = append(byPart[pp.Partition], pp.Delivered...)
	}
	for _, sp := range spans {
		if sp.End <= sp.From {
			continue
		}
		need := Offsets{Lo: sp.From, Hi: sp.End - 1}
		ok := false
		for _, u := range unionOffsets(byPart[sp.Partition]) {
			if u.Lo <= need.Lo && u.Hi >= need.Hi {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
