package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/encoding/protowire"
)

// Remote write 1.0 (https://prometheus.io/docs/specs/remote_write_spec/),
// what Debian's Prometheus 2.42 receives: a snappy-compressed protobuf
// prometheus.WriteRequest. Its messages are four small ones
// (prometheus/prompb's remote.proto and types.proto):
//
//	WriteRequest { repeated TimeSeries timeseries = 1; }
//	TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
//	Label        { string name = 1; string value = 2; }
//	Sample       { double value = 1; int64 timestamp = 2; }  // ms since the epoch
//
// They are encoded here with protobuf's own wire package rather than
// importing prompb, whose module is Prometheus's server and would bring
// its dependencies into benchtop's. client_golang's exp remote API sends
// the message (it takes any message with Size and MarshalToSizedBuffer).

// jobLabel is the job of pushed series: scraped ones get theirs from the
// scrape config.
const jobLabel = "benchtop"

type label struct{ name, value string }

type timeSeries struct {
	labels []label // sorted by name, __name__ among them
	value  float64
	ms     int64
}

// writeRequest is a prometheus.WriteRequest of one sample per series.
type writeRequest struct {
	series []timeSeries
	enc    []byte
}

// Size encodes the request (once) and returns its length.
func (r *writeRequest) Size() int {
	if r.enc == nil {
		r.enc = r.marshal()
	}
	return len(r.enc)
}

// MarshalToSizedBuffer writes the encoding at the end of b, as gogo
// protobuf's generated code does.
func (r *writeRequest) MarshalToSizedBuffer(b []byte) (int, error) {
	n := r.Size()
	copy(b[len(b)-n:], r.enc)
	return n, nil
}

func (r *writeRequest) marshal() []byte {
	var out, ts, msg []byte
	for _, s := range r.series {
		ts = ts[:0]
		for _, l := range s.labels {
			msg = protowire.AppendTag(msg[:0], 1, protowire.BytesType)
			msg = protowire.AppendString(msg, l.name)
			msg = protowire.AppendTag(msg, 2, protowire.BytesType)
			msg = protowire.AppendString(msg, l.value)
			ts = protowire.AppendTag(ts, 1, protowire.BytesType)
			ts = protowire.AppendBytes(ts, msg)
		}
		msg = protowire.AppendTag(msg[:0], 1, protowire.Fixed64Type)
		msg = protowire.AppendFixed64(msg, math.Float64bits(s.value))
		msg = protowire.AppendTag(msg, 2, protowire.VarintType)
		msg = protowire.AppendVarint(msg, uint64(s.ms))
		ts = protowire.AppendTag(ts, 2, protowire.BytesType)
		ts = protowire.AppendBytes(ts, msg)
		out = protowire.AppendTag(out, 1, protowire.BytesType)
		out = protowire.AppendBytes(out, ts)
	}
	if out == nil {
		out = []byte{}
	}
	return out
}

// seriesOf turns gathered families into remote write's series at time
// at, as Prometheus would store a scrape of them: a histogram as its
// _bucket (le), _sum and _count series, a summary as its quantiles, _sum
// and _count; every series with job="benchtop"; labels with an empty
// value left out (Prometheus stores none).
func seriesOf(fams []*dto.MetricFamily, at time.Time) []timeSeries {
	ms := at.UnixMilli()
	var out []timeSeries
	add := func(name string, m *dto.Metric, extra *label, v float64) {
		ls := []label{{"__name__", name}, {"job", jobLabel}}
		for _, lp := range m.GetLabel() {
			if lp.GetValue() != "" && lp.GetName() != "job" {
				ls = append(ls, label{lp.GetName(), lp.GetValue()})
			}
		}
		if extra != nil {
			ls = append(ls, *extra)
		}
		slices.SortFunc(ls, func(a, b label) int { return strings.Compare(a.name, b.name) })
		out = append(out, timeSeries{labels: ls, value: v, ms: ms})
	}
	for _, f := range fams {
		name := f.GetName()
		for _, m := range f.GetMetric() {
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				add(name, m, nil, m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				add(name, m, nil, m.GetGauge().GetValue())
			case dto.MetricType_UNTYPED:
				add(name, m, nil, m.GetUntyped().GetValue())
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					add(name+"_bucket", m, &label{"le", formatFloat(b.GetUpperBound())}, float64(b.GetCumulativeCount()))
				}
				add(name+"_bucket", m, &label{"le", "+Inf"}, float64(h.GetSampleCount()))
				add(name+"_sum", m, nil, h.GetSampleSum())
				add(name+"_count", m, nil, float64(h.GetSampleCount()))
			case dto.MetricType_SUMMARY:
				s := m.GetSummary()
				for _, q := range s.GetQuantile() {
					add(name, m, &label{"quantile", formatFloat(q.GetQuantile())}, q.GetValue())
				}
				add(name+"_sum", m, nil, s.GetSampleSum())
				add(name+"_count", m, nil, float64(s.GetSampleCount()))
			}
		}
	}
	return out
}

// formatFloat writes a bound as the OpenMetrics text format does (what
// Prometheus 2.42 asks a scrape for, and keeps verbatim): "1e-06",
// "0.0025", "1.0", "10.0". Pushed and scraped series then carry the same
// le values.
func formatFloat(f float64) string {
	if math.IsInf(f, +1) {
		return "+Inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, "e.") && !math.IsNaN(f) && !math.IsInf(f, 0) {
		s += ".0"
	}
	return s
}
