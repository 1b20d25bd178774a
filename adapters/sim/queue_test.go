package sim

import (
	"testing"
	"time"
)

type arrival struct {
	a, s       int64 // arrival, work
	end, start int64 // want
	out        outcome
}

func runQueue(t *testing.T, q *queue, name string, as []arrival) {
	t.Helper()
	for i, x := range as {
		end, start, out := q.admit(x.a, float64(x.s))
		if end != x.end || start != x.start || out != x.out {
			t.Errorf("%s: arrival %d at %d (work %d): start %d end %d outcome %d, want start %d end %d outcome %d",
				name, i, x.a, x.s, start, end, out, x.start, x.end, x.out)
		}
	}
}

// TestQueueFirstComeFirstServed: two servers; each arrival takes the
// server that frees first, starts at max(arrival, free) and ends its work
// later.
func TestQueueFirstComeFirstServed(t *testing.T) {
	q := newQueue(2, Faults{})
	runQueue(t, q, "two servers", []arrival{
		{a: 0, s: 10, start: 0, end: 10},  // server A
		{a: 1, s: 4, start: 1, end: 5},    // server B
		{a: 2, s: 3, start: 5, end: 8},    // waits for B (frees at 5)
		{a: 3, s: 1, start: 8, end: 9},    // B again (8 < 10)
		{a: 20, s: 2, start: 20, end: 22}, // both idle
		{a: 20, s: 2, start: 20, end: 22}, // the other one
		{a: 20, s: 5, start: 22, end: 27}, // the first to free
		{a: 21, s: 0, start: 22, end: 22}, // zero work still waits its turn
	})
	if got := q.busy(21); got != 2 {
		t.Errorf("busy at 21 = %d, want 2", got)
	}
}

// TestQueueStall: no work is done during a stall: work in progress is
// frozen and resumes at its end, work cannot start in it, and arrivals
// during it wait for its end.
func TestQueueStall(t *testing.T) {
	f := Faults{Stalls: []Window{{At: 100, For: 50}}} // [100, 150)
	q := newQueue(1, f)
	runQueue(t, q, "one server, stall [100,150)", []arrival{
		{a: 90, s: 20, start: 90, end: 160},   // 10 before, frozen 50, 10 after
		{a: 120, s: 5, start: 160, end: 165},  // arrived in the stall, queued behind
		{a: 200, s: 10, start: 200, end: 210}, // after: as usual
	})
	q = newQueue(4, f)
	runQueue(t, q, "four servers, stall [100,150)", []arrival{
		{a: 110, s: 7, start: 110, end: 157}, // starts in the stall: work begins at its end
		{a: 149, s: 1, start: 149, end: 151},
		{a: 150, s: 1, start: 150, end: 151},
	})
	if got := advance(0, 100, []span{{10, 20}, {30, 40}}); got != 120 {
		t.Errorf("advance over two stalls = %d, want 120", got)
	}
}

// TestQueueOutage: an arrival during an outage fails at once; work in
// progress or queued when it begins fails then and is lost; afterwards
// the servers start idle.
func TestQueueOutage(t *testing.T) {
	q := newQueue(1, Faults{Outages: []Window{{At: 100, For: 50}}}) // [100, 150)
	runQueue(t, q, "one server, outage [100,150)", []arrival{
		{a: 50, s: 30, start: 50, end: 80},                   // done before
		{a: 90, s: 30, start: 90, end: 100, out: cutByDown},  // in service at 100: fails then
		{a: 95, s: 10, start: 120, end: 100, out: cutByDown}, // queued behind it: fails at 100 too
		{a: 100, s: 10, start: 100, end: 100, out: refused},  // arrives at the start: refused
		{a: 149, s: 10, start: 149, end: 149, out: refused},
		{a: 150, s: 10, start: 150, end: 160}, // the lost work does not delay it
	})
}

// TestQueueOutageAfterIdle: an outage no arrival fell into changes
// nothing for the servers afterwards.
func TestQueueOutageAfterIdle(t *testing.T) {
	q := newQueue(2, Faults{Outages: []Window{{At: 10, For: 5}}})
	runQueue(t, q, "idle through an outage", []arrival{
		{a: 1, s: 2, start: 1, end: 3},
		{a: 30, s: 2, start: 30, end: 32},
		{a: 30, s: 2, start: 30, end: 32},
	})
}

func TestMergeWindows(t *testing.T) {
	s := time.Second
	got := mergeWindows([]Window{{At: 10 * s, For: 2 * s}, {At: 1 * s, For: 1 * s}, {At: 11 * s, For: 5 * s}, {At: 2 * s, For: s}})
	want := []Window{{At: s, For: 2 * s}, {At: 10 * s, For: 6 * s}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("merged %v, want %v", got, want)
	}
}
