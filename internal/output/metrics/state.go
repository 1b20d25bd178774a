package metrics

import (
	"slices"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/workload"
)

// state is what the exporter keeps between intervals: everything a scrape
// or a push reads. Its hooks write it once per interval; Collect reads
// it; mu guards all of it.
type state struct {
	mu sync.Mutex
	// ops are the cumulative counts and histograms per agent ("" for the
	// run's own or the fleet's merged figures), phase and operation.
	ops map[opKey]*opCumul
	// integrity are the data-integrity mismatches per agent and phase.
	integrity map[phaseKey]int64
	// last are each agent's last interval's throughput.
	last map[string]*lastInterval
	// exact are the summaries of successful operations per agent,
	// operation and measure: the last interval's exact percentiles, and
	// the count and sum since the start of the run.
	exact map[exactKey]*exactFigures
	// live are the latest Snapshot's gauges (nil before the first).
	live *live
	// lost are the stream's lost rows, known at the end (-1: not known).
	lost int64
}

type opKey struct {
	agent string
	phase engine.Phase
	op    string
}

type phaseKey struct {
	agent string
	phase engine.Phase
}

// opCumul is one operation type's figures since the start.
type opCumul struct {
	ok, failed int64
	errs       map[string]int64
	// lat holds the classic histogram of each measurement variant
	// (measure.OK, OKIntended, Failed, FailedIntended); nil until one
	// holds a value.
	lat [measure.NumVariants]*hist
}

// lastInterval is one agent's (or the merged) last interval: the
// workload's operations per second.
type lastInterval struct {
	ok, failed float64
}

type exactKey struct {
	agent, op, measure string
}

// exactFigures are one operation type and measure's successful
// operations: the count and sum (seconds) since the start, and the last
// interval's exact figures in seconds, in the order of quantiles (nil
// when none succeeded in it).
type exactFigures struct {
	n      uint64
	sum    float64
	values *[5]float64
}

// live are the gauges of the latest Snapshot, copied out of it.
type live struct {
	threads, partitions int
	target              float64
	cpu                 float64 // 0-1; negative: unknown
	rx, tx              float64
	nic                 bool
	phase               engine.Phase
	segment             int
	progress            float64 // 0-1; negative: unknown
	paused              bool
	warnings            int
	stream              *workload.PartitionsView
	figures             []workload.Figure
	agents              []engine.AgentRow
}

func newState() *state {
	return &state{ops: map[opKey]*opCumul{}, integrity: map[phaseKey]int64{}, last: map[string]*lastInterval{},
		exact: map[exactKey]*exactFigures{}, lost: -1}
}

// hist is a classic histogram: counts[i] holds the values in
// (Bounds[i-1], Bounds[i]], the last count those above the last bound.
type hist struct {
	counts []uint64
	n      uint64
	sum    float64 // seconds
}

// add folds an interval's HDR histogram (ns) into h. A value goes into
// the first bucket whose bound is at or above the lowest value its HDR
// bucket stands for (HdrHistogram keeps 3 significant digits: a value
// within 0.1 % above a bound may count below it); the sum takes each HDR
// bucket's middle, as HdrHistogram's mean does. It returns the count and
// sum added, and the largest value (HdrHistogram's Max).
func (h *hist) add(src *hdr.Histogram) (n uint64, sum float64, top int64) {
	if h.counts == nil {
		h.counts = make([]uint64, len(boundsNs)+1)
	}
	measure.EachBucket(src, func(lo, hi, c int64) {
		i, _ := slices.BinarySearch(boundsNs, lo)
		h.counts[i] += uint64(c)
		n += uint64(c)
		sum += float64(c) * float64(lo+(hi-lo+1)/2) / 1e9
		top = hi
	})
	h.n += n
	h.sum += sum
	return n, sum, top
}

// cumulative are h's buckets as Prometheus counts them: values at or
// below each bound.
func (h *hist) cumulative() map[float64]uint64 {
	out := make(map[float64]uint64, len(Bounds))
	var c uint64
	for i, b := range Bounds {
		c += h.counts[i]
		out[b] = c
	}
	return out
}

// measureName names a success variant for the measure label.
func measureName(variant int) string {
	if variant == measure.OKIntended || variant == measure.FailedIntended {
		return "intended"
	}
	return "service"
}

