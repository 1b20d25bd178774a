package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/rundata/units"
)

// ordinal is YCSB's percentile label: 95 → "95th", 99.9 → "99.9".
func ordinal(q float64) string {
	if q == math.Trunc(q) {
		j := int(q)
		switch j % 100 {
		case 11, 12, 13:
			return strconv.Itoa(j) + "th"
		}
		suffix := []string{"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"}[j%10]
		return strconv.Itoa(j) + suffix
	}
	return units.JavaDouble(q)
}

func us(ns int64) int64 { return ns / 1000 }

// writeMeasurement prints one YCSB measurement block.
func writeMeasurement(w io.Writer, name string, h *hdr.Histogram, pct []float64) {
	fmt.Fprintf(w, "[%s], Operations, %d\n", name, h.TotalCount())
	fmt.Fprintf(w, "[%s], AverageLatency(us), %s\n", name, units.JavaDouble(h.Mean()/1000))
	fmt.Fprintf(w, "[%s], MinLatency(us), %d\n", name, us(h.Min()))
	fmt.Fprintf(w, "[%s], MaxLatency(us), %d\n", name, us(h.Max()))
	for _, q := range pct {
		fmt.Fprintf(w, "[%s], %sPercentileLatency(us), %d\n", name, ordinal(q), us(h.ValueAtQuantile(q)))
	}
}

// measurementWriter writes one measurement's block the way YCSB's
// measurement type does (measurementtype): hdrhistogram
// (OneMeasurementHdrHistogram), histogram (OneMeasurementHistogram: 1 ms
// buckets, 95th and 99th percentiles as bucket starts) or timeseries
// (OneMeasurementTimeSeries: the mean of every unit of
// timeseries.granularity). All three are computed from benchtop's HDR
// histograms (1 ns to 1 h, 3 significant digits), so the histogram type's
// mean and variance are the HDR histogram's, not sums of the exact values.
type measurementWriter struct {
	res *engine.PhaseResult
}

// head writes the block's lines before its Return= lines.
func (m measurementWriter) head(w io.Writer, name string, h *hdr.Histogram) {
	switch m.res.Output.MeasurementType {
	case "histogram":
		m.histogramHead(w, name, h)
	case "timeseries":
		fmt.Fprintf(w, "[%s], Operations, %d\n", name, h.TotalCount())
		fmt.Fprintf(w, "[%s], AverageLatency(us), %s\n", name, units.JavaDouble(h.Mean()/1000))
		fmt.Fprintf(w, "[%s], MinLatency(us), %d\n", name, us(h.Min()))
		fmt.Fprintf(w, "[%s], MaxLatency(us), %d\n", name, us(h.Max()))
	default:
		writeMeasurement(w, name, h, m.res.Percentiles)
	}
}

// tail writes what follows the Return= lines: the buckets
// (measurement.histogram.verbose) or the timeseries units of slot.
func (m measurementWriter) tail(w io.Writer, name string, h *hdr.Histogram, slot int) {
	out := m.res.Output
	switch {
	case out.MeasurementType == "timeseries":
		for _, u := range m.res.Units[slot] {
			fmt.Fprintf(w, "[%s], %d, %s\n", name, u.Offset.Milliseconds(), units.JavaDouble(float64(u.Mean)/1000))
		}
	case out.MeasurementType == "histogram" && out.Verbose:
		counts, over := msBuckets(h, out.Buckets)
		for i, n := range counts {
			fmt.Fprintf(w, "[%s], %d, %d\n", name, i, n)
		}
		fmt.Fprintf(w, "[%s], >%d, %d\n", name, out.Buckets, over)
	case out.Verbose:
		// OneMeasurementHdrHistogram: every recorded value (µs) and its count.
		vals, counts := usValues(h)
		for i, v := range vals {
			fmt.Fprintf(w, "[%s], %d, %s\n", name, v, units.JavaDouble(float64(counts[i])))
		}
	}
}

// histogramHead is OneMeasurementHistogram's block before its Return=
// lines.
func (m measurementWriter) histogramHead(w io.Writer, name string, h *hdr.Histogram) {
	mean := h.Mean() / 1000
	sd := h.StdDev() / 1000
	fmt.Fprintf(w, "[%s], Operations, %d\n", name, h.TotalCount())
	fmt.Fprintf(w, "[%s], AverageLatency(us), %s\n", name, units.JavaDouble(mean))
	fmt.Fprintf(w, "[%s], LatencyVariance(us), %s\n", name, units.JavaDouble(sd*sd))
	fmt.Fprintf(w, "[%s], MinLatency(us), %d\n", name, us(h.Min()))
	fmt.Fprintf(w, "[%s], MaxLatency(us), %d\n", name, us(h.Max()))
	// The first 1 ms bucket where the cumulative share reaches 95 % (and
	// 99 %), written as its start in µs; nothing when it is beyond the
	// buckets, as YCSB.
	counts, _ := msBuckets(h, m.res.Output.Buckets)
	total := float64(h.TotalCount())
	var cum int64
	done95 := false
	for i, n := range counts {
		cum += n
		if !done95 && float64(cum)/total >= 0.95 {
			fmt.Fprintf(w, "[%s], 95thPercentileLatency(us), %d\n", name, i*1000)
			done95 = true
		}
		if float64(cum)/total >= 0.99 {
			fmt.Fprintf(w, "[%s], 99thPercentileLatency(us), %d\n", name, i*1000)
			break
		}
	}
}

// msBuckets counts h's values in 1 ms buckets (a value in the bucket of
// its whole milliseconds, as YCSB's latency/1000 of a µs value; an HDR
// bar counts as its highest equivalent value, as HdrHistogram's
// percentiles and iterators do), and those beyond the last bucket.
func msBuckets(h *hdr.Histogram, buckets int) ([]int64, int64) {
	counts := make([]int64, buckets)
	var over int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		i := b.To / 1e6
		if i >= int64(buckets) {
			over += b.Count
			continue
		}
		counts[i] += b.Count
	}
	return counts, over
}

// usValues lists h's recorded values in whole µs with their counts, in
// ascending order: each bar's highest equivalent value, as YCSB's
// recordedValues() iteration prints it.
func usValues(h *hdr.Histogram) ([]int64, []int64) {
	var vals, counts []int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := min(b.To/1000, math.MaxInt32)
		if n := len(vals); n > 0 && vals[n-1] == v {
			counts[n-1] += b.Count
			continue
		}
		vals = append(vals, v)
		counts = append(counts, b.Count)
	}
	return vals, counts
}
