package gen

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

func TestCounter(t *testing.T) {
	c := NewCounter(10)
	if c.Last() != 9 {
		t.Fatalf("Last before Next = %d, want 9", c.Last())
	}
	if v := c.Next(); v != 10 || c.Last() != 10 {
		t.Fatalf("Next = %d, Last = %d, want 10, 10", v, c.Last())
	}
	const workers, each = 8, 2000
	got := make([][]int64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				got[w] = append(got[w], c.Next())
			}
		})
	}
	wg.Wait()
	all := slices.Concat(got...)
	slices.Sort(all)
	for i, v := range all {
		if v != int64(11+i) {
			t.Fatalf("values not unique and contiguous: position %d holds %d", i, v)
		}
	}
	if c.Last() != 10+workers*each {
		t.Fatalf("Last = %d, want %d", c.Last(), 10+workers*each)
	}
}

func TestAcknowledgedCounterOrder(t *testing.T) {
	tests := []struct {
		name  string
		start int64
		n     int     // values taken with Next
		acks  []int64 // offsets from start, in order
		last  []int64 // Last after each ack, as offsets from start
	}{
		{"in order", 0, 3, []int64{0, 1, 2}, []int64{0, 1, 2}},
		{"reversed", 100, 4, []int64{3, 2, 1, 0}, []int64{-1, -1, -1, 3}},
		{"gap", -5, 5, []int64{0, 2, 3, 1, 4}, []int64{0, 0, 0, 3, 4}},
		{"duplicate and unissued ignored", 0, 3, []int64{1, 1, 7, -3, 0, 0, 2}, []int64{-1, -1, -1, -1, 1, 1, 2}},
	}
	for _, tc := range tests {
		for _, bits := range []uint{ackWindowBits, 1} {
			c := newAcknowledgedCounter(tc.start, bits)
			for range tc.n {
				c.Next()
			}
			if c.Last() != tc.start-1 {
				t.Fatalf("%s: Last before acks = %d", tc.name, c.Last())
			}
			for i, a := range tc.acks {
				c.Acknowledge(tc.start + a)
				if c.Last() != tc.start+tc.last[i] {
					t.Errorf("%s (window 2^%d): after ack %d Last = %d, want %d",
						tc.name, bits, tc.start+a, c.Last(), tc.start+tc.last[i])
				}
			}
		}
	}
	if c := NewAcknowledgedCounter(math.MinInt64); c.Next() != math.MinInt64+1 {
		t.Error("start MinInt64 not raised")
	}
}

// An acknowledgement whose TryLock fails because another goroutine is moving
// Last must still be taken into account: the lock holder re-checks after
// unlocking. The hook runs the competing Acknowledge exactly in that window.
func TestAcknowledgedCounterAckWhileLocked(t *testing.T) {
	c := NewAcknowledgedCounter(0)
	c.Next()
	c.Next()
	c.lockedHook = func() {
		c.lockedHook = nil
		c.Acknowledge(0) // TryLock fails: this goroutine holds mu
		if c.Last() != -1 {
			t.Errorf("Last = %d while the lock is held, want -1", c.Last())
		}
	}
	c.Acknowledge(1)
	if c.Last() != 1 {
		t.Fatalf("Last = %d, want 1: an acknowledgement made while the lock was held was lost", c.Last())
	}
	checkAckIdle(t, c)
}

// More values outstanding than the window holds: acknowledged in reverse and
// in a shuffled order, Last must stay put until the first is acknowledged.
func TestAcknowledgedCounterWindowOverflow(t *testing.T) {
	for _, bits := range []uint{2, 4} {
		for _, shuffle := range []bool{false, true} {
			c := newAcknowledgedCounter(0, bits)
			const n = 200
			vals := make([]int64, n)
			for i := range vals {
				vals[i] = c.Next()
			}
			slices.Reverse(vals)
			if shuffle {
				r := newRand(uint64(bits))
				r.Shuffle(n, func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
			}
			acked := make([]bool, n)
			for _, v := range vals {
				c.Acknowledge(v)
				acked[v] = true
				want := int64(slices.Index(acked, false)) - 1
				if slices.Index(acked, false) < 0 {
					want = n - 1
				}
				if c.Last() != want {
					t.Fatalf("window 2^%d shuffle %v: after ack %d Last = %d, want %d", bits, shuffle, v, c.Last(), want)
				}
			}
			checkAckIdle(t, c)
		}
	}
}

// checkAckIdle checks that a fully acknowledged counter holds nothing.
func checkAckIdle(t *testing.T, c *AcknowledgedCounter) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.overflow) != 0 {
		t.Errorf("overflow still holds %d values", len(c.overflow))
	}
	for i := range c.slots {
		if v := c.slots[i].Load(); v != ackEmpty {
			t.Errorf("slot %d still holds %d", i, v)
			return
		}
	}
}

// Many goroutines take values, hold a few, and acknowledge them out of order.
// Before acknowledging v, Last must be below v (v is unacknowledged); Last
// never goes backwards; at the end Last is the last value issued.
func TestAcknowledgedCounterConcurrent(t *testing.T) {
	for _, bits := range []uint{ackWindowBits, 3} {
		const start, workers, each, hold = 1000, 8, 3000, 6
		c := newAcknowledgedCounter(start, bits)
		var stop atomic.Bool
		var watcher sync.WaitGroup
		watcher.Go(func() {
			prev := c.Last()
			for !stop.Load() {
				l := c.Last()
				if l < prev {
					t.Errorf("Last went back from %d to %d", prev, l)
					return
				}
				prev = l
			}
		})
		seen := make([][]int64, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				r := newRand(uint64(100 + w))
				var pending []int64
				ack := func(i int) {
					v := pending[i]
					if l := c.Last(); l >= v {
						t.Errorf("Last %d reached unacknowledged %d", l, v)
					}
					c.Acknowledge(v)
					pending = slices.Delete(pending, i, i+1)
				}
				for range each {
					v := c.Next()
					seen[w] = append(seen[w], v)
					pending = append(pending, v)
					if len(pending) > r.IntN(hold) {
						ack(r.IntN(len(pending)))
					}
				}
				for len(pending) > 0 {
					ack(r.IntN(len(pending)))
				}
			})
		}
		wg.Wait()
		stop.Store(true)
		watcher.Wait()
		all := slices.Concat(seen...)
		slices.Sort(all)
		for i, v := range all {
			if v != int64(start+i) {
				t.Fatalf("values not unique and contiguous at %d: %d", i, v)
			}
		}
		if want := int64(start + workers*each - 1); c.Last() != want {
			t.Fatalf("window 2^%d: final Last = %d, want %d", bits, c.Last(), want)
		}
		checkAckIdle(t, c)
	}
}
