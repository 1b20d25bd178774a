package engine

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// erlangCMean is the mean response time (queueing plus service) of an
// M/M/c queue: arrivals at rate lambda, c servers of mean service time s.
func erlangCMean(lambda float64, c int, s time.Duration) time.Duration {
	a := lambda * s.Seconds() // offered load in servers
	rho := a / float64(c)
	term, sum := 1.0, 0.0
	for k := range c {
		if k > 0 {
			term *= a / float64(k)
		}
		sum += term
	}
	top := term * a / float64(c) / (1 - rho) // a^c / c! / (1 - rho)
	wait := top / (sum + top) / (float64(c)/s.Seconds() - lambda)
	return time.Duration((wait + s.Seconds()) * 1e9)
}

// freeAt is a min-heap of the times the model's servers come free.
type freeAt []int64

func (h freeAt) Len() int           { return len(h) }
func (h freeAt) Less(i, j int) bool { return h[i] < h[j] }
func (h freeAt) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *freeAt) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *freeAt) Pop() any          { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }

// meanIntended runs the pacer's schedules on model time (no real wait):
// threads workers at target ops/s, each issuing its next operation at its
// intended start or when its previous one ends, if later, into a
// first-come-first-served queue of c servers with exponential service
// times of mean svc; it returns the mean latency from the intended start
// of the operations intended after warmup and before until.
func meanIntended(poisson bool, threads int, target float64, c int, svc time.Duration, warmup, until time.Duration) time.Duration {
	pl := plan{phase: 0.5, poisson: poisson, seed: 7}
	pl.replan(target, threads)
	type th struct {
		s               schedule
		intended, issue int64
	}
	ts := make([]th, threads)
	for i := range ts {
		ts[i].s = newWorkerSchedule(i)
		ts[i].intended, _ = ts[i].s.next(&pl, at(0))
		ts[i].issue = ts[i].intended
	}
	servers := make(freeAt, c)
	svcRand := rand.New(rand.NewPCG(3, 4))
	var sum, n int64
	for {
		// the thread issuing next (a linear scan: a few hundred threads)
		k := 0
		for i := range ts {
			if ts[i].issue < ts[k].issue {
				k = i
			}
		}
		t := &ts[k]
		if t.issue >= int64(until) {
			break
		}
		start := max(t.issue, servers[0])
		end := start + int64(svcRand.ExpFloat64()*float64(svc))
		servers[0] = end
		heap.Fix(&servers, 0)
		if t.intended >= int64(warmup) {
			sum += end - t.intended
			n++
		}
		t.intended, _ = t.s.next(&pl, at(0))
		t.issue = max(t.intended, end)
	}
	return time.Duration(sum / max(n, 1))
}

// Poisson arrivals (arrivals=poisson) offered to an M/M/4 model at 75 %
// load (300 ops/s, 10 ms mean service): the mean intended latency is
// Erlang C's, 15.09 ms, within 10 %; YCSB's evenly spaced schedule (the
// default) gives D/M/4's, well below it. On model time: the schedules'
// intended starts drive a simulated queue, nothing waits.
func TestPoissonArrivalsMatchErlangC(t *testing.T) {
	t.Parallel()
	const servers, target, threads = 4, 300.0, 512
	svc := 10 * time.Millisecond
	want := erlangCMean(target, servers, svc)
	if math.Abs(want.Seconds()*1e3-15.09) > 0.01 {
		t.Fatalf("Erlang C mean %v, want 15.09 ms (the formula)", want)
	}
	got := meanIntended(true, threads, target, servers, svc, 10*time.Second, 1000*time.Second)
	if r := got.Seconds() / want.Seconds(); r < 0.9 || r > 1.1 {
		t.Errorf("poisson: mean intended latency %v, want Erlang C's %v within 10 %% (ratio %.3f)", got, want, r)
	}
	even := meanIntended(false, threads, target, servers, svc, 10*time.Second, 1000*time.Second)
	if r := even.Seconds() / want.Seconds(); r > 0.9 {
		t.Errorf("even: mean intended latency %v, want at most 0.9 x Erlang C's %v (ratio %.3f)", even, want, r)
	}
	t.Logf("M/M/4 at 75 %%: poisson %v, even %v, Erlang C %v", got, even, want)
}

// A Poisson schedule's gaps have the tick as their mean and as their
// standard deviation (exponential), and unclaim gives back the same start.
func TestPoissonScheduleGaps(t *testing.T) {
	t.Parallel()
	pl := plan{poisson: true, seed: 1}
	pl.replan(1000, 2) // 2 ms a worker
	s := newWorkerSchedule(0)
	prev, _ := s.next(&pl, at(0))
	again := prev
	s.unclaim()
	if prev, _ = s.next(&pl, at(0)); prev != again {
		t.Fatalf("after unclaim: %d, want the same start %d", prev, again)
	}
	const n = 100000
	var sum, sq float64
	for range n {
		x, _ := s.next(&pl, at(0))
		g := float64(x - prev)
		sum += g
		sq += g * g
		prev = x
	}
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	if math.Abs(mean/2e6-1) > 0.02 || math.Abs(sd/2e6-1) > 0.03 {
		t.Errorf("gaps: mean %.0f ns, sd %.0f ns, want both 2,000,000 (exponential)", mean, sd)
	}
}
