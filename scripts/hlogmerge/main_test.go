package main

import (
	"bytes"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestSplitTag(t *testing.T) {
	for _, c := range []struct{ tag, op, agent string }{
		{"READ", "READ", ""},
		{"Intended-READ", "Intended-READ", ""},
		{"c01/UPDATE", "UPDATE", "c01"},
		{"Intended-c01/UPDATE", "Intended-UPDATE", "c01"},
		{"Intended-10.0.0.1:7070/READ-FAILED", "Intended-READ-FAILED", "10.0.0.1:7070"},
	} {
		if op, agent := splitTag(c.tag); op != c.op || agent != c.agent {
			t.Errorf("splitTag(%q) = %q, %q; want %q, %q", c.tag, op, agent, c.op, c.agent)
		}
	}
}

// Two agents whose p99s are far apart: the merge is the p99 of all their
// values together, not an average of the two p99s, and the coordinator's
// lines are summed apart from the agents'.
func TestMergeAddsAgentsBucketByBucket(t *testing.T) {
	fast, slow, all := hdr.New(1, 60e9, 3), hdr.New(1, 60e9, 3), hdr.New(1, 60e9, 3)
	for i := int64(1); i <= 990; i++ { // 1..990 µs
		_ = fast.RecordValue(i * 1000)
		_ = all.RecordValue(i * 1000)
	}
	for i := int64(1); i <= 10; i++ { // 10 values of 100 ms
		_ = slow.RecordValue(100e6)
		_ = all.RecordValue(100e6)
	}
	var log bytes.Buffer
	w := hdr.NewHistogramLogWriter(&log)
	if err := w.OutputLogFormatVersion(); err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		tag string
		h   *hdr.Histogram
	}{{"a/READ", fast}, {"b/READ", slow}, {"READ", all}} {
		h.h.SetTag(h.tag)
		if err := w.OutputIntervalHistogram(h.h); err != nil {
			t.Fatal(err)
		}
	}
	ops, err := merge(&log)
	if err != nil {
		t.Fatal(err)
	}
	s := ops["READ"]
	if s == nil || len(s.agents) != 2 || count(s.fleet) != 1000 || count(s.merged) != 1000 {
		t.Fatalf("READ: %+v", s)
	}
	// p99 of 1000 values where 990 are ≤ 990 µs: the 990th value.
	if got, want := micros(s.fleet, 99), all.ValueAtQuantile(99)/1000; got != want || got > 1000 {
		t.Errorf("agents' merged p99 = %d µs, want %d (the 990th value, ~990 µs)", got, want)
	}
	if a, b := s.agents["a"], s.agents["b"]; count(a) != 990 || count(b) != 10 || micros(b, 99) != slow.ValueAtQuantile(99)/1000 {
		t.Errorf("each agent's own: a %d values, b %d values, b's p99 %d µs", count(a), count(b), micros(b, 99))
	}
	if micros(s.merged, 99) != micros(s.fleet, 99) {
		t.Errorf("coordinator's p99 %d µs, agents' %d µs", micros(s.merged, 99), micros(s.fleet, 99))
	}
	var out strings.Builder
	write(&out, ops, []float64{99})
	if want := "READ\tagents\t2\t1000\t"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

func TestEmptyLogIsAnError(t *testing.T) {
	if _, err := merge(strings.NewReader("#[Histogram log format version 1.3]\n")); err == nil {
		t.Fatal("a log without histograms merged without an error")
	}
}
