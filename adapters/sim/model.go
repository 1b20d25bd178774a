package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Model is a model server's definition. Its methods are the oracle for
// what benchtop measures against the sim adapter: the analytic capacity
// and saturation point, and a discrete-event simulation of the same queue
// under benchtop's own arrival process (Predict, MaxRate).
type Model struct {
	// Servers serve one operation at a time each (sim.servers).
	Servers int
	// Service is the service-time distribution of one unit of work
	// (sim.service, sim.latency, sim.service.cv).
	Service Service
	// ScanRow is the units of work a scan costs per record it returns,
	// on top of 1 (sim.scanrow).
	ScanRow float64
	// Faults are the scripted faults (sim.stall, sim.outage, sim.errors,
	// sim.notfound).
	Faults Faults
	// Seed seeds the service times and fault draws (sim.seed).
	Seed uint64
}

// Capacity is the most operations (of one unit of work) per second the
// server completes: Servers / mean service time.
func (m Model) Capacity() float64 {
	return float64(m.Servers) / m.Service.Mean.Seconds()
}

// Saturation is the most operations per second that threads client
// threads can complete, each waiting for its operation before the next
// (benchtop's workers): min(threads, Servers) / mean service time. With
// fewer threads than servers the threads are the limit (each keeps at
// most one server busy); with more, the servers are (Capacity). It holds
// for any service-time distribution; a paced run at a higher target
// falls behind its schedule, and its intended latency grows with time.
func (m Model) Saturation(threads int) float64 {
	return float64(min(threads, m.Servers)) / m.Service.Mean.Seconds()
}

// Load is one segment of a run as benchtop offers it to the server.
//
// Paced (Rate > 0), benchtop's arrival process is the pacer's
// (engine/pacer.go): each of the Threads threads has an evenly spaced
// schedule of intended starts, one every Threads / Rate seconds (its
// tick), thread i's starting (i + Phase) / Threads of a tick after the
// segment's start; a thread starts an operation at its intended start, or
// when its previous operation ends if that is later (it is behind its
// schedule and does not wait). Unpaced (Rate 0), each thread starts its
// next operation when its previous one ends.
type Load struct {
	Rate    float64 // total target, operations per second; 0: unpaced
	Threads int
	// Duration is the segment's length; Warmup is left out at its start
	// (benchtop leaves a segment's first interval out of its steady
	// figures). An operation counts when it ends in [Warmup, Duration),
	// as benchtop counts an operation in the interval it ends in.
	Duration, Warmup time.Duration
	// Start is the sim's clock at the segment's start: where the faults
	// fall (the clock starts at the first operation the model serves).
	// The queue starts empty.
	Start time.Duration
	// Phase is the pacer's phase, in [0, 1) (random per phase in
	// benchtop; any value does).
	Phase float64
	// Units is the work of each operation (1 when 0): a scan of n
	// records is 1 + ScanRow × n.
	Units float64
	// ReadShare is the share of operations that are reads, to which
	// sim.notfound applies (workload A: 0.5).
	ReadShare float64
	// Overhead is the client's own time per operation, added after each
	// one before the thread's next (0: none; benchtop's is a few µs). An
	// operation refused by an outage takes at least minRefused, so that
	// an unpaced thread's failures during an outage are countable.
	Overhead time.Duration
}

// minRefused is the least a simulated operation refused by an outage
// takes (Load.Overhead).
const minRefused = 10 * time.Microsecond

// Prediction is what the model predicts benchtop measures over a Load's
// measured window.
type Prediction struct {
	// OK and Failed count the operations that ended in the window.
	OK, Failed int
	// Throughput is OK per second of the window (goodput); Attempts
	// counts the failed ones too.
	Throughput, Attempts float64
	// Paced is true when Rate > 0: intended latency is measured.
	Paced    bool
	intended []int64 // successful operations' latency from the intended start, sorted
	service  []int64 // and from their actual start, sorted
}

