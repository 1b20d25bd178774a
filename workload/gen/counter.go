package gen

import (
	"math"
	"sync"
	"sync/atomic"
)

// Counter hands out start, start+1, ... to all callers, like YCSB's
// CounterGenerator.
type Counter struct {
	next atomic.Int64
}

// NewCounter returns a counter whose first Next returns start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.next.Store(start)
	return c
}

// Next returns the current value and increments the counter.
func (c *Counter) Next() int64 { return c.next.Add(1) - 1 }

// Last returns the value most recently handed out by Next (start-1 before the
// first call).
func (c *Counter) Last() int64 { return c.next.Load() - 1 }

// ackWindowBits sets the size of AcknowledgedCounter's window of pending
// acknowledgements: 2^16 slots of 8 bytes.
const ackWindowBits = 16

// ackEmpty marks a free window slot. It is never a value handed out by Next
// (NewAcknowledgedCounter refuses to start there).
const ackEmpty = math.MinInt64

// AcknowledgedCounter is YCSB's AcknowledgedCounterGenerator: a Counter whose
// Last reports only values that are acknowledged. Last is the highest value v
// such that every value from start up to v has been passed to Acknowledge, so
// it never reaches a value that was handed out but not yet acknowledged. The
// workload uses it as the insert key sequence: readers choose among keys
// below Last, which are known to exist.
//
// As in YCSB, acknowledgements land in a window of slots indexed by the low
// bits of the value, and whoever acknowledges the value just above Last moves
// Last forward over the contiguous run of acknowledged values. Unlike YCSB,
// a slot records the value it holds rather than a flag, so an ack can never be
// mistaken for one a window earlier; acknowledgements arriving while more than
// a window's worth (65536) of values are outstanding go to an overflow set
// instead of failing, and the goroutine that held the lock re-checks after
// releasing it, so an ack that raced with the lock holder is never left
// unprocessed.
type AcknowledgedCounter struct {
	next  atomic.Int64
	_     [56]byte // keep next and limit on separate cache lines
	limit atomic.Int64
	_     [56]byte

	mask  int64
	slots []atomic.Int64 // slot v&mask holds v once v is acknowledged

	mu       sync.Mutex         // held while moving limit forward
	overflow map[int64]struct{} // acknowledged values whose slot was taken; guarded by mu

	lockedHook func() // tests only: runs in Acknowledge while mu is held
}

// NewAcknowledgedCounter returns a counter whose first Next returns start and
// whose Last is start-1 until start is acknowledged. start = math.MinInt64 is
// raised to math.MinInt64+1.
func NewAcknowledgedCounter(start int64) *AcknowledgedCounter {
	return newAcknowledgedCounter(start, ackWindowBits)
}

func newAcknowledgedCounter(start int64, windowBits uint) *AcknowledgedCounter {
	if start == math.MinInt64 {
		start++
	}
	c := &AcknowledgedCounter{
		mask:     int64(1)<<windowBits - 1,
		slots:    make([]atomic.Int64, 1<<windowBits),
		overflow: make(map[int64]struct{}),
	}
	for i := range c.slots {
		c.slots[i].Store(ackEmpty)
	}
	c.next.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Next returns the current value and increments the counter. The value must
// later be passed to Acknowledge (whether or not the insert succeeded, as
// YCSB does) or Last stops advancing at it.
func (c *AcknowledgedCounter) Next() int64 { return c.next.Add(1) - 1 }

// Last returns the highest value below which (inclusive) every value has been
// acknowledged; start-1 before start is acknowledged.
func (c *AcknowledgedCounter) Last() int64 { return c.limit.Load() }

// Acknowledge marks v, a value returned by Next, as done. Values never handed
// out by Next and values already acknowledged are ignored.
func (c *AcknowledgedCounter) Acknowledge(v int64) {
	if v <= c.limit.Load() || v >= c.next.Load() {
		return
	}
	s := &c.slots[v&c.mask]
	if !s.CompareAndSwap(ackEmpty, v) {
		c.ackSlow(v, s)
	}
	// Move limit forward if no one else is doing it. If someone is, it
	// re-checks after releasing the lock (below), so v is not forgotten.
	for {
		if !c.mu.TryLock() {
			return
		}
		c.advanceLocked()
		if c.lockedHook != nil {
			c.lockedHook()
		}
		c.mu.Unlock()
		next := c.limit.Load() + 1
		if c.slots[next&c.mask].Load() != next {
			return
		}
	}
}

// ackSlow records v when its slot was not free.
func (c *AcknowledgedCounter) ackSlow(v int64, s *atomic.Int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		cur := s.Load()
		switch {
		case cur == v: // duplicate acknowledgement
			return
		case cur <= c.limit.Load(): // free, or left by a stale duplicate
			if s.CompareAndSwap(cur, v) {
				c.advanceLocked()
				return
			}
		default: // taken by v ± k*window, acknowledged and not yet consumed
			c.overflow[v] = struct{}{}
			c.advanceLocked()
			return
		}
	}
}

// advanceLocked moves limit over the contiguous run of acknowledged values
// above it, freeing their slots first. c.mu must be held.
func (c *AcknowledgedCounter) advanceLocked() {
	lim := c.limit.Load()
	i := lim + 1
	for {
		s := &c.slots[i&c.mask]
		if s.Load() == i {
			s.Store(ackEmpty)
		} else if _, ok := c.overflow[i]; ok {
			delete(c.overflow, i)
		} else {
			break
		}
		i++
	}
	if i-1 != lim {
		c.limit.Store(i - 1)
	}
}
