package report

import (
	"bytes"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/engine/core"
	"benchtop/engine/measure"
)

// A reader of the log (hdrhistogram-go's, HistogramLogProcessor) must
// place each interval where it was, although the header holds whole
// seconds only.
func TestHDRLogTimesReadBack(t *testing.T) {
	start := time.Date(2026, 12, 1, 8, 0, 0, 700_000_000, time.UTC)
	var b bytes.Buffer
	l := NewHDRLog(&b, start)
	set := &measure.Set{}
	set.Record(measure.Slot(core.OpRead, measure.OK), 1000)
	ivlStart, ivlEnd := start.Add(150*time.Millisecond), start.Add(1150*time.Millisecond)
	l.Interval(engine.PhaseRun, core.OpNames, ivlStart, ivlEnd, set)
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
