package stream

import (
	"sync"
	"sync/atomic"
)

// The checker proves, row by row, what the consumers delivered: every key
// (a producer's key index) numbers its rows 1, 2, 3, ... and each delivery
// is checked against the key's state. The fast path is one atomic
// compare-and-swap per row; anything unusual takes a mutex and an exact
// record of which sequence numbers were seen out of line.
//
// The state of a key packs two numbers in one atomic word:
//
//	contiguous (high 32 bits): every seq <= contiguous was delivered
//	highest    (low 32 bits):  the highest seq delivered
//
// contiguous == highest is the normal case. A seq delivered when a higher
// one already was is out of order; a seq delivered twice is a duplicate;
// a seq produced but never delivered (by the end of the drain) is lost.
type checker struct {
	mu    sync.Mutex
	ahead map[uint64]map[uint32]struct{} // per key: seqs > contiguous seen
	// failed holds rows whose Produce call failed: they may or may not be
	// in the stream, so they are not counted lost when missing.
	failed map[uint64]map[uint32]struct{}

	duplicated atomic.Int64
	outOfOrder atomic.Int64
	unknown    atomic.Int64 // rows naming a producer or key that does not exist
	maxAhead   int
	presumed   atomic.Int64 // seqs given up on when an ahead set grew too large
}

func newChecker() *checker {
	return &checker{ahead: map[uint64]map[uint32]struct{}{}, failed: map[uint64]map[uint32]struct{}{}, maxAhead: 1 << 16}
}

func pack(contig, high uint32) uint64 { return uint64(contig)<<32 | uint64(high) }

func keyID(producer, key uint32) uint64 { return uint64(producer)<<32 | uint64(key) }

// deliver records one delivery of seq for the key whose state is st.
func (c *checker) deliver(st *atomic.Uint64, producer, key, seq uint32) {
	v := st.Load()
	contig, high := uint32(v>>32), uint32(v)
	if contig == high && seq == contig+1 && st.CompareAndSwap(v, pack(seq, seq)) {
		return
	}
	c.slow(st, producer, key, seq)
}

func (c *checker) slow(st *atomic.Uint64, producer, key, seq uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := keyID(producer, key)
	for {
		v := st.Load()
		contig, high := uint32(v>>32), uint32(v)
		set := c.ahead[id]
		if seq <= contig {
			c.duplicated.Add(1)
			return
		}
		if _, seen := set[seq]; seen {
			c.duplicated.Add(1)
			return
		}
		if seq < high {
			c.outOfOrder.Add(1)
		}
		nhigh := max(high, seq)
		ncontig := contig
		if seq == contig+1 {
			ncontig = seq
			for {
				if _, ok := set[ncontig+1]; !ok {
					break
				}
				ncontig++
			}
		}
		if !st.CompareAndSwap(v, pack(ncontig, nhigh)) {
			continue // a fast-path delivery of another seq came between
		}
		// Commit the ahead set to match the new state.
		if ncontig != contig {
			for s := contig + 1; s <= ncontig; s++ {
				delete(set, s)
			}
		}
		if seq > ncontig {
			if set == nil {
				set = map[uint32]struct{}{}
				c.ahead[id] = set
			}
			set[seq] = struct{}{}
			if len(set) > c.maxAhead {
				c.giveUpLocked(st, id, set)
			}
		}
		if len(set) == 0 {
			delete(c.ahead, id)
		}
		return
	}
}

// giveUpLocked bounds memory when a gap never closes (a lost row followed
// by many more of its key): the missing seqs below the lowest seen one are
// presumed lost and the contiguous mark moves past them.
func (c *checker) giveUpLocked(st *atomic.Uint64, id uint64, set map[uint32]struct{}) {
	for {
		v := st.Load()
		contig, high := uint32(v>>32), uint32(v)
		lowest := high
		for s := range set {
			lowest = min(lowest, s)
		}
		missing := int64(lowest - contig - 1)
		n := lowest
		for {
			if _, ok := set[n+1]; !ok {
				break
			}
			n++
		}
		if !st.CompareAndSwap(v, pack(n, high)) {
			continue
		}
		for s := contig + 1; s <= n; s++ {
			delete(set, s)
		}
		c.presumed.Add(missing)
		return
	}
}

// failedRows records rows whose Produce call failed.
func (c *checker) failedRows(producer uint32, keys, seqs []uint32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range keys {
		id := keyID(producer, keys[i])
		set := c.failed[id]
		if set == nil {
			set = map[uint32]struct{}{}
			c.failed[id] = set
		}
		set[seqs[i]] = struct{}{}
	}
}

// tally is the final accounting of one key: produced is its last seq.
type tally struct {
	delivered       int64 // distinct seqs delivered
	lost            int64
	failedMissing   int64 // failed writes that never showed up (not lost)
	failedDelivered int64 // failed writes that were delivered anyway
}

// tallyKey accounts for one key once every consumer has stopped.
func (c *checker) tallyKey(st *atomic.Uint64, producer, key, produced uint32) tally {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := keyID(producer, key)
	v := st.Load()
	contig := uint32(v >> 32)
	set := c.ahead[id]
	var t tally
	t.delivered = int64(contig) + int64(len(set))
	seen := func(s uint32) bool {
		if s <= contig {
			return true
		}
		_, ok := set[s]
		return ok
	}
	for s := range c.failed[id] {
		if seen(s) {
			t.failedDelivered++
		} else if s <= produced {
			t.failedMissing++
		}
	}
	// Rows delivered beyond what the producer numbered are corrupt, not
	// "more than delivered": count them as unknown.
	for s := range set {
		if s > produced {
			t.delivered--
			c.unknown.Add(1)
		}
	}
	if contig > produced {
		t.delivered -= int64(contig - produced)
		c.unknown.Add(int64(contig - produced))
	}
	t.lost = int64(produced) - t.delivered - t.failedMissing
	if t.lost < 0 {
		t.lost = 0
	}
	return t
}
