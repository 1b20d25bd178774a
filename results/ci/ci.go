package ci

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
)

// Z is the standard normal's 97.5 % quantile: a 95 % two-sided interval.
const Z = 1.959963984540054

// maxBatches is how many batches a Batches keeps before pairing them.
const maxBatches = 64

// Latency series a batch keeps: service time, and latency from the
// intended start (paced).
const (
	Service = iota
	Intended
	numSeries
)

// Interval is a 95 % confidence interval: Low <= the figure <= High.
type Interval struct{ Low, High float64 }

// HalfWidth is the interval's larger distance from figure, relative to
// it (0.04 for ±4 %); 0 when figure is 0.
func (iv Interval) HalfWidth(figure float64) float64 {
	if figure == 0 {
		return 0
	}
	return math.Max(figure-iv.Low, iv.High-figure) / math.Abs(figure)
}

// Overlaps reports whether two intervals share a point.
func (iv Interval) Overlaps(o Interval) bool { return iv.Low <= o.High && o.Low <= iv.High }

// around is the interval of a figure and a half-width, Low >= 0.
func around(figure, hw float64) Interval {
	return Interval{Low: math.Max(0, figure-hw), High: figure + hw}
}

// Poisson is the interval on a rate, figure, of count events in secs
// seconds when there are no batches: count's Poisson spread, z·√count.
func Poisson(figure, count, secs float64) Interval {
	if secs <= 0 || count <= 0 {
		return Interval{figure, figure}
	}
	return around(figure, Z*math.Sqrt(count)/secs)
}

// batch is consecutive intervals' successful operations, seconds and
// latencies (by log bucket).
type batch struct {
	count float64
	secs  float64
	lat   [numSeries]map[int32]int64
	n     [numSeries]int64
}

func (b *batch) merge(o *batch) {
	b.count += o.count
	b.secs += o.secs
	for s := range numSeries {
		for k, v := range o.lat[s] {
			b.record(s, k, v)
		}
	}
}

func (b *batch) record(s int, k int32, v int64) {
	if b.lat[s] == nil {
		b.lat[s] = map[int32]int64{}
	}
	b.lat[s][k] += v
	b.n[s] += v
}

// above counts the batch's latencies of series s above v (by bucket:
// those of v's bucket are not).
func (b *batch) above(s int, v float64) int64 {
	kv := bucket(v)
	var n int64
	for k, c := range b.lat[s] {
		if k > kv {
			n += c
		}
	}
	return n
}

// at counts the batch's latencies of series s in v's bucket.
func (b *batch) at(s int, v float64) int64 { return b.lat[s][bucket(v)] }

// bucketBase is the latency buckets' ratio: 1 % wide.
var logBase = math.Log(1.01)

func bucket(ns float64) int32 {
	if ns < 1 {
		return 0
	}
	return int32(math.Log(ns) / logBase)
}

// Batches gathers a figure's intervals in batches. Its zero value is
// ready; it is not safe for concurrent use.
type Batches struct {
	done []batch
	size int   // intervals per batch in done
	fill int   // intervals in cur
	cur  batch // the batch being filled
	open batch // the interval being measured
}

// Add adds measurements to the interval being measured: successful
// operations, and their latencies in both series.
func (b *Batches) Add(set *measure.Set) {
	b.open.count += float64(set.OK())
	for op := range measure.NumOps {
		for s, v := range [numSeries]int{measure.OK, measure.OKIntended} {
			measure.EachBucket(set.H[measure.Slot(op, v)], func(lowest, highest, count int64) {
				b.open.record(s, bucket(float64(lowest+highest)/2), count)
			})
		}
	}
}

// AddOps is Add for the operation types ops of set only (their
// latencies; the successful operations are set's).
func (b *Batches) AddOps(set *measure.Set, ops []int) {
	b.open.count += float64(set.OK())
	for _, op := range ops {
		for s, v := range [numSeries]int{measure.OK, measure.OKIntended} {
			measure.EachBucket(set.H[measure.Slot(op, v)], func(lowest, highest, count int64) {
				b.open.record(s, bucket(float64(lowest+highest)/2), count)
			})
		}
	}
}

// AddCount adds successful operations without latencies (a workload's
// own count).
func (b *Batches) AddCount(n float64) { b.open.count += n }

// Tick ends the interval being measured, secs long.
func (b *Batches) Tick(secs float64) {
	b.open.secs = secs
	if b.size == 0 {
		b.size = 1
	}
	b.cur.merge(&b.open)
	b.open = batch{}
	b.fill++
	if b.fill < b.size {
		return
	}
	b.done = append(b.done, b.cur)
	b.cur, b.fill = batch{}, 0
	if len(b.done) >= maxBatches {
		for i := 0; i < len(b.done)/2; i++ {
			x := b.done[2*i]
			x.merge(&b.done[2*i+1])
			b.done[i] = x
		}
		b.done = b.done[:len(b.done)/2]
		b.size *= 2
	}
}

// Len is how many intervals ended.
func (b *Batches) Len() int { return len(b.done)*max(b.size, 1) + b.fill }

