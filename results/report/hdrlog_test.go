package report

import (
	"bytes"
	"context"
	"errors"
	"io"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/workload/ycsb"
)

// spinDB answers after a varying amount of work, so that latencies spread
// over many buckets; every 50th update fails.
type spinDB struct{ n atomic.Int64 }

func (d *spinDB) spin() int64 {
	n := d.n.Add(1)
	x := n
	for i := int64(0); i < (n%37)*200; i++ {
		x = x*31 + i
	}
	return x
}
func (d *spinDB) Read(_ context.Context, _, _ string, _ []string, dst []adapters.Field) ([]adapters.Field, error) {
	d.spin()
	return append(dst, adapters.Field{Name: "field0", Value: []byte("v")}), nil
}
func (d *spinDB) Scan(_ context.Context, _, _ string, _ int, _ []string, dst []adapters.Record) ([]adapters.Record, error) {
	return dst, nil
}
func (d *spinDB) Update(context.Context, string, string, []adapters.Field) error {
	if d.spin()%50 == 0 {
		return adapters.WithKind(adapters.KindUnavailable, errors.New("injected"))
	}
	return nil
}
func (d *spinDB) Insert(context.Context, string, string, []adapters.Field) error { return nil }
func (d *spinDB) Delete(context.Context, string, string) error                   { return nil }
func (d *spinDB) Close() error                                                   { return nil }

// The HDR interval log (--hdr-log) decodes with hdrhistogram-go's own log
// reader; the intervals of each tag add up, bucket for bucket, to the
// report's cumulative histogram, so counts and percentiles agree with the
// YCSB report's lines.
func TestHDRLogDecodesToTheReport(t *testing.T) {
	t.Parallel()
	cfg, _, err := engine.NewConfig("run", "fake", map[string]string{"recordcount": "100", "operationcount": "3000",
		"readproportion": "0.6", "updateproportion": "0.4", "threadcount": "2", "target": "3000", "status.interval": "100ms", "hdrhistogram.percentiles": "50,95,99"})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	hl := NewHDRLog(&log, time.Now())
	r, err := engine.New(cfg, &spinDB{}, engine.Options{OnInterval: []func(engine.Phase, []string, time.Time, time.Time, *measure.Set){hl.Interval}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	res, err := r.Run(context.Background())
	if err != nil || len(res) != 1 {
		t.Fatalf("Run: %d phases, %v", len(res), err)
	}
	if err := hl.Flush(); err != nil {
		t.Fatal(err)
	}

	merged := map[string]*hdr.Histogram{}
	intervals := 0
	lr := hdr.NewHistogramLogReader(bytes.NewReader(log.Bytes()))
	for {
		h, err := lr.NextIntervalHistogram()
		if err == io.EOF || (err == nil && h == nil) {
			break
		}
		if err != nil {
			t.Fatalf("reading the log: %v", err)
		}
		intervals++
		m := merged[h.Tag()]
		if m == nil {
			m = measure.NewHistogram()
			merged[h.Tag()] = m
		}
		if dropped := m.Merge(h); dropped != 0 {
			t.Fatalf("%s: %d values did not fit", h.Tag(), dropped)
		}
	}
	if intervals < 4 {
		t.Fatalf("%d interval histograms in the log, want one per op type and variant per interval", intervals)
	}
	var text bytes.Buffer
	WriteYCSB(&text, res[0])
	report := text.String()
	for _, c := range []struct {
		tag  string
		slot int
	}{
		{"READ", measure.Slot(ycsb.OpRead, measure.OK)},
		{"UPDATE", measure.Slot(ycsb.OpUpdate, measure.OK)},
		{"UPDATE-FAILED", measure.Slot(ycsb.OpUpdate, measure.Failed)},
		{"Intended-READ", measure.Slot(ycsb.OpRead, measure.OKIntended)},
		{"Intended-UPDATE", measure.Slot(ycsb.OpUpdate, measure.OKIntended)},
	} {
		got, want := merged[c.tag], res[0].Set.H[c.slot]
		if got == nil || want == nil || want.TotalCount() == 0 {
			t.Errorf("%s: in the log %v, in the result %v", c.tag, got != nil, want != nil)
			continue
		}
		if !got.Equals(want) {
			t.Errorf("%s: the log's intervals add up to %d values (p99 %d ns), the report holds %d (p99 %d ns)",
				c.tag, got.TotalCount(), got.ValueAtQuantile(99), want.TotalCount(), want.ValueAtQuantile(99))
		}
		if n := reportValue(t, report, c.tag, "Operations"); n != got.TotalCount() {
			t.Errorf("%s: report says %d operations, the log %d", c.tag, n, got.TotalCount())
		}
		for _, q := range []struct {
			name string
			q    float64
		}{{"50thPercentileLatency(us)", 50}, {"95thPercentileLatency(us)", 95}, {"99thPercentileLatency(us)", 99}} {
			if v := reportValue(t, report, c.tag, q.name); v != got.ValueAtQuantile(q.q)/1000 {
				t.Errorf("%s: report %s = %d, the log's %d", c.tag, q.name, v, got.ValueAtQuantile(q.q)/1000)
			}
		}
	}
	if total := merged["READ"].TotalCount() + merged["UPDATE"].TotalCount() + merged["UPDATE-FAILED"].TotalCount(); total != 3000 {
		t.Errorf("the log holds %d operations, want 3000", total)
	}
}

// reportValue is the integer value of "[tag], name, value" in a report.
func reportValue(t *testing.T, report, tag, name string) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\[` + regexp.QuoteMeta(tag) + `\], ` + regexp.QuoteMeta(name) + `, (\d+)$`).FindStringSubmatch(report)
	if m == nil {
		t.Fatalf("no [%s], %s line in the report:\n%s", tag, name, report)
	}
	v, _ := strconv.ParseInt(m[1], 10, 64)
	return v
}

// A reader of the log (hdrhistogram-go's, HistogramLogProcessor) must
// place each interval where it was, although the header holds whole
// seconds only.
func TestHDRLogTimesReadBack(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 1, 8, 0, 0, 700_000_000, time.UTC)
	var b bytes.Buffer
	l := NewHDRLog(&b, start)
	set := &measure.Set{}
	set.Record(measure.Slot(ycsb.OpRead, measure.OK), 1000)
	ivlStart, ivlEnd := start.Add(150*time.Millisecond), start.Add(1150*time.Millisecond)
	l.Interval(engine.PhaseRun, ycsb.OpNames, ivlStart, ivlEnd, set)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	h, err := hdr.NewHistogramLogReader(&b).NextIntervalHistogram()
	if err != nil || h == nil {
		t.Fatalf("read back: %v, %v", h, err)
	}
	if d := h.StartTimeMs() - ivlStart.UnixMilli(); d < -1 || d > 1 {
		t.Errorf("interval read back at %d ms, written at %d ms (%d ms off)", h.StartTimeMs(), ivlStart.UnixMilli(), d)
	}
	if h.Tag() != "READ" || h.TotalCount() != 1 {
		t.Errorf("read back tag %q count %d, want READ 1", h.Tag(), h.TotalCount())
	}
}
