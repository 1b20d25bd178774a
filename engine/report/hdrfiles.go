package report

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/engine/measure"
)

// HDRFiles writes YCSB's own HDR output (hdrhistogram.fileoutput=true):
// one HdrHistogram interval log per measurement, named PREFIX + NAME +
// ".hdr" (PREFIX is hdrhistogram.output.path, READ.hdr in the current
// directory by default), values in microseconds, the header YCSB writes
// ("#[Logging for: READ]", format version, start time, legend). A file is
// created when its measurement first has data. Only the phase the command
// names is logged (run for `run`, load for `load`), as one YCSB process
// runs one.
type HDRFiles struct {
	prefix   string
	phase    engine.Phase
	start    time.Time
	op       bool // raw (service time) measurements
	intended bool // Intended- measurements

	mu    sync.Mutex
	files map[string]*hdrFile
	order []string
	err   error
}

type hdrFile struct {
	f  *os.File
	bw *bufio.Writer
	lw *hdr.HistogramLogWriter
}

// NewHDRFiles prepares the files for phase; measurement is
// measurement.interval (op, intended, both), which says which
// measurements YCSB keeps.
func NewHDRFiles(prefix string, phase engine.Phase, measurement string, start time.Time) *HDRFiles {
	return &HDRFiles{prefix: prefix, phase: phase, start: start, files: map[string]*hdrFile{},
		op: measurement != "intended", intended: measurement != "op"}
}

// Interval logs one interval. It matches engine.Options.OnInterval.
func (l *HDRFiles) Interval(phase engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	if phase != l.phase {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	for op := 0; op < len(names) && op < measure.NumOps; op++ {
		for _, v := range []struct {
			variant int
			name    string
			on      bool
		}{
			{measure.OK, names[op], l.op},
			{measure.Failed, names[op] + "-FAILED", l.op},
			{measure.OKIntended, "Intended-" + names[op], l.intended},
			{measure.FailedIntended, "Intended-" + names[op] + "-FAILED", l.intended},
		} {
			h := set.H[measure.Slot(op, v.variant)]
			if !v.on || h == nil || h.TotalCount() == 0 {
				continue
			}
			if err := l.write(v.name, start, end, h); err != nil {
				l.err = err
				return
			}
		}
	}
}

func (l *HDRFiles) write(name string, start, end time.Time, h *hdr.Histogram) error {
	f, err := l.file(name)
	if err != nil {
		return err
	}
	us := microseconds(h)
	us.SetStartTimeMs(start.UnixMilli())
	us.SetEndTimeMs(end.UnixMilli())
	return f.lw.OutputIntervalHistogram(us)
}

// file returns the log of name, creating it with YCSB's header.
func (l *HDRFiles) file(name string) (*hdrFile, error) {
	if f := l.files[name]; f != nil {
		return f, nil
	}
	path := l.prefix + name + ".hdr"
	fh, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("hdrhistogram.output.path: %w", err)
	}
	bw := bufio.NewWriter(fh)
	lw := hdr.NewHistogramLogWriter(bw)
	ms := l.start.UnixMilli()
	_ = lw.OutputComment("[Logging for: " + name + "]")
	_ = lw.OutputLogFormatVersion()
	_ = lw.OutputStartTime(ms)
	lw.SetBaseTime(ms)
	if err := lw.OutputLegend(); err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &hdrFile{f: fh, bw: bw, lw: lw}
	l.files[name] = f
	l.order = append(l.order, path)
	return f, nil
}

// microseconds re-records a histogram of nanoseconds in whole
// microseconds, YCSB's unit (each bar as its middle value, truncated as
// YCSB's latency/1000).
func microseconds(h *hdr.Histogram) *hdr.Histogram {
	out := hdr.New(1, measure.Highest/1000, measure.Digits)
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			_ = out.RecordValues(max(1, (b.From+b.To)/2/1000), b.Count)
		}
	}
	return out
}

// Close flushes and closes every file and returns their paths, and the
// first error seen.
func (l *HDRFiles) Close() ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	errs := []error{l.err}
	for _, f := range l.files {
		if err := f.bw.Flush(); err != nil {
			errs = append(errs, err)
		}
		if err := f.f.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	l.files = map[string]*hdrFile{}
	return l.order, errors.Join(errs...)
}