// batches are the batches so far with the partial ones (the batch being
// filled, and the interval being measured, partSecs long so far): their
// own batch when they hold half a batch's time or more, else merged
// into the last.
func (b *Batches) batches(partSecs float64) []batch {
	out := append([]batch(nil), b.done...)
	var part batch
	part.merge(&b.cur)
	open := b.open
	open.secs = partSecs
	part.merge(&open)
	if part.secs <= 0 && part.count == 0 {
		return out
	}
	var secs float64
	for _, x := range out {
		secs += x.secs
	}
	if len(out) == 0 || part.secs >= secs/float64(len(out))/2 {
		return append(out, part)
	}
	var last batch
	last.merge(&out[len(out)-1])
	last.merge(&part)
	out[len(out)-1] = last
	return out
}

// Rate is the interval on figure, the rate of successful operations over
// the batches and the interval being measured (partSecs long so far).
func (b *Batches) Rate(figure, partSecs float64) Interval {
	bs := b.batches(partSecs)
	var c, d float64
	for _, x := range bs {
		c += x.count
		d += x.secs
	}
	if d <= 0 {
		return Interval{figure, figure}
	}
	r := c / d
	if len(bs) < 2 {
		return around(figure, Z*math.Sqrt(c)/d)
	}
	var ss float64
	for _, x := range bs {
		e := x.count - r*x.secs
		ss += e * e
	}
	k := float64(len(bs))
	dbar := d / k
	se := math.Sqrt(ss/(k*(k-1))) / dbar
	return around(figure, T(len(bs)-1)*se)
}

// Quantile is the interval on the q-th percentile (0-100) of series s,
// figure read from h, the histogram of all the batches' latencies (the
// figure's own), partSecs as in Rate.
//
// The order statistics' ranks N·p ± z·√(N·p·(1−p)), widened to the
// batch-means spread of the share of latencies above the figure when
// that is wider: t times its standard error, in ranks. The latencies
// above a percentile come in bursts (a queue's excursions), so the t
// has the degrees of freedom of the batches that hold them (the
// effective number, (Σe)²/Σe², of batches with e above), not of all.
func (b *Batches) Quantile(h *hdr.Histogram, q float64, s int, partSecs float64) Interval {
	if h == nil || h.TotalCount() == 0 {
		return Interval{}
	}
	figure := float64(h.ValueAtQuantile(q))
	n := float64(h.TotalCount())
	p := q / 100
	hw := Z * math.Sqrt(n*p*(1-p))
	if bs := b.batches(partSecs); len(bs) >= 2 {
		// Each batch's latencies in the top 1 − p of all: those above the
		// figure's bucket, and of the figure's bucket (ties) the share the
		// top still needs.
		var above, at, m float64
		for _, x := range bs {
			above += float64(x.above(s, figure))
			at += float64(x.at(s, figure))
			m += float64(x.n[s])
		}
		tie := 0.0
		if at > 0 {
			tie = math.Min(1, math.Max(0, (m*(1-p)-above)/at))
		}
		top := func(x *batch) float64 { return float64(x.above(s, figure)) + tie*float64(x.at(s, figure)) }
		var e, e2 float64
		for i := range bs {
			a := top(&bs[i])
			e += a
			e2 += a * a
		}
		if m > 0 && e > 0 {
			share := e / m
			var ss float64
			for i := range bs {
				r := top(&bs[i]) - share*float64(bs[i].n[s])
				ss += r * r
			}
			k := float64(len(bs))
			se := math.Sqrt(ss/(k*(k-1))) / (m / k) // of the share above
			df := min(len(bs)-1, max(1, int(e*e/e2)-1))
			hw = math.Max(hw, T(df)*se*n)
		}
	}
	return rankInterval(h, q, hw)
}

// rankInterval is the interval between the ranks N·q/100 ± hw of h.
func rankInterval(h *hdr.Histogram, q, hw float64) Interval {
	figure := float64(h.ValueAtQuantile(q))
	n := float64(h.TotalCount())
	rank := n * q / 100
	lo, hi := rank-hw, rank+hw+1
	iv := Interval{Low: float64(h.Min()), High: float64(h.Max())}
	if lo > 0 {
		iv.Low = float64(h.ValueAtQuantile(100 * lo / n))
	}
	if hi < n {
		iv.High = float64(h.ValueAtQuantile(100 * hi / n))
	}
	iv.Low = math.Min(iv.Low, figure)
	iv.High = math.Max(iv.High, figure)
	return iv
}

// tTable is Student's t's 97.5 % quantile for 1 to 30 degrees of freedom.
var tTable = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// T is Student's t's 97.5 % quantile for df degrees of freedom (the
// Cornish-Fisher expansion beyond the table).
func T(df int) float64 {
	if df < 1 {
		return math.Inf(1)
	}
	if df <= len(tTable) {
		return tTable[df-1]
	}
	v := float64(df)
	z := Z
	return z + (z*z*z+z)/(4*v) + (5*math.Pow(z, 5)+16*z*z*z+3*z)/(96*v*v)
}
