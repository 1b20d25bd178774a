package report

import (
	"bufio"
	"io"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/engine/measure"
)

// HDRLog writes every interval's histograms as an HdrHistogram interval
// log (values in nanoseconds), one tagged line per operation type and
// variant, readable by HistogramLogProcessor and HdrHistogram plotters.
type HDRLog struct {
	mu  sync.Mutex
	w   *bufio.Writer
	lw  *hdr.HistogramLogWriter
	err error
}

// NewHDRLog starts a log with its header.
func NewHDRLog(w io.Writer, start time.Time) *HDRLog {
	bw := bufio.NewWriter(w)
	lw := hdr.NewHistogramLogWriter(bw)
	l := &HDRLog{w: bw, lw: lw}
	// The log's header carries whole seconds (hdrhistogram-go writes
	// StartTime and BaseTime as integers), so the base must be a whole
	// second too: with a millisecond base, a reader that adds the offsets
	// to the written BaseTime would place every interval up to 999 ms early.
	ms := start.Unix() * 1000
	_ = lw.OutputComment("[benchtop interval log: latency in nanoseconds; tags are YCSB operation names, Intended- for latency from the intended start]")
	_ = lw.OutputLogFormatVersion()
	_ = lw.OutputStartTime(ms)
	lw.SetBaseTime(ms)
	_ = lw.OutputBaseTime(ms)
	l.err = lw.OutputLegend()
	return l
}

// Interval writes one interval. It matches engine.Options.OnInterval.
func (l *HDRLog) Interval(phase engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	for op := 0; op < len(names) && op < measure.NumOps; op++ {
		for _, v := range []struct {
			variant int
			prefix  string
			suffix  string
		}{{measure.OK, "", ""}, {measure.OKIntended, "Intended-", ""}, {measure.Failed, "", "-FAILED"}} {
			h := set.H[measure.Slot(op, v.variant)]
			if h == nil || h.TotalCount() == 0 {
				continue
			}
			tag := v.prefix + names[op] + v.suffix
			if phase == engine.PhaseLoad {
				tag = "LOAD-" + tag
			}
			h.SetTag(tag)
			h.SetStartTimeMs(start.UnixMilli())
			h.SetEndTimeMs(end.UnixMilli())
			if err := l.lw.OutputIntervalHistogram(h); err != nil {
				l.err = err
				return
			}
		}
	}
}

// Flush writes buffered lines out and returns the first error seen.
func (l *HDRLog) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	return l.w.Flush()
}
