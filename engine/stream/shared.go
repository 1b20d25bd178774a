package stream

import (
	"context"
	"fmt"
	"time"
)

// Shared mode: the stream is consumed by a group of processes
// (adapters.SharedStream; Kafka with kafka.group, the agents of a fleet),
// and the server decides which process delivers which partition, moving
// partitions when members or partitions come and go. What changes here:
//
//   - Order is checked per partition: a key's rows rise in seq within each
//     partition, which the server promises. The epoch barrier of
//     epoch.go, which holds a key's new partition back until its old one
//     is drained, needs every partition's end to be seen by this process:
//     in a group another process may own the old one, so there is no
//     barrier and no epoch marker. After a live partition change a key's
//     rows in its old and new partitions may be delivered interleaved.
//   - Every delivered row goes into its partition's recorder, whoever
//     produced it (rows name their origin process, stream.origin); the
//     ledger (Ledger) of every process merged (Merge) is the verdict.
//     When the workload runs alone (origin 0) its own ledger is the
//     verdict; in a fleet (origin > 0) the coordinator merges them and
//     this process's closing check leaves lost and duplicated rows to it.
//   - The end of the run waits until the group has delivered everything
//     in the stream (WaitConsumed) rather than for this process's readers
//     to reach markers they may never own.
//   - stream.maxlag is not applied: what this process consumed says
//     nothing of the lag of rows other processes consume.

// drainShared waits, after the last rows and before the consumers stop,
// until the group delivered every row in the stream (bounded by ctx).
func (w *Workload) drainShared(ctx context.Context, t0 time.Time) {
	if err := w.ss.WaitConsumed(ctx); err != nil {
		w.drainErr = fmt.Errorf("the consumer group did not deliver every row within the drain time (%v): %w", time.Since(t0).Round(time.Millisecond), err)
	}
}

// Shared reports whether the run's stream was consumed by a group of
// processes (valid after Start).
func (w *Workload) Shared() bool {
	w.ctlMu.Lock()
	defer w.ctlMu.Unlock()
	return w.shared
}

// fleetVerdict: the verdict on rows is the fleet's, not this process's.
func (w *Workload) fleetVerdict() bool { return w.shared && w.opts.Origin > 0 }

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
				produced[ledgerID{w.opts.Origin, p.id, uint32(k)}] = n
			}
		}
		p.mu.Unlock()
	}
	failed := map[ledgerID][]uint32{}
	w.check.mu.Lock()
	for id, set := range w.check.failed {
		kid := ledgerID{w.opts.Origin, uint32(id >> 32), uint32(id)}
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
	return ledgerOf(w.opts.Origin, recs, produced, failed, w.check.unknown.Load())
}

// sharedSummary fills the row accounting of a shared stream's summary:
// from this process's ledger alone when it runs alone; in a fleet only
// what one process can know (its duplicates and disorder), the rest being
// the fleet's verdict.
func (w *Workload) sharedSummary(s *Summary) {
	l := w.Ledger()
	if l == nil {
		return
	}
	v := Merge(l)
	s.Duplicated, s.OutOfOrder = v.Duplicated, v.OutOfOrder
	if w.fleetVerdict() {
		s.FleetVerdict = true
		s.Unknown = l.Corrupt
		s.Ledger = l
		return
	}
	s.Distinct, s.Lost, s.Unknown = v.Distinct, v.Lost, v.Unknown
	s.FailedWrites, s.FailedDelivered = v.FailedWrites, v.FailedDelivered
}