// Intended is the q-quantile (0 < q <= 1; 0.99 for p99) of the latency
// from the intended start of the operations that succeeded: benchtop's
// intended latency (corrected for coordinated omission). 0 when unpaced
// or when none succeeded.
func (p Prediction) Intended(q float64) time.Duration { return quantile(p.intended, q) }

// Service is the q-quantile of the latency from the operation's actual
// start (benchtop's service time, its "latency" column when unpaced).
func (p Prediction) Service(q float64) time.Duration { return quantile(p.service, q) }

// quantile is the value at rank ceil(q·n) of sorted (the nearest-rank
// definition; HdrHistogram's ValueAtQuantile agrees within its
// precision).
func quantile(sorted []int64, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = min(max(i, 0), len(sorted)-1)
	return time.Duration(sorted[i])
}

// thread is one simulated client thread.
type thread struct {
	issue    int64 // when it starts its next operation
	intended int64 // that operation's intended start (paced)
	k        int64 // operations started
	offset   float64
}

// Predict simulates the model under l, a discrete-event simulation of
// the same queue the adapter runs (queue.go), with service times drawn
// from the same distribution and seed, and the faults of the model's
// clock. The operations' order of arrival is by time, as the adapter's
// lock orders them. benchtop's own costs (a few µs per operation, more
// with sim.clientcost) are not in it.
func (m Model) Predict(l Load) (Prediction, error) {
	smp, err := newSampler(m.Service)
	if err != nil {
		return Prediction{}, err
	}
	if m.Servers < 1 || l.Threads < 1 || l.Rate < 0 || l.Duration <= l.Warmup {
		return Prediction{}, fmt.Errorf("sim: predict: %d servers, %d threads, rate %g, %v warm-up of %v: want servers and threads >= 1, rate >= 0, warm-up < duration",
			m.Servers, l.Threads, l.Rate, l.Warmup, l.Duration)
	}
	units := l.Units
	if units <= 0 {
		units = 1
	}
	svcRand := rand.New(rand.NewPCG(m.Seed, 1))
	errRand := rand.New(rand.NewPCG(m.Seed, 2))
	q := newQueue(m.Servers, m.Faults)
	start := int64(l.Start)
	from, until := start+int64(l.Warmup), start+int64(l.Duration)
	tick := 0.0
	if l.Rate > 0 {
		tick = float64(l.Threads) * 1e9 / l.Rate
	}
	ts := make([]thread, l.Threads)
	h := make(threadHeap, l.Threads)
	for i := range ts {
		ts[i].offset = float64(start) + (float64(i)+l.Phase)*tick/float64(l.Threads)
		ts[i].intended = int64(ts[i].offset)
		ts[i].issue = ts[i].intended
		h[i] = &ts[i]
	}
	h.init()
	p := Prediction{Paced: l.Rate > 0}
	f := &m.Faults
	for len(h) > 0 {
		t := h[0]
		a := t.issue
		if a >= until {
			h.pop()
			continue
		}
		end, _, out := q.admit(a, smp.draw(svcRand)*units)
		ok := out == served
		if ok && len(f.Errors) > 0 && errRand.Float64() < share(f.Errors, a) {
			ok = false
		}
		if ok && l.ReadShare > 0 && len(f.NotFound) > 0 && errRand.Float64() < l.ReadShare*share(f.NotFound, a) {
			ok = false
		}
		if end >= from && end < until {
			if ok {
				p.OK++
				p.service = append(p.service, end-a)
				if p.Paced {
					p.intended = append(p.intended, end-t.intended)
				}
			} else {
				p.Failed++
			}
		}
		if out == refused {
			end = a + int64(max(l.Overhead, minRefused))
		} else {
			end += int64(l.Overhead)
		}
		t.k++
		if p.Paced {
			t.intended = int64(t.offset + float64(t.k)*tick)
			t.issue = max(t.intended, end)
		} else {
			t.issue = end
		}
		h.fix()
	}
	slices.Sort(p.intended)
	slices.Sort(p.service)
	window := (l.Duration - l.Warmup).Seconds()
	p.Throughput = float64(p.OK) / window
	p.Attempts = float64(p.OK+p.Failed) / window
	return p, nil
}

