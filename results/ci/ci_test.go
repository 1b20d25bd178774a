package ci

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"benchtop/engine/measure"
)

// mmc is an M/M/c queue: c servers, arrivals at lambda a second, service
// at mu a second each.
type mmc struct {
	c          int
	lambda, mu float64
}

// erlangC is the probability that an arrival waits.
func (q mmc) erlangC() float64 {
	a := q.lambda / q.mu
	b := 1.0
	for k := 1; k <= q.c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(q.c)
	return b / (1 - rho*(1-b))
}

// above is the probability that a response time (wait and service) is
// above t seconds, FCFS.
func (q mmc) above(t float64) float64 {
	C := q.erlangC()
	th := float64(q.c)*q.mu - q.lambda
	var both float64 // P(S + W > t) given a wait
	if math.Abs(th-q.mu) < 1e-9 {
		both = math.Exp(-q.mu*t) * (1 + q.mu*t)
	} else {
		both = (th*math.Exp(-q.mu*t) - q.mu*math.Exp(-th*t)) / (th - q.mu)
	}
	return (1-C)*math.Exp(-q.mu*t) + C*both
}

// quantile is the response time's q-th percentile in seconds.
func (q mmc) quantile(p float64) float64 {
	lo, hi := 0.0, 100/q.mu
	for range 200 {
		mid := (lo + hi) / 2
		if q.above(mid) > 1-p/100 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

type floats []float64

func (h floats) Len() int           { return len(h) }
func (h floats) Less(i, j int) bool { return h[i] < h[j] }
func (h floats) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floats) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floats) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// run simulates q in model time for len(per)-1 seconds (after a first
// one left out, the transition), each 1 s interval's completions in per,
// fed to a Batches it returns; all gets every latency counted.
// per and all are reused from seed to seed (Reset): a Set's histograms
// are allocated once.
func (q mmc) run(seed uint64, per []*measure.Set, all *measure.Set) *Batches {
	rng := rand.New(rand.NewPCG(seed, 7))
	free := make(floats, q.c)
	intervals := len(per) - 1
	end := float64(intervals + 1)
	for _, set := range per {
		set.Reset()
	}
	all.Reset()
	for t := rng.ExpFloat64() / q.lambda; t < end; t += rng.ExpFloat64() / q.lambda {
		start := math.Max(t, free[0])
		done := start + rng.ExpFloat64()/q.mu
		free[0] = done
		heap.Fix(&free, 0)
		if done >= end {
			continue
		}
		set := per[int(done)]
		set.Record(measure.Slot(0, measure.OK), int64((done-t)*1e9))
		set.Ops++
	}
	b := &Batches{}
	for _, set := range per[1:] {
		b.Add(set)
		b.Tick(1)
		all.Merge(set)
	}
	return b
}

// The 95 % intervals on p99 and on the rate, over 100 seeds of an M/M/4
// queue at 75 % load in model time, 120 intervals of 1 s after the first
// (at 30 intervals the p99 interval held in 87 of 100: the misses are
// runs that saw no large burst, whose p99 and spread both read low): the interval on p99 holds Erlang C's
// p99 in 90 to 99 of them, and is no wider on average than 1.5 times
// 1.96 standard deviations of the 100 estimates (an interval too wide to
// decide anything fails as one that misses).
func TestCoverageMMc(t *testing.T) {
	t.Parallel()
	q := mmc{c: 4, lambda: 300, mu: 100}
	truth := q.quantile(99) * 1e9
	var held, rateHeld int
	var est, hws []float64
	per := make([]*measure.Set, 121)
	for i := range per {
		per[i] = &measure.Set{}
	}
	all := &measure.Set{}
	for seed := range uint64(100) {
		b := q.run(seed, per, all)
		h := all.H[measure.Slot(0, measure.OK)]
		p99 := float64(h.ValueAtQuantile(99))
		iv := b.Quantile(h, 99, Service, 0)
		if !(iv.Low <= p99 && p99 <= iv.High) {
			t.Fatalf("seed %d: p99 %v outside its interval [%v, %v]", seed, p99, iv.Low, iv.High)
		}
		if iv.Low <= truth && truth <= iv.High {
			held++
		}
		est = append(est, p99)
		hws = append(hws, (iv.High-iv.Low)/2)
		rate := float64(all.OK()) / 120
		if r := b.Rate(rate, 0); r.Low <= q.lambda && q.lambda <= r.High {
			rateHeld++
		}
	}
	var mean, meanHW float64
	for i := range est {
		mean += est[i] / float64(len(est))
		meanHW += hws[i] / float64(len(hws))
	}
	var ss float64
	for _, e := range est {
		ss += (e - mean) * (e - mean)
	}
	sd := math.Sqrt(ss / float64(len(est)-1))
	t.Logf("true p99 %v; mean estimate %v, sd %v; interval held it in %d of 100, mean half-width %v (%.2f x 1.96 sd); rate interval held %d of 100",
		time.Duration(truth), time.Duration(mean), time.Duration(sd), held, time.Duration(meanHW), meanHW/(Z*sd), rateHeld)
	if held < 90 || held > 99 {
		t.Errorf("the 95 %% interval on p99 held the true p99 in %d of 100 runs, want 90 to 99", held)
	}
	if meanHW > 1.5*Z*sd {
		t.Errorf("mean half-width %v, more than 1.5 x 1.96 x the estimates' sd %v: too wide to decide", time.Duration(meanHW), time.Duration(sd))
	}
	if rateHeld < 90 || rateHeld > 99 {
		t.Errorf("the 95 %% interval on the rate held the true rate in %d of 100 runs, want 90 to 99", rateHeld)
	}
}
