package stream

import (
	"context"
	"sync"
)

// Live repartitioning keeps the order of every key with epochs.
//
// An epoch is one partition map: epoch e writes key k to partition
// uid(k) % P_e. A change from P_e to P_{e+1}:
//
//  1. takes the write side of the producers' lock: Produce calls in flight
//     (all of epoch e) finish, new ones wait;
//  2. appends an epoch marker for e to every partition of epoch e, so that
//     in each partition every row of epoch e comes before the marker and
//     every later row after it;
//  3. publishes epoch e+1 and releases the producers.
//
// A consumer delivers a row of epoch E only once every partition of every
// earlier epoch has been consumed up to its marker ("drained through
// E-1"). So all rows of key k written under the old map are delivered
// before any row of k written under the new one, whichever partitions they
// are in, and the stall is one Produce call plus one marker write for the
// producers and one drain of the lag for the consumers of moved keys.
// Markers are rows like others: a stream needs no feature for this, and a
// partition read to its marker has nothing of that epoch left.
//
// A data row of a later epoch also proves, by the partition's order, that
// the earlier epochs are over in that partition: it seals them too, so a
// marker that failed to be written cannot stall the stream for ever.
type epochs struct {
	// prodMu: producers hold the read side around Produce; a change holds
	// the write side while it writes markers.
	prodMu sync.RWMutex
	cur    *epochState // the epoch producers write under (prodMu)

	mu        sync.Mutex
	list      []*epochState
	drained   int           // every epoch <= drained is drained
	drainedCh chan struct{} // closed when drained advances
	running   []bool        // per partition: a consumer goroutine runs
}

type epochState struct {
	epoch   int
	parts   int    // partitions 0..parts-1 are written in this epoch
	sealed  []bool // per partition: consumed up to this epoch's end
	nsealed int
	ended   bool // a later epoch exists (markers written)
}

func newEpochs(parts int) *epochs {
	e0 := &epochState{epoch: 0, parts: parts, sealed: make([]bool, parts)}
	return &epochs{cur: e0, list: []*epochState{e0}, drained: -1, drainedCh: make(chan struct{})}
}

// begin appends the next epoch with n partitions and returns it; the
// caller holds prodMu's write side and publishes it with publish.
func (ep *epochs) begin(n int) *epochState {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	last := ep.list[len(ep.list)-1]
	last.ended = true
	next := &epochState{epoch: last.epoch + 1, parts: n, sealed: make([]bool, n)}
	ep.list = append(ep.list, next)
	ep.advanceLocked()
	return next
}

// sealThrough records that partition p was consumed to the end of every
// epoch <= e. It returns the highest epoch then drained.
func (ep *epochs) sealThrough(p, e int) int {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	for i := ep.drained + 1; i <= e && i < len(ep.list); i++ {
		st := ep.list[i]
		if p < st.parts && !st.sealed[p] {
			st.sealed[p] = true
			st.nsealed++
		}
	}
	ep.advanceLocked()
	return ep.drained
}

func (ep *epochs) advanceLocked() {
	moved := false
	for ep.drained+1 < len(ep.list) {
		st := ep.list[ep.drained+1]
		if !st.ended || st.nsealed < st.parts {
			break
		}
		ep.drained++
		moved = true
	}
	if moved {
		close(ep.drainedCh)
		ep.drainedCh = make(chan struct{})
	}
}

// waitDrained blocks until every epoch <= e is drained; it returns the
// highest drained epoch.
func (ep *epochs) waitDrained(ctx context.Context, e int) (int, error) {
	for {
		ep.mu.Lock()
		d, ch := ep.drained, ep.drainedCh
		ep.mu.Unlock()
		if d >= e {
			return d, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return d, ctx.Err()
		}
	}
}

// drainedThrough returns the highest drained epoch.
func (ep *epochs) drainedThrough() int {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.drained
}

// retire is called by the consumer of partition p after the marker of
// epoch e: it reports whether the consumer is to stop because p is not
// written in any later epoch, and if so marks it stopped, atomically with
// respect to claim.
func (ep *epochs) retire(p, e int) bool {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	for _, st := range ep.list[min(e+1, len(ep.list)):] {
		if p < st.parts {
			return false
		}
	}
	if p < len(ep.running) {
		ep.running[p] = false
	}
	return true
}

// claim marks partitions 0..n-1 as consumed and returns those that had no
// running consumer (the caller starts one for each).
func (ep *epochs) claim(n int) []int {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	for len(ep.running) < n {
		ep.running = append(ep.running, false)
	}
	var start []int
	for p := 0; p < n; p++ {
		if !ep.running[p] {
			ep.running[p] = true
			start = append(start, p)
		}
	}
	return start
}

// isRunning reports whether partition p has a running consumer.
func (ep *epochs) isRunning(p int) bool {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return p < len(ep.running) && ep.running[p]
}

// count returns the number of epochs so far.
func (ep *epochs) count() int {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return len(ep.list)
}