// Sweep predicts a target sweep (benchtop's --sweep target=R1,R2,...
// --step step): one Predict per rate, each step long, starting on the
// sim's clock where the one before ended (so that the model's faults fall
// in the segment they fall in in the run; the sim's clock starts with the
// run phase's first operation), warmup left out of each (benchtop leaves
// out a segment's first status interval). Each segment starts with an
// empty queue: the backlog of an overloaded one is not carried over (in
// benchtop at most one operation per thread is).
func (m Model) Sweep(rates []float64, threads int, step, warmup time.Duration) ([]Prediction, error) {
	out := make([]Prediction, 0, len(rates))
	for i, r := range rates {
		p, err := m.Predict(Load{Rate: r, Threads: threads, Duration: step, Warmup: warmup, Start: time.Duration(i) * step})
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// MaxRate is the highest total target rate (ops/s) at which the model's
// intended q-quantile over a segment shaped like l (its Threads,
// Duration, Warmup, Start, ...; its Rate is what is searched) stays at or
// under bound: the answer a capacity search (benchtop's --find-max)
// should find. It bisects Predict's answer between a rate with no queue
// to speak of and twice the saturation point, to a relative precision of
// 0.2 %; 0 when even the lowest rate fails the bound. Predict's draws are
// the same at every rate (one seed), so that the answer moves with the
// rate only.
func (m Model) MaxRate(q float64, bound time.Duration, l Load) (float64, error) {
	pass := func(rate float64) (bool, error) {
		l.Rate = rate
		p, err := m.Predict(l)
		if err != nil {
			return false, err
		}
		return p.OK > 0 && p.Intended(q) <= bound, nil
	}
	hi := 2 * m.Saturation(l.Threads)
	lo := hi / 1000
	if ok, err := pass(lo); err != nil || !ok {
		return 0, err
	}
	if ok, err := pass(hi); err != nil || ok {
		return hi, err
	}
	for (hi-lo)/lo > 0.002 {
		mid := (lo + hi) / 2
		ok, err := pass(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// Band is where the model's intended q-quantile over a segment shaped
// like l crosses bound, as a band of rates rather than one: First is the
// lowest rate at which it fails the bound, Last the highest at which it
// still holds. One seed's p99 is one sample of a tail a hundred
// operations deep, so it is not monotone in the rate (200 threads of
// 100 ms on 500 servers: 651 ms at 1,180 ops/s, 608 ms at 1,185, 726 ms
// at 1,225, 645 ms at 1,250): a bisection (MaxRate) lands anywhere in
// the band, and so does a search that measures one run. Both ends are
// found on a grid of steps of 0.25 % around MaxRate's answer, within a
// third of it either way (the band is a few per cent wide); First is
// MaxRate's answer when nothing fails in that range below it, and Last
// when nothing passes above it.
func (m Model) Band(q float64, bound time.Duration, l Load) (first, last float64, err error) {
	mid, err := m.MaxRate(q, bound, l)
	if err != nil || mid == 0 {
		return 0, 0, err
	}
	pass := func(rate float64) (bool, error) {
		l.Rate = rate
		p, err := m.Predict(l)
		return p.OK > 0 && p.Intended(q) <= bound, err
	}
	const step = 1.0025
	first, last = mid, mid
	for r := mid * 2 / 3; r < mid; r *= step {
		ok, err := pass(r)
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			first = r
			break
		}
	}
	for r := mid * 4 / 3; r > mid; r /= step {
		ok, err := pass(r)
		if err != nil {
			return 0, 0, err
		}
		if ok {
			last = r
			break
		}
	}
	return first, last, nil
}

// threadHeap is a min-heap of threads on their next start.
type threadHeap []*thread

func (h threadHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// fix restores the heap after the top's issue time grew.
func (h threadHeap) fix() { h.down(0) }

func (h *threadHeap) pop() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	old[n] = nil
	*h = old[:n]
	h.down(0)
}

func (h threadHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].issue < h[l].issue {
			m = r
		}
		if h[i].issue <= h[m].issue {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
