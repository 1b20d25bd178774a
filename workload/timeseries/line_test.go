package timeseries

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
)

func errorsAs(err error, target any) bool { return errors.As(err, target) }

func mustGen(t *testing.T, props adapters.Properties, prec time.Duration) *lineGen {
	t.Helper()
	c, err := ParseConfig(props)
	if err != nil {
		t.Fatal(err)
	}
	g, err := newLineGen(c, "ab12cd34", prec, time.Unix(1764470000, 123456789))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestDefaultLine(t *testing.T) {
	t.Parallel()
	g := mustGen(t, nil, time.Nanosecond)
	rnd := func() uint64 { return 0 }
	line := string(g.appendLine(nil, 12345, rnd))
	// Point 12345 of 1000 series: series 345 (host 45, region 3), the
	// 13th point of its series, 12 ms after the start.
	want := "cpu,host=host0045,region=region03,run=ab12cd34 usage_user=10.000000,usage_system=10.000000,usage_idle=10.000000 1764470000135456789\n"
	if line != want {
		t.Errorf("line\n%q, want\n%q", line, want)
	}
	if len(line) != 132 {
		t.Errorf("default line is %d bytes, want 132", len(line))
	}
	// Same size whatever the values.
	big := string(g.appendLine(nil, 12345, func() uint64 { return 89_999_999 }))
	if len(big) != len(line) || !strings.Contains(big, "usage_user=99.999999") {
		t.Errorf("line with the largest values: %q", big)
	}
	// Coarser precision: the timestamp in that unit.
	gs := mustGen(t, adapters.Properties{PropStep: "10s", PropRunTag: "false"}, time.Second)
	if l := string(gs.appendLine(nil, 2000, rnd)); !strings.HasSuffix(l, " "+strconv.Itoa(1764470000+2*10)+"\n") || strings.Contains(l, "run=") {
		t.Errorf("seconds line %q", l)
	}
}

// Every point of a run is unique by series and timestamp, also beyond the
// series count that gets precomputed prefixes.
func TestPointsAreUnique(t *testing.T) {
	t.Parallel()
	for _, props := range []adapters.Properties{
		{PropHosts: "7", PropRegions: "3"},
		{PropHosts: "1000", PropRegions: "100"}, // 100,000 series: built per line
	} {
		g := mustGen(t, props, time.Millisecond)
		seen := map[string]bool{}
		re := regexp.MustCompile(`^(\S+) \S+ (\d+)\n$`)
		for seq := int64(0); seq < 50000; seq++ {
			l := string(g.appendLine(nil, seq*7, func() uint64 { return uint64(seq) }))
			m := re.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("malformed line %q", l)
			}
			k := m[1] + " " + m[2]
			if seen[k] {
				t.Fatalf("%v: point %d repeats series and timestamp %s", props, seq*7, k)
			}
			seen[k] = true
		}
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	c, err := ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.BatchSize != 5000 || c.FlushInterval != 300*time.Millisecond || c.InFlight != 1 || c.Hosts*c.Regions != 1000 || !c.RunTag || !c.Check {
		t.Errorf("defaults = %+v", c)
	}
	c, err = ParseConfig(adapters.Properties{PropFlushInterval: "1000", PropBatchSize: "15000", PropFields: "a, b"})
	if err != nil || c.FlushInterval != time.Second || c.BatchSize != 15000 || len(c.Fields) != 2 {
		t.Errorf("flush.interval=1000 (ms) batch.size=15000: %+v, %v", c, err)
	}
	for _, tc := range []struct{ key, value string }{
		{PropBatchSize, "0"},
		{PropBatchSize, "lots"},
		{PropFlushInterval, "-1s"},
		{PropMeasurement, "cpu load"},
		{PropFields, "a,a"},
		{PropFields, "time"},
		{PropHosts, "0"},
		{PropInFlight, "65"},
		{PropStep, "0"},
		{PropRunTag, "maybe"},
	} {
		_, err := ParseConfig(adapters.Properties{tc.key: tc.value})
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key {
			t.Errorf("%s=%q: %v, want a ConfigError naming %s", tc.key, tc.value, err, tc.key)
		}
	}
	if _, err := ParseConfig(adapters.Properties{PropHosts: "100000", PropRegions: "1000"}); err == nil {
		t.Error("10^8 series accepted")
	}
	// The step must be a whole number of timestamp units.
	c, _ = ParseConfig(adapters.Properties{PropStep: "1500us"})
	if _, err := newLineGen(c, "x", time.Millisecond, time.Now()); err == nil {
		t.Error("step 1.5ms accepted at millisecond precision")
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	c, _ := ParseConfig(nil)
	w, err := New(c, newFakeLP())
	if err != nil {
		t.Fatal(err)
	}
	want := "line protocol: batch 5000, flush 300ms, 1000 series (100 hosts x 10 regions), 3 fields, 132 B/record, 1 batch in flight per writer"
	if got := w.Describe(); got != want {
		t.Errorf("Describe() =\n%q, want\n%q", got, want)
	}
}

func TestViewString(t *testing.T) {
	t.Parallel()
	v := View{Writers: 8, RecordsPerSec: 51234, AvgRecordsPerSec: 50120, MBPerSec: 6.76, AvgMBPerSec: 6.62, Backpressure: 0.031,
		WriteP50: 12 * time.Millisecond, WriteP99: 41 * time.Millisecond, HTTPStatus: map[int]int64{503: 2}}
	want := "records 51,234/s (avg 50,120/s), 6.76 MB/s (avg 6.62), 8 writers, backpressure 3%, write p50 12ms p99 41ms, HTTP 503×2"
	if got := v.String(); got != want {
		t.Errorf("View.String() =\n%q, want\n%q", got, want)
	}
}

func BenchmarkAppendLine(b *testing.B) {
	c, _ := ParseConfig(nil)
	g, _ := newLineGen(c, "ab12cd34", time.Nanosecond, time.Now())
	buf := make([]byte, 0, 256)
	var r uint64
	rnd := func() uint64 { r += 0x9e3779b97f4a7c15; return r }
	b.SetBytes(132)
	for i := 0; b.Loop(); i++ {
		buf = g.appendLine(buf[:0], int64(i), rnd)
	}
}

type discardLP struct{ *fakeLP }

func (discardLP) WriteLines(context.Context, []byte, int) error { return nil }

// BenchmarkRecord is the workload's share of one Transaction: append a
// point, hand over a full batch now and then (to a server that answers at
// once).
func BenchmarkRecord(b *testing.B) {
	c, _ := ParseConfig(nil)
	w, err := New(c, discardLP{newFakeLP()})
	if err != nil {
		b.Fatal(err)
	}
	wr := w.NewWorker(1).(*writer)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(132)
	for b.Loop() {
		_ = wr.record(ctx, nil, nil)
	}
	b.StopTimer()
	_ = w.drain(ctx)
}