// interval folds one interval's measurements of agent ("" for the run's
// own, or a fleet's merged ones) into the state.
func (s *state) interval(agent string, ph engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	last := &lastInterval{}
	if secs := end.Sub(start).Seconds(); secs > 0 {
		ok, failed := workloadOps(set)
		last.ok, last.failed = float64(ok)/secs, float64(failed)/secs
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last[agent] = last
	if set.Integrity > 0 {
		s.integrity[phaseKey{agent, ph}] += set.Integrity
	}
	for k, f := range s.exact {
		if k.agent == agent {
			f.values = nil
		}
	}
	for op := 0; op < len(names) && op < measure.NumOps; op++ {
		ok, failed := outcomes(set, op)
		if ok == 0 && failed == 0 && len(set.Errors[op]) == 0 {
			continue
		}
		c := s.cumul(opKey{agent, ph, names[op]})
		c.ok += ok
		c.failed += failed
		for k, n := range set.Errors[op] {
			c.errs[k] += n
		}
		for v := range measure.NumVariants {
			h := set.H[measure.Slot(op, v)]
			if h == nil || h.TotalCount() == 0 {
				continue
			}
			if c.lat[v] == nil {
				c.lat[v] = &hist{}
			}
			n, sum, top := c.lat[v].add(h)
			if v != measure.OK && v != measure.OKIntended {
				continue
			}
			k := exactKey{agent, names[op], measureName(v)}
			f := s.exact[k]
			if f == nil {
				f = &exactFigures{}
				s.exact[k] = f
			}
			q := exact(h, top)
			f.n, f.sum, f.values = f.n+n, f.sum+sum, &q
		}
	}
}

// cumul is the figures of k, made on first use. Caller holds s.mu.
func (s *state) cumul(k opKey) *opCumul {
	c := s.ops[k]
	if c == nil {
		c = &opCumul{errs: map[string]int64{}}
		for _, kind := range seededKinds {
			c.errs[kind] = 0
		}
		s.ops[k] = c
	}
	return c
}

// seededKinds are the error kinds whose series an operation has from its
// first interval, at 0: rate() and increase() over them then start from
// the run's start, and an alert on them has a series to watch before the
// first error (Prometheus's advice: initialise the label values you know).
// A kind an adapter adds beyond them appears with its first error.
var seededKinds = []string{adapters.KindTimeout, adapters.KindUnavailable, adapters.KindThrottled, adapters.KindNotFound,
	adapters.KindIntegrity, adapters.KindMissing, adapters.KindCanceled, adapters.KindOther}

// exact are h's figures in seconds at each of quantiles, as
// ValueAtQuantile gives them (in one pass over the counts), and max (ns)
// for quantile 1.
func exact(h *hdr.Histogram, max int64) [5]float64 {
	var out [5]float64
	vs := h.ValueAtPercentilesSlice(pcts)
	for i, q := range quantiles {
		v := max
		if q.pct < 100 {
			v = vs[i]
		}
		out[i] = float64(v) / 1e9
	}
	return out
}

// pcts are the percentiles of quantiles, for ValueAtPercentilesSlice.
var pcts = func() []float64 {
	out := make([]float64, len(quantiles))
	for i, q := range quantiles {
		out[i] = q.pct
	}
	return out
}()

// snapshot takes the Snapshot's gauges.
func (s *state) snapshot(snap *engine.Snapshot) {
	l := &live{threads: snap.Threads, partitions: snap.Partitions, target: snap.Target, cpu: -1,
		phase: snap.Phase, progress: snap.Progress, paused: snap.Paused, warnings: len(snap.Warnings),
		agents: slices.Clone(snap.Agents)}
	if snap.Host.Cores > 0 {
		l.cpu = snap.Host.CPUTotal / 100
	}
	if len(snap.Host.NICs) > 0 {
		l.nic, l.rx, l.tx = true, snap.Host.NICs[0].RxBytesPerSec, snap.Host.NICs[0].TxBytesPerSec
	}
	for _, sg := range snap.Segments {
		if sg.Open {
			l.segment = sg.Index
		}
	}
	if w := snap.Workload; w != nil {
		l.stream = w.Partitions
		l.figures = slices.Clone(w.Figures)
	}
	s.mu.Lock()
	s.live = l
	s.mu.Unlock()
}

// lostRows takes the stream's lost rows at the end (nil: not known).
func (s *state) lostRows(lost *int64) {
	if lost == nil {
		return
	}
	s.mu.Lock()
	s.lost = *lost
	s.mu.Unlock()
}
