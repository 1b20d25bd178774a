package memory

import (
	"time"

	"benchtop/adapters"
)

// Online resharding.
//
// A reshard builds a complete new partition map beside the old one and
// swaps it in. Readers and writers keep working on the old partitions
// while the new ones are built; they are stopped only for the final step,
// which is short. How the new map ends up equal to the old one at the
// moment of the swap:
//
//  1. Every old partition starts logging: from now on each change to one
//     of its entries (a key inserted, deleted, or given a new field array)
//     is logged. An Update of existing fields does not change the entry:
//     it writes the new value into the record's field array in place.
//  2. Copy: each old partition is walked in key order, in chunks of
//     chunkSize records under its lock, and every (key, field array)
//     is put into the new partition its hash selects. The new map shares
//     the field arrays with the old one, so in-place updates made after
//     the copy are seen through both.
//  3. Catch-up rounds: each old partition's log is taken (under its lock)
//     and replayed (under its lock): for each logged key, the new map
//     gets the old partition's entry for it now, or loses the key if the
//     old partition no longer has it. Repeated while the logs are long.
//  4. Swap: all old partitions are write-locked, in index order; the
//     remaining logs are replayed; the new map is published; the old
//     partitions are marked retired; the locks are released.
//
// Why that is exact: at the swap, take any key. If its entry did not
// change after step 1, the key was there throughout the walk of step 2,
// which put that same entry (the same field array, with its current
// values) in the new map. If it did change, the change was logged, and
// the replay of that log ran after the change and after the copy and read
// the old partition's current entry; any later change was logged again
// and replayed later, the last time in step 4 with every writer stopped.
// So each key has exactly its old entry, and no key is lost or
// duplicated. An operation that was waiting for an old
// partition's lock finds it retired and retries on the new map, so no
// write can land in an old partition after its records have moved.
//
// Only step 4 stops operations. Its length is the replay of the last log,
// plus taking P locks. Scans lock all partitions and a reshard takes
// all write locks, both in index order, so they cannot deadlock.

// chunkSize is how many records step 2 copies under one lock hold.
const chunkSize = 1024

// maxRounds bounds the catch-up rounds; smallLog is the log length at which
// the remaining replay is short enough to do with operations stopped.
const (
	maxRounds = 4
	smallLog  = 256
)

// reshardStats is what one SetPartitions did, for tests and benchmarks.
type reshardStats struct {
	records  int           // records copied
	replayed int           // log entries replayed, all rounds
	final    int           // log entries replayed with operations stopped
	total    time.Duration // from start to swap
	blocked  time.Duration // operations stopped (step 4)
}

func (s *reshardStats) add(o reshardStats) {
	s.records += o.records
	s.replayed += o.replayed
	s.final += o.final
	s.total += o.total
	s.blocked += o.blocked
}

// reshard moves t to n partitions. Callers serialise reshards.
func (t *table) reshard(n int, hook func(step string)) reshardStats {
	var st reshardStats
	start := time.Now()
	old := t.parts.Load()
	if len(old.parts) == n {
		return st
	}
	records := 0
	for _, p := range old.parts {
		p.mu.Lock()
		records += p.len()
		p.mu.Unlock()
	}
	nm := newPartMap(n, records)

	// 1. Start logging.
	for _, p := range old.parts {
		p.mu.Lock()
		p.logging = true
		p.log = nil
		p.mu.Unlock()
	}

	// 2. Copy. From a single partition the keys arrive in order and Load
	// appends them cheaply; from several they interleave, so Set.
	sorted := len(old.parts) == 1
	for _, p := range old.parts {
		cursor, first := "", true
		for {
			var done bool
			var copied int
			cursor, copied, done = t.copyChunk(p, cursor, first, nm, sorted)
			st.records += copied
			first = false
			if done {
				break
			}
		}
	}

	if hook != nil {
		hook("copy")
	}

	// 3. Catch up while the logs are long.
	for round := 0; round < maxRounds; round++ {
		pending := 0
		for _, p := range old.parts {
			p.mu.Lock()
			log := p.log
			p.log = nil
			p.mu.Unlock()

			p.mu.Lock()
			t.replay(p, log, nm)
			p.mu.Unlock()
			st.replayed += len(log)
			pending += len(log)
		}
		if pending <= smallLog {
			break
		}
	}

	if hook != nil {
		hook("catch-up")
	}

	// 4. Swap with everything stopped.
	stop := time.Now()
	for _, p := range old.parts {
		p.mu.Lock()
	}
	for _, p := range old.parts {
		t.replay(p, p.log, nm)
		st.replayed += len(p.log)
		st.final += len(p.log)
		p.log = nil
		p.logging = false
		p.retired = true
	}
	t.parts.Store(nm)
	for _, p := range old.parts {
		p.mu.Unlock()
	}
	st.blocked = time.Since(stop)
	st.total = time.Since(start)
	return st
}

// copyChunk copies up to chunkSize records of p, from the first key after
// cursor (or >= cursor when first), into the new map under p's lock.
// It returns the last key copied and whether p is exhausted.
func (t *table) copyChunk(p *partition, cursor string, first bool, nm *partMap, sorted bool) (string, int, bool) {
	n := 0
	p.mu.Lock()
	p.tree.Ascend(cursor, func(k string, rec []adapters.Field) bool {
		if !first && k == cursor {
			return true
		}
		q := t.partOf(nm, k)
		if sorted {
			q.load(k, rec)
		} else {
			q.set(k, rec)
		}
		cursor = k
		n++
		return n < chunkSize
	})
	p.mu.Unlock()
	return cursor, n, n < chunkSize
}

// replay makes the new map agree with old partition p for each logged key.
// The caller holds p locked (read or write); the new map is private to the
// reshard until it is published.
func (t *table) replay(p *partition, log []string, nm *partMap) {
	for _, k := range log {
		q := t.partOf(nm, k)
		if rec, ok := p.get(k); ok {
			q.set(k, rec)
		} else {
			q.del(k)
		}
	}
}
