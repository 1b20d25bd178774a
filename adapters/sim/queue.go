package sim

// queue is the model's server: c identical servers taking operations in
// the order they arrive (first come, first served), each operation on the
// server that frees first. It is pure arithmetic on the sim's clock (ns
// since the clock's start): the adapter feeds it real arrival times under
// its lock, the oracle (Model.Predict) simulated ones, so that both
// compute with the same code.
//
// An arrival at a with work s (ns of service) takes the server that frees
// first, at f: it starts at max(a, f) and finishes once s ns of work have
// been done from then, the stalls not counting (advance); that server then
// frees at the finish. Outages are applied lazily: the first arrival at or
// after an outage's start drops the work every server still had then
// (they free at the outage's end), which is when the operations holding
// that work fail.
type queue struct {
	free    []int64 // min-heap: when each server frees
	stalls  []span  // sorted, disjoint
	outages []span  // sorted, disjoint
	applied int     // outages[:applied] have dropped their work
}

// span is a window in ns on the sim's clock.
type span struct{ start, end int64 }

func spans(ws []Window) []span {
	out := make([]span, len(ws))
	for i, w := range ws {
		out[i] = span{int64(w.At), int64(w.End())}
	}
	return out
}

func newQueue(servers int, f Faults) *queue {
	return &queue{
		free:    make([]int64, servers), // all free at 0
		stalls:  spans(f.Stalls),
		outages: spans(f.Outages),
	}
}

// outcome is how an admitted operation ends.
type outcome int

const (
	served    outcome = iota // completes at its finish
	refused                  // arrived during an outage: fails at once
	cutByDown                // an outage began before its finish: fails at the outage's start
)

// admit queues an operation arriving at a with s ns of work. It returns
// when the operation ends (its finish, or when it fails), when it started
// service, and how it ends. Arrivals must come in order of a.
func (q *queue) admit(a int64, s float64) (end, start int64, out outcome) {
	for q.applied < len(q.outages) && q.outages[q.applied].start <= a {
		q.drop(q.outages[q.applied])
		q.applied++
	}
	if q.applied > 0 && a < q.outages[q.applied-1].end {
		return a, a, refused
	}
	f := q.free[0]
	start = max(a, f)
	end = advance(start, s, q.stalls)
	q.free[0] = end
	q.down(0)
	if q.applied < len(q.outages) && q.outages[q.applied].start < end {
		return q.outages[q.applied].start, start, cutByDown
	}
	return end, start, served
}

// drop is an outage's start: every server's pending work is lost; the
// servers are free again at the outage's end.
func (q *queue) drop(o span) {
	for i, f := range q.free {
		if f > o.start {
			q.free[i] = o.end
		}
	}
	q.heapify()
}

// advance returns when s ns of work started at t are done, the stalls
// (sorted, disjoint) not counting as work time: work in progress when a
// stall begins resumes at its end, and work cannot begin during one.
func advance(t int64, s float64, stalls []span) int64 {
	work := int64(s + 0.5)
	for _, w := range stalls {
		if w.end <= t {
			continue
		}
		if w.start >= t+work {
			break
		}
		if w.start > t {
			work -= w.start - t
		}
		t = w.end
	}
	return t + work
}

// busy returns how many servers are busy at t (for tests).
func (q *queue) busy(t int64) int {
	n := 0
	for _, f := range q.free {
		if f > t {
			n++
		}
	}
	return n
}

func (q *queue) heapify() {
	for i := len(q.free)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// down restores the heap below i.
func (q *queue) down(i int) {
	h := q.free
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r] < h[l] {
			m = r
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
